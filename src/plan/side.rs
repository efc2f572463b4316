//! Planning the two sides of a join: their files and splits, the columns each side must
//! carry to the join (the key first, then the output columns), and the output schema.
//!
//! In: a [`JoinJob`]. Out: a [`JoinPlan`]. Every file of a side is checked for the key column
//! (a type that can be a key, the same key family in every file), the output columns (a type
//! wide enough for every file's values) and the `--where` columns; errors name the file and
//! the column.

use std::sync::Arc;

use arrow::array::ArrayRef;
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};

use crate::commit::partition::OutputPartitioning;
use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::{ColumnRef, JoinJob, JoinType, OutColumn, Side, SideJob};
use crate::key::KeyFamily;
use crate::plan::{self, Plan, SplitOptions};
use crate::read::logical;

/// One side, planned and checked.
pub(crate) struct SideInput {
    /// Its files and splits.
    pub plan: Plan,
    /// Columns of the batches the map stage hands on (the key columns first, in key order),
    /// with types wide enough for every file's values.
    pub schema: SchemaRef,
    /// Per file: which columns to decode and where each handed-on column sits in them.
    pub files: Vec<FileProjection>,
    /// `--left-where` / `--right-where`.
    pub predicate: Option<Predicate>,
    /// Each key column's family (the same in every file), in key order (one for a one-column
    /// key).
    pub families: Vec<KeyFamily>,
    /// Columns whose files' types met only in a 256-bit decimal (more than 38 digits in all,
    /// as `Int64` and `Decimal(38,20)` make): exact, but a type some readers of the output
    /// cannot take. A warning each.
    pub wide_decimals: Vec<String>,
}

impl SideInput {
    /// The key family: the one column's, or [`KeyFamily::Tuple`] for a composite key.
    pub fn family(&self) -> KeyFamily {
        KeyFamily::of_key(&self.families)
    }

    /// Number of key columns (the first columns of the handed-on batches).
    pub fn arity(&self) -> usize {
        self.families.len()
    }

    /// The key columns of a handed-on batch.
    pub fn key_columns<'b>(
        &self,
        batch: &'b arrow::array::RecordBatch,
    ) -> Vec<&'b dyn arrow::array::Array> {
        crate::key::leading_key_columns(batch, self.arity())
    }
}

/// How to read one file of a side.
pub(crate) struct FileProjection {
    /// Top-level column indices to decode, in schema order.
    pub decode: Vec<usize>,
    /// Position of each key column in the decoded batch (key order), the partition columns of
    /// a key left out.
    pub keys: Vec<usize>,
    /// The key's partition columns: each one's place in the key and this file's value (a
    /// one-row array).
    pub key_values: Vec<(usize, ArrayRef)>,
    /// Where each handed-on column comes from.
    pub positions: Vec<Source>,
    /// Positions of the `--where` columns in the decoded batch.
    pub where_positions: Vec<usize>,
    /// The `--where` columns the file does not hold: each with its Hive partition value, or
    /// nulls of the type another file gives it (see [`Predicate::evaluate_filling`]).
    pub where_fill: Vec<Filled>,
}

/// A column a file does not hold, for [`Predicate::evaluate_filling`]: its field, and its
/// partition value (a one-row array) or `None` for nulls.
pub(crate) type Filled = (FieldRef, Option<ArrayRef>);

/// Where a handed-on column of one file comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// This position of the decoded batch.
    Decoded(usize),
    /// Nulls: an output column this file lacks (an older file of a table that gained
    /// columns).
    Null,
    /// The file's value of a Hive partition column (a one-row array).
    Partition(ArrayRef),
}

/// Both sides and the output they make.
pub(crate) struct JoinPlan {
    /// The build (filtered-on) side.
    pub left: SideInput,
    /// The probe (prefiltered) side.
    pub right: SideInput,
    /// What stays of `--join-where` a condition on pairs, its columns located in the
    /// sides' batches.
    pub condition: Option<Arc<crate::join::condition::JoinCondition>>,
    /// With `--join-where`: its conjuncts pushed into the sides' wheres.
    pub pushed: Option<crate::join::condition::Pushed>,
    /// The output schema.
    pub out_schema: SchemaRef,
    /// Where each output column comes from.
    pub out_columns: Vec<OutColumn>,
    /// Output columns that get a Parquet Bloom filter per row group.
    pub bloom_columns: Vec<String>,
    /// `--partition-by`, checked against the output schema.
    pub partitioning: Option<Arc<OutputPartitioning>>,
}

/// Plan both sides of `job`: expand and open their inputs, resolve `--select`, check every
/// file, and derive the output schema.
///
/// `key_filter`: a trained filter that rules out right files by a key of one partition column
/// alone before they are opened (see [`plan::KeyFilter`]).
pub(crate) fn plan_join(
    job: &JoinJob,
    split: &(dyn Fn(u64) -> SplitOptions + Sync),
    key_filter: Option<plan::KeyFilter>,
) -> Result<JoinPlan> {
    let right_options = plan::InputOptions {
        key_filter,
        ..job.right.input_options()
    };
    // The two sides at once: on an object store each waits on its listings and footers. (The
    // left side's error, if both fail, as when they were planned one after the other.)
    let (left_plan, right_plan) = rayon::join(
        || plan::plan_with(&job.left.inputs, &job.left.input_options(), split),
        || plan::plan_with(&job.right.inputs, &right_options, split),
    );
    let (left_plan, right_plan) = (left_plan?, right_plan?);
    let first_schema = |p: &Plan, name: &str| {
        if p.files.is_empty() {
            return Err(Error::Usage(format!("no {name} input files")));
        }
        Ok(union_by_name(p))
    };
    // Columns are found by name: a file with two columns of one name has no answer.
    for f in left_plan.files.iter().chain(&right_plan.files) {
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = f
            .schema()
            .fields()
            .iter()
            .find(|c| !seen.insert(c.name().as_str()))
        {
            return Err(Error::Column {
                file: f.location.to_string(),
                column: dup.name().clone(),
                reason: "the file has two columns of this name, and columns are read by name: rename one".into(),
            });
        }
    }
    let (ls, rs) = (
        first_schema(&left_plan, "left")?,
        first_schema(&right_plan, "right")?,
    );
    let coalesce = job
        .coalesce_keys
        .then_some((job.left.keys.as_slice(), job.right.keys.as_slice()));
    let out = resolve_select(job.select.as_deref(), job.join_type, &ls, &rs, coalesce)
        .map_err(|e| note_pruned(e, &[&left_plan, &right_plan]))?;
    // `--join-where`: its conjuncts on one side that does not keep every row go to that
    // side's where; the rest stays a condition on pairs, whose columns are handed on with
    // the output's.
    let split = job
        .join_where
        .as_ref()
        .map(|p| crate::join::condition::Split::new(p, job.join_type, &ls, &rs))
        .transpose()?;
    let residual = split.as_ref().and_then(|s| s.residual.clone());
    let needed = match &residual {
        Some(p) => crate::join::condition::resolve(p, &ls, &rs)?,
        None => Vec::new(),
    };
    // Computed `--select` columns: their expressions, and the columns they read, which are
    // handed on like the output's. A semi or anti join has one side's columns to read.
    let mut computed = Vec::with_capacity(out.len());
    for o in &out {
        computed.push(match &o.expr {
            None => None,
            Some(text) => {
                let p = Predicate::parse(text, "--select")?;
                // A bare name is a column of a side the join outputs, as in a column list.
                let jt = job.join_type;
                let none = Schema::empty();
                let (l, r) = (
                    if jt.outputs_left() { &ls } else { &none },
                    if jt.outputs_right() { &rs } else { &none },
                );
                let reads = match crate::join::condition::resolve_in(&p, l, r, "--select") {
                    Ok(reads) => reads,
                    Err(e) => {
                        // Said plainly when the other side has the column.
                        let all = crate::join::condition::resolve_in(&p, &ls, &rs, "--select");
                        let other = all.ok().and_then(|all| {
                            all.into_iter().find(|n| match n.side {
                                Side::Left => !jt.outputs_left(),
                                Side::Right => !jt.outputs_right(),
                            })
                        });
                        return Err(match other {
                            Some(n) => {
                                let (this, out) = match n.side {
                                    Side::Left => ("left", "right"),
                                    Side::Right => ("right", "left"),
                                };
                                Error::param(
                                    "--select",
                                    format!(
                                        "a {} join outputs {out} columns only: {text:?} reads {this} column {:?}",
                                        jt.name(),
                                        n.column
                                    ),
                                )
                            }
                            None => e,
                        });
                    }
                };
                Some((p, reads))
            }
        });
    }
    let with_pushed = |side: &SideJob, pushed: Option<&Vec<Predicate>>| -> SideJob {
        let mut side = side.clone();
        for p in pushed.into_iter().flatten() {
            side.predicate = Some(match &side.predicate {
                Some(w) => w.and(p),
                None => p.clone(),
            });
        }
        side
    };
    let (left_job, right_job) = (
        with_pushed(&job.left, split.as_ref().map(|s| &s.left)),
        with_pushed(&job.right, split.as_ref().map(|s| &s.right)),
    );
    // A pushed conjunct on partition columns alone rules out whole files, as the side's where
    // does while it is planned.
    let (mut left_plan, mut right_plan) = (left_plan, right_plan);
    if let Some(s) = &split {
        for p in &s.left {
            left_plan.prune_partitions(p)?;
        }
        for p in &s.right {
            right_plan.prune_partitions(p)?;
        }
    }
    let columns = |side: Side| -> Vec<String> {
        out.iter()
            .filter(|o| o.side == side && o.expr.is_none())
            .map(|o| o.column.clone())
            .chain(
                needed
                    .iter()
                    .chain(computed.iter().flatten().flat_map(|(_, reads)| reads))
                    .filter(|n| n.side == side)
                    .map(|n| n.column.clone()),
            )
            .collect()
    };
    // (A column only the files a pushed conjunct ruled out hold is not there.)
    let skipped = |p: &Plan| p.files_pruned + p.files_pruned_by_key;
    let (left_skipped, right_skipped) = (skipped(&left_plan), skipped(&right_plan));
    let left = project_side("left", left_plan, &left_job, &columns(Side::Left))
        .map_err(|e| note_skipped(e, left_skipped))?;
    let right = project_side("right", right_plan, &right_job, &columns(Side::Right))
        .map_err(|e| note_skipped(e, right_skipped))?;
    for (i, (lf, rf)) in left.families.iter().zip(&right.families).enumerate() {
        if let Some(e) = time_zone_mismatch(job, &left, &right, i) {
            return Err(e);
        }
        if let Some(e) = date_mismatch(job, &left, &right, i) {
            return Err(e);
        }
        if let Some(e) = uuid_mismatch(job, &left, &right, i) {
            return Err(e);
        }
        if let Some(e) = time_utc_mismatch(job, &left, &right, i) {
            return Err(e);
        }
        if lf != rf {
            return Err(Error::Usage(format!(
                "key family mismatch: --left-key {} holds {lf} keys, --right-key {} holds {rf} keys",
                job.left.keys[i], job.right.keys[i]
            )));
        }
    }
    let mut out_fields = Vec::with_capacity(out.len());
    let mut out_columns = Vec::with_capacity(out.len());
    for (o, c) in out.iter().zip(&computed) {
        if let Some((p, reads)) = c {
            let c = crate::join::condition::Computed::new(
                p.clone(),
                reads,
                &left.schema,
                &right.schema,
            )?;
            out_fields.push(logical::annotate(
                Field::new(&o.name, c.data_type().clone(), true),
                c.annotation(),
            ));
            out_columns.push(OutColumn {
                side: Side::Left,
                index: 0,
                coalesce: None,
                computed: Some(Arc::new(c)),
            });
            continue;
        }
        let schema = match o.side {
            Side::Left => &left.schema,
            Side::Right => &right.schema,
        };
        let index = schema.index_of(&o.column).expect("planned");
        let mut data_type = schema.field(index).data_type().clone();
        let mut annotation = logical::annotation(schema.field(index));
        // A coalesced key pair: the left key (the first columns of both sides' batches), else
        // the right one, in their common type.
        let coalesce = match o.key {
            Some(i) => {
                let rt = right.schema.field(i).data_type();
                annotation = annotation
                    .filter(|a| logical::annotation(right.schema.field(i)).as_ref() == Some(a));
                data_type = common_type(&data_type, rt).ok_or_else(|| {
                    Error::param(
                        "--coalesce-keys",
                        format!(
                            "--left-key {} is {data_type} and --right-key {} is {rt}, which have no common type to coalesce them into: cast one side's key, or join without --coalesce-keys",
                            job.left.keys[i], job.right.keys[i]
                        ),
                    )
                })?;
                Some(i)
            }
            None => None,
        };
        out_fields.push(logical::annotate(
            Field::new(&o.name, data_type, true),
            annotation,
        ));
        out_columns.push(OutColumn {
            side: o.side,
            index,
            coalesce,
            computed: None,
        });
    }
    let out_schema = Schema::new(out_fields);
    let bloom_columns = match &job.bloom_columns {
        Some(list) => {
            crate::bloom::sbbf::check_columns(
                list,
                &out_schema,
                "an output column",
                "--bloom-columns",
            )?;
            list.clone()
        }
        // The key columns as they appear in the output (under their output names).
        None => out
            .iter()
            .filter(|o| o.expr.is_none())
            .filter(|o| match o.side {
                Side::Left => job.left.keys.contains(&o.column),
                Side::Right => job.right.keys.contains(&o.column),
            })
            .map(|o| o.name.clone())
            .filter(|name| {
                out_schema
                    .field_with_name(name)
                    .is_ok_and(|f| !f.data_type().is_nested())
            })
            .collect(),
    };
    let partitioning = job
        .partition_by
        .as_deref()
        .map(|names| OutputPartitioning::new(&out_schema, names))
        .transpose()?;
    let mut bloom_columns = bloom_columns;
    if let Some(names) = &job.partition_by {
        // A partition column's values are in the directory names, not in the files.
        if job.bloom_columns.is_some() {
            if let Some(c) = bloom_columns.iter().find(|c| names.contains(c)) {
                return Err(Error::param(
                    "--bloom-columns",
                    format!(
                        "{c:?} is a --partition-by column: its values are in the directory names, not in the files"
                    ),
                ));
            }
        }
        bloom_columns.retain(|c| !names.contains(c));
    }
    let condition = residual
        .map(|p| {
            crate::join::condition::JoinCondition::new(p, &needed, &left.schema, &right.schema)
        })
        .transpose()?
        .map(Arc::new);
    let pushed = split.map(|s| crate::join::condition::Pushed {
        left: s.left.iter().map(|p| p.text().to_string()).collect(),
        right: s.right.iter().map(|p| p.text().to_string()).collect(),
    });
    Ok(JoinPlan {
        left,
        right,
        condition,
        pushed,
        out_schema: Arc::new(out_schema),
        out_columns,
        bloom_columns,
        partitioning: partitioning.map(Arc::new),
    })
}

/// The error for a date key on one side and a number (an integer, a decimal, a boolean) on
/// the other. Keys hash by value and a date's value is its day number, so they would meet
/// (`DATE '2022-01-08'` and `19000`), but SQL never compares the two: DuckDB refuses the cast
/// and so does `--where`.
fn date_mismatch(job: &JoinJob, left: &SideInput, right: &SideInput, i: usize) -> Option<Error> {
    let date = |s: &SideInput| {
        let t = s.schema.field(i).data_type();
        let t = match t {
            DataType::Dictionary(_, v) => v.as_ref(),
            t => t,
        };
        matches!(t, DataType::Date32 | DataType::Date64)
    };
    // Other families (timestamps, strings) get the family mismatch's own message.
    if date(left) == date(right) || left.families[i] != right.families[i] {
        return None;
    }
    Some(Error::Usage(format!(
        "type mismatch: --left-key {} is {} but --right-key {} is {}: a date never equals a number; cast one side",
        job.left.keys[i],
        left.schema.field(i).data_type(),
        job.right.keys[i],
        right.schema.field(i).data_type(),
    )))
}

/// Whether key column `column` of a side is a UUID in some file ([`InputFile::is_uuid`]).
///
/// [`InputFile::is_uuid`]: crate::plan::InputFile::is_uuid
pub(crate) fn uuid_key(side: &SideInput, column: &str) -> bool {
    side.plan.files.iter().any(|f| f.is_uuid(column))
}

/// The error for a UUID key on one side and a string key on the other. Both are bytes keys,
/// but a UUID's keys are its 16 bytes and a string's its text, so they would never meet:
/// DuckDB casts the text to a UUID (`'00000000-0000-0000-0000-000000003039'` meets the UUID
/// it spells, in either case), and a join that silently met nothing would be wrong rows.
/// Refused with one line until the keys can be cast. A UUID meets binary keys by its bytes,
/// as DuckDB compares it with a BLOB.
fn uuid_mismatch(job: &JoinJob, left: &SideInput, right: &SideInput, i: usize) -> Option<Error> {
    let text = |s: &SideInput| crate::key::is_text(s.schema.field(i).data_type());
    let (lk, rk) = (&job.left.keys[i], &job.right.keys[i]);
    let (uuid, other, uuid_side, other_side) = if text(right) && uuid_key(left, lk) {
        (lk, rk, "--left-key", "--right-key")
    } else if text(left) && uuid_key(right, rk) {
        (rk, lk, "--right-key", "--left-key")
    } else {
        return None;
    };
    Some(Error::Usage(format!(
        "type mismatch: {uuid_side} {uuid} is a UUID (16 bytes) but {other_side} {other} is a string: a UUID's bytes never equal its text (DuckDB casts the text to a UUID); write the key as one type on both sides"
    )))
}

/// Whether key column `i` of `side` holds times of day adjusted to UTC (Parquet's `TIME`
/// with `isAdjustedToUTC`, DuckDB's `TIMETZ`) in some file.
pub(crate) fn time_utc_key(side: &SideInput, column: &str) -> bool {
    side.plan
        .files
        .iter()
        .any(|f| f.annotation(column) == Some(logical::Annotation::TimeUtc))
}

/// The error for a time-of-day key adjusted to UTC (DuckDB's `TIMETZ`) on one side and a
/// local one (`TIME`) on the other: as for timestamps with and without a time zone, SQL
/// engines convert one to the other with a session time zone (DuckDB meets `TIMETZ
/// '10:00:00+00'` with `TIME '10:00:00'` under `TimeZone = 'UTC'` and not under
/// `'America/New_York'`); we refuse.
fn time_utc_mismatch(
    job: &JoinJob,
    left: &SideInput,
    right: &SideInput,
    i: usize,
) -> Option<Error> {
    if left.families[i] != KeyFamily::Time || right.families[i] != KeyFamily::Time {
        return None;
    }
    let (lk, rk) = (&job.left.keys[i], &job.right.keys[i]);
    let (lu, ru) = (time_utc_key(left, lk), time_utc_key(right, rk));
    if lu == ru {
        return None;
    }
    Some(Error::Usage(format!(
        "time zone mismatch: --left-key {lk} holds {} but --right-key {rk} holds {}: they meet only under a session time zone; cast one side",
        logical::times_of_day(lu),
        logical::times_of_day(ru)
    )))
}

/// The error for a timestamp key with a time zone on one side and without on the other: an
/// instant and a wall-clock time of unknown zone are different things (SQL engines convert
/// one to the other with a session time zone; we refuse). Keys of different zones meet: a
/// zoned timestamp is a UTC instant whatever its zone.
fn time_zone_mismatch(
    job: &JoinJob,
    left: &SideInput,
    right: &SideInput,
    i: usize,
) -> Option<Error> {
    use KeyFamily::{Timestamp, TimestampTz};
    if !matches!(
        (left.families[i], right.families[i]),
        (Timestamp, TimestampTz) | (TimestampTz, Timestamp)
    ) {
        return None;
    }
    // The key columns come first in the handed-on batches, in key order.
    let describe = |s: &SideInput| {
        let t = s.schema.field(i).data_type();
        if s.families[i] == TimestampTz {
            format!("{t}, with a time zone")
        } else {
            format!("{t}, without a time zone")
        }
    };
    Some(Error::Usage(format!(
        "time zone mismatch: --left-key {} is {} but --right-key {} is {}: an instant never equals a wall-clock time; cast one side (to TIMESTAMP WITH TIME ZONE, or to one without)",
        job.left.keys[i],
        describe(left),
        job.right.keys[i],
        describe(right)
    )))
}

/// `t` with no metadata on the fields nested in it (struct fields, list elements, map
/// entries), which are part of a nested type's equality but not of its values.
fn without_nested_metadata(t: &DataType) -> DataType {
    use DataType as D;
    let field = |f: &arrow::datatypes::FieldRef| {
        Arc::new(
            f.as_ref()
                .clone()
                .with_data_type(without_nested_metadata(f.data_type()))
                .with_metadata(std::collections::HashMap::<String, String>::new()),
        )
    };
    match t {
        D::Struct(fields) => D::Struct(fields.iter().map(field).collect()),
        D::List(f) => D::List(field(f)),
        D::LargeList(f) => D::LargeList(field(f)),
        D::ListView(f) => D::ListView(field(f)),
        D::LargeListView(f) => D::LargeListView(field(f)),
        D::FixedSizeList(f, n) => D::FixedSizeList(field(f), *n),
        D::Map(f, sorted) => D::Map(field(f), *sorted),
        other => other.clone(),
    }
}

/// A type that holds the values of both `a` and `b` (columns of one side in two files), so
/// that every file's batches can be cast to it without loss: the wider integer (signed when
/// one is signed: `UInt32` and `Int8` meet in `Int64`), the wider float, the large string or
/// binary, a dictionary's value type, the finer timestamp unit, the decimal with the most
/// integer digits and the largest scale (an integer counting as a decimal of scale 0, and
/// `UInt64` with a signed type meeting in `Decimal(20, 0)`), `Date64` for the two date
/// widths. `None` when there is none (a zoned and a zone-less timestamp; a date and a
/// number; more than 76 digits; different classes).
fn common_type(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType as D;
    if a == b {
        return Some(a.clone());
    }
    // The same type but for the metadata of fields nested in it (pyarrow marks a UUID in a
    // struct `arrow.uuid`, other writers do not): that type without it.
    let (plain_a, plain_b) = (without_nested_metadata(a), without_nested_metadata(b));
    if plain_a == plain_b {
        return Some(plain_a);
    }
    let value = |t: &DataType| match t {
        D::Dictionary(_, v) => v.as_ref().clone(),
        t => t.clone(),
    };
    let (a, b) = (value(a), value(b));
    if a == b {
        return Some(a);
    }
    let int = |t: &DataType| -> Option<(bool, u32)> {
        Some(match t {
            D::Int8 => (true, 8),
            D::Int16 => (true, 16),
            D::Int32 => (true, 32),
            D::Int64 => (true, 64),
            D::UInt8 => (false, 8),
            D::UInt16 => (false, 16),
            D::UInt32 => (false, 32),
            D::UInt64 => (false, 64),
            _ => return None,
        })
    };
    let int_type = |signed: bool, bits: u32| match (signed, bits) {
        (true, 8) => D::Int8,
        (true, 16) => D::Int16,
        (true, 32) => D::Int32,
        (true, _) => D::Int64,
        (false, 8) => D::UInt8,
        (false, 16) => D::UInt16,
        (false, 32) => D::UInt32,
        (false, _) => D::UInt64,
    };
    if let (Some((sa, wa)), Some((sb, wb))) = (int(&a), int(&b)) {
        if sa == sb {
            return Some(int_type(sa, wa.max(wb)));
        }
        let (unsigned, signed) = if sa { (wb, wa) } else { (wa, wb) };
        if unsigned < 64 {
            return Some(int_type(true, signed.max(2 * unsigned)));
        }
        // `UInt64` and a signed type: no integer holds both, `Decimal(20, 0)` does.
    }
    // Decimals of different precisions or scales, or a decimal and an integer (a decimal of
    // scale 0 with its digits), or `UInt64` and a signed integer: the decimal with the most
    // digits before the point and the largest scale (keys compare by value, so 1.5 and
    // 1.50 stay one key).
    let digits = |t: &DataType| -> Option<(i16, i16)> {
        Some(match t {
            D::Decimal128(p, s) | D::Decimal256(p, s) if *s >= 0 => {
                (*p as i16 - *s as i16, *s as i16)
            }
            D::Int8 | D::UInt8 => (3, 0),
            D::Int16 | D::UInt16 => (5, 0),
            D::Int32 | D::UInt32 => (10, 0),
            D::Int64 => (19, 0),
            D::UInt64 => (20, 0),
            _ => return None,
        })
    };
    if let (Some((ia, sa)), Some((ib, sb))) = (digits(&a), digits(&b)) {
        let scale = sa.max(sb);
        let precision = ia.max(ib) + scale;
        return match precision {
            ..=38 => Some(D::Decimal128(precision as u8, scale as i8)),
            39..=76 => Some(D::Decimal256(precision as u8, scale as i8)),
            _ => None,
        };
    }
    // Dates of either width: milliseconds hold every day.
    if matches!((&a, &b), (D::Date32, D::Date64) | (D::Date64, D::Date32)) {
        return Some(D::Date64);
    }
    // Timestamps of different units (both zoned, or both not): the finer unit, which holds
    // every value of the coarser one unless it overflows (then the cast fails, naming the
    // file). The values of a zoned timestamp are UTC instants whatever the zone: the first
    // file's zone is kept.
    if let (D::Timestamp(ua, za), D::Timestamp(ub, zb)) = (&a, &b) {
        if za.is_some() != zb.is_some() {
            return None;
        }
        let unit = if crate::key::unit_ns(ua) <= crate::key::unit_ns(ub) {
            *ua
        } else {
            *ub
        };
        return Some(D::Timestamp(unit, za.clone()));
    }
    // Times of day of different units: the finer unit, which holds every value of the
    // coarser one.
    if let (D::Time32(ua) | D::Time64(ua), D::Time32(ub) | D::Time64(ub)) = (&a, &b) {
        return Some(match crate::key::unit_ns(ua).min(crate::key::unit_ns(ub)) {
            1 => D::Time64(arrow::datatypes::TimeUnit::Nanosecond),
            1_000 => D::Time64(arrow::datatypes::TimeUnit::Microsecond),
            1_000_000 => D::Time32(arrow::datatypes::TimeUnit::Millisecond),
            _ => D::Time32(arrow::datatypes::TimeUnit::Second),
        });
    }
    let rank = |t: &DataType, family: [&DataType; 3]| family.iter().position(|f| *f == t);
    for family in [
        [&D::Float16, &D::Float32, &D::Float64],
        [&D::Utf8, &D::Utf8View, &D::LargeUtf8],
        [&D::Binary, &D::BinaryView, &D::LargeBinary],
    ] {
        if let (Some(ra), Some(rb)) = (rank(&a, family), rank(&b, family)) {
            return Some(family[ra.max(rb)].clone());
        }
    }
    None
}

/// The columns of a side's files, by name, in the order they first appear (file by file),
/// each with the type of the first file that has it: the columns `*` and `--select` see.
/// Files of a table that gained columns over time (schema evolution) thus give every column;
/// the files without one read it as nulls. The Hive partition columns come last.
pub(crate) fn union_by_name(plan: &Plan) -> SchemaRef {
    let mut fields: Vec<FieldRef> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in &plan.files {
        for field in f.schema().fields() {
            if seen.insert(field.name().as_str()) {
                fields.push(field.clone());
            }
        }
    }
    if let Some(p) = &plan.partitions {
        fields.extend(p.schema.fields().iter().cloned());
    }
    Arc::new(Schema::new(fields))
}

/// The fields of `predicate`'s columns, each from the first of `plan`'s files that has it
/// or from the partition columns; a column in none of them is an error naming the first file.
pub(crate) fn where_fields(plan: &Plan, predicate: &Predicate) -> Result<Vec<FieldRef>> {
    predicate
        .columns()
        .iter()
        .map(|c| {
            plan.files
                .iter()
                .find_map(|f| f.schema().field_with_name(c).ok().cloned())
                .map(Arc::new)
                .or_else(|| plan.partitions.as_ref()?.field(c).cloned())
                .ok_or_else(|| {
                    let first = plan.files.first().expect("planned files");
                    let e = predicate.missing_column(
                        c,
                        &union_by_name(plan),
                        &first.location.to_string(),
                    );
                    note_pruned(e, &[plan])
                })
        })
        .collect()
}

/// `e`, an error for a column not found, with a note when `plans` skipped files by their
/// partition values: a side's columns are those of the files it reads.
pub(crate) fn note_pruned(e: Error, plans: &[&Plan]) -> Error {
    note_skipped(
        e,
        plans
            .iter()
            .map(|p| p.files_pruned + p.files_pruned_by_key)
            .sum(),
    )
}

/// [`note_pruned`] for `skipped` files skipped.
fn note_skipped(e: Error, skipped: usize) -> Error {
    if skipped == 0 {
        return e;
    }
    let note = match skipped {
        1 => "; 1 file skipped by its partition values was not read, and a column only it holds is not there".to_string(),
        n => format!("; {n} files skipped by their partition values were not read, and a column only they hold is not there"),
    };
    match e {
        Error::InvalidParam { name, reason } if reason.starts_with("no column") => {
            Error::InvalidParam {
                name,
                reason: reason + &note,
            }
        }
        Error::Column {
            file,
            column,
            reason,
        } if reason.starts_with("no such column") => Error::Column {
            file,
            column,
            reason: reason + &note,
        },
        other => other,
    }
}

/// The `--where` columns `missing` from file `file` of `plan`, each with its partition value
/// when it is a partition column.
pub(crate) fn where_fill(plan: &Plan, file: usize, missing: Vec<FieldRef>) -> Vec<Filled> {
    missing
        .into_iter()
        .map(|f| {
            let value = partition_column(plan, file, f.name()).map(|(_, v)| v);
            (f, value)
        })
        .collect()
}

/// The error for key column `c`, which `file` (of `schema`) lacks: when another of `plan`'s
/// files has it, naming that file (output and `--where` columns may be missing from some
/// files; key columns may not), else the file's columns. `what` is the key's part, such as
/// "key of --left", or empty.
pub(crate) fn missing_key(plan: &Plan, file: &str, c: &str, schema: &Schema, what: &str) -> Error {
    match plan.files.iter().find(|f| f.schema().index_of(c).is_ok()) {
        Some(other) => Error::Column {
            file: file.to_string(),
            column: c.to_string(),
            reason: format!(
                "no such column, which {} has: {} must be in every file",
                other.location,
                if what.is_empty() {
                    "a key column".to_string()
                } else {
                    format!("the {what}")
                }
            ),
        },
        None => Error::no_such_column(file, c, schema, what),
    }
}

/// Column `c` of file `file` of `plan` when it is a partition column: its field and the file's
/// value (a one-row array).
pub(crate) fn partition_column(plan: &Plan, file: usize, c: &str) -> Option<(FieldRef, ArrayRef)> {
    let p = plan.partitions.as_ref()?;
    Some((p.field(c)?.clone(), p.value(file, c)?))
}

/// A `--where`'s columns in a file of schema `schema` (named `file`): the predicate is checked
/// against the file's columns with the `where_fields` ([`where_fields`]) it lacks appended
/// (nulls there, or a partition directory's value); returns the indices of the file's columns
/// it reads and the fields the file lacks (for [`where_fill`]). Without a predicate, none.
pub(crate) fn where_columns(
    predicate: Option<&Predicate>,
    schema: &Schema,
    file: &str,
    where_fields: &[FieldRef],
) -> Result<(Vec<usize>, Vec<FieldRef>)> {
    let Some(p) = predicate else {
        return Ok((Vec::new(), Vec::new()));
    };
    let (checked, missing) = with_missing(schema, where_fields);
    p.check(&checked, file)?;
    let read = p.columns().iter().filter_map(|c| schema.index_of(c).ok());
    Ok((read.collect(), missing))
}

/// `schema` with the `wanted` fields it lacks appended (for checking a `--where` against a
/// file without some of its columns), and those fields.
pub(crate) fn with_missing(schema: &Schema, wanted: &[FieldRef]) -> (Schema, Vec<FieldRef>) {
    let missing: Vec<_> = wanted
        .iter()
        .filter(|f| schema.field_with_name(f.name()).is_err())
        .cloned()
        .collect();
    let mut all: Vec<FieldRef> = schema.fields().iter().cloned().collect();
    all.extend(missing.iter().cloned());
    (Schema::new(all), missing)
}

/// Check every file of a planned side and work out what to decode from each.
pub(crate) fn project_side(
    name: &'static str,
    plan: Plan,
    side: &SideJob,
    columns: &[String],
) -> Result<SideInput> {
    let keys = &side.keys;
    let predicate = side.predicate.clone();
    let first = plan
        .files
        .first()
        .ok_or_else(|| Error::Usage(format!("no {name} input files")))?
        .clone();
    // Handed-on columns: the key columns, then the output columns (each once).
    let mut names: Vec<String> = keys.clone();
    for c in columns {
        if !names.contains(c) {
            names.push(c.clone());
        }
    }
    // Each handed-on column's type: the first file's that has it, widened by the others'.
    let mut fields: Vec<Option<Field>> = vec![None; names.len()];
    // Where a column's type was first seen, for errors.
    let mut seen_in: Vec<String> = vec![String::new(); names.len()];
    let where_fields = match &predicate {
        Some(p) => where_fields(&plan, p)?,
        None => Vec::new(),
    };
    let mut wide_decimals = Vec::new();
    let mut families: Vec<Option<KeyFamily>> = vec![None; keys.len()];
    let mut files = Vec::with_capacity(plan.files.len());
    for (file_index, f) in plan.files.iter().enumerate() {
        let schema = f.schema();
        let file = f.location.to_string();
        let mut decode = Vec::new();
        // Columns are read by name: an output column from the files that have it (the union
        // of the side's files' columns, as DuckDB's `union_by_name` and Spark's
        // `mergeSchema`), the key columns from every file.
        // Each key column's index in the file, or (a partition column beside a file's
        // column) its partition value.
        let mut key_idx: Vec<Option<usize>> = Vec::with_capacity(keys.len());
        let mut key_values: Vec<(usize, ArrayRef)> = Vec::new();
        for (j, (key, family)) in keys.iter().zip(families.iter_mut()).enumerate() {
            let (k, key_type) = match schema.index_of(key) {
                Ok(k) => (Some(k), schema.field(k).data_type().clone()),
                Err(_) => match partition_column(&plan, file_index, key) {
                    Some((field, value)) => {
                        key_values.push((j, value));
                        (None, field.data_type().clone())
                    }
                    None => {
                        return Err(missing_key(
                            &plan,
                            &file,
                            key,
                            schema,
                            &format!("key of --{name}"),
                        ))
                    }
                },
            };
            let fam = KeyFamily::check(&key_type, &file, key)?;
            f.check_key(key, &plan.files[0])?;
            match *family {
                None => *family = Some(fam),
                Some(f0) if f0 != fam => {
                    return Err(Error::Column {
                        file,
                        column: key.to_string(),
                        reason: format!(
                        "type {key_type} ({fam} keys) differs from the other {name} files ({f0} keys)"
                    ),
                    })
                }
                _ => {}
            }
            key_idx.push(k);
        }
        let mut col_idx = Vec::with_capacity(names.len());
        for (n, c) in names.iter().enumerate() {
            let found = match n < keys.len() {
                true => key_idx[n],
                false => schema.index_of(c).ok(),
            };
            let Some(i) = found else {
                // A partition column (a key's among them: no key column is missing here), or
                // an output column this file lacks.
                match partition_column(&plan, file_index, c) {
                    // Every file has the partition column, of one type.
                    Some((field, value)) => {
                        fields[n] = Some(field.as_ref().clone());
                        col_idx.push(Source::Partition(value));
                    }
                    None => col_idx.push(Source::Null),
                }
                continue;
            };
            decode.push(i);
            let dt = schema.field(i).data_type();
            match &fields[n] {
                None => {
                    fields[n] = Some(logical::annotate(
                        Field::new(c, dt.clone(), true),
                        f.annotation(c),
                    ));
                    seen_in[n] = file.clone();
                }
                Some(field) => {
                    // The side's type is wide enough for every file (an Int32 key in the
                    // first file and an Int64 one holding 2^40 in a later file make an Int64
                    // key).
                    let before = field.data_type().clone();
                    let common = common_type(&before, dt).ok_or_else(|| Error::Column {
                        file: file.clone(),
                        column: c.clone(),
                        reason: format!(
                            "the {name} files' schemas do not match: no type holds both {dt} and {before} (of {} or a later {name} file before this one): cast the column to one type in every file",
                            seen_in[n]
                        ),
                    })?;
                    if matches!(common, DataType::Decimal256(..))
                        && !matches!(before, DataType::Decimal256(..))
                        && !matches!(dt, DataType::Decimal256(..))
                    {
                        wide_decimals.push(format!(
                            "the {name} files' column {c} holds {before} in one file and {dt} in {file}: it is read as {common}, exact, and written so where it is output: pyarrow and Spark read that type, Polars does not, DuckDB reads it as a DOUBLE; cast the column to one type in every file to keep it narrower"
                        ));
                    }
                    // A Parquet logical type the files agree on (a UUID in every file)
                    // is the output's too.
                    let agreed =
                        logical::annotation(field).filter(|a| f.annotation(c).as_ref() == Some(a));
                    fields[n] = Some(logical::annotate(Field::new(c, common, true), agreed));
                }
            }
            // The file's column index, turned into its position in the batch below.
            col_idx.push(Source::Decoded(i));
        }
        let (where_idx, where_missing) =
            where_columns(predicate.as_ref(), schema, &file, &where_fields)?;
        decode.extend(&where_idx);
        let where_fill = where_fill(&plan, file_index, where_missing);
        decode.sort_unstable();
        decode.dedup();
        let pos = |i: usize| decode.iter().position(|d| *d == i).expect("decoded");
        files.push(FileProjection {
            positions: col_idx
                .into_iter()
                .map(|source| match source {
                    Source::Decoded(i) => Source::Decoded(pos(i)),
                    other => other,
                })
                .collect(),
            where_positions: where_idx.iter().map(|i| pos(*i)).collect(),
            where_fill,
            keys: key_idx.iter().flatten().map(|i| pos(*i)).collect(),
            key_values,
            decode: decode.clone(),
        });
    }
    // Every column came from some file's schema (the union by name), so each has a type.
    let fields: Vec<Field> = fields
        .into_iter()
        .zip(&names)
        .map(|(f, c)| {
            f.ok_or_else(|| {
                Error::no_such_column(
                    &first.location.to_string(),
                    c,
                    first.schema(),
                    &format!("output column of --{name}"),
                )
            })
        })
        .collect::<Result<_>>()?;
    let families: Vec<KeyFamily> = families
        .into_iter()
        .map(|f| f.expect("at least one file"))
        .collect();
    Ok(SideInput {
        plan,
        schema: Arc::new(Schema::new(fields)),
        files,
        predicate,
        families,
        wide_decimals,
    })
}

/// A `--select` item that is an expression rather than a column name: the expression and its
/// `AS` name, if it has one (`None`: the item reads as a column, or not at all).
pub(crate) fn computed_item(item: &str) -> Option<(String, Option<String>)> {
    let (expr, alias) = match split_alias(item) {
        Some((expr, alias)) => (expr, Some(alias)),
        None => (item.trim(), None),
    };
    let p = Predicate::parse(expr, "--select").ok()?;
    (!p.is_column()).then(|| (expr.to_string(), alias))
}

/// A `*` item of `--select`, as DuckDB writes them: `*`, then maybe `EXCLUDE (a, b)`, `REPLACE
/// (expression AS column, ...)` and `RENAME (column AS name, ...)`, in that order (each list
/// in parentheses, or one item without them), or a pattern on the names last (`LIKE 'l_%'`);
/// after `left.` or `right.` in a join.
#[derive(Debug, Clone, Default)]
pub(crate) struct Star {
    /// The columns left out.
    pub exclude: Vec<String>,
    /// (expression, column): the column's values are the expression's, in its place.
    pub replace: Vec<(String, String)>,
    /// (column, name): the column under another name, in its place.
    pub rename: Vec<(String, String)>,
    /// `[NOT] LIKE | ILIKE | SIMILAR TO 'pattern' [ESCAPE 'c']`, last: the columns whose
    /// names it matches (with no `REPLACE` or `RENAME`, as in DuckDB).
    pub pattern: Option<Predicate>,
}

impl Star {
    /// Which of `names` the star keeps by its pattern (all, without one); none kept is an
    /// error, as in DuckDB.
    pub(crate) fn keeps(&self, names: &[&str], item: &str) -> Result<Vec<bool>> {
        let Some(p) = &self.pattern else {
            return Ok(vec![true; names.len()]);
        };
        let batch = arrow::record_batch::RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("name", DataType::Utf8, false)])),
            vec![Arc::new(arrow::array::StringArray::from(names.to_vec()))],
        )
        .map_err(|e| Error::arrow("--select", e))?;
        let kept = p.evaluate(&batch)?;
        let kept: Vec<bool> = (0..names.len())
            .map(|i| arrow::array::Array::is_valid(&kept, i) && kept.value(i))
            .collect();
        if !kept.contains(&true) {
            return Err(Error::param(
                "--select",
                format!("{item:?}: no column's name matches"),
            ));
        }
        Ok(kept)
    }
}

/// A column name as `--select` lists write it: bare, or `"quoted"` with `""` for a quote.
fn unquote(name: &str) -> String {
    let n = name.trim();
    match n.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
        Some(q) if n.len() >= 2 => q.replace("\"\"", "\""),
        _ => n.to_string(),
    }
}

/// The index of the quote that closes the one at `open` in `b` (a doubled quote is one
/// character of the text); `b.len()` when none does.
fn closing_quote(b: &[u8], open: usize) -> usize {
    let q = b[open];
    let mut i = open + 1;
    while i < b.len() && !(b[i] == q && b.get(i + 1) != Some(&q)) {
        i += if b[i] == q { 2 } else { 1 };
    }
    i
}

/// `name` as a `--select` list may write any name: `"quoted"`, with `""` for a quote.
pub(crate) fn quote_name(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The end of the parenthesized list `text` opens (`text` starts with `(`): the index of its
/// `)`, skipping `'strings'`, `"names"` and nested parentheses.
fn closing_paren(text: &str) -> Option<usize> {
    let (mut depth, mut quote) = (0usize, None);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parse a `*` item (see [`Star`]), or DuckDB's `COLUMNS('regex')` (the columns whose names
/// the regular expression finds a match in) or `COLUMNS(*)`; `None`: the item is neither.
pub(crate) fn star_item(text: &str) -> Option<Result<Star>> {
    let item = text.trim();
    if item
        .get(..8)
        .is_some_and(|w| w.eq_ignore_ascii_case("columns("))
    {
        let Some(inner) = item[8..].strip_suffix(')') else {
            return Some(Err(Error::param(
                "--select",
                format!("{item:?}: write COLUMNS('regex') alone (it is no column to rename or compute with)"),
            )));
        };
        let inner = inner.trim();
        if inner == "*" {
            return Some(Ok(Star::default()));
        }
        if !(inner.len() >= 2 && inner.starts_with('\'') && inner.ends_with('\'')) {
            return Some(Err(Error::param(
                "--select",
                format!("{item:?}: COLUMNS takes a regular expression ('^l_') or *"),
            )));
        }
        let text = format!("regexp_matches(name, {inner})");
        let p = Predicate::parse(&text, "--select").map_err(|e| {
            let e = e.to_string();
            let reason = e
                .strip_prefix(&format!("--select {text:?}: "))
                .unwrap_or(&e);
            Error::param("--select", format!("{item:?}: {reason}"))
        });
        return Some(p.map(|p| Star {
            pattern: Some(p),
            ..Star::default()
        }));
    }
    let mut rest = item.strip_prefix('*')?.trim_start();
    let bad = || {
        Error::param(
            "--select",
            format!(
                "{item:?}: after a *, write EXCLUDE (columns), REPLACE (expression AS column) \
                 or RENAME (column AS name), in that order, or a pattern (LIKE 'l_%'), or \
                 nothing"
            ),
        )
    };
    let mut star = Star::default();
    for (n, word) in ["EXCLUDE", "REPLACE", "RENAME"].into_iter().enumerate() {
        let Some(after) = rest
            .get(..word.len())
            .filter(|w| w.eq_ignore_ascii_case(word))
            .map(|_| &rest[word.len()..])
            .filter(|a| a.starts_with(|c: char| c.is_whitespace() || c == '('))
        else {
            continue;
        };
        let after = after.trim_start();
        let (list, next) = if after.starts_with('(') {
            let Some(close) = closing_paren(after) else {
                return Some(Err(bad()));
            };
            (&after[1..close], &after[close + 1..])
        } else if n == 0 {
            // One name without parentheses: a "quoted name" or a word.
            let end = if after.starts_with('"') {
                (closing_quote(after.as_bytes(), 0) + 1).min(after.len())
            } else {
                after.find(char::is_whitespace).unwrap_or(after.len())
            };
            (&after[..end], &after[end..])
        } else {
            (after, "")
        };
        rest = next.trim_start();
        let items: Vec<&str> = crate::cli::join::select_items(list)
            .into_iter()
            .map(str::trim)
            .collect();
        if items.iter().any(|i| i.is_empty()) {
            return Some(Err(bad()));
        }
        for i in items {
            if n == 0 {
                star.exclude.push(unquote(i));
                continue;
            }
            let Some((expr, name)) = split_alias(i) else {
                let what = if n == 1 {
                    "expression AS column"
                } else {
                    "column AS name"
                };
                return Some(Err(Error::param(
                    "--select",
                    format!("{i:?} of {item:?}: write {what}"),
                )));
            };
            if n == 1 {
                star.replace.push((expr.to_string(), name));
            } else {
                star.rename.push((unquote(expr), name));
            }
        }
    }
    // A pattern on the names, last: `[NOT] LIKE | ILIKE | SIMILAR TO 'pattern'`.
    let word = rest
        .split(|c: char| c.is_whitespace() || c == '\'')
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    if ["NOT", "LIKE", "ILIKE", "SIMILAR"].contains(&word.as_str()) {
        if !star.replace.is_empty() || !star.rename.is_empty() {
            return Some(Err(Error::param(
                "--select",
                format!(
                    "{item:?}: REPLACE and RENAME do not combine with a pattern (as in DuckDB)"
                ),
            )));
        }
        match Predicate::parse(&format!("name {rest}"), "--select") {
            Ok(p) if p.columns() == ["name"] => star.pattern = Some(p),
            _ => return Some(Err(bad())),
        }
        rest = "";
    }
    if !rest.is_empty() {
        return Some(Err(bad()));
    }
    // Each column in one list, once (as DuckDB has them).
    let lists: [(&str, Vec<&String>); 3] = [
        ("EXCLUDE", star.exclude.iter().collect()),
        ("REPLACE", star.replace.iter().map(|r| &r.1).collect()),
        ("RENAME", star.rename.iter().map(|r| &r.0).collect()),
    ];
    for (a, (la, names)) in lists.iter().enumerate() {
        for (i, x) in names.iter().enumerate() {
            if names[..i].contains(x) {
                return Some(Err(Error::param(
                    "--select",
                    format!("{x:?} is twice in the {la} list of {item:?}"),
                )));
            }
            if let Some((lb, _)) = lists[a + 1..].iter().find(|(_, o)| o.contains(x)) {
                return Some(Err(Error::param(
                    "--select",
                    format!("{x:?} is in both the {la} and the {lb} list of {item:?}"),
                )));
            }
        }
    }
    Some(Ok(star))
}

/// `expr AS name` (AS in any case; the name bare, or `"quoted"` with `""` for a quote): the
/// expression and the name.
pub(crate) fn split_alias(item: &str) -> Option<(&str, String)> {
    let t = item.trim();
    let (start, alias) = if t.ends_with('"') {
        // The quoted name that ends the item: where it starts, skipping 'strings' and
        // "names" before it.
        let b = t.as_bytes();
        let (mut i, mut last) = (0, None);
        while i < b.len() {
            match b[i] {
                q @ (b'\'' | b'"') => {
                    let open = i;
                    i = closing_quote(b, open);
                    if q == b'"' && i + 1 == b.len() {
                        last = Some(open);
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        let open = last?;
        (open, t[open + 1..t.len() - 1].replace("\"\"", "\""))
    } else {
        let start = t
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |at| at + 1);
        let name = &t[start..];
        if !name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            return None;
        }
        (start, name.to_string())
    };
    let before = &t[..start];
    if !before.ends_with(char::is_whitespace) {
        return None;
    }
    let before = before.trim_end();
    let cut = before.len().checked_sub(2)?;
    if !before.is_char_boundary(cut) || !before[cut..].eq_ignore_ascii_case("as") {
        return None;
    }
    let expr = &before[..cut];
    (expr.ends_with(char::is_whitespace) && !alias.is_empty()).then(|| (expr.trim(), alias))
}

/// For a `--select` column not found whose name holds the word `as`: how to rename.
pub(crate) fn rename_hint(name: &str) -> Option<String> {
    name.split_whitespace()
        .any(|w| w.eq_ignore_ascii_case("as"))
        .then(|| "to rename a column, write `column AS name`, with one AS".to_string())
}

/// One output column, as `--select` resolves it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pick {
    /// The side it comes from (a coalesced key: the left).
    pub side: Side,
    /// Its column on that side.
    pub column: String,
    /// Its output name.
    pub name: String,
    /// `--coalesce-keys`: the key pair this column coalesces (its left key, else its right
    /// key).
    pub key: Option<usize>,
    /// A computed column: the expression (`side` and `column` mean nothing then).
    pub expr: Option<String>,
}

/// Resolve `--select` against the sides' schemas (each the union of its files' columns): the
/// output columns, in output order. With `coalesce` (`--coalesce-keys`: the left and the
/// right key columns), each key pair is one column: named after the left key and first by
/// default; in the list, a bare key name (left or right) is that column, under the name given.
pub(crate) fn resolve_select(
    select: Option<&[ColumnRef]>,
    jt: JoinType,
    left: &Schema,
    right: &Schema,
    coalesce: Option<(&[String], &[String])>,
) -> Result<Vec<Pick>> {
    // (side, column, alias, coalesced key); a computed column's expression, by index.
    let mut picked: Vec<(Side, String, Option<String>, Option<usize>)> = Vec::new();
    let mut exprs: Vec<Option<String>> = Vec::new();
    let key_of = |name: &str| {
        coalesce.and_then(|(lk, rk)| {
            lk.iter()
                .position(|k| k == name)
                .or_else(|| rk.iter().position(|k| k == name))
        })
    };
    let (left_keys, right_keys): (&[String], &[String]) = coalesce.unwrap_or((&[], &[]));
    // Every column of a side the join outputs (a coalesced key once, first): no --select, or `*`.
    let every = || {
        let mut all: Vec<(Side, String, Option<String>, Option<usize>)> = left_keys
            .iter()
            .enumerate()
            .map(|(i, k)| (Side::Left, k.clone(), None, Some(i)))
            .collect();
        if jt.outputs_left() {
            all.extend(
                left.fields()
                    .iter()
                    .filter(|f| !left_keys.contains(f.name()))
                    .map(|f| (Side::Left, f.name().clone(), None, None)),
            );
        }
        if jt.outputs_right() {
            all.extend(
                right
                    .fields()
                    .iter()
                    .filter(|f| !right_keys.contains(f.name()))
                    .map(|f| (Side::Right, f.name().clone(), None, None)),
            );
        }
        all
    };
    match select {
        None => picked = every(),
        Some(list) => {
            for r in list {
                // A column named like a rename (`x AS y`) is that column, under its name.
                let exists = |n: &str| match r.side {
                    Some(Side::Left) => left.index_of(n).is_ok(),
                    Some(Side::Right) => right.index_of(n).is_ok(),
                    None => {
                        left.index_of(n).is_ok() || right.index_of(n).is_ok() || key_of(n).is_some()
                    }
                };
                // `*`, `left.*`, `right.*`, maybe `EXCLUDE`, `REPLACE` and `RENAME` lists.
                let text = r.literal.as_deref().unwrap_or(&r.name);
                if let Some(star) = star_item(text).filter(|_| !exists(text)) {
                    let star = star?;
                    let mut cols = match r.side {
                        None => every(),
                        Some(side) => {
                            let (outputs, schema, this, other) = match side {
                                Side::Left => (jt.outputs_left(), left, "left", "right"),
                                Side::Right => (jt.outputs_right(), right, "right", "left"),
                            };
                            if !outputs {
                                return Err(Error::param(
                                    "--select",
                                    format!(
                                        "a {} join outputs {other} columns only, not {this}.*",
                                        jt.name()
                                    ),
                                ));
                            }
                            schema
                                .fields()
                                .iter()
                                .map(|f| (side, f.name().clone(), None, None))
                                .collect()
                        }
                    };
                    // The columns of the star a name of its lists means: in a bare `*`,
                    // `left.x` and `right.x` mean one side's.
                    let matching = |cols: &[(Side, String, Option<String>, Option<usize>)],
                                    x: &str,
                                    list: &str|
                     -> Result<Vec<usize>> {
                        let (only, name) = match (x.strip_prefix("left."), x.strip_prefix("right."))
                        {
                            (Some(n), _) if r.side.is_none() => (Some(Side::Left), n),
                            (_, Some(n)) if r.side.is_none() => (Some(Side::Right), n),
                            _ => (None, x),
                        };
                        let at: Vec<usize> = (0..cols.len())
                            .filter(|&i| cols[i].1 == name && only.is_none_or(|s| s == cols[i].0))
                            .collect();
                        if at.is_empty() {
                            return Err(Error::param(
                                "--select",
                                format!(
                                    "{x:?} of the {list} list is not a column of {:?}",
                                    r.item.trim()
                                ),
                            ));
                        }
                        Ok(at)
                    };
                    for x in &star.exclude {
                        let at = matching(&cols, x, "EXCLUDE")?;
                        for i in at.into_iter().rev() {
                            cols.remove(i);
                        }
                    }
                    let names: Vec<&str> = cols.iter().map(|c| c.1.as_str()).collect();
                    let keep = star.keeps(&names, r.item.trim())?;
                    let mut keep = keep.into_iter();
                    cols.retain(|_| keep.next().unwrap_or(false));
                    let one = |cols: &[(Side, String, Option<String>, Option<usize>)],
                               x: &str,
                               list: &str|
                     -> Result<usize> {
                        match matching(cols, x, list)?.as_slice() {
                            [i] => Ok(*i),
                            _ => Err(Error::param(
                                "--select",
                                format!(
                                    "{x:?} of the {list} list of {:?} is a column of both sides: \
                                     write left.{x} or right.{x}, or use left.* and right.*",
                                    r.item.trim()
                                ),
                            )),
                        }
                    };
                    for (x, name) in &star.rename {
                        let i = one(&cols, x, "RENAME")?;
                        cols[i].2 = Some(name.clone());
                    }
                    // A replaced column is the item `expression AS column`, in its place.
                    let mut replaced: Vec<(usize, Pick)> = Vec::new();
                    for (expr, x) in &star.replace {
                        let i = one(&cols, x, "REPLACE")?;
                        let item = crate::cli::join::parse_select(&format!(
                            "{expr} AS {}",
                            quote_name(x)
                        ))?;
                        let mut pick = resolve_select(Some(&item), jt, left, right, coalesce)?;
                        replaced.push((i, pick.remove(0)));
                    }
                    for (i, col) in cols.into_iter().enumerate() {
                        match replaced.iter().find(|(at, _)| *at == i) {
                            Some((_, p)) => {
                                exprs.resize(picked.len(), None);
                                exprs.push(p.expr.clone());
                                picked.push((
                                    p.side,
                                    p.column.clone(),
                                    Some(p.name.clone()),
                                    p.key,
                                ));
                            }
                            None => picked.push(col),
                        }
                    }
                    continue;
                }
                let (name, alias) = match &r.literal {
                    Some(whole) if exists(whole) => (whole.as_str(), None),
                    _ => (r.name.as_str(), r.alias.clone()),
                };
                // An item that names no column and reads as an expression computes one.
                if !exists(name) {
                    if let Some((expr, alias)) = computed_item(&r.item) {
                        let Some(alias) = alias else {
                            return Err(Error::param(
                                "--select",
                                format!(
                                    "{expr:?} computes a value: name its column, `{expr} AS name`"
                                ),
                            ));
                        };
                        exprs.resize(picked.len(), None);
                        exprs.push(Some(expr));
                        picked.push((Side::Left, alias.clone(), Some(alias), None));
                        continue;
                    }
                }
                // A bare key name under --coalesce-keys: the coalesced key, named as written.
                if let (None, Some(i)) = (r.side, key_of(name)) {
                    let alias = alias.unwrap_or_else(|| name.to_string());
                    picked.push((Side::Left, left_keys[i].clone(), Some(alias), Some(i)));
                    continue;
                }
                let side = match r.side {
                    Some(s) => s,
                    None => {
                        let in_l = left.index_of(name).is_ok() && jt.outputs_left();
                        let in_r = right.index_of(name).is_ok() && jt.outputs_right();
                        match (in_l, in_r) {
                            (true, false) => Side::Left,
                            (false, true) => Side::Right,
                            (true, true) => {
                                return Err(Error::param(
                                    "--select",
                                    format!("column {name:?} is on both sides: write left.{name} or right.{name}"),
                                ))
                            }
                            (false, false) => {
                                // Suggest from the sides the join outputs.
                                let names = jt
                                    .outputs_left()
                                    .then_some(left)
                                    .into_iter()
                                    .chain(jt.outputs_right().then_some(right))
                                    .flat_map(|s| s.fields().iter().map(|f| f.name().as_str()));
                                let hint = crate::error::did_you_mean_in(name, names)
                                    .or_else(|| rename_hint(name))
                                    .map(|h| format!(" ({h})"))
                                    .unwrap_or_default();
                                return Err(Error::param(
                                    "--select",
                                    format!("no column {name:?} on either side{hint}"),
                                ));
                            }
                        }
                    }
                };
                let schema = if side == Side::Left { left } else { right };
                if schema.index_of(name).is_err() {
                    let hint = crate::error::did_you_mean(name, schema)
                        .or_else(|| rename_hint(name))
                        .map(|h| format!(" ({h})"))
                        .unwrap_or_default();
                    return Err(Error::param(
                        "--select",
                        format!(
                            "no column {name:?} on the {} side{hint}",
                            if side == Side::Left { "left" } else { "right" }
                        ),
                    ));
                }
                // A semi or anti join outputs one side's columns only.
                let (outputs, this, other) = match side {
                    Side::Left => (jt.outputs_left(), "left", "right"),
                    Side::Right => (jt.outputs_right(), "right", "left"),
                };
                if !outputs {
                    return Err(Error::param(
                        "--select",
                        format!(
                            "a {} join outputs {other} columns only, not {this}.{name}",
                            jt.name()
                        ),
                    ));
                }
                picked.push((side, name.to_string(), alias, None));
            }
        }
    }
    // Output names: the alias, else the bare name; where a left and a right column share a
    // name, the right one without an alias gets `_right` (again, until the name is free).
    for (i, (side, name, alias, _)) in picked.iter().enumerate() {
        if alias.is_none() && picked[..i].contains(&(*side, name.clone(), None, None)) {
            return Err(Error::param(
                "--select",
                format!("column {name:?} is selected twice (name the second with `AS`)"),
            ));
        }
    }
    exprs.resize(picked.len(), None);
    let mut out: Vec<Pick> = picked
        .iter()
        .zip(exprs)
        .map(|((side, column, alias, key), expr)| Pick {
            side: *side,
            column: column.clone(),
            name: alias.clone().unwrap_or_else(|| column.clone()),
            key: *key,
            expr,
        })
        .collect();
    for i in 0..out.len() {
        if out[i].side != Side::Right || picked[i].2.is_some() {
            continue;
        }
        while out
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.name == out[i].name)
        {
            out[i].name.push_str("_right");
        }
    }
    // An alias is taken as given: one that another output column's name takes is refused.
    for (i, o) in out.iter().enumerate() {
        if out[..i].iter().any(|p| p.name == o.name) {
            return Err(Error::param(
                "--select",
                format!(
                    "two output columns would be named {:?}: rename one with `AS`",
                    o.name
                ),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_types_differing_in_field_metadata_alone_meet_without_it() {
        use arrow::datatypes::Fields;
        use DataType as D;
        let uuid = |marked: bool| {
            let f = Field::new("u", D::FixedSizeBinary(16), true);
            match marked {
                true => f.with_metadata(std::collections::HashMap::from([(
                    "ARROW:extension:name".to_string(),
                    "arrow.uuid".to_string(),
                )])),
                false => f,
            }
        };
        let st = |marked| {
            D::Struct(Fields::from(vec![
                uuid(marked),
                Field::new("n", D::Int32, true),
            ]))
        };
        let list = |marked| D::List(Arc::new(Field::new("item", st(marked), true)));
        // Found by the fuzzer (seed 8406, join case 372): pyarrow marks a UUID in a struct,
        // Polars does not, and the side's two files were refused.
        assert_eq!(common_type(&st(false), &st(true)), Some(st(false)));
        assert_eq!(common_type(&st(true), &st(false)), Some(st(false)));
        assert_eq!(common_type(&list(true), &list(false)), Some(list(false)));
        assert_eq!(common_type(&st(true), &st(true)), Some(st(true)));
        // Different fields still do not meet.
        let other = D::Struct(Fields::from(vec![uuid(false)]));
        assert_eq!(common_type(&st(false), &other), None);
    }

    #[test]
    fn common_types_hold_both_files_values() {
        use arrow::datatypes::TimeUnit;
        use DataType as D;
        let dict = |v: D| D::Dictionary(Box::new(D::Int8), Box::new(v));
        for (a, b, want) in [
            (D::Int32, D::Int64, Some(D::Int64)),
            (D::Int64, D::Int32, Some(D::Int64)),
            (D::UInt8, D::UInt32, Some(D::UInt32)),
            (D::UInt32, D::Int8, Some(D::Int64)),
            (D::Int16, D::UInt8, Some(D::Int16)),
            (D::UInt16, D::Int8, Some(D::Int32)),
            (D::UInt64, D::Int64, Some(D::Decimal128(20, 0))),
            (D::Int8, D::UInt64, Some(D::Decimal128(20, 0))),
            (
                D::Decimal128(10, 2),
                D::Decimal128(12, 4),
                Some(D::Decimal128(12, 4)),
            ),
            (
                D::Decimal128(10, 2),
                D::Decimal128(5, 4),
                Some(D::Decimal128(12, 4)),
            ),
            (D::Int32, D::Decimal128(10, 0), Some(D::Decimal128(10, 0))),
            (D::Int64, D::Decimal128(5, 3), Some(D::Decimal128(22, 3))),
            (
                D::UInt64,
                D::Decimal128(38, 20),
                Some(D::Decimal256(40, 20)),
            ),
            (D::Decimal256(76, 0), D::Decimal128(38, 38), None),
            (D::Decimal128(10, -2), D::Int32, None),
            (D::Date32, D::Date64, Some(D::Date64)),
            (D::Date64, D::Date32, Some(D::Date64)),
            (D::Date64, D::Int64, None),
            (D::Boolean, D::Int8, None),
            (D::Utf8, D::LargeUtf8, Some(D::LargeUtf8)),
            (dict(D::Utf8), D::Utf8, Some(D::Utf8)),
            (dict(D::Utf8), dict(D::Utf8), Some(dict(D::Utf8))),
            (D::Utf8View, D::Utf8, Some(D::Utf8View)),
            (D::Binary, D::LargeBinary, Some(D::LargeBinary)),
            (D::Float32, D::Float64, Some(D::Float64)),
            (D::Utf8, D::Int64, None),
            (D::Date32, D::Int32, None),
            (
                D::Timestamp(TimeUnit::Second, None),
                D::Timestamp(TimeUnit::Nanosecond, None),
                Some(D::Timestamp(TimeUnit::Nanosecond, None)),
            ),
            (
                D::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                D::Timestamp(TimeUnit::Millisecond, Some("+02:00".into())),
                Some(D::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))),
            ),
            (
                D::Timestamp(TimeUnit::Millisecond, None),
                D::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                None,
            ),
        ] {
            assert_eq!(common_type(&a, &b), want, "{a} and {b}");
        }
    }

    /// A schema of nullable columns.
    fn schema(cols: &[(&str, DataType)]) -> Schema {
        Schema::new(
            cols.iter()
                .map(|(n, t)| Field::new(*n, t.clone(), true))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn coalesced_keys_come_first_and_answer_to_either_key_name() {
        let l = schema(&[("x", DataType::Utf8), ("id", DataType::Int64)]);
        let r = schema(&[
            ("uid", DataType::Int64),
            ("id", DataType::Utf8),
            ("x", DataType::Utf8),
        ]);
        let (lk, rk) = (vec!["id".to_string()], vec!["uid".to_string()]);
        let resolve = |s: Option<&str>| {
            let list = s.map(|s| crate::cli::join::parse_select(s).unwrap());
            resolve_select(list.as_deref(), JoinType::Full, &l, &r, Some((&lk, &rk)))
        };
        let shown = |v: Vec<Pick>| {
            v.into_iter()
                .map(|p| match p.key {
                    Some(i) => format!("{}=key{i}", p.name),
                    None => format!("{}={:?}.{}", p.name, p.side, p.column),
                })
                .collect::<Vec<_>>()
        };
        // The key first, under the left key's name; the right's `id` (not a key) steps aside.
        assert_eq!(
            shown(resolve(None).unwrap()),
            [
                "id=key0",
                "x=Left.x",
                "id_right=Right.id",
                "x_right=Right.x"
            ]
        );
        assert_eq!(
            shown(resolve(Some("uid, id AS k, left.id, right.uid")).unwrap()),
            ["uid=key0", "k=key0", "id=Left.id", "uid_right=Right.uid"]
        );
        assert!(resolve(Some("id, uid AS id")).is_err());
    }

    /// `--select` resolved against `l` and `r`, each output column shown as `name=Side.column`,
    /// or `name=(expression)`.
    fn shown_select(s: &str, jt: JoinType, l: &Schema, r: &Schema) -> Result<Vec<String>> {
        let list = crate::cli::join::parse_select(s).unwrap();
        Ok(resolve_select(Some(&list), jt, l, r, None)?
            .into_iter()
            .map(|p| match p.expr {
                Some(e) => format!("{}=({e})", p.name),
                None => format!("{}={:?}.{}", p.name, p.side, p.column),
            })
            .collect())
    }

    #[test]
    fn stars_select_every_column_of_their_sides_but_those_excluded() {
        let l = schema(&[("id", DataType::Int64), ("x", DataType::Utf8)]);
        let r = schema(&[
            ("uid", DataType::Int64),
            ("x", DataType::Utf8),
            ("y", DataType::Utf8),
        ]);
        let resolve = |s: &str, jt: JoinType| shown_select(s, jt, &l, &r);
        let every = [
            "id=Left.id",
            "x=Left.x",
            "uid=Right.uid",
            "x_right=Right.x",
            "y=Right.y",
        ];
        assert_eq!(resolve("*", JoinType::Inner).unwrap(), every);
        assert_eq!(resolve("left.*, right.*", JoinType::Full).unwrap(), every);
        assert_eq!(
            resolve("*, id + uid AS s", JoinType::Inner).unwrap(),
            [&every[..], &["s=(id + uid)"]].concat()
        );
        assert_eq!(
            resolve("right.* EXCLUDE (x, \"y\"), left.id", JoinType::Left).unwrap(),
            ["uid=Right.uid", "id=Left.id"]
        );
        // A bare name excludes it from both sides; a qualified one from its side.
        assert_eq!(
            resolve("* exclude x", JoinType::Inner).unwrap(),
            ["id=Left.id", "uid=Right.uid", "y=Right.y"]
        );
        assert_eq!(
            resolve("* EXCLUDE (left.x)", JoinType::Inner).unwrap(),
            ["id=Left.id", "uid=Right.uid", "x=Right.x", "y=Right.y"]
        );
        // A semi join's * is its side's columns.
        assert_eq!(
            resolve("*", JoinType::RightSemi).unwrap(),
            ["uid=Right.uid", "x=Right.x", "y=Right.y"]
        );
        let err = |s: &str, jt| crate::error::one_line(&resolve(s, jt).unwrap_err());
        assert!(err("left.*", JoinType::RightSemi)
            .contains("a right-semi join outputs right columns only, not left.*"));
        assert!(err("* EXCLUDE (nope)", JoinType::Inner)
            .contains("\"nope\" of the EXCLUDE list is not a column of \"* EXCLUDE (nope)\""));
        assert!(err("*, id", JoinType::Inner).contains("column \"id\" is selected twice"));
        assert!(err("* AS all", JoinType::Inner).contains(
            "after a *, write EXCLUDE (columns), REPLACE (expression AS column) or RENAME"
        ));
        assert!(err("* EXCLUDE (a,)", JoinType::Inner).contains("after a *"));
        assert!(err("* RENAME (id AS a) EXCLUDE (x)", JoinType::Inner).contains("in that order"));
    }

    #[test]
    fn stars_replace_and_rename_columns_in_their_place() {
        let l = schema(&[("id", DataType::Int64), ("x", DataType::Utf8)]);
        let r = schema(&[("uid", DataType::Int64), ("x", DataType::Utf8)]);
        let resolve = |s: &str, jt: JoinType| shown_select(s, jt, &l, &r);
        // As DuckDB: EXCLUDE, then REPLACE, then RENAME; each in the column's place.
        assert_eq!(
            resolve("left.* REPLACE (id * 10 AS id), right.*", JoinType::Inner).unwrap(),
            [
                "id=(id * 10)",
                "x=Left.x",
                "uid=Right.uid",
                "x_right=Right.x"
            ]
        );
        assert_eq!(
            resolve(
                "* EXCLUDE (right.x) REPLACE (upper(left.x) AS \"x\") RENAME (uid AS \"u id\")",
                JoinType::Inner
            )
            .unwrap(),
            ["id=Left.id", "x=(upper(left.x))", "u id=Right.uid"]
        );
        // A column as the replacement is that column, under the replaced one's name.
        assert_eq!(
            resolve("right.* replace (left.x as x)", JoinType::Inner).unwrap(),
            ["uid=Right.uid", "x=Left.x"]
        );
        assert_eq!(
            resolve("* RENAME (left.x AS lx, right.x AS rx)", JoinType::Inner).unwrap(),
            ["id=Left.id", "lx=Left.x", "uid=Right.uid", "rx=Right.x"]
        );
        assert_eq!(
            resolve("* RENAME uid AS u", JoinType::Inner).unwrap(),
            ["id=Left.id", "x=Left.x", "u=Right.uid", "x_right=Right.x"]
        );
        let err = |s: &str| crate::error::one_line(&resolve(s, JoinType::Inner).unwrap_err());
        assert!(err("* REPLACE (1 AS x)").contains(
            "\"x\" of the REPLACE list of \"* REPLACE (1 AS x)\" is a column of both sides"
        ));
        assert!(err("* RENAME (x AS y)").contains("is a column of both sides"));
        assert!(err("left.* REPLACE (1 AS nope)").contains(
            "\"nope\" of the REPLACE list is not a column of \"left.* REPLACE (1 AS nope)\""
        ));
        assert!(err("* RENAME (nope AS y)").contains("\"nope\" of the RENAME list is not a column"));
        assert!(err("left.* REPLACE (id AS id, 2 AS id)")
            .contains("\"id\" is twice in the REPLACE list"));
        assert!(err("left.* EXCLUDE (x) REPLACE (1 AS x)")
            .contains("\"x\" is in both the EXCLUDE and the REPLACE list"));
        assert!(err("left.* REPLACE (1 AS x) RENAME (x AS y)")
            .contains("\"x\" is in both the REPLACE and the RENAME list"));
        assert!(err("left.* REPLACE (1 + AS x)").contains("--select"));
        assert!(err("left.* REPLACE (id)")
            .contains("\"id\" of \"* REPLACE (id)\": write expression AS column"));
        assert!(err("left.* RENAME (id)").contains("write column AS name"));
        // DuckDB's patterns on the names, after any EXCLUDE.
        assert_eq!(
            resolve("* LIKE '%id'", JoinType::Inner).unwrap(),
            ["id=Left.id", "uid=Right.uid"]
        );
        assert_eq!(
            resolve("* EXCLUDE (left.x) NOT ILIKE 'U%'", JoinType::Inner).unwrap(),
            ["id=Left.id", "x=Right.x"]
        );
        assert_eq!(
            resolve("right.* SIMILAR TO 'u?id'", JoinType::Inner).unwrap(),
            ["uid=Right.uid"]
        );
        assert!(err("* LIKE 'z%'").contains("\"* LIKE 'z%'\": no column's name matches"));
        assert!(err("* RENAME (uid AS u) LIKE 'u%'")
            .contains("REPLACE and RENAME do not combine with a pattern"));
        assert!(err("* LIKE x").contains("or a pattern (LIKE 'l_%')"));
        // DuckDB's COLUMNS('regex'): the names it finds a match in, on both sides.
        assert_eq!(
            resolve("COLUMNS('^u|d$')", JoinType::Inner).unwrap(),
            ["id=Left.id", "uid=Right.uid"]
        );
        assert_eq!(
            resolve("columns(*)", JoinType::Inner).unwrap(),
            ["id=Left.id", "x=Left.x", "uid=Right.uid", "x_right=Right.x"]
        );
        assert!(err("COLUMNS('[')")
            .contains("\"COLUMNS('[')\": the regular expression \"[\" is not valid"));
        assert!(err("COLUMNS(x)").contains("COLUMNS takes a regular expression ('^l_') or *"));
        assert!(err("COLUMNS('x') AS y").contains("write COLUMNS('regex') alone"));
        assert!(err("COLUMNS('z')").contains("no column's name matches"));
        assert!(err("left.* RENAME (id AS x)").contains("two output columns would be named \"x\""));
    }

    #[test]
    fn select_items_that_name_no_column_are_computed() {
        let l = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("a + b", DataType::Int64, true),
        ]);
        let r = Schema::new(vec![Field::new("uid", DataType::Int64, true)]);
        let list = crate::cli::join::parse_select(
            "id, left.id + uid AS s, concat('a,b', id) AS \"x y\", a + b, CAST(id AS INTEGER) AS i",
        )
        .unwrap();
        let picks = resolve_select(Some(&list), JoinType::Inner, &l, &r, None).unwrap();
        let got: Vec<(&str, Option<&str>)> = picks
            .iter()
            .map(|p| (p.name.as_str(), p.expr.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("id", None),
                ("s", Some("left.id + uid")),
                ("x y", Some("concat('a,b', id)")),
                // A column whose name reads as an expression is that column.
                ("a + b", None),
                ("i", Some("CAST(id AS INTEGER)")),
            ]
        );
        let err = |s: &str| {
            let list = crate::cli::join::parse_select(s).unwrap();
            crate::error::one_line(
                &resolve_select(Some(&list), JoinType::Inner, &l, &r, None).unwrap_err(),
            )
        };
        assert!(err("id + 1").contains("computes a value: name its column, `id + 1 AS name`"));
        assert!(err("CAST(id AS INTEGER)").contains("computes a value"));
        // A misspelt column is still one, with its hint.
        assert!(err("uidd").contains("no column \"uidd\" on either side"));
    }

    #[test]
    fn select_resolves_names_and_suffixes() {
        let l = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("x", DataType::Utf8, true),
        ]);
        let r = Schema::new(vec![
            Field::new("uid", DataType::Int64, true),
            Field::new("x", DataType::Utf8, true),
        ]);
        let sel = |s: &str| -> Vec<ColumnRef> { crate::cli::join::parse_select(s).unwrap() };
        let resolve = |s: Option<&str>, jt| {
            let list = s.map(sel);
            resolve_select(list.as_deref(), jt, &l, &r, None)
        };
        let names = |v: Vec<Pick>| v.into_iter().map(|p| p.name).collect::<Vec<_>>();
        assert_eq!(
            names(resolve(None, JoinType::Inner).unwrap()),
            ["id", "x", "uid", "x_right"]
        );
        assert_eq!(
            names(resolve(None, JoinType::LeftAnti).unwrap()),
            ["id", "x"]
        );
        assert_eq!(
            names(resolve(Some("uid, right.x, left.x"), JoinType::Inner).unwrap()),
            ["uid", "x_right", "x"]
        );
        // In a semi join only left columns exist, so a bare name is not ambiguous.
        assert_eq!(
            names(resolve(Some("x"), JoinType::LeftSemi).unwrap()),
            ["x"]
        );
        assert!(resolve(Some("x"), JoinType::Inner).is_err());
        assert!(resolve(Some("id,id"), JoinType::Inner).is_err());
        assert!(resolve(Some("left.uid"), JoinType::Inner).is_err());
        assert!(resolve(Some("right.x"), JoinType::LeftSemi).is_err());
        // A right semi or anti join outputs the right side's columns, under their own names.
        for jt in [JoinType::RightSemi, JoinType::RightAnti] {
            assert_eq!(names(resolve(None, jt).unwrap()), ["uid", "x"]);
            assert_eq!(names(resolve(Some("x"), jt).unwrap()), ["x"]);
            assert!(resolve(Some("left.x"), jt).is_err());
            assert!(resolve(Some("id"), jt).is_err());
        }
        // `AS` names an output column (in any case); the alias is kept as given, so a right
        // column without one steps aside, and an alias another column takes is refused.
        assert_eq!(
            names(
                resolve(
                    Some("left.x AS a, right.x as b, uid AS id2"),
                    JoinType::Inner
                )
                .unwrap()
            ),
            ["a", "b", "id2"]
        );
        assert_eq!(
            names(resolve(Some("id, id AS id_again"), JoinType::Inner).unwrap()),
            ["id", "id_again"]
        );
        assert_eq!(
            names(resolve(Some("left.x AS uid, uid"), JoinType::Inner).unwrap()),
            ["uid", "uid_right"]
        );
        let err = |s| crate::error::one_line(&resolve(Some(s), JoinType::Inner).unwrap_err());
        assert!(err("id AS z, uid AS z").contains("two output columns would be named \"z\""));
        assert!(err("uid AS id, id").contains("two output columns would be named \"id\""));
        assert!(crate::cli::join::parse_select("left.").is_err());
        for bad in [
            "id AS",
            "AS z",
            "left. AS z",
            "id AS a AS b",
            "left.id as a as b",
        ] {
            assert!(
                err(bad).contains("write `column AS name`, with one AS"),
                "{bad}"
            );
        }
        // A column whose own name reads as a rename is that column, under its name.
        let odd = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("sold as new", DataType::Utf8, true),
        ]);
        let list =
            crate::cli::join::parse_select("sold as new, left.sold as new AS s, id AS k").unwrap();
        let got = resolve_select(Some(&list), JoinType::LeftSemi, &odd, &r, None).unwrap();
        assert_eq!(names(got), ["sold as new", "s", "k"]);
    }
}
