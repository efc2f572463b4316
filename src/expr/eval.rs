//! Evaluation of a [`Tree`] on a record batch, with an explicit stack (no recursion on the
//! depth of the expression), and the comparisons, which are exact:
//!
//! - integers of every width and signedness, decimals of every precision and scale, dates and
//!   timestamps of every unit are "exact" types: a value is an integer `raw` scaled by a power
//!   of ten (numbers) or by a number of nanoseconds (dates, timestamps). A literal is placed
//!   among the raw values exactly (rounded down, with a flag saying whether it was hit), so a
//!   comparison with the column's own kernel and one scalar is exact, and a literal beyond the
//!   column's range gives the constant answer. Two exact columns of different types are
//!   compared as 256-bit (numbers) or 128-bit (nanoseconds) integers.
//! - floats compare as floats, as DuckDB does: a number literal is rounded to the column's
//!   float type, `-0.0 = 0.0`, NaN equals NaN and is greater than every other value. A float
//!   meeting an integer or decimal compares as DOUBLE.
//! - strings compare by their UTF-8 bytes, binary by bytes, booleans with FALSE < TRUE.

use std::any::Any;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use arrow::array::{
    cast::AsArray, Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, Date32Array,
    Datum, Decimal128Array, Decimal256Array, Float32Array, Float64Array, PrimitiveArray,
    RecordBatch, Scalar, StringArray, Time64MicrosecondArray, Time64NanosecondArray,
    TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow::buffer::{BooleanBuffer, NullBuffer};
use arrow::compute::kernels::cmp;
use arrow::compute::kernels::comparison::{like, nlike};
use arrow::compute::{and_kleene, cast, is_not_null, is_null, not, or_kleene};
use arrow::datatypes::*;
use arrow::error::ArrowError;

use super::arith;
use super::cast::Target;
use super::func;
use super::lazy::Lazy;
use super::lit::{self, Lit, Raw, DAY_NS, INFINITE_NS};
use super::parse::{ArithOp, CmpOp, Node, Tree};

/// A value during evaluation.
#[derive(Clone)]
pub(crate) enum Val<'a> {
    /// A column, or the result of a sub-expression.
    Arr(ArrayRef),
    /// A condition's result.
    Bool(BooleanArray),
    /// A literal, not yet materialized.
    Lit(&'a Lit),
}

/// An error during evaluation: the reason, without the option and expression text.
pub(crate) type Reason = String;

/// One node being evaluated: its children's values arrive one at a time.
struct Frame<'a> {
    node: usize,
    next: usize,
    vals: Vec<(Val<'a>, usize)>,
    acc: Option<BooleanArray>,
    /// An `IN` list: one of its values is a timestamp of nanoseconds without a time zone, so
    /// DuckDB binds the list to `TIMESTAMP_NS` (see [`ns_member`]).
    ns: bool,
}

impl<'a> Frame<'a> {
    fn new(node: usize) -> Self {
        Frame {
            node,
            next: 0,
            vals: Vec::new(),
            acc: None,
            ns: false,
        }
    }
}

/// Whether `v` is a value DuckDB types `TIMESTAMP_NS` (nanoseconds, no time zone): beside one,
/// DuckDB binds an `IN` list's or `BETWEEN`'s strings to `TIMESTAMP_NS` (`parse::ns_lists`
/// does it for literals, where the tree is built; this for columns and computed values).
fn ns_member(v: &Val) -> bool {
    matches!(v, Val::Arr(a) if a.data_type() == &DataType::Timestamp(TimeUnit::Nanosecond, None))
}

/// A string of `what` (an `IN` list, `BETWEEN`) beside a `TIMESTAMP_NS` value (`ns`), as DuckDB
/// reads it there ([`super::lit::ns_string`]); `None` for any other value.
fn ns_read(v: &Val, ns: bool, what: &str) -> Result<Option<Lit>, Reason> {
    match v {
        Val::Lit(Lit::Str(s)) if ns => {
            super::lit::ns_string(s, what, "a TIMESTAMP_NS value").map(Some)
        }
        _ => Ok(None),
    }
}

/// `IN` lists of at least this many literals are looked up in a sorted set (built once per
/// column type) instead of compared one value at a time.
pub(crate) const IN_SET_MIN: usize = 16;

/// The sorted sets of long `IN` lists, per node and column type; shared by every clone of a
/// predicate, so each set is built once however many batches and workers use it.
#[derive(Debug, Default)]
pub(crate) struct InSets {
    sets: Mutex<Vec<InSetEntry>>,
}

/// A node, a column type, and the node's set for that type (`None`: no set, compare one by
/// one).
type InSetEntry = (usize, DataType, Option<Arc<InSet>>);

impl InSets {
    /// How many sets have been built (for tests).
    #[cfg(test)]
    pub(crate) fn built(&self) -> usize {
        let sets = self.sets.lock().unwrap_or_else(|p| p.into_inner());
        sets.iter().filter(|(_, _, s)| s.is_some()).count()
    }
}

/// The values of an `IN` list in a column's native representation, sorted, without the ones
/// that cannot equal any value of the column (out of its range, between its raw values).
#[derive(Debug)]
pub(crate) struct InSet {
    values: Box<dyn Any + Send + Sync>,
    has_null: bool,
}

/// DuckDB's kind of a number, as `//` needs it (see [`Eval::int_div`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DuckNum {
    /// Of an integer type (`TINYINT` to `UBIGINT`, an integer literal).
    Int,
    /// A `DECIMAL` (a column, a literal with a point).
    Dec,
    /// A `DOUBLE` or `FLOAT`.
    Float,
    /// A date.
    Date,
    /// Not known from the tree (a function's result, a `CASE`).
    Unknown,
    /// No number: `//` refuses it as `/` does.
    Other,
}

/// Evaluate `tree` on `batch`, every node on every row.
pub(crate) fn evaluate<'a>(
    tree: &'a Tree,
    sets: &InSets,
    batch: &RecordBatch,
) -> Result<Val<'a>, Reason> {
    evaluate_node(tree, tree.root(), sets, batch, None)
}

/// Whether the value of node `a` is above node `b`'s, both constants (no column), on the
/// one-row `batch` of no columns; `None` when either fails or they do not compare.
pub(super) fn constant_above(
    tree: &Tree,
    sets: &InSets,
    batch: &RecordBatch,
    a: usize,
    b: usize,
) -> Option<bool> {
    let ev = Eval {
        tree,
        sets,
        batch,
        decoded: RefCell::new(Vec::new()),
    };
    let va = evaluate_node(tree, a, sets, batch, None).ok()?;
    let vb = evaluate_node(tree, b, sets, batch, None).ok()?;
    let above = ev.compare(CmpOp::Gt, (&va, a), (&vb, b)).ok()?;
    (above.len() == 1 && above.is_valid(0)).then(|| above.value(0))
}

/// Evaluate the subtree of `tree` under `root` on `batch`. With `lazy`, its `CASE` and
/// `coalesce` nodes are evaluated by it, each value only on the rows that take it.
pub(super) fn evaluate_node<'a>(
    tree: &'a Tree,
    root: usize,
    sets: &InSets,
    batch: &RecordBatch,
    lazy: Option<&Lazy<'a, '_>>,
) -> Result<Val<'a>, Reason> {
    let ev = Eval {
        tree,
        sets,
        batch,
        decoded: RefCell::new(Vec::new()),
    };
    // A node the lazy evaluator takes, or a leaf.
    let direct = |i: usize| -> Result<Option<Val<'a>>, Reason> {
        match lazy {
            Some(lazy) if lazy.takes(i) => lazy.value(i, batch).map(Some),
            _ => ev.leaf(i),
        }
    };
    if let Some(v) = direct(root)? {
        return Ok(v);
    }
    let mut stack = vec![Frame::new(root)];
    loop {
        let top = stack.last_mut().expect("the root frame is popped last");
        match tree.nodes[top.node].child(top.next) {
            Some(c) => {
                top.next += 1;
                match direct(c)? {
                    Some(v) => ev.absorb(top, c, v)?,
                    None => stack.push(Frame::new(c)),
                }
            }
            None => {
                let done = stack.pop().expect("non-empty");
                let node = done.node;
                let v = ev.finish(done)?;
                match stack.last_mut() {
                    None => return Ok(v),
                    Some(parent) => ev.absorb(parent, node, v)?,
                }
            }
        }
    }
}

struct Eval<'a, 'b> {
    tree: &'a Tree,
    sets: &'b InSets,
    batch: &'b RecordBatch,
    /// Dictionary columns decoded so far: a column named many times is decoded once.
    decoded: RefCell<Vec<(&'a str, ArrayRef)>>,
}

impl<'a> Eval<'a, '_> {
    fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The value of a leaf (column or literal); `None` for inner nodes.
    fn leaf(&self, i: usize) -> Result<Option<Val<'a>>, Reason> {
        Ok(match &self.tree.nodes[i] {
            Node::Column(name) => Some(Val::Arr(self.column(name)?)),
            Node::Lit(l) => Some(Val::Lit(l)),
            Node::Fails(reason, _) if self.rows() > 0 => return Err(reason.clone()),
            Node::Fails(_, t) => Some(Val::Arr(arrow::array::new_empty_array(t))),
            _ => None,
        })
    }

    fn column(&self, name: &'a str) -> Result<ArrayRef, Reason> {
        let col = self
            .batch
            .column_by_name(name)
            .ok_or_else(|| format!("no column {name:?}"))?;
        // Dictionaries compare through their values.
        if let DataType::Dictionary(_, v) = col.data_type() {
            if let Some((_, d)) = self.decoded.borrow().iter().find(|(n, _)| *n == name) {
                return Ok(Arc::clone(d));
            }
            let d = cast(col, v).map_err(|e| format!("decoding column {name:?}: {e}"))?;
            self.decoded.borrow_mut().push((name, Arc::clone(&d)));
            return Ok(d);
        }
        Ok(Arc::clone(col))
    }

    /// An arithmetic operand.
    fn operand(&self, v: Val) -> Result<arith::Operand, Reason> {
        operand(v)
    }

    /// What `a // b` is, as DuckDB binds it: an integer quotient ([`ArithOp::IntDiv`]) when
    /// both operands are of integer types, else `a / b`. Our arithmetic computes on integers
    /// as decimals of scale 0, so where an operand's DuckDB type cannot be told (a function's
    /// result) and the other is an integer, the division is refused.
    fn int_div(
        &self,
        (ai, a): (usize, &arith::Operand),
        (bi, b): (usize, &arith::Operand),
    ) -> Result<ArithOp, Reason> {
        use DuckNum::*;
        let class = |i: usize, o: &arith::Operand| match (self.duck_num(i), o) {
            // What only a value tells: a fraction or a float is no integer in DuckDB either,
            // and what is no number is refused as `/` refuses it.
            (Unknown, arith::Operand::Rows(x) | arith::Operand::One(x)) => match x.data_type() {
                t if t.is_floating() => Float,
                DataType::Decimal128(_, s) | DataType::Decimal256(_, s) if *s > 0 => Dec,
                t if arith::number(t).is_some() => Unknown,
                _ => Other,
            },
            (k, _) => k,
        };
        if class(ai, a) == Other || class(bi, b) == Other {
            return Ok(ArithOp::IntDiv);
        }
        if matches!(a, arith::Operand::Null) || matches!(b, arith::Operand::Null) {
            // NULL whatever it divides.
            return Ok(ArithOp::IntDiv);
        }
        Ok(match (class(ai, a), class(bi, b)) {
            (Int, Int) => ArithOp::IntDiv,
            (Unknown, Int | Unknown) | (Int, Unknown) => {
                let which = if class(ai, a) == Unknown { ai } else { bi };
                return Err(format!(
                    "cannot compute {} // {}: DuckDB's // truncates integers and divides other numbers as DOUBLEs, and whether {} is an integer to DuckDB depends on the function; CAST it to BIGINT (or DOUBLE) first",
                    self.describe(ai),
                    self.describe(bi),
                    self.describe(which)
                ));
            }
            _ => ArithOp::Div,
        })
    }

    /// DuckDB's kind of number of node `i`, from the tree: its columns' types, its
    /// literals, and the operations over them.
    fn duck_num(&self, i: usize) -> DuckNum {
        use DuckNum::*;
        let of_type = |t: &DataType| match t {
            t if t.is_integer() => Int,
            t if t.is_floating() => Float,
            // A DECIMAL(p, 0) column is a DECIMAL to DuckDB.
            t if arith::number(t).is_some() => Dec,
            DataType::Date32 => Date,
            _ => Unknown,
        };
        match &self.tree.nodes[i] {
            Node::Column(c) => self
                .batch
                .schema_ref()
                .field_with_name(c)
                .map_or(Unknown, |f| of_type(f.data_type())),
            Node::Lit(Lit::Num(d)) if d.scale == 0 => Int,
            Node::Lit(Lit::Num(_)) => Dec,
            Node::Lit(Lit::Double(_)) => Float,
            Node::Lit(Lit::Date(_)) => Date,
            Node::Arith(op, x, y) => match (op, self.duck_num(*x), self.duck_num(*y)) {
                (ArithOp::Div, ..) => Float,
                (ArithOp::IntDiv, Int, Int) => Int,
                (ArithOp::IntDiv, ..) => Float,
                (ArithOp::Sub, Date, Date) => Int,
                (_, Float, _) | (_, _, Float) => Float,
                (_, Dec, _) | (_, _, Dec) => Dec,
                (_, Int, Int) => Int,
                _ => Unknown,
            },
            Node::Sign(x, _) => self.duck_num(*x),
            Node::Func(f, _) => {
                use super::text::Text;
                use func::Func as F;
                let node = &self.tree.nodes[i];
                let args = || (0..).map_while(|k| node.child(k));
                // The type several values are bound to: an integer when all are.
                let common = |ks: &mut dyn Iterator<Item = usize>| {
                    ks.filter(|k| !matches!(self.tree.nodes[*k], Node::Lit(Lit::Null)))
                        .map(|k| self.duck_num(k))
                        .reduce(|a, b| match (a, b) {
                            (Float, _) | (_, Float) => Float,
                            (Dec, _) | (_, Dec) => Dec,
                            (Int, Int) => Int,
                            _ => Unknown,
                        })
                        .unwrap_or(Unknown)
                };
                match f {
                    F::Cast(super::cast::Target::Int(_), _)
                    | F::Length
                    | F::Part(_)
                    | F::DateDiff(_)
                    | F::DateSub(_)
                    | F::Math(super::math::Math::Sign)
                    | F::Text(
                        Text::Strpos | Text::Strlen | Text::LengthGrapheme | Text::BitLength,
                    ) => Int,
                    F::Cast(super::cast::Target::Decimal(..), _) => Dec,
                    F::Cast(super::cast::Target::Float(_), _) => Float,
                    F::Abs | F::Coalesce | F::Extreme(_) => common(&mut args()),
                    // Rounding keeps its argument's type (`round(DECIMAL)` a DECIMAL).
                    F::Math(
                        super::math::Math::Round(_)
                        | super::math::Math::Trunc(_)
                        | super::math::Math::Floor
                        | super::math::Math::Ceil,
                    ) => common(&mut args().take(1)),
                    // The values, not the conditions: every second argument, and the ELSE.
                    F::Case(has_else) => {
                        let n = args().count();
                        let values = args()
                            .enumerate()
                            .filter(|(j, _)| j % 2 == 1 || (*has_else && *j == n - 1))
                            .map(|(_, k)| k);
                        common(&mut values.collect::<Vec<_>>().into_iter())
                    }
                    _ => Unknown,
                }
            }
            _ => Unknown,
        }
    }

    /// An arithmetic result as a value of every row.
    fn arith_value(&self, v: arith::Value) -> Result<Val<'a>, Reason> {
        arith_value(v, self.rows())
    }

    /// `op` (an operation or a function) on `args`, as a value of every row.
    ///
    /// When every argument is a literal, `op` computes one value. That may fail on the value
    /// alone (`CAST(-5 AS UBIGINT)`, a date pushed out of range): DuckDB then leaves the
    /// constant unfolded, to be computed on the rows that reach it, and fails only if some
    /// row does (in a `CASE` branch, after a guard). On a batch of no rows (a branch no row
    /// takes; the type check of [`super::Predicate::check`]) none does, and the value is no
    /// values of `op`'s type: `op` again, on the literals as empty columns. An error of the
    /// arguments' types fails that too, and stands.
    fn apply(
        &self,
        args: Vec<func::Arg>,
        op: impl Fn(Vec<func::Arg>) -> Result<arith::Value, Reason>,
    ) -> Result<Val<'a>, Reason> {
        let constant = args
            .iter()
            .all(|(o, _)| !matches!(o, arith::Operand::Rows(_)));
        if !constant || self.rows() > 0 {
            return self.arith_value(op(args)?);
        }
        let empty: Vec<func::Arg> = args
            .iter()
            .map(|(o, what)| match o {
                arith::Operand::One(a) => (arith::Operand::Rows(a.slice(0, 0)), what.clone()),
                other => (other.clone(), what.clone()),
            })
            .collect();
        match op(args) {
            Ok(v) => self.arith_value(v),
            Err(e) => op(empty).map_err(|_| e).and_then(|v| self.arith_value(v)),
        }
    }

    /// Which rows of `v` are not NULL.
    fn valid(&self, v: &Val) -> BooleanBuffer {
        valid(v, self.rows())
    }

    /// Describe node `i` for messages.
    fn describe(&self, i: usize) -> String {
        describe(self.tree, i)
    }

    /// Describe a value's type for messages.
    fn type_of(&self, v: &Val) -> String {
        match v {
            Val::Arr(a) => format!("of type {}", a.data_type()),
            Val::Bool(_) => "a boolean".into(),
            Val::Lit(l) => l.kind().into(),
        }
    }

    fn as_bool(&self, v: Val, i: usize) -> Result<BooleanArray, Reason> {
        as_bool(self.tree, v, i, self.rows())
    }

    fn absorb(&self, f: &mut Frame<'a>, child: usize, v: Val<'a>) -> Result<(), Reason> {
        match &self.tree.nodes[f.node] {
            Node::And(_) | Node::Or(_) => {
                let b = self.as_bool(v, child)?;
                let and = matches!(self.tree.nodes[f.node], Node::And(_));
                f.acc = Some(match f.acc.take() {
                    None => b,
                    Some(acc) if and => and_kleene(&acc, &b).map_err(kernel)?,
                    Some(acc) => or_kleene(&acc, &b).map_err(kernel)?,
                });
            }
            Node::InList(items, _) if f.vals.is_empty() => match self.in_set(f.node, items, &v)? {
                // Every value at once: the list's own children need not be visited.
                Some(b) => {
                    f.acc = Some(b);
                    f.next = items.len();
                }
                None => {
                    f.ns |= ns_member(&v);
                    f.vals.push((v, child))
                }
            },
            // A string waits for the list's other values: how DuckDB reads it depends on them.
            Node::InList(..) if matches!(v, Val::Lit(Lit::Str(_))) => f.vals.push((v, child)),
            Node::InList(..) => {
                f.ns |= ns_member(&v);
                let (x, xi) = &f.vals[0];
                let eq = self.compare(CmpOp::Eq, (x, *xi), (&v, child))?;
                f.acc = Some(match f.acc.take() {
                    None => eq,
                    Some(acc) => or_kleene(&acc, &eq).map_err(kernel)?,
                });
            }
            _ => f.vals.push((v, child)),
        }
        Ok(())
    }

    fn finish(&self, f: Frame<'a>) -> Result<Val<'a>, Reason> {
        let n = self.rows();
        let node = &self.tree.nodes[f.node];
        let mut vals = f.vals.into_iter();
        let mut arg = || vals.next().expect("every child was evaluated");
        let b = match node {
            Node::Column(_) | Node::Lit(_) | Node::Fails(..) => {
                unreachable!("leaves have no frame")
            }
            Node::Arith(op, ..) => {
                let (a, ai) = arg();
                let (b, bi) = arg();
                let args = vec![
                    (self.operand(a)?, self.describe(ai)),
                    (self.operand(b)?, self.describe(bi)),
                ];
                let mut args = args;
                let op = match op {
                    ArithOp::IntDiv => {
                        let op = self.int_div((ai, &args[0].0), (bi, &args[1].0))?;
                        // DuckDB's `//` of other numbers divides as `/`, but by 0 (or -0.0)
                        // it gives NULL (with `error_on_division_by_zero` off), not inf.
                        if op == ArithOp::Div {
                            let b = std::mem::replace(&mut args[1].0, arith::Operand::Null);
                            args[1].0 = arith::zeros_to_null(b)?;
                        }
                        op
                    }
                    op => *op,
                };
                return self.apply(args, |mut args| {
                    let (b, bw) = args.pop().expect("two operands");
                    let (a, aw) = args.pop().expect("two operands");
                    arith::binary(op, a, b, (&aw, &bw))
                });
            }
            Node::Sign(_, negated) => {
                let (a, ai) = arg();
                let args = vec![(self.operand(a)?, self.describe(ai))];
                return self.apply(args, |mut args| {
                    let (a, what) = args.pop().expect("one operand");
                    arith::sign(a, *negated, &what)
                });
            }
            Node::Func(func, children) => {
                // A UUID column's casts: to its text, or to itself.
                if let (func::Func::Cast(t @ (Target::Varchar | Target::Uuid), _), [c]) =
                    (func, children.as_slice())
                {
                    if self.uuid_at(*c) {
                        let (v, _) = arg();
                        let a = to_array(&v);
                        return Ok(Val::Arr(match t {
                            Target::Varchar => super::uuid::texts(&a)?,
                            _ => a,
                        }));
                    }
                }
                let mut args = Vec::new();
                for (v, i) in vals {
                    args.push((self.operand(v)?, self.describe(i)));
                }
                return self.apply(args, |args| func::call(*func, args));
            }
            Node::Distinct(.., not) => {
                let (a, ai) = arg();
                let (b, bi) = arg();
                let eq = self.compare(CmpOp::Eq, (&a, ai), (&b, bi))?;
                // Not distinct: both NULL, or neither and equal.
                let (va, vb) = (self.valid(&a), self.valid(&b));
                let same = &(&(&va & &vb) & eq.values()) | &(&!&va & &!&vb);
                BooleanArray::new(if *not { same } else { !&same }, None)
            }
            Node::And(_) | Node::Or(_) => f.acc.expect("AND and OR have operands"),
            Node::InList(_, negated) => {
                let mut acc = f.acc;
                let ns = f.ns;
                // The operand and the strings that waited for the list's other values (none
                // when a set answered the list at once).
                if let Some((x, xi)) = vals.next() {
                    for (v, i) in vals {
                        let l = ns_read(&v, ns, "an IN list")?;
                        let v = l.as_ref().map_or(v, Val::Lit);
                        let eq = self.compare(CmpOp::Eq, (&x, xi), (&v, i))?;
                        acc = Some(match acc.take() {
                            None => eq,
                            Some(acc) => or_kleene(&acc, &eq).map_err(kernel)?,
                        });
                    }
                }
                let acc = acc.expect("IN has a list");
                if *negated {
                    not(&acc).map_err(kernel)?
                } else {
                    acc
                }
            }
            Node::Not(_) => {
                let (v, i) = arg();
                not(&self.as_bool(v, i)?).map_err(kernel)?
            }
            Node::IsNull(_, negated) => {
                let (v, _) = arg();
                match v {
                    Val::Arr(a) => {
                        if *negated {
                            is_not_null(&a)
                        } else {
                            is_null(&a)
                        }
                    }
                    .map_err(kernel)?,
                    Val::Bool(b) => if *negated {
                        is_not_null(&b)
                    } else {
                        is_null(&b)
                    }
                    .map_err(kernel)?,
                    Val::Lit(l) => constant((*l == Lit::Null) != *negated, n, None),
                }
            }
            Node::Cmp(op, ..) => {
                let (a, ai) = arg();
                let (b, bi) = arg();
                self.compare(*op, (&a, ai), (&b, bi))?
            }
            Node::Between(.., negated) => {
                let (x, xi) = arg();
                let (lo, loi) = arg();
                let (hi, hii) = arg();
                // Beside a TIMESTAMP_NS value, DuckDB reads a string bound as TIMESTAMP_NS.
                let ns = [&x, &lo, &hi].into_iter().any(ns_member);
                let (xl, lol, hil) = (
                    ns_read(&x, ns, "BETWEEN")?,
                    ns_read(&lo, ns, "BETWEEN")?,
                    ns_read(&hi, ns, "BETWEEN")?,
                );
                let (x, lo, hi) = (
                    xl.as_ref().map_or(x, Val::Lit),
                    lol.as_ref().map_or(lo, Val::Lit),
                    hil.as_ref().map_or(hi, Val::Lit),
                );
                let ge = self.compare(CmpOp::GtEq, (&x, xi), (&lo, loi))?;
                let le = self.compare(CmpOp::LtEq, (&x, xi), (&hi, hii))?;
                let both = and_kleene(&ge, &le).map_err(kernel)?;
                if *negated {
                    not(&both).map_err(kernel)?
                } else {
                    both
                }
            }
            Node::Like(_, pattern, negated, ci) => {
                let (v, i) = arg();
                self.like(v, i, pattern, *negated, *ci)?
            }
        };
        Ok(Val::Bool(b))
    }

    fn like(
        &self,
        v: Val,
        i: usize,
        pattern: &str,
        negated: bool,
        ci: bool,
    ) -> Result<BooleanArray, Reason> {
        let n = self.rows();
        let word = if ci { "ILIKE" } else { "LIKE" };
        let arr: ArrayRef = match v {
            Val::Arr(a) => a,
            Val::Lit(Lit::Str(s)) => Arc::new(StringArray::from(vec![s.as_str(); n])),
            Val::Lit(Lit::Null) => return Ok(BooleanArray::new_null(n)),
            other => {
                return Err(format!(
                    "{word} needs a string, {} is {}",
                    self.describe(i),
                    self.type_of(&other)
                ))
            }
        };
        match arr.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {}
            DataType::Null => return Ok(BooleanArray::new_null(arr.len())),
            other => {
                return Err(format!(
                    "{word} needs a string, {} is {other}",
                    self.describe(i)
                ))
            }
        }
        // ILIKE is LIKE on lowercased text, as in DuckDB. (Arrow's `ilike` folds case by
        // Unicode simple case folding, so 'ς' ILIKE 'Σ' would hold; and lowercasing into one
        // buffer, ASCII values by their bytes, then LIKE, is faster than it even on ASCII,
        // since LIKE's `%lit%` search below then runs.)
        let (arr, pattern) = match ci {
            true => match func::case_mapped(&arr, func::Case::Lower) {
                Some(lower) => (lower?, func::lowercase(pattern)),
                None => return Err(format!("ILIKE needs a string, not {}", arr.data_type())),
            },
            false => (arr, pattern.to_string()),
        };
        if let Some(lit) = super::contains::contains_literal(&pattern) {
            if let Some(r) = super::contains::like_contains(&arr, lit, negated) {
                return Ok(r);
            }
        }
        let pat = cast(
            &(Arc::new(StringArray::from(vec![pattern])) as ArrayRef),
            arr.data_type(),
        )
        .map_err(kernel)?;
        let pat = Scalar::new(pat);
        match negated {
            false => like(&arr, &pat),
            true => nlike(&arr, &pat),
        }
        .map_err(kernel)
    }

    /// `x IN (literals...)` through a sorted set, when the list is long, the operand is a
    /// column of a type with a set representation and every literal is of a matching kind;
    /// `None` otherwise (the values are then compared one by one, which also reports errors).
    fn in_set(
        &self,
        node: usize,
        items: &[usize],
        v: &Val,
    ) -> Result<Option<BooleanArray>, Reason> {
        let Val::Arr(col) = v else { return Ok(None) };
        // A UUID's list is read as UUIDs, one value at a time.
        if items.len() - 1 < IN_SET_MIN || self.uuid_at(items[0]) {
            return Ok(None);
        }
        let dt = col.data_type();
        let set = {
            let mut sets = self.sets.sets.lock().unwrap_or_else(|p| p.into_inner());
            match sets.iter().find(|(n, t, _)| *n == node && t == dt) {
                Some((_, _, set)) => set.clone(),
                None => {
                    let lits: Option<Vec<&Lit>> = items[1..]
                        .iter()
                        .map(|&i| match &self.tree.nodes[i] {
                            Node::Lit(l) => Some(l),
                            _ => None,
                        })
                        .collect();
                    let set = lits.and_then(|l| build_in_set(dt, &l)).map(Arc::new);
                    sets.push((node, dt.clone(), set.clone()));
                    set
                }
            }
        };
        Ok(match set {
            Some(set) => Some(probe_in_set(col, &set)?),
            None => None,
        })
    }

    /// Whether node `i` is a UUID: a column of Parquet's `UUID` type (16 bytes to Arrow, its
    /// [`Annotation`](crate::read::logical::Annotation) in its field's metadata), or a `CAST(..
    /// AS UUID)`.
    fn uuid_at(&self, i: usize) -> bool {
        use crate::read::logical::{annotation, Annotation};
        match &self.tree.nodes[i] {
            Node::Column(c) => self
                .batch
                .schema_ref()
                .field_with_name(c)
                .ok()
                .and_then(annotation)
                .is_some_and(|a| a == Annotation::Uuid),
            Node::Func(func::Func::Cast(Target::Uuid, _), _) => true,
            _ => false,
        }
    }

    /// `u op x` of a UUID `u` and a value `x` that is not one: as DuckDB, `x` must be text,
    /// which is read as a UUID ([`super::uuid`]; a string that is none fails), or NULL.
    fn compare_uuid(
        &self,
        op: CmpOp,
        (u, ui): (&Val, usize),
        (x, xi): (&Val, usize),
    ) -> Result<BooleanArray, Reason> {
        let n = self.rows();
        let u = to_array(u);
        let what = || format!("compared with {}, a UUID", self.describe(ui));
        match x {
            Val::Lit(Lit::Null) => Ok(BooleanArray::new_null(n)),
            Val::Lit(Lit::Str(s)) => {
                let bytes = super::uuid::parse(s).ok_or_else(|| super::uuid::not_a_uuid(s, &what()))?;
                kernel_cmp(&u, op, &Scalar::new(super::uuid::one(bytes)))
            }
            Val::Arr(a) if *a.data_type() == DataType::Null => Ok(BooleanArray::new_null(n)),
            // DuckDB casts text that is not a literal to a UUID for `=` and `<>` (and so `IN`
            // and `IS DISTINCT FROM`), but wants the cast written to order them.
            Val::Arr(a) if !matches!(op, CmpOp::Eq | CmpOp::NotEq) && func::str_values(a).is_some() => {
                Err(format!(
                    "cannot order {} (a UUID) against {} (text): CAST it AS UUID first (DuckDB wants the cast written, as for any text but a literal)",
                    self.describe(ui),
                    self.describe(xi),
                ))
            }
            Val::Arr(a) => match super::uuid::from_strings(a, false, &what()) {
                Some(r) => kernel_cmp(&u, op, &r?),
                None => Err(self.uuid_mismatch(ui, xi, &format!("of type {}", a.data_type()))),
            },
            other => Err(self.uuid_mismatch(ui, xi, &self.type_of(other))),
        }
    }

    /// The error for a UUID (node `ui`) compared with a value of another kind (node `xi`).
    fn uuid_mismatch(&self, ui: usize, xi: usize, kind: &str) -> Reason {
        format!(
            "cannot compare {} (a UUID) with {} ({kind}): a UUID compares with a UUID or with text, which is read as one",
            self.describe(ui),
            self.describe(xi),
        )
    }

    /// `a op b` for any two operands.
    fn compare(
        &self,
        op: CmpOp,
        (a, ai): (&Val, usize),
        (b, bi): (&Val, usize),
    ) -> Result<BooleanArray, Reason> {
        let n = self.rows();
        let mismatch = |a: &Val, ai: usize, b: &Val, bi: usize| {
            format!(
                "cannot compare {} ({}) with {} ({})",
                self.describe(ai),
                self.type_of(a),
                self.describe(bi),
                self.type_of(b)
            )
        };
        match (self.uuid_at(ai), self.uuid_at(bi)) {
            (true, false) => return self.compare_uuid(op, (a, ai), (b, bi)),
            (false, true) => return self.compare_uuid(op.flip(), (b, bi), (a, ai)),
            _ => {}
        }
        match (a, b) {
            (Val::Lit(x), Val::Lit(y)) => {
                // Both literals: compare once, on a one-row array of the first.
                let one = materialize(x).map_err(|_| mismatch(a, ai, b, bi))?;
                let r = match one {
                    None => return Ok(BooleanArray::new_null(n)),
                    Some(one) => cmp_lit(&one, op, y)?.ok_or_else(|| mismatch(a, ai, b, bi))?,
                };
                Ok(if r.is_null(0) {
                    BooleanArray::new_null(n)
                } else {
                    constant(r.value(0), n, None)
                })
            }
            (Val::Lit(_), _) => self.compare(op.flip(), (b, bi), (a, ai)),
            (x, Val::Lit(l)) => {
                let col = to_array(x);
                cmp_lit(&col, op, l)?.ok_or_else(|| mismatch(a, ai, b, bi))
            }
            (x, y) => {
                let (l, r) = (to_array(x), to_array(y));
                cmp_arrays(&l, op, &r)?.ok_or_else(|| mismatch(a, ai, b, bi))
            }
        }
    }
}

/// `v` as an operand of arithmetic and functions.
pub(super) fn operand(v: Val) -> Result<arith::Operand, Reason> {
    Ok(match v {
        Val::Arr(a) => arith::Operand::Rows(a),
        Val::Bool(b) => arith::Operand::Rows(Arc::new(b)),
        Val::Lit(Lit::Interval(us)) => arith::Operand::Interval(*us),
        Val::Lit(l) => match materialize(l)? {
            Some(one) => arith::Operand::One(one),
            None => arith::Operand::Null,
        },
    })
}

/// An arithmetic or function result as a value of each of `n` rows.
pub(super) fn arith_value<'a>(v: arith::Value, n: usize) -> Result<Val<'a>, Reason> {
    static NULL: Lit = Lit::Null;
    Ok(match v {
        arith::Value::Rows(a) => Val::Arr(a),
        arith::Value::One(one) => {
            Val::Arr(crate::plan::hive::repeat(&one, n).map_err(|e| e.to_string())?)
        }
        arith::Value::Null => Val::Lit(&NULL),
    })
}

/// Which of the `n` rows of `v` are not NULL.
pub(super) fn valid(v: &Val, n: usize) -> BooleanBuffer {
    let nulls = match v {
        Val::Arr(a) => a.logical_nulls(),
        Val::Bool(b) => b.nulls().cloned(),
        Val::Lit(Lit::Null) => return BooleanBuffer::new_unset(n),
        Val::Lit(_) => None,
    };
    match nulls {
        Some(nulls) => nulls.inner().clone(),
        None => BooleanBuffer::new_set(n),
    }
}

/// Describe node `i` of `tree` for messages.
pub(super) fn describe(tree: &Tree, i: usize) -> String {
    match &tree.nodes[i] {
        Node::Column(c) => format!("column {c:?}"),
        Node::Lit(l) => l.to_string(),
        Node::Fails(_, DataType::Date32) => "CAST(... AS DATE)".into(),
        Node::Fails(..) => "CAST(... AS TIMESTAMP)".into(),
        Node::Arith(op, ..) => match op {
            ArithOp::Add => "a sum",
            ArithOp::Sub => "a difference",
            ArithOp::Mul => "a product",
            ArithOp::Div => "a quotient",
            ArithOp::Rem => "a remainder",
            ArithOp::IntDiv => "an integer quotient",
        }
        .into(),
        Node::Sign(..) => "a negation".into(),
        Node::Func(f, _) => f.shown(),
        _ => "the condition".into(),
    }
}

/// The rows where condition `b` is TRUE (NULL is not).
pub(super) fn true_rows(b: &BooleanArray) -> BooleanBuffer {
    match b.nulls() {
        Some(valid) => b.values() & valid.inner(),
        None => b.values().clone(),
    }
}

/// `v`, the value of node `i` on `n` rows, as a condition.
pub(super) fn as_bool(tree: &Tree, v: Val, i: usize, n: usize) -> Result<BooleanArray, Reason> {
    match v {
        Val::Bool(b) => Ok(b),
        Val::Arr(a) => match a.data_type() {
            DataType::Boolean => Ok(a.as_boolean().clone()),
            DataType::Null => Ok(BooleanArray::new_null(a.len())),
            other => Err(format!(
                "{} is {other}, not a boolean condition",
                describe(tree, i)
            )),
        },
        Val::Lit(Lit::Bool(b)) => Ok(constant(*b, n, None)),
        Val::Lit(Lit::Null) => Ok(BooleanArray::new_null(n)),
        Val::Lit(l) => Err(format!("{l} is not a boolean condition")),
    }
}

fn kernel(e: ArrowError) -> Reason {
    e.to_string()
}

fn to_array(v: &Val) -> ArrayRef {
    match v {
        Val::Arr(a) => Arc::clone(a),
        Val::Bool(b) => Arc::new(b.clone()),
        Val::Lit(_) => unreachable!("literals are compared as scalars"),
    }
}

/// `n` copies of `v`, null where `nulls` says.
fn constant(v: bool, n: usize, nulls: Option<arrow::buffer::NullBuffer>) -> BooleanArray {
    let values = if v {
        BooleanBuffer::new_set(n)
    } else {
        BooleanBuffer::new_unset(n)
    };
    BooleanArray::new(values, nulls)
}

/// A literal as a one-row array of its natural type (`None` for NULL).
fn materialize(l: &Lit) -> Result<Option<ArrayRef>, Reason> {
    Ok(Some(match l {
        Lit::Null => return Ok(None),
        Lit::Num(d) => Arc::new(
            Decimal256Array::from(vec![d.mantissa])
                .with_precision_and_scale(76, d.scale as i8)
                .map_err(kernel)?,
        ),
        Lit::Double(v) => Arc::new(Float64Array::from(vec![*v])),
        Lit::Str(s) => Arc::new(StringArray::from(vec![s.as_str()])),
        Lit::Date(d) => Arc::new(Date32Array::from(vec![*d])),
        // DuckDB's infinities, as a timestamp column holds them.
        Lit::Timestamp(INFINITE_NS) => Arc::new(TimestampMicrosecondArray::from(vec![i64::MAX])),
        Lit::Timestamp(ns) if *ns == -INFINITE_NS => {
            Arc::new(TimestampMicrosecondArray::from(vec![-i64::MAX]))
        }
        Lit::Timestamp(ns) => match i64::try_from(*ns) {
            Ok(v) => Arc::new(TimestampNanosecondArray::from(vec![v])),
            Err(_) => Arc::new(TimestampMicrosecondArray::from(vec![i64::try_from(
                ns.div_euclid(1000),
            )
            .map_err(|_| format!("{l} is out of range"))?])),
        },
        // Whole microseconds (DuckDB's TIMESTAMPTZ), labelled UTC.
        Lit::TimestampTz(ns) => {
            let us = match *ns {
                INFINITE_NS => i64::MAX,
                ns if ns == -INFINITE_NS => -i64::MAX,
                ns => i64::try_from(ns.div_euclid(1000))
                    .map_err(|_| format!("{l} is out of range"))?,
            };
            Arc::new(TimestampMicrosecondArray::from(vec![us]).with_timezone("UTC"))
        }
        // Whole microseconds (DuckDB's TIME) unless the value has digits below them.
        Lit::Time(ns) => {
            let v = i64::try_from(*ns).map_err(|_| format!("{l} is out of range"))?;
            match v % 1_000 {
                0 => Arc::new(Time64MicrosecondArray::from(vec![v / 1_000])),
                _ => Arc::new(Time64NanosecondArray::from(vec![v])),
            }
        }
        Lit::Bool(b) => Arc::new(BooleanArray::from(vec![*b])),
        Lit::Interval(_) => {
            return Err(format!(
                "{l} stands alone: an interval is added to or subtracted from a date or a timestamp"
            ))
        }
    }))
}

/// How the raw values of an exact type map to values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exact {
    /// `raw × 10^-scale`: integers (scale 0) and decimals.
    Num(i32),
    /// `raw × ns` nanoseconds since the epoch: dates and timestamps.
    Time(i128),
    /// `raw × ns` nanoseconds since midnight: times of day.
    Clock(i128),
}

pub(super) fn exact_kind(t: &DataType) -> Option<Exact> {
    use DataType::*;
    Some(match t {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Exact::Num(0),
        Decimal32(_, s) | Decimal64(_, s) | Decimal128(_, s) | Decimal256(_, s) => {
            Exact::Num(*s as i32)
        }
        Date32 => Exact::Time(DAY_NS),
        Date64 => Exact::Time(1_000_000),
        Timestamp(u, _) => Exact::Time(match u {
            TimeUnit::Second => 1_000_000_000,
            TimeUnit::Millisecond => 1_000_000,
            TimeUnit::Microsecond => 1_000,
            TimeUnit::Nanosecond => 1,
        }),
        Time32(TimeUnit::Second) => Exact::Clock(1_000_000_000),
        Time32(TimeUnit::Millisecond) => Exact::Clock(1_000_000),
        Time64(TimeUnit::Microsecond) => Exact::Clock(1_000),
        Time64(TimeUnit::Nanosecond) => Exact::Clock(1),
        _ => return None,
    })
}

/// The raw value DuckDB reads as `infinity` in a date (`i32::MAX` days) or a timestamp
/// (`i64::MAX` of any unit) column; its negation is `-infinity`. `None` for other types.
/// Infinities are equal across types and units and beyond every finite value; their parts
/// are NULL.
pub(super) fn infinity(t: &DataType) -> Option<i64> {
    match t {
        DataType::Date32 => Some(i32::MAX as i64),
        DataType::Timestamp(..) => Some(i64::MAX),
        _ => None,
    }
}

/// Whether `v` is `infinity` or `-infinity` of a type whose [`infinity`] is `inf`.
pub(super) fn infinite(inf: Option<i64>, v: i64) -> bool {
    inf.is_some_and(|i| v == i || v == -i)
}

pub(super) fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_)
    )
}

/// Run a comparison kernel.
fn kernel_cmp(l: &dyn Datum, op: CmpOp, r: &dyn Datum) -> Result<BooleanArray, Reason> {
    match op {
        CmpOp::Eq => cmp::eq(l, r),
        CmpOp::NotEq => cmp::neq(l, r),
        CmpOp::Lt => cmp::lt(l, r),
        CmpOp::LtEq => cmp::lt_eq(l, r),
        CmpOp::Gt => cmp::gt(l, r),
        CmpOp::GtEq => cmp::gt_eq(l, r),
    }
    .map_err(kernel)
}

/// Compare a column with a literal; `None` when their types cannot meet.
fn cmp_lit(col: &ArrayRef, op: CmpOp, l: &Lit) -> Result<Option<BooleanArray>, Reason> {
    let t = col.data_type();
    if *l == Lit::Null || *t == DataType::Null {
        return Ok(Some(BooleanArray::new_null(col.len())));
    }
    let exact = exact_kind(t);
    Ok(Some(match (exact, l) {
        (Some(Exact::Num(scale)), Lit::Num(d)) => cmp_exact(col, op, lit::dec_to_raw(*d, scale))?,
        (Some(Exact::Num(_)), Lit::Double(v)) => cmp_f64(&to_f64(col)?, op, *v)?,
        (Some(Exact::Time(unit)), Lit::Date(d)) => {
            cmp_exact(col, op, time_raw(lit::date_ns(*d), t, unit))?
        }
        (Some(Exact::Time(unit)), Lit::Timestamp(ns) | Lit::TimestampTz(ns)) => {
            cmp_exact(col, op, time_raw(*ns, t, unit))?
        }
        (Some(Exact::Time(unit)), Lit::Str(s)) => {
            cmp_exact(col, op, time_raw(string_ns(s, t, unit)?, t, unit))?
        }
        (Some(Exact::Clock(unit)), Lit::Time(ns)) => cmp_exact(col, op, lit::ns_to_raw(*ns, unit))?,
        (Some(Exact::Clock(unit)), Lit::Str(s)) => {
            cmp_exact(col, op, lit::ns_to_raw(string_clock_ns(s, unit)?, unit))?
        }
        (None, Lit::Num(d)) if is_float(t) => match t {
            DataType::Float64 => cmp_f64(col, op, d.to_f64())?,
            // DuckDB rounds the literal to the column's FLOAT (half floats read as FLOAT).
            _ => cmp_f32(
                &cast(col, &DataType::Float32).map_err(kernel)?,
                op,
                d.to_f32(),
            )?,
        },
        (None, Lit::Double(v)) if is_float(t) => cmp_f64(&to_f64(col)?, op, *v)?,
        (None, Lit::Str(s)) if is_string(t) => {
            let one: ArrayRef = Arc::new(StringArray::from(vec![s.as_str()]));
            let one = cast(&one, t).map_err(kernel)?;
            kernel_cmp(col, op, &Scalar::new(one))?
        }
        (None, Lit::Str(s)) if is_binary(t) => {
            let bytes = lit::blob(s)?;
            let col = match t {
                DataType::FixedSizeBinary(_) => cast(col, &DataType::Binary).map_err(kernel)?,
                _ => Arc::clone(col),
            };
            let one: ArrayRef = Arc::new(BinaryArray::from(vec![bytes.as_slice()]));
            let one = cast(&one, col.data_type()).map_err(kernel)?;
            kernel_cmp(&col, op, &Scalar::new(one))?
        }
        (None, Lit::Bool(b)) if *t == DataType::Boolean => {
            kernel_cmp(col, op, &BooleanArray::new_scalar(*b))?
        }
        _ => return Ok(None),
    }))
}

/// Compare two arrays; `None` when their types cannot meet.
fn cmp_arrays(l: &ArrayRef, op: CmpOp, r: &ArrayRef) -> Result<Option<BooleanArray>, Reason> {
    let (lt, rt) = (l.data_type(), r.data_type());
    if *lt == DataType::Null || *rt == DataType::Null {
        return Ok(Some(BooleanArray::new_null(l.len())));
    }
    let floaty = |t: &DataType| is_float(t) || matches!(exact_kind(t), Some(Exact::Num(_)));
    Ok(Some(match (exact_kind(lt), exact_kind(rt)) {
        _ if lt == rt && is_float(lt) => {
            let (a, b) = (canon(l)?, canon(r)?);
            kernel_cmp(&a, op, &b)?
        }
        _ if lt == rt => kernel_cmp(l, op, r)?,
        (Some(Exact::Num(a)), Some(Exact::Num(b))) => {
            // At the larger scale; only the side of the smaller one is multiplied, and a value
            // of it that leaves the 256-bit range (a product of 76 digits meeting a fraction)
            // is beyond every value of the other side: its sign decides.
            let s = a.max(b);
            let (x, x_out) = to_i256(l, s - a)?;
            let (y, y_out) = to_i256(r, s - b)?;
            let cmp = kernel_cmp(&x, op, &y)?;
            match (x_out, y_out) {
                (Some(out), _) => beyond(cmp, &out, op),
                (_, Some(out)) => beyond(cmp, &out, op.flip()),
                (None, None) => cmp,
            }
        }
        (Some(Exact::Time(a)), Some(Exact::Time(b)))
        | (Some(Exact::Clock(a)), Some(Exact::Clock(b))) => {
            let (x, y) = (to_ns(l, a)?, to_ns(r, b)?);
            kernel_cmp(&x, op, &y)?
        }
        _ if (is_float(lt) || is_float(rt)) && floaty(lt) && floaty(rt) => {
            // As DuckDB: DOUBLE if either side is one, else FLOAT (an integer or decimal
            // meeting a FLOAT column is rounded to FLOAT).
            if *lt == DataType::Float64 || *rt == DataType::Float64 {
                kernel_cmp(&to_f64(l)?, op, &to_f64(r)?)?
            } else {
                let f32 = |a: &ArrayRef| canon(&cast(a, &DataType::Float32).map_err(kernel)?);
                kernel_cmp(&f32(l)?, op, &f32(r)?)?
            }
        }
        _ if is_string(lt) && is_string(rt) => {
            let (a, b) = (
                cast(l, &DataType::LargeUtf8).map_err(kernel)?,
                cast(r, &DataType::LargeUtf8).map_err(kernel)?,
            );
            kernel_cmp(&a, op, &b)?
        }
        _ if is_binary(lt) && is_binary(rt) => {
            let (a, b) = (
                cast(l, &DataType::LargeBinary).map_err(kernel)?,
                cast(r, &DataType::LargeBinary).map_err(kernel)?,
            );
            kernel_cmp(&a, op, &b)?
        }
        _ => return Ok(None),
    }))
}

/// Floats with `-0.0` made `0.0` and every NaN the one positive NaN, so that Arrow's
/// total-order kernels compare as DuckDB does (`-0.0 = 0.0`; NaN = NaN, above all else).
pub(super) fn canon(a: &ArrayRef) -> Result<ArrayRef, Reason> {
    Ok(match a.data_type() {
        DataType::Float64 => Arc::new(a.as_primitive::<Float64Type>().unary::<_, Float64Type>(
            |v| {
                if v == 0.0 {
                    0.0
                } else if v.is_nan() {
                    f64::NAN
                } else {
                    v
                }
            },
        )),
        DataType::Float32 => Arc::new(a.as_primitive::<Float32Type>().unary::<_, Float32Type>(
            |v| {
                if v == 0.0 {
                    0.0
                } else if v.is_nan() {
                    f32::NAN
                } else {
                    v
                }
            },
        )),
        DataType::Float16 => canon(&cast(a, &DataType::Float32).map_err(kernel)?)?,
        _ => Arc::clone(a),
    })
}

/// Any number column as canonical `f64`s.
fn to_f64(a: &ArrayRef) -> Result<ArrayRef, Reason> {
    let f = if *a.data_type() == DataType::Float64 {
        Arc::clone(a)
    } else {
        cast(a, &DataType::Float64).map_err(kernel)?
    };
    canon(&f)
}

fn canon_f64(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    }
}

fn cmp_f64(col: &ArrayRef, op: CmpOp, v: f64) -> Result<BooleanArray, Reason> {
    let col = to_f64(col)?;
    kernel_cmp(&col, op, &Float64Array::new_scalar(canon_f64(v)))
}

fn cmp_f32(col: &ArrayRef, op: CmpOp, v: f32) -> Result<BooleanArray, Reason> {
    let col = canon(col)?;
    let v = if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f32::NAN
    } else {
        v
    };
    kernel_cmp(&col, op, &Float32Array::new_scalar(v))
}

/// The native values of exact types, as and from `i256`.
trait ExactNative: Copy {
    fn to_i256(self) -> i256;
    fn from_i256(v: i256) -> Option<Self>;
}

macro_rules! exact_native {
    ($($t:ty),*) => {$(
        impl ExactNative for $t {
            fn to_i256(self) -> i256 {
                i256::from_i128(self as i128)
            }
            fn from_i256(v: i256) -> Option<Self> {
                v.to_i128().and_then(|x| <$t>::try_from(x).ok())
            }
        }
    )*};
}
exact_native!(i8, i16, i32, i64, u8, u16, u32, u64, i128);

impl ExactNative for i256 {
    fn to_i256(self) -> i256 {
        self
    }
    fn from_i256(v: i256) -> Option<Self> {
        Some(v)
    }
}

/// Call `$f::<T>($args)` with `T` the primitive type of an exact data type.
macro_rules! with_exact_type {
    ($t:expr, $f:ident($($arg:expr),*)) => {
        match $t {
            DataType::Int8 => $f::<Int8Type>($($arg),*),
            DataType::Int16 => $f::<Int16Type>($($arg),*),
            DataType::Int32 => $f::<Int32Type>($($arg),*),
            DataType::Int64 => $f::<Int64Type>($($arg),*),
            DataType::UInt8 => $f::<UInt8Type>($($arg),*),
            DataType::UInt16 => $f::<UInt16Type>($($arg),*),
            DataType::UInt32 => $f::<UInt32Type>($($arg),*),
            DataType::UInt64 => $f::<UInt64Type>($($arg),*),
            DataType::Decimal32(..) => $f::<Decimal32Type>($($arg),*),
            DataType::Decimal64(..) => $f::<Decimal64Type>($($arg),*),
            DataType::Decimal128(..) => $f::<Decimal128Type>($($arg),*),
            DataType::Decimal256(..) => $f::<Decimal256Type>($($arg),*),
            DataType::Date32 => $f::<Date32Type>($($arg),*),
            DataType::Date64 => $f::<Date64Type>($($arg),*),
            DataType::Timestamp(TimeUnit::Second, _) => $f::<TimestampSecondType>($($arg),*),
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                $f::<TimestampMillisecondType>($($arg),*)
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                $f::<TimestampMicrosecondType>($($arg),*)
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                $f::<TimestampNanosecondType>($($arg),*)
            }
            DataType::Time32(TimeUnit::Second) => $f::<Time32SecondType>($($arg),*),
            DataType::Time32(TimeUnit::Millisecond) => $f::<Time32MillisecondType>($($arg),*),
            DataType::Time64(TimeUnit::Microsecond) => $f::<Time64MicrosecondType>($($arg),*),
            DataType::Time64(TimeUnit::Nanosecond) => $f::<Time64NanosecondType>($($arg),*),
            other => unreachable!("{other} is not an exact type"),
        }
    };
}

/// Compare an exact column with a value placed among its raw values.
fn cmp_exact(col: &ArrayRef, op: CmpOp, at: Raw) -> Result<BooleanArray, Reason> {
    with_exact_type!(col.data_type(), cmp_exact_typed(col, op, at))
}

fn cmp_exact_typed<T>(col: &ArrayRef, op: CmpOp, at: Raw) -> Result<BooleanArray, Reason>
where
    T: ArrowPrimitiveType,
    T::Native: ExactNative,
{
    let n = col.len();
    let always = |v: bool| Ok(constant(v, n, col.logical_nulls()));
    // A value that is not a raw value: `=` never holds, `<>` always; `<` and `>=` move to the
    // raw value below it (`x < 1.5` is `x <= 1`, `x >= 1.5` is `x > 1`).
    let (op, q) = match at {
        Raw::Below => return always(matches!(op, CmpOp::NotEq | CmpOp::Gt | CmpOp::GtEq)),
        Raw::Above => return always(matches!(op, CmpOp::NotEq | CmpOp::Lt | CmpOp::LtEq)),
        Raw::At { floor, exact: true } => (op, floor),
        Raw::At {
            floor,
            exact: false,
        } => match op {
            CmpOp::Eq => return always(false),
            CmpOp::NotEq => return always(true),
            CmpOp::Lt | CmpOp::LtEq => (CmpOp::LtEq, floor),
            CmpOp::Gt | CmpOp::GtEq => (CmpOp::Gt, floor),
        },
    };
    match T::Native::from_i256(q) {
        Some(v) => {
            let scalar =
                PrimitiveArray::<T>::from_iter_values([v]).with_data_type(col.data_type().clone());
            kernel_cmp(col, op, &Scalar::new(scalar))
        }
        // Beyond the column type's range: the answer is the same for every value.
        None if q.is_negative() => always(matches!(op, CmpOp::NotEq | CmpOp::Gt | CmpOp::GtEq)),
        None => always(matches!(op, CmpOp::NotEq | CmpOp::Lt | CmpOp::LtEq)),
    }
}

/// Values at a common scale, and the rows that left the 256-bit range (see [`to_i256`]).
type Scaled = (ArrayRef, Option<Vec<Option<bool>>>);

/// Exact numbers as 256-bit integers at a common scale (`raw × 10^up`), and, when some value
/// leaves the 256-bit range at that scale, the sign of each value that does (`Some(true)`:
/// above it); such a value is held as the range's end, for [`beyond`] to decide its row.
fn to_i256(a: &ArrayRef, up: i32) -> Result<Scaled, Reason> {
    fn typed<T>(a: &ArrayRef, up: i32) -> Result<Scaled, Reason>
    where
        T: ArrowPrimitiveType,
        T::Native: ExactNative,
    {
        let m = lit::pow10(up as u32).ok_or("the scales of the two sides differ too much")?;
        let values = a.as_primitive::<T>();
        let mut out_of_range: Option<Vec<Option<bool>>> = None;
        // One pass: each value scaled once, and the valid ones that leave the range noted.
        let scaled: Vec<i256> = values
            .values()
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let v = v.to_i256();
                v.checked_mul(m).unwrap_or_else(|| {
                    if values.is_valid(i) {
                        out_of_range.get_or_insert_with(|| vec![None; values.len()])[i] =
                            Some(!v.is_negative());
                    }
                    if v.is_negative() {
                        i256::MIN
                    } else {
                        i256::MAX
                    }
                })
            })
            .collect();
        let scaled = Decimal256Array::new(scaled.into(), values.nulls().cloned());
        Ok((Arc::new(scaled), out_of_range))
    }
    with_exact_type!(a.data_type(), typed(a, up))
}

/// `cmp` (of `x op y`) with the rows where `x` left the 256-bit range (`out[i]`: above it,
/// or below) decided by that: such an `x` is above (below) every value `y` can hold. A row
/// with a null stays null.
fn beyond(cmp: BooleanArray, out: &[Option<bool>], op: CmpOp) -> BooleanArray {
    let values: BooleanBuffer = (0..cmp.len())
        .map(|i| match out[i] {
            Some(above) if cmp.is_valid(i) => match op {
                CmpOp::Eq => false,
                CmpOp::NotEq => true,
                CmpOp::Gt | CmpOp::GtEq => above,
                CmpOp::Lt | CmpOp::LtEq => !above,
            },
            _ => cmp.value(i),
        })
        .collect();
    BooleanArray::new(values, cmp.nulls().cloned())
}

/// A string literal met by a date or timestamp column `dt` of `unit_ns` nanoseconds, as
/// nanoseconds since the epoch: a date column reads it as a date ([`lit::date_text`]), a
/// timestamp column as a timestamp ([`string_timestamp_ns`]).
fn string_ns(s: &str, dt: &DataType, unit_ns: i128) -> Result<i128, String> {
    Ok(match dt {
        DataType::Date32 | DataType::Date64 => lit::date_ns(lit::date_text(s)?),
        // A timestamp with a time zone reads the string as DuckDB's TIMESTAMPTZ cast does:
        // a UTC offset in it counts.
        DataType::Timestamp(_, Some(_)) => {
            string_timestamp_ns(lit::timestamptz_literal(s)?, unit_ns)
        }
        _ => string_timestamp_ns(lit::timestamp_literal(s)?, unit_ns),
    })
}

/// A string compared with a timestamp column, as DuckDB's Parquet reader types the column:
/// seconds, milliseconds and microseconds become `TIMESTAMP` (microseconds), nanoseconds stay
/// `TIMESTAMP_NS`. The string is read to microseconds (further digits dropped), or to
/// nanoseconds for a nanosecond column, and the column's values are compared with it exactly:
/// `ts_ms >= '2020-01-01 00:00:00.5005'` holds for `.501` and not for `.500`. (DuckDB over
/// the same rows in Arrow binds `TIMESTAMP_MS` and rounds the string to milliseconds; its own
/// Parquet reader does not, and we read Parquet.) Returns nanoseconds.
fn string_timestamp_ns(ns: i128, unit_ns: i128) -> i128 {
    if unit_ns == 1 || ns == INFINITE_NS || ns == -INFINITE_NS {
        ns
    } else {
        ns.div_euclid(1_000) * 1_000
    }
}

/// A string compared with a time-of-day column, as DuckDB types the column (`TIME`, whole
/// microseconds, or `TIME_NS` for nanoseconds) and casts the string to that type: read to
/// microseconds (further digits dropped), or to nanoseconds for a nanosecond column.
fn string_clock_ns(s: &str, unit_ns: i128) -> Result<i128, String> {
    Ok(string_timestamp_ns(lit::strict_time(s)?, unit_ns))
}

/// Where the instant `ns` (nanoseconds since the epoch, [`INFINITE_NS`] for `infinity`) lands
/// among the raw values of a date or timestamp column of type `t`, `unit` nanoseconds each.
/// The infinities are the type's ([`infinity`]), and as DuckDB's are beyond every finite
/// value, a finite instant beyond the type's finite values lands between them and the
/// infinity on its side (`ts_ns < DATE '3000-01-01'` holds for every finite `ts_ns`, not for
/// `infinity`).
fn time_raw(ns: i128, t: &DataType, unit: i128) -> Raw {
    let Some(inf) = infinity(t).map(|i| i256::from_i128(i.into())) else {
        return lit::ns_to_raw(ns, unit);
    };
    let at = |floor, exact| Raw::At { floor, exact };
    match ns {
        INFINITE_NS => at(inf, true),
        _ if ns == -INFINITE_NS => at(inf.wrapping_neg(), true),
        _ => match lit::ns_to_raw(ns, unit) {
            Raw::At { floor, .. } if floor >= inf => at(inf.wrapping_sub(i256::ONE), false),
            Raw::Above => at(inf.wrapping_sub(i256::ONE), false),
            Raw::At { floor, .. } if floor <= inf.wrapping_neg() => at(inf.wrapping_neg(), false),
            Raw::Below => at(inf.wrapping_neg(), false),
            raw => raw,
        },
    }
}

/// Dates, timestamps and times of day as 128-bit nanoseconds (since the epoch, or midnight);
/// `infinity` and `-infinity` become [`INFINITE_NS`] and its negation, so that they are equal
/// across types and units, as in DuckDB.
fn to_ns(a: &ArrayRef, unit: i128) -> Result<ArrayRef, Reason> {
    fn typed<T>(a: &ArrayRef, unit: i128) -> Result<ArrayRef, Reason>
    where
        T: ArrowPrimitiveType,
        T::Native: ExactNative,
    {
        let inf = infinity(a.data_type()).map(i128::from);
        // |raw| < 2^63 and unit <= 86,400 × 10^9 < 2^47: the product fits 128 bits.
        let out: Decimal128Array = a
            .as_primitive::<T>()
            .unary::<_, Decimal128Type>(|v| lit::raw_ns(v.to_i256().as_i128(), inf, unit));
        Ok(Arc::new(out))
    }
    with_exact_type!(a.data_type(), typed(a, unit))
}

fn build_in_set(dt: &DataType, lits: &[&Lit]) -> Option<InSet> {
    let has_null = lits.iter().any(|l| **l == Lit::Null);
    let lits = lits.iter().filter(|l| ***l != Lit::Null);
    let values: Box<dyn Any + Send + Sync> = if let Some(kind) = exact_kind(dt) {
        let mut raws = Vec::new();
        for l in lits {
            let raw = match (kind, l) {
                (Exact::Num(scale), Lit::Num(d)) => lit::dec_to_raw(*d, scale),
                (Exact::Time(unit), Lit::Date(d)) => time_raw(lit::date_ns(*d), dt, unit),
                (Exact::Time(unit), Lit::Timestamp(ns) | Lit::TimestampTz(ns)) => {
                    time_raw(*ns, dt, unit)
                }
                (Exact::Time(unit), Lit::Str(s)) => {
                    time_raw(string_ns(s, dt, unit).ok()?, dt, unit)
                }
                (Exact::Clock(unit), Lit::Time(ns)) => lit::ns_to_raw(*ns, unit),
                (Exact::Clock(unit), Lit::Str(s)) => {
                    lit::ns_to_raw(string_clock_ns(s, unit).ok()?, unit)
                }
                _ => return None,
            };
            // Only a value that is exactly a raw value can be equal to one.
            if let Raw::At { floor, exact: true } = raw {
                raws.push(floor);
            }
        }
        with_exact_type!(dt, native_set(raws))
    } else if is_string(dt) {
        let mut v = Vec::new();
        for l in lits {
            match l {
                Lit::Str(s) => v.push(s.clone()),
                _ => return None,
            }
        }
        v.sort_unstable();
        v.dedup();
        Box::new(v)
    } else if is_binary(dt) {
        let mut v = Vec::new();
        for l in lits {
            match l {
                Lit::Str(s) => v.push(lit::blob(s).ok()?),
                _ => return None,
            }
        }
        v.sort_unstable();
        v.dedup();
        Box::new(v)
    } else {
        return None;
    };
    Some(InSet { values, has_null })
}

/// The raw values that fit `T`, sorted.
fn native_set<T>(raws: Vec<i256>) -> Box<dyn Any + Send + Sync>
where
    T: ArrowPrimitiveType,
    T::Native: ExactNative + Ord + Send + Sync,
{
    let mut v: Vec<T::Native> = raws.into_iter().filter_map(T::Native::from_i256).collect();
    v.sort_unstable();
    v.dedup();
    Box::new(v)
}

/// `col IN set`: TRUE where found; where not, FALSE, or NULL if the list holds NULL; NULL
/// for NULL values.
fn probe_in_set(col: &ArrayRef, set: &InSet) -> Result<BooleanArray, Reason> {
    let found: BooleanBuffer = match col.data_type() {
        dt if exact_kind(dt).is_some() => with_exact_type!(dt, probe_native(col, set))?,
        DataType::Utf8 => probe_bytes(col.as_string::<i32>(), set, str::as_bytes)?,
        DataType::LargeUtf8 => probe_bytes(col.as_string::<i64>(), set, str::as_bytes)?,
        DataType::Utf8View => probe_bytes(col.as_string_view(), set, str::as_bytes)?,
        DataType::Binary => probe_bytes(col.as_binary::<i32>(), set, |b| b)?,
        DataType::LargeBinary => probe_bytes(col.as_binary::<i64>(), set, |b| b)?,
        DataType::BinaryView => probe_bytes(col.as_binary_view(), set, |b| b)?,
        DataType::FixedSizeBinary(_) => probe_bytes(col.as_fixed_size_binary(), set, |b| b)?,
        other => return Err(format!("no IN set for {other}")),
    };
    let valid = match (col.logical_nulls(), set.has_null) {
        (None, false) => None,
        (None, true) => Some(NullBuffer::new(found.clone())),
        (Some(n), false) => Some(n),
        (Some(n), true) => Some(NullBuffer::new(n.inner() & &found)),
    };
    Ok(BooleanArray::new(found, valid))
}

fn probe_native<T>(col: &ArrayRef, set: &InSet) -> Result<BooleanBuffer, Reason>
where
    T: ArrowPrimitiveType,
    T::Native: ExactNative + Ord + Send + Sync,
{
    let values = set
        .values
        .downcast_ref::<Vec<T::Native>>()
        .ok_or("IN set of another type")?;
    let a = col.as_primitive::<T>().values();
    Ok(BooleanBuffer::collect_bool(a.len(), |i| {
        values.binary_search(&a[i]).is_ok()
    }))
}

/// Look each value of a string or binary array up in a set of strings or byte strings.
fn probe_bytes<'x, A, V>(
    a: A,
    set: &InSet,
    bytes: impl Fn(V) -> &'x [u8],
) -> Result<BooleanBuffer, Reason>
where
    A: arrow::array::ArrayAccessor<Item = V>,
{
    let n = a.len();
    let at = |i: usize| {
        if a.is_valid(i) {
            Some(bytes(a.value(i)))
        } else {
            None
        }
    };
    if let Some(v) = set.values.downcast_ref::<Vec<String>>() {
        return Ok(BooleanBuffer::collect_bool(n, |i| {
            at(i).is_some_and(|b| v.binary_search_by(|s| s.as_bytes().cmp(b)).is_ok())
        }));
    }
    let v = set
        .values
        .downcast_ref::<Vec<Vec<u8>>>()
        .ok_or("IN set of another type")?;
    Ok(BooleanBuffer::collect_bool(n, |i| {
        at(i).is_some_and(|b| v.binary_search_by(|s| s.as_slice().cmp(b)).is_ok())
    }))
}
