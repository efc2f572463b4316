//! `bloomjoin probe`: ask a filter about keys, one per line.

use std::io::{BufRead, BufReader, Read, Write};

use crate::bloom::spark_keys::{SparkKeyMode, SparkKeys, SparkType};
use crate::bloom::{codec, BloomFilter};
use crate::error::{Error, Result};
use crate::key::KeyFamily;
use crate::store::Location;

/// Arguments of `probe`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The filter (a path or an object-store URL); with --column, a Parquet file whose
    /// column's own Bloom filters (SBBF) answer.
    #[arg(long)]
    pub filter: String,
    /// Probe the Parquet Bloom filters of this column of the --filter Parquet file: "no"
    /// when every row group's filter rules the key out.
    #[arg(long, value_name = "COL")]
    pub column: Option<String>,
    /// With --column: only this row group (from 0) [default: all].
    #[arg(long, value_name = "N", requires = "column")]
    pub row_group: Option<usize>,
    /// A file with one key per line (at most 16 MiB a line), or `-` for standard input (the
    /// default when no KEY is given).
    #[arg(long, value_name = "FILE|-")]
    pub keys: Option<String>,
    /// Keys given on the command line.
    #[arg(
        value_name = "KEY",
        conflicts_with = "keys",
        allow_negative_numbers = true
    )]
    pub key: Vec<String>,
    /// Print `key<TAB>answer` instead of the answer alone (a key holding a newline or
    /// carriage return is printed quoted, with them escaped).
    #[arg(long)]
    pub with_keys: bool,
    /// How to read each line: `integer` (a number by value: any integer, or a decimal such as
    /// `1.50` for decimal keys), `bytes` (its UTF-8 bytes), `timestamp` or `timestamptz`
    /// (`YYYY-MM-DD HH:MM:SS.fffffffff`; UTC for timestamptz, which also takes a trailing `Z`).
    /// Defaults to the filter's key family; required for a filter in Spark's format, which
    /// does not record it (Spark hashes integers as longs, strings as UTF-8 bytes, timestamps
    /// as longs of microseconds). For a composite key, one per key column, comma-separated
    /// (`integer,bytes`), checked against the families the filter records; each line is then
    /// one tuple, its fields separated by tabs.
    #[arg(
        long,
        value_name = "integer|bytes|timestamp|timestamptz[,...]",
        value_delimiter = ','
    )]
    pub key_type: Vec<KeyFamily>,
    /// For a filter in Spark's format: it holds Spark SQL's `xxhash64(key)` (plain: the keys
    /// themselves). The keys are hashed as BIGINT, STRING or TIMESTAMP by --key-type. Native
    /// filters record it.
    #[arg(long, value_enum, value_name = "plain|xxhash64")]
    pub spark_keys: Option<SparkKeyMode>,
    /// For a filter in Spark's format with --spark-keys xxhash64: the Spark type each key
    /// column was hashed as (Spark's xxhash64 depends on it: INT 7 and BIGINT 7 differ), one
    /// per --key-type, comma-separated (`int,string`; `decimal(p,s)` keeps its comma).
    /// Defaults to bigint, string or timestamp by --key-type. Native filters record it.
    #[arg(long, value_name = "int|bigint|decimal(p,s)|timestamp|string[,...]")]
    pub spark_type: Option<String>,
}

/// The Spark types of `--spark-type`, or by `families` (`--key-type`) when it is absent;
/// each must hold keys of its family.
fn spark_types(args: &Args, families: &[KeyFamily]) -> Result<Vec<SparkType>> {
    let Some(text) = &args.spark_type else {
        return families
            .iter()
            .map(|f| {
                SparkType::for_family(*f).ok_or_else(|| match f {
                    KeyFamily::Time => crate::bloom::spark_keys::spark_time(),
                    _ => Error::param("--key-type", format!("{f}: not the type of a key column")),
                })
            })
            .collect();
    };
    crate::bloom::spark_keys::parse_types(text, families, "--key-type")
}

const BATCH: usize = 4096;

/// Canonical text of a key of `family` for `filter`: integers parse as `i64`; a filter trained
/// on a `Date32` column also takes `YYYY-MM-DD`. Bytes keys are the line's UTF-8 bytes.
fn hash_line(
    line: &str,
    filter: &BloomFilter,
    family: KeyFamily,
    is_date: bool,
    uuid: bool,
    at: &str,
) -> Result<u64> {
    if uuid {
        // A UUID filter holds the 16 bytes: the key is read as a UUID's text (32 hex digits
        // in any case, with or without hyphens, optionally in braces), as DuckDB casts it.
        let t = line.trim();
        let t = t
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or(t);
        let hex: Vec<u8> = t.bytes().filter(|&b| b != b'-').collect();
        let bytes: Option<Vec<u8>> = (hex.len() == 32)
            .then(|| {
                hex.chunks(2)
                    .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
                    .collect()
            })
            .flatten();
        return match bytes {
            Some(b) => Ok(filter.params().hash_bytes(&b)),
            None => Err(Error::Usage(format!(
                "{at}: key {line:?} is not a UUID (32 hex digits, hyphens allowed), and the filter holds UUIDs"
            ))),
        };
    }
    if family == KeyFamily::Integer && is_date {
        if let Ok(days) = crate::expr::parse_date(line.trim()) {
            return Ok(filter.params().hash_i64(days as i64));
        }
    }
    filter
        .hash_text(line, family)
        .map_err(|e| Error::Usage(format!("{at}: {e}")))
}

/// A key to probe and where it came from (`argument 2`, `keys.txt line 7`).
type Key = Result<(String, String)>;

/// The keys of `args`: each KEY argument whole (an empty one, or one holding a newline or a
/// carriage return, is that key), else each line of `--keys` or stdin without its line
/// ending (`\n` or `\r\n`).
fn key_source(args: &Args) -> Result<Box<dyn Iterator<Item = Key> + '_>> {
    if !args.key.is_empty() {
        return Ok(Box::new(
            args.key
                .iter()
                .enumerate()
                .map(|(i, k)| Ok((format!("argument {}", i + 1), k.clone()))),
        ));
    }
    let (source, mut reader): (String, Box<dyn BufRead>) = match args.keys.as_deref() {
        None | Some("-") => ("stdin".into(), Box::new(std::io::stdin().lock())),
        Some(path) => {
            let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            (path.to_string(), Box::new(BufReader::new(f)))
        }
    };
    let mut n = 0;
    Ok(Box::new(std::iter::from_fn(move || {
        n += 1;
        let at = format!("{source} line {n}");
        // One line, read at most one byte past the longest key: a file with no line break
        // (`/dev/zero`) is refused rather than read until the memory runs out.
        let mut buf = Vec::new();
        let read = (&mut reader)
            .take(MAX_KEY_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf);
        match read {
            Err(e) => return Some(Err(Error::io(&source, e))),
            Ok(0) => return None,
            Ok(_) => {}
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        } else if buf.len() as u64 > MAX_KEY_LINE_BYTES {
            return Some(Err(Error::Usage(format!(
                "{at}: longer than {} MiB without a line break: not a file of keys, one per line",
                MAX_KEY_LINE_BYTES >> 20
            ))));
        }
        Some(Error::utf8(&source, buf).map(|line| (at, line)))
    })))
}

/// The longest line of `--keys` or stdin taken as one key.
const MAX_KEY_LINE_BYTES: u64 = 16 << 20;

/// `probe --filter FILE.parquet --column C [--row-group N]`: the column's own SBBFs.
fn run_parquet(args: &Args, column: &str) -> Result<()> {
    if !args.key_type.is_empty() {
        return Err(Error::param(
            "--key-type",
            "does not apply to --column: the column's physical type decides",
        ));
    }
    let filters = crate::bloom::sbbf::ColumnFilters::read(&args.filter, column, args.row_group)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for key in key_source(args)? {
        let (at, line) = key?;
        let keys = filters.keys_of(&line, &at)?;
        if !go_on(write_answer(
            &mut out,
            &line,
            filters.maybe(&keys),
            args.with_keys,
        ))? {
            return Ok(());
        }
    }
    go_on(out.flush()).map(drop)
}

/// Write one answer (`maybe` or `no`), after the key and a tab under `--with-keys`. A key
/// holding a newline or carriage return (possible in a KEY argument) is written quoted with
/// them escaped (`"a\nb"`), so that every answer stays one line. (Tabs stay: they separate
/// a composite key's fields.)
fn write_answer(
    out: &mut impl Write,
    line: &str,
    maybe: bool,
    with_keys: bool,
) -> std::io::Result<()> {
    let answer = if maybe { "maybe" } else { "no" };
    if with_keys && line.contains(['\n', '\r']) {
        writeln!(out, "{line:?}\t{answer}")
    } else if with_keys {
        writeln!(out, "{line}\t{answer}")
    } else {
        writeln!(out, "{answer}")
    }
}

/// The outcome of writing to stdout: go on (true), stop quietly because the reader closed
/// the pipe (`| head`: false), or the error.
fn go_on(written: std::io::Result<()>) -> Result<bool> {
    match written {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Error::io("stdout", e)),
    }
}

/// Run `probe`.
pub fn run(args: Args) -> Result<()> {
    if let Some(column) = &args.column {
        return run_parquet(&args, column);
    }
    let loc = Location::parse(&args.filter)?;
    let (filter, meta) = codec::read(&loc)?;
    if args.spark_type.is_some()
        && (filter.family() != KeyFamily::Any || args.spark_keys != Some(SparkKeyMode::Xxhash64))
    {
        return Err(Error::param(
            "--spark-type",
            format!(
                "only with --spark-keys xxhash64 and a filter in Spark's format (a native filter such as {loc} records its key types)"
            ),
        ));
    }
    if filter.family() == KeyFamily::Tuple || args.key_type.len() > 1 {
        return run_tuples(&args, &loc, &filter, &meta);
    }
    let family = match (args.key_type.first().copied(), filter.family()) {
        (None, KeyFamily::Any) => {
            return Err(Error::Usage(format!(
                "{}: the filter does not record its key type (it is in Spark's format, or was merged from files in it): pass --key-type integer, bytes, timestamp or timestamptz",
                loc
            )))
        }
        (Some(KeyFamily::Any), _) => {
            return Err(Error::param(
                "--key-type",
                "\"any\" (expected integer, bytes, timestamp or timestamptz)",
            ))
        }
        (Some(t), _) => {
            filter
                .check_family(t)
                .map_err(|e| Error::param("--key-type", format!("{t}: {e}")))?;
            t
        }
        (None, f) => f,
    };
    let mut filter = filter;
    match (args.spark_keys, filter.params().spark_keys) {
        (Some(SparkKeyMode::Xxhash64), SparkKeys::Plain) if filter.family() == KeyFamily::Any => {
            let t = spark_types(&args, &[family])?[0];
            filter
                .set_spark_keys(SparkKeys::Xxhash64(t))
                .map_err(|e| Error::Usage(format!("{loc}: {e}")))?;
        }
        (Some(SparkKeyMode::Xxhash64), SparkKeys::Plain) => {
            return Err(Error::param(
                "--spark-keys",
                format!("xxhash64, but the filter {loc} records plain keys"),
            ))
        }
        (Some(SparkKeyMode::Plain), SparkKeys::Xxhash64(t)) => {
            return Err(Error::param(
                "--spark-keys",
                format!("plain, but the filter {loc} records xxhash64 keys ({t})"),
            ))
        }
        _ => {}
    }
    // Date64 keys are their day numbers too (issue 16), as in a tuple's fields below.
    let is_date = matches!(meta.key_type.as_deref(), Some("Date32" | "Date64"));
    let uuid = meta.logical_type.as_deref() == Some("UUID") && family == KeyFamily::Bytes;
    probe_lines(&args, &filter, |line, at| {
        hash_line(line, &filter, family, is_date, uuid, at)
    })
}

/// `probe` of a composite-key filter: one tuple per line, tab-separated, read by the families
/// the filter records (`--key-type`, if given, must agree with them).
fn run_tuples(
    args: &Args,
    loc: &Location,
    filter: &BloomFilter,
    meta: &codec::FilterMeta,
) -> Result<()> {
    if filter.family() == KeyFamily::Any && args.spark_keys == Some(SparkKeyMode::Xxhash64) {
        // A filter in Spark's format of xxhash64(c1, c2, ...): the columns' Spark types by
        // --key-type (BIGINT, STRING or TIMESTAMP).
        let types = spark_types(args, &args.key_type)?;
        let mut filter = filter.clone();
        filter
            .set_spark_tuple(types)
            .map_err(|e| Error::Usage(format!("{loc}: {e}")))?;
        let dates = vec![false; args.key_type.len()];
        return probe_lines(args, &filter, |line, at| {
            hash_tuple_line(&filter, line, &args.key_type, &dates, at)
        });
    }
    if filter.family() != KeyFamily::Tuple {
        return Err(Error::param(
            "--key-type",
            format!(
                "{} types for a filter of one-column {} keys ({loc}): composite keys need a filter trained on them (train --column a,b)",
                args.key_type.len(),
                filter.family()
            ),
        ));
    }
    let families: Vec<KeyFamily> = meta.key_columns.iter().map(|c| c.family).collect();
    if !args.key_type.is_empty() && args.key_type != families {
        let show = |f: &[KeyFamily]| {
            f.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        return Err(Error::param(
            "--key-type",
            format!(
                "{}: the filter {loc} records key columns of types {}",
                show(&args.key_type),
                show(&families)
            ),
        ));
    }
    let dates: Vec<bool> = meta
        .key_columns
        .iter()
        .map(|c| matches!(c.key_type.as_str(), "Date32" | "Date64"))
        .collect();
    if let Some(mode) = args.spark_keys {
        let recorded = filter.params().spark_keys;
        if (mode == SparkKeyMode::Xxhash64) != (recorded == SparkKeys::Xxhash64Tuple) {
            return Err(Error::param(
                "--spark-keys",
                format!(
                    "{}, but the filter {loc} records {recorded} keys",
                    if mode == SparkKeyMode::Xxhash64 {
                        "xxhash64"
                    } else {
                        "plain"
                    }
                ),
            ));
        }
    }
    probe_lines(args, filter, |line, at| {
        hash_tuple_line(filter, line, &families, &dates, at)
    })
}

/// Hash one `probe` line of a composite key (`at`: where it was read): its tab-separated
/// fields read as `families` (`dates[i]`: field `i` may be `YYYY-MM-DD`).
fn hash_tuple_line(
    filter: &BloomFilter,
    line: &str,
    families: &[KeyFamily],
    dates: &[bool],
    at: &str,
) -> Result<u64> {
    let fields: Vec<&str> = line.split('\t').collect();
    filter
        .hash_text_tuple(&fields, families, dates)
        .map_err(|e| Error::Usage(format!("{at}: {}", crate::error::one_line(&e))))
}

/// Read the key lines of `args`, hash each with `hash(line, "<source> line N")`, probe
/// `filter` in batches and print the answers.
fn probe_lines(
    args: &Args,
    filter: &BloomFilter,
    mut hash: impl FnMut(&str, &str) -> Result<u64>,
) -> Result<()> {
    let mut it = key_source(args)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut lines = Vec::with_capacity(BATCH);
    let mut hashes = Vec::with_capacity(BATCH);
    loop {
        lines.clear();
        hashes.clear();
        for key in it.by_ref() {
            let (at, line) = key?;
            hashes.push(hash(&line, &at)?);
            lines.push(line);
            if lines.len() == BATCH {
                break;
            }
        }
        if lines.is_empty() {
            break;
        }
        let hits = filter.probe_hashes(&hashes);
        for (line, hit) in lines.iter().zip(hits.iter()) {
            if !go_on(write_answer(&mut out, line, hit, args.with_keys))? {
                return Ok(());
            }
        }
    }
    go_on(out.flush()).map(drop)
}
