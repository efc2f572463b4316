//! Row groups a condition rules out from their statistics alone, before they are read: as
//! DuckDB's zone maps and Spark's Parquet filter pushdown do.
//!
//! A row group is skipped when the condition cannot be TRUE on any of its rows, judged from
//! each column chunk's min, max and null count. The judgement is the condition's own
//! evaluation ([`super::eval`]), run on the min and max values in the column's type, so it is
//! exact in the same way (`i8 < 300`, `u64 > -1`, `d = TIMESTAMP '...'`):
//!
//! - `c op literal` (either way round): `=` may hold where `min <= lit <= max`, `<` where
//!   `min < lit`, `>` where `max > lit` (and `<=`, `>=` alike), `<>` unless `min = max = lit`;
//! - `c [NOT] BETWEEN lo AND hi` of literals, `c [NOT] IN (literals)` (up to [`MAX_IN`] of
//!   them), `c IS [NOT] DISTINCT FROM literal`, a boolean column `b` (`b = TRUE`);
//! - `c IS NULL` where the null count is not 0, `c IS NOT NULL` where it is below the rows;
//! - `AND`, `OR` and `NOT` of those (`NOT` pushed down to the leaves: `NOT a < 5` is
//!   `a >= 5`, values being totally ordered); anything else may hold.
//!
//! A comparison is never TRUE on a NULL, so a row group whose values are all NULL is skipped
//! by any comparison. Statistics are bounds (a writer may truncate a long string's min and
//! max outward), and a bound is all this needs. Floats: NaN sorts above every value here, and
//! writers leave it out of min and max, so where a chunk may hold a NaN (its NaN count, which
//! newer writers record, is not known to be 0) a condition a NaN passes (`f > 5`, `f <> 5`)
//! rules nothing out, while one it fails (`f < 5`) still does; a NaN min or max bounds
//! nothing. Missing statistics, statistics of the old deprecated fields (signed byte order)
//! and columns the file does not hold decide nothing.

use std::collections::HashMap;

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float32Array, Float64Array, RecordBatch, UInt32Array,
    UInt64Array,
};
use arrow::buffer::BooleanBuffer;
use arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Schema};
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::file::metadata::page_index::PageIndexProvider;
use parquet::file::metadata::ParquetMetaData;

use super::eval::{self, InSets, Val};
use super::lit::Lit;
use super::parse::{CmpOp, Node, Tree};
use super::Predicate;

/// `IN` lists longer than this decide nothing (each value is one comparison per row group).
pub(crate) const MAX_IN: usize = 64;

/// The most comparisons of bounds one judgement runs (a condition of thousands of terms is
/// judged by its first ones); past it, the rest decides nothing.
const MAX_TESTS: usize = 256;

/// How deep in `AND`s and `OR`s the judgement goes; deeper, nothing is decided.
const MAX_DEPTH: usize = 64;

impl Predicate {
    /// Which of the row groups `rgs` of a Parquet file (`meta`, read as `schema`) may hold a
    /// row where the condition is TRUE, from their statistics (see the module's doc);
    /// `absent`: columns the condition reads that the file does not hold (filled in with
    /// partition values or NULLs), which decide nothing.
    pub(crate) fn row_groups_may_pass(
        &self,
        meta: &ParquetMetaData,
        schema: &Schema,
        rgs: &[usize],
        absent: &[&str],
    ) -> Vec<bool> {
        let mut judge = Judge {
            tree: &self.tree,
            meta,
            schema,
            units: rgs.len(),
            source: Source::RowGroups(rgs),
            absent,
            stats: HashMap::new(),
            tests: 0,
        };
        let may = judge.may(self.tree.root(), 0, false);
        match may {
            Some(b) => b.iter().collect(),
            None => vec![true; rgs.len()],
        }
    }

    /// The leaf columns of `meta` whose page statistics [`Self::page_selection`] may judge:
    /// the condition's columns the file holds (not `absent`) in a judged type.
    pub(crate) fn judged_leaves(
        &self,
        meta: &ParquetMetaData,
        schema: &Schema,
        absent: &[&str],
    ) -> Vec<usize> {
        let parquet_schema = meta.file_metadata().schema_descr();
        let mut leaves: Vec<usize> = self
            .columns()
            .iter()
            .filter(|c| !absent.contains(&c.as_str()))
            .filter(|c| {
                schema
                    .field_with_name(c)
                    .is_ok_and(|f| judged(f.data_type()))
            })
            .filter_map(|c| {
                StatisticsConverter::try_new(c, schema, parquet_schema)
                    .ok()?
                    .parquet_column_index()
            })
            .collect();
        leaves.sort_unstable();
        leaves.dedup();
        leaves
    }

    /// The rows of row group `rg` where the condition may be TRUE, from the page index's
    /// statistics (`index`: its column index and offset index): each page of a column is
    /// judged as a row group is, on the runs of rows that lie in one page of every column
    /// judged. `None`: every row may pass (or nothing is decided); otherwise the selection
    /// of the row group's rows, which may select none.
    pub(crate) fn page_selection(
        &self,
        meta: &ParquetMetaData,
        index: &dyn PageIndexProvider,
        schema: &Schema,
        rg: usize,
        absent: &[&str],
    ) -> Option<RowSelection> {
        let rows = u64::try_from(meta.row_group(rg).num_rows()).ok()?;
        // The runs: every judged column's page boundaries.
        let mut starts = vec![0u64];
        for leaf in self.judged_leaves(meta, schema, absent) {
            if let Some(firsts) = page_firsts(index, rg, leaf, rows) {
                starts.extend(firsts);
            }
        }
        starts.sort_unstable();
        starts.dedup();
        if starts.len() < 2 || rows == 0 {
            return None;
        }
        let mut judge = Judge {
            tree: &self.tree,
            meta,
            schema,
            units: starts.len(),
            source: Source::Pages {
                rg,
                index,
                starts: &starts,
                rows,
            },
            absent,
            stats: HashMap::new(),
            tests: 0,
        };
        let may = judge.may(self.tree.root(), 0, false)?;
        if may.count_set_bits() == may.len() {
            return None;
        }
        let mut selectors: Vec<RowSelector> = Vec::new();
        for (i, keep) in may.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(rows);
            let n = usize::try_from(end - starts[i]).ok()?;
            match selectors.last_mut() {
                Some(last) if last.skip != keep => last.row_count += n,
                _ => selectors.push(if keep {
                    RowSelector::select(n)
                } else {
                    RowSelector::skip(n)
                }),
            }
        }
        Some(RowSelection::from(selectors))
    }

    /// The row groups of `rgs` that [`Self::row_groups_may_pass`] keeps, and those it skips;
    /// `absent`: the columns filled in for the file (partition values or NULLs).
    pub(crate) fn partition_row_groups(
        &self,
        meta: &ParquetMetaData,
        schema: &Schema,
        rgs: Vec<usize>,
        absent: &[crate::plan::side::Filled],
    ) -> (Vec<usize>, Vec<usize>) {
        let may = self.row_groups_may_pass(meta, schema, &rgs, &absent_names(absent));
        let (kept, skipped): (Vec<_>, Vec<_>) = rgs.into_iter().zip(may).partition(|(_, may)| *may);
        (
            kept.into_iter().map(|(rg, _)| rg).collect(),
            skipped.into_iter().map(|(rg, _)| rg).collect(),
        )
    }
}

/// The names of the columns filled in for a file (partition values or NULLs), which decide
/// nothing.
pub(crate) fn absent_names(filled: &[crate::plan::side::Filled]) -> Vec<&str> {
    filled.iter().map(|(f, _)| f.name().as_str()).collect()
}

/// A column's statistics over the row groups judged.
struct ColumnStats {
    mins: ArrayRef,
    maxes: ArrayRef,
    /// Null counts (NULL where unknown).
    nulls: UInt64Array,
    /// Rows per row group.
    rows: Vec<u64>,
    /// For a float column: a NaN of its type, and the units that may hold one (whose NaN
    /// count is not known to be 0). Writers leave NaN out of min and max.
    nans: Option<(ArrayRef, BooleanBuffer)>,
}

impl ColumnStats {
    /// The row groups that hold some non-NULL value (or may).
    fn some_value(&self) -> BooleanBuffer {
        (0..self.rows.len())
            .map(|i| self.nulls.is_null(i) || self.nulls.value(i) < self.rows[i])
            .collect()
    }

    /// `may`, and where a NaN may hide from the bounds, those units too if a NaN `passes`
    /// (judged on a NaN of the column's type).
    fn with_nans(
        &self,
        may: BooleanBuffer,
        passes: impl FnOnce(&ArrayRef) -> Option<BooleanBuffer>,
    ) -> Option<BooleanBuffer> {
        match &self.nans {
            Some((nan, units)) if passes(nan)?.value(0) => Some(&may | units),
            _ => Some(may),
        }
    }
}

/// For float bounds (`t`): a NaN of that type, and the units that may hold one, from their NaN
/// counts (`None`: not known); `None` for other types.
fn nans(
    t: &DataType,
    counts: impl Iterator<Item = Option<u64>>,
) -> Option<(ArrayRef, BooleanBuffer)> {
    let nan: ArrayRef = match t {
        DataType::Float32 => Arc::new(Float32Array::from(vec![f32::NAN])),
        DataType::Float64 => Arc::new(Float64Array::from(vec![f64::NAN])),
        _ => return None,
    };
    Some((nan, counts.map(|n| n != Some(0)).collect()))
}

/// `bounds` with a NaN made NULL (not known): a writer that kept NaN in a min or a max bounds
/// nothing by it.
fn without_nans(bounds: ArrayRef) -> Option<ArrayRef> {
    let nan: BooleanArray = match bounds.data_type() {
        DataType::Float32 => bounds
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| Some(v.is_some_and(f32::is_nan)))
            .collect(),
        DataType::Float64 => bounds
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| Some(v.is_some_and(f64::is_nan)))
            .collect(),
        _ => return Some(bounds),
    };
    arrow::compute::nullif(&bounds, &nan).ok()
}

/// The first row of each page of leaf column `leaf` in row group `rg` (of `rows` rows), from
/// its offset index, when the column has a column index too and the offset index is sound
/// (the first page at row 0, each page after the one before it, all within the row group).
fn page_firsts(
    index: &dyn PageIndexProvider,
    rg: usize,
    leaf: usize,
    rows: u64,
) -> Option<Vec<u64>> {
    let pages = index.offset_index(rg, leaf)?.page_locations();
    let ci = index.column_index(rg, leaf)?;
    if ci.num_pages() != pages.len() as u64 || pages.is_empty() {
        return None;
    }
    let firsts: Vec<u64> = pages
        .iter()
        .map(|p| u64::try_from(p.first_row_index).ok())
        .collect::<Option<_>>()?;
    let sound = firsts[0] == 0
        && firsts.windows(2).all(|w| w[0] < w[1])
        && firsts.last().is_some_and(|l| *l < rows);
    sound.then_some(firsts)
}

/// What the judged units are.
enum Source<'a> {
    /// These row groups, one unit each.
    RowGroups(&'a [usize]),
    /// The runs of rows of row group `rg` (of `rows` rows) starting at `starts`, each within
    /// one page of every column judged.
    Pages {
        rg: usize,
        index: &'a dyn PageIndexProvider,
        starts: &'a [u64],
        rows: u64,
    },
}

struct Judge<'a> {
    tree: &'a Tree,
    meta: &'a ParquetMetaData,
    schema: &'a Schema,
    /// How many units are judged.
    units: usize,
    source: Source<'a>,
    absent: &'a [&'a str],
    stats: HashMap<String, Option<ColumnStats>>,
    /// Comparisons of bounds run so far.
    tests: usize,
}

impl Judge<'_> {
    /// The units where node `n` (`depth` levels down) may be TRUE, or, `negated`, where
    /// `NOT n` may be; `None`: all of them.
    fn may(&mut self, n: usize, depth: usize, negated: bool) -> Option<BooleanBuffer> {
        let tree = self.tree;
        if depth > MAX_DEPTH || self.tests >= MAX_TESTS {
            return None;
        }
        match &tree.nodes[n] {
            // `NOT (a AND b)` is `NOT a OR NOT b`, and `NOT (a OR b)` `NOT a AND NOT b`, in
            // three-valued logic too.
            Node::And(children) | Node::Or(children) => {
                if matches!(tree.nodes[n], Node::And(_)) != negated {
                    let mut acc: Option<BooleanBuffer> = None;
                    for &c in children {
                        if let Some(b) = self.may(c, depth + 1, negated) {
                            acc = Some(match acc {
                                Some(a) => &a & &b,
                                None => b,
                            });
                        }
                    }
                    acc
                } else {
                    let mut acc = BooleanBuffer::new_unset(self.units);
                    for &c in children {
                        acc = &acc | &self.may(c, depth + 1, negated)?;
                    }
                    Some(acc)
                }
            }
            Node::Not(a) => self.may(*a, depth + 1, !negated),
            // A boolean column as a condition: `b` is `b = TRUE`, `NOT b` is `b = FALSE`.
            Node::Column(c) => {
                let boolean = self
                    .schema
                    .field_with_name(c)
                    .is_ok_and(|f| f.data_type() == &DataType::Boolean);
                if !boolean {
                    return None;
                }
                self.compare(c, CmpOp::Eq, &Lit::Bool(!negated))
            }
            // `NOT a < b` is `a >= b`: values are totally ordered (NaN above all else), and a
            // comparison with NULL is NULL either way.
            Node::Cmp(op, a, b) => {
                let op = if negated { op.negate() } else { *op };
                match (&tree.nodes[*a], &tree.nodes[*b]) {
                    (Node::Column(c), Node::Lit(l)) => self.compare(c, op, l),
                    (Node::Lit(l), Node::Column(c)) => self.compare(c, op.flip(), l),
                    _ => None,
                }
            }
            Node::Between(a, lo, hi, not) => {
                let (Node::Column(c), Node::Lit(lo), Node::Lit(hi)) =
                    (&tree.nodes[*a], &tree.nodes[*lo], &tree.nodes[*hi])
                else {
                    return None;
                };
                self.between(c, lo, hi, *not != negated)
            }
            // `c IN (x, y)` is `c = x OR c = y`, `c NOT IN (x, y)` `c <> x AND c <> y`.
            Node::InList(items, not) if items.len() <= MAX_IN + 1 => {
                let Node::Column(c) = &tree.nodes[items[0]] else {
                    return None;
                };
                let not_in = *not != negated;
                let mut acc = match not_in {
                    false => BooleanBuffer::new_unset(self.units),
                    true => BooleanBuffer::new_set(self.units),
                };
                for &i in &items[1..] {
                    let Node::Lit(l) = &tree.nodes[i] else {
                        return None;
                    };
                    acc = match not_in {
                        false => &acc | &self.compare(c, CmpOp::Eq, l)?,
                        true => &acc & &self.compare(c, CmpOp::NotEq, l)?,
                    };
                }
                Some(acc)
            }
            Node::IsNull(a, not) => {
                let Node::Column(c) = &tree.nodes[*a] else {
                    return None;
                };
                self.is_null(c, *not != negated)
            }
            // `c IS NOT DISTINCT FROM x` is `c = x` (`c IS NULL` for a NULL `x`), and `c IS
            // DISTINCT FROM x` is `c <> x OR c IS NULL` (`c IS NOT NULL`); never NULL, so
            // `NOT` swaps them.
            Node::Distinct(a, b, not) => {
                let (c, l) = match (&tree.nodes[*a], &tree.nodes[*b]) {
                    (Node::Column(c), Node::Lit(l)) | (Node::Lit(l), Node::Column(c)) => (c, l),
                    _ => return None,
                };
                match (*not != negated, l) {
                    (true, Lit::Null) => self.is_null(c, false),
                    (false, Lit::Null) => self.is_null(c, true),
                    (true, l) => self.compare(c, CmpOp::Eq, l),
                    (false, l) => {
                        Some(&self.compare(c, CmpOp::NotEq, l)? | &self.is_null(c, false)?)
                    }
                }
            }
            _ => None,
        }
    }

    /// The units where `c op lit` may be TRUE.
    fn compare(&mut self, c: &str, op: CmpOp, lit: &Lit) -> Option<BooleanBuffer> {
        self.tests += 1;
        if self.tests > MAX_TESTS {
            return None;
        }
        let c = &self.field(c)?;
        let s = self.column(c.name())?;
        // A comparison with NULL is never TRUE.
        if *lit == Lit::Null {
            return Some(BooleanBuffer::new_unset(s.rows.len()));
        }
        let may = match op {
            CmpOp::Eq => {
                &test(c, &s.maxes, CmpOp::GtEq, lit)? & &test(c, &s.mins, CmpOp::LtEq, lit)?
            }
            // Unless every value is `lit`.
            CmpOp::NotEq => {
                &test(c, &s.mins, CmpOp::NotEq, lit)? | &test(c, &s.maxes, CmpOp::NotEq, lit)?
            }
            CmpOp::Lt | CmpOp::LtEq => test(c, &s.mins, op, lit)?,
            CmpOp::Gt | CmpOp::GtEq => test(c, &s.maxes, op, lit)?,
        };
        let may = s.with_nans(may, |nan| test(c, nan, op, lit))?;
        Some(&may & &s.some_value())
    }

    /// The units where `c BETWEEN lo AND hi` (`negated`: `NOT BETWEEN`) may be TRUE.
    fn between(&mut self, c: &str, lo: &Lit, hi: &Lit, negated: bool) -> Option<BooleanBuffer> {
        self.tests += 1;
        let c = &self.field(c)?;
        let s = self.column(c.name())?;
        // From values at least `low` and at most `high`.
        let sides = |low: &ArrayRef, high: &ArrayRef| -> Option<BooleanBuffer> {
            Some(match negated {
                // x < lo OR x > hi
                true => &test(c, low, CmpOp::Lt, lo)? | &test(c, high, CmpOp::Gt, hi)?,
                // lo <= x AND x <= hi
                false => &test(c, high, CmpOp::GtEq, lo)? & &test(c, low, CmpOp::LtEq, hi)?,
            })
        };
        let may = sides(&s.mins, &s.maxes)?;
        let may = s.with_nans(may, |nan| sides(nan, nan))?;
        Some(&may & &s.some_value())
    }

    /// The units where `c IS NULL` (`negated`: `IS NOT NULL`) may be TRUE.
    fn is_null(&mut self, c: &str, negated: bool) -> Option<BooleanBuffer> {
        let s = self.column(c)?;
        Some(
            (0..s.rows.len())
                .map(|i| {
                    s.nulls.is_null(i)
                        || match negated {
                            false => s.nulls.value(i) > 0,
                            true => s.nulls.value(i) < s.rows[i],
                        }
                })
                .collect(),
        )
    }

    /// Column `c`'s field in the file's schema.
    fn field(&self, c: &str) -> Option<Field> {
        self.schema.field_with_name(c).ok().cloned()
    }

    /// Column `c`'s statistics; `None` when they decide nothing.
    fn column(&mut self, c: &str) -> Option<&ColumnStats> {
        if !self.stats.contains_key(c) {
            let s = self.read(c);
            self.stats.insert(c.to_string(), s);
        }
        self.stats.get(c).and_then(Option::as_ref)
    }

    fn read(&self, c: &str) -> Option<ColumnStats> {
        if self.absent.contains(&c) {
            return None;
        }
        let field = self.schema.field_with_name(c).ok()?;
        if !judged(field.data_type()) {
            return None;
        }
        let parquet_schema = self.meta.file_metadata().schema_descr();
        let conv = StatisticsConverter::try_new(c, self.schema, parquet_schema)
            .ok()?
            .with_missing_null_counts_as_zero(false);
        let leaf = conv.parquet_column_index()?;
        let rgs = match self.source {
            Source::RowGroups(rgs) => rgs,
            Source::Pages {
                rg,
                index,
                starts,
                rows,
            } => return self.read_pages(&conv, leaf, rg, index, starts, rows),
        };
        let groups: Vec<_> = rgs.iter().map(|i| self.meta.row_group(*i)).collect();
        let mins = conv.row_group_mins(groups.iter().copied()).ok()?;
        let maxes = conv.row_group_maxes(groups.iter().copied()).ok()?;
        let nulls = conv.row_group_null_counts(groups.iter().copied()).ok()?;
        if mins.len() != rgs.len() || maxes.len() != rgs.len() {
            return None;
        }
        // Min and max from the deprecated fields (signed byte order) bound nothing.
        let current: BooleanBuffer = groups
            .iter()
            .map(|g| {
                g.column(leaf)
                    .statistics()
                    .is_some_and(|s| !s.is_min_max_deprecated())
            })
            .collect();
        let keep = BooleanArray::new(current, None);
        let nullify = |a: ArrayRef| -> Option<ArrayRef> {
            arrow::compute::nullif(&a, &arrow::compute::not(&keep).ok()?).ok()
        };
        let nans = nans(
            mins.data_type(),
            groups
                .iter()
                .map(|g| g.column(leaf).statistics().and_then(|s| s.nan_count_opt())),
        );
        Some(ColumnStats {
            mins: without_nans(nullify(mins)?)?,
            maxes: without_nans(nullify(maxes)?)?,
            nulls,
            rows: groups.iter().map(|g| g.num_rows().max(0) as u64).collect(),
            nans,
        })
    }

    /// A column's page statistics in row group `rg`, one entry per run of rows (`starts`):
    /// the page the run lies in.
    fn read_pages(
        &self,
        conv: &StatisticsConverter<'_>,
        leaf: usize,
        rg: usize,
        index: &dyn PageIndexProvider,
        starts: &[u64],
        rows: u64,
    ) -> Option<ColumnStats> {
        let firsts = page_firsts(index, rg, leaf, rows)?;
        let mins = conv.data_page_mins(index, [rg].iter()).ok()?;
        let maxes = conv.data_page_maxes(index, [rg].iter()).ok()?;
        let nulls = conv.data_page_null_counts(index, [rg].iter()).ok()?;
        if mins.len() != firsts.len() || maxes.len() != firsts.len() || nulls.len() != firsts.len()
        {
            return None;
        }
        // The page of each run: the last one starting at or before it.
        let page: Vec<u32> = starts
            .iter()
            .map(|s| (firsts.partition_point(|f| f <= s) - 1) as u32)
            .collect();
        let page_rows = |p: usize| firsts.get(p + 1).copied().unwrap_or(rows) - firsts[p];
        let take = UInt32Array::from(page.clone());
        let pick = |a: &dyn Array| arrow::compute::take(a, &take, None).ok();
        let nulls = pick(&nulls)?;
        let nan_counts = index.column_index(rg, leaf)?.nan_counts();
        let nans = nans(
            mins.data_type(),
            page.iter().map(|p| {
                let n = nan_counts?.get(*p as usize)?;
                u64::try_from(*n).ok()
            }),
        );
        Some(ColumnStats {
            mins: without_nans(pick(&mins)?)?,
            maxes: without_nans(pick(&maxes)?)?,
            nulls: nulls.as_any().downcast_ref::<UInt64Array>()?.clone(),
            rows: page.iter().map(|p| page_rows(*p as usize)).collect(),
            nans,
        })
    }
}

/// Whether statistics of a column of type `t` are judged.
fn judged(t: &DataType) -> bool {
    use DataType as D;
    match t {
        D::Dictionary(_, v) => judged(v),
        D::Int8 | D::Int16 | D::Int32 | D::Int64 => true,
        D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => true,
        D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => true,
        D::Float32 | D::Float64 | D::Boolean => true,
        D::Date32 | D::Date64 | D::Timestamp(..) | D::Time32(_) | D::Time64(_) => true,
        D::Utf8 | D::LargeUtf8 | D::Utf8View => true,
        D::Binary | D::LargeBinary | D::BinaryView | D::FixedSizeBinary(_) => true,
        _ => false,
    }
}

/// The row groups where `bound op lit` is TRUE or unknown (`bound`: the mins or the maxes of
/// column `c`), by the condition's own comparison; `None` when it cannot be evaluated.
///
/// `c` is the column's field in the file's schema: its metadata says how its values read (a
/// UUID's 16 bytes compare with text read as a UUID, [`crate::read::logical`]).
fn test(c: &Field, bound: &ArrayRef, op: CmpOp, lit: &Lit) -> Option<BooleanBuffer> {
    let tree = Tree {
        nodes: vec![
            Node::Column(c.name().clone()),
            Node::Lit(lit.clone()),
            Node::Cmp(op, 0, 1),
        ],
    };
    let batch = RecordBatch::try_new(
        std::sync::Arc::new(Schema::new(vec![Field::new(
            c.name(),
            bound.data_type().clone(),
            true,
        )
        .with_metadata(c.metadata().clone())])),
        vec![bound.clone()],
    )
    .ok()?;
    let v = eval::evaluate(&tree, &InSets::default(), &batch).ok()?;
    let b = match v {
        Val::Bool(b) => b,
        other => eval::as_bool(&tree, other, 2, batch.num_rows()).ok()?,
    };
    // TRUE, or NULL (a bound not known).
    Some(match b.nulls() {
        Some(n) => b.values() | &!n.inner(),
        None => b.values().clone(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Date32Array, Int64Array, StringArray, UInt64Array as U64};
    use arrow::datatypes::TimeUnit;
    use parquet::arrow::ArrowWriter;
    use parquet::file::metadata::ParquetMetaDataReader;
    use parquet::file::properties::WriterProperties;

    use super::*;

    /// A Parquet file of `groups` row groups (each a list of rows of `(i, u, s, d)`), read
    /// back as its metadata and schema.
    #[allow(clippy::type_complexity)]
    fn file(
        groups: &[&[(Option<i64>, Option<u64>, Option<&str>, Option<i32>)]],
    ) -> (ParquetMetaData, Arc<Schema>) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("u", DataType::UInt64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Date32, true),
        ]));
        let groups = groups.iter().map(|g| {
            vec![
                Arc::new(Int64Array::from(g.iter().map(|r| r.0).collect::<Vec<_>>())) as ArrayRef,
                Arc::new(U64::from(g.iter().map(|r| r.1).collect::<Vec<_>>())),
                Arc::new(StringArray::from(g.iter().map(|r| r.2).collect::<Vec<_>>())),
                Arc::new(Date32Array::from(g.iter().map(|r| r.3).collect::<Vec<_>>())),
            ]
        });
        (written(&schema, groups), schema)
    }

    /// The metadata of a Parquet file of `schema` with a row group of each of `groups`'
    /// columns.
    fn written(
        schema: &Arc<Schema>,
        groups: impl IntoIterator<Item = Vec<ArrayRef>>,
    ) -> ParquetMetaData {
        let mut buf = Vec::new();
        let props = WriterProperties::builder().build();
        let mut w = ArrowWriter::try_new(&mut buf, schema.clone(), Some(props)).unwrap();
        for columns in groups {
            let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
            w.write(&batch).unwrap();
            w.flush().unwrap();
        }
        w.close().unwrap();
        ParquetMetaDataReader::new()
            .parse_and_finish(&bytes::Bytes::from(buf))
            .unwrap()
    }

    fn groups() -> (ParquetMetaData, Arc<Schema>) {
        file(&[
            &[
                (Some(1), Some(0), Some("apple"), Some(0)),
                (Some(5), Some(1), Some("banana"), Some(10)),
            ],
            &[
                (Some(10), Some(1 << 63), Some("cherry"), None),
                (None, Some(u64::MAX), Some("date"), None),
            ],
            &[(None, None, None, None), (None, None, None, None)],
            &[
                (Some(7), Some(7), Some("é"), Some(5)),
                (Some(7), Some(7), Some("é"), Some(5)),
            ],
        ])
    }

    fn may(text: &str) -> Vec<bool> {
        let (meta, schema) = groups();
        let p = Predicate::parse(text, "--where").unwrap();
        p.row_groups_may_pass(&meta, &schema, &[0, 1, 2, 3], &[])
    }

    #[test]
    fn comparisons_with_literals_skip_the_row_groups_they_cannot_hold_in() {
        let (t, f) = (true, false);
        for (text, want) in [
            ("i = 5", [t, f, f, f]),
            ("5 = i", [t, f, f, f]),
            ("i = 6", [f, f, f, f]),
            ("i = 3", [t, f, f, f]),
            ("i > 7", [f, t, f, f]),
            ("i >= 7", [f, t, f, t]),
            ("7 <= i", [f, t, f, t]),
            ("i < 1", [f, f, f, f]),
            ("i <= 1", [t, f, f, f]),
            ("i <> 7", [t, t, f, f]),
            ("i > 4.5", [t, t, f, t]),
            ("i < 300000000000000000000", [t, t, f, t]),
            ("u > -1", [t, t, f, t]),
            ("u > 9223372036854775808", [f, t, f, f]),
            ("s = 'banana'", [t, f, f, f]),
            ("s > 'd'", [f, t, f, t]),
            ("s >= 'é'", [f, f, f, t]),
            ("d = DATE '1970-01-11'", [t, f, f, f]),
            ("d < '1970-01-01'", [f, f, f, f]),
            ("i BETWEEN 6 AND 9", [f, f, f, t]),
            ("i BETWEEN 6 AND 10", [f, t, f, t]),
            ("i NOT BETWEEN 1 AND 10", [f, f, f, f]),
            ("i NOT BETWEEN 2 AND 10", [t, f, f, f]),
            ("i IN (2, 10)", [t, t, f, f]),
            ("i IN (6, 8)", [f, f, f, f]),
            ("i IN (NULL, 100)", [f, f, f, f]),
            ("i IS NULL", [f, t, t, f]),
            ("i IS NOT NULL", [t, t, f, t]),
            ("d IS NULL", [f, t, t, f]),
            ("i = 5 OR s = 'date'", [t, t, f, f]),
            ("i = 5 AND s = 'date'", [f, f, f, f]),
            ("i > 0 AND lower(s) = 'x'", [t, t, f, t]),
            // NOT, pushed down to the leaves.
            ("NOT i = 5", [t, t, f, t]),
            ("NOT i <> 7", [f, f, f, t]),
            ("NOT i < 7", [f, t, f, t]),
            ("NOT (i = 5 OR s = 'date')", [t, t, f, t]),
            ("NOT (i > 6 AND s > 'c')", [t, f, f, f]),
            ("NOT (i < 7 OR s > 'c')", [f, f, f, f]),
            ("NOT i BETWEEN 1 AND 10", [f, f, f, f]),
            ("NOT NOT i BETWEEN 6 AND 9", [f, f, f, t]),
            ("NOT i IN (1, 5, 10)", [t, f, f, t]),
            ("i NOT IN (7, 8)", [t, t, f, f]),
            ("i NOT IN (1, NULL)", [f, f, f, f]),
            ("NOT i IS NULL", [t, t, f, t]),
            ("i IS NOT DISTINCT FROM 7", [f, f, f, t]),
            ("i IS NOT DISTINCT FROM NULL", [f, t, t, f]),
            ("NOT i IS DISTINCT FROM NULL", [f, t, t, f]),
            ("7 IS DISTINCT FROM i", [t, t, t, f]),
            ("i IS DISTINCT FROM NULL", [t, t, f, t]),
            ("NOT lower(s) = 'x'", [t, t, t, t]),
            // Undecided: all may hold.
            ("lower(s) = 'x'", [t, t, t, t]),
            ("i = 5 OR lower(s) = 'x'", [t, t, t, t]),
            ("i < u", [t, t, t, t]),
        ] {
            assert_eq!(may(text), want, "{text}");
        }
    }

    /// A condition over `i`, `u`, `s`, `d`, `f` and `b` drawn from `picks`: comparisons,
    /// `[NOT] BETWEEN`, `[NOT] IN`, `IS [NOT] NULL`, `IS [NOT] DISTINCT FROM` with literals
    /// near the values, and the boolean column, under `AND`, `OR` and `NOT`.
    fn condition(picks: &[u8]) -> String {
        let mut at = 0;
        let mut next = || {
            at += 1;
            picks[(at - 1) % picks.len()]
        };
        fn leaf(next: &mut dyn FnMut() -> u8) -> String {
            let col = ["i", "u", "s", "d", "f", "b"][usize::from(next() % 6)];
            let lit = |v: u8| match col {
                "s" => format!(
                    "'{}'",
                    ["", "a", "ab", "abc", "b", "ba", "é", "zz"][usize::from(v % 8)]
                ),
                "d" => format!("DATE '1970-01-{:02}'", 1 + v % 12),
                "u" if v.is_multiple_of(5) => "18446744073709551615".into(),
                "f" => [
                    "0", "-0.0", "1.5", "2", "-2", "3.0", "1e308", "-1e308", "0.0 / 0",
                ][usize::from(v % 9)]
                .into(),
                "b" => ["TRUE", "FALSE"][usize::from(v % 2)].into(),
                _ => format!("{}", i64::from(v % 12) - 2),
            };
            let op = ["=", "<>", "<", "<=", ">", ">="][usize::from(next() % 6)];
            match next() % 11 {
                0 => format!("{col} {op} {}", lit(next())),
                1 => format!("{} {op} {col}", lit(next())),
                2 => format!("{col} BETWEEN {} AND {}", lit(next()), lit(next())),
                3 => format!("{col} NOT BETWEEN {} AND {}", lit(next()), lit(next())),
                4 => format!("{col} IN ({}, {}, NULL)", lit(next()), lit(next())),
                5 => format!("{col} IS NULL"),
                6 => format!("{col} IS NOT NULL"),
                7 => match next() % 2 {
                    0 => format!("{col} NOT IN ({}, {})", lit(next()), lit(next())),
                    _ => format!("{col} NOT IN ({}, NULL)", lit(next())),
                },
                8 => {
                    let not = ["", "NOT "][usize::from(next() % 2)];
                    match next() % 3 {
                        0 => format!("{col} IS {not}DISTINCT FROM NULL"),
                        _ => format!("{col} IS {not}DISTINCT FROM {}", lit(next())),
                    }
                }
                9 => format!("NOT ({col} {op} {})", lit(next())),
                _ => ["b", "NOT b", "NOT NOT b"][usize::from(next() % 3)].into(),
            }
        }
        let mut out = leaf(&mut next);
        for _ in 0..next() % 3 {
            let glue = ["AND", "OR", "AND NOT", "OR NOT"][usize::from(next() % 4)];
            out = format!("({out}) {glue} ({})", leaf(&mut next));
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// A row group that the statistics rule out holds no row where the condition is TRUE,
        /// nor does a row that the page index rules out, whatever the values, the row groups'
        /// and pages' sizes and the strings' truncated statistics.
        #[test]
        fn a_skipped_row_group_or_page_holds_no_passing_row(
            rows in proptest::collection::vec(
                ((0u8..14, 0u8..14, 0u8..9, 0u8..13), (0u8..9, 0u8..3)), 1..60),
            group in 1usize..30,
            page in 1usize..6,
            truncate in proptest::option::of(1usize..3),
            picks in proptest::collection::vec(proptest::prelude::any::<u8>(), 12),
            forget_nans in proptest::prelude::any::<bool>(),
        ) {
            let strings = ["", "a", "ab", "abc", "b", "ba", "é", "zz"];
            let floats = [f64::NAN, -0.0, 0.0, 1.5, -2.0, f64::INFINITY, f64::NEG_INFINITY, 3.0];
            let schema = Arc::new(Schema::new(vec![
                Field::new("i", DataType::Int64, true),
                Field::new("u", DataType::UInt64, true),
                Field::new("s", DataType::Utf8, true),
                Field::new("d", DataType::Date32, true),
                Field::new("f", DataType::Float64, true),
                Field::new("b", DataType::Boolean, true),
            ]));
            let (rows, more): (Vec<_>, Vec<_>) = rows.into_iter().unzip();
            // 13 and 8 stand for NULL; u's 12 for 2^64 - 1.
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from_iter(rows.iter().map(|r| (r.0 < 13).then_some(i64::from(r.0) - 2)))),
                    Arc::new(U64::from_iter(rows.iter().map(|r| match r.1 {
                        13 => None,
                        12 => Some(u64::MAX),
                        v => Some(u64::from(v)),
                    }))),
                    Arc::new(StringArray::from_iter(rows.iter().map(|r| strings.get(usize::from(r.2)).copied()))),
                    Arc::new(Date32Array::from_iter(rows.iter().map(|r| (r.3 < 12).then_some(i32::from(r.3))))),
                    Arc::new(Float64Array::from_iter(more.iter().map(|r| floats.get(usize::from(r.0)).copied()))),
                    Arc::new(BooleanArray::from_iter(more.iter().map(|r| (r.1 < 2).then_some(r.1 == 1)))),
                ],
            )
            .unwrap();
            let mut buf = Vec::new();
            let props = WriterProperties::builder()
                .set_max_row_group_row_count(Some(group))
                .set_statistics_truncate_length(truncate)
                .set_column_index_truncate_length(truncate)
                .set_data_page_row_count_limit(page)
                .set_write_batch_size(page)
                .build();
            let mut w = ArrowWriter::try_new(&mut buf, schema.clone(), Some(props)).unwrap();
            w.write(&batch).unwrap();
            w.close().unwrap();
            let meta = ParquetMetaDataReader::new()
                .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required)
                .parse_and_finish(&bytes::Bytes::from(buf))
                .unwrap();
            // As from a writer that records no NaN counts (the page index keeps them).
            let meta = if forget_nans { without_nan_counts(meta) } else { meta };
            let index = meta.page_index().unwrap().clone();
            let text = condition(&picks);
            let p = Predicate::parse(&text, "--where").unwrap();
            let rgs: Vec<usize> = (0..meta.num_row_groups()).collect();
            let may = p.row_groups_may_pass(&meta, &schema, &rgs, &[]);
            let mut start = 0;
            for (rg, may) in rgs.iter().zip(may) {
                let n = meta.row_group(*rg).num_rows() as usize;
                let pass = p.evaluate(&batch.slice(start, n)).unwrap();
                proptest::prop_assert!(may || pass.true_count() == 0, "{text}: row group {rg} skipped, {} rows pass", pass.true_count());
                if let Some(sel) = p.page_selection(&meta, index.as_ref(), &schema, *rg, &[]) {
                    let mut at = 0;
                    for s in sel.iter() {
                        if s.skip {
                            let passing = (at..at + s.row_count).filter(|r| pass.is_valid(*r) && pass.value(*r)).count();
                            proptest::prop_assert!(passing == 0, "{text}: rows {at}..{} of row group {rg} skipped, {passing} pass", at + s.row_count);
                        }
                        at += s.row_count;
                    }
                    proptest::prop_assert_eq!(at, n);
                }
                start += n;
            }
        }
    }

    /// `meta` with the row groups' NaN counts taken out of their statistics.
    fn without_nan_counts(meta: ParquetMetaData) -> ParquetMetaData {
        use parquet::file::statistics::Statistics as S;
        let mut b = meta.into_builder();
        let groups = b
            .take_row_groups()
            .into_iter()
            .map(|g| {
                let columns = g
                    .columns()
                    .iter()
                    .map(|c| {
                        let stats = match c.statistics() {
                            Some(S::Double(v)) => S::Double(v.clone().with_nan_count(None)),
                            Some(S::Float(v)) => S::Float(v.clone().with_nan_count(None)),
                            _ => return c.clone(),
                        };
                        c.clone()
                            .into_builder()
                            .set_statistics(stats)
                            .build()
                            .unwrap()
                    })
                    .collect();
                g.into_builder()
                    .set_column_metadata(columns)
                    .build()
                    .unwrap()
            })
            .collect();
        b.set_row_groups(groups).build()
    }

    /// Five row groups of two rows of a DOUBLE `f` and a BOOLEAN `b`: (1, 2), (NaN, 3),
    /// (-0.0, NULL), (NaN, NaN), (inf, 5); `b` (T, T), (F, F), (NULL, F), (T, F), (NULL, NULL).
    fn floats() -> (ParquetMetaData, Arc<Schema>) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("f", DataType::Float64, true),
            Field::new("b", DataType::Boolean, true),
        ]));
        let n = f64::NAN;
        let f = [
            [Some(1.0), Some(2.0)],
            [Some(n), Some(3.0)],
            [Some(-0.0), None],
            [Some(n), Some(n)],
            [Some(f64::INFINITY), Some(5.0)],
        ];
        let (t, fa) = (Some(true), Some(false));
        let b = [[t, t], [fa, fa], [None, fa], [t, fa], [None, None]];
        let groups = f.iter().zip(b).map(|(f, b)| {
            vec![
                Arc::new(Float64Array::from(f.to_vec())) as ArrayRef,
                Arc::new(BooleanArray::from(b.to_vec())),
            ]
        });
        (written(&schema, groups), schema)
    }

    #[test]
    fn floats_are_judged_around_the_nans_their_bounds_leave_out() {
        let (t, f) = (true, false);
        let (meta, schema) = floats();
        let forgot = without_nan_counts(meta.clone());
        let nan_counts = |m: &ParquetMetaData| -> Vec<Option<u64>> {
            m.row_groups()
                .iter()
                .map(|g| g.column(0).statistics().unwrap().nan_count_opt())
                .collect()
        };
        // The writer records NaN counts; without them, any row group may hold a NaN.
        assert_eq!(
            nan_counts(&meta),
            [Some(0), Some(1), Some(0), Some(2), Some(0)]
        );
        assert_eq!(nan_counts(&forgot), [None; 5]);
        let may = |m: &ParquetMetaData, text: &str| {
            let p = Predicate::parse(text, "--where").unwrap();
            p.row_groups_may_pass(m, &schema, &[0, 1, 2, 3, 4], &[])
        };
        // (condition, with NaN counts, without them)
        for (text, counted, unknown) in [
            // NaN fails these: the bounds decide (the all-NaN row group's NaN bounds do not).
            ("f < 0.5", [f, f, t, t, f], [f, f, t, t, f]),
            ("f <= -0.0", [f, f, t, t, f], [f, f, t, t, f]),
            ("f = 0", [f, f, t, t, f], [f, f, t, t, f]),
            ("f BETWEEN 3.5 AND 4.5", [f, f, f, t, f], [f, f, f, t, f]),
            ("f IN (2, 4)", [t, f, f, t, f], [t, f, f, t, f]),
            ("NOT f >= 1", [f, f, t, t, f], [f, f, t, t, f]),
            // NaN passes these: only a NaN count of 0 lets the bounds decide.
            ("f > 2.5", [f, t, f, t, t], [t; 5]),
            ("f > 5", [f, t, f, t, t], [t; 5]),
            ("f >= 1e308", [f, t, f, t, t], [t; 5]),
            ("f <> 3", [t; 5], [t; 5]),
            ("f NOT BETWEEN -1 AND 6", [f, t, f, t, t], [t; 5]),
            ("NOT f < 2.5", [f, t, f, t, t], [t; 5]),
            ("f NOT IN (-0.0, 9)", [t, t, f, t, t], [t; 5]),
            ("f IS DISTINCT FROM 3", [t; 5], [t; 5]),
            ("f IS NOT DISTINCT FROM 3", [f, t, f, t, f], [f, t, f, t, f]),
            ("f IS NULL", [f, f, t, f, f], [f, f, t, f, f]),
        ] {
            assert_eq!(may(&meta, text), counted, "{text}");
            assert_eq!(may(&forgot, text), unknown, "{text} (no NaN counts)");
        }
        for (text, want) in [
            ("b", [t, f, f, t, f]),
            ("NOT b", [f, t, t, t, f]),
            ("b = FALSE", [f, t, t, t, f]),
            ("b IS NULL", [f, f, t, f, t]),
            ("b IS DISTINCT FROM TRUE", [f, t, t, t, t]),
            ("b AND f > 1.5", [t, f, f, t, f]),
            ("NOT (b OR f < 1)", [f, t, f, t, f]),
        ] {
            assert_eq!(may(&meta, text), want, "{text}");
        }
    }

    #[test]
    fn deep_and_long_conditions_are_judged_within_bounds() {
        // Nested past MAX_DEPTH: no stack overflow, and the levels past it decide nothing
        // (here the innermost `i = 100`, which within it rules every row group out).
        let nested = |levels: usize| {
            let mut deep = "i = 100".to_string();
            for k in 0..levels {
                let glue = ["OR i < -1000", "AND i > -5"][k % 2];
                deep = format!("(({deep}) {glue})");
            }
            on_big_stack(move || Predicate::parse(&deep, "--where").map(|p| may_of(&p)))
        };
        assert_eq!(nested(10).unwrap(), [false; 4]);
        assert_eq!(nested(1500).unwrap(), [true, true, false, true]);
        // Thousands of terms: the first MAX_TESTS decide, the rest do not.
        let long = (0..3000)
            .map(|k| format!("i <> {k}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let p = Predicate::parse(&format!("i > 100 AND {long}"), "--where").unwrap();
        assert_eq!(may_of(&p), [false; 4]);
        // (`i <> 7` and `i <> 10` among the first rule out the row groups of one value; `i >
        // 100`, past them, is not judged.)
        let p = Predicate::parse(&format!("{long} AND i > 100"), "--where").unwrap();
        assert_eq!(may_of(&p), [true, false, false, false]);
    }

    fn may_of(p: &Predicate) -> Vec<bool> {
        let (meta, schema) = groups();
        p.row_groups_may_pass(&meta, &schema, &[0, 1, 2, 3], &[])
    }

    /// `f` on a thread with a large stack (parsing a deep condition recurses in sqlparser).
    fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn absent_columns_and_other_types_decide_nothing() {
        let (meta, schema) = groups();
        let p = Predicate::parse("i = 100", "--where").unwrap();
        assert_eq!(
            p.row_groups_may_pass(&meta, &schema, &[0, 1, 2, 3], &["i"]),
            [true; 4]
        );
        assert_eq!(
            p.row_groups_may_pass(&meta, &schema, &[1, 3], &[]),
            [false, false]
        );
        assert!(judged(&DataType::Float64) && judged(&DataType::Boolean));
        assert!(judged(&DataType::Time64(TimeUnit::Microsecond)));
        assert!(!judged(&DataType::Float16) && !judged(&DataType::Duration(TimeUnit::Second)));
    }
}
