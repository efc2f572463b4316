//! The hash join: a table built on the left rows' canonical keys, probed by right batches.
//!
//! Both strategies use it. Replicated: one [`JoinTable`] of the whole left side, shared by
//! every map worker, each probing with its right batches and writing its own part through an
//! [`Emitter`]. Reduce-side: one table per partition, built and probed by that partition's
//! reducer. Every row arrives with the base hash of its key, computed once by the map stage;
//! the table remixes it with its own salt ([`table_hash`]), so it never depends on the bits
//! the partitioner used. Null keys never match, unless the join is `--nulls-equal`: then a
//! key matches one that is not distinct from it (component by component, both null or both
//! equal), and the map stage gives keys with nulls hashes of their own
//! ([`crate::key::hash_null_rows`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow::buffer::NullBuffer;
use arrow::compute::{concat_batches, take};
use arrow::datatypes::SchemaRef;

use crate::commit::partition::{OutputPartitioning, PartSink, WrittenPart};
use crate::commit::Staging;
use crate::error::{Error, Result};
use crate::join::condition::JoinCondition;
use crate::key::TupleKeys;

/// The join types (MapReduce Design Patterns' set).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[value(rename_all = "kebab-case")]
pub enum JoinType {
    /// Matching pairs only.
    Inner,
    /// Every left row, with its matches or nulls.
    Left,
    /// Left rows that have a match (left columns only).
    LeftSemi,
    /// Left rows that have no match (left columns only).
    LeftAnti,
    /// Every right row, with its matches or nulls.
    Right,
    /// Right rows that have a match, each once (right columns only).
    RightSemi,
    /// Right rows that have no match, a null key among them (right columns only).
    RightAnti,
    /// Every row of both sides.
    Full,
}

impl JoinType {
    /// True when dropping right rows whose key is not on the left cannot change the result,
    /// so the Bloom prefilter may be used.
    pub fn allows_prefilter(self) -> bool {
        !self.keeps_right()
    }

    /// True when matched pairs are written (left and right columns side by side).
    pub fn outputs_pairs(self) -> bool {
        matches!(
            self,
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full
        )
    }

    /// True when left columns appear in the output.
    pub fn outputs_left(self) -> bool {
        !matches!(self, JoinType::RightSemi | JoinType::RightAnti)
    }

    /// True when right columns appear in the output.
    pub fn outputs_right(self) -> bool {
        !matches!(self, JoinType::LeftSemi | JoinType::LeftAnti)
    }

    /// True when unmatched left rows are kept.
    pub fn keeps_left(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full | JoinType::LeftAnti)
    }

    /// True when unmatched right rows (a null key among them) are kept.
    pub fn keeps_right(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full | JoinType::RightAnti)
    }

    /// Which left rows are written once every right row has been probed: the matched ones
    /// (semi), the unmatched ones (left, full, anti), or none.
    fn left_rows_at_end(self) -> Option<bool> {
        match self {
            JoinType::LeftSemi => Some(true),
            JoinType::Left | JoinType::Full | JoinType::LeftAnti => Some(false),
            JoinType::Inner | JoinType::Right | JoinType::RightSemi | JoinType::RightAnti => None,
        }
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            JoinType::Inner => "inner",
            JoinType::Left => "left",
            JoinType::LeftSemi => "left-semi",
            JoinType::LeftAnti => "left-anti",
            JoinType::Right => "right",
            JoinType::RightSemi => "right-semi",
            JoinType::RightAnti => "right-anti",
            JoinType::Full => "full",
        }
    }
}

/// Which input an output column comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The filtered-on (build) side.
    Left,
    /// The big (probe) side.
    Right,
}

/// One output column: its side and its position in that side's batches.
#[derive(Debug, Clone)]
pub struct OutColumn {
    /// The side.
    pub side: Side,
    /// Index in the side's batch schema.
    pub index: usize,
    /// `--coalesce-keys`: this (left) column is key `i`, and rows without a left side take
    /// the right side's key `i` (column `i` of the right batches) instead.
    pub coalesce: Option<usize>,
    /// A computed column (`--select "expr AS name"`): its values come from its expression
    /// (`side` and `index` mean nothing then).
    pub(crate) computed: Option<Arc<crate::join::condition::Computed>>,
}

/// The static description of a join shared by every table and emitter.
#[derive(Debug, Clone)]
pub(crate) struct JoinShape {
    /// The join type.
    pub join_type: JoinType,
    /// Output schema.
    pub out_schema: SchemaRef,
    /// Where each output column comes from.
    pub out_columns: Vec<OutColumn>,
    /// Schema of the left side's batches (the key columns first).
    pub left_schema: SchemaRef,
    /// Number of key columns (the first columns of both sides' batches).
    pub key_arity: usize,
    /// `--nulls-equal`: null key components match each other (SQL's `IS NOT DISTINCT FROM`).
    pub nulls_equal: bool,
    /// `--join-where`: the condition candidate pairs must also meet to match.
    pub condition: Option<Arc<JoinCondition>>,
    /// The Parquet Bloom filters every part carries.
    pub blooms: crate::bloom::sbbf::WriteBlooms,
    /// How every part's files are written (codec, row groups, file limits).
    pub format: crate::commit::FileFormat,
    /// `--partition-by`: the partition directories the rows go to.
    pub partitioning: Option<Arc<OutputPartitioning>>,
    /// With it, the most parts each task keeps open.
    pub open_parts: usize,
}

impl JoinShape {
    /// The shape once the left side is known to have `left_rows` rows: an output column whose
    /// values all come from those rows (a left column, or the right key columns when every
    /// right row out matched a left key) holds at most that many distinct values, which
    /// bounds its Parquet Bloom filter's starting size (see [`WriteBlooms`]).
    ///
    /// [`WriteBlooms`]: crate::bloom::sbbf::WriteBlooms
    pub(crate) fn bounded_by_left(mut self, left_rows: u64) -> Self {
        let right_keys_from_left = !self.join_type.keeps_right();
        self.blooms.max_distinct = self
            .out_columns
            .iter()
            .zip(self.out_schema.fields())
            .filter(|(c, _)| c.computed.is_none())
            .filter(|(c, _)| match c.side {
                // A coalesced key holds right keys where a right row has no left one.
                Side::Left => c.coalesce.is_none() || right_keys_from_left,
                Side::Right => right_keys_from_left && c.index < self.key_arity,
            })
            .map(|(_, f)| (f.name().clone(), left_rows))
            .collect();
        self
    }
}

/// The table's remix of a row's base key hash ("TABLE" salt): independent of the bits the
/// partitioner and the Bloom filter use.
#[inline]
pub(crate) fn table_hash(h: u64) -> u64 {
    crate::bloom::fmix64(h ^ 0x5441_424C_455F_5631)
}

/// Table hashes are already well mixed: use them as they are.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | *b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

const NONE: u32 = u32::MAX;

/// A table entry: the first two rows of its chain (`second` is `NONE` for a chain of one
/// row) and, for an integer key the table inlines ([`Inline`]), the first row's key. A probe
/// then finds a unique left key's row and compares it without reading the rows' keys or the
/// chain links, each a cache miss in a large table.
#[derive(Clone, Copy)]
struct Head {
    key: i64,
    first: u32,
    second: u32,
}

/// How a table's entries hold their first row's key.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Inline {
    /// Not at all: the probe compares the rows' keys.
    No,
    /// A one-column integer key, as it is.
    Single,
    /// A two-column integer key whose left values all fit 32 bits, packed by [`pack`].
    Pair,
}

/// Two integers that fit 32 bits each, as one `i64` (`None` when one does not fit). On the
/// integers that fit, two pairs pack to the same value exactly when they are equal.
#[inline]
fn pack(a: i64, b: i64) -> Option<i64> {
    let (a, b) = (i32::try_from(a).ok()?, i32::try_from(b).ok()?);
    Some((i64::from(a) << 32) | i64::from(b as u32))
}

/// The build side: the left rows, their canonical keys, and chains of rows per table hash.
/// Shared read-only by the probing workers; only the matched flags change, atomically.
pub(crate) struct JoinTable {
    batch: RecordBatch,
    keys: TupleKeys,
    /// The chain of left rows per table hash, its first two rows in the entry.
    heads: HashMap<u64, Head, BuildHasherDefault<IdHasher>>,
    /// The row after each chain row from the second on (`NONE`: the last).
    next: Vec<u32>,
    /// Whether (and how) each entry holds its first row's key, compared in place.
    inline: Inline,
    /// `--nulls-equal`: keys compare as SQL's `IS NOT DISTINCT FROM`, and left rows with a
    /// null key are in the table.
    nulls_equal: bool,
    /// One bit per left row: matched by some right row.
    matched: Vec<AtomicU64>,
}

impl JoinTable {
    /// Build from left batches (the `arity` key columns first) and the base hashes of their
    /// keys (one vector per batch); `nulls_equal`: see [`JoinShape::nulls_equal`].
    pub(crate) fn build(
        schema: &SchemaRef,
        arity: usize,
        nulls_equal: bool,
        batches: Vec<RecordBatch>,
        hashes: Vec<Vec<u64>>,
    ) -> Result<JoinTable> {
        let batch = concat_batches(schema, &batches)
            .map_err(|e| Error::arrow("concatenating the build side", e))?;
        drop(batches);
        let n = batch.num_rows();
        if n >= NONE as usize {
            return Err(Error::param(
                "--memory-limit",
                format!("a build side of {n} rows is more than one table holds (2^32 - 1): use --strategy reduce-side"),
            ));
        }
        let key_cols = crate::key::leading_key_columns(&batch, arity);
        let keys = TupleKeys::try_new(&key_cols)?;
        // Under --nulls-equal a row with a null key is a key like any other (its hash is its
        // null-aware one), but the entries cannot inline a null.
        let all_nulls = crate::key::tuple_nulls(&key_cols);
        let any_null = nulls_equal && all_nulls.as_ref().is_some_and(|v| v.null_count() > 0);
        let nulls = all_nulls.filter(|_| !nulls_equal);
        let mut heads: HashMap<u64, Head, BuildHasherDefault<IdHasher>> =
            HashMap::with_capacity_and_hasher(n, Default::default());
        let mut next = vec![NONE; n];
        let all: Vec<u64> = hashes.into_iter().flatten().collect();
        if all.len() != n {
            return Err(Error::Internal(format!(
                "{} key hashes for {n} build rows",
                all.len()
            )));
        }
        let ints = keys.single_int();
        let is_null = |i: usize| nulls.as_ref().is_some_and(|v| v.is_null(i));
        let pair = keys
            .pair_int()
            .filter(|(a, b)| (0..n).all(|i| is_null(i) || pack(a[i], b[i]).is_some()));
        let inline = match (ints, pair) {
            _ if any_null => Inline::No,
            (Some(_), _) => Inline::Single,
            (None, Some(_)) => Inline::Pair,
            (None, None) => Inline::No,
        };
        // Insert in reverse so each chain lists rows in input order: each row goes in front,
        // the old first row becomes the second and links to the old second.
        for i in (0..n).rev() {
            if is_null(i) {
                continue;
            }
            let key = match (ints, pair) {
                (Some(k), _) => k[i],
                (None, Some((a, b))) => pack(a[i], b[i]).unwrap_or(0),
                (None, None) => 0,
            };
            heads
                .entry(table_hash(all[i]))
                .and_modify(|h| {
                    next[h.first as usize] = h.second;
                    *h = Head {
                        key,
                        first: i as u32,
                        second: h.first,
                    };
                })
                .or_insert(Head {
                    key,
                    first: i as u32,
                    second: NONE,
                });
        }
        Ok(JoinTable {
            batch,
            keys,
            heads,
            next,
            inline,
            nulls_equal,
            matched: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        })
    }

    /// Number of left rows.
    pub(crate) fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// Whether some left row's key has base hash `h` (the prefilter's `keys` tier).
    #[inline]
    pub(crate) fn has_hash(&self, h: u64) -> bool {
        self.heads.contains_key(&table_hash(h))
    }

    /// The table entries of base hashes `hashes` (an empty entry, `first` `NONE`, where no
    /// left key has the hash), looked up in one tight loop before any is walked: the lookups
    /// are independent, so the CPU overlaps their cache misses.
    fn heads_of(&self, hashes: &[u64], out: &mut Vec<Head>) {
        const EMPTY: Head = Head {
            key: 0,
            first: NONE,
            second: NONE,
        };
        out.clear();
        out.extend(
            hashes
                .iter()
                .map(|h| self.heads.get(&table_hash(*h)).copied().unwrap_or(EMPTY)),
        );
    }

    /// Visit the left rows of entry `head` whose key equals right key `j`, in chain order,
    /// while `f` returns true.
    #[inline]
    fn for_each_match(
        &self,
        head: &Head,
        rkeys: &TupleKeys,
        j: usize,
        mut f: impl FnMut(u32) -> bool,
    ) {
        if head.first == NONE {
            return;
        }
        // Under --nulls-equal an inlined table has no null key (see `build`), so a right key
        // with a null matches none of it.
        if self.nulls_equal && self.inline != Inline::No && rkeys.has_null_at(j) {
            return;
        }
        // `Single` and `Pair` give `eq_at`'s answer from the entry (see `as_i64_at`; every
        // left pair fits `pack`, so a right pair that does not cannot equal one).
        let first = match self.inline {
            Inline::Single => rkeys.single_as_i64_at(j) == Some(head.key),
            Inline::Pair => rkeys.pair_as_i64_at(j).and_then(|(a, b)| pack(a, b)) == Some(head.key),
            Inline::No => self.key_eq(head.first, rkeys, j),
        };
        if first && !f(head.first) {
            return;
        }
        let mut i = head.second;
        while i != NONE {
            if self.key_eq(i, rkeys, j) && !f(i) {
                return;
            }
            i = self.next[i as usize];
        }
    }

    /// Whether left row `i`'s key matches right key `j`: equal, or under `--nulls-equal` not
    /// distinct (SQL's `IS NOT DISTINCT FROM`, left rows with a null key being in the table).
    #[inline]
    fn key_eq(&self, i: u32, rkeys: &TupleKeys, j: usize) -> bool {
        if self.nulls_equal {
            self.keys.not_distinct_at(i as usize, rkeys, j)
        } else {
            self.keys.eq_at(i as usize, rkeys, j)
        }
    }

    /// True when some left row of entry `head` has a key equal to right key `j`: the walk
    /// stops at the first.
    #[inline]
    fn has_match(&self, head: &Head, rkeys: &TupleKeys, j: usize) -> bool {
        let mut found = false;
        self.for_each_match(head, rkeys, j, |_| {
            found = true;
            false
        });
        found
    }

    #[inline]
    fn mark(&self, i: u32) {
        let (w, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        // Most rows match more than once: read before writing to keep the cache line shared.
        if self.matched[w].load(Ordering::Relaxed) & bit == 0 {
            self.matched[w].fetch_or(bit, Ordering::Relaxed);
        }
    }

    #[inline]
    fn is_matched(&self, i: usize) -> bool {
        self.matched[i / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
    }
}

/// `--join-where`'s candidate pairs of a right batch (left row, right row), in right-row
/// order, and the first right row not yet decided.
#[derive(Default)]
struct Candidates {
    left: Vec<u32>,
    right: Vec<u32>,
    /// The next right row to decide, whether it has a candidate so far, and whether one of
    /// its candidates has passed.
    next: usize,
    had: bool,
    found: bool,
}

impl Candidates {
    /// Move on to the next right row.
    fn advance(&mut self) {
        self.next += 1;
        self.had = false;
        self.found = false;
    }
}

/// `a`'s buffer as an empty vector to fill again (a new one if the buffer is shared).
fn emptied(a: UInt32Array) -> Vec<u32> {
    let mut v = a.into_parts().1.into_inner().into_vec().unwrap_or_default();
    v.clear();
    v
}

/// Output rows flushed to the part once this many are pending.
const FLUSH_ROWS: usize = 65_536;

/// Probes right batches against a table and writes the joined rows to one part.
pub(crate) struct Emitter {
    shape: Arc<JoinShape>,
    writer: PartSink,
    /// Right rows (non-null key) that matched no left row.
    pub right_unmatched: u64,
    /// `--join-where`'s counters.
    pub condition: ConditionCounts,
    left_idx: Vec<Option<u32>>,
    right_idx: Vec<u32>,
    /// Set when the left rows are joined in several passes (see [`Passes`]).
    passes: Option<Passes>,
    /// The table entries of the batch being probed (kept to reuse the allocation).
    heads: Vec<Head>,
}

/// A reduce-side partition whose left rows are over the memory budget is joined in passes:
/// its left rows in chunks that fit, each chunk built into a table and probed by every right
/// row of the partition (in the spill's order, the same every pass). Pairs and left rows
/// come out of the pass of their chunk; a right row written alone (right, full and
/// right-anti joins: unmatched; right-semi: matched) must come out once, so this remembers
/// which right rows matched in an earlier pass, and unmatched ones wait for the last pass.
pub(crate) struct Passes {
    /// One bit per right row of the partition: matched in some pass so far.
    matched: Vec<u64>,
    /// Under `--join-where`, one bit per right row: its key matched a left row's in some
    /// pass so far (the condition aside).
    keyed: Vec<u64>,
    /// The partition's ordinal of the next right batch's first row.
    row: usize,
    /// This pass is the last.
    last: bool,
}

impl Passes {
    /// For a partition of `right_rows` right rows.
    pub(crate) fn new(right_rows: u64) -> Self {
        Passes {
            matched: vec![0; (right_rows as usize).div_ceil(64)],
            keyed: Vec::new(),
            row: 0,
            last: false,
        }
    }

    /// Whether right row `g` matched in an earlier pass (or earlier in this one).
    #[inline]
    fn get(&self, g: usize) -> bool {
        bit(&self.matched, g)
    }

    #[inline]
    fn set(&mut self, g: usize) {
        set_bit(&mut self.matched, g)
    }
}

#[inline]
fn bit(bits: &[u64], g: usize) -> bool {
    bits.get(g / 64).is_some_and(|w| w & (1 << (g % 64)) != 0)
}

#[inline]
fn set_bit(bits: &mut Vec<u64>, g: usize) {
    if g / 64 >= bits.len() {
        bits.resize(g / 64 + 1, 0);
    }
    bits[g / 64] |= 1 << (g % 64);
}

/// What `--join-where` did, summed over a join's tasks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ConditionCounts {
    /// Pairs of matching keys the condition was tested on.
    pub pairs_tested: u64,
    /// Of those, the pairs it held for (the matches).
    pub pairs_passed: u64,
    /// Right rows (non-null key) whose key matched some left row's, but with no pair the
    /// condition held for: unmatched because of it.
    pub right_rows_failed: u64,
}

impl ConditionCounts {
    /// Add `other`'s counts.
    pub(crate) fn add(&mut self, other: ConditionCounts) {
        self.pairs_tested += other.pairs_tested;
        self.pairs_passed += other.pairs_passed;
        self.right_rows_failed += other.right_rows_failed;
    }
}

impl Emitter {
    /// An emitter writing task part `name` into `staging`, keeping up to `write_buffer` bytes
    /// of joined rows before encoding them ([`PartWriter::with_write_buffer`]); with
    /// `--partition-by`, a part per partition directory of its rows instead, the rows held
    /// (up to `write_buffer`, and at least 4 MiB) and split by directory in bulk
    /// ([`PartitionedWriter::with_write_buffer`]).
    pub(crate) fn new(
        shape: Arc<JoinShape>,
        staging: &Staging,
        name: &str,
        write_buffer: usize,
    ) -> Result<Self> {
        let writer = PartSink::create(
            staging,
            name,
            &shape.out_schema,
            shape.partitioning.as_ref(),
            &shape.blooms,
            &shape.format,
            shape.open_parts,
        )?
        .with_write_buffer(write_buffer);
        Ok(Emitter {
            shape,
            writer,
            right_unmatched: 0,
            condition: ConditionCounts::default(),
            left_idx: Vec::new(),
            right_idx: Vec::new(),
            passes: None,
            heads: Vec::new(),
        })
    }

    /// Join in passes over the right rows (`right_rows` of them; see [`Passes`]).
    pub(crate) fn with_passes(mut self, right_rows: u64) -> Self {
        self.passes = Some(Passes::new(right_rows));
        self
    }

    /// Start a pass over the right rows (the last one when `last`): the next probed batch is
    /// the partition's first.
    pub(crate) fn start_pass(&mut self, last: bool) {
        if let Some(p) = self.passes.as_mut() {
            p.row = 0;
            p.last = last;
        }
    }

    /// Probe the rows of `right` (key columns first, base hashes `hashes`) against `table`:
    /// mark the matched left rows and write the pairs (and, for right and full joins, the
    /// unmatched right rows); for right semi and anti joins, write the right rows with a
    /// match, or without one, alone. Under `--join-where` a pair of matching keys matches
    /// only when the condition holds for it ([`Emitter::probe_where`]).
    pub(crate) fn probe(
        &mut self,
        table: &JoinTable,
        right: &RecordBatch,
        hashes: &[u64],
    ) -> Result<()> {
        let key_cols = crate::key::leading_key_columns(right, self.shape.key_arity);
        let rkeys = TupleKeys::try_new(&key_cols)?;
        // Under --nulls-equal every right row is probed, a null key like any other.
        let nulls: Option<NullBuffer> =
            crate::key::tuple_nulls(&key_cols).filter(|_| !self.shape.nulls_equal);
        let n = right.num_rows();
        let mut heads = std::mem::take(&mut self.heads);
        table.heads_of(&hashes[..n.min(hashes.len())], &mut heads);
        let probed = match self.shape.condition.clone() {
            Some(condition) => {
                self.probe_where(&condition, table, right, &rkeys, nulls.as_ref(), &heads)
            }
            None => self.probe_keys(table, right, &rkeys, nulls.as_ref(), &heads),
        };
        self.heads = heads;
        probed?;
        if let Some(p) = self.passes.as_mut() {
            p.row += n;
        }
        self.flush(table, Some(right))
    }

    /// [`Emitter::probe`] on the keys alone: a right row matches every left row of its key.
    fn probe_keys(
        &mut self,
        table: &JoinTable,
        right: &RecordBatch,
        rkeys: &TupleKeys,
        nulls: Option<&NullBuffer>,
        heads: &[Head],
    ) -> Result<()> {
        let jt = self.shape.join_type;
        // Right semi and anti joins write right rows alone and no left row: the first match
        // decides, and no left row is marked.
        let alone = matches!(jt, JoinType::RightSemi | JoinType::RightAnti);
        let pairs = jt.outputs_pairs();
        for (j, head) in heads.iter().enumerate() {
            let mut found = false;
            if nulls.is_none_or(|v| v.is_valid(j)) {
                if alone {
                    found = table.has_match(head, rkeys, j);
                } else {
                    table.for_each_match(head, rkeys, j, |i| {
                        found = true;
                        table.mark(i);
                        if pairs {
                            self.left_idx.push(Some(i));
                            self.right_idx.push(j as u32);
                        }
                        true
                    });
                }
            }
            self.decide(j, found, found, nulls);
            if self.left_idx.len() >= FLUSH_ROWS {
                self.flush(table, Some(right))?;
            }
        }
        Ok(())
    }

    /// [`Emitter::probe`] under `--join-where`: the pairs of matching keys are candidates,
    /// gathered (up to [`FLUSH_ROWS`] at a time, in right-row order) and tested by the
    /// condition in bulk; a right row is matched when one of its candidates passes, and only
    /// passing pairs mark their left row. The rest is as without a condition.
    fn probe_where(
        &mut self,
        condition: &JoinCondition,
        table: &JoinTable,
        right: &RecordBatch,
        rkeys: &TupleKeys,
        nulls: Option<&NullBuffer>,
        heads: &[Head],
    ) -> Result<()> {
        let mut pending = Candidates::default();
        let mut failed = None;
        for (j, head) in heads.iter().enumerate() {
            if nulls.is_some_and(|v| v.is_null(j)) {
                continue;
            }
            table.for_each_match(head, rkeys, j, |i| {
                pending.left.push(i);
                pending.right.push(j as u32);
                if pending.left.len() < FLUSH_ROWS {
                    return true;
                }
                match self.settle(condition, table, right, nulls, &mut pending, None) {
                    Ok(()) => true,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        self.settle(
            condition,
            table,
            right,
            nulls,
            &mut pending,
            Some(heads.len()),
        )
    }

    /// Test the candidate pairs gathered so far and write or mark what the passing ones
    /// make; decide every right row before the last candidate's (all of them up to `end`,
    /// the batch's row count, at its end).
    fn settle(
        &mut self,
        condition: &JoinCondition,
        table: &JoinTable,
        right: &RecordBatch,
        nulls: Option<&NullBuffer>,
        pending: &mut Candidates,
        end: Option<usize>,
    ) -> Result<()> {
        let jt = self.shape.join_type;
        if !pending.left.is_empty() {
            let li = UInt32Array::from(std::mem::take(&mut pending.left));
            let ri = UInt32Array::from(std::mem::take(&mut pending.right));
            let pass = condition.evaluate(&table.batch, &li, right, &ri)?;
            self.condition.pairs_tested += li.len() as u64;
            self.condition.pairs_passed += pass.true_count() as u64;
            for (k, (&i, &j)) in li.values().iter().zip(ri.values()).enumerate() {
                let j = j as usize;
                while pending.next < j {
                    self.decide(pending.next, pending.had, pending.found, nulls);
                    pending.advance();
                }
                pending.had = true;
                if !pass.value(k) {
                    continue;
                }
                pending.found = true;
                if jt.outputs_left() {
                    table.mark(i);
                }
                if jt.outputs_pairs() {
                    self.left_idx.push(Some(i));
                    self.right_idx.push(j as u32);
                    if self.left_idx.len() >= FLUSH_ROWS {
                        self.flush(table, Some(right))?;
                    }
                }
            }
            // Keep the allocations for the next candidates.
            (pending.left, pending.right) = (emptied(li), emptied(ri));
        }
        if let Some(end) = end {
            while pending.next < end {
                self.decide(pending.next, pending.had, pending.found, nulls);
                pending.advance();
                if self.left_idx.len() >= FLUSH_ROWS {
                    self.flush(table, Some(right))?;
                }
            }
        }
        Ok(())
    }

    /// Right row `j` of the batch is probed: `had` says whether its key met a left row's,
    /// `found` whether it matched (a pair passed the condition; without one, the same as
    /// `had`). Write it alone where the join type keeps it (unmatched for right, full and
    /// right-anti joins; matched for right-semi), once over the passes, and count it when it
    /// is unmatched: for its key, or for the condition.
    #[inline]
    fn decide(&mut self, j: usize, had: bool, found: bool, nulls: Option<&NullBuffer>) {
        let (before, had_before, last) = match self.passes.as_mut() {
            None => (false, false, true),
            Some(p) => {
                let g = p.row + j;
                let (before, had_before) = (p.get(g), bit(&p.keyed, g));
                if found && !before {
                    p.set(g);
                }
                // Only a row whose pairs all failed needs the second bitmap (never set
                // without a condition, where a pair is a match).
                if had && !found && !had_before {
                    set_bit(&mut p.keyed, g);
                }
                (before, had_before, p.last)
            }
        };
        let unmatched = last && !found && !before;
        if unmatched && nulls.is_none_or(|v| v.is_valid(j)) {
            if had || had_before {
                self.condition.right_rows_failed += 1;
            } else {
                self.right_unmatched += 1;
            }
        }
        let jt = self.shape.join_type;
        let write = match jt {
            JoinType::RightSemi => found && !before,
            _ => jt.keeps_right() && unmatched,
        };
        if write {
            self.left_idx.push(None);
            self.right_idx.push(j as u32);
        }
    }

    /// Write the left rows of `rows` that the join type keeps once every right row has been
    /// probed (matched ones for semi, unmatched ones for left, full and anti joins).
    pub(crate) fn emit_left(&mut self, table: &JoinTable, rows: Range<usize>) -> Result<()> {
        let Some(flag) = self.shape.join_type.left_rows_at_end() else {
            return Ok(());
        };
        for i in rows {
            if table.is_matched(i) == flag {
                self.left_idx.push(Some(i as u32));
                if self.left_idx.len() >= FLUSH_ROWS {
                    self.flush(table, None)?;
                }
            }
        }
        self.flush(table, None)
    }

    /// Write the pending rows: pairs of `right` rows, or left rows alone (`right: None`).
    fn flush(&mut self, table: &JoinTable, right: Option<&RecordBatch>) -> Result<()> {
        if self.left_idx.is_empty() {
            return Ok(());
        }
        let li = UInt32Array::from(std::mem::take(&mut self.left_idx));
        let ri = UInt32Array::from(std::mem::take(&mut self.right_idx));
        let n = li.len();
        // Right rows that run on one by one (every row matched once, in order: an inner join
        // on a unique left key after the exact prefilter) are a slice of the batch: no copy.
        let run_from = right
            .and_then(|_| ri.values().first().copied())
            .filter(|&s| {
                ri.values()
                    .iter()
                    .enumerate()
                    .all(|(k, &r)| r as usize == s as usize + k)
            });
        let cols: Vec<ArrayRef> = self
            .shape
            .out_columns
            .iter()
            .zip(self.shape.out_schema.fields())
            .map(|(c, f)| {
                let right_column = |rb: &RecordBatch, index: usize| match run_from {
                    Some(s) => Ok(rb.column(index).slice(s as usize, n)),
                    None => take(rb.column(index).as_ref(), &ri, None),
                };
                if let Some(computed) = &c.computed {
                    return computed.evaluate(&table.batch, &li, right.map(|rb| (rb, &ri)));
                }
                let column = (|| match (c.side, right) {
                    (Side::Left, _) => {
                        let l = take(table.batch.column(c.index).as_ref(), &li, None)?;
                        match (c.coalesce, right) {
                            (Some(i), Some(rb)) => {
                                coalesce(&l, &right_column(rb, i)?, f.data_type())
                            }
                            (Some(_), None) => arrow::compute::cast(&l, f.data_type()),
                            (None, _) => Ok(l),
                        }
                    }
                    (Side::Right, Some(rb)) => right_column(rb, c.index),
                    // Right columns of left-only rows are all null.
                    (Side::Right, None) => Ok(arrow::array::new_null_array(f.data_type(), n)),
                })();
                column.map_err(|e| Error::arrow("assembling output rows", e))
            })
            .collect::<Result<_>>()?;
        let out = RecordBatch::try_new(self.shape.out_schema.clone(), cols)
            .map_err(|e| Error::arrow("output batch", e))?;
        self.writer.write(&out)
    }

    /// Close the part (or parts); the parts written.
    pub(crate) fn finish(self) -> Result<Vec<WrittenPart>> {
        self.writer.finish()
    }
}

/// SQL's `COALESCE(left, right)` in type `to`: the left value where it is not null, else the
/// right one (a coalesced key pair: a row without a left side takes the right key).
fn coalesce(
    left: &ArrayRef,
    right: &ArrayRef,
    to: &arrow::datatypes::DataType,
) -> std::result::Result<ArrayRef, arrow::error::ArrowError> {
    let left = arrow::compute::cast(left, to)?;
    if left.logical_null_count() == 0 {
        return Ok(left);
    }
    let right = arrow::compute::cast(right, to)?;
    let has_left = arrow::compute::is_not_null(&left)?;
    arrow::compute::kernels::zip::zip(&has_left, &left, &right)
}

/// A batch whose columns hold only the bytes their rows use: string and binary views keep
/// only their rows' bytes, dictionaries only the values their rows' keys use. Filtered or
/// shuffled arrays still point into what they were decoded into (whole dictionary pages,
/// whole batches, a row group's whole dictionary); a build side kept for the whole job would
/// keep all of it alive, and a spill would write it (and count it) once per partition and
/// batch.
pub fn compact(batch: RecordBatch) -> RecordBatch {
    use arrow::array::AsArray;
    use arrow::datatypes::DataType;
    if !batch.columns().iter().any(|c| {
        matches!(
            c.data_type(),
            DataType::Utf8View | DataType::BinaryView | DataType::Dictionary(..)
        )
    }) {
        return batch;
    }
    let columns = batch
        .columns()
        .iter()
        .map(|c| -> ArrayRef {
            match c.data_type() {
                DataType::Utf8View => Arc::new(c.as_string_view().gc()),
                DataType::BinaryView => Arc::new(c.as_binary_view().gc()),
                DataType::Dictionary(..) => c
                    .as_any_dictionary_opt()
                    .and_then(|d| arrow_select::dictionary::garbage_collect_any_dictionary(d).ok())
                    .unwrap_or_else(|| Arc::clone(c)),
                _ => Arc::clone(c),
            }
        })
        .collect();
    // Same schema, same row count: only the buffers change.
    RecordBatch::try_new(batch.schema(), columns).unwrap_or(batch)
}

/// The most joined rows (in bytes) a part keeps before encoding them: 32 MiB. Measured at
/// TPC-H scale 5 (docs/BENCHMARKS.md): 8 MiB gained little, 64 MiB no more than 32.
const WRITE_BUFFER_BYTES: u64 = 32 << 20;

/// The write buffer of each of a join's parts (`workers` of them at once) under a memory
/// budget of `memory_limit`: [`WRITE_BUFFER_BYTES`], or an eighth of the budget spread over
/// the parts when that is less (a small `--memory-limit` keeps small buffers, down to none).
pub(crate) fn write_buffer_bytes(memory_limit: u64, workers: usize) -> usize {
    let share = memory_limit / 8 / (workers.max(1) as u64);
    WRITE_BUFFER_BYTES.min(share) as usize
}

/// Bytes a build side holds per row beyond its batches: the key hash carried from the map
/// stage (8), the chain link (4), the table's entry (a 24-byte bucket and its control byte,
/// at the map's load of one half to seven eighths) and the matched bit, rounded up.
pub(crate) const TABLE_BYTES_PER_ROW: u64 = 64;

/// The build side's memory budget (`--memory-limit`): the bytes of the left rows held in
/// memory at once, shared by every worker.
pub(crate) struct Budget {
    used: AtomicU64,
    limit: u64,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: u64) -> Self {
        Budget {
            used: AtomicU64::new(0),
            limit,
        }
    }

    /// The limit in bytes.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes held now.
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Count `size` more bytes; false (and nothing counted) when that would go over.
    pub(crate) fn try_take(&self, size: u64) -> bool {
        let mut cur = self.used.load(Ordering::Relaxed);
        loop {
            if cur.saturating_add(size) > self.limit {
                return false;
            }
            match self.used.compare_exchange_weak(
                cur,
                cur + size,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Give back `size` bytes.
    pub(crate) fn release(&self, size: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(size))
            });
    }

    /// The error for a build side that does not fit: `what` says what needed the memory.
    pub(crate) fn exceeded(&self, what: &str) -> Error {
        Error::param(
            "--memory-limit",
            format!(
                "{what} needs more than {} of memory: raise --memory-limit, narrow the left side with --left-where or --select, or swap the sides",
                crate::report::human_bytes(self.limit)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use arrow::array::{Array, AsArray, Int64Array, StringViewArray};
    use arrow::compute::filter_record_batch;
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    proptest::proptest! {
        /// The table finds, for every right key, exactly the left rows `eq_at` calls equal,
        /// in input order: unique and repeated left keys, null left keys, base hashes that
        /// collide (few buckets) or not, and right keys of other integer families (wide
        /// `UInt64`, decimals) where the entries' inline keys stand in for `eq_at`.
        #[test]
        fn matches_are_the_equal_left_rows_in_input_order(
            left in proptest::collection::vec(proptest::option::weighted(0.9, -2i64..6), 0..40),
            right in proptest::collection::vec(-3i64..8, 1..20),
            buckets in proptest::prop_oneof![proptest::strategy::Just(0u64), 1u64..4],
            decimal in proptest::bool::ANY,
        ) {
            let lk: ArrayRef = Arc::new(Int64Array::from(left.clone()));
            let lhashes: Vec<u64> = left.iter().map(|k| k.map_or(0, |k| collide(k, buckets))).collect();
            let rhashes: Vec<u64> = right.iter().map(|&k| collide(k, buckets)).collect();
            check_matches(vec![lk], vec![right_as(&right, decimal)], lhashes, rhashes)?;
        }

        /// The same for two-column integer keys: packed into the entries when every left
        /// pair fits 32 bits a component (`big` makes one left value not fit, some right
        /// ones too).
        #[test]
        fn pair_matches_are_the_equal_left_rows_in_input_order(
            left in proptest::collection::vec(proptest::option::weighted(0.9, (-2i64..4, -1i64..3)), 0..40),
            right in proptest::collection::vec((-3i64..5, -2i64..4), 1..20),
            buckets in proptest::prop_oneof![proptest::strategy::Just(0u64), 1u64..4],
            decimal in proptest::bool::ANY,
            big in proptest::bool::ANY,
        ) {
            // Values of 3 stand for one past i32::MAX (left and right) and -2 for i32::MIN.
            let wide = |v: i64| match v {
                3 if big => i64::from(i32::MAX) + 1,
                -2 => i64::from(i32::MIN),
                v => v,
            };
            let la: Vec<Option<i64>> = left.iter().map(|p| p.map(|(a, _)| wide(a))).collect();
            let lb: Vec<Option<i64>> = left.iter().map(|p| p.map(|(_, b)| wide(b))).collect();
            let (ra, rb): (Vec<i64>, Vec<i64>) = right.iter().map(|&(a, b)| (wide(a), wide(b))).unzip();
            let pair_hash = |a: i64, b: i64| collide(a.wrapping_mul(31).wrapping_add(b), buckets);
            let lhashes: Vec<u64> = left.iter().map(|p| p.map_or(0, |(a, b)| pair_hash(wide(a), wide(b)))).collect();
            let rhashes: Vec<u64> = ra.iter().zip(&rb).map(|(&a, &b)| pair_hash(a, b)).collect();
            check_matches(
                vec![Arc::new(Int64Array::from(la)), Arc::new(Int64Array::from(lb))],
                vec![right_as(&ra, decimal), Arc::new(Int64Array::from(rb))],
                lhashes,
                rhashes,
            )?;
        }
    }

    proptest::proptest! {
        /// Under `--nulls-equal` the table finds, for every right key, exactly the left rows
        /// not distinct from it (per component: both null, or both equal by value), in input
        /// order: one- and two-column keys with nulls on both sides, integer columns of other
        /// widths on the right (Int32 against Int64), the map stage's own hashes
        /// (`hash_tuple_into`, then `hash_null_rows`), and tables with and without a null key
        /// (inlined or not).
        #[test]
        fn nulls_equal_matches_are_the_not_distinct_left_rows(
            left in proptest::collection::vec(
                (proptest::option::weighted(0.7, -2i32..3), proptest::option::weighted(0.7, -1i32..2)), 0..30),
            right in proptest::collection::vec(
                (proptest::option::weighted(0.7, -3i32..4), proptest::option::weighted(0.7, -2i32..3)), 1..20),
            pair in proptest::bool::ANY,
            seed in proptest::num::u64::ANY,
        ) {
            let arity = if pair { 2 } else { 1 };
            let lcols: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(left.iter().map(|p| p.0.map(i64::from)).collect::<Vec<_>>())),
                Arc::new(Int64Array::from(left.iter().map(|p| p.1.map(i64::from)).collect::<Vec<_>>())),
            ];
            let rcols: Vec<ArrayRef> = vec![
                Arc::new(arrow::array::Int32Array::from(right.iter().map(|p| p.0).collect::<Vec<_>>())),
                Arc::new(arrow::array::Int32Array::from(right.iter().map(|p| p.1).collect::<Vec<_>>())),
            ];
            let hashes = |cols: &[ArrayRef]| {
                let refs: Vec<&dyn Array> = cols[..arity].iter().map(|a| a.as_ref()).collect();
                let mut h = Vec::new();
                crate::key::hash_tuple_into(&refs, seed, &mut h).unwrap();
                crate::key::hash_null_rows(&refs, seed, &mut h).unwrap();
                h
            };
            let (lhashes, rhashes) = (hashes(&lcols), hashes(&rcols));
            let key = |p: &(Option<i32>, Option<i32>)| if pair { *p } else { (p.0, None) };
            check_table(
                lcols[..arity].to_vec(),
                &rcols[..arity],
                lhashes,
                rhashes,
                true,
                |i, j| key(&left[i]) == key(&right[j]),
            )?;
        }
    }

    /// A hash of `k`: equal keys get equal hashes; `buckets` > 0 makes distinct keys collide.
    fn collide(k: i64, buckets: u64) -> u64 {
        if buckets == 0 {
            k as u64 ^ 0x9E37_79B9
        } else {
            k as u64 % buckets
        }
    }

    /// Right keys as Int64, as UInt64 (negative ones wide) or as Decimal128(20, 2).
    fn right_as(keys: &[i64], decimal: bool) -> ArrayRef {
        use arrow::array::{Decimal128Array, UInt64Array};
        match (decimal, keys.iter().any(|&k| k < 0)) {
            (true, _) => Arc::new(
                Decimal128Array::from_iter_values(keys.iter().map(|&k| k as i128 * 100))
                    .with_precision_and_scale(20, 2)
                    .unwrap(),
            ),
            (false, true) => Arc::new(UInt64Array::from_iter_values(
                keys.iter().map(|&k| k as u64),
            )),
            (false, false) => Arc::new(Int64Array::from(keys.to_vec())),
        }
    }

    /// The table of the left key columns `left` (base hashes `lhashes`) visits, for each
    /// right row, exactly the left rows `eq_at` finds equal (non-null), in input order, and
    /// `has_match` agrees.
    fn check_matches(
        left: Vec<ArrayRef>,
        right: Vec<ArrayRef>,
        lhashes: Vec<u64>,
        rhashes: Vec<u64>,
    ) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
        use crate::key::TupleKeys;
        let lcols: Vec<&dyn Array> = left.iter().map(|a| a.as_ref()).collect();
        let lkeys = TupleKeys::try_new(&lcols).unwrap();
        let lnulls = crate::key::tuple_nulls(&lcols);
        let rcols: Vec<&dyn Array> = right.iter().map(|a| a.as_ref()).collect();
        let rkeys = TupleKeys::try_new(&rcols).unwrap();
        check_table(left.clone(), &right, lhashes, rhashes, false, |i, j| {
            !lnulls.as_ref().is_some_and(|n| n.is_null(i)) && lkeys.eq_at(i, &rkeys, j)
        })
    }

    /// The table (`nulls_equal` or not) of the left key columns `left` (base hashes
    /// `lhashes`) visits, for each right row `j`, exactly the left rows `i` of `want(i, j)`,
    /// in input order, and `has_match` agrees.
    fn check_table(
        left: Vec<ArrayRef>,
        right: &[ArrayRef],
        lhashes: Vec<u64>,
        rhashes: Vec<u64>,
        nulls_equal: bool,
        want: impl Fn(usize, usize) -> bool,
    ) -> std::result::Result<(), proptest::test_runner::TestCaseError> {
        use crate::key::TupleKeys;
        let (arity, n) = (left.len(), left[0].len());
        let schema = Arc::new(Schema::new(
            (0..arity)
                .map(|c| Field::new(format!("k{c}"), DataType::Int64, true))
                .collect::<Vec<_>>(),
        ));
        let batch = RecordBatch::try_new(schema.clone(), left).unwrap();
        let table =
            JoinTable::build(&schema, arity, nulls_equal, vec![batch], vec![lhashes]).unwrap();
        let rcols: Vec<&dyn Array> = right.iter().map(|a| a.as_ref()).collect();
        let rkeys = TupleKeys::try_new(&rcols).unwrap();
        let mut heads = Vec::new();
        table.heads_of(&rhashes, &mut heads);
        for (j, head) in heads.iter().enumerate() {
            let mut got = Vec::new();
            table.for_each_match(head, &rkeys, j, |i| {
                got.push(i as usize);
                true
            });
            let want: Vec<usize> = (0..n).filter(|&i| want(i, j)).collect();
            proptest::prop_assert_eq!(
                &got,
                &want,
                "right row {} ({:?}, {:?})",
                j,
                table.inline,
                right[0].data_type()
            );
            proptest::prop_assert_eq!(table.has_match(head, &rkeys, j), !want.is_empty());
        }
        Ok(())
    }

    #[test]
    fn left_rows_bound_the_output_columns_they_fill() {
        // Output: left key, left value, right key, right value.
        let field = |n: &str| Field::new(n, DataType::Int64, true);
        let shape = |join_type| JoinShape {
            join_type,
            out_schema: Arc::new(Schema::new(vec![
                field("lk"),
                field("lv"),
                field("rk"),
                field("rv"),
            ])),
            out_columns: vec![
                OutColumn {
                    side: Side::Left,
                    index: 0,
                    coalesce: None,
                    computed: None,
                },
                OutColumn {
                    side: Side::Left,
                    index: 1,
                    coalesce: None,
                    computed: None,
                },
                OutColumn {
                    side: Side::Right,
                    index: 0,
                    coalesce: None,
                    computed: None,
                },
                OutColumn {
                    side: Side::Right,
                    index: 1,
                    coalesce: None,
                    computed: None,
                },
            ],
            left_schema: Arc::new(Schema::new(vec![field("lk"), field("lv")])),
            key_arity: 1,
            nulls_equal: false,
            condition: None,
            blooms: crate::bloom::sbbf::WriteBlooms::none(),
            format: crate::commit::FileFormat::new(parquet::basic::Compression::UNCOMPRESSED),
            partitioning: None,
            open_parts: 1,
        };
        let bounded = |jt| {
            let s = shape(jt).bounded_by_left(42);
            s.blooms
                .max_distinct
                .iter()
                .map(|(c, n)| {
                    assert_eq!(*n, 42);
                    c.clone()
                })
                .collect::<Vec<_>>()
        };
        // Every right row out matched a left key: its key is one of the left side's.
        for jt in [
            JoinType::Inner,
            JoinType::Left,
            JoinType::LeftSemi,
            JoinType::RightSemi,
        ] {
            assert_eq!(bounded(jt), ["lk", "lv", "rk"], "{jt:?}");
        }
        // Unmatched right rows keep their own keys.
        for jt in [JoinType::Right, JoinType::RightAnti, JoinType::Full] {
            assert_eq!(bounded(jt), ["lk", "lv"], "{jt:?}");
        }
    }

    #[test]
    fn compact_views_keeps_values_and_drops_unused_bytes() {
        let long: Vec<String> = (0..10_000).map(|i| format!("{i:040}")).collect();
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8View, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(0..10_000)),
                Arc::new(StringViewArray::from_iter_values(&long)),
            ],
        )
        .unwrap();
        let keep = arrow::array::BooleanArray::from_iter((0..10_000).map(|i| Some(i % 100 == 0)));
        let few = filter_record_batch(&batch, &keep).unwrap();
        let compact = compact(few.clone());
        assert_eq!(compact, few);
        let bytes = |b: &RecordBatch| -> usize {
            let a = b.column(1).as_string_view();
            a.data_buffers().iter().map(|d| d.len()).sum()
        };
        assert!(
            bytes(&few) >= 400_000,
            "the filtered array still points at every string"
        );
        assert_eq!(bytes(&compact), 100 * 40);
        assert!(compact.get_array_memory_size() * 10 < few.get_array_memory_size());
        assert_eq!(compact.column(1).len(), 100);
    }
}
