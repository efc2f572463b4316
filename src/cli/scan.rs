//! `bloomjoin scan`: read one column of Parquet inputs with the same planner and reader as
//! `train` and do nothing but count (rows, nulls, and a sum for integer columns). It is the
//! baseline of the train benchmark: the cost of decoding the key column alone.

use std::sync::atomic::{AtomicU64, Ordering};

use arrow::array::{Array, AsArray};
use arrow::datatypes::{DataType, Int64Type};

use crate::error::{Error, Result};
use crate::plan::{self, SplitOptions};
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
    /// Worker threads, 1 to 1024 [default: all cores].
    #[arg(long, short, value_name = "W")]
    pub workers: Option<usize>,
    /// Rows per decoded batch.
    #[arg(long, default_value_t = 65_536, value_name = "ROWS")]
    pub batch_size: usize,
}

/// Run `scan`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let t0 = std::time::Instant::now();
    let workers = crate::cli::check_workers(args.workers)?
        .map_or_else(crate::sys::default_workers, |w| w.get());
    let pool = crate::map::worker_pool(workers)?;
    let (rows, nulls, sum) = pool.install(|| -> Result<(u64, u64, Option<u64>)> {
        let plan = plan::plan(&args.input, |t| SplitOptions::for_workers(t, workers))?;
        let (rows, nulls, sum) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let any_summed = std::sync::atomic::AtomicBool::new(false);
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let ahead = crate::read::ahead::ReadAhead::new(&plan, |i| {
            let split = &plan.splits[i];
            let file = &plan.files[split.file];
            match file.schema().index_of(&args.column) {
                Ok(col) => crate::read::ahead::chunk_ranges(file, split.row_groups.clone(), &[col]),
                Err(_) => Vec::new(),
            }
        })?;
        crate::map::run_splits(
            &plan,
            "scan",
            workers,
            &cancel,
            || Ok(()),
            |_, i| {
                let ahead = ahead.take(i);
                let split = &plan.splits[i];
                let file = plan.files[split.file].clone();
                let col = file
                    .schema()
                    .index_of(&args.column)
                    .map_err(|_| Error::Column {
                        file: file.location.to_string(),
                        column: args.column.clone(),
                        reason: match crate::error::did_you_mean(&args.column, file.schema()) {
                            Some(hint) => format!("no such column ({hint})"),
                            None => "no such column".into(),
                        },
                    })?;
                let reader = SplitReader::try_new(
                    file.clone(),
                    split,
                    ReadOptions {
                        columns: vec![col],
                        batch_size: args.batch_size,
                        row_filter: None,
                        stored_form: Vec::new(),
                        ahead,
                        pages: None,
                    },
                )?;
                for b in reader {
                    let b = b?;
                    let c = b.column(0);
                    rows.fetch_add(c.len() as u64, Ordering::Relaxed);
                    nulls.fetch_add(c.null_count() as u64, Ordering::Relaxed);
                    // Integers and dates only: a cast of strings parses every value (8 % of a
                    // scan of part.p_name), work a plain scan does not do.
                    if !summed(c.data_type()) {
                        continue;
                    }
                    any_summed.store(true, Ordering::Relaxed);
                    if let Ok(ints) = arrow::compute::cast(c, &DataType::Int64) {
                        // The valid values only (a null's slot holds whatever the decoder
                        // left there); arrow's sum wraps on overflow.
                        let s = arrow::compute::sum(ints.as_primitive::<Int64Type>()).unwrap_or(0);
                        sum.fetch_add(s as u64, Ordering::Relaxed);
                    }
                }
                Ok(())
            },
        )?;
        let sum = any_summed.into_inner().then(|| sum.into_inner());
        Ok((rows.into_inner(), nulls.into_inner(), sum))
    })?;
    if !quiet {
        crate::cli::print(&format!(
            "scanned column {:?}: {rows} rows, {nulls} nulls{} in {} ms\n",
            args.column,
            sum.map(|s| format!(", wrapping sum {}", s as i64))
                .unwrap_or_default(),
            t0.elapsed().as_millis()
        ))?;
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
