//! `--join-where`: a condition over both sides' columns that a left and a right row with
//! matching keys must also meet to match, as SQL's `ON l.k = r.k AND <condition>`.
//!
//! The keys still drive the join: the table finds the left rows whose key matches a right
//! row's, and the condition is evaluated on those candidate pairs, in bulk (the pairs' columns
//! taken into one batch, the `--where` evaluator run over it). A pair the condition does not
//! hold for (false or null) is no match: for the outer, semi and anti joins it is as if the
//! keys differed, so a row whose every pair fails is unmatched. The prefilters stay exact: a
//! right row whose key is on no left row has no candidate pair, whatever the condition.
//!
//! The condition names columns `left.x` or `right.y`, or bare when exactly one side has the
//! column. Its columns are handed on with the sides' batches (read, shuffled, held in the
//! table) like the output columns.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::join::Side;

/// The option's name, in errors.
const OPTION: &str = "--join-where";

/// A column the condition reads, resolved to its side (see [`resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needed {
    /// The name as the condition writes it (`left.x`, `x`).
    pub name: String,
    /// The side that holds it.
    pub side: Side,
    /// The column's name on that side.
    pub column: String,
}

/// Resolve the columns `predicate` reads against the sides' columns (`left` and `right`, the
/// union of each side's files' columns): `left.x` and `right.y` name their side, a bare name
/// the one side that has it. A column neither side has, or a bare name both sides have, is
/// an error naming it.
pub(crate) fn resolve(predicate: &Predicate, left: &Schema, right: &Schema) -> Result<Vec<Needed>> {
    resolve_in(predicate, left, right, OPTION)
}

/// [`resolve`], its errors naming `option`.
pub(crate) fn resolve_in(
    predicate: &Predicate,
    left: &Schema,
    right: &Schema,
    option: &str,
) -> Result<Vec<Needed>> {
    let has = |s: &Schema, c: &str| s.field_with_name(c).is_ok();
    predicate
        .columns()
        .iter()
        .map(|name| {
            let qualified = [("left.", Side::Left, left), ("right.", Side::Right, right)]
                .into_iter()
                .find_map(|(p, side, s)| name.strip_prefix(p).map(|c| (side, s, c)));
            let (side, column) = match qualified {
                Some((side, schema, c)) => {
                    if !has(schema, c) {
                        let which = if side == Side::Left { "left" } else { "right" };
                        return Err(Error::param(
                            option,
                            format!("no {which} column {c:?} (in {name:?}){}", hint(c, schema)),
                        ));
                    }
                    (side, c)
                }
                None => match (has(left, name), has(right, name)) {
                    (true, false) => (Side::Left, name.as_str()),
                    (false, true) => (Side::Right, name.as_str()),
                    (true, true) => {
                        return Err(Error::param(
                            option,
                            format!(
                            "column {name:?} is on both sides: write left.{name} or right.{name}"
                        ),
                        ))
                    }
                    (false, false) => {
                        let h = crate::error::did_you_mean_in(
                            name,
                            left.fields()
                                .iter()
                                .chain(right.fields().iter())
                                .map(|f| f.name().as_str()),
                        );
                        return Err(Error::param(
                            option,
                            format!(
                                "no column {name:?} on either side{}",
                                h.map(|h| format!("; {h}")).unwrap_or_default()
                            ),
                        ));
                    }
                },
            };
            Ok(Needed {
                name: name.clone(),
                side,
                column: column.to_string(),
            })
        })
        .collect()
}

/// `--join-where` split for a join of type `join_type`: the conjuncts of its top-level `AND`
/// that read one side's columns alone, where that side's rows are not all kept (a row the
/// conjunct fails then has no passing pair, as if it were not there: SQL's predicate
/// pushdown into the non-preserved side of an `ON`), go to that side's where, its columns
/// renamed to the side's; the rest stay the condition on pairs.
#[derive(Debug)]
pub(crate) struct Split {
    /// What stays a condition on pairs (`None`: nothing).
    pub residual: Option<Predicate>,
    /// Conjuncts for the left side's where, over its columns.
    pub left: Vec<Predicate>,
    /// Conjuncts for the right side's where, over its columns.
    pub right: Vec<Predicate>,
}

/// The texts of the conjuncts a `Split` pushed into each side's where (for the summary,
/// the dry run and the report).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Pushed {
    /// Into the left side's.
    #[serde(rename = "pushed_to_left")]
    pub left: Vec<String>,
    /// Into the right side's.
    #[serde(rename = "pushed_to_right")]
    pub right: Vec<String>,
}

impl Pushed {
    /// The summary's and the dry run's lines: one per side that took conjuncts.
    pub(crate) fn lines(&self) -> String {
        let mut s = String::new();
        for (side, list) in [("left", &self.left), ("right", &self.right)] {
            if !list.is_empty() {
                let list: Vec<String> = list.iter().map(|p| format!("{p:?}")).collect();
                s += &format!(
                    "  on     {} (--join-where, on {side} columns alone) into the {side} side's where: a {side} row it fails can match nothing\n",
                    list.join(", ")
                );
            }
        }
        s
    }
}

impl Split {
    /// Split `predicate` (see [`Split`]) against the sides' columns `left` and `right`.
    pub(crate) fn new(
        predicate: &Predicate,
        join_type: crate::join::JoinType,
        left: &Schema,
        right: &Schema,
    ) -> Result<Split> {
        let mut split = Split {
            residual: None,
            left: Vec::new(),
            right: Vec::new(),
        };
        let mut rest: Vec<Predicate> = Vec::new();
        let conjuncts = predicate.split_and();
        let total = conjuncts.len();
        for c in conjuncts {
            let needed = resolve(&c, left, right)?;
            let one_side = needed
                .first()
                .map(|n| n.side)
                .filter(|s| needed.iter().all(|n| n.side == *s));
            let pushed = match one_side {
                Some(Side::Left) if !join_type.keeps_left() => Some(&mut split.left),
                Some(Side::Right) if !join_type.keeps_right() => Some(&mut split.right),
                _ => None,
            };
            match pushed {
                Some(to) => {
                    let p = c.renamed(|name| {
                        needed
                            .iter()
                            .find(|n| n.name == name)
                            .map_or_else(|| name.to_string(), |n| n.column.clone())
                    });
                    // Checked on its own, so that an error names it and not the side's
                    // where it joins.
                    let (schema, side) = match one_side {
                        Some(Side::Left) => (left, "the left side"),
                        _ => (right, "the right side"),
                    };
                    p.check(schema, side)?;
                    to.push(p)
                }
                None => rest.push(c),
            }
        }
        split.residual = match rest.len() {
            0 => None,
            // All of it: the condition as written.
            n if n == total => Some(predicate.clone()),
            _ => rest.into_iter().reduce(|a, b| a.and(&b)),
        };
        Ok(split)
    }
}

fn hint(column: &str, schema: &Schema) -> String {
    crate::error::did_you_mean(column, schema)
        .map(|h| format!("; {h}"))
        .unwrap_or_default()
}

/// The `needed` columns (of `option`) located in the sides' batches (of schemas `left` and
/// `right`): each one's side and index, and the schema of a batch of them under their names.
fn locate(
    needed: &[Needed],
    left: &Schema,
    right: &Schema,
    option: &str,
) -> Result<(Vec<(Side, usize)>, SchemaRef)> {
    let mut columns = Vec::with_capacity(needed.len());
    let mut fields = Vec::with_capacity(needed.len());
    for n in needed {
        let schema = match n.side {
            Side::Left => left,
            Side::Right => right,
        };
        let index = schema
            .index_of(&n.column)
            .map_err(|_| Error::Internal(format!("{option} column {:?} not handed on", n.name)))?;
        columns.push((n.side, index));
        fields.push(crate::read::logical::annotate(
            Field::new(&n.name, schema.field(index).data_type().clone(), true),
            crate::read::logical::annotation(schema.field(index)),
        ));
    }
    Ok((columns, Arc::new(Schema::new(fields))))
}

/// The batch of `schema` holding `columns` (see [`locate`]) of the rows `li` of `left`, each
/// with row `ri` of `right` (`None`: rows without a right side, whose right columns are NULL).
fn rows_batch(
    columns: &[(Side, usize)],
    schema: &SchemaRef,
    left: &RecordBatch,
    li: &UInt32Array,
    right: Option<(&RecordBatch, &UInt32Array)>,
) -> std::result::Result<RecordBatch, arrow::error::ArrowError> {
    let arrays = columns
        .iter()
        .zip(schema.fields())
        .map(|(&(side, index), f)| match (side, right) {
            (Side::Left, _) => take(left.column(index).as_ref(), li, None),
            (Side::Right, Some((rb, ri))) => take(rb.column(index).as_ref(), ri, None),
            (Side::Right, None) => Ok(arrow::array::new_null_array(f.data_type(), li.len())),
        })
        .collect::<std::result::Result<Vec<ArrayRef>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(li.len()));
    RecordBatch::try_new_with_options(schema.clone(), arrays, &options)
}

/// The condition, its columns located in the sides' batches.
#[derive(Debug)]
pub(crate) struct JoinCondition {
    predicate: Predicate,
    /// Each column the condition reads: its side and index in that side's batches.
    columns: Vec<(Side, usize)>,
    /// The batch the condition is evaluated on: its columns under the condition's names.
    schema: SchemaRef,
}

impl JoinCondition {
    /// The condition over the sides' batches (of schemas `left` and `right`, which hand on
    /// every column of `needed`); checks that every operation is well typed.
    pub(crate) fn new(
        predicate: Predicate,
        needed: &[Needed],
        left: &Schema,
        right: &Schema,
    ) -> Result<Self> {
        let (columns, schema) = locate(needed, left, right, OPTION)?;
        predicate.check_logical(&schema)?;
        // Types are checked on no rows: a comparison of a string with a number fails here.
        predicate.evaluate(&RecordBatch::new_empty(schema.clone()))?;
        Ok(JoinCondition {
            predicate,
            columns,
            schema,
        })
    }

    /// The condition as written.
    pub(crate) fn text(&self) -> &str {
        self.predicate.text()
    }

    /// Whether each pair (left row `li[k]` of `left`, right row `ri[k]` of `right`) meets
    /// the condition (a null is false).
    pub(crate) fn evaluate(
        &self,
        left: &RecordBatch,
        li: &UInt32Array,
        right: &RecordBatch,
        ri: &UInt32Array,
    ) -> Result<BooleanArray> {
        let batch = rows_batch(&self.columns, &self.schema, left, li, Some((right, ri)))
            .map_err(|e| Error::arrow("the --join-where columns of the candidate pairs", e))?;
        self.predicate.evaluate(&batch)
    }
}

/// A computed output column (`--select "price * qty AS total"`): its expression, its
/// columns located in the sides' batches, and its type.
#[derive(Debug)]
pub(crate) struct Computed {
    predicate: Predicate,
    /// Each column the expression reads: its side and index in that side's batches.
    columns: Vec<(Side, usize)>,
    /// The batch the expression is evaluated on: its columns under the expression's names.
    schema: SchemaRef,
    /// The column's type.
    data_type: DataType,
}

impl Computed {
    /// The expression over the sides' batches (of schemas `left` and `right`, which hand on
    /// every column of `needed`); its type is found on no rows, so a type error fails here.
    pub(crate) fn new(
        predicate: Predicate,
        needed: &[Needed],
        left: &Schema,
        right: &Schema,
    ) -> Result<Self> {
        let (columns, schema) = locate(needed, left, right, "--select")?;
        predicate.check_logical(&schema)?;
        let data_type = predicate
            .evaluate_value(&RecordBatch::new_empty(schema.clone()))?
            .data_type()
            .clone();
        if data_type == DataType::Null {
            return Err(Error::param(
                "--select",
                format!(
                    "{:?} is always NULL, which has no type to write: CAST it (CAST(NULL AS INTEGER))",
                    predicate.text()
                ),
            ));
        }
        Ok(Computed {
            predicate,
            columns,
            schema,
            data_type,
        })
    }

    /// The column's type.
    pub(crate) fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// What the column's values are where its type does not say (a `CAST(.. AS UUID)`'s
    /// 16 bytes are a UUID), for the output's Parquet type.
    pub(crate) fn annotation(&self) -> Option<crate::read::logical::Annotation> {
        self.predicate.value_annotation()
    }

    /// The values of the rows `li` of `left`, each with row `ri` of `right` (`None`: rows
    /// without a right side, whose right columns are NULL).
    pub(crate) fn evaluate(
        &self,
        left: &RecordBatch,
        li: &UInt32Array,
        right: Option<(&RecordBatch, &UInt32Array)>,
    ) -> Result<ArrayRef> {
        let batch = rows_batch(&self.columns, &self.schema, left, li, right)
            .map_err(|e| Error::arrow("the --select columns of the output rows", e))?;
        self.value(&batch)
    }

    /// The expression over one side's batches, of `schema` (the `filter` job's computed
    /// columns): it reads their columns by name.
    pub(crate) fn on(predicate: Predicate, schema: &Schema) -> Result<Self> {
        let needed: Vec<Needed> = predicate
            .columns()
            .iter()
            .map(|c| Needed {
                name: c.clone(),
                side: Side::Left,
                column: c.clone(),
            })
            .collect();
        Self::new(predicate, &needed, schema, &Schema::empty())
    }

    /// The values of every row of `batch` (of the schema [`Computed::on`] was given).
    pub(crate) fn evaluate_batch(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        let columns = self
            .columns
            .iter()
            .map(|&(_, i)| Arc::clone(batch.column(i)))
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        let batch = RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
            .map_err(|e| Error::arrow("the --select columns of the output rows", e))?;
        self.value(&batch)
    }

    /// The expression's values over `batch` (of its columns), as the column's type.
    fn value(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        let v = self.predicate.evaluate_value(batch)?;
        if v.data_type() == &self.data_type {
            return Ok(v);
        }
        // Not `safe`: a value the column's type cannot hold is an error, never a NULL.
        let options = arrow::compute::CastOptions {
            safe: false,
            ..Default::default()
        };
        arrow::compute::cast_with_options(&v, &self.data_type, &options)
            .map_err(|e| Error::arrow("a computed --select column", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int32Array, Int64Array, StringArray};
    use arrow::datatypes::DataType;

    fn schema(cols: &[(&str, DataType)]) -> Schema {
        Schema::new(
            cols.iter()
                .map(|(n, t)| Field::new(*n, t.clone(), true))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn names_resolve_to_their_side_or_are_refused() {
        let l = schema(&[("k", DataType::Int64), ("lo", DataType::Int32)]);
        let r = schema(&[("k", DataType::Int64), ("v", DataType::Int64)]);
        let p = Predicate::parse("v >= lo AND left.k = right.k", OPTION).unwrap();
        let got = resolve(&p, &l, &r).unwrap();
        let sides: Vec<_> = got
            .iter()
            .map(|n| (n.name.as_str(), n.side, n.column.as_str()))
            .collect();
        assert_eq!(
            sides,
            vec![
                ("v", Side::Right, "v"),
                ("lo", Side::Left, "lo"),
                ("left.k", Side::Left, "k"),
                ("right.k", Side::Right, "k"),
            ]
        );
        let err = |text: &str| {
            resolve(&Predicate::parse(text, OPTION).unwrap(), &l, &r)
                .unwrap_err()
                .to_string()
        };
        let e = err("k > 1");
        assert!(
            e.contains("--join-where") && e.contains("both sides") && e.contains("left.k"),
            "{e}"
        );
        let e = err("left.v > 1");
        assert!(e.contains("no left column \"v\""), "{e}");
        let e = err("vv > 1");
        assert!(e.contains("no column \"vv\" on either side"), "{e}");
    }

    #[test]
    fn pairs_pass_only_where_the_condition_is_true() {
        let l = schema(&[("k", DataType::Int64), ("lo", DataType::Int32)]);
        let r = schema(&[
            ("k", DataType::Int64),
            ("v", DataType::Int64),
            ("s", DataType::Utf8),
        ]);
        let p = Predicate::parse("right.v >= left.lo", OPTION).unwrap();
        let needed = resolve(&p, &l, &r).unwrap();
        let c = JoinCondition::new(p, &needed, &l, &r).unwrap();
        let lb = RecordBatch::try_new(
            Arc::new(l.clone()),
            vec![
                Arc::new(Int64Array::from(vec![1, 1])),
                Arc::new(Int32Array::from(vec![Some(5), None])),
            ],
        )
        .unwrap();
        let rb = RecordBatch::try_new(
            Arc::new(r.clone()),
            vec![
                Arc::new(Int64Array::from(vec![1, 1])),
                Arc::new(Int64Array::from(vec![4, 5])),
                Arc::new(StringArray::from(vec!["a", "b"])),
            ],
        )
        .unwrap();
        let li = UInt32Array::from(vec![0, 0, 1, 1]);
        let ri = UInt32Array::from(vec![0, 1, 0, 1]);
        let got = c.evaluate(&lb, &li, &rb, &ri).unwrap();
        assert_eq!(got.null_count(), 0);
        // 4 >= 5, 5 >= 5, and a null `lo` fails both.
        assert_eq!(
            got.iter().collect::<Vec<_>>(),
            vec![Some(false), Some(true), Some(false), Some(false)]
        );
        // A string meets a number: refused when the condition is built, before any row.
        let p = Predicate::parse("right.s < left.lo", OPTION).unwrap();
        let needed = resolve(&p, &l, &r).unwrap();
        let e = JoinCondition::new(p, &needed, &l, &r)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--join-where"), "{e}");
    }

    #[test]
    fn one_sided_conjuncts_go_to_the_side_that_keeps_no_unmatched_row() {
        use crate::join::JoinType;
        let l = schema(&[("k", DataType::Int64), ("lo", DataType::Int32)]);
        let r = schema(&[
            ("k", DataType::Int64),
            ("v", DataType::Int64),
            ("s", DataType::Utf8),
        ]);
        let p = Predicate::parse(
            "(v >= left.lo) AND right.s LIKE 'a%' AND (lo < 5 OR lo IS NULL) AND TRUE",
            OPTION,
        )
        .unwrap();
        let texts = |v: &[Predicate]| v.iter().map(|p| p.text().to_string()).collect::<Vec<_>>();
        let split = |jt| Split::new(&p, jt, &l, &r).unwrap();
        // Inner: both one-sided conjuncts pushed, renamed to the sides' columns.
        let s = split(JoinType::Inner);
        assert_eq!(texts(&s.right), ["right.s LIKE 'a%'"]);
        assert_eq!(s.right[0].columns(), ["s"]);
        assert_eq!(texts(&s.left), ["lo < 5 OR lo IS NULL"]);
        assert_eq!(s.left[0].columns(), ["lo"]);
        let residual = s.residual.unwrap();
        assert_eq!(residual.text(), "(v >= left.lo) AND (true)");
        assert_eq!(residual.columns(), ["v", "left.lo"]);
        // A left join keeps every left row: the left conjunct stays on the pairs.
        let s = split(JoinType::Left);
        assert_eq!(texts(&s.right), ["right.s LIKE 'a%'"]);
        assert!(s.left.is_empty());
        assert_eq!(s.residual.unwrap().columns(), ["v", "left.lo", "lo"]);
        // A full join keeps both: nothing moves, the condition stays as written.
        let s = split(JoinType::Full);
        assert!(s.left.is_empty() && s.right.is_empty());
        assert_eq!(s.residual.unwrap().text(), p.text());
        // Right-anti keeps every right row, not every left one.
        let s = split(JoinType::RightAnti);
        assert!(s.right.is_empty());
        assert_eq!(texts(&s.left), ["lo < 5 OR lo IS NULL"]);
        // Everything pushed: no condition on pairs is left.
        let q = Predicate::parse("right.v > 1 AND left.lo < 2", OPTION).unwrap();
        let s = Split::new(&q, JoinType::Inner, &l, &r).unwrap();
        assert!(s.residual.is_none());
        assert_eq!((s.left.len(), s.right.len()), (1, 1));
    }

    #[test]
    fn and_of_two_predicates_holds_where_both_do() {
        let schema = Arc::new(schema(&[("a", DataType::Int64), ("b", DataType::Int64)]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![Some(1), Some(2), Some(3), None])),
                Arc::new(Int64Array::from(vec![Some(9), Some(1), Some(9), Some(9)])),
            ],
        )
        .unwrap();
        let a = Predicate::parse("a IN (1, 3) OR a IS NULL", "--left-where").unwrap();
        let b = Predicate::parse("x > 5", OPTION).unwrap().renamed(|c| {
            if c == "x" {
                "b".into()
            } else {
                c.into()
            }
        });
        let both = a.and(&b);
        assert_eq!(both.text(), "(a IN (1, 3) OR a IS NULL) AND (x > 5)");
        assert_eq!(both.columns(), ["a", "b"]);
        let got: Vec<bool> = both.evaluate(&batch).unwrap().values().iter().collect();
        assert_eq!(got, [true, false, true, true]);
    }
}
