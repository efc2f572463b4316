//! `--where` predicates: a SQL boolean expression over columns, parsed with `sqlparser` and
//! evaluated on Arrow record batches with Arrow compute kernels.
//!
//! Supported: `= <> != < <= > >=`, `AND`, `OR`, `NOT`, `IN (...)`, `BETWEEN`, `LIKE`/`ILIKE`
//! (with `NOT`), `IS [NOT] NULL`, parentheses, numeric, string, boolean, `NULL` and
//! `DATE 'YYYY-MM-DD'` literals, and bare boolean columns. SQL's three-valued logic applies
//! inside the expression; a row passes only when the whole expression is true (null counts
//! as false).
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
//! ```

use std::fmt;
use std::sync::Arc;

use arrow::array::{
    new_null_array, Array, ArrayRef, BooleanArray, Date32Array, Datum, Float64Array, Int64Array,
    RecordBatch, Scalar, StringArray,
};
use arrow::compute::kernels::cmp;
use arrow::compute::kernels::comparison::{ilike, like, nilike, nlike};
use arrow::compute::{and_kleene, cast, is_not_null, is_null, not, or_kleene};
use arrow::datatypes::{DataType, Schema};
use sqlparser::ast::{self, BinaryOperator, UnaryOperator, Value};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use crate::error::{Error, Result};

/// Parse `YYYY-MM-DD` into days since the Unix epoch.
pub fn parse_date(s: &str) -> Result<i32> {
    use arrow::compute::kernels::cast_utils::Parser as _;
    arrow::datatypes::Date32Type::parse(s)
        .ok_or_else(|| Error::Usage(format!("{s:?} is not a date (expected YYYY-MM-DD)")))
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    /// An integer.
    Int(i64),
    /// A number with a fraction or exponent (kept as typed for exactness).
    Float(f64),
    /// A string.
    Str(String),
    /// A `DATE 'YYYY-MM-DD'`, as days since the epoch.
    Date(i32),
    /// `TRUE` or `FALSE`.
    Bool(bool),
    /// `NULL`.
    Null,
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Int(v) => write!(f, "{v}"),
            Lit::Float(v) => write!(f, "{v}"),
            Lit::Str(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Lit::Date(d) => write!(f, "DATE {d}"),
            Lit::Bool(b) => write!(f, "{}", if *b { "TRUE" } else { "FALSE" }),
            Lit::Null => f.write_str("NULL"),
        }
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtEq,
    /// `>`
    Gt,
    /// `>=`
    GtEq,
}

impl CmpOp {
    fn flip(self) -> Self {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            o => o,
        }
    }
}

/// A checked predicate tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A column reference.
    Column(String),
    /// A literal.
    Lit(Lit),
    /// `a op b`.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `a AND b`.
    And(Box<Expr>, Box<Expr>),
    /// `a OR b`.
    Or(Box<Expr>, Box<Expr>),
    /// `NOT a`.
    Not(Box<Expr>),
    /// `a [NOT] IN (lits)`.
    InList(Box<Expr>, Vec<Lit>, bool),
    /// `a [NOT] BETWEEN lo AND hi`.
    Between(Box<Expr>, Lit, Lit, bool),
    /// `a [NOT] [I]LIKE pattern` (negated, case-insensitive).
    Like(Box<Expr>, String, bool, bool),
    /// `a IS [NOT] NULL` (negated).
    IsNull(Box<Expr>, bool),
}

/// A parsed `--where` predicate.
#[derive(Debug, Clone)]
pub struct Predicate {
    expr: Expr,
    text: String,
    context: String,
    columns: Vec<String>,
}

impl Predicate {
    /// Parse `text`; `context` (the option, e.g. `--left-where`) prefixes error messages.
    pub fn parse(text: &str, context: &str) -> Result<Predicate> {
        let err = |reason: String| Error::Expr {
            context: format!("{context} {text:?}"),
            reason,
        };
        let mut parser = Parser::new(&GenericDialect {})
            .try_with_sql(text)
            .map_err(|e| err(e.to_string()))?;
        let ast = parser.parse_expr().map_err(|e| err(e.to_string()))?;
        let rest = parser.peek_token();
        if rest.token != sqlparser::tokenizer::Token::EOF {
            return Err(err(format!(
                "unexpected {} after the expression",
                rest.token
            )));
        }
        let expr = convert(&ast).map_err(err)?;
        let mut columns = Vec::new();
        collect_columns(&expr, &mut columns);
        Ok(Predicate {
            expr,
            text: text.to_string(),
            context: context.to_string(),
            columns,
        })
    }

    /// The expression as the user wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The columns the expression reads, in first-use order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The parsed tree.
    pub fn expr(&self) -> &Expr {
        &self.expr
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
                    .map_err(|_| Error::Column {
                        file: file.to_string(),
                        column: c.clone(),
                        reason: format!(
                            "no such column (used in {} {:?})",
                            self.context, self.text
                        ),
                    })
            })
            .collect::<Result<_>>()?;
        let empty = RecordBatch::new_empty(Arc::new(Schema::new(fields)));
        self.evaluate(&empty).map(|_| ()).map_err(|e| match e {
            Error::Expr { context, reason } => Error::Expr {
                context: format!("{file}: {context}"),
                reason,
            },
            other => other,
        })
    }

    /// Evaluate on a batch: true where the row passes, false where it does not (SQL nulls
    /// become false).
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let v = self.eval(&self.expr, batch)?;
        let b = as_bool(&v, &self.expr).map_err(|r| self.err(r))?;
        Ok(match b.nulls() {
            Some(_) => arrow::compute::prep_null_mask_filter(&b),
            None => b,
        })
    }

    fn err(&self, reason: String) -> Error {
        Error::Expr {
            context: format!("{} {:?}", self.context, self.text),
            reason,
        }
    }

    fn column(&self, name: &str, batch: &RecordBatch) -> Result<ArrayRef> {
        let col = batch
            .column_by_name(name)
            .ok_or_else(|| self.err(format!("no column {name:?}")))?;
        // Compare dictionaries through their values.
        if let DataType::Dictionary(_, v) = col.data_type() {
            return cast(col, v).map_err(|e| Error::arrow(format!("decoding column {name}"), e));
        }
        Ok(col.clone())
    }

    fn eval(&self, e: &Expr, batch: &RecordBatch) -> Result<ArrayRef> {
        let bool_of = |x: &Expr| -> Result<BooleanArray> {
            let v = self.eval(x, batch)?;
            as_bool(&v, x).map_err(|r| self.err(r))
        };
        let ak = |r: std::result::Result<BooleanArray, arrow::error::ArrowError>| {
            r.map(|b| Arc::new(b) as ArrayRef)
                .map_err(|e| Error::arrow(format!("evaluating {}", self.text), e))
        };
        match e {
            Expr::Column(c) => self.column(c, batch),
            Expr::Lit(l) => Ok(lit_array(l, batch.num_rows())),
            Expr::And(a, b) => ak(and_kleene(&bool_of(a)?, &bool_of(b)?)),
            Expr::Or(a, b) => ak(or_kleene(&bool_of(a)?, &bool_of(b)?)),
            Expr::Not(a) => ak(not(&bool_of(a)?)),
            Expr::IsNull(a, negated) => {
                let v = self.eval(a, batch)?;
                ak(if *negated {
                    is_not_null(&v)
                } else {
                    is_null(&v)
                })
            }
            Expr::Cmp(op, a, b) => self.compare(*op, a, b, batch),
            Expr::InList(a, list, negated) => {
                let mut acc: Option<BooleanArray> = None;
                for l in list {
                    let one = self.compare(CmpOp::Eq, a, &Expr::Lit(l.clone()), batch)?;
                    let one = one
                        .as_any()
                        .downcast_ref::<BooleanArray>()
                        .cloned()
                        .expect("bool");
                    acc = Some(match acc {
                        None => one,
                        Some(x) => or_kleene(&x, &one)
                            .map_err(|e| Error::arrow(format!("evaluating {}", self.text), e))?,
                    });
                }
                let acc = acc.ok_or_else(|| self.err("IN () needs at least one value".into()))?;
                ak(if *negated { not(&acc) } else { Ok(acc) })
            }
            Expr::Between(a, lo, hi, negated) => {
                let ge = self.compare(CmpOp::GtEq, a, &Expr::Lit(lo.clone()), batch)?;
                let le = self.compare(CmpOp::LtEq, a, &Expr::Lit(hi.clone()), batch)?;
                let (ge, le) = (
                    ge.as_any().downcast_ref::<BooleanArray>(),
                    le.as_any().downcast_ref::<BooleanArray>(),
                );
                let both = and_kleene(ge.expect("bool"), le.expect("bool"))
                    .map_err(|e| Error::arrow(format!("evaluating {}", self.text), e))?;
                ak(if *negated { not(&both) } else { Ok(both) })
            }
            Expr::Like(a, pattern, negated, ci) => {
                let v = self.eval(a, batch)?;
                let v = match v.data_type() {
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => v,
                    DataType::Null => return Ok(new_null_array(&DataType::Boolean, v.len())),
                    other => {
                        return Err(
                            self.err(format!("LIKE needs a string, {} is {other}", describe(a)))
                        )
                    }
                };
                let pat = cast(
                    &(Arc::new(StringArray::from(vec![pattern.as_str()])) as ArrayRef),
                    v.data_type(),
                )
                .map_err(|e| Error::arrow("LIKE pattern", e))?;
                let pat = Scalar::new(pat);
                ak(match (negated, ci) {
                    (false, false) => like(&v, &pat),
                    (true, false) => nlike(&v, &pat),
                    (false, true) => ilike(&v, &pat),
                    (true, true) => nilike(&v, &pat),
                })
            }
        }
    }

    /// Compare two operands, coercing a literal to the column's type.
    fn compare(&self, op: CmpOp, a: &Expr, b: &Expr, batch: &RecordBatch) -> Result<ArrayRef> {
        // Put a literal on the right.
        if matches!(a, Expr::Lit(_)) && !matches!(b, Expr::Lit(_)) {
            return self.compare(op.flip(), b, a, batch);
        }
        let left = self.eval(a, batch)?;
        let (l, r): (ArrayRef, Box<dyn Datum>) = match b {
            Expr::Lit(Lit::Null) => {
                return Ok(new_null_array(&DataType::Boolean, batch.num_rows()))
            }
            Expr::Lit(lit) => {
                let (l, r) = self.coerce_lit(left, lit, a)?;
                (l, Box::new(Scalar::new(r)))
            }
            _ => {
                let right = self.eval(b, batch)?;
                let (l, r) = self.coerce_pair(left, right, a, b)?;
                (l, Box::new(r))
            }
        };
        let res = match op {
            CmpOp::Eq => cmp::eq(&l, r.as_ref()),
            CmpOp::NotEq => cmp::neq(&l, r.as_ref()),
            CmpOp::Lt => cmp::lt(&l, r.as_ref()),
            CmpOp::LtEq => cmp::lt_eq(&l, r.as_ref()),
            CmpOp::Gt => cmp::gt(&l, r.as_ref()),
            CmpOp::GtEq => cmp::gt_eq(&l, r.as_ref()),
        };
        res.map(|b| Arc::new(b) as ArrayRef)
            .map_err(|e| Error::arrow(format!("evaluating {}", self.text), e))
    }

    fn cast_err(&self, what: &str, e: arrow::error::ArrowError) -> Error {
        Error::arrow(format!("{} {:?}: {what}", self.context, self.text), e)
    }

    /// Bring a column and a literal to one type; the literal becomes a 1-row array.
    fn coerce_lit(
        &self,
        col: ArrayRef,
        lit: &Lit,
        col_expr: &Expr,
    ) -> Result<(ArrayRef, ArrayRef)> {
        let dt = col.data_type().clone();
        let mismatch = || {
            self.err(format!(
                "cannot compare {} of type {dt} with {lit}",
                describe(col_expr)
            ))
        };
        let to_f64 = |a: &ArrayRef| {
            cast(a, &DataType::Float64).map_err(|e| self.cast_err("cast to Float64", e))
        };
        match (lit, &dt) {
            (Lit::Int(v), t) if t.is_integer() => {
                // Compare in the column's type when the literal fits, else widen the column.
                let one: ArrayRef = Arc::new(Int64Array::from(vec![*v]));
                let opts = arrow::compute::CastOptions {
                    safe: true,
                    ..Default::default()
                };
                let narrowed = arrow::compute::cast_with_options(&one, t, &opts)
                    .map_err(|e| self.cast_err("cast literal", e))?;
                if narrowed.is_valid(0) {
                    Ok((col, narrowed))
                } else {
                    let wide = cast(&col, &DataType::Int64)
                        .map_err(|e| self.cast_err("cast to Int64", e))?;
                    Ok((wide, one))
                }
            }
            (Lit::Int(_) | Lit::Float(_), t) if t.is_numeric() => {
                let v = match lit {
                    Lit::Int(i) => *i as f64,
                    Lit::Float(f) => *f,
                    _ => unreachable!(),
                };
                let col = if *t == DataType::Float64 {
                    col
                } else {
                    to_f64(&col)?
                };
                Ok((col, Arc::new(Float64Array::from(vec![v]))))
            }
            (Lit::Str(s), t) if is_string(t) => {
                let one: ArrayRef = Arc::new(StringArray::from(vec![s.as_str()]));
                let one = cast(&one, t).map_err(|e| self.cast_err("cast literal", e))?;
                Ok((col, one))
            }
            (Lit::Date(_) | Lit::Str(_), t) if t.is_temporal() => {
                let days = match lit {
                    Lit::Date(d) => *d,
                    Lit::Str(s) => parse_date(s).map_err(|_| mismatch())?,
                    _ => unreachable!(),
                };
                let one: ArrayRef = Arc::new(Date32Array::from(vec![days]));
                let one = cast(&one, t).map_err(|e| self.cast_err("cast DATE literal", e))?;
                Ok((col, one))
            }
            (Lit::Bool(b), DataType::Boolean) => Ok((col, Arc::new(BooleanArray::from(vec![*b])))),
            (_, DataType::Null) => Ok((col.clone(), new_null_array(&DataType::Null, 1))),
            _ => Err(mismatch()),
        }
    }

    /// Bring two column operands to one type.
    fn coerce_pair(
        &self,
        l: ArrayRef,
        r: ArrayRef,
        a: &Expr,
        b: &Expr,
    ) -> Result<(ArrayRef, ArrayRef)> {
        let (lt, rt) = (l.data_type().clone(), r.data_type().clone());
        if lt == rt {
            return Ok((l, r));
        }
        let target = if lt.is_integer() && rt.is_integer() {
            DataType::Int64
        } else if lt.is_numeric() && rt.is_numeric() {
            DataType::Float64
        } else if is_string(&lt) && is_string(&rt) {
            DataType::Utf8
        } else if lt.is_temporal() && rt.is_temporal() {
            lt.clone()
        } else {
            return Err(self.err(format!(
                "cannot compare {} of type {lt} with {} of type {rt}",
                describe(a),
                describe(b)
            )));
        };
        let c = |x: &ArrayRef| cast(x, &target).map_err(|e| self.cast_err("coerce operands", e));
        Ok((c(&l)?, c(&r)?))
    }
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn describe(e: &Expr) -> String {
    match e {
        Expr::Column(c) => format!("column {c:?}"),
        Expr::Lit(l) => format!("literal {l}"),
        _ => "the expression".into(),
    }
}

fn as_bool(v: &ArrayRef, e: &Expr) -> std::result::Result<BooleanArray, String> {
    match v.data_type() {
        DataType::Boolean => Ok(v
            .as_any()
            .downcast_ref::<BooleanArray>()
            .expect("bool")
            .clone()),
        DataType::Null => Ok(BooleanArray::new_null(v.len())),
        other => Err(format!(
            "{} is {other}, not a boolean condition",
            describe(e)
        )),
    }
}

fn lit_array(l: &Lit, n: usize) -> ArrayRef {
    match l {
        Lit::Bool(b) => Arc::new(BooleanArray::from(vec![*b; n])),
        Lit::Int(v) => Arc::new(Int64Array::from(vec![*v; n])),
        Lit::Float(v) => Arc::new(Float64Array::from(vec![*v; n])),
        Lit::Str(s) => Arc::new(StringArray::from(vec![s.as_str(); n])),
        Lit::Date(d) => Arc::new(Date32Array::from(vec![*d; n])),
        Lit::Null => new_null_array(&DataType::Null, n),
    }
}

fn collect_columns(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Column(c) => {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        Expr::Lit(_) => {}
        Expr::Cmp(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            collect_columns(a, out);
            collect_columns(b, out);
        }
        Expr::Not(a)
        | Expr::InList(a, _, _)
        | Expr::Between(a, _, _, _)
        | Expr::Like(a, _, _, _)
        | Expr::IsNull(a, _) => collect_columns(a, out),
    }
}

fn literal(e: &ast::Expr) -> std::result::Result<Lit, String> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            Value::Number(s, _) => {
                let s = s.to_string();
                if let Ok(i) = s.parse::<i64>() {
                    Ok(Lit::Int(i))
                } else {
                    s.parse::<f64>()
                        .map(Lit::Float)
                        .map_err(|_| format!("bad number {s}"))
                }
            }
            Value::SingleQuotedString(s) => Ok(Lit::Str(s.clone())),
            Value::Boolean(b) => Ok(Lit::Bool(*b)),
            Value::Null => Ok(Lit::Null),
            other => Err(format!("unsupported literal {other}")),
        },
        ast::Expr::TypedString(ts) if matches!(ts.data_type, ast::DataType::Date) => {
            let s = match &ts.value.value {
                Value::SingleQuotedString(s) => s.clone(),
                other => return Err(format!("bad DATE literal {other}")),
            };
            parse_date(&s).map(Lit::Date).map_err(|e| e.to_string())
        }
        ast::Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Lit::Int(i) => Ok(Lit::Int(-i)),
            Lit::Float(f) => Ok(Lit::Float(-f)),
            other => Err(format!("cannot negate {other}")),
        },
        ast::Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => literal(expr),
        ast::Expr::Nested(e) => literal(e),
        other => Err(format!("expected a literal, found {other}")),
    }
}

fn convert(e: &ast::Expr) -> std::result::Result<Expr, String> {
    use ast::Expr as A;
    let b = |x: &ast::Expr| convert(x).map(Box::new);
    Ok(match e {
        A::Identifier(id) => Expr::Column(id.value.clone()),
        A::CompoundIdentifier(ids) => Expr::Column(
            ids.iter()
                .map(|i| i.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        A::Nested(x) => convert(x)?,
        A::Value(_) | A::TypedString(_) => Expr::Lit(literal(e)?),
        A::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => Expr::Not(b(expr)?),
        A::UnaryOp { .. } => Expr::Lit(literal(e)?),
        A::BinaryOp { left, op, right } => {
            let cmp = |o| Ok::<_, String>(Expr::Cmp(o, b(left)?, b(right)?));
            match op {
                BinaryOperator::And => Expr::And(b(left)?, b(right)?),
                BinaryOperator::Or => Expr::Or(b(left)?, b(right)?),
                BinaryOperator::Eq => cmp(CmpOp::Eq)?,
                BinaryOperator::NotEq => cmp(CmpOp::NotEq)?,
                BinaryOperator::Lt => cmp(CmpOp::Lt)?,
                BinaryOperator::LtEq => cmp(CmpOp::LtEq)?,
                BinaryOperator::Gt => cmp(CmpOp::Gt)?,
                BinaryOperator::GtEq => cmp(CmpOp::GtEq)?,
                other => return Err(format!("unsupported operator {other}")),
            }
        }
        A::IsNull(x) => Expr::IsNull(b(x)?, false),
        A::IsNotNull(x) => Expr::IsNull(b(x)?, true),
        A::InList {
            expr,
            list,
            negated,
        } => Expr::InList(
            b(expr)?,
            list.iter()
                .map(literal)
                .collect::<std::result::Result<_, _>>()?,
            *negated,
        ),
        A::Between {
            expr,
            negated,
            low,
            high,
        } => Expr::Between(b(expr)?, literal(low)?, literal(high)?, *negated),
        A::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        }
        | A::ILike {
            negated,
            any: false,
            expr,
            pattern,
            escape_char: None,
        } => {
            let ci = matches!(e, A::ILike { .. });
            match literal(pattern)? {
                Lit::Str(p) => Expr::Like(b(expr)?, p, *negated, ci),
                other => return Err(format!("LIKE needs a string pattern, found {other}")),
            }
        }
        other => return Err(format!("unsupported expression {other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{DictionaryArray, StringViewArray};
    use arrow::datatypes::{Field, Int32Type};

    fn batch() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8View, true),
            Field::new("d", DataType::Date32, true),
            Field::new("x", DataType::Decimal128(15, 2), true),
            Field::new(
                "k",
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
                true,
            ),
        ]));
        let dec = arrow::array::Decimal128Array::from(vec![Some(5), Some(1050), None])
            .with_precision_and_scale(15, 2)
            .unwrap();
        let dict: DictionaryArray<Int32Type> =
            vec![Some("a"), None, Some("b")].into_iter().collect();
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(arrow::array::Int32Array::from(vec![
                    Some(1),
                    Some(2000),
                    None,
                ])),
                Arc::new(StringViewArray::from(vec![
                    Some("forest green"),
                    Some("red"),
                    None,
                ])),
                Arc::new(Date32Array::from(vec![Some(0), Some(19_000), None])),
                Arc::new(dec),
                Arc::new(dict),
            ],
        )
        .unwrap()
    }

    fn eval(text: &str) -> Vec<bool> {
        let p = Predicate::parse(text, "--where").unwrap();
        p.check(&batch().schema(), "t.parquet").unwrap();
        p.evaluate(&batch())
            .unwrap()
            .iter()
            .map(|v| v.unwrap())
            .collect()
    }

    #[test]
    fn operators() {
        assert_eq!(eval("i > 1500"), [false, true, false]);
        assert_eq!(eval("1500 < i"), [false, true, false]);
        assert_eq!(eval("i >= 1 AND i <= 1"), [true, false, false]);
        assert_eq!(eval("i = 1 OR s = 'red'"), [true, true, false]);
        assert_eq!(eval("NOT (i = 1)"), [false, true, false]);
        assert_eq!(eval("i IN (1, 3)"), [true, false, false]);
        assert_eq!(eval("i NOT IN (1, 3)"), [false, true, false]);
        assert_eq!(eval("i BETWEEN 0 AND 10"), [true, false, false]);
        assert_eq!(eval("i NOT BETWEEN 0 AND 10"), [false, true, false]);
        assert_eq!(eval("s LIKE '%green%'"), [true, false, false]);
        assert_eq!(eval("s NOT LIKE '%green%'"), [false, true, false]);
        assert_eq!(eval("s ILIKE '%GREEN%'"), [true, false, false]);
        assert_eq!(eval("i IS NULL"), [false, false, true]);
        assert_eq!(eval("s IS NOT NULL"), [true, true, false]);
        assert_eq!(eval("d >= DATE '2020-01-01'"), [false, true, false]);
        assert_eq!(eval("d < '2020-01-01'"), [true, false, false]);
        assert_eq!(eval("x > 0.05"), [false, true, false]);
        assert_eq!(eval("x = 0.05"), [true, false, false]);
        assert_eq!(eval("k = 'b'"), [false, false, true]);
        assert_eq!(eval("i > 100000000000"), [false, false, false]);
        assert_eq!(eval("i > -5"), [true, true, false]);
        assert_eq!(eval("i = NULL"), [false, false, false]);
        assert_eq!(eval("TRUE"), [true, true, true]);
    }

    #[test]
    fn errors_name_the_problem() {
        let check = |t: &str| {
            Predicate::parse(t, "--where")
                .and_then(|p| p.check(&batch().schema(), "t.parquet"))
                .unwrap_err()
                .to_string()
        };
        assert!(check("nope > 1").contains("\"nope\""));
        assert!(check("nope > 1").contains("t.parquet"));
        assert!(check("i > 'abc'").contains("cannot compare"));
        assert!(check("s > 5").contains("cannot compare"));
        assert!(check("i LIKE 'a'").contains("LIKE needs a string"));
        assert!(check("i").contains("not a boolean"));
        assert!(check("i >").contains("--where"));
        assert!(check("i > 1 garbage").contains("unexpected"));
        assert!(check("d > 'not a date'").contains("cannot compare"));
        assert!(check("upper(s) = 'A'").contains("unsupported"));
    }
}
