//! Lazy evaluation: each part of a condition only on the rows whose answer it can change, so
//! that a guard keeps a failing value away, as in DuckDB.
//!
//! `--where "s SIMILAR TO '[0-9]+' AND CAST(s AS INTEGER) > 5"` must not fail on `s = 'abc'`:
//! the row is out whatever the cast would say. DuckDB filters that way (a conjunction's
//! operands run on the rows the others kept, in an order it picks by cost), and evaluates a
//! `CASE` value and a `coalesce` argument only on the rows that take it. Evaluation here
//! first runs the whole condition on every row ([`super::eval`]), the fast path, and comes
//! here only when that fails. The answer is the same wherever both succeed, since an
//! operation's value on a row depends on that row alone. Here:
//!
//! - **Filters** (the whole condition, a `WHEN`, and the operands of `AND`, `OR` and `NOT`
//!   within them) are evaluated for the rows where they are TRUE, NULL counting as FALSE. An
//!   `AND` runs each operand on the rows the others have kept so far, an `OR` on the rows none
//!   has taken so far. Under a `NOT`, they are evaluated for the rows where they are FALSE:
//!   `NOT (a OR b)` is `NOT a AND NOT b` (DuckDB may even prove it never TRUE from a file's
//!   statistics, and evaluate neither). An operand that fails is put back and tried again
//!   once the others have narrowed the rows, so the order the condition is written in does
//!   not matter: when any order of the operands succeeds (DuckDB's, whichever it picks), this
//!   one does.
//! - **`CASE`** runs each `WHEN` on the rows no earlier one took, and each value on the
//!   rows that take it. **`coalesce`** (and `ifnull`) runs each argument on the rows the
//!   earlier ones left NULL.
//! - **A comparison with a constant NULL** (`x <> NULL`, `x = TRY_CAST('2021-02-30' AS
//!   DATE)`, `x > CAST(NULL AS DATE) + 1`: a side that reads no column and is NULL) is NULL
//!   on every row, its other side not evaluated: DuckDB's optimizer folds it so
//!   (`ComparisonSimplificationRule`), wherever it stands. Likewise a filter `x BETWEEN lo
//!   AND hi` with a constant NULL bound, or with constant bounds in the wrong order
//!   (`x BETWEEN 16 AND 2.5`), keeps no row (DuckDB splits a filter's `BETWEEN` into two
//!   comparisons, one of which folds, or which its filter combiner finds contradictory).
//! - **`AND` and `OR` as values** (a computed column, an operand of a comparison) are FALSE
//!   (TRUE) where some operand is, each operand run on the rows the others have not decided;
//!   the rows none decides take every operand's value.
//! - Everything else (comparisons, functions and `NOT` as values) runs on every row it is
//!   given, as in DuckDB.
//!
//! The evaluator recurses on nested filters and `CASE`s; past [`MAX_DEPTH`] levels it gives
//! up and the first error stands.

use std::cell::Cell;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use arrow::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use arrow::compute::{filter_record_batch, take};

use super::arith::Operand;
use super::eval::{self, InSets, Reason, Val};
use super::func::{self, Arg, Func};
use super::parse::{Node, Tree};

/// How many filters and `CASE`s deep the lazy evaluator goes.
pub(crate) const MAX_DEPTH: usize = 64;

/// The lazy evaluator of one tree on one batch.
pub(super) struct Lazy<'a, 'b> {
    tree: &'a Tree,
    sets: &'b InSets,
    depth: Cell<usize>,
    too_deep: Cell<bool>,
    /// The nodes that are a constant NULL (read no column, and evaluate to NULL), among the
    /// operands of comparisons and `BETWEEN`s.
    null: Vec<bool>,
    /// The `BETWEEN`s never TRUE: their bounds constants in the wrong order (`x BETWEEN 16
    /// AND 2.5`).
    never: Vec<bool>,
}

/// The rows of `batch` where `tree` is TRUE, evaluated lazily. `Ok(None)`: nested deeper
/// than [`MAX_DEPTH`].
pub(super) fn select(
    tree: &Tree,
    sets: &InSets,
    batch: &RecordBatch,
) -> Result<Option<BooleanBuffer>, Reason> {
    let lazy = Lazy::new(tree, sets);
    match lazy.select(tree.root(), batch) {
        Ok(rows) => Ok(Some(rows)),
        Err(_) if lazy.too_deep.get() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The value of `tree` on every row of `batch`, its `CASE`s and `coalesce`s lazily (see
/// [`Lazy::value`]), and its conditions as values. `Ok(None)`: nested deeper than
/// [`MAX_DEPTH`].
pub(super) fn value<'a>(
    tree: &'a Tree,
    sets: &InSets,
    batch: &RecordBatch,
) -> Result<Option<Val<'a>>, Reason> {
    let lazy = Lazy::new(tree, sets);
    match lazy.value(tree.root(), batch) {
        Ok(v) => Ok(Some(v)),
        Err(_) if lazy.too_deep.get() => Ok(None),
        Err(e) => Err(e),
    }
}

impl<'a, 'b> Lazy<'a, 'b> {
    /// The lazy evaluator of `tree`.
    fn new(tree: &'a Tree, sets: &'b InSets) -> Self {
        let (null, never) = constants(tree, sets);
        Lazy {
            tree,
            sets,
            depth: Cell::new(0),
            too_deep: Cell::new(false),
            null,
            never,
        }
    }

    /// Whether node `i` is evaluated here when the tree is evaluated lazily.
    pub(super) fn takes(&self, i: usize) -> bool {
        match &self.tree.nodes[i] {
            Node::Func(Func::Case(_) | Func::Coalesce, _) | Node::And(_) | Node::Or(_) => true,
            Node::Cmp(_, a, b) => self.null[*a] || self.null[*b],
            _ => false,
        }
    }

    /// `f`, one level deeper.
    fn deeper<T>(&self, f: impl FnOnce() -> Result<T, Reason>) -> Result<T, Reason> {
        let d = self.depth.get();
        if d >= MAX_DEPTH || self.too_deep.get() {
            self.too_deep.set(true);
            return Err(format!("nested over {MAX_DEPTH} levels deep"));
        }
        self.depth.set(d + 1);
        let r = f();
        self.depth.set(d);
        r
    }

    /// The value of `node` on every row of `batch`, its `CASE`s and `coalesce`s lazily.
    pub(super) fn value(&self, node: usize, batch: &RecordBatch) -> Result<Val<'a>, Reason> {
        match &self.tree.nodes[node] {
            Node::Func(Func::Case(has_else), args) => {
                self.deeper(|| self.case(args, *has_else, batch))
            }
            Node::Func(Func::Coalesce, args) => self.deeper(|| self.coalesce(args, batch)),
            Node::And(children) => self.deeper(|| self.logic(children, true, batch)),
            Node::Or(children) => self.deeper(|| self.logic(children, false, batch)),
            Node::Cmp(_, a, b) if self.null[*a] || self.null[*b] => {
                Ok(Val::Bool(BooleanArray::new_null(batch.num_rows())))
            }
            _ => eval::evaluate_node(self.tree, node, self.sets, batch, Some(self)),
        }
    }

    /// The rows of `batch` where `node` is `want` (TRUE: a filter; FALSE: a filter under
    /// `NOT`, where `NOT (a OR b)` keeps the rows where `a` and `b` are both FALSE).
    fn select_is(
        &self,
        node: usize,
        want: bool,
        batch: &RecordBatch,
    ) -> Result<BooleanBuffer, Reason> {
        match &self.tree.nodes[node] {
            // AND is TRUE where every operand is, FALSE where any is; OR the other way.
            Node::And(children) if want => self.deeper(|| self.all(children, want, batch)),
            Node::Or(children) if !want => self.deeper(|| self.all(children, want, batch)),
            Node::And(children) | Node::Or(children) => {
                self.deeper(|| self.any(children, want, batch))
            }
            Node::Not(c) => self.deeper(|| self.select_is(*c, !want, batch)),
            // Never TRUE (`NOT BETWEEN` never FALSE) with a NULL bound, or bounds in the
            // wrong order.
            Node::Between(_, lo, hi, negated)
                if want != *negated && (self.null[*lo] || self.null[*hi] || self.never[node]) =>
            {
                Ok(BooleanBuffer::new_unset(batch.num_rows()))
            }
            _ => {
                let v = self.value(node, batch)?;
                let b = eval::as_bool(self.tree, v, node, batch.num_rows())?;
                Ok(if want {
                    eval::true_rows(&b)
                } else {
                    eval::true_rows(&arrow::compute::not(&b).map_err(|e| e.to_string())?)
                })
            }
        }
    }

    /// The rows of `batch` where `node` is TRUE (a filter).
    fn select(&self, node: usize, batch: &RecordBatch) -> Result<BooleanBuffer, Reason> {
        self.select_is(node, true, batch)
    }

    /// The rows where every operand is `want`: each operand on the rows the others have kept
    /// so far; an operand that fails waits until the others have run.
    fn all(
        &self,
        children: &[usize],
        want: bool,
        batch: &RecordBatch,
    ) -> Result<BooleanBuffer, Reason> {
        let mut kept = BooleanBuffer::new_set(batch.num_rows());
        self.settle(children, |c| {
            let on = subset(batch, &kept)?;
            kept = spread(&kept, &self.select_is(c, want, &on)?);
            Ok(())
        })?;
        Ok(kept)
    }

    /// The rows where some operand is `want`: each operand on the rows no other has taken so
    /// far; an operand that fails waits until the others have run.
    fn any(
        &self,
        children: &[usize],
        want: bool,
        batch: &RecordBatch,
    ) -> Result<BooleanBuffer, Reason> {
        let mut open = BooleanBuffer::new_set(batch.num_rows());
        self.settle(children, |c| {
            let on = subset(batch, &open)?;
            let taken = spread(&open, &self.select_is(c, want, &on)?);
            open = &open & &!&taken;
            Ok(())
        })?;
        Ok(!&open)
    }

    /// Run `step` on each of `children`, in rounds: a child that fails is tried again in the
    /// next round, until all succeed or a round succeeds on none (its first error).
    fn settle(
        &self,
        children: &[usize],
        mut step: impl FnMut(usize) -> Result<(), Reason>,
    ) -> Result<(), Reason> {
        let mut pending = children.to_vec();
        loop {
            let mut failed = Vec::new();
            let mut first = None;
            for &c in &pending {
                if let Err(e) = step(c) {
                    if self.too_deep.get() {
                        return Err(e);
                    }
                    first.get_or_insert(e);
                    failed.push(c);
                }
            }
            match first {
                None => return Ok(()),
                Some(e) if failed.len() == pending.len() => return Err(e),
                Some(_) => pending = failed,
            }
        }
    }

    /// `AND` (`and`) or `OR` as a value: FALSE (TRUE for `OR`) where some operand is, each
    /// operand run on the rows no other has decided so far; on the other rows TRUE (FALSE)
    /// where every operand is, else NULL. An operand is needed only on the rows the others
    /// leave open, so a failing value there fails, and elsewhere does not. DuckDB skips an
    /// operand when the others have decided every row of its chunk of 2,048 (fuzz seed 7904,
    /// join case 207: `make_date(-5, ra, 30) <= ... AND rs = 'éA'` over a row where `rs` is
    /// not `'éA'`), so where it answers, so does this.
    fn logic(&self, children: &[usize], and: bool, batch: &RecordBatch) -> Result<Val<'a>, Reason> {
        // The rows an operand decides: FALSE for AND, TRUE for OR.
        let decided = self.any(children, !and, batch)?;
        let open = !&decided;
        let rest = spread(&open, &self.all(children, and, &subset(batch, &open)?)?);
        let valid = &decided | &rest;
        let values = if and { rest } else { decided };
        Ok(Val::Bool(BooleanArray::new(
            values,
            Some(NullBuffer::new(valid)),
        )))
    }

    /// `CASE`: each `WHEN` (a filter) on the rows no earlier one took, each value on the
    /// rows that take it; then [`func::call`] puts the values together as it does for the
    /// eager evaluation (their common type, converted on the rows that take them).
    fn case(&self, args: &[usize], has_else: bool, batch: &RecordBatch) -> Result<Val<'a>, Reason> {
        let n = batch.num_rows();
        let branches = (args.len() - usize::from(has_else)) / 2;
        let mut open = BooleanBuffer::new_set(n);
        let mut out: Vec<Arg> = Vec::with_capacity(args.len());
        for b in 0..branches {
            let (when, then) = (args[2 * b], args[2 * b + 1]);
            let taken = spread(&open, &self.select(when, &subset(batch, &open)?)?);
            open = &open & &!&taken;
            let v = self.value(then, &subset(batch, &taken)?)?;
            out.push((
                Operand::Rows(Arc::new(BooleanArray::new(taken.clone(), None))),
                eval::describe(self.tree, when),
            ));
            out.push((spread_value(v, &taken)?, eval::describe(self.tree, then)));
        }
        if has_else {
            let e = args[args.len() - 1];
            let v = self.value(e, &subset(batch, &open)?)?;
            out.push((spread_value(v, &open)?, eval::describe(self.tree, e)));
        }
        eval::arith_value(func::call(Func::Case(has_else), out)?, n)
    }

    /// `coalesce`: each argument on the rows the earlier ones left NULL.
    fn coalesce(&self, args: &[usize], batch: &RecordBatch) -> Result<Val<'a>, Reason> {
        let n = batch.num_rows();
        let mut open = BooleanBuffer::new_set(n);
        let mut out: Vec<Arg> = Vec::with_capacity(args.len());
        for &a in args {
            let on = subset(batch, &open)?;
            let v = self.value(a, &on)?;
            let has = spread(&open, &eval::valid(&v, on.num_rows()));
            out.push((spread_value(v, &open)?, eval::describe(self.tree, a)));
            open = &open & &!&has;
        }
        eval::arith_value(func::call(Func::Coalesce, out)?, n)
    }
}

/// Which nodes of `tree` are a constant NULL, among the operands of comparisons and
/// `BETWEEN`s: they read no column, and evaluate to NULL (a constant that fails, such as
/// `CAST('x' AS DATE)`, is none: DuckDB leaves it unfolded); and which `BETWEEN`s have
/// constant bounds in the wrong order (never TRUE).
fn constants(tree: &Tree, sets: &InSets) -> (Vec<bool>, Vec<bool>) {
    let mut null = vec![false; tree.nodes.len()];
    let mut never = vec![false; tree.nodes.len()];
    let reads_columns = |root: usize| {
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            let node = &tree.nodes[i];
            if matches!(node, Node::Column(_)) {
                return true;
            }
            stack.extend((0..).map_while(|k| node.child(k)));
        }
        false
    };
    // One row and no columns: a constant's value, once.
    let one = RecordBatch::try_new_with_options(
        Arc::new(arrow::datatypes::Schema::empty()),
        vec![],
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(1)),
    )
    .expect("a batch of no columns");
    for (i, node) in tree.nodes.iter().enumerate() {
        let operands: &[usize] = match node {
            Node::Cmp(_, a, b) => &[*a, *b],
            Node::Between(_, lo, hi, _) => {
                // DuckDB's filter combiner finds `x >= 16 AND x <= 2.5` unsatisfiable.
                if !reads_columns(*lo) && !reads_columns(*hi) {
                    never[i] = eval::constant_above(tree, sets, &one, *lo, *hi) == Some(true);
                }
                &[*lo, *hi]
            }
            _ => continue,
        };
        for &c in operands {
            if null[c] || reads_columns(c) {
                continue;
            }
            null[c] = match eval::evaluate_node(tree, c, sets, &one, None) {
                Ok(v) => !eval::valid(&v, 1).value(0),
                Err(_) => false,
            };
        }
    }
    (null, never)
}

/// The rows of `batch` that `rows` selects.
fn subset(batch: &RecordBatch, rows: &BooleanBuffer) -> Result<RecordBatch, Reason> {
    if rows.count_set_bits() == rows.len() {
        return Ok(batch.clone());
    }
    filter_record_batch(batch, &BooleanArray::new(rows.clone(), None)).map_err(|e| e.to_string())
}

/// `inner`, a buffer over the rows `outer` selects, as a buffer over all of `outer`'s rows
/// (unset where `outer` is).
fn spread(outer: &BooleanBuffer, inner: &BooleanBuffer) -> BooleanBuffer {
    if inner.len() == outer.len() {
        return inner & outer;
    }
    let mut bits = MutableBuffer::from_len_zeroed(outer.len().div_ceil(8));
    for (k, at) in outer.set_indices().enumerate() {
        if inner.value(k) {
            arrow::util::bit_util::set_bit(bits.as_slice_mut(), at);
        }
    }
    BooleanBuffer::new(bits.into(), 0, outer.len())
}

/// `v`, a value over the rows `rows` selects, as an operand over all of them (NULL where
/// `rows` is unset).
fn spread_value(v: Val, rows: &BooleanBuffer) -> Result<Operand, Reason> {
    let a: ArrayRef = match v {
        Val::Arr(a) => a,
        Val::Bool(b) => Arc::new(b),
        // A literal is the same on every row.
        lit @ Val::Lit(_) => return eval::operand(lit),
    };
    if a.len() == rows.len() {
        return Ok(Operand::Rows(a));
    }
    if a.is_empty() {
        return Ok(Operand::Rows(arrow::array::new_null_array(
            a.data_type(),
            rows.len(),
        )));
    }
    // The k-th selected row takes value k; the others are NULL (and point at value 0).
    let mut at = Vec::with_capacity(rows.len());
    let mut k = 0u32;
    for taken in rows.iter() {
        at.push(if taken { k } else { 0 });
        k += u32::from(taken);
    }
    let indices = UInt32Array::new(at.into(), Some(NullBuffer::new(rows.clone())));
    take(a.as_ref(), &indices, None)
        .map(Operand::Rows)
        .map_err(|e| e.to_string())
}
