//! Reading one split: a Parquet push decoder fed by a [`RangeReader`], yielding Arrow batches.
//!
//! The decoder says which byte ranges it needs (only the projected column chunks of the
//! split's row groups); we fetch them with plain positioned reads (local) or ranged GETs
//! (object stores) and push them in. One code path for every store.

use std::sync::Arc;

use arrow::array::RecordBatch;
use parquet::arrow::arrow_reader::{RowFilter, RowSelectionPolicy};
use parquet::arrow::push_decoder::{ParquetPushDecoder, ParquetPushDecoderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::DecodeResult;

use crate::error::{Error, Result};
use crate::plan::{InputFile, RangeReader, Split};

pub mod dictionary;

/// Bytes of decoded predicate columns kept per row group for the projection: a row group's
/// key column (1 M rows of 8 bytes) fits.
const PREDICATE_CACHE_BYTES: usize = 100 << 20;

/// The average run length (selected or skipped rows) of a row filter's selection from which
/// the other columns skip the rows the filter dropped instead of decoding them all and
/// filtering afterwards. The parquet crate's default is 32, which decodes every row of
/// lineitem for a join that keeps 5 % of them (runs of about 10 rows): 8 takes the skipping
/// path there and keeps the mask where a filter keeps 20 % or more (orders x customer, runs
/// of about 3 rows), where skipping costs more. TPC-H scale 5, narrow joins, medians of 5:
/// lineitem x part 1.31 -> 1.25 s, 2.52 -> 2.42 CPU s, 155 -> 133 MiB; lineitem x partsupp
/// 1.30 -> 1.27 s, 153 -> 129 MiB; orders x customer unchanged (always skipping: 1.09 -> 1.34
/// CPU s); see docs/BENCHMARKS.md, "Decode less".
const SELECTOR_THRESHOLD: usize = 8;

/// What to read from a split.
pub struct ReadOptions {
    /// Top-level column indices to decode, in schema order.
    pub columns: Vec<usize>,
    /// Rows per batch.
    pub batch_size: usize,
    /// An optional row filter (evaluated while decoding).
    pub row_filter: Option<RowFilter>,
}

/// An iterator over the record batches of one split.
pub struct SplitReader {
    file: Arc<InputFile>,
    decoder: ParquetPushDecoder,
    io: RangeReader,
    bytes_read: u64,
}

impl SplitReader {
    /// Start reading `split` of `file`.
    pub fn try_new(file: Arc<InputFile>, split: &Split, opts: ReadOptions) -> Result<Self> {
        SplitReader::with_row_groups(file, split.row_groups.clone().collect(), opts)
    }

    /// Start reading the given row groups of `file`.
    pub fn with_row_groups(
        file: Arc<InputFile>,
        row_groups: Vec<usize>,
        opts: ReadOptions,
    ) -> Result<Self> {
        let perr = |source| Error::Parquet {
            location: file.location.to_string(),
            source,
        };
        let builder = ParquetPushDecoderBuilder::new_with_metadata(file.metadata.clone());
        let mask = ProjectionMask::roots(builder.parquet_schema(), opts.columns.iter().copied());
        let mut builder = builder
            .with_projection(mask)
            .with_row_groups(row_groups)
            .with_batch_size(opts.batch_size.max(1))
            // The columns a row filter reads and the projection outputs too (the join's key
            // column) are decoded once: the predicate stage's arrays are cached per row group
            // and the output takes its rows from them. Set here, not left to the crate's
            // default, because the join depends on it (docs/BENCHMARKS.md, "Decode less").
            .with_max_predicate_cache_size(PREDICATE_CACHE_BYTES);
        // How a row filter's selection is applied to the other columns: skipping runs of
        // rows (selectors) or decoding every row and filtering (a mask), by the average run
        // length (see SELECTOR_THRESHOLD).
        builder = builder.with_row_selection_policy(RowSelectionPolicy::Auto {
            threshold: SELECTOR_THRESHOLD,
        });
        if let Some(f) = opts.row_filter {
            builder = builder.with_row_filter(f);
        }
        let decoder = builder.build().map_err(perr)?;
        let io = RangeReader::open(&file.location)?;
        Ok(SplitReader {
            file,
            decoder,
            io,
            bytes_read: 0,
        })
    }

    /// Bytes fetched so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let perr = |source| Error::Parquet {
            location: self.file.location.to_string(),
            source,
        };
        loop {
            match self.decoder.try_decode().map_err(perr)? {
                DecodeResult::NeedsData(ranges) => {
                    let data = self.io.fetch(&ranges)?;
                    self.bytes_read += data.iter().map(|d| d.len() as u64).sum::<u64>();
                    self.decoder.push_ranges(ranges, data).map_err(perr)?;
                }
                DecodeResult::Data(b) => return Ok(Some(b)),
                DecodeResult::Finished => return Ok(None),
            }
        }
    }
}

impl Iterator for SplitReader {
    type Item = Result<RecordBatch>;
    fn next(&mut self) -> Option<Self::Item> {
        // The parquet crate panics on some corrupt pages (unchecked offsets): that is a bad
        // input file, reported as such, not an internal error.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.next_batch())) {
            Ok(r) => r.transpose(),
            Err(p) => Some(Err(Error::Input {
                location: self.file.location.to_string(),
                reason: format!(
                    "corrupt Parquet data: the decoder failed ({})",
                    crate::map::panic_message(p.as_ref())
                ),
            })),
        }
    }
}
