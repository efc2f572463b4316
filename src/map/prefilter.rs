//! The right side's prefilter, tiered cheapest first; each tier counts what it dropped.
//!
//! 1. `statistics`: a row group whose key min/max cannot meet the left keys' range is never
//!    read ([`super::prune`]).
//! 2. `bloom`: the Bloom filter, in a Parquet row filter on the key column: rows it rules out
//!    are never decoded beyond their key.
//! 3. `keys`: the left keys themselves, where they are in memory anyway (replicated
//!    strategy), in the same row filter after the Bloom filter: the 64-bit hashes of the left
//!    keys, so the Bloom filter's false positives are never decoded, probed or written. A
//!    right key passes only when some left key has its 64-bit hash (a collision, about
//!    n / 2^64, lets a row through to the join, which compares keys exactly).
//!
//! The key tiers hash every right key once (the map stage's base hash); the hashes of the
//! rows that pass are carried to the join in a [`HashCarry`], so the survivors are not hashed
//! again. A one-column integer key that comes in runs of equal values (a column sorted by the
//! key) is hashed, probed and looked up once per run.
//!
//! Between 1 and 2, `sbbf`: the right files' own Parquet Bloom filters. When the left side has
//! few distinct keys (`--sbbf-max-keys`), each remaining row group's filter on the key column
//! is fetched (ranged reads of just their bytes, all of a split's in one request batch, so
//! that filters stored together come in one GET) and probed with every left key; a row group
//! where none may be present is never read. A filter that cannot be read whole is a warning,
//! and its row group is read.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use arrow::array::{Array, BooleanArray, BooleanBufferBuilder, RecordBatch};
use arrow::buffer::BooleanBuffer;
use arrow::datatypes::DataType;
use parquet::arrow::arrow_reader::{ArrowPredicate, ArrowPredicateFn};
use parquet::arrow::ProjectionMask;
use parquet::schema::types::SchemaDescriptor;

use crate::bloom::sbbf::ProbeKeys;
use crate::bloom::BloomFilter;
use crate::error::{Error, Result};
use crate::plan::side::FileProjection;
use crate::plan::{InputFile, RangeReader};
use crate::reduce::JoinTable;

use super::prune::KeyRange;
use super::task::MapCounters;

/// The right side's prefilter tiers for one job.
pub(crate) struct RightPrefilter {
    /// Tier 1: the left keys' range per key column (integers by value; `None` for other
    /// columns), for row-group statistics: a row group is skipped when any key column's
    /// statistics cannot meet its range.
    pub key_ranges: Vec<Option<KeyRange>>,
    /// Tier 2: the Bloom filter.
    pub bloom: Option<Arc<BloomFilter>>,
    /// Tier 3: the left keys (their table).
    pub keys: Option<Arc<JoinTable>>,
    /// Tier 1b: the left's distinct keys against the right files' own Parquet Bloom filters.
    pub sbbf: Option<Arc<SbbfTier>>,
    /// Seed of the map stage's base key hash.
    hash_seed: u64,
    dropped_bloom: Arc<AtomicU64>,
    dropped_keys: Arc<AtomicU64>,
    /// Rows with a null key (in any column), which the key tiers drop before probing.
    dropped_null: Arc<AtomicU64>,
    /// `--nulls-equal` with a left key that has a null: right keys with a null may match, so
    /// every tier lets them through (but the exact keys tier, which has their null-aware
    /// hashes), and keeps the row groups and files that may hold one.
    null_keys_pass: bool,
}

/// The key tiers' verdict on a file whose rows all hold one key (its partition values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileVerdict {
    /// Every row may join: read the file, each row with this base hash of the key.
    Read(u64),
    /// No row can join: the key is null, or a tier rules it out.
    Skip,
}

/// What probing a partition key found: the tier that ruled it out, or its hash.
enum Probe {
    Null,
    Bloom,
    Keys,
    Pass(u64),
}

/// Hashes of the rows a row filter let through, in row order, waiting for the decoded
/// batches they belong to. Parquet evaluates a row group's predicates (in order, each over
/// the rows the previous ones kept) before it decodes the row group's other columns, so the
/// queue always holds the hashes of the next rows out.
#[derive(Default)]
pub(crate) struct HashCarry {
    /// After the key tiers, before `--right-where`.
    pending: VecDeque<u64>,
    /// After every predicate: the hashes of the next rows out.
    ready: VecDeque<u64>,
    /// Whether a `--right-where` predicate runs after the key tiers.
    filtered_after: bool,
}

impl HashCarry {
    /// A carry for a row filter whose key tiers are followed by `--right-where` or not.
    pub(crate) fn new(filtered_after: bool) -> Arc<Mutex<HashCarry>> {
        Arc::new(Mutex::new(HashCarry {
            filtered_after,
            ..Default::default()
        }))
    }

    fn push(&mut self, hashes: impl Iterator<Item = u64>) {
        if self.filtered_after {
            self.pending.extend(hashes)
        } else {
            self.ready.extend(hashes)
        }
    }

    /// `--right-where` kept `keep` of the next `keep.len()` pending rows.
    pub(crate) fn filter(&mut self, keep: &BooleanArray) -> Result<()> {
        if self.pending.len() < keep.len() {
            return Err(Error::Internal(
                "key hashes out of step with the row filter".into(),
            ));
        }
        for i in 0..keep.len() {
            let h = self.pending.pop_front().expect("checked above");
            if keep.is_valid(i) && keep.value(i) {
                self.ready.push_back(h);
            }
        }
        Ok(())
    }

    /// The hashes of the next `n` rows out.
    pub(crate) fn take(&mut self, n: usize) -> Result<Vec<u64>> {
        if self.ready.len() < n {
            return Err(Error::Internal(
                "key hashes out of step with the decoded rows".into(),
            ));
        }
        Ok(self.ready.drain(..n).collect())
    }

    /// True when every carried hash was taken.
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty() && self.ready.is_empty()
    }
}

impl RightPrefilter {
    /// The tiers: the left keys' range, the Bloom filter, the left keys' table; `hash_seed`
    /// is the map stage's base hash seed.
    pub(crate) fn new(
        key_ranges: Vec<Option<KeyRange>>,
        bloom: Option<Arc<BloomFilter>>,
        keys: Option<Arc<JoinTable>>,
        hash_seed: u64,
    ) -> Self {
        RightPrefilter {
            key_ranges,
            bloom,
            keys,
            sbbf: None,
            hash_seed,
            dropped_bloom: Arc::default(),
            dropped_keys: Arc::default(),
            dropped_null: Arc::default(),
            null_keys_pass: false,
        }
    }

    /// The same tiers letting right keys with a null through (see
    /// [`RightPrefilter::null_keys_pass`]) when `pass`.
    pub(crate) fn with_null_keys(mut self, pass: bool) -> Self {
        self.null_keys_pass = pass;
        self
    }

    /// Whether right keys with a null (in any column) pass the tiers: under `--nulls-equal`,
    /// when some left key has a null.
    pub(crate) fn null_keys_pass(&self) -> bool {
        self.null_keys_pass
    }

    /// The same tiers with the right files' Parquet Bloom filters probed too.
    pub(crate) fn with_sbbf(mut self, sbbf: Option<Arc<SbbfTier>>) -> Self {
        self.sbbf = sbbf;
        self
    }

    /// Rows dropped by the Bloom filter and by the left keys (rows with a null key are
    /// neither: see [`RightPrefilter::dropped_null`]).
    pub(crate) fn dropped(&self) -> (u64, u64) {
        (
            self.dropped_bloom.load(Ordering::Relaxed),
            self.dropped_keys.load(Ordering::Relaxed),
        )
    }

    /// Rows the key tiers dropped because their key is null (in any column).
    pub(crate) fn dropped_null(&self) -> u64 {
        self.dropped_null.load(Ordering::Relaxed)
    }

    /// The tiers that run, cheapest first.
    pub(crate) fn tiers(&self) -> Vec<&'static str> {
        [
            (self.has_ranges(), "statistics"),
            (self.sbbf.is_some(), "sbbf"),
            (self.bloom.is_some(), "bloom"),
            (self.keys.is_some(), "keys"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }

    /// Whether any tier runs.
    pub(crate) fn is_active(&self) -> bool {
        self.has_ranges() || self.sbbf.is_some() || self.has_key_tier()
    }

    /// Whether the statistics tier runs (some key column has a range).
    fn has_ranges(&self) -> bool {
        self.key_ranges.iter().any(Option::is_some)
    }

    /// Whether a tier runs in the row filter.
    pub(crate) fn has_key_tier(&self) -> bool {
        self.bloom.is_some() || self.keys.is_some()
    }
    /// The row groups of `split` that tiers 1 and 1b keep; skipped ones are counted.
    /// `key_names`: the key columns, in key order.
    pub(crate) fn row_groups(
        &self,
        file: &InputFile,
        fp: &FileProjection,
        key_names: &[&str],
        row_groups: Vec<usize>,
        counters: &MapCounters,
    ) -> Vec<usize> {
        let meta = file.parquet();
        let decoded = |rg: usize| -> u64 {
            let group = meta.row_group(rg);
            let schema = meta.file_metadata().schema_descr();
            (0..group.num_columns())
                .filter(|i| fp.decode.contains(&schema.get_column_root_idx(*i)))
                .map(|i| group.column(i).compressed_size().max(0) as u64)
                .sum()
        };
        let kept = self.kept_by_statistics(file, key_names, row_groups, |rg| {
            counters.rg_skipped.fetch_add(1, Ordering::Relaxed);
            counters
                .rows_skipped
                .fetch_add(file.row_group_rows(rg), Ordering::Relaxed);
            counters
                .bytes_skipped_stats
                .fetch_add(decoded(rg), Ordering::Relaxed);
        });
        let Some(tier) = &self.sbbf else {
            return kept;
        };
        tier.row_groups(file, fp, kept, self.null_keys_pass, counters, decoded)
    }

    /// The row groups of `row_groups` that the key columns' ranges keep (tier 1), each one
    /// skipped handed to `skipped`. An AND of the ranges: a row group goes when one column
    /// rules it out.
    fn kept_by_statistics(
        &self,
        file: &InputFile,
        key_names: &[&str],
        row_groups: Vec<usize>,
        mut skipped: impl FnMut(usize),
    ) -> Vec<usize> {
        let mut kept = row_groups;
        for (name, range) in key_names.iter().zip(&self.key_ranges) {
            let Some(range) = range else { continue };
            kept = super::prune::row_groups_in_range(
                file,
                name,
                kept,
                *range,
                self.null_keys_pass,
                &mut skipped,
            );
        }
        kept
    }

    /// The row groups of `row_groups` that [`Self::row_groups`] may keep, counting nothing (to
    /// fetch them ahead): those the key statistics keep, or `None` when the SBBF tier will
    /// read the file's Parquet Bloom filters first (fetching the row groups ahead would
    /// undo its skips).
    pub(crate) fn row_groups_ahead(
        &self,
        file: &InputFile,
        fp: &FileProjection,
        key_names: &[&str],
        row_groups: Vec<usize>,
    ) -> Option<Vec<usize>> {
        let kept = self.kept_by_statistics(file, key_names, row_groups, |_| {});
        match &self.sbbf {
            Some(tier) if tier.probed_leaf(file, fp, &kept).is_some() => None,
            _ => Some(kept),
        }
    }

    /// What the key tiers make of a file whose key columns are all Hive partition columns:
    /// its rows all hold one key, `values` (each one's place in the key and the file's
    /// value), so one probe decides for the whole file, as Spark's dynamic partition
    /// pruning decides for a partition. A file ruled out is never read (but for its footer,
    /// at planning); its `rows` count as dropped by the tier that ruled it out, as if each
    /// had been probed.
    pub(crate) fn partition_key_verdict(
        &self,
        values: &[(usize, arrow::array::ArrayRef)],
        rows: u64,
    ) -> Result<FileVerdict> {
        let counter = match self.partition_key_probe(values)? {
            Probe::Pass(hash) => return Ok(FileVerdict::Read(hash)),
            Probe::Null => &self.dropped_null,
            Probe::Bloom => &self.dropped_bloom,
            Probe::Keys => &self.dropped_keys,
        };
        counter.fetch_add(rows, Ordering::Relaxed);
        Ok(FileVerdict::Skip)
    }

    /// Whether [`Self::partition_key_verdict`] reads the file, counting nothing (to fetch it
    /// ahead or not); a key that cannot be probed counts as read.
    pub(crate) fn partition_key_passes(&self, values: &[(usize, arrow::array::ArrayRef)]) -> bool {
        !matches!(
            self.partition_key_probe(values),
            Ok(Probe::Null | Probe::Bloom | Probe::Keys)
        )
    }

    /// The tier that rules out the key `values` (see [`Self::partition_key_verdict`]), or its
    /// hash when none does.
    fn partition_key_probe(&self, values: &[(usize, arrow::array::ArrayRef)]) -> Result<Probe> {
        let mut sorted: Vec<&(usize, arrow::array::ArrayRef)> = values.iter().collect();
        sorted.sort_by_key(|(k, _)| *k);
        let units: Vec<&dyn Array> = sorted.iter().map(|(_, v)| v.as_ref()).collect();
        let null = units.iter().any(|u| u.is_null(0));
        if null && !self.null_keys_pass {
            return Ok(Probe::Null);
        }
        let mut hashes = Vec::with_capacity(1);
        crate::key::hash_tuple_into(&units, self.hash_seed, &mut hashes)?;
        if null {
            // A null partition value under --nulls-equal: no Bloom filter holds it; the left
            // keys' table (with its null-aware hashes) decides.
            crate::key::hash_null_rows(&units, self.hash_seed, &mut hashes)?;
        }
        if let Some(f) = self.bloom.as_ref().filter(|_| !null) {
            if !bloom_pass(f, self.hash_seed, &units, &hashes)?.value(0) {
                return Ok(Probe::Bloom);
            }
        }
        if let Some(t) = &self.keys {
            if !t.has_hash(hashes[0]) {
                return Ok(Probe::Keys);
            }
        }
        Ok(Probe::Pass(hashes[0]))
    }

    /// The row-filter predicate of the key tiers over the top-level key columns `key_tops`
    /// (key order), or `None` when no key tier runs. A key's partition columns are
    /// `values` (each one's place in the key and the file's value), repeated for every row.
    /// Rows with a null key (in any column) never pass. The base hashes of the rows that pass
    /// go to `carry`.
    pub(crate) fn key_predicate(
        &self,
        schema: &SchemaDescriptor,
        key_tops: &[usize],
        values: &[(usize, arrow::array::ArrayRef)],
        carry: Arc<Mutex<HashCarry>>,
    ) -> Option<Box<dyn ArrowPredicate>> {
        if !self.has_key_tier() {
            return None;
        }
        let bloom = self.bloom.clone();
        let keys = self.keys.clone();
        let seed = self.hash_seed;
        let nulls_pass = self.null_keys_pass;
        let (dropped_bloom, dropped_keys, dropped_null) = (
            Arc::clone(&self.dropped_bloom),
            Arc::clone(&self.dropped_keys),
            Arc::clone(&self.dropped_null),
        );
        let mut hashes = Vec::new();
        // The projection hands the key columns over in the file's column order: where each
        // key column (in key order) sits in the predicate's batch.
        let mut sorted = key_tops.to_vec();
        sorted.sort_unstable();
        let at: Vec<usize> = key_tops
            .iter()
            .map(|t| sorted.binary_search(t).expect("a key column"))
            .collect();
        let values = values.to_vec();
        Some(Box::new(ArrowPredicateFn::new(
            ProjectionMask::roots(schema, sorted.iter().copied()),
            move |batch: RecordBatch| {
                let n = batch.num_rows();
                // The key columns in key order: the decoded ones, and the partition values.
                let repeated: Vec<arrow::array::ArrayRef> = values
                    .iter()
                    .map(|(_, v)| crate::plan::hive::repeat(v, n))
                    .collect::<Result<_>>()
                    .map_err(|e| arrow::error::ArrowError::ComputeError(e.to_string()))?;
                let mut decoded = at.iter().map(|i| batch.column(*i).as_ref());
                let cols: Vec<&dyn Array> = (0..at.len() + values.len())
                    .map(|j| match values.iter().position(|(k, _)| *k == j) {
                        Some(v) => repeated[v].as_ref(),
                        None => decoded.next().expect("a decoded key column"),
                    })
                    .collect();
                let err = |e: Error| arrow::error::ArrowError::ComputeError(e.to_string());
                // A sorted key column repeats each key a few times in a row (lineitem's
                // l_orderkey, 4 lines an order): each run of equal keys is hashed, probed and
                // looked up once, then stands for all its rows.
                let runs = key_runs(&cols).map(arrow::array::UInt32Array::from);
                let head_keys = match &runs {
                    Some(h) => Some(arrow::compute::take(cols[0], h, None)?),
                    None => None,
                };
                // Where each run starts.
                let heads: Option<&[u32]> = runs.as_ref().map(|h| h.values().as_ref());
                let units: Vec<&dyn Array> = match &head_keys {
                    Some(k) => vec![k.as_ref()],
                    None => cols.clone(),
                };
                let u = units[0].len();
                // Rows of unit `k`: a run's length, or one row.
                let rows_of = |k: usize| -> usize {
                    heads.as_ref().map_or(1, |h| {
                        h.get(k + 1).map_or(n, |&e| e as usize) - h[k] as usize
                    })
                };
                let rows_in = |bits: &BooleanBuffer| -> usize {
                    match heads {
                        Some(_) => bits.set_indices().map(rows_of).sum(),
                        None => bits.count_set_bits(),
                    }
                };
                crate::key::hash_tuple_into(&units, seed, &mut hashes).map_err(err)?;
                let nulls = crate::key::tuple_nulls(&units).filter(|v| v.null_count() > 0);
                if nulls.is_some() && nulls_pass {
                    crate::key::hash_null_rows(&units, seed, &mut hashes).map_err(err)?;
                }
                let mut pass = match &bloom {
                    Some(f) => bloom_pass(f, seed, &units, &hashes).map_err(err)?,
                    None => BooleanBuffer::new_set(u),
                };
                // Rows with a null key never pass; they count as such, not as the filter's.
                // Under --nulls-equal with a left key that has a null they pass the Bloom
                // filter, which holds no such key, on to the exact keys tier. (Runs are only
                // taken over a column without nulls.)
                let mut probed = n;
                if let Some(v) = &nulls {
                    pass = &pass & v.inner();
                    probed = n - v.null_count();
                    if !nulls_pass {
                        dropped_null.fetch_add((n - probed) as u64, Ordering::Relaxed);
                    }
                }
                let after_bloom = rows_in(&pass);
                if bloom.is_some() {
                    dropped_bloom.fetch_add((probed - after_bloom) as u64, Ordering::Relaxed);
                }
                if let Some(v) = nulls.as_ref().filter(|_| nulls_pass) {
                    pass = &pass | &!v.inner();
                }
                if let Some(t) = &keys {
                    // Only the Bloom filter's survivors (a few % of the rows) are looked up:
                    // clear the bits of those whose key no left row has.
                    let mut exact = BooleanBufferBuilder::new(u);
                    exact.append_buffer(&pass);
                    let mut dropped = 0;
                    for k in pass.set_indices() {
                        if !t.has_hash(hashes[k]) {
                            exact.set_bit(k, false);
                            dropped += rows_of(k) as u64;
                        }
                    }
                    pass = exact.finish();
                    dropped_keys.fetch_add(dropped, Ordering::Relaxed);
                }
                let mut carry = carry.lock().expect("hash carry");
                if let Some(h) = &heads {
                    // Back from runs to rows: the rows of the runs that pass (a few %), each
                    // with its run's hash.
                    let mut rows = BooleanBufferBuilder::new(n);
                    rows.append_n(n, false);
                    for k in pass.set_indices() {
                        let start = h[k] as usize;
                        let len = rows_of(k);
                        (start..start + len).for_each(|i| rows.set_bit(i, true));
                        carry.push(std::iter::repeat_n(hashes[k], len));
                    }
                    pass = rows.finish();
                } else {
                    carry.push(pass.set_indices().map(|i| hashes[i]));
                }
                Ok(BooleanArray::new(pass, None))
            },
        )))
    }
}

/// Which rows of the key columns `units` (with their base `hashes`, of `seed`) the Bloom
/// filter `f` lets through.
pub(crate) fn bloom_pass(
    f: &BloomFilter,
    seed: u64,
    units: &[&dyn Array],
    hashes: &[u64],
) -> Result<BooleanBuffer> {
    // The filter hashes natively with the same seed: its hashes are ours.
    if f.params().seed == seed && f.params().layout.hashes_natively() {
        return Ok(f.probe_hashes(hashes));
    }
    Ok(match f.hash_columns(units) {
        Ok(k) => f.probe_hashes(&k.hashes),
        // A right key the filter's format cannot hold (a Spark filter's keys are longs)
        // equals no left key, all of which it holds: such rows fail the probe, the others
        // are probed one by one.
        Err(Error::Unrepresentable(_)) => probe_each(f, units),
        Err(e) => return Err(e),
    })
}

/// Probe each row of `units` on its own: a row whose key the filter's format cannot hold
/// fails.
fn probe_each(f: &BloomFilter, units: &[&dyn Array]) -> BooleanBuffer {
    BooleanBuffer::collect_bool(units[0].len(), |k| {
        let row: Vec<arrow::array::ArrayRef> = units.iter().map(|c| c.slice(k, 1)).collect();
        let row: Vec<&dyn Array> = row.iter().map(|c| c.as_ref()).collect();
        f.hash_columns(&row)
            .is_ok_and(|h| f.probe_hashes(&h.hashes).value(0))
    })
}

/// Where the runs of equal keys start in a one-column integer key without nulls, when its
/// first rows show runs of two or more rows on average (a column sorted by that key); `None`
/// otherwise, and for composite keys (each row is then hashed and probed on its own).
fn key_runs(cols: &[&dyn Array]) -> Option<Vec<u32>> {
    use arrow::array::AsArray;
    use arrow::datatypes::*;
    fn runs<T: ArrowPrimitiveType>(a: &dyn Array) -> Option<Vec<u32>>
    where
        T::Native: PartialEq,
    {
        let v = a.as_primitive::<T>().values();
        let heads_in = |v: &[T::Native]| 1 + v.windows(2).filter(|w| w[0] != w[1]).count();
        let sample = &v[..v.len().min(256)];
        if sample.len() < 2 || heads_in(sample) * 2 > sample.len() {
            return None;
        }
        // Branch-free: every row is written as the next head, which only a change of key
        // keeps (runs of 1 to 7 rows would mispredict a branch on every other row).
        let mut heads = vec![0u32; v.len()];
        let mut m = 1;
        for i in 1..v.len() {
            heads[m] = i as u32;
            m += usize::from(v[i] != v[i - 1]);
        }
        heads.truncate(m);
        (m * 2 <= v.len()).then_some(heads)
    }
    let [col] = cols else { return None };
    if col.null_count() > 0 || col.len() > u32::MAX as usize {
        return None;
    }
    match col.data_type() {
        DataType::Int8 => runs::<Int8Type>(*col),
        DataType::Int16 => runs::<Int16Type>(*col),
        DataType::Int32 => runs::<Int32Type>(*col),
        DataType::Int64 => runs::<Int64Type>(*col),
        DataType::UInt8 => runs::<UInt8Type>(*col),
        DataType::UInt16 => runs::<UInt16Type>(*col),
        DataType::UInt32 => runs::<UInt32Type>(*col),
        DataType::UInt64 => runs::<UInt64Type>(*col),
        _ => None,
    }
}

/// Tier 1b: the left side's distinct keys against the right row groups' own Parquet Bloom
/// filters on the key column.
pub(crate) struct SbbfTier {
    keys: ProbeKeys,
    /// Row groups whose filter could not be read, and the first reason.
    unreadable: AtomicU64,
    first_unreadable: Mutex<Option<String>>,
}

impl SbbfTier {
    /// The tier for the left's distinct `keys`.
    pub(crate) fn new(keys: ProbeKeys) -> Self {
        SbbfTier {
            keys,
            unreadable: AtomicU64::new(0),
            first_unreadable: Mutex::new(None),
        }
    }

    /// Row groups whose filter could not be read (they were read in full), and the first
    /// one's location and reason.
    pub(crate) fn unreadable(&self) -> (u64, Option<String>) {
        (
            self.unreadable.load(Ordering::Relaxed),
            self.first_unreadable.lock().expect("sbbf").clone(),
        )
    }

    /// The key's leaf column in `file`, when this tier will read its Parquet Bloom filters for
    /// `rgs`: one key column of the file (a partition column's values are in no SBBF), of a
    /// type whose SBBF says something about our keys, with a filter in some row group.
    fn probed_leaf(&self, file: &InputFile, fp: &FileProjection, rgs: &[usize]) -> Option<usize> {
        let meta = file.parquet();
        let schema = meta.file_metadata().schema_descr();
        let [key] = fp.keys[..] else { return None };
        let key_top = fp.decode[key];
        let mut leaves =
            (0..schema.num_columns()).filter(|i| schema.get_column_root_idx(*i) == key_top);
        let (Some(leaf), None) = (leaves.next(), leaves.next()) else {
            return None;
        };
        // A decimal stores its unscaled integer (7.00 as 700), a boolean is no integer the probe
        // keys encode, a Date64 may be stored in milliseconds rather than our days, and a
        // timestamp or a time of day holds its own unit rather than our nanoseconds: their SBBFs say nothing
        // about our keys by value.
        let value_type = |t: &DataType| match t {
            DataType::Dictionary(_, v) => v.as_ref().clone(),
            t => t.clone(),
        };
        if file.schema().fields().get(key_top).is_none_or(|f| {
            matches!(
                value_type(f.data_type()),
                DataType::Decimal32(..)
                    | DataType::Decimal64(..)
                    | DataType::Decimal128(..)
                    | DataType::Decimal256(..)
                    | DataType::Boolean
                    | DataType::Date64
                    | DataType::Timestamp(..)
                    | DataType::Time32(_)
                    | DataType::Time64(_)
            )
        }) {
            return None;
        }
        if !rgs.iter().any(|rg| {
            meta.row_group(*rg)
                .column(leaf)
                .bloom_filter_offset()
                .is_some()
        }) {
            return None;
        }
        Some(leaf)
    }

    /// The row groups of `rgs` whose key column's SBBF may hold a left key (or that have no
    /// usable SBBF, or, with `keep_nulls`, may hold a null key: no SBBF holds nulls);
    /// `decoded(rg)` is the compressed size of the columns a read decodes.
    fn row_groups(
        &self,
        file: &InputFile,
        fp: &FileProjection,
        rgs: Vec<usize>,
        keep_nulls: bool,
        counters: &MapCounters,
        decoded: impl Fn(usize) -> u64,
    ) -> Vec<usize> {
        let Some(leaf) = self.probed_leaf(file, fp, &rgs) else {
            return rgs;
        };
        let meta = file.parquet();
        let physical = meta
            .file_metadata()
            .schema_descr()
            .column(leaf)
            .physical_type();
        let io = match RangeReader::open(&file.location) {
            Ok(io) => io,
            Err(e) => {
                self.note_unreadable(format!("{}: {}", file.location, crate::error::one_line(&e)));
                return rgs;
            }
        };
        let mut keep = Vec::with_capacity(rgs.len());
        let may_hold_null = |rg: usize| {
            keep_nulls
                && meta
                    .row_group(rg)
                    .column(leaf)
                    .statistics()
                    .and_then(|s| s.null_count_opt())
                    != Some(0)
        };
        let filters = crate::bloom::sbbf::read_column_chunks(meta, &rgs, leaf, &io, file.size);
        for (rg, filter) in rgs.into_iter().zip(filters) {
            match filter {
                Ok(None) => keep.push(rg),
                Ok(Some((filter, bytes))) => {
                    counters.sbbf_bytes.fetch_add(bytes, Ordering::Relaxed);
                    counters.sbbf_probed.fetch_add(1, Ordering::Relaxed);
                    if self.keys.any_maybe(&filter, physical) == Some(false) && !may_hold_null(rg) {
                        counters.rg_skipped_sbbf.fetch_add(1, Ordering::Relaxed);
                        counters
                            .rows_skipped_sbbf
                            .fetch_add(file.row_group_rows(rg), Ordering::Relaxed);
                        counters
                            .bytes_skipped_sbbf
                            .fetch_add(decoded(rg), Ordering::Relaxed);
                    } else {
                        keep.push(rg);
                    }
                }
                Err(why) => {
                    self.note_unreadable(format!("{} row group {rg}: {why}", file.location));
                    keep.push(rg);
                }
            }
        }
        keep
    }

    fn note_unreadable(&self, what: String) {
        self.unreadable.fetch_add(1, Ordering::Relaxed);
        self.first_unreadable
            .lock()
            .expect("sbbf")
            .get_or_insert(what);
    }
}

/// What to do when a left key is not in the filter.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[value(rename_all = "kebab-case")]
pub enum FilterMismatch {
    /// Fail: exit 2 naming the filter and the key.
    Error,
    /// Set the filter aside, build one from the left side's keys (as without `--filter`),
    /// and say so.
    IgnoreFilter,
}

/// The prefilter's invariant, checked while the left side is mapped: every left key that
/// passes `--left-where` is "maybe" in the filter. A filter trained on another column,
/// another `--where`, a shard or an older snapshot of the left side breaks it; the right rows
/// of the keys it lacks would be dropped without a word.
pub(crate) struct Coverage<'a> {
    filter: &'a BloomFilter,
    /// The filter's location, for messages.
    location: String,
    /// Whether the map stage's base hashes are the filter's own hashes.
    same_hash: bool,
    mode: FilterMismatch,
    /// The first left key found missing (ignore-filter mode), as text.
    missing: std::sync::Mutex<Option<String>>,
    missed: std::sync::atomic::AtomicBool,
}

impl<'a> Coverage<'a> {
    /// A check of the left keys against `filter` (at `location`); `same_hash` when the base
    /// hashes the map stage computes are the filter's.
    pub(crate) fn new(
        filter: &'a BloomFilter,
        location: String,
        same_hash: bool,
        mode: FilterMismatch,
    ) -> Self {
        Coverage {
            filter,
            location,
            same_hash,
            mode,
            missing: std::sync::Mutex::new(None),
            missed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Check the non-null keys of a left batch's key columns (one, or a composite key's
    /// components; with their base `hashes`).
    pub(crate) fn check(&self, keys: &[&dyn Array], hashes: &[u64]) -> crate::error::Result<()> {
        if self.missed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let hits = if self.same_hash {
            self.filter.probe_hashes(hashes)
        } else {
            match self.filter.hash_columns(keys) {
                Ok(own) => self.filter.probe_hashes(&own.hashes),
                // A left key the filter's format cannot hold is not in it either: with
                // ignore-filter, the filter is set aside like for any missing key.
                Err(crate::error::Error::Unrepresentable(why))
                    if self.mode == FilterMismatch::IgnoreFilter =>
                {
                    self.set_aside(format!("({why})"));
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        };
        let nulls = crate::key::tuple_nulls(keys);
        let Some(i) = (0..hashes.len())
            .find(|&i| !hits.value(i) && nulls.as_ref().is_none_or(|n| n.is_valid(i)))
        else {
            return Ok(());
        };
        let show = |a: &dyn Array| {
            arrow::util::display::ArrayFormatter::try_new(a, &Default::default())
                .map(|f| f.value(i).to_string())
                .unwrap_or_else(|_| format!("row {i}"))
        };
        let key = match keys {
            [one] => show(*one),
            many => format!(
                "({})",
                many.iter().map(|a| show(*a)).collect::<Vec<_>>().join(", ")
            ),
        };
        match self.mode {
            FilterMismatch::Error => Err(crate::error::Error::Usage(format!(
                "the filter {} does not cover the left side: left key {key} (after --left-where) is not in it, so its right rows would be dropped; the filter was trained on other rows (another column, another --where, a shard, an older snapshot): retrain it on the left side, or pass --filter-mismatch=ignore-filter to join without it",
                self.location
            ))),
            FilterMismatch::IgnoreFilter => {
                self.set_aside(key);
                Ok(())
            }
        }
    }

    /// In ignore-filter mode: keep the first left key found missing from the filter.
    fn set_aside(&self, key: String) {
        if !self.missed.swap(true, Ordering::Relaxed) {
            *self.missing.lock().expect("coverage") = Some(key);
        }
    }

    /// In ignore-filter mode: the first left key found missing from the filter.
    pub(crate) fn missing(&self) -> Option<String> {
        self.missing.lock().expect("coverage").clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_equal_keys_only_where_they_pay() {
        use arrow::array::{Int32Array, Int64Array, StringArray, UInt64Array};
        let runs = |a: &dyn Array| key_runs(&[a]);
        // Runs of 1 to 4 rows: where each starts.
        let sorted = Int64Array::from(vec![5, 5, 5, 7, 8, 8, 9, 9, 9, 9]);
        assert_eq!(runs(&sorted), Some(vec![0, 3, 4, 6]));
        let wide = UInt64Array::from(vec![u64::MAX, u64::MAX, 0, 0]);
        assert_eq!(runs(&wide), Some(vec![0, 2]));
        // Mostly distinct keys (runs under 2 rows on average), one row, nulls, a string key,
        // a composite key: row by row.
        assert_eq!(runs(&Int32Array::from(vec![1, 2, 3, 3, 4])), None);
        assert_eq!(runs(&Int64Array::from(vec![1])), None);
        assert_eq!(runs(&Int64Array::from(vec![Some(1), Some(1), None])), None);
        assert_eq!(runs(&StringArray::from(vec!["a", "a", "a"])), None);
        assert_eq!(key_runs(&[&sorted, &sorted]), None);
        // The first 256 rows decide whether to look: distinct there, runs after, row by row.
        let late: Vec<i64> = (0..256).chain(std::iter::repeat_n(300, 1000)).collect();
        assert_eq!(runs(&Int64Array::from(late)), None);
    }

    #[test]
    fn carried_hashes_follow_the_where_filter_and_refuse_to_fall_out_of_step() {
        let carry = HashCarry::new(true);
        let mut c = carry.lock().unwrap();
        c.push([1, 2, 3, 4].into_iter());
        c.filter(&BooleanArray::from(vec![
            Some(true),
            Some(false),
            None,
            Some(true),
        ]))
        .unwrap();
        assert_eq!(c.take(1).unwrap(), [1]);
        assert!(c.take(2).is_err(), "only one hash is ready");
        assert_eq!(c.take(1).unwrap(), [4]);
        assert!(c.is_empty());
        c.push([5].into_iter());
        assert!(c.filter(&BooleanArray::from(vec![true, true])).is_err());
        let direct = HashCarry::new(false);
        let mut d = direct.lock().unwrap();
        d.push([7, 8].into_iter());
        assert_eq!(d.take(2).unwrap(), [7, 8]);
    }
}
