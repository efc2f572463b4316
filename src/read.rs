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
use parquet::basic::Type as PhysicalType;
use parquet::DecodeResult;

use crate::error::{Error, Result};
use crate::plan::{InputFile, RangeReader, Split};

pub(crate) mod ahead;
pub mod dictionary;
pub mod logical;
pub(crate) mod pages;

/// Bytes of decoded predicate columns kept per row group for the projection: a row group's
/// key column (1 M rows of 8 bytes) fits.
const PREDICATE_CACHE_BYTES: usize = 100 << 20;

/// The average run length (selected or skipped rows) of a row filter's selection from which
/// the other columns skip the rows the filter dropped instead of decoding them all and
/// filtering afterwards (a mask), for projections of fewer than [`WIDE_STRING_COLUMNS`]
/// variable-length columns. The parquet crate's default is 32, which decodes every row of
/// lineitem for a join that keeps 5 % of them (runs of about 10 rows): 8 takes the skipping
/// path there and keeps the mask where a filter keeps 20 % or more (orders x customer, runs
/// of about 3 rows), where skipping costs more. TPC-H scale 5, narrow joins, medians of 5
/// (2026-11-24): lineitem x part 1.31 -> 1.25 s, 2.52 -> 2.42 CPU s, 155 -> 133 MiB; lineitem
/// x partsupp 1.30 -> 1.27 s, 153 -> 129 MiB; orders x customer unchanged (always skipping:
/// 1.09 -> 1.34 CPU s); see docs/BENCHMARKS.md, "Decode less".
const SELECTOR_THRESHOLD: usize = 8;

/// The threshold for projections of [`WIDE_STRING_COLUMNS`] or more variable-length columns:
/// the crate's default, which takes the mask on lineitem at 5 %.
const WIDE_SELECTOR_THRESHOLD: usize = 32;

/// From this many projected `BYTE_ARRAY` columns (strings, binaries) a selection is applied
/// with [`WIDE_SELECTOR_THRESHOLD`]. Skipping a run of such a column's rows costs about what
/// decoding them does (a plain page's lengths are walked either way, a dictionary page's
/// views are cheap to make), and every selector is paid once per column, while a mask's
/// filter is planned once per batch for all of them. TPC-H scale 5, lineitem right-semi part
/// (5 % of lineitem kept), medians of 5, wall s / CPU s at 8 against 32: `*` (5 string
/// columns of 16) 1.75 / 3.40 against 1.64 / 3.19; 15 columns with 4 strings 1.16 / 2.25
/// against 1.10 / 2.15; 9 columns with 2 strings 0.81 / 1.59 against 0.81 / 1.57; 8 with `l_comment`
/// 1.24 / 2.41 against 1.23 / 2.41; 11 without strings 0.88 / 1.70 against 0.89 / 1.73; the 7
/// narrow columns 0.66 / 1.29 against 0.69 / 1.34 (docs/BENCHMARKS.md, "Wide projections").
const WIDE_STRING_COLUMNS: usize = 3;

/// What to read from a split.
pub struct ReadOptions {
    /// Top-level column indices to decode, in schema order.
    pub columns: Vec<usize>,
    /// Rows per batch.
    pub batch_size: usize,
    /// An optional row filter (evaluated while decoding).
    pub row_filter: Option<RowFilter>,
    /// The split's ranges fetched ahead, if they were ([`ahead`]).
    pub ahead: Option<ahead::Prefetched>,
    /// The rows of the row groups to read, when a `--where`'s page statistics ruled some
    /// out ([`pages`]); the row groups are then its row groups, in its order.
    pub(crate) pages: Option<pages::Pages>,
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
        let (metadata, selections) = match opts.pages {
            Some(p) => (p.metadata, Some(p.selections)),
            None => (file.metadata.clone(), None),
        };
        let builder = ParquetPushDecoderBuilder::new_with_metadata(metadata);
        let schema = builder.parquet_schema();
        let mask = ProjectionMask::roots(schema, opts.columns.iter().copied());
        let strings = (0..schema.num_columns())
            .filter(|&i| {
                schema.column(i).physical_type() == PhysicalType::BYTE_ARRAY
                    && opts.columns.contains(&schema.get_column_root_idx(i))
            })
            .count();
        let threshold = if strings >= WIDE_STRING_COLUMNS {
            WIDE_SELECTOR_THRESHOLD
        } else {
            SELECTOR_THRESHOLD
        };
        let builder = match selections {
            Some(s) => builder.with_row_group_selections(s),
            None => builder.with_row_groups(row_groups),
        };
        let mut builder = builder
            .with_projection(mask)
            .with_batch_size(opts.batch_size.max(1))
            // The columns a row filter reads and the projection outputs too (the join's key
            // column) are decoded once: the predicate stage's arrays are cached per row group
            // and the output takes its rows from them. Set here, not left to the crate's
            // default, because the join depends on it (docs/BENCHMARKS.md, "Decode less").
            .with_max_predicate_cache_size(PREDICATE_CACHE_BYTES);
        // How a row filter's selection is applied to the other columns: skipping runs of
        // rows (selectors) or decoding every row and filtering (a mask), by the average run
        // length and the projection's string columns (see SELECTOR_THRESHOLD).
        builder = builder.with_row_selection_policy(RowSelectionPolicy::Auto { threshold });
        if let Some(f) = opts.row_filter {
            builder = builder.with_row_filter(f);
        }
        let decoder = builder.build().map_err(perr)?;
        let io = RangeReader::open(&file.location)?.with_ahead(opts.ahead);
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
