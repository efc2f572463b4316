//! From `--where` text to a [`Tree`]: tokenized and parsed by `sqlparser` (DuckDB dialect),
//! then converted into a flat tree whose nodes live in one vector, children before parents.
//!
//! Nothing here recurses on the depth of the input: the conversion walks the parser's tree
//! with an explicit stack, taking it apart as it goes (so it is never dropped recursively),
//! and flattens chains of `AND` and of `OR` into one n-ary node. sqlparser's own recursion
//! is bounded by [`MAX_OPERATORS`] (counted on the tokens before parsing) and protected by
//! its `recursive-protection` feature, which grows the stack on the heap when it runs low.

use arrow::datatypes::{DataType, TimeUnit};
use sqlparser::ast::{self, BinaryOperator, UnaryOperator, Value, ValueWithSpan};
use sqlparser::dialect::DuckDbDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use super::cast::{IntTy, Target};
use super::diff::Unit;
use super::epoch::Epoch;
use super::eval::infinite;
use super::func::{Func, Part, Trunc};
use super::lit::{self, Lit};
use super::math::Math;
use super::re::{Opts, Re};
use super::strtime;
use super::text::{Side, Text};

/// The most operators, keywords and opening parentheses one expression may have. It bounds
/// the depth of every tree the parser builds (a chain `a OR b OR ...` is as deep as it is
/// long in sqlparser's tree), so that even its error paths, which drop that tree
/// recursively, fit the 2 MiB stack of a worker thread with room to spare (they overflow
/// near 30,000 levels). A 2,000-term `x = 1 OR ...` uses about 4,000.
pub const MAX_OPERATORS: usize = 10_000;

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CmpOp {
    /// The operator with its operands swapped: `a < b` is `b > a`.
    pub(crate) fn flip(self) -> Self {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            o => o,
        }
    }

    /// The operator of the negated comparison: `NOT a < b` is `a >= b` (values being totally
    /// ordered, and a comparison with NULL NULL either way).
    pub(crate) fn negate(self) -> Self {
        match self {
            CmpOp::Eq => CmpOp::NotEq,
            CmpOp::NotEq => CmpOp::Eq,
            CmpOp::Lt => CmpOp::GtEq,
            CmpOp::LtEq => CmpOp::Gt,
            CmpOp::Gt => CmpOp::LtEq,
            CmpOp::GtEq => CmpOp::Lt,
        }
    }
}

/// Arithmetic operators. `//` is not among them: DuckDB's is a truncating division of
/// integers and a float division of anything else, a distinction the exact arithmetic here
/// does not keep (an integer sum and a decimal of scale 0 are the same type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    /// `a / b`: a DOUBLE (a FLOAT when a FLOAT meets no DOUBLE), as in DuckDB.
    Div,
    /// `a % b` (`mod(a, b)`): the remainder of the truncated quotient, with the sign of `a`.
    Rem,
    /// `a // b` (`divide(a, b)`): of integers, the quotient truncated toward zero, an
    /// integer; of anything else `a / b`, as in DuckDB.
    IntDiv,
}

impl ArithOp {
    /// The operator as written.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
            ArithOp::IntDiv => "//",
        }
    }
}

/// A node of the tree; children are indices of earlier nodes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Column(String),
    Lit(Lit),
    /// A constant that fails on its value (`CAST('2020-13-45' AS DATE)`): the reason, and
    /// the type it would have. As DuckDB, which leaves such a constant unfolded, it fails
    /// where a row reaches it, and not where none does (a `CASE` branch no row takes).
    Fails(String, DataType),
    /// `a + b`, `a - b`, `a * b`: a value, not a condition.
    Arith(ArithOp, usize, usize),
    /// `-a` (negated) or `+a` of an operand that is no literal number.
    Sign(usize, bool),
    Cmp(CmpOp, usize, usize),
    And(Vec<usize>),
    Or(Vec<usize>),
    Not(usize),
    /// `a IS [NOT] NULL` (negated).
    IsNull(usize, bool),
    /// `a [NOT] IN (b, c, ...)`: the operand, then the list.
    InList(Vec<usize>, bool),
    /// `a [NOT] BETWEEN lo AND hi`.
    Between(usize, usize, usize, bool),
    /// `a [NOT] [I]LIKE p [ESCAPE e]`: the pattern in Arrow's syntax, negated,
    /// case-insensitive.
    Like(usize, String, bool, bool),
    /// `a IS [NOT] DISTINCT FROM b` (`NOT`: true).
    Distinct(usize, usize, bool),
    /// A function of its arguments: a value, not a condition.
    Func(Func, Vec<usize>),
}

impl Node {
    /// The `i`-th child, in evaluation order.
    pub(crate) fn child(&self, i: usize) -> Option<usize> {
        match self {
            Node::Column(_) | Node::Lit(_) | Node::Fails(..) => None,
            Node::Cmp(_, a, b) | Node::Arith(_, a, b) | Node::Distinct(a, b, _) => {
                [*a, *b].get(i).copied()
            }
            Node::And(c) | Node::Or(c) | Node::InList(c, _) | Node::Func(_, c) => c.get(i).copied(),
            Node::Not(a) | Node::IsNull(a, _) | Node::Like(a, ..) | Node::Sign(a, _) => {
                (i == 0).then_some(*a)
            }
            Node::Between(a, lo, hi, _) => [*a, *lo, *hi].get(i).copied(),
        }
    }
}

impl Node {
    /// The node with every child index `c` replaced by `to[c]`.
    pub(crate) fn remapped(&self, to: &[usize]) -> Node {
        let m = |c: &usize| to[*c];
        let all = |v: &[usize]| v.iter().map(m).collect();
        match self {
            Node::Column(_) | Node::Lit(_) | Node::Fails(..) => self.clone(),
            Node::Cmp(op, a, b) => Node::Cmp(*op, m(a), m(b)),
            Node::Arith(op, a, b) => Node::Arith(*op, m(a), m(b)),
            Node::Sign(a, negated) => Node::Sign(m(a), *negated),
            Node::And(c) => Node::And(all(c)),
            Node::Or(c) => Node::Or(all(c)),
            Node::Not(a) => Node::Not(m(a)),
            Node::IsNull(a, neg) => Node::IsNull(m(a), *neg),
            Node::InList(c, neg) => Node::InList(all(c), *neg),
            Node::Between(a, lo, hi, neg) => Node::Between(m(a), m(lo), m(hi), *neg),
            Node::Like(a, p, neg, ci) => Node::Like(m(a), p.clone(), *neg, *ci),
            Node::Distinct(a, b, not) => Node::Distinct(m(a), m(b), *not),
            Node::Func(f, c) => Node::Func(*f, all(c)),
        }
    }
}

/// A parsed expression: nodes in post-order, the root last.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The index of the root.
    pub(crate) fn root(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The tree under node `top` (which becomes the root), without recursion.
    pub(crate) fn subtree(&self, top: usize) -> Tree {
        let mut keep = vec![false; top + 1];
        let mut stack = vec![top];
        while let Some(n) = stack.pop() {
            if !keep[n] {
                keep[n] = true;
                stack.extend((0..).map_while(|i| self.nodes[n].child(i)));
            }
        }
        // Children come before their parents, so the kept nodes in order stay in post-order.
        let mut new_index = vec![usize::MAX; top + 1];
        let mut nodes = Vec::new();
        for (i, node) in self.nodes[..=top].iter().enumerate() {
            if keep[i] {
                new_index[i] = nodes.len();
                nodes.push(node.remapped(&new_index));
            }
        }
        Tree { nodes }
    }
}

/// Parse `text` into a tree; errors are the reason only (the caller adds the option).
pub(crate) fn parse(text: &str) -> Result<Tree, String> {
    let dialect = DuckDbDialect {};
    let tokens = tokens(&dialect, text)?;
    let operators = tokens
        .iter()
        .filter(|t| counts_as_operator(&t.token))
        .count();
    if operators > MAX_OPERATORS {
        return Err(format!(
            "too long: {operators} operators, keywords and parentheses (at most \
             {MAX_OPERATORS}; a long list of alternatives is shorter as IN (...))"
        ));
    }
    // Every level of nesting costs sqlparser two or three units of its recursion budget;
    // MAX_OPERATORS already bounds the nesting, so this limit never binds first.
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(4 * MAX_OPERATORS + 64)
        .with_tokens_with_locations(tokens);
    let ast = parser.parse_expr().map_err(|e| match e {
        ParserError::RecursionLimitExceeded => "nested too deeply".to_string(),
        other => other.to_string(),
    })?;
    let rest = parser.peek_token();
    if rest.token != Token::EOF {
        let rest = rest.token.to_string();
        return Err(format!("unexpected {rest} after the expression"));
    }
    convert(ast)
}

/// `text`'s tokens, where the field of an `EXTRACT` is written as a string: sqlparser takes
/// only its own list of field names there (not `yearweek`, `era` or DuckDB's abbreviations
/// such as `yr`), DuckDB any name of a part, and both take the name quoted.
fn tokens(dialect: &DuckDbDialect, text: &str) -> Result<Vec<TokenWithSpan>, String> {
    let mut tokens = Tokenizer::new(dialect, text)
        .tokenize_with_location()
        .map_err(|e| e.to_string())?;
    let solid: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    // DuckDB's `TIMESTAMP_MS '...'` (and `_NS`, `_US`, `_S`, `DATETIME`) is its cast of the
    // string; sqlparser reads no such typed string: make it `CAST('...' AS TIMESTAMP_MS)`.
    for w in solid.windows(2).rev() {
        let unit = match &tokens[w[0]].token {
            Token::Word(x) if x.quote_style.is_none() => timestamp_precision(&x.value),
            _ => None,
        };
        let after_dot = w[0] > 0 && tokens[w[0] - 1].token == Token::Period;
        if unit.is_none() || after_dot {
            continue;
        }
        if let Token::SingleQuotedString(_) = tokens[w[1]].token {
            let at = |t: Token| TokenWithSpan::new(t, tokens[w[0]].span);
            let (name, text) = (tokens[w[0]].token.clone(), tokens[w[1]].token.clone());
            let cast = [
                at(Token::make_keyword("CAST")),
                at(Token::LParen),
                at(text),
                at(Token::make_keyword("AS")),
                at(name),
                at(Token::RParen),
            ];
            tokens.splice(w[0]..=w[1], cast);
        }
    }
    let solid: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    for w in solid.windows(3) {
        let extract =
            matches!(&tokens[w[0]].token, Token::Word(x) if x.keyword == Keyword::EXTRACT);
        if extract && tokens[w[1]].token == Token::LParen {
            if let Token::Word(field) = &tokens[w[2]].token {
                tokens[w[2]].token = Token::SingleQuotedString(field.value.clone());
            }
        }
    }
    Ok(tokens)
}

/// The operands of `text`'s top-level `AND` (outer parentheses dropped), each as sqlparser
/// prints it, in the order [`parse`] makes them the root's children; the whole text when its
/// root is no `AND`. `None` when it does not parse.
pub(crate) fn conjunct_texts(text: &str) -> Option<Vec<String>> {
    let dialect = DuckDbDialect {};
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(4 * MAX_OPERATORS + 64)
        .with_tokens_with_locations(tokens(&dialect, text).ok()?);
    let mut e = parser.parse_expr().ok()?;
    while let ast::Expr::Nested(x) = e {
        e = *x;
    }
    Some(match e {
        ast::Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => flatten(&BinaryOperator::And, *left, *right)
            .iter()
            .map(|c| c.to_string())
            .collect(),
        _ => vec![text.to_string()],
    })
}

/// Tokens that can add a level to sqlparser's tree: operators, keywords and `(`.
fn counts_as_operator(t: &Token) -> bool {
    match t {
        Token::Whitespace(_)
        | Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::Comma
        | Token::RParen
        | Token::EOF => false,
        Token::Word(w) => w.keyword != Keyword::NoKeyword,
        _ => true,
    }
}

/// Work for the conversion's explicit stack.
enum Task {
    /// Convert this expression, leaving one node index on the result stack.
    Visit(Box<ast::Expr>),
    /// Pop this many results and make a node of them.
    Make(Make),
}

enum Make {
    Cmp(CmpOp),
    Arith(ArithOp),
    Sign(bool),
    And(usize),
    Or(usize),
    Not,
    IsNull(bool),
    InList(usize, bool),
    Between(bool),
    Like(String, bool, bool),
    Distinct(bool),
    Func(Func, usize),
}

/// Convert sqlparser's tree, iteratively, consuming it.
fn convert(root: ast::Expr) -> Result<Tree, String> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    // The literals written as DuckDB's `TIMESTAMP_NS` (`TIMESTAMP_NS '...'`, `CAST('...' AS
    // TIMESTAMP_NS)`), whatever their digits: see `ns_lists`.
    let mut ns_typed: Vec<usize> = Vec::new();
    let mut tasks = vec![Task::Visit(Box::new(root))];
    let push = |nodes: &mut Vec<Node>, done: &mut Vec<usize>, n: Node| {
        nodes.push(n);
        done.push(nodes.len() - 1);
    };
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(e) => visit(*e, &mut tasks, &mut nodes, &mut done, &mut ns_typed, push)?,
            Task::Make(m) => {
                let mut take = |k: usize| done.split_off(done.len() - k);
                let node = match m {
                    Make::Cmp(op) => {
                        let c = take(2);
                        Node::Cmp(op, c[0], c[1])
                    }
                    Make::Arith(op) => {
                        let c = take(2);
                        Node::Arith(op, c[0], c[1])
                    }
                    Make::Sign(negated) => Node::Sign(take(1)[0], negated),
                    Make::And(k) => Node::And(take(k)),
                    Make::Or(k) => Node::Or(take(k)),
                    Make::Not => Node::Not(take(1)[0]),
                    Make::IsNull(neg) => Node::IsNull(take(1)[0], neg),
                    Make::InList(k, neg) => {
                        let c = take(k);
                        unify_doubles(&mut nodes, &c);
                        ns_lists(&mut nodes, &c, &ns_typed, "an IN list")?;
                        Node::InList(c, neg)
                    }
                    Make::Between(neg) => {
                        let c = take(3);
                        unify_doubles(&mut nodes, &c);
                        ns_lists(&mut nodes, &c, &ns_typed, "BETWEEN")?;
                        Node::Between(c[0], c[1], c[2], neg)
                    }
                    Make::Like(p, neg, ci) => Node::Like(take(1)[0], p, neg, ci),
                    Make::Distinct(not) => {
                        let c = take(2);
                        Node::Distinct(c[0], c[1], not)
                    }
                    Make::Func(f, k) => Node::Func(f, take(k)),
                };
                push(&mut nodes, &mut done, node);
            }
        }
    }
    debug_assert_eq!(done.len(), 1);
    Ok(Tree { nodes })
}

/// DuckDB binds the literals of an `IN` list (with its operand) and the three operands of
/// `BETWEEN` to one common type: when one of them is a DOUBLE (`1e0`), every exact number
/// among them becomes a DOUBLE too, so `u64 IN (9223372036854775807, 1e0)` holds for 2^63 and
/// `f32 BETWEEN 0.1 AND 1e0` compares the FLOAT as a DOUBLE. Do the same to the literals
/// here; comparisons with columns then follow the DOUBLE rules.
fn unify_doubles(nodes: &mut [Node], operands: &[usize]) {
    let is_double = |n: &Node| matches!(n, Node::Lit(Lit::Double(_)));
    if !operands.iter().any(|&i| is_double(&nodes[i])) {
        return;
    }
    for &i in operands {
        if let Node::Lit(Lit::Num(d)) = &nodes[i] {
            nodes[i] = Node::Lit(Lit::Double(d.to_f64()));
        }
    }
}

/// DuckDB binds an `IN` list and its operand (and `BETWEEN`'s three operands) to one type,
/// and a `TIMESTAMP_NS` literal among them (bloomjoin's `TIMESTAMP` with digits past the
/// microsecond is one, as its text for DuckDB is) makes it `TIMESTAMP_NS`, even when the
/// operand is a timestamp with a time zone (DuckDB 2.0.1; not when it is one of nanoseconds;
/// `BETWEEN` refuses that mix). Its strings are then cast to `TIMESTAMP_NS`: nanoseconds kept,
/// a UTC offset or a zone's name dropped (`tz IN (TIMESTAMP_NS '2000-01-01', '2031-08-10
/// 05:30:00+05:30')` misses the instant 2031-08-10 00:00 UTC; `ts_us BETWEEN '2020-01-01
/// 00:00:00.0000001' AND TIMESTAMP_NS '2030-01-01'` misses 2020-01-01 00:00). So such strings
/// are read here as `TIMESTAMP_NS '...'` (whatever the operand, as DuckDB does), and one with
/// a time zone is refused rather than read either way, as against a column without one;
/// `TIMESTAMPTZ '...'` says what it means. `what` names the construct in messages.
fn ns_lists(
    nodes: &mut [Node],
    operands: &[usize],
    ns_typed: &[usize],
    what: &str,
) -> Result<(), String> {
    let Some(shown) = operands.iter().find_map(|&i| match &nodes[i] {
        Node::Lit(l @ Lit::Timestamp(v))
            if ns_typed.contains(&i)
                || (v.rem_euclid(1_000) != 0 && v.abs() != lit::INFINITE_NS) =>
        {
            Some(l.to_string())
        }
        _ => None,
    }) else {
        return Ok(());
    };
    for &i in operands {
        let Node::Lit(Lit::Str(s)) = &nodes[i] else {
            continue;
        };
        nodes[i] = Node::Lit(lit::ns_string(s, what, &shown)?);
    }
    Ok(())
}

fn visit(
    e: ast::Expr,
    tasks: &mut Vec<Task>,
    nodes: &mut Vec<Node>,
    done: &mut Vec<usize>,
    ns_typed: &mut Vec<usize>,
    push: impl Fn(&mut Vec<Node>, &mut Vec<usize>, Node),
) -> Result<(), String> {
    use ast::Expr as A;
    match e {
        A::Nested(x) => tasks.push(Task::Visit(x)),
        A::Identifier(id) => push(nodes, done, Node::Column(id.value)),
        A::CompoundIdentifier(ids) => {
            let name = ids
                .iter()
                .map(|i| i.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            push(nodes, done, Node::Column(name))
        }
        A::Value(v) => push(nodes, done, Node::Lit(value(v.value, false)?)),
        A::TypedString(ts) => push(nodes, done, Node::Lit(typed(ts)?)),
        A::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => {
            tasks.push(Task::Make(Make::Not));
            tasks.push(Task::Visit(expr));
        }
        A::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            ..
        } => match signed(e)? {
            Signed::Lit(l) => push(nodes, done, Node::Lit(l)),
            Signed::Of(x, negated) => {
                tasks.push(Task::Make(Make::Sign(negated)));
                tasks.push(Task::Visit(x));
            }
        },
        A::Interval(iv) => push(nodes, done, Node::Lit(interval(iv)?)),
        A::AtTimeZone {
            timestamp,
            time_zone,
        } => {
            let zone = zone_literal(*time_zone, "x AT TIME ZONE 'Europe/Oslo'")?;
            tasks.push(Task::Make(Make::Func(Func::AtZone(zone), 1)));
            tasks.push(Task::Visit(timestamp));
        }
        A::BinaryOp {
            left,
            op: op @ (BinaryOperator::And | BinaryOperator::Or),
            right,
        } => {
            let operands = flatten(&op, *left, *right);
            tasks.push(Task::Make(if op == BinaryOperator::And {
                Make::And(operands.len())
            } else {
                Make::Or(operands.len())
            }));
            tasks.extend(operands.into_iter().rev().map(|e| Task::Visit(Box::new(e))));
        }
        A::BinaryOp {
            left,
            op:
                op @ (BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::DuckIntegerDivide
                | BinaryOperator::Modulo),
            right,
        } => {
            tasks.push(Task::Make(Make::Arith(match op {
                BinaryOperator::Plus => ArithOp::Add,
                BinaryOperator::Minus => ArithOp::Sub,
                BinaryOperator::Divide => ArithOp::Div,
                BinaryOperator::Modulo => ArithOp::Rem,
                BinaryOperator::DuckIntegerDivide => ArithOp::IntDiv,
                _ => ArithOp::Mul,
            })));
            tasks.push(Task::Visit(right));
            tasks.push(Task::Visit(left));
        }
        A::BinaryOp {
            left,
            op:
                op @ (BinaryOperator::PGRegexMatch
                | BinaryOperator::PGRegexIMatch
                | BinaryOperator::PGRegexNotMatch
                | BinaryOperator::PGRegexNotIMatch),
            right,
        } => {
            let opts = Opts {
                icase: matches!(
                    op,
                    BinaryOperator::PGRegexIMatch | BinaryOperator::PGRegexNotIMatch
                ),
                ..Opts::default()
            };
            let negated = matches!(
                op,
                BinaryOperator::PGRegexNotMatch | BinaryOperator::PGRegexNotIMatch
            );
            regex_op(
                Re::Matches { full: false, opts },
                left,
                right,
                negated,
                tasks,
            )?;
        }
        A::SimilarTo {
            negated,
            expr,
            pattern,
            escape_char,
        } => {
            if escape_char.is_some() {
                return Err(
                    "unsupported: SIMILAR TO with ESCAPE (its pattern is a regular \
                            expression: escape with a backslash)"
                        .into(),
                );
            }
            let r = Re::Matches {
                full: true,
                opts: Opts::default(),
            };
            regex_op(r, expr, pattern, negated, tasks)?;
        }
        A::BinaryOp {
            left,
            op: BinaryOperator::StringConcat,
            right,
        } => {
            tasks.push(Task::Make(Make::Func(Func::Text(Text::Pipe), 2)));
            tasks.push(Task::Visit(right));
            tasks.push(Task::Visit(left));
        }
        A::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            // SUBSTRING(s FOR n) starts at the first character.
            let from = substring_from
                .unwrap_or_else(|| Box::new(A::value(Value::Number("1".to_string(), false))));
            let args: Vec<Box<ast::Expr>> = [Some(expr), Some(from), substring_for]
                .into_iter()
                .flatten()
                .collect();
            tasks.push(Task::Make(Make::Func(Func::Text(Text::Substr), args.len())));
            tasks.extend(args.into_iter().rev().map(Task::Visit));
        }
        A::Trim {
            trim_where,
            trim_what,
            expr,
            trim_characters,
        } => {
            let side = match trim_where {
                None | Some(ast::TrimWhereField::Both) => Side::Both,
                Some(ast::TrimWhereField::Leading) => Side::Leading,
                Some(ast::TrimWhereField::Trailing) => Side::Trailing,
            };
            let mut chars = trim_characters.unwrap_or_default();
            if chars.len() > 1 || (trim_what.is_some() && !chars.is_empty()) {
                return Err("trim() takes 1 or 2 arguments: trim(s[, characters])".into());
            }
            let what = trim_what.or_else(|| chars.pop().map(Box::new));
            let args: Vec<Box<ast::Expr>> = [Some(expr), what].into_iter().flatten().collect();
            tasks.push(Task::Make(Make::Func(
                Func::Text(Text::Trim(side)),
                args.len(),
            )));
            tasks.extend(args.into_iter().rev().map(Task::Visit));
        }
        A::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            // CASE x WHEN a THEN ...: WHEN x = a.
            let mut args = Vec::with_capacity(2 * conditions.len() + 1);
            for w in conditions {
                args.push(match &operand {
                    Some(x) => A::BinaryOp {
                        left: x.clone(),
                        op: BinaryOperator::Eq,
                        right: Box::new(w.condition),
                    },
                    None => w.condition,
                });
                args.push(w.result);
            }
            let has_else = else_result.is_some();
            args.extend(else_result.map(|e| *e));
            tasks.push(Task::Make(Make::Func(Func::Case(has_else), args.len())));
            tasks.extend(args.into_iter().rev().map(|e| Task::Visit(Box::new(e))));
        }
        A::Position { expr, r#in } => {
            tasks.push(Task::Make(Make::Func(Func::Text(Text::Strpos), 2)));
            tasks.push(Task::Visit(expr));
            tasks.push(Task::Visit(r#in));
        }
        A::BinaryOp { left, op, right } => {
            let op = match op {
                BinaryOperator::Eq => CmpOp::Eq,
                BinaryOperator::NotEq => CmpOp::NotEq,
                BinaryOperator::Lt => CmpOp::Lt,
                BinaryOperator::LtEq => CmpOp::LtEq,
                BinaryOperator::Gt => CmpOp::Gt,
                BinaryOperator::GtEq => CmpOp::GtEq,
                other => return Err(format!("unsupported: operator {other}")),
            };
            tasks.push(Task::Make(Make::Cmp(op)));
            tasks.push(Task::Visit(right));
            tasks.push(Task::Visit(left));
        }
        // x IS TRUE: x IS NOT DISTINCT FROM TRUE; x IS NOT FALSE: x IS DISTINCT FROM FALSE.
        A::IsTrue(x) => is_bool(x, true, true, tasks),
        A::IsNotTrue(x) => is_bool(x, true, false, tasks),
        A::IsFalse(x) => is_bool(x, false, true, tasks),
        A::IsNotFalse(x) => is_bool(x, false, false, tasks),
        // x IS UNKNOWN is x IS NULL, of any type (as DuckDB's).
        A::IsNull(x) | A::IsUnknown(x) => {
            tasks.push(Task::Make(Make::IsNull(false)));
            tasks.push(Task::Visit(x));
        }
        A::IsNotNull(x) | A::IsNotUnknown(x) => {
            tasks.push(Task::Make(Make::IsNull(true)));
            tasks.push(Task::Visit(x));
        }
        A::InList {
            expr,
            list,
            negated,
        } => {
            if list.is_empty() {
                return Err("IN () needs at least one value".into());
            }
            tasks.push(Task::Make(Make::InList(list.len() + 1, negated)));
            tasks.extend(list.into_iter().rev().map(|e| Task::Visit(Box::new(e))));
            tasks.push(Task::Visit(expr));
        }
        A::Between {
            expr,
            negated,
            low,
            high,
        } => {
            tasks.push(Task::Make(Make::Between(negated)));
            tasks.push(Task::Visit(high));
            tasks.push(Task::Visit(low));
            tasks.push(Task::Visit(expr));
        }
        A::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => like(expr, *pattern, escape_char, negated, false, tasks)?,
        A::ILike {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => like(expr, *pattern, escape_char, negated, true, tasks)?,
        A::IsDistinctFrom(a, b) => {
            tasks.push(Task::Make(Make::Distinct(false)));
            tasks.push(Task::Visit(b));
            tasks.push(Task::Visit(a));
        }
        A::IsNotDistinctFrom(a, b) => {
            tasks.push(Task::Make(Make::Distinct(true)));
            tasks.push(Task::Visit(b));
            tasks.push(Task::Visit(a));
        }
        A::Cast {
            kind,
            expr,
            data_type,
            format: None,
        } => {
            let try_ = matches!(kind, ast::CastKind::TryCast | ast::CastKind::SafeCast);
            if let Some(digits) = timestamp_precision(&data_type.to_string()) {
                // A column: its instants in the unit (`TIMESTAMP_US` and `DATETIME` are
                // `TIMESTAMP`).
                let Some(text) = literal_text(&expr) else {
                    let f = match digits {
                        0 => Func::TimestampUnit(TimeUnit::Second, try_),
                        3 => Func::TimestampUnit(TimeUnit::Millisecond, try_),
                        9 => Func::TimestampUnit(TimeUnit::Nanosecond, try_),
                        _ => Func::Timestamp(try_),
                    };
                    tasks.push(Task::Make(Make::Func(f, 1)));
                    tasks.push(Task::Visit(expr));
                    return Ok(());
                };
                // Digits beyond nanoseconds dropped, as DuckDB drops them.
                let text = &match text.split_once('.') {
                    Some((head, frac)) if digits == 9 => {
                        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
                        let cut = n.min(9);
                        format!("{head}.{}{}", &frac[..cut], &frac[n..])
                    }
                    _ => text.to_string(),
                };
                let node = match cast_literal(Func::Timestamp(try_), text, try_)
                    .and_then(|l| lit::timestamp_of_precision(l, digits, text))
                {
                    Ok(l) => Node::Lit(l),
                    Err(reason) => {
                        Node::Fails(reason, DataType::Timestamp(TimeUnit::Nanosecond, None))
                    }
                };
                push(nodes, done, node);
                if digits == 9 {
                    ns_typed.push(nodes.len() - 1);
                }
                return Ok(());
            }
            let f = match data_type {
                ast::DataType::Date => Func::Date(try_),
                ast::DataType::Timestamp(
                    None,
                    ast::TimezoneInfo::None | ast::TimezoneInfo::WithoutTimeZone,
                ) => Func::Timestamp(try_),
                ast::DataType::Timestamp(
                    None,
                    ast::TimezoneInfo::Tz | ast::TimezoneInfo::WithTimeZone,
                ) => Func::TimestampTz(try_),
                ast::DataType::Time(None, ast::TimezoneInfo::None) => Func::Clock(try_),
                other => match cast_target(&other)? {
                    Some(t) => Func::Cast(t, try_),
                    None => {
                        return Err(format!(
                            "unsupported: CAST to {other} (CAST takes DATE, TIMESTAMP (and _S, \
                             _MS, _NS), TIMESTAMPTZ, TIME, VARCHAR, UUID, DECIMAL(p, s) and \
                             the integer types TINYINT to UBIGINT)"
                        ))
                    }
                },
            };
            match literal_text(&expr).filter(|_| {
                matches!(
                    f,
                    Func::Date(_) | Func::Timestamp(_) | Func::TimestampTz(_) | Func::Clock(_)
                )
            }) {
                Some(s) => {
                    let node = match cast_literal(f, s, try_) {
                        Ok(l) => Node::Lit(l),
                        Err(reason) => Node::Fails(
                            reason,
                            match f {
                                Func::Date(_) => DataType::Date32,
                                Func::Clock(_) => DataType::Time64(TimeUnit::Microsecond),
                                Func::TimestampTz(_) => {
                                    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
                                }
                                _ => DataType::Timestamp(TimeUnit::Nanosecond, None),
                            },
                        ),
                    };
                    push(nodes, done, node)
                }
                None => {
                    tasks.push(Task::Make(Make::Func(f, 1)));
                    tasks.push(Task::Visit(expr));
                }
            }
        }
        A::Floor { expr, field } => floor_or_ceil(Math::Floor, expr, field, tasks)?,
        A::Ceil { expr, field } => floor_or_ceil(Math::Ceil, expr, field, tasks)?,
        A::Extract { field, expr, .. } => {
            let name = match field {
                ast::DateTimeField::Custom(name) => name.value,
                other => other.to_string(),
            };
            let p = date_part(&name).ok_or_else(|| unsupported_part(&name))?;
            tasks.push(Task::Make(Make::Func(p, 1)));
            tasks.push(Task::Visit(expr));
        }
        A::Function(f) => {
            let (name, mut args) = call_args(f)?;
            match name.as_str() {
                "mod" | "divide" => {
                    arity(&name, args.len(), 2, 2)?;
                    tasks.push(Task::Make(Make::Arith(match name.as_str() {
                        "mod" => ArithOp::Rem,
                        _ => ArithOp::IntDiv,
                    })));
                }
                "pi" => {
                    arity(&name, args.len(), 0, 0)?;
                    push(nodes, done, Node::Lit(Lit::Double(std::f64::consts::PI)));
                    return Ok(());
                }
                "nullif" => {
                    // NULLIF(a, b): CASE WHEN a = b THEN NULL ELSE a END.
                    arity(&name, args.len(), 2, 2)?;
                    let b = args.pop().expect("two");
                    let a = args.pop().expect("two");
                    args = vec![
                        A::BinaryOp {
                            left: Box::new(a.clone()),
                            op: BinaryOperator::Eq,
                            right: Box::new(b),
                        },
                        A::value(Value::Null),
                        a,
                    ];
                    tasks.push(Task::Make(Make::Func(Func::Case(true), 3)));
                }
                _ => {
                    let (func, a) = function(name, args)?;
                    args = a;
                    tasks.push(Task::Make(Make::Func(func, args.len())));
                }
            }
            tasks.extend(args.into_iter().rev().map(|e| Task::Visit(Box::new(e))));
        }
        other => return Err(unsupported(&other)),
    }
    Ok(())
}

/// `x IS [NOT] TRUE | FALSE`: whether `x` is not distinct from `value` (or is distinct).
fn is_bool(x: Box<ast::Expr>, value: bool, not_distinct: bool, tasks: &mut Vec<Task>) {
    tasks.push(Task::Make(Make::Distinct(not_distinct)));
    tasks.push(Task::Visit(Box::new(ast::Expr::value(Value::Boolean(
        value,
    )))));
    tasks.push(Task::Visit(x));
}

fn like(
    expr: Box<ast::Expr>,
    pattern: ast::Expr,
    escape: Option<Box<ast::Expr>>,
    negated: bool,
    ci: bool,
    tasks: &mut Vec<Task>,
) -> Result<(), String> {
    let word = if ci { "ILIKE" } else { "LIKE" };
    let pattern = match string_literal(pattern) {
        Some(p) => p,
        None => return Err(format!("{word} needs a string literal as its pattern")),
    };
    let escape = match escape.map(|e| string_literal(*e)) {
        None => None,
        Some(Some(e)) => {
            let mut chars = e.chars();
            match (chars.next(), chars.next()) {
                (None, _) => None,
                (Some(c), None) => Some(c),
                _ => {
                    return Err(format!(
                        "ESCAPE '{e}' must be a single character (or empty for none)"
                    ))
                }
            }
        }
        Some(None) => return Err("ESCAPE needs a string literal".into()),
    };
    let pattern = lit::like_pattern(&pattern, escape)?;
    tasks.push(Task::Make(Make::Like(pattern, negated, ci)));
    tasks.push(Task::Visit(expr));
    Ok(())
}

/// `expr ~ pattern` and its kin: the function `r` of the two, negated when `negated`.
fn regex_op(
    r: Re,
    expr: Box<ast::Expr>,
    pattern: Box<ast::Expr>,
    negated: bool,
    tasks: &mut Vec<Task>,
) -> Result<(), String> {
    check_regex(r, Some(&pattern), None)?;
    if negated {
        tasks.push(Task::Make(Make::Not));
    }
    tasks.push(Task::Make(Make::Func(Func::Text(Text::Regex(r)), 2)));
    tasks.push(Task::Visit(pattern));
    tasks.push(Task::Visit(expr));
    Ok(())
}

/// The text of a string literal, through parentheses, without taking it.
fn literal_text(e: &ast::Expr) -> Option<&str> {
    match strip_nested(e) {
        ast::Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(s),
            ..
        }) => Some(s),
        _ => None,
    }
}

/// The fractional digits DuckDB's `TIMESTAMP_NS`, `TIMESTAMP_US` (and `DATETIME`),
/// `TIMESTAMP_MS` and `TIMESTAMP_S` keep (any case).
fn timestamp_precision(name: &str) -> Option<u32> {
    match name.to_ascii_uppercase().as_str() {
        "TIMESTAMP_NS" => Some(9),
        "TIMESTAMP_US" | "DATETIME" => Some(6),
        "TIMESTAMP_MS" => Some(3),
        "TIMESTAMP_S" => Some(0),
        _ => None,
    }
}

/// The zone of `AT TIME ZONE` or `timezone()`: a string literal naming one (`example` shows
/// how).
fn zone_literal(e: ast::Expr, example: &str) -> Result<super::zone::Zone, String> {
    let name =
        string_literal(e).ok_or_else(|| format!("the time zone is a string literal: {example}"))?;
    super::zone::Zone::named(&name)
}

/// The string of a (possibly parenthesized) string literal.
fn string_literal(mut e: ast::Expr) -> Option<String> {
    loop {
        match e {
            ast::Expr::Nested(x) => e = *x,
            ast::Expr::Value(v) => {
                return match v.value {
                    Value::SingleQuotedString(s) => Some(s),
                    _ => None,
                }
            }
            _ => return None,
        }
    }
}

/// Split `left op right` into the operands of the chain of `op`s it heads (through
/// parentheses), left to right, iteratively.
fn flatten(op: &BinaryOperator, left: ast::Expr, right: ast::Expr) -> Vec<ast::Expr> {
    let mut out = Vec::new();
    let mut stack = vec![right, left];
    while let Some(mut e) = stack.pop() {
        while let ast::Expr::Nested(x) = e {
            e = *x;
        }
        match e {
            ast::Expr::BinaryOp { left, op: o, right } if o == *op => {
                stack.push(*right);
                stack.push(*left);
            }
            other => out.push(other),
        }
    }
    out
}

/// A literal value.
fn value(v: Value, negative: bool) -> Result<Lit, String> {
    match v {
        Value::Number(s, _) => lit::number(&s, negative),
        _ if negative => Err("- applies only to numbers".into()),
        Value::SingleQuotedString(s) => Ok(Lit::Str(s)),
        Value::Boolean(b) => Ok(Lit::Bool(b)),
        Value::Null => Ok(Lit::Null),
        other => Err(format!("unsupported literal {other}")),
    }
}

/// `DATE '...'`, `TIMESTAMP '...'` and `TIME '...'` (whole microseconds, further digits
/// dropped, as DuckDB's `TIME`).
fn typed(ts: ast::TypedString) -> Result<Lit, String> {
    let s = match ts.value.value {
        Value::SingleQuotedString(s) => s,
        other => {
            return Err(format!(
                "{} needs a quoted string, not {other}",
                ts.data_type
            ))
        }
    };
    match ts.data_type {
        ast::DataType::Date => lit::date_literal(&s).map(Lit::Date),
        ast::DataType::Timestamp(
            None,
            ast::TimezoneInfo::None | ast::TimezoneInfo::WithoutTimeZone,
        ) => lit::timestamp_literal(&s).map(Lit::Timestamp),
        ast::DataType::Timestamp(None, ast::TimezoneInfo::Tz | ast::TimezoneInfo::WithTimeZone) => {
            lit::timestamptz_literal(&s).map(lit::timestamptz)
        }
        ast::DataType::Time(None, ast::TimezoneInfo::None) => lit::strict_time(&s).map(Lit::time),
        other => Err(format!(
            "unsupported literal type {other} (DATE, TIMESTAMP, TIMESTAMPTZ and TIME are \
             supported)"
        )),
    }
}

/// What a chain of signs applies to.
enum Signed {
    /// A literal number, sign included: `-5`.
    Lit(Lit),
    /// Anything else, and whether the signs negate it: `-x`, `-(a + b)`.
    Of(Box<ast::Expr>, bool),
}

/// A signed number: `-5`, `- -5`, `+(5)`; iterative over any chain of signs. The signs of
/// anything but a literal are an operation on it.
fn signed(mut e: ast::Expr) -> Result<Signed, String> {
    let mut negative = false;
    loop {
        match e {
            ast::Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => {
                negative = !negative;
                e = *expr;
            }
            ast::Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            }
            | ast::Expr::Nested(expr) => e = *expr,
            ast::Expr::Value(v) => return value(v.value, negative).map(Signed::Lit),
            other => return Ok(Signed::Of(Box::new(other), negative)),
        }
    }
}

/// An `INTERVAL` literal of a fixed length: `INTERVAL '3 days'`, `INTERVAL 3 DAY`,
/// `INTERVAL '1 day 2 hours'`, `INTERVAL '1.5' HOUR`. Months and years are refused: their
/// length depends on the date they are added to.
fn interval(iv: ast::Interval) -> Result<Lit, String> {
    let shown = iv.to_string();
    if iv.last_field.is_some()
        || iv.leading_precision.is_some()
        || iv.fractional_seconds_precision.is_some()
    {
        return Err(format!(
            "unsupported: {shown} (write INTERVAL '<n> <unit>', e.g. INTERVAL '90 minutes')"
        ));
    }
    let not_literal = || format!("unsupported: {shown} (its value must be a literal)");
    let text = match *iv.value {
        ast::Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(s) | Value::Number(s, _),
            ..
        }) => s,
        ast::Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match *expr {
            ast::Expr::Value(ValueWithSpan {
                value: Value::Number(s, _),
                ..
            }) => format!("-{s}"),
            _ => return Err(not_literal()),
        },
        _ => return Err(not_literal()),
    };
    let text = match iv.leading_field {
        Some(unit) => format!("{text} {unit}"),
        None => text,
    };
    lit::interval(&text).map(Lit::Interval)
}

/// The parts `EXTRACT` and `date_part` take, for messages.
const PARTS: &str = "millennium, century, decade, year, quarter, month, week, day, hour, \
                     minute, second, millisecond, microsecond, dayofweek (dow), isodow, \
                     dayofyear (doy), isoyear, yearweek, era, epoch, julian";

/// The function of `EXTRACT(name FROM x)` and `date_part('name', x)`, by DuckDB's names of
/// the parts.
fn date_part(name: &str) -> Option<Func> {
    match name.to_ascii_lowercase().as_str() {
        "epoch" => Some(Func::Epoch(Epoch::Seconds)),
        "julian" | "jd" => Some(Func::Epoch(Epoch::Julian)),
        _ => Part::named(name).map(Func::Part),
    }
}

/// The units `date_trunc` takes, for messages.
const TRUNC_UNITS: &str = "millennium, century, decade, year, quarter, month, week, isoyear, \
                           day, hour, minute, second, millisecond, microsecond";

fn unsupported_part(name: &str) -> String {
    format!("unsupported: date part {name} (the parts are {PARTS})")
}

/// The functions of the language, for messages.
const FUNCTIONS: &str = "lower, upper, length, starts_with, ends_with, contains, strpos, \
                         substr, left, right, trim, ltrim, rtrim, replace, concat, \
                         concat_ws, split_part, lpad, rpad, reverse, repeat, translate, strlen, \
                         length_grapheme, bit_length, ascii, unicode, chr, levenshtein, hamming, \
                         md5, sha1, sha256, \
                         regexp_matches, regexp_full_match, regexp_replace, regexp_extract, \
                         regexp_escape, \
                         abs, mod, round, trunc, floor, ceil, sign, sqrt, ln, log, \
                         log10, log2, exp, power, sin, cos, tan, cot, asin, acos, atan, atan2, \
                         degrees, radians, pi, isnan, isinf, isfinite, greatest, least, \
                         coalesce, ifnull, nullif, year, quarter, month, week, day, \
                         hour, minute, second, millisecond, microsecond, nanosecond, dayofweek, \
                         isodow, dayofyear, isoyear, yearweek, decade, century, millennium, era, \
                         date_part, date_trunc, date_diff, date_sub, last_day, epoch, epoch_ms, epoch_us, \
                         epoch_ns, julian, to_timestamp, make_date, strftime, strptime, try_strptime, timezone, and CAST";

/// The name of a plain call `name(a, b, ...)`, in lowercase, and its arguments; other forms
/// (`DISTINCT`, `FILTER`, `OVER`, named arguments, ...) are refused.
fn call_args(f: ast::Function) -> Result<(String, Vec<ast::Expr>), String> {
    let name = match f.name.0.as_slice() {
        [ast::ObjectNamePart::Identifier(id)] => id.value.to_ascii_lowercase(),
        _ => return Err(format!("unsupported: function {}()", f.name)),
    };
    let plain = f.parameters == ast::FunctionArguments::None
        && f.filter.is_none()
        && f.null_treatment.is_none()
        && f.over.is_none()
        && f.within_group.is_empty()
        && !f.uses_odbc_syntax;
    let list = match f.args {
        ast::FunctionArguments::List(l)
            if plain && l.duplicate_treatment.is_none() && l.clauses.is_empty() =>
        {
            l.args
        }
        ast::FunctionArguments::None if plain => Vec::new(),
        _ => return Err(format!("unsupported: this form of {name}()")),
    };
    let mut args = Vec::with_capacity(list.len());
    for a in list {
        match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e),
            _ => return Err(format!("unsupported: this argument of {name}()")),
        }
    }
    Ok((name, args))
}

/// A function call, by its name and arguments: the function and the arguments its node
/// takes.
fn function(name: String, mut args: Vec<ast::Expr>) -> Result<(Func, Vec<ast::Expr>), String> {
    // The function and the least and most arguments it takes.
    let (func, min, max) = if let Some((t, min, max)) = Text::named(&name) {
        (Func::Text(t), min, max)
    } else if let Some(h) = super::digest::Hash::named(&name) {
        (Func::Digest(h), 1, 1)
    } else if let Some((m, min, max)) = Math::named(&name) {
        arity(&name, args.len(), min, max)?;
        let m = match m {
            _ if args.len() == 1 => m,
            Math::Round(_) => Math::Round(digits(&name, args.pop().expect("two"))?),
            Math::Trunc(_) => Math::Trunc(digits(&name, args.pop().expect("two"))?),
            Math::Double(_) => Math::LogBase,
            m => m,
        };
        return Ok((Func::Math(m), args));
    } else {
        match name.as_str() {
            "lower" | "lcase" => (Func::Lower, 1, 1),
            "upper" | "ucase" => (Func::Upper, 1, 1),
            "length" | "len" | "char_length" | "character_length" => (Func::Length, 1, 1),
            "abs" => (Func::Abs, 1, 1),
            "coalesce" => (Func::Coalesce, 1, usize::MAX),
            "ifnull" => (Func::Coalesce, 2, 2),
            "greatest" => (Func::Extreme(true), 1, usize::MAX),
            "least" => (Func::Extreme(false), 1, usize::MAX),
            "date_part" | "datepart" => {
                if args.len() != 2 {
                    return Err(format!("{name}() takes 2 arguments: date_part('year', x)"));
                }
                let part = string_literal(args.remove(0)).ok_or_else(|| {
                    format!("{name}() takes the part as a string literal: date_part('year', x)")
                })?;
                let p = date_part(&part).ok_or_else(|| unsupported_part(&part))?;
                return Ok((p, args));
            }
            "date_trunc" | "datetrunc" => {
                if args.len() != 2 {
                    return Err(format!(
                        "{name}() takes 2 arguments: date_trunc('month', x)"
                    ));
                }
                let unit = string_literal(args.remove(0)).ok_or_else(|| {
                    format!("{name}() takes the unit as a string literal: date_trunc('month', x)")
                })?;
                let t = Trunc::named(&unit).ok_or_else(|| {
                    format!("unsupported: {name}() to {unit} (the units are {TRUNC_UNITS})")
                })?;
                return Ok((Func::Trunc(t), args));
            }
            "date_diff" | "datediff" | "date_sub" | "datesub" => {
                let f = name.replace("date", "date_").replace("__", "_");
                if args.len() != 3 {
                    return Err(format!(
                        "{name}() takes 3 arguments: {f}('day', start, end)"
                    ));
                }
                let unit = string_literal(args.remove(0)).ok_or_else(|| {
                    format!("{name}() takes the unit as a string literal: {f}('day', start, end)")
                })?;
                let unit =
                    Unit::named(&unit).map_err(|e| e.replace("date_diff()", &format!("{f}()")))?;
                return Ok((
                    if f == "date_sub" {
                        Func::DateSub(unit)
                    } else {
                        Func::DateDiff(unit)
                    },
                    args,
                ));
            }
            "last_day" => (Func::LastDay, 1, 1),
            "timezone" => {
                if args.len() != 2 {
                    return Err(format!(
                        "{name}() takes 2 arguments: timezone('Europe/Oslo', x)"
                    ));
                }
                let zone = zone_literal(args.remove(0), "timezone('Europe/Oslo', x)")?;
                return Ok((Func::AtZone(zone), args));
            }
            "epoch" => (Func::Epoch(Epoch::Seconds), 1, 1),
            "epoch_ms" => (Func::Epoch(Epoch::Millis), 1, 1),
            "epoch_us" => (Func::Epoch(Epoch::Micros), 1, 1),
            "epoch_ns" => (Func::Epoch(Epoch::Nanos), 1, 1),
            "julian" => (Func::Epoch(Epoch::Julian), 1, 1),
            "to_timestamp" => (Func::ToTimestamp, 1, 1),
            "make_date" => (Func::MakeDate, 3, 3),
            "strftime" => (Func::Strftime, 2, 2),
            "strptime" => (Func::Strptime(false), 2, 2),
            "try_strptime" => (Func::Strptime(true), 2, 2),
            "nanosecond" => (Func::Part(Part::Nanosecond), 1, 1),
            other => match Part::named(other).filter(|_| {
                // year(), month(), ... but not the abbreviations.
                matches!(
                    other,
                    "year"
                        | "quarter"
                        | "month"
                        | "week"
                        | "weekofyear"
                        | "day"
                        | "hour"
                        | "minute"
                        | "second"
                        | "dayofweek"
                        | "isodow"
                        | "dayofyear"
                        | "dayofmonth"
                        | "weekday"
                        | "isoyear"
                        | "millisecond"
                        | "microsecond"
                        | "decade"
                        | "century"
                        | "millennium"
                        | "era"
                        | "yearweek"
                )
            }) {
                Some(p) => (Func::Part(p), 1, 1),
                None => {
                    return Err(format!(
                        "unsupported: function {other}() (the functions are {FUNCTIONS})"
                    ))
                }
            },
        }
    };
    arity(&name, args.len(), min, max)?;
    match func {
        Func::Text(Text::Regex(r)) => {
            let r = regex_literals(r, &mut args)?;
            Ok((Func::Text(Text::Regex(r)), args))
        }
        Func::Strftime => {
            // DuckDB also takes the format first (`strftime('%Y', d)`), and two strings
            // neither way.
            match (literal_text(&args[0]), literal_text(&args[1])) {
                (Some(_), Some(_)) => {
                    return Err("strftime() of two strings: write the date or timestamp as \
                                DATE '...' or TIMESTAMP '...'"
                        .into())
                }
                (Some(_), None) => args.swap(0, 1),
                _ => {}
            }
            format_literal(&args[1], "strftime(d, '%Y-%m')", |f| {
                super::strftime::Format::parse(f, "strftime").map(|_| ())
            })?;
            Ok((func, args))
        }
        Func::Strptime(try_) => {
            let name = if try_ { "try_strptime" } else { "strptime" };
            format_literal(&args[1], &format!("{name}(s, '%d/%m/%Y')"), |f| {
                super::strftime::strptime_format(f, name).map(|_| ())
            })?;
            Ok((func, args))
        }
        _ => Ok((func, args)),
    }
}

/// The format of `strftime` or `strptime` (`example` shows the call): a string literal, as
/// DuckDB binds it once (DuckDB also folds constant expressions; write those as one literal
/// here), which `check` reads to refuse a bad one now; or NULL.
fn format_literal(
    e: &ast::Expr,
    example: &str,
    check: impl Fn(&str) -> Result<(), String>,
) -> Result<(), String> {
    match literal_text(e) {
        Some(f) => check(f),
        None if is_null(e) => Ok(()),
        None => {
            let name = example.split('(').next().unwrap_or(example);
            Err(format!(
                "{name}() takes its format as a string literal, such as {example}"
            ))
        }
    }
}

/// `FLOOR(x)` and `CEIL(x)`, which the parser reads apart from other calls (`FLOOR(x TO
/// DAY)` and `FLOOR(x, n)` are not DuckDB's).
fn floor_or_ceil(
    m: Math,
    expr: Box<ast::Expr>,
    field: ast::CeilFloorKind,
    tasks: &mut Vec<Task>,
) -> Result<(), String> {
    if field != ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime) {
        return Err(format!("{0}() takes 1 argument: {0}(x)", m.name()));
    }
    tasks.push(Task::Make(Make::Func(Func::Math(m), 1)));
    tasks.push(Task::Visit(expr));
    Ok(())
}

/// The digits of `round(x, n)` and `trunc(x, n)`: an integer literal (of DuckDB's INTEGER),
/// or NULL (`None`).
fn digits(name: &str, e: ast::Expr) -> Result<Option<i32>, String> {
    let bad = || {
        format!("{name}() takes the number of digits as an integer literal, such as {name}(x, 2)")
    };
    match signed(e).map_err(|_| bad())? {
        Signed::Lit(Lit::Null) => Ok(None),
        Signed::Lit(Lit::Num(d)) if d.scale == 0 => d
            .mantissa
            .to_i128()
            .and_then(|v| i32::try_from(v).ok())
            .map(Some)
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// Whether `name()` takes `n` arguments, from `min` to `max`; else the one-line error.
fn arity(name: &str, n: usize, min: usize, max: usize) -> Result<(), String> {
    match (min, max) {
        _ if (min..=max).contains(&n) => Ok(()),
        (1, usize::MAX) => Err(format!("{name}() takes at least one argument")),
        _ if min == max => Err(format!(
            "{name}() takes {min} argument{}, not {n}",
            if min == 1 { "" } else { "s" }
        )),
        _ => Err(format!("{name}() takes {min} or {max} arguments, not {n}")),
    }
}

/// A regular expression function with its trailing literal arguments (options, the group of
/// `regexp_extract`) read off `args`, and its literal pattern and replacement checked now,
/// before any row is read.
fn regex_literals(r: Re, args: &mut Vec<ast::Expr>) -> Result<Re, String> {
    let name = r.name();
    let keep = r.strings();
    let options = if args.len() > keep + usize::from(matches!(r, Re::Extract { .. })) {
        let e = args.pop().expect("counted");
        if is_null(&e) {
            return Err(format!("{name}()'s options must not be NULL"));
        }
        Some(literal_text(&e).map(str::to_string).ok_or_else(|| {
            format!("{name}() takes its options as a string literal, such as 'i'")
        })?)
    } else {
        None
    };
    let group = (args.len() > keep).then(|| {
        let e = args.pop().expect("counted");
        match strip_nested(&e) {
            ast::Expr::Value(ValueWithSpan {
                value: Value::Number(s, _),
                ..
            }) => s.parse::<i128>().ok(),
            _ => None,
        }
    });
    let r = r.with(group, options.as_deref())?;
    check_regex(r, args.get(1), args.get(2))?;
    Ok(r)
}

/// Compile a literal pattern (and read a literal replacement against it) to report a bad one
/// when the expression is parsed.
fn check_regex(r: Re, pattern: Option<&ast::Expr>, to: Option<&ast::Expr>) -> Result<(), String> {
    if let Some(p) = pattern.and_then(literal_text) {
        let rx = r.compile(p)?;
        if let Some(t) = to.and_then(literal_text) {
            super::re::replacement(t, rx.captures_len() - 1)?;
        }
    }
    Ok(())
}

/// `e` without the parentheses around it.
fn strip_nested(mut e: &ast::Expr) -> &ast::Expr {
    while let ast::Expr::Nested(x) = e {
        e = x;
    }
    e
}

fn is_null(e: &ast::Expr) -> bool {
    matches!(
        strip_nested(e),
        ast::Expr::Value(ValueWithSpan {
            value: Value::Null,
            ..
        })
    )
}

/// The target of `CAST(x AS t)` other than a date or a timestamp; `None` for types it does
/// not take.
fn cast_target(t: &ast::DataType) -> Result<Option<Target>, String> {
    use ast::DataType as D;
    Ok(Some(match t {
        D::Varchar(_) | D::Text | D::String(_) | D::Char(_) | D::Nvarchar(_) => Target::Varchar,
        D::Uuid => Target::Uuid,
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
            let (p, s) = match *info {
                // DuckDB's DECIMAL is DECIMAL(18,3).
                ast::ExactNumberInfo::None => (18, 3),
                ast::ExactNumberInfo::Precision(p) => (p, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (p, s),
            };
            if !(1..=38).contains(&p) || s < 0 || s as u64 > p {
                return Err(format!(
                    "unsupported: CAST to {t} (a DECIMAL has a width of 1 to 38 digits and a \
                     scale from 0 to its width)"
                ));
            }
            Target::Decimal(p as u8, s as i8)
        }
        D::Double(_) | D::DoublePrecision | D::Float8 | D::Float64 => Target::Float(true),
        D::Real | D::Float4 | D::Float32 => Target::Float(false),
        // DuckDB's FLOAT(p) is a FLOAT up to 24 bits of mantissa, a DOUBLE beyond.
        D::Float(info) => match *info {
            ast::ExactNumberInfo::Precision(p) if p > 24 => Target::Float(true),
            _ => Target::Float(false),
        },
        other => match IntTy::named(&other.to_string()) {
            Some(i) => Target::Int(i),
            None => return Ok(None),
        },
    }))
}

/// `CAST('text' AS DATE | TIMESTAMP | TIME)`: the literal (NULL for a `TRY_CAST` of bad
/// text). A date takes a timestamp's text too, and keeps its day, as DuckDB's cast does. Text
/// the strict parsers refuse is read as DuckDB's casts read it (`strtime`: `'2024-1-5'`,
/// `'2024/01/05'`, an offset or a zone after a timestamp); `infinity`, `-infinity` and `epoch`
/// are what the literals make of them.
fn cast_literal(f: Func, text: &str, try_: bool) -> Result<Lit, String> {
    let loose = |e: String, v: Result<i64, strtime::Bad>, inf: i64| match v {
        Ok(v) if !infinite(Some(inf), v) => Ok(v),
        _ => Err(e),
    };
    let b = text.as_bytes();
    let r = match f {
        Func::Date(_) => lit::date_literal(text)
            .map(Lit::Date)
            .or_else(|e| {
                lit::strict_timestamp(text).map_err(|_| e).and_then(|ns| {
                    i32::try_from(ns.div_euclid(lit::DAY_NS))
                        .map(Lit::Date)
                        .map_err(|_| format!("{text:?} is out of the range of dates"))
                })
            })
            .or_else(|e| {
                let days = strtime::date(b).map(i64::from);
                loose(e, days, i32::MAX.into()).map(|d| Lit::Date(d as i32))
            }),
        // A time of day, or a timestamp's (as DuckDB), in whole microseconds.
        Func::Clock(_) => lit::strict_time(text)
            .or_else(|e| {
                lit::strict_timestamp(text)
                    .map(|ns| ns.rem_euclid(lit::DAY_NS))
                    .map_err(|_| e)
            })
            .or_else(|e| loose(e, strtime::time(b), i64::MAX).map(|us| us as i128 * 1_000))
            .map(Lit::time),
        Func::TimestampTz(_) => lit::timestamptz_literal(text)
            .or_else(|e| loose(e, strtime::timestamptz(b), i64::MAX).map(|us| us as i128 * 1_000))
            .map(lit::timestamptz),
        _ => lit::timestamp_literal(text)
            .or_else(|e| loose(e, strtime::timestamp(b), i64::MAX).map(|us| us as i128 * 1_000))
            .map(Lit::Timestamp),
    };
    match r {
        // A zone's name we do not know (or a year after 9999 in one) may be a value DuckDB's
        // ICU reads: never NULL.
        Err(_)
            if try_
                && !matches!(f, Func::TimestampTz(_) if matches!(strtime::timestamptz(b), Err(strtime::Bad::Zone | strtime::Bad::ZoneRange))) =>
        {
            Ok(Lit::Null)
        }
        r => r,
    }
}

/// Name an unsupported construct without printing it: printing recurses on its depth.
fn unsupported(e: &ast::Expr) -> String {
    use ast::Expr as A;
    let what = match e {
        A::UnaryOp { op, .. } => format!("operator {op}"),
        A::Cast { .. } => "CAST with FORMAT".into(),
        A::Case { .. } => "CASE".into(),
        A::Subquery(_) | A::Exists { .. } | A::InSubquery { .. } => "subquery".into(),
        A::Like { any: true, .. } | A::ILike { any: true, .. } => "LIKE ANY".into(),
        A::RLike { .. } => "REGEXP / RLIKE (write regexp_matches(s, p) or s ~ p)".into(),
        A::TypedString(t) => format!("literal type {}", t.data_type),
        A::Interval(_) => "INTERVAL".into(),
        _ => "this kind of expression".into(),
    };
    format!("unsupported: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(s: &str) -> Tree {
        parse(s).unwrap()
    }

    #[test]
    fn and_or_chains_flatten_into_one_node() {
        let t = tree("a = 1 OR (b = 2 OR c = 3) OR ((d = 4))");
        match &t.nodes[t.root()] {
            Node::Or(c) => assert_eq!(c.len(), 4),
            other => panic!("{other:?}"),
        }
        let t = tree("a = 1 AND b = 2 OR c = 3 AND d = 4");
        match &t.nodes[t.root()] {
            Node::Or(c) => {
                assert_eq!(c.len(), 2);
                assert!(matches!(t.nodes[c[0]], Node::And(ref x) if x.len() == 2));
            }
            other => panic!("{other:?}"),
        }
        // BETWEEN's AND is not a conjunction.
        let t = tree("x BETWEEN 1 AND 2 AND y = 3");
        match &t.nodes[t.root()] {
            Node::And(c) => {
                assert_eq!(c.len(), 2);
                assert!(matches!(t.nodes[c[0]], Node::Between(..)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn children_come_before_parents() {
        let t = tree("NOT (x IN (1, 2) OR y LIKE 'a%' OR z BETWEEN 1 AND 3) AND w IS NULL");
        for (i, n) in t.nodes.iter().enumerate() {
            let mut k = 0;
            while let Some(c) = n.child(k) {
                assert!(c < i);
                k += 1;
            }
        }
    }

    #[test]
    fn signs_and_literals() {
        let t = tree("x = - - -5");
        assert_eq!(t.nodes[1], Node::Lit(lit::number("5", true).unwrap()));
        assert!(parse("x = -'a'").unwrap_err().contains("numbers"));
        // The sign of anything but a literal number is an operation on it.
        let t = tree("x = -y");
        assert_eq!(t.nodes[2], Node::Sign(1, true));
        let t = tree("x = - - (y + 1)");
        assert!(matches!(t.nodes[4], Node::Sign(3, false)));
        assert!(parse("x = DATE '2020-13-01'")
            .unwrap_err()
            .contains("not a date"));
        let t = tree("x = TIME '10:00:00.1234569'");
        assert_eq!(t.nodes[1], Node::Lit(Lit::Time(36_000_123_456_000)));
        assert!(parse("x = TIMETZ '10:00'")
            .unwrap_err()
            .contains("unsupported"));
        assert!(parse("x IN ()").is_err());
    }

    #[test]
    fn unsupported_constructs_are_named() {
        assert!(parse("upper2(s) = 'A'")
            .unwrap_err()
            .contains("function upper2()"));
        assert!(parse("x / 2 = 2").is_ok());
        assert!(parse("x // 2 = 2").is_ok());
        assert!(parse("divide(x, 2) = 2").is_ok());
        assert!(parse("CAST(x AS BLOB) = 1")
            .unwrap_err()
            .contains("CAST to BLOB"));
        assert!(parse("x LIKE 'a' ESCAPE 'ab'")
            .unwrap_err()
            .contains("single character"));
        assert!(parse("x LIKE y").unwrap_err().contains("string literal"));
        assert!(parse("x > 1 garbage").unwrap_err().contains("unexpected"));
    }

    #[test]
    fn arithmetic_has_sql_precedence_and_intervals_their_length() {
        // a + b * c - d: (a + (b * c)) - d.
        let t = tree("a + b * c - d > 0");
        assert!(matches!(t.nodes[3], Node::Arith(ArithOp::Mul, 1, 2)));
        assert!(matches!(t.nodes[4], Node::Arith(ArithOp::Add, 0, 3)));
        assert!(matches!(t.nodes[6], Node::Arith(ArithOp::Sub, 4, 5)));
        let day = 86_400_000_000;
        for (text, us) in [
            ("INTERVAL '3 days'", 3 * day),
            ("INTERVAL 3 DAY", 3 * day),
            ("INTERVAL '3' DAYS", 3 * day),
            ("INTERVAL '1 day 2 hours'", day + 7_200_000_000),
            ("INTERVAL '-1.5 hours'", -5_400_000_000),
            ("INTERVAL '2 weeks'", 14 * day),
            ("INTERVAL '90 MINUTES'", 5_400_000_000),
            ("INTERVAL '1 ms'", 1_000),
            ("INTERVAL -2 SECOND", -2_000_000),
        ] {
            let t = tree(&format!("d + {text} > d"));
            assert_eq!(t.nodes[1], Node::Lit(Lit::Interval(us)), "{text}");
        }
        assert_eq!(
            Lit::Interval(day + 7_200_000_001).to_string(),
            "INTERVAL '1 day 2 hours 1 microsecond'"
        );
        assert_eq!(Lit::Interval(-day).to_string(), "INTERVAL '-1 day'");
        for (text, says) in [
            ("INTERVAL '1 month'", "months and years"),
            ("INTERVAL '2' YEAR", "months and years"),
            ("INTERVAL '1 day 2'", "pairs"),
            ("INTERVAL 'x days'", "not a number"),
            ("INTERVAL '1e3 days'", "not a number"),
            ("INTERVAL '1' DAY TO HOUR", "unsupported"),
            ("INTERVAL '999999999999 weeks'", "too long"),
        ] {
            let e = parse(&format!("d + {text} > d")).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn operator_limit_is_counted_before_parsing() {
        let at = vec!["x = 1"; MAX_OPERATORS / 2].join(" OR ");
        assert!(parse(&at).is_ok());
        let over = vec!["x = 1"; MAX_OPERATORS / 2 + 1].join(" OR ");
        let e = parse(&over).unwrap_err();
        assert!(e.contains("too long") && e.contains("10000"), "{e}");
        // Literals and commas do not count: a long IN list is fine.
        let list = (0..50_000).map(|i| i.to_string()).collect::<Vec<_>>();
        assert!(parse(&format!("x IN ({})", list.join(", "))).is_ok());
    }
}
