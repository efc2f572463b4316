//! `--where` predicates: a SQL boolean expression over columns, parsed with `sqlparser`
//! (DuckDB dialect) and evaluated on Arrow record batches with Arrow compute kernels.
//!
//! The language (the README's "`--where` expressions" section is the reference):
//! `= <> != < <= > >=`, `AND`, `OR`, `NOT`, `[NOT] IN (...)`, `[NOT] BETWEEN`,
//! `[NOT] LIKE`/`ILIKE` with an optional `ESCAPE 'c'`, `IS [NOT] NULL`, `IS [NOT] TRUE | FALSE
//! | UNKNOWN`, `IS [NOT] DISTINCT FROM`, parentheses, `+ - * %` (`mod`) and signs; the
//! functions `lower`, `upper`, `length`, `abs`, `coalesce`, `ifnull`, `nullif`,
//! `[TRY_]CAST(x AS DATE | TIMESTAMP | TIME)` (of strings as DuckDB reads them: see
//! `strtime`), `[TRY_]CAST` to the integer types, `DECIMAL(p, s)` and
//! `VARCHAR` (see `cast`), the parts of dates and timestamps (`year`,
//! `EXTRACT(MONTH FROM x)`, `date_part('week', x)`, ...) and `date_trunc('month', x)` (see
//! `func`), `date_diff('day', a, b)`, `date_sub('month', a, b)` and `last_day(x)` (see `diff`), `epoch(x)`,
//! `epoch_ms(x)` (and of milliseconds, the timestamp), `epoch_us`, `epoch_ns`, `julian`,
//! `to_timestamp(s)` and `make_date(y, m, d)` (see `epoch`); `x AT TIME ZONE 'Europe/Oslo'` and
//! `timezone('Europe/Oslo', x)` (see `zone`); the string functions `starts_with`, `ends_with`, `contains`, `strpos`, `substr`,
//! `left`, `right`, `trim`, `ltrim`, `rtrim`, `replace`, `concat` and `||` (see `text`);
//! the regular expressions `regexp_matches` (`~`, `~*`, `!~`, `!~*`), `regexp_full_match`
//! (`SIMILAR TO`), `regexp_replace` and `regexp_extract`, in RE2's syntax (see `re`);
//! `CASE WHEN ... THEN ... [ELSE ...] END` and `CASE x WHEN ...`; numbers, `'strings'`, `DATE 'YYYY-MM-DD'`, `TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f]'`,
//! DuckDB's `'infinity'`, `'-infinity'` and `'epoch'` as dates and timestamps,
//! `INTERVAL '3 days'`, `TRUE`, `FALSE`, `NULL`; bare boolean columns. Arithmetic of exact
//! numbers is exact (see `arith`): integers and decimals never wrap or round, dates take days
//! and intervals; `/` and arithmetic with a float are DuckDB's DOUBLE or FLOAT operations. Comparisons are exact and follow DuckDB: integers of every
//! width and signedness and decimals of every precision and scale compare by value, however
//! large the literal; floats compare as floats (`-0.0 = 0`, NaN equals NaN and sorts above
//! everything); dates meet timestamps of any unit as their midnight. SQL's three-valued
//! logic applies inside the expression; a row passes only when the whole expression is true.
//! A function that fails on a value (a `CAST`, a pattern taken from a column) fails the
//! evaluation only on a row whose answer needs it, as in DuckDB: a guard (`s SIMILAR TO
//! '[0-9]+' AND CAST(s AS INTEGER) > 5`, `CASE WHEN ... THEN CAST(...) END`) keeps the failing
//! values away (see `lazy`).
//!
//! Evaluation never recurses on the depth of the expression (chains of `AND`/`OR` are one
//! n-ary node, the evaluator keeps its own stack), so a 2,000-term `OR` runs on a worker
//! thread's small stack; an expression of more than [`MAX_OPERATORS`] operators is refused.
//!
//! ```
//! use std::sync::Arc;
//! use arrow::array::{Int64Array, RecordBatch, StringArray};
//! use arrow::datatypes::{DataType, Field, Schema};
//! use bloomjoin::expr::Predicate;
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("rep", DataType::Int64, true),
//!     Field::new("loc", DataType::Utf8, true),
//! ]));
//! let batch = RecordBatch::try_new(schema, vec![
//!     Arc::new(Int64Array::from(vec![Some(2000), Some(10), None])),
//!     Arc::new(StringArray::from(vec!["Oslo", "Oslo", "Rome"])),
//! ]).unwrap();
//! let p = Predicate::parse("rep > 1500 AND loc LIKE 'O%'", "--where").unwrap();
//! let keep = p.evaluate(&batch).unwrap();
//! assert_eq!(keep.iter().collect::<Vec<_>>(), vec![Some(true), Some(false), Some(false)]);
//! // Exact arithmetic: 2000 * 4611686018427387904 overflows an i64, not this.
//! let p = Predicate::parse("rep * 4611686018427387904 > 9223372036854775807", "--where").unwrap();
//! assert_eq!(p.evaluate(&batch).unwrap().true_count(), 2);
//! // Functions, as DuckDB's: NULL is not distinct from NULL.
//! let p = Predicate::parse("lower(loc) IS NOT DISTINCT FROM 'oslo' OR abs(rep) IS NULL", "--where").unwrap();
//! assert_eq!(p.evaluate(&batch).unwrap().true_count(), 3);
//! ```

mod arith;
mod cast;
mod contains;
mod diff;
mod digest;
mod epoch;
mod eval;
mod func;
mod grapheme;
mod lazy;
mod lit;
mod math;
mod parse;
mod re;
pub(crate) mod stats;
mod strftime;
mod strtime;
mod text;
pub(crate) mod uuid;
mod zone;

use std::sync::Arc;

use arrow::array::{Array, BooleanArray, RecordBatch};
use arrow::datatypes::Schema;

use crate::error::{Error, Result};

pub(crate) use lit::strict_date;
pub use parse::MAX_OPERATORS;

/// Parse a date as Arrow does (`YYYY-MM-DD` and a few variants) into days since the Unix
/// epoch. `--where` literals are stricter: exactly `YYYY-MM-DD`.
pub fn parse_date(s: &str) -> Result<i32> {
    use arrow::compute::kernels::cast_utils::Parser as _;
    arrow::datatypes::Date32Type::parse(s)
        .ok_or_else(|| Error::Usage(format!("{s:?} is not a date (expected YYYY-MM-DD)")))
}

/// Parse `YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]` (up to 9 fractional digits, no time zone) into
/// nanoseconds since the epoch, as `TIMESTAMP` literals of `--where` are read.
pub fn parse_timestamp(s: &str) -> Result<i128> {
    lit::strict_timestamp(s).map_err(Error::Usage)
}

/// Parse a time of day, `HH:MM[:SS[.f]]` (up to 9 fractional digits, up to 23:59:59), into
/// nanoseconds since midnight, as `TIME` literals of `--where` are read.
pub fn parse_time(s: &str) -> Result<i128> {
    lit::strict_time(s).map_err(Error::Usage)
}

/// The type a computed column of values of type `t` is written in: an exact number without
/// a fraction is a BIGINT, one with a fraction a DECIMAL of at most 38 digits (exact
/// arithmetic types its results as wide as they may need to be: `i32 + 1` is a DECIMAL(11,
/// 0), a literal a DECIMAL(76, s)); a dictionary its values' type; anything else its own.
pub(crate) fn output_type(t: &arrow::datatypes::DataType) -> arrow::datatypes::DataType {
    use arrow::datatypes::DataType::*;
    match t {
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) | Decimal256(_, s) if *s <= 0 => Int64,
        Decimal32(p, s) | Decimal64(p, s) | Decimal128(p, s) | Decimal256(p, s) => {
            Decimal128((*p).min(38), (*s).min(38))
        }
        Dictionary(_, v) => output_type(v),
        other => other.clone(),
    }
}

/// A parsed `--where` predicate. Cloning is cheap (the tree is shared).
#[derive(Debug, Clone)]
pub struct Predicate {
    tree: Arc<parse::Tree>,
    sets: Arc<eval::InSets>,
    text: String,
    context: String,
    columns: Vec<String>,
}

/// The columns `tree` reads, in first-use order.
fn columns_of(tree: &parse::Tree) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for n in &tree.nodes {
        if let parse::Node::Column(c) = n {
            if !columns.contains(c) {
                columns.push(c.clone());
            }
        }
    }
    columns
}

/// The expression as error messages quote it: whole when short, else its start.
fn quoted(text: &str) -> String {
    const SHOWN: usize = 80;
    if text.chars().count() <= SHOWN {
        format!("{text:?}")
    } else {
        let start: String = text.chars().take(SHOWN).collect();
        format!("{:?}", format!("{start}…"))
    }
}

impl Predicate {
    /// Parse `text`; `context` (the option, e.g. `--left-where`) prefixes error messages.
    pub fn parse(text: &str, context: &str) -> Result<Predicate> {
        let tree = parse::parse(text).map_err(|reason| Error::Expr {
            context: format!("{context} {}", quoted(text)),
            reason,
        })?;
        Ok(Predicate {
            columns: columns_of(&tree),
            tree: Arc::new(tree),
            sets: Arc::default(),
            text: text.to_string(),
            context: context.to_string(),
        })
    }

    /// The operands of the top-level `AND`, each a predicate of its own, or the predicate
    /// itself. A row passes the predicate exactly when it passes every one.
    pub fn conjuncts(&self) -> Vec<Predicate> {
        let root = self.tree.root();
        match &self.tree.nodes[root] {
            parse::Node::And(children) => children
                .iter()
                .map(|&c| self.with_tree(self.tree.subtree(c), self.text.clone()))
                .collect(),
            _ => vec![self.clone()],
        }
    }

    /// [`Predicate::conjuncts`], each with its own text (as sqlparser prints it) rather
    /// than the whole expression's.
    pub(crate) fn split_and(&self) -> Vec<Predicate> {
        let mut parts = self.conjuncts();
        if parts.len() > 1 {
            if let Some(texts) = parse::conjunct_texts(&self.text) {
                if texts.len() == parts.len() {
                    for (p, t) in parts.iter_mut().zip(texts) {
                        p.text = t;
                    }
                }
            }
        }
        parts
    }

    /// The predicate with every column `c` read as `rename(c)` instead.
    pub(crate) fn renamed(&self, rename: impl Fn(&str) -> String) -> Predicate {
        let nodes = self
            .tree
            .nodes
            .iter()
            .map(|n| match n {
                parse::Node::Column(c) => parse::Node::Column(rename(c)),
                other => other.clone(),
            })
            .collect();
        self.with_tree(parse::Tree { nodes }, self.text.clone())
    }

    /// A predicate of `tree`, written `text`, in this one's context.
    fn with_tree(&self, tree: parse::Tree, text: String) -> Predicate {
        Predicate {
            columns: columns_of(&tree),
            tree: Arc::new(tree),
            sets: Arc::default(),
            text,
            context: self.context.clone(),
        }
    }

    /// `self AND other`, its text `(self) AND (other)` and its context `self`'s.
    pub(crate) fn and(&self, other: &Predicate) -> Predicate {
        let mut nodes = self.tree.nodes.clone();
        let offset = nodes.len();
        let to: Vec<usize> = (0..other.tree.nodes.len()).map(|i| i + offset).collect();
        nodes.extend(other.tree.nodes.iter().map(|n| n.remapped(&to)));
        nodes.push(parse::Node::And(vec![
            self.tree.root(),
            other.tree.root() + offset,
        ]));
        self.with_tree(
            parse::Tree { nodes },
            format!("({}) AND ({})", self.text, other.text),
        )
    }

    /// Whether the expression is a column alone.
    pub(crate) fn is_column(&self) -> bool {
        matches!(self.tree.nodes[self.tree.root()], parse::Node::Column(_))
    }

    /// The expression as the user wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The columns the expression reads, in first-use order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Check that every column exists in `schema` and every operation is well typed; `file`
    /// names the input in errors.
    pub fn check(&self, schema: &Schema, file: &str) -> Result<()> {
        let fields: Vec<_> = self
            .columns
            .iter()
            .map(|c| {
                schema
                    .field_with_name(c)
                    .cloned()
                    .map_err(|_| self.missing_column(c, schema, file))
            })
            .collect::<Result<_>>()?;
        let empty = RecordBatch::new_empty(Arc::new(Schema::new(fields)));
        self.check_logical(empty.schema_ref())
            .and_then(|()| self.evaluate(&empty).map(|_| ()))
            .map_err(|e| match e {
                Error::Expr { context, reason } => Error::Expr {
                    context: format!("{file}: {context}"),
                    reason,
                },
                other => other,
            })
    }

    /// Refuse what the expression does with a column whose Arrow type is not its value (see
    /// [`crate::read::logical`]), where DuckDB would answer otherwise: a UUID may be tested
    /// with `IS [NOT] NULL`, compared (`=`, `<`, `IN`, `BETWEEN`, `IS DISTINCT FROM`) with a
    /// UUID or with text, which is read as one (their bytes are equal exactly when the UUIDs
    /// are, and order as DuckDB orders UUIDs), and cast to `VARCHAR`; an `INTERVAL`, a
    /// `GEOMETRY`, a `GEOGRAPHY` or a `VARIANT` may only be tested with `IS [NOT] NULL`. A
    /// column alone (`--select` passing it on) is fine.
    pub(crate) fn check_logical(&self, schema: &Schema) -> Result<()> {
        use crate::read::logical::{annotation, Annotation};
        let nodes = &self.tree.nodes;
        let kind = |i: usize| match &nodes[i] {
            parse::Node::Column(c) => schema.field_with_name(c).ok().and_then(annotation),
            _ => None,
        };
        let mut parent = vec![None; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            let mut k = 0;
            while let Some(c) = n.child(k) {
                parent[c] = Some(i);
                k += 1;
            }
        }
        for (i, n) in nodes.iter().enumerate() {
            let parse::Node::Column(c) = n else {
                continue;
            };
            let a = match kind(i) {
                // JSON is text and a TIMETZ a time of day, as DuckDB compares them; the
                // fields inside a struct, list or map cannot be named in an expression.
                Some(Annotation::Json | Annotation::TimeUtc | Annotation::Nested { .. }) | None => {
                    continue
                }
                Some(a) => a,
            };
            let ok = match parent[i].map(|p| &nodes[p]) {
                None | Some(parse::Node::IsNull(..)) => true,
                // A UUID compares with a UUID (they order as their bytes, in DuckDB too) or
                // with text read as one, and casts to its text (the evaluation's
                // `compare_uuid`).
                Some(
                    parse::Node::Cmp(..)
                    | parse::Node::Distinct(..)
                    | parse::Node::InList(..)
                    | parse::Node::Between(..)
                    | parse::Node::Func(
                        func::Func::Cast(cast::Target::Varchar | cast::Target::Uuid, _),
                        _,
                    ),
                ) => a == Annotation::Uuid,
                _ => false,
            };
            if !ok {
                let reason = match a {
                    Annotation::Uuid => format!(
                        "column {c:?} is a UUID, read as its 16 bytes: it can be tested with IS [NOT] NULL, compared with a UUID or with text (read as a UUID) and cast to VARCHAR; CAST it to VARCHAR for anything else"
                    ),
                    Annotation::Interval => format!(
                        "column {c:?} is a Parquet INTERVAL, read as its 12 bytes (months, days, milliseconds): it can be tested with IS [NOT] NULL and passed on, not compared or computed on (DuckDB compares intervals normalized: '1 month' equals '30 days')"
                    ),
                    other => format!(
                        "column {c:?} is a Parquet {}, read as its encoded bytes: it can be tested with IS [NOT] NULL and passed on, not compared or computed on (DuckDB compares its values, and casts text to them)",
                        other.name()
                    ),
                };
                return Err(Error::Expr {
                    context: format!("{} {}", self.context, quoted(&self.text)),
                    reason,
                });
            }
        }
        Ok(())
    }

    /// What the expression's values are where their Arrow type does not say: a UUID for a
    /// `CAST(.. AS UUID)` (16 bytes), so that an output column of them is a Parquet `UUID`.
    pub(crate) fn value_annotation(&self) -> Option<crate::read::logical::Annotation> {
        match &self.tree.nodes[self.tree.root()] {
            parse::Node::Func(func::Func::Cast(cast::Target::Uuid, _), _) => {
                Some(crate::read::logical::Annotation::Uuid)
            }
            _ => None,
        }
    }

    /// The error for column `c` of the expression, which `schema` (of `file`) lacks.
    pub fn missing_column(&self, c: &str, schema: &Schema, file: &str) -> Error {
        Error::Column {
            file: file.to_string(),
            column: c.to_string(),
            reason: format!(
                "no such column (used in {} {}{})",
                self.context,
                quoted(&self.text),
                crate::error::did_you_mean(c, schema)
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default()
            ),
        }
    }

    /// [`Predicate::evaluate`] over `batch` with the `filled` columns, which its file does
    /// not hold, added: each with its value (a one-row array, repeated: a Hive partition
    /// column's), or nulls (`None`: a column the file lacks, so a comparison with it is null
    /// and the row fails, and `IS NULL` holds, as in SQL over files unioned by name).
    pub fn evaluate_filling(
        &self,
        batch: &RecordBatch,
        filled: &[(arrow::datatypes::FieldRef, Option<arrow::array::ArrayRef>)],
    ) -> Result<BooleanArray> {
        if filled.is_empty() {
            return self.evaluate(batch);
        }
        let mut fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
        let mut columns = batch.columns().to_vec();
        for (f, value) in filled {
            fields.push(Arc::new(f.as_ref().clone().with_nullable(true)));
            columns.push(match value {
                Some(v) => crate::plan::hive::repeat(v, batch.num_rows())?,
                None => arrow::array::new_null_array(f.data_type(), batch.num_rows()),
            });
        }
        let opts = arrow::array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        let filled =
            RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &opts)
                .map_err(|e| Error::arrow("--where columns", e))?;
        self.evaluate(&filled)
    }

    /// Evaluate on a batch: true where the row passes, false where it does not (SQL nulls
    /// become false). The result has no nulls.
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let err = |reason: String| Error::Expr {
            context: format!("{} {}", self.context, quoted(&self.text)),
            reason,
        };
        let v = match eval::evaluate(&self.tree, &self.sets, batch) {
            Ok(v) => v,
            Err(eager) => return self.evaluate_lazily(batch, eager).map_err(err),
        };
        let b = match v {
            eval::Val::Bool(b) => b,
            eval::Val::Arr(a) => match a.data_type() {
                arrow::datatypes::DataType::Boolean => {
                    arrow::array::AsArray::as_boolean(&a).clone()
                }
                arrow::datatypes::DataType::Null => BooleanArray::new_null(a.len()),
                other => {
                    return Err(err(format!(
                        "{} is {other}, not a boolean condition",
                        self.describe_root()
                    )))
                }
            },
            eval::Val::Lit(lit::Lit::Bool(v)) => BooleanArray::from(vec![*v; batch.num_rows()]),
            eval::Val::Lit(lit::Lit::Null) => BooleanArray::new_null(batch.num_rows()),
            eval::Val::Lit(l) => return Err(err(format!("{l} is not a boolean condition"))),
        };
        Ok(BooleanArray::new(eval::true_rows(&b), None))
    }

    /// The expression's value on each row of `batch` (a computed output column): a column,
    /// a literal repeated, a computed value, or a condition as a boolean (TRUE, FALSE or
    /// NULL). As for [`Predicate::evaluate`], a `CASE` or a `coalesce` keeps a failing value
    /// away from the rows that do not take it.
    pub fn evaluate_value(&self, batch: &RecordBatch) -> Result<arrow::array::ArrayRef> {
        let err = |reason: String| Error::Expr {
            context: format!("{} {}", self.context, quoted(&self.text)),
            reason,
        };
        let n = batch.num_rows();
        let v = match eval::evaluate(&self.tree, &self.sets, batch) {
            Ok(v) => v,
            Err(eager) if n == 0 => return Err(err(eager)),
            Err(eager) => match lazy::value(&self.tree, &self.sets, batch) {
                Ok(Some(v)) => v,
                Ok(None) => return Err(err(eager)),
                Err(e) => match eval::evaluate(&self.tree, &self.sets, &batch.slice(0, 0)) {
                    Ok(_) => return Err(err(e)),
                    Err(typed) => return Err(err(typed)),
                },
            },
        };
        let a = match eval::operand(v).map_err(err)? {
            arith::Operand::Rows(a) => a,
            arith::Operand::One(one) => crate::plan::hive::repeat(&one, n)?,
            arith::Operand::Null => {
                arrow::array::new_null_array(&arrow::datatypes::DataType::Null, n)
            }
            arith::Operand::Interval(_) => {
                return Err(err(format!(
                    "{} is an interval, which is no column value: add it to a date or a timestamp",
                    self.describe_root()
                )))
            }
        };
        // A CAST's target type is the column's; other exact numbers are narrowed.
        if matches!(
            &self.tree.nodes[self.tree.root()],
            parse::Node::Func(func::Func::Cast(..), _)
        ) {
            return Ok(a);
        }
        let to = output_type(a.data_type());
        if &to == a.data_type() {
            return Ok(a);
        }
        let options = arrow::compute::CastOptions {
            safe: false,
            ..Default::default()
        };
        arrow::compute::cast_with_options(&a, &to, &options).map_err(|_| {
            err(format!(
                "a value is out of the range of {} (CAST the expression to the type to write)",
                match to {
                    arrow::datatypes::DataType::Int64 => "BIGINT".to_string(),
                    arrow::datatypes::DataType::Decimal128(p, s) => format!("DECIMAL({p},{s})"),
                    other => format!("{other}"),
                }
            ))
        })
    }

    /// The rows of `batch` that pass, evaluated lazily (see `lazy`) since evaluating every
    /// part on every row failed with `eager`. When the condition fails on no rows too, that
    /// error (a type error) is the one reported.
    fn evaluate_lazily(
        &self,
        batch: &RecordBatch,
        eager: eval::Reason,
    ) -> std::result::Result<BooleanArray, eval::Reason> {
        if batch.num_rows() == 0 {
            return Err(eager);
        }
        match lazy::select(&self.tree, &self.sets, batch) {
            Ok(Some(rows)) => Ok(BooleanArray::new(rows, None)),
            Ok(None) => Err(eager),
            Err(e) => match eval::evaluate(&self.tree, &self.sets, &batch.slice(0, 0)) {
                Ok(_) => Err(e),
                Err(typed) => Err(typed),
            },
        }
    }

    /// [`Predicate::evaluate`] through the lazy evaluator alone (for tests).
    #[cfg(test)]
    pub(crate) fn evaluate_lazily_only(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        lazy::select(&self.tree, &self.sets, batch)
            .map(|rows| BooleanArray::new(rows.expect("not too deep"), None))
            .map_err(|reason| Error::Expr {
                context: self.text.clone(),
                reason,
            })
    }

    fn describe_root(&self) -> String {
        match &self.tree.nodes[self.tree.root()] {
            parse::Node::Column(c) => format!("column {c:?}"),
            parse::Node::Func(f, _) => f.shown(),
            _ => "the expression".into(),
        }
    }
}

#[cfg(test)]
mod tests;
