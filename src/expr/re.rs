//! Regular expressions of the `--where` language, as DuckDB 2.0's: `regexp_matches(s, p[,
//! options])` (also `s ~ p`, `s ~* p`, `s !~ p`, `s !~* p`), `regexp_full_match(s, p[,
//! options])` (also `s [NOT] SIMILAR TO p`), `regexp_replace(s, p, r[, options])` and
//! `regexp_extract(s, p[, group[, options]])`.
//!
//! DuckDB runs RE2; here the `regex` crate runs the same syntax, read by `regex-syntax` and
//! rewritten where the two engines differ:
//!
//! - `\d`, `\s`, `\w` (and `\D`, `\S`, `\W`, also inside classes) are ASCII, as RE2's: `\s` is
//!   `[\t\n\f\r ]` (no vertical tab), `\w` is `[0-9A-Za-z_]`; `\b` and `\B` are ASCII word
//!   boundaries. Case folding still applies to them under `i`, as in RE2 (`\w` matches the
//!   Kelvin sign `K` case-insensitively).
//! - Octal escapes (`\170`) are read as RE2 reads them, and `\<` and `\>` are the characters
//!   (`regexp_escape` writes them; the crate reads them as a word's start and end).
//! - What RE2 reads differently and the crate would read otherwise is refused, not guessed: a
//!   `[` inside a class (a literal in RE2, a nested class in the crate) and the class
//!   operators `&&`, `--`, `~~`, and `\b{` (RE2's repetition or text, the crate's kind of
//!   boundary). RE2's `\C`, `\Q...\E` and `x{,n}` are refused too; the crate's
//!   look-around-free syntax is otherwise RE2's.
//!
//! Options are a string literal of letters, later ones winning: `c` case-sensitive, `i`
//! case-insensitive, `l` the pattern is a literal, `s` `.` matches a newline, `m`, `n`, `p` it
//! does not (the default), `g` (`regexp_replace` only) every match is replaced. `^` and `$`
//! are the ends of the text unless the pattern says `(?m)`.
//!
//! `regexp_replace`'s replacement writes `\0` to `\9` for the groups and `\\` for a backslash;
//! `$` is a plain character. Without `g` only the first match is replaced. `regexp_extract`
//! gives the group (0 to 9, a literal; 0 is the whole match) of the first match, and `''`
//! when there is no match or the group took no part in it. A NULL argument gives NULL.

use std::collections::HashMap;

use regex::{Regex, RegexBuilder};
use regex_syntax::ast::{
    self, Ast, ClassBracketed, ClassPerl, ClassPerlKind, ClassSet, ClassSetItem, ClassSetRange,
    ClassSetUnion, Flag, Flags, FlagsItem, FlagsItemKind, Group, GroupKind, HexLiteralKind,
    Literal, LiteralKind,
};

use super::eval::Reason;

/// How a pattern is read: `regexp_matches`' options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Opts {
    /// `i` (and `~*`).
    pub(crate) icase: bool,
    /// `s`: `.` matches `\n`.
    pub(crate) dot_nl: bool,
    /// `l`: the pattern is a literal string.
    pub(crate) literal: bool,
    /// `g`: `regexp_replace` replaces every match.
    pub(crate) global: bool,
}

/// A regular expression function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Re {
    /// `regexp_matches` (a match anywhere) or `regexp_full_match` (`full`).
    Matches { full: bool, opts: Opts },
    /// `regexp_replace(s, p, r)`.
    Replace(Opts),
    /// `regexp_extract(s, p)` of a group.
    Extract { group: u8, opts: Opts },
}

impl Re {
    /// The name messages use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Re::Matches { full: false, .. } => "regexp_matches",
            Re::Matches { full: true, .. } => "regexp_full_match",
            Re::Replace(_) => "regexp_replace",
            Re::Extract { .. } => "regexp_extract",
        }
    }

    /// The function a name calls (options not yet read), and the counts of arguments it
    /// takes.
    pub(crate) fn named(name: &str) -> Option<(Re, usize, usize)> {
        let o = Opts::default();
        Some(match name {
            "regexp_matches" => (
                Re::Matches {
                    full: false,
                    opts: o,
                },
                2,
                3,
            ),
            "regexp_full_match" => (
                Re::Matches {
                    full: true,
                    opts: o,
                },
                2,
                3,
            ),
            "regexp_replace" => (Re::Replace(o), 3, 4),
            "regexp_extract" => (Re::Extract { group: 0, opts: o }, 2, 4),
            _ => return None,
        })
    }

    fn opts(self) -> Opts {
        match self {
            Re::Matches { opts, .. } | Re::Replace(opts) | Re::Extract { opts, .. } => opts,
        }
    }

    /// How many string arguments it takes once its literals are read: the text, the pattern
    /// and `regexp_replace`'s replacement.
    pub(crate) fn strings(self) -> usize {
        if matches!(self, Re::Replace(_)) {
            3
        } else {
            2
        }
    }

    /// The function with its trailing literal arguments read (`options`, `regexp_extract`'s
    /// group): `options` and `group` are the texts of those arguments when given, `None` in
    /// `group` when that argument is not an integer literal.
    pub(crate) fn with(
        self,
        group: Option<Option<i128>>,
        options: Option<&str>,
    ) -> Result<Re, String> {
        let name = self.name();
        let opts = match options {
            None => Opts::default(),
            Some(text) => Opts::parse(text, name, matches!(self, Re::Replace(_)))?,
        };
        Ok(match self {
            Re::Matches { full, .. } => Re::Matches { full, opts },
            Re::Replace(_) => Re::Replace(opts),
            Re::Extract { .. } => {
                let group = match group {
                    None => 0,
                    Some(Some(g)) if (0..=9).contains(&g) => g as u8,
                    Some(_) => {
                        return Err(format!(
                            "{name}() takes the group as an integer literal from 0 to 9"
                        ))
                    }
                };
                Re::Extract { group, opts }
            }
        })
    }

    /// The compiled pattern.
    pub(crate) fn compile(self, pattern: &str) -> Result<Regex, String> {
        compile(
            pattern,
            self.opts(),
            matches!(self, Re::Matches { full: true, .. }),
        )
    }
}

impl Opts {
    fn parse(text: &str, func: &str, replace: bool) -> Result<Opts, String> {
        let mut o = Opts::default();
        for c in text.chars() {
            match c {
                'c' => o.icase = false,
                'i' => o.icase = true,
                'l' => o.literal = true,
                's' => o.dot_nl = true,
                'm' | 'n' | 'p' => o.dot_nl = false,
                'g' if replace => o.global = true,
                'g' => {
                    return Err(format!(
                        "{func}() does not take the option 'g' (a global replace is \
                         regexp_replace's)"
                    ))
                }
                other => {
                    return Err(format!(
                        "{func}() does not know the option {other:?} (the options are c, i, \
                         l, m, n, p, s{})",
                        if replace { ", g" } else { "" }
                    ))
                }
            }
        }
        Ok(o)
    }
}

/// `pattern` compiled with `opts`, anchored at both ends when `full`.
fn compile(pattern: &str, opts: Opts, full: bool) -> Result<Regex, String> {
    let body = if opts.literal {
        regex::escape(pattern)
    } else {
        re2(pattern)?
    };
    let text = if full {
        format!(r"\A(?:{body})\z")
    } else {
        body
    };
    RegexBuilder::new(&text)
        .case_insensitive(opts.icase)
        .dot_matches_new_line(opts.dot_nl)
        .octal(true)
        .build()
        .map_err(|e| {
            let why = match &e {
                regex::Error::Syntax(s) => last_line(s),
                other => other.to_string(),
            };
            bad(pattern, &why)
        })
}

fn bad(pattern: &str, why: &str) -> String {
    format!("the regular expression {pattern:?} is not valid: {why}")
}

/// The last line of a message that shows the pattern above it ("error: ...").
fn last_line(s: &str) -> String {
    let line = s.lines().last().unwrap_or(s).trim();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// `pattern` in RE2's syntax, rewritten into the crate's with RE2's meaning (see the module
/// docs).
fn re2(pattern: &str) -> Result<String, String> {
    let text = escapes(pattern).map_err(|what| bad(pattern, what))?;
    let mut tree = ast::parse::ParserBuilder::new()
        .octal(true)
        .build()
        .parse(&text)
        .map_err(|e| bad(pattern, &e.kind().to_string()))?;
    rewrite(&mut tree).map_err(|why| bad(pattern, why))?;
    let mut out = String::new();
    ast::print::Printer::new()
        .print(&tree, &mut out)
        .map_err(|e| bad(pattern, &e.to_string()))?;
    Ok(out)
}

/// `pattern` with the escapes the crate reads otherwise written as RE2 reads them: `\<` and
/// `\>` are the characters in RE2 (`regexp_escape` writes them) and the start and end of a
/// word in the crate. RE2's escapes the crate has no meaning for, or another one, are refused.
fn escapes(pattern: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('C') => return Err("\\C (any byte) is not supported"),
            Some('Q') => return Err("\\Q...\\E is not supported (escape each character)"),
            Some(e @ ('<' | '>')) => out.push(e),
            // An octal escape needs two digits or a leading 0 in RE2; the crate would read
            // `\1` as the character 1, not the backreference a user means by it.
            Some('1'..='7') if !chars.peek().is_some_and(|d| ('0'..='7').contains(d)) => {
                return Err("\\1 to \\7 alone are backreferences, which RE2 does not have")
            }
            // RE2 reads `\b{2}` as a repetition and `\b{start}` as a boundary and text; the
            // crate as a boundary of its own kind.
            Some('b' | 'B') if chars.peek() == Some(&'{') => {
                return Err(
                    "\\b{ is read differently by the two engines (write \\b\\{ for \
                            the text, (?:\\b){n} for a repetition)",
                )
            }
            Some(e) => {
                out.push('\\');
                out.push(e);
            }
            None => out.push('\\'),
        }
    }
    Ok(out)
}

/// RE2's `QuoteMeta`, DuckDB's `regexp_escape`: every ASCII character but letters, digits and
/// `_` escaped with a backslash, NUL as `\x00`; other characters as they are. Written through
/// `push`, the runs between escapes as slices of `s`.
pub(crate) fn escape(s: &str, mut push: impl FnMut(&str)) {
    let mut last = 0;
    for (at, c) in s.char_indices() {
        if c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' {
            push(&s[last..at]);
            if c == '\0' {
                push("\\x00");
            } else {
                push("\\");
                push(&s[at..at + 1]);
            }
            last = at + 1;
        }
    }
    push(&s[last..]);
}

/// Rewrite the tree's Perl classes and word boundaries to RE2's ASCII meaning; refuse what
/// the two engines read differently. The depth is bounded by the parser's nesting limit.
fn rewrite(a: &mut Ast) -> Result<(), &'static str> {
    match a {
        Ast::ClassPerl(p) => *a = Ast::class_bracketed(ascii(p)),
        Ast::Assertion(x)
            if matches!(
                x.kind,
                ast::AssertionKind::WordBoundary | ast::AssertionKind::NotWordBoundary
            ) =>
        {
            let span = x.span;
            let flag = |kind| FlagsItem { span, kind };
            *a = Ast::group(Group {
                span,
                kind: GroupKind::NonCapturing(Flags {
                    span,
                    items: vec![
                        flag(FlagsItemKind::Negation),
                        flag(FlagsItemKind::Flag(Flag::Unicode)),
                    ],
                }),
                ast: Box::new(Ast::assertion((**x).clone())),
            });
        }
        Ast::ClassBracketed(b) => rewrite_set(&mut b.kind)?,
        Ast::Repetition(r) => rewrite(&mut r.ast)?,
        Ast::Group(g) => rewrite(&mut g.ast)?,
        Ast::Alternation(x) => {
            for a in &mut x.asts {
                rewrite(a)?;
            }
        }
        Ast::Concat(x) => {
            for a in &mut x.asts {
                rewrite(a)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn rewrite_set(s: &mut ClassSet) -> Result<(), &'static str> {
    match s {
        ClassSet::BinaryOp(_) => Err("the class operators &&, -- and ~~ are not RE2's \
                                      (escape the characters: \\&\\&)"),
        ClassSet::Item(i) => rewrite_item(i),
    }
}

fn rewrite_item(i: &mut ClassSetItem) -> Result<(), &'static str> {
    match i {
        ClassSetItem::Perl(p) => *i = ClassSetItem::Bracketed(Box::new(ascii(p))),
        ClassSetItem::Bracketed(_) => {
            return Err("a '[' inside a class is a literal in RE2: escape it as \\[")
        }
        ClassSetItem::Union(u) => {
            for x in &mut u.items {
                rewrite_item(x)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// RE2's ASCII meaning of `\d`, `\s`, `\w` or their negations, as a bracketed class.
fn ascii(p: &ClassPerl) -> ClassBracketed {
    let span = p.span;
    // Hex escapes print unambiguously, also under the `x` flag.
    let lit = |c: char| Literal {
        span,
        kind: LiteralKind::HexFixed(HexLiteralKind::X),
        c,
    };
    let range = |a, b| {
        ClassSetItem::Range(ClassSetRange {
            span,
            start: lit(a),
            end: lit(b),
        })
    };
    let items = match p.kind {
        ClassPerlKind::Digit => vec![range('0', '9')],
        ClassPerlKind::Space => ['\t', '\n', '\x0C', '\r', ' ']
            .into_iter()
            .map(|c| ClassSetItem::Literal(lit(c)))
            .collect(),
        ClassPerlKind::Word => vec![
            range('0', '9'),
            range('A', 'Z'),
            range('a', 'z'),
            ClassSetItem::Literal(lit('_')),
        ],
    };
    ClassBracketed {
        span,
        negated: p.negated,
        kind: ClassSet::Item(ClassSetItem::Union(ClassSetUnion { span, items })),
    }
}

/// A piece of `regexp_replace`'s replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Group(usize),
}

/// `regexp_replace`'s replacement `r` read as RE2 reads it (`\0`-`\9` groups, `\\` a
/// backslash) for a pattern of `groups` capture groups (the whole match not counted).
pub(crate) fn replacement(r: &str, groups: usize) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = r.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => text.push('\\'),
            Some(d @ '0'..='9') => {
                let g = d as usize - '0' as usize;
                if g > groups {
                    return Err(format!(
                        "regexp_replace()'s replacement {r:?} asks for group {g}, and the \
                         pattern has {groups}"
                    ));
                }
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Group(g));
            }
            Some(_) => {
                return Err(format!(
                    "regexp_replace()'s replacement {r:?}: '\\' must be followed by a digit \
                     or '\\'"
                ))
            }
            None => {
                return Err(format!(
                    "regexp_replace()'s replacement {r:?} ends in a lone '\\'"
                ))
            }
        }
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// The most patterns of a column [`Compiled`] keeps at once.
const MAX_CACHED: usize = 1024;

/// Patterns compiled once each: one for a literal, one per distinct value of a column.
pub(crate) struct Compiled {
    re: Re,
    one: Option<Regex>,
    seen: HashMap<String, Regex>,
}

impl Compiled {
    /// `literal`: the pattern when it is one value for every row.
    pub(crate) fn new(re: Re, literal: Option<&str>) -> Result<Compiled, Reason> {
        Ok(Compiled {
            re,
            one: literal.map(|p| re.compile(p)).transpose()?,
            seen: HashMap::new(),
        })
    }

    /// The compiled `pattern` (the literal's when there is one).
    pub(crate) fn get(&mut self, pattern: &str) -> Result<&Regex, Reason> {
        if let Some(r) = &self.one {
            return Ok(r);
        }
        if !self.seen.contains_key(pattern) {
            // A column of ever new patterns compiles each; the cache stays bounded.
            if self.seen.len() >= MAX_CACHED {
                self.seen.clear();
            }
            let r = self.re.compile(pattern)?;
            self.seen.insert(pattern.to_string(), r);
        }
        Ok(&self.seen[pattern])
    }
}

/// Write `v` with its first match of `re` (every match under `global`) replaced by `pieces`,
/// through `push`.
pub(crate) fn replace(
    re: &Regex,
    v: &str,
    pieces: &[Piece],
    global: bool,
    mut push: impl FnMut(&str),
) {
    let mut last = 0;
    let groups = pieces.iter().any(|p| matches!(p, Piece::Group(_)));
    let mut emit = |m: regex::Match, caps: Option<&regex::Captures>, last: &mut usize| {
        push(&v[*last..m.start()]);
        for p in pieces {
            match p {
                Piece::Text(t) => push(t),
                Piece::Group(g) => {
                    if let Some(c) = caps.and_then(|c| c.get(*g)) {
                        push(c.as_str());
                    }
                }
            }
        }
        *last = m.end();
    };
    if groups {
        for caps in re
            .captures_iter(v)
            .take(if global { usize::MAX } else { 1 })
        {
            let m = caps.get(0).expect("group 0 is the match");
            emit(m, Some(&caps), &mut last);
        }
    } else {
        for m in re.find_iter(v).take(if global { usize::MAX } else { 1 }) {
            emit(m, None, &mut last);
        }
    }
    push(&v[last..]);
}

/// `regexp_extract`: the group of the first match, `""` when there is none.
pub(crate) fn extract<'v>(re: &Regex, v: &'v str, group: usize) -> &'v str {
    if group == 0 {
        return re.find(v).map_or("", |m| m.as_str());
    }
    re.captures(v)
        .and_then(|c| c.get(group))
        .map_or("", |m| m.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(p: &str, opts: &str, v: &str) -> bool {
        Re::Matches {
            full: false,
            opts: Opts::parse(opts, "regexp_matches", false).unwrap(),
        }
        .compile(p)
        .unwrap()
        .is_match(v)
    }

    /// DuckDB 2.0's (RE2's) answers.
    #[test]
    fn perl_classes_and_word_boundaries_are_ascii_as_re2s() {
        for (p, o, v, want) in [
            (r"\d", "", "١٢", false),
            (r"\w", "", "é", false),
            (r"^.$", "", "é", true),
            (r"\s", "", "\u{3000}", false),
            (r"\s", "", "\u{b}", false),
            (r"a\Sb", "", "a\u{b}b", true),
            (r"[^\w]", "", "é", true),
            (r"\W", "", "é", true),
            (r"[\w-]+", "", "a-b", true),
            (r"a\b", "", "aé", true),
            (r"\Ba", "", "éa", false),
            (r"\w", "i", "\u{212a}", true),
            (r"[\w]", "i", "\u{212a}", true),
            (r"\W", "i", "\u{212a}", false),
            (r"[^\w]", "i", "\u{212a}", false),
            (r"\170", "", "x", true),
            (r"\10", "", "\u{8}0", true),
            (r"\09", "", "\u{0}9", true),
            (r"\1234", "", "S", false),
            (r"\x{e9}", "", "é", true),
            (r"\<", "", "a<b", true),
            (r"\<", "", "ab", false),
            (r"a\>b", "", "a>b", true),
            (r"[\<-\>]", "", "=", true),
            ("\\\u{1}", "", "\u{1}", true),
            ("a.b", "", "a\nb", false),
            ("a.b", "s", "a\nb", true),
            ("a.b", "sn", "a\nb", false),
            ("a.b", "ns", "a\nb", true),
            ("b", "ic", "ABC", false),
            ("b", "ci", "ABC", true),
            ("^b", "m", "a\nb", false),
            ("(?m)^b", "", "a\nb", true),
            ("^$", "", "\n", false),
            ("a.c", "l", "abc", false),
            (".", "l", "a.c", true),
        ] {
            assert_eq!(matches(p, o, v), want, "{p:?} {o:?} on {v:?}");
        }
    }

    #[test]
    fn what_the_engines_read_differently_is_refused() {
        for (p, says) in [
            ("[a[b]]", "a '[' inside a class"),
            ("[a&&b]", "class operators"),
            (r"\Qa.\E", "\\Q...\\E"),
            (r"\C", "\\C"),
            (r"(a)\1", "backreferences"),
            (r"a\18", "backreferences"),
            (r"a\b{2}", "\\b{ is read differently"),
            (r"\B{start}", "\\b{ is read differently"),
            ("a{,2}", "not valid"),
            ("(", "not valid"),
        ] {
            let e = Re::named("regexp_matches")
                .unwrap()
                .0
                .compile(p)
                .unwrap_err();
            assert!(
                e.contains(says) && e.contains(&format!("{p:?}")),
                "{p}: {e}"
            );
        }
    }

    #[test]
    fn replacements_read_as_re2s() {
        let re = |p: &str| Regex::new(p).unwrap();
        let go = |p: &str, v: &str, r: &str, global: bool| {
            let rx = re(p);
            let pieces = replacement(r, rx.captures_len() - 1).unwrap();
            let mut out = String::new();
            replace(&rx, v, &pieces, global, |s| out.push_str(s));
            out
        };
        assert_eq!(go("b", "abcabc", "X", false), "aXcabc");
        assert_eq!(go("b", "abcabc", "X", true), "aXcaXc");
        assert_eq!(go("(b)", "abc", r"[\1]", false), "a[b]c");
        assert_eq!(go("(b)", "abc", r"[\0]", false), "a[b]c");
        assert_eq!(go("b", "abc", "$1", false), "a$1c");
        assert_eq!(go("b", "abc", r"\\", false), r"a\c");
        assert_eq!(go("(b)", "abc", r"\1\1\\1", false), r"abb\1c");
        assert_eq!(go("a*", "aaa", "X", true), "X");
        assert_eq!(go("a*?", "aaa", "X", true), "XaXaXaX");
        assert_eq!(go("a*", "baaa", "X", true), "XbX");
        assert_eq!(go("b|", "abab", "X", true), "XaXaX");
        assert_eq!(go("", "abc", "-", true), "-a-b-c-");
        assert_eq!(go("(x)?b", "ab", r"<\1>", false), "a<>");
        assert!(replacement(r"\2", 1).unwrap_err().contains("group 2"));
        assert!(replacement(r"\x", 1)
            .unwrap_err()
            .contains("followed by a digit"));
        assert!(replacement(r"x\", 1).unwrap_err().contains("lone"));
    }

    /// DuckDB 2.0's `regexp_escape` of the same text.
    #[test]
    fn escape_is_re2s_quote_meta() {
        let mut out = String::new();
        escape("a.b é\0_<\n", |x| out.push_str(x));
        assert_eq!(out, "a\\.b\\ é\\x00_\\<\\\n");
    }

    #[test]
    fn extract_gives_the_group_or_an_empty_string() {
        let re = |p: &str| Regex::new(p).unwrap();
        assert_eq!(extract(&re("[0-9]+"), "abc123", 0), "123");
        assert_eq!(extract(&re("[0-9]+"), "abc", 0), "");
        assert_eq!(extract(&re("([a-z]+)([0-9]+)"), "abc123", 2), "123");
        assert_eq!(extract(&re("(b)?a"), "a1", 1), "");
        assert_eq!(extract(&re("(b)"), "abc", 2), "");
    }

    #[test]
    fn options_are_letters_and_later_ones_win() {
        let o = |s| Opts::parse(s, "regexp_replace", true);
        assert_eq!(
            o("gi").unwrap(),
            Opts {
                icase: true,
                global: true,
                ..Opts::default()
            }
        );
        assert!(o("z").unwrap_err().contains("option 'z'"));
        assert!(Opts::parse("g", "regexp_matches", false)
            .unwrap_err()
            .contains("does not take the option 'g'"));
    }
}
