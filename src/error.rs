//! The library's one error type.
//!
//! Every message names the file, column or parameter it is about and does not repeat its
//! source: callers print the whole chain (`{:#}` with anyhow) on one line.

use std::fmt;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in bloomjoin.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter (flag, job-file key, filter parameter) has an impossible value.
    #[error("invalid {name}: {reason}")]
    InvalidParam {
        /// The parameter, as the user spells it (`--fpp`, `num_bits`, ...).
        name: String,
        /// Why it is rejected.
        reason: String,
    },
    /// Two filters cannot be combined because a parameter differs.
    #[error("cannot merge {location}: {field} differs ({ours} vs {theirs})")]
    Incompatible {
        /// The filter that does not fit.
        location: String,
        /// The parameter that differs.
        field: &'static str,
        /// Value of the filter merged into.
        ours: String,
        /// Value of the offending filter.
        theirs: String,
    },
    /// A filter file could not be decoded.
    #[error("{location}: not a valid filter: {reason}")]
    Format {
        /// The filter's location.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A key column is missing or of a type that cannot be a key.
    #[error("{file}: column {column:?}: {reason}")]
    Column {
        /// The input file.
        file: String,
        /// The column.
        column: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// An input location matched nothing or is not usable.
    #[error("{location}: {reason}")]
    Input {
        /// The location the user gave.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A location string could not be understood.
    #[error("bad location {location:?}: {reason}")]
    Location {
        /// The location the user gave.
        location: String,
        /// Why it is rejected.
        reason: String,
    },
    /// The output already exists and `--overwrite` was not given.
    #[error("{location}: output already exists (to replace it: --overwrite; overwrite = true in a job file, overwrite=True in Python)")]
    OutputExists {
        /// The output location.
        location: String,
    },
    /// No credentials for an object store (e.g. no AWS keys in the environment, and the
    /// instance metadata service, tried last, gave none).
    #[error("{location}: {reason}")]
    Credentials {
        /// The location.
        location: String,
        /// What is missing and how to provide it.
        reason: String,
    },
    /// An output location is, contains or lies inside an input location.
    #[error("{output_flag} {output}: {how} the input {input} ({input_flag}); write the output outside every input")]
    Overlap {
        /// The output option (`--output`).
        output_flag: String,
        /// The output location.
        output: String,
        /// `is`, `contains` or `lies inside`.
        how: &'static str,
        /// The input location.
        input: String,
        /// The input option (`--input`, `--left`, `--right`, `--filter`).
        input_flag: String,
    },
    /// A `--where` expression or `--select` list is invalid.
    #[error("{context}: {reason}")]
    Expr {
        /// Which option (and input) the expression belongs to.
        context: String,
        /// What is wrong.
        reason: String,
    },
    /// Bad usage that clap cannot catch (combinations of options, job files).
    #[error("{0}")]
    Usage(String),
    /// A key the filter's format cannot hold: a `UInt64` over 2^63 - 1, a decimal that is no
    /// long, or a timestamp with digits below a microsecond, against a Spark filter (whose
    /// keys are longs). Training or checking such a left key is an error; a right key is one
    /// no left key equals, so the prefilter drops it.
    #[error("{0}")]
    Unrepresentable(String),
    /// A local I/O error on a named path.
    #[error("{location}")]
    Io {
        /// The file or directory.
        location: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An object-store error on a named location. Construct it with [`Error::store`], which
    /// recognizes missing credentials.
    #[error("{location}{}", store_hint(source))]
    Store {
        /// The location.
        location: String,
        /// The cause.
        #[source]
        source: object_store::Error,
    },
    /// A Parquet error reading or writing a named file.
    #[error("{location}")]
    Parquet {
        /// The file.
        location: String,
        /// The cause.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// An Arrow compute error, with what was being done.
    #[error("{context}")]
    Arrow {
        /// What was being computed.
        context: String,
        /// The cause.
        #[source]
        source: arrow::error::ArrowError,
    },
    /// A task failed; wraps the cause once with the stage and task.
    #[error("{stage} task {task}")]
    Task {
        /// The stage (`train map`, `join reduce`, ...).
        stage: &'static str,
        /// The task (split or partition) description.
        task: String,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// A step of a job file failed (or is invalid); wraps the cause once with the file and
    /// the step.
    #[error("{job}: {detail}")]
    JobStep {
        /// The job file.
        job: String,
        /// Which step, and what happened to the steps after it.
        detail: String,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// The job was cancelled ([`crate::cancel::request`], e.g. by SIGINT or SIGTERM); what it
    /// staged was removed and nothing was committed.
    #[error("cancelled: nothing was committed")]
    Cancelled,
    /// Something that should not happen (a worker panic, a closed channel).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The process exit code for this error: 2 for bad usage or bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::InvalidParam { .. }
            | Error::Incompatible { .. }
            | Error::Format { .. }
            | Error::Column { .. }
            | Error::Input { .. }
            | Error::Location { .. }
            | Error::OutputExists { .. }
            | Error::Overlap { .. }
            | Error::Credentials { .. }
            | Error::Expr { .. }
            | Error::Usage(_)
            | Error::Unrepresentable(_) => 2,
            Error::Io { source, .. } => match source.kind() {
                std::io::ErrorKind::NotFound
                | std::io::ErrorKind::PermissionDenied
                | std::io::ErrorKind::InvalidData
                | std::io::ErrorKind::UnexpectedEof
                // A directory given where a file is read (`inspect DIR`, `run DIR`).
                | std::io::ErrorKind::IsADirectory => 2,
                _ => 1,
            },
            Error::Store { source, .. } => match source {
                object_store::Error::NotFound { .. }
                | object_store::Error::AlreadyExists { .. }
                | object_store::Error::InvalidPath { .. } => 2,
                // A missing bucket or a denied request is a wrong location, not a failure.
                other => {
                    let text = other.to_string();
                    if [
                        "NoSuchBucket",
                        "404 Not Found",
                        "403 Forbidden",
                        "AccessDenied",
                    ]
                    .iter()
                    .any(|n| text.contains(n))
                    {
                        2
                    } else {
                        1
                    }
                }
            },
            // A file that does not parse as Parquet is bad input; a failed write (a full disk)
            // is a failure of the machine, as in every other writer.
            Error::Parquet { source, .. } => match io_kind(source) {
                Some(
                    std::io::ErrorKind::InvalidData
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::PermissionDenied,
                )
                | None => 2,
                Some(_) => 1,
            },
            Error::Arrow { .. } => 1,
            Error::Task { source, .. } | Error::JobStep { source, .. } => source.exit_code(),
            Error::Internal(_) => 1,
            // The binary exits 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
            Error::Cancelled => 130,
        }
    }

    /// An object-store error on `location`. A failure of the AWS instance metadata service,
    /// which object_store asks for credentials when the environment has none, is reported as
    /// [`Error::Credentials`]: the credentials are missing, the 403 or timeout of that
    /// endpoint is only how it shows.
    pub fn store(location: impl Into<String>, source: object_store::Error) -> Self {
        let location = location.into();
        let text = one_line(&source);
        if text.contains("/latest/api/token") || text.contains("/latest/meta-data/iam/") {
            let answer = text.rsplit(" - ").next().unwrap_or_default();
            return Error::Credentials {
                location,
                reason: format!(
                    "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN; AWS_SKIP_SIGNATURE=true for a public bucket); the instance metadata service, asked last, gave none ({answer})"
                ),
            };
        }
        Error::Store { location, source }
    }

    /// True when this error is (or wraps) [`Error::Cancelled`].
    pub fn is_cancelled(&self) -> bool {
        match self {
            Error::Cancelled => true,
            Error::Task { source, .. } | Error::JobStep { source, .. } => source.is_cancelled(),
            _ => false,
        }
    }

    /// Shorthand for [`Error::InvalidParam`].
    pub fn param(name: impl Into<String>, reason: impl fmt::Display) -> Self {
        Error::InvalidParam {
            name: name.into(),
            reason: reason.to_string(),
        }
    }

    /// [`Error::Column`] for a column that `schema` (of `file`) lacks, listing the columns it
    /// has; `context` (such as "key of --left") goes before the list.
    pub fn no_such_column(
        file: &str,
        column: &str,
        schema: &arrow::datatypes::Schema,
        context: &str,
    ) -> Self {
        let has = schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let context = if context.is_empty() {
            String::new()
        } else {
            format!("{context}; ")
        };
        let hint = did_you_mean(column, schema)
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        Error::Column {
            file: file.to_string(),
            column: column.to_string(),
            reason: format!("no such column ({context}the file has {has}{hint})"),
        }
    }

    /// Shorthand for [`Error::Format`].
    pub fn format(location: impl Into<String>, reason: impl fmt::Display) -> Self {
        Error::Format {
            location: location.into(),
            reason: reason.to_string(),
        }
    }

    /// Shorthand for [`Error::Io`].
    pub fn io(location: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            location: location.into(),
            source,
        }
    }

    /// Bytes read from `location` as text; bytes that are not UTF-8 are the invalid data of
    /// an I/O error (exit 2) naming it and where the text stops being UTF-8.
    pub(crate) fn utf8(location: &str, bytes: Vec<u8>) -> Result<String> {
        String::from_utf8(bytes).map_err(|e| {
            Error::io(
                location,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
            )
        })
    }

    /// Shorthand for [`Error::Arrow`].
    pub fn arrow(context: impl Into<String>, source: arrow::error::ArrowError) -> Self {
        Error::Arrow {
            context: context.into(),
            source,
        }
    }
}

/// The kind of the first I/O error in `err`'s cause chain.
fn io_kind(err: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cur = e.source();
    }
    None
}

/// What to add to an object-store error's location: the timeout that expired, and how to
/// change it.
fn store_hint(source: &object_store::Error) -> String {
    if one_line(source).contains("timed out") {
        format!(
            ": no answer within {} s per request (BLOOMJOIN_IO_TIMEOUT_SECS)",
            crate::store::io_timeout().as_secs_f64()
        )
    } else {
        String::new()
    }
}

/// `did you mean "Id"?` when `schema` has columns close to the missing `column`: first the names equal to it but for case (Spark and DuckDB resolve names without
/// regard to case, so `id` for `Id` is the usual slip), else those within a small edit
/// distance of it, case aside (`user_id` for `UserId`). At most three, in schema order.
pub(crate) fn did_you_mean(column: &str, schema: &arrow::datatypes::Schema) -> Option<String> {
    did_you_mean_in(column, schema.fields().iter().map(|f| f.name().as_str()))
}

/// [`did_you_mean`] over any list of names.
pub(crate) fn did_you_mean_in<'a>(
    column: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    match nearest_names(column, names).as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one:?}?")),
        [init @ .., last] => Some(format!(
            "did you mean {} or {last:?}?",
            init.iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The names close to `column` that [`did_you_mean`] offers (at most three, in order).
pub(crate) fn nearest_names<'a>(
    column: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let want = column.to_lowercase();
    let names: Vec<&str> = names.into_iter().filter(|n| *n != column).collect();
    let mut close: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.to_lowercase() == want)
        .collect();
    if close.is_empty() {
        // One edit for names of up to 5 characters, two beyond: a short name is close to
        // too many others for more.
        let limit = if want.chars().count() <= 5 { 1 } else { 2 };
        let distance = |n: &str| strsim::damerau_levenshtein(&n.to_lowercase(), &want);
        if let Some(best) = names
            .iter()
            .map(|n| distance(n))
            .min()
            .filter(|d| *d <= limit)
        {
            close = names.into_iter().filter(|n| distance(n) == best).collect();
        }
    }
    close.truncate(3);
    close
}

/// Render an error and its whole cause chain on one line (`a: b: c`), collapsing newlines
/// that some dependency errors contain.
pub fn one_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut cur = err.source();
    while let Some(e) = cur {
        let s = e.to_string();
        // Some sources repeat the message of their own source; skip exact repeats.
        if !parts.last().is_some_and(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = e.source();
    }
    let joined = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    tidy(&joined.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The most characters of an HTML error page's text kept in a message (when it has no title).
const HTML_TEXT: usize = 160;

/// An object store's answer made readable: the XML error document of S3 and its kin becomes
/// its code and message (`NoSuchBucket: The specified bucket does not exist`), without the
/// request and host ids; an HTML page (from a proxy in front of the store) becomes its title
/// or the start of its text; and the request's elapsed time (`GET url in 3.900291ms`), which
/// changes every run, is dropped.
fn tidy(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(start) = out.find("<?xml").or_else(|| out.find("<Error>")) {
        let end = out[start..]
            .find("</Error>")
            .map_or(out.len(), |e| start + e + "</Error>".len());
        let doc = &out[start..end];
        let tag = |t: &str| {
            let open = format!("<{t}>");
            let from = doc.find(&open)? + open.len();
            let to = doc[from..].find(&format!("</{t}>"))? + from;
            Some(doc[from..to].trim().to_string())
        };
        let short = match (tag("Code"), tag("Message")) {
            (Some(c), Some(m)) => format!("{c}: {m}"),
            (Some(c), None) => c,
            (None, Some(m)) => m,
            (None, None) => break,
        };
        out.replace_range(start..end, &short);
    }
    // An HTML page (a proxy's or a load balancer's answer instead of the store's): its
    // title, else its text without markup, at most HTML_TEXT characters.
    let lower = out.to_ascii_lowercase();
    if let Some(start) = lower.find("<!doctype html").or_else(|| lower.find("<html")) {
        let end = lower[start..]
            .find("</html>")
            .map_or(out.len(), |e| start + e + "</html>".len());
        let page = &out[start..end];
        let title = lower[start..end].find("<title>").and_then(|t| {
            let from = t + "<title>".len();
            let to = lower[start + from..end].find("</title>")? + from;
            Some(page[from..to].trim().to_string())
        });
        let short = match title.filter(|t| !t.is_empty()) {
            Some(t) => t,
            None => {
                // Without what browsers do not show: styles and scripts.
                let mut shown = page.to_string();
                for t in ["style", "script"] {
                    let (open, close) = (format!("<{t}"), format!("</{t}>"));
                    loop {
                        let low = shown.to_ascii_lowercase();
                        let Some(i) = low.find(&open) else { break };
                        let j = low[i..]
                            .find(&close)
                            .map_or(shown.len(), |j| i + j + close.len());
                        shown.replace_range(i..j, " ");
                    }
                }
                let mut text = String::new();
                let mut in_tag = false;
                for c in shown.chars() {
                    match c {
                        '<' => in_tag = true,
                        '>' if in_tag => {
                            in_tag = false;
                            text.push(' ');
                        }
                        c if !in_tag => text.push(c),
                        _ => {}
                    }
                }
                let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
                match words.char_indices().nth(HTML_TEXT) {
                    Some((i, _)) => format!("{}...", &words[..i]),
                    None => words,
                }
            }
        };
        out.replace_range(start..end, &format!("(an HTML page: {short})"));
    }
    // " in 3.900291ms", " in 1.5s", " in 850µs": a Duration's Debug form.
    let mut from = 0;
    while let Some(i) = out[from..].find(" in ").map(|i| from + i) {
        let token_end = out[i + 4..]
            .find(|c: char| !(c.is_alphanumeric() || c == '.'))
            .map_or(out.len(), |e| i + 4 + e);
        let token = &out[i + 4..token_end];
        let number = token.trim_end_matches(|c: char| c.is_alphabetic());
        let unit = &token[number.len()..];
        let is_duration = !number.is_empty()
            && number.chars().all(|c| c.is_ascii_digit() || c == '.')
            && matches!(unit, "ns" | "µs" | "ms" | "s");
        if is_duration {
            out.replace_range(i..token_end, "");
        } else {
            from = i + 4;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean_in, tidy};

    #[test]
    fn a_missing_column_suggests_the_names_close_to_it() {
        let names = ["Id", "DisplayName", "Reputation", "UserId", "user_name"];
        let hint = |c: &str| did_you_mean_in(c, names).unwrap_or_default();
        // Case alone, which wins over any edit.
        assert_eq!(hint("id"), "did you mean \"Id\"?");
        assert_eq!(hint("REPUTATION"), "did you mean \"Reputation\"?");
        // Edits, case aside.
        assert_eq!(hint("user_id"), "did you mean \"UserId\"?");
        assert_eq!(hint("Reputaton"), "did you mean \"Reputation\"?");
        assert_eq!(hint("displayname_"), "did you mean \"DisplayName\"?");
        // Nothing close: no hint; a short name takes one edit at most.
        assert_eq!(hint("nope"), "");
        assert_eq!(hint("x"), "");
        assert_eq!(hint("Idxx"), "");
        // Ties are all named, in order; a name equal to the asked one is not offered.
        assert_eq!(
            did_you_mean_in("id", ["ID", "Id", "iD", "id ", "id"]).unwrap(),
            "did you mean \"ID\", \"Id\" or \"iD\"?"
        );
        assert_eq!(
            did_you_mean_in("ab", ["ac", "ad"]).unwrap(),
            "did you mean \"ac\" or \"ad\"?"
        );
    }

    #[test]
    fn store_answers_lose_their_xml_and_timings() {
        let raw = "s3://nobucket/x.bjf: Object at location x.bjf not found: Error performing GET \
                   http://127.0.0.1:59333/nobucket/x.bjf in 5.003475ms - Server returned non-2xx \
                   status code: 404 Not Found: <?xml version=\"1.0\" encoding=\"utf-8\"?> \
                   <Error><Code>NoSuchBucket</Code><Message>The specified bucket does not \
                   exist</Message><BucketName>nobucket</BucketName><RequestId>Zd9B</RequestId>\
                   <HostId>9Gjj+/=</HostId></Error>";
        assert_eq!(
            tidy(raw),
            "s3://nobucket/x.bjf: Object at location x.bjf not found: Error performing GET \
             http://127.0.0.1:59333/nobucket/x.bjf - Server returned non-2xx status code: 404 \
             Not Found: NoSuchBucket: The specified bucket does not exist"
        );
        // Durations of every unit go; words and numbers that are not durations stay.
        for (t, want) in [
            ("GET u in 1.5s - x", "GET u - x"),
            ("GET u in 850µs", "GET u"),
            ("GET u in 12ns: y", "GET u: y"),
            ("joined in 23 ms in total", "joined in 23 ms in total"),
            ("in in in 5", "in in in 5"),
            ("a key in users.parquet", "a key in users.parquet"),
            ("<Error><Code>AccessDenied</Code></Error>", "AccessDenied"),
            (
                "<Error><Foo>x</Foo></Error> tail",
                "<Error><Foo>x</Foo></Error> tail",
            ),
        ] {
            assert_eq!(tidy(t), want, "{t}");
        }
    }

    /// A proxy's HTML page in place of the store's answer: its title, or the start of its
    /// text, never the markup.
    #[test]
    fn store_answers_in_html_keep_their_title_or_some_text() {
        let proxy = "GET http://h/b/k - Server returned non-2xx status code: 502 Bad Gateway: \
                     <!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body \
                     {color: red}</style></head><body><h1>Bad Gateway</h1></body></html>";
        assert_eq!(
            tidy(proxy),
            "GET http://h/b/k - Server returned non-2xx status code: 502 Bad Gateway: (an HTML \
             page: 502 Bad Gateway)"
        );
        let untitled = format!(
            "x: <HTML><style>p {{ color: red }}</style><body><p>{}</p>",
            "word ".repeat(100)
        );
        let got = tidy(&untitled);
        assert!(got.starts_with("x: (an HTML page: word word"), "{got}");
        assert!(got.ends_with("...)") && got.len() < 200, "{got}");
        assert!(!got.contains('<') && !got.contains("color"), "{got}");
        // Text that merely mentions html stays.
        assert_eq!(tidy("see index.html for <b>"), "see index.html for <b>");
    }
}
