//! `bloomjoin scan`: read one column of Parquet inputs with the same planner and reader as
//! `train` and do nothing but count (rows, nulls, and a sum for integer columns). It is the
//! baseline of the train benchmark: the cost of decoding the key column alone, or, with
//! `--where`, of reading the rows a `train --where` reads: the same row groups and pages
//! kept by the statistics and the page index, the predicate's columns decoded beside the key
//! and evaluated, only the passing rows counted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Int64Type};

use crate::error::{Error, Result};
use crate::expr::Predicate;
use crate::plan::side::{Filled, Source};
use crate::plan::{self, InputFile, Plan, RangeReader, SplitOptions};
use crate::read::{ReadOptions, SplitReader};

/// Arguments of `scan`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input Parquet files: paths, directories, globs or object-store URLs.
    #[arg(long, short, required = true, num_args = 1.., value_name = "LOC")]
    pub input: Vec<String>,
    /// The column to read.
    #[arg(long, short)]
    pub column: String,
    /// Count only the rows where this SQL condition holds (the syntax of `train --where`);
    /// its columns are read beside the column, as `train --where` reads them.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    pub predicate: Option<String>,
    /// Do not read `name=value` directories in the inputs' paths (`dt=2024-01-01/`) as
    /// columns of their files' rows (for --column and --where), as `train` does.
    #[arg(long)]
    pub no_hive_partitioning: bool,
    /// Worker threads, 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 65_536, value_name = "ROWS")]
    pub batch_size: usize,
}

/// What a file gives the scan: the file's columns to decode (sorted), the scanned column (a
/// position among them, or a partition directory's value), and the `--where` columns the
/// file lacks (see [`crate::plan::side::where_fill`]).
struct FileColumns {
    columns: Vec<usize>,
    key: Source,
    where_fill: Vec<Filled>,
}

/// The scan's totals.
#[derive(Default)]
struct Totals {
    read: AtomicU64,
    rows: AtomicU64,
    nulls: AtomicU64,
    sum: AtomicU64,
    summed: AtomicBool,
}

/// Each file's columns, checked: the scanned column must be in every file, and `--where`'s
/// columns in some file or a partition directory, with types the predicate can compare.
fn file_columns(
    plan: &Plan,
    column: &str,
    predicate: Option<&Predicate>,
) -> Result<Vec<FileColumns>> {
    let where_fields = match predicate {
        Some(p) if !plan.files.is_empty() => crate::plan::side::where_fields(plan, p)?,
        _ => Vec::new(),
    };
    plan.files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let schema = f.schema();
            let file = f.location.to_string();
            // The scanned column: the file's (its index in the file, made a position in the
            // decoded batch below), or a partition directory's value.
            let key = match schema.index_of(column) {
                Ok(k) => Source::Decoded(k),
                Err(_) => match crate::plan::side::partition_column(plan, i, column) {
                    Some((_, value)) => Source::Partition(value),
                    None => {
                        return Err(crate::plan::side::missing_key(
                            plan,
                            &file,
                            column,
                            schema,
                            "scanned column",
                        ))
                    }
                },
            };
            let mut columns: Vec<usize> = match key {
                Source::Decoded(k) => vec![k],
                _ => Vec::new(),
            };
            let (read, missing) =
                crate::plan::side::where_columns(predicate, schema, &file, &where_fields)?;
            columns.extend(read);
            columns.sort_unstable();
            columns.dedup();
            let key = match key {
                Source::Decoded(k) => {
                    Source::Decoded(columns.iter().position(|c| *c == k).expect("projected"))
                }
                other => other,
            };
            Ok(FileColumns {
                key,
                columns,
                where_fill: crate::plan::side::where_fill(plan, i, missing),
            })
        })
        .collect()
}

/// Run `scan`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let t0 = std::time::Instant::now();
    let workers = crate::cli::check_workers(args.workers)?
        .map_or_else(crate::sys::default_workers, |w| w.get());
    let predicate = args
        .predicate
        .as_deref()
        .map(|w| Predicate::parse(w, "--where"))
        .transpose()?;
    let predicate = predicate.as_ref();
    let pool = crate::map::worker_pool(workers)?;
    let totals = Totals::default();
    pool.install(|| -> Result<()> {
        // As train plans: files whose partition values fail --where are not opened.
        let inputs = plan::InputOptions {
            hive_partitioning: !args.no_hive_partitioning,
            predicate: predicate.cloned(),
            key_filter: None,
        };
        let plan = plan::plan_with(&args.input, &inputs, |t| {
            SplitOptions::for_workers(t, workers)
        })?;
        let files = file_columns(&plan, &args.column, predicate)?;
        // The row groups of each split that --where may pass, by their statistics, as
        // train keeps them.
        let split_groups: Vec<Vec<usize>> = plan
            .splits
            .iter()
            .map(|s| {
                let all: Vec<usize> = s.row_groups.clone().collect();
                match predicate {
                    Some(p) => {
                        let f = &plan.files[s.file];
                        let fill = &files[s.file].where_fill;
                        p.partition_row_groups(f.parquet(), f.schema(), all, fill).0
                    }
                    None => all,
                }
            })
            .collect();
        let cancel = AtomicBool::new(false);
        let ahead = crate::read::ahead::ReadAhead::new(&plan, |i| {
            let s = &plan.splits[i];
            let (file, fc) = (&plan.files[s.file], &files[s.file]);
            let index = predicate.and_then(|p| {
                crate::read::pages::index_range(p, file, &fc.where_fill, &split_groups[i])
            });
            let chunks = crate::read::ahead::chunk_ranges(
                file,
                split_groups[i].iter().copied(),
                &fc.columns,
            );
            index.into_iter().chain(chunks).collect()
        })?;
        crate::map::run_splits(
            &plan,
            "scan",
            workers,
            &cancel,
            || Ok(()),
            |_, i| {
                let ahead = ahead.take(i);
                let s = &plan.splits[i];
                let file = plan.files[s.file].clone();
                let fc = &files[s.file];
                let mut groups = split_groups[i].clone();
                let mut pages = None;
                if let Some(p) = predicate.filter(|_| !groups.is_empty()) {
                    let planned =
                        crate::read::pages::plan(p, &file, &fc.where_fill, groups, || {
                            Ok(RangeReader::open(&file.location)?.with_ahead(ahead.clone()))
                        })?;
                    groups = planned.row_groups;
                    pages = planned.pages;
                }
                if groups.is_empty() {
                    return Ok(());
                }
                scan_groups(
                    &file,
                    groups,
                    fc,
                    predicate,
                    args.batch_size,
                    ahead,
                    pages,
                    &totals,
                )
            },
        )?;
        Ok(())
    })?;
    if !quiet {
        let rows = totals.rows.into_inner();
        let passing = match predicate {
            Some(_) => format!(" pass --where of {} read", totals.read.into_inner()),
            None => String::new(),
        };
        let sum = totals.summed.into_inner().then(|| totals.sum.into_inner());
        crate::cli::print(&format!(
            "scanned column {:?}: {rows} rows{passing}, {} nulls{} in {} ms\n",
            args.column,
            totals.nulls.into_inner(),
            sum.map(|s| format!(", wrapping sum {}", s as i64))
                .unwrap_or_default(),
            t0.elapsed().as_millis()
        ))?;
    }
    Ok(())
}

/// Read `groups` of `file` and count the scanned column's passing rows into `totals`.
#[allow(clippy::too_many_arguments)]
fn scan_groups(
    file: &Arc<InputFile>,
    groups: Vec<usize>,
    fc: &FileColumns,
    predicate: Option<&Predicate>,
    batch_size: usize,
    ahead: Option<crate::read::ahead::Prefetched>,
    pages: Option<crate::read::pages::Pages>,
    totals: &Totals,
) -> Result<()> {
    let reader = SplitReader::with_row_groups(
        file.clone(),
        groups,
        ReadOptions {
            columns: fc.columns.clone(),
            batch_size,
            row_filter: None,
            stored_form: Vec::new(),
            ahead,
            pages,
        },
    )?;
    for b in reader {
        let b = b?;
        totals
            .read
            .fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        let column = match &fc.key {
            Source::Decoded(pos) => b.column(*pos).clone(),
            Source::Partition(value) => crate::plan::hive::repeat(value, b.num_rows())?,
            Source::Null => return Err(Error::Internal("a scanned column of nulls".into())),
        };
        let c: ArrayRef = match predicate {
            Some(p) => {
                let mask = p.evaluate_filling(&b, &fc.where_fill)?;
                arrow::compute::filter(&column, &mask).map_err(|e| Error::arrow("--where", e))?
            }
            None => column,
        };
        totals.rows.fetch_add(c.len() as u64, Ordering::Relaxed);
        totals
            .nulls
            .fetch_add(c.null_count() as u64, Ordering::Relaxed);
        // Integers and dates only: a cast of strings parses every value (8 % of a scan of
        // part.p_name), work a plain scan does not do.
        if !summed(c.data_type()) {
            continue;
        }
        totals.summed.store(true, Ordering::Relaxed);
        if let Ok(ints) = arrow::compute::cast(&c, &DataType::Int64) {
            // The valid values only (a null's slot holds whatever the decoder left there);
            // arrow's sum wraps on overflow.
            let s = arrow::compute::sum(ints.as_primitive::<Int64Type>()).unwrap_or(0);
            totals.sum.fetch_add(s as u64, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Whether the scan sums a column's values (as 64-bit integers): integer and date columns.
fn summed(t: &DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Date32 | DataType::Date64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_integers_and_dates_only() {
        assert!(summed(&DataType::Int64));
        assert!(summed(&DataType::UInt8));
        assert!(summed(&DataType::Date32));
        assert!(!summed(&DataType::Utf8));
        assert!(!summed(&DataType::Utf8View));
        assert!(!summed(&DataType::Float64));
        assert!(!summed(&DataType::Decimal128(15, 2)));
    }
}
