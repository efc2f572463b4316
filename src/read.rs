//! Reading one split: a Parquet push decoder fed by a [`RangeReader`], yielding Arrow batches.
//!
//! The decoder says which byte ranges it needs (only the projected column chunks of the
//! split's row groups); we fetch them with plain positioned reads (local) or ranged GETs
//! (object stores) and push them in. One code path for every store.

use std::sync::Arc;

use arrow::array::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, RowFilter, RowSelectionPolicy,
};
use parquet::arrow::push_decoder::{ParquetPushDecoder, ParquetPushDecoderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::basic::Type as PhysicalType;
use parquet::DecodeResult;

use crate::error::{Error, Result};
use crate::plan::{InputFile, RangeReader};

pub(crate) mod ahead;
pub mod dictionary;
pub mod logical;
pub(crate) mod pages;

/// Bytes of decoded predicate columns kept per row group for the projection: a row group's
/// key column (1 M rows of 8 bytes) fits.
const PREDICATE_CACHE_BYTES: usize = 100 << 20;

/// The average run length (selected or skipped rows) of a row filter's selection from which
/// the other columns skip the rows the filter dropped instead of decoding every row and
/// filtering afterwards (a mask), when the mask would have to convert or copy every row of
/// costly columns ([`selection_threshold`]). Skipping a run of a plain page's values moves a
/// position, so a join that keeps 5 % of lineitem (runs of about 10 rows) skips: the parquet
/// crate's default of 32 would decode every row. 8 keeps the mask where a filter keeps 20 %
/// or more (runs of about 3 rows), where skipping costs more (orders x customer, always
/// skipping: 1.09 -> 1.34 CPU s).
const SKIP_THRESHOLD: usize = 8;

/// The threshold otherwise: the crate's default, which takes the mask on lineitem at 5 %. A
/// selector is a call per run and per column into the page's decoder (for a dictionary page,
/// into the index decoder), while the mask decodes integers, dictionary indices and 8-byte
/// decimals in bulk ([`stored_form`]) and filters them at their width.
const MASK_THRESHOLD: usize = 32;

/// How a row filter's selection is applied to the projected leaves `leaves` of `row_groups`:
/// the average run length from which runs are skipped rather than masked. Skip
/// ([`SKIP_THRESHOLD`]) when a leaf is a decimal stored as FIXED_LEN_BYTE_ARRAY (the mask
/// converts every row's big-endian bytes), or when at least a quarter of the leaves are byte
/// arrays not dictionary-encoded in every row group read, as the footer says it (the mask
/// copies every row's bytes; [`dictionary::all_dictionary`], a footer that does not say counts
/// as not); mask ([`MASK_THRESHOLD`]) otherwise. TPC-H scale 5, lineitem right-semi part,
/// medians of 5 (2026-12-05), CPU s skipping against masking (docs/BENCHMARKS.md, "Skip or
/// mask, by what the mask converts"):
/// - every column a dictionary (`tpchgen-cli`), 7 columns 2.05 against 1.84, `*` 4.49
///   against 3.81;
/// - written PLAIN by pyarrow, decimals as FIXED_LEN_BYTE_ARRAY, 7 columns 2.59 against
///   2.78, `*` 6.77 against 7.87;
/// - PLAIN with decimals as INT64, 7 columns 2.63 against 2.04; adding 1 of lineitem's
///   strings 3.93 against 3.67, 3 of them (3 of 10 leaves) 4.94 against 5.20;
/// - written by Polars, 7 columns 2.91 against 2.49, `*` (5 of 16 leaves strings whose
///   encodings the footer does not give) 6.44 against 6.68.
fn selection_threshold(
    metadata: &parquet::file::metadata::ParquetMetaData,
    leaves: &[usize],
    row_groups: &[usize],
) -> usize {
    let descr = metadata.file_metadata().schema_descr();
    let fixed_decimal = |l: usize| {
        let c = descr.column(l);
        c.physical_type() == PhysicalType::FIXED_LEN_BYTE_ARRAY
            && (c.converted_type() == parquet::basic::ConvertedType::DECIMAL
                || matches!(
                    c.logical_type_ref(),
                    Some(parquet::basic::LogicalType::Decimal { .. })
                ))
    };
    if leaves.iter().any(|&l| fixed_decimal(l)) {
        return SKIP_THRESHOLD;
    }
    let copied = leaves
        .iter()
        .filter(|&&l| {
            matches!(
                descr.column(l).physical_type(),
                PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY
            ) && !dictionary_in(metadata, l, row_groups.iter().copied())
        })
        .count();
    if !leaves.is_empty() && 4 * copied >= leaves.len() {
        SKIP_THRESHOLD
    } else {
        MASK_THRESHOLD
    }
}

/// Whether leaf column `leaf` is dictionary-encoded in every one of `row_groups`, as the
/// footer says it ([`dictionary::all_dictionary`]); false for no row groups.
fn dictionary_in(
    metadata: &parquet::file::metadata::ParquetMetaData,
    leaf: usize,
    row_groups: impl IntoIterator<Item = usize>,
) -> bool {
    let mut groups = row_groups.into_iter().peekable();
    groups.peek().is_some()
        && groups
            .all(|rg| dictionary::all_dictionary(metadata.row_group(rg).column(leaf)) == Some(true))
}

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
    /// Top-level columns that may be handed on in their stored form (see [`stored_form`]):
    /// columns no row filter reads, whose kept rows the caller converts to the file's types.
    pub stored_form: Vec<usize>,
}

/// `metadata` reading some of `columns` (top-level indices) closer to how Parquet stores them,
/// for the caller to convert the rows it keeps to the file's Arrow types:
/// - decimals stored as `INT32` or `INT64` at that width, `Decimal32` or `Decimal64` instead
///   of `Decimal128`, and decimals stored as `FIXED_LEN_BYTE_ARRAY` of up to 4 or 8 bytes
///   (pyarrow's default) at 32 or 64 bits;
/// - strings and binaries whose column chunks are dictionary-encoded in every row group (every
///   data page, as the footer says it) as Arrow dictionaries of the file's type.
///
/// The parquet crate decodes an integer-stored decimal into 64-bit integers and widens every
/// value to 128 bits, and gathers every string's view from the dictionary page, before a row
/// filter's selection is applied (with a mask, every row of the batch; the mask's filter then
/// copies 16 bytes a value). Read in their stored form, the decimals are reinterpreted in
/// place and filtered at 8 bytes, the strings' dictionary indices at 4, and only the rows that
/// survive are widened or gathered by the caller (`conform` in the map task casts each column
/// to the side's type). See docs/BENCHMARKS.md, "Columns read in their stored form". The
/// metadata is returned as it is when no column changes.
pub(crate) fn stored_form(
    metadata: ArrowReaderMetadata,
    columns: &[usize],
) -> std::result::Result<ArrowReaderMetadata, parquet::errors::ParquetError> {
    use arrow::datatypes::{DataType, Field, Schema};
    if columns.is_empty() {
        return Ok(metadata);
    }
    let parquet = metadata.metadata();
    let descr = parquet.file_metadata().schema_descr_ptr();
    let schema = metadata.schema();
    let roots = descr.root_schema().get_fields();
    if schema.fields().len() != roots.len() {
        return Ok(metadata);
    }
    // The leaf of each primitive top-level column.
    let leaf =
        |root: usize| (0..descr.num_columns()).find(|&l| descr.get_column_root_idx(l) == root);
    let all_dictionary = |l: usize| dictionary_in(parquet, l, 0..parquet.num_row_groups());
    let mut changed = false;
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let root = &roots[i];
            let stored = match (f.data_type(), root.is_primitive() && columns.contains(&i)) {
                (_, false) => None,
                (DataType::Decimal128(p, s), true) => match root.get_physical_type() {
                    PhysicalType::INT32 => Some(DataType::Decimal32(*p, *s)),
                    PhysicalType::INT64 => Some(DataType::Decimal64(*p, *s)),
                    // The crate converts a fixed-length decimal to a width its bytes fit.
                    PhysicalType::FIXED_LEN_BYTE_ARRAY => match leaf(i).map(|l| descr.column(l)) {
                        Some(c) if *p <= 9 && c.type_length() <= 4 => {
                            Some(DataType::Decimal32(*p, *s))
                        }
                        Some(c) if *p <= 18 && c.type_length() <= 8 => {
                            Some(DataType::Decimal64(*p, *s))
                        }
                        _ => None,
                    },
                    _ => None,
                },
                (
                    t @ (DataType::Utf8
                    | DataType::Utf8View
                    | DataType::LargeUtf8
                    | DataType::Binary
                    | DataType::BinaryView
                    | DataType::LargeBinary),
                    true,
                ) if root.get_physical_type() == PhysicalType::BYTE_ARRAY
                    && leaf(i).is_some_and(all_dictionary) =>
                {
                    Some(DataType::Dictionary(
                        Box::new(DataType::Int32),
                        Box::new(t.clone()),
                    ))
                }
                _ => None,
            };
            match stored {
                Some(t) => {
                    changed = true;
                    Arc::new(
                        Field::new(f.name(), t, f.is_nullable())
                            .with_metadata(f.metadata().clone()),
                    )
                }
                None => Arc::clone(f),
            }
        })
        .collect();
    if !changed {
        return Ok(metadata);
    }
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    ArrowReaderMetadata::try_new(
        Arc::clone(metadata.metadata()),
        ArrowReaderOptions::new().with_schema(schema),
    )
}

/// An iterator over the record batches of one split.
pub struct SplitReader {
    file: Arc<InputFile>,
    decoder: ParquetPushDecoder,
    io: RangeReader,
    bytes_read: u64,
}

impl SplitReader {
    /// Start reading `split` of `file` (tests; the jobs pass the row groups they kept).
    #[cfg(test)]
    pub fn try_new(
        file: Arc<InputFile>,
        split: &crate::plan::Split,
        opts: ReadOptions,
    ) -> Result<Self> {
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
        let metadata = stored_form(metadata, &opts.stored_form).map_err(perr)?;
        let builder = ParquetPushDecoderBuilder::new_with_metadata(metadata);
        let schema = builder.parquet_schema();
        let mask = ProjectionMask::roots(schema, opts.columns.iter().copied());
        let leaves: Vec<usize> = (0..schema.num_columns())
            .filter(|&i| opts.columns.contains(&schema.get_column_root_idx(i)))
            .collect();
        let threshold = selection_threshold(builder.metadata(), &leaves, &row_groups);
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
        // length and the projected columns' encodings (see `selection_threshold`).
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Array, Decimal128Array, Int64Array, RecordBatch};
    use arrow::compute::cast;
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;

    use super::*;
    use crate::plan::{self, SplitOptions};
    use crate::store::Location;

    /// Decimals stored as INT32, INT64 and FIXED_LEN_BYTE_ARRAY (by their precision), with
    /// nulls, and an integer column.
    fn decimal_file(dir: &str) -> Arc<Schema> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("d4", DataType::Decimal128(4, 2), true),
            Field::new("d15", DataType::Decimal128(15, 2), true),
            Field::new("d30", DataType::Decimal128(30, 2), true),
            Field::new("id", DataType::Int64, false),
        ]));
        let n = 300i64;
        let dec = |p: u8, scale: i128| {
            let a: Decimal128Array = (0..n)
                .map(|i| (i % 7 != 3).then(|| (i as i128 - 150) * scale))
                .collect();
            Arc::new(a.with_precision_and_scale(p, 2).unwrap()) as Arc<dyn Array>
        };
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                dec(4, 13),
                dec(15, 10_000_000_003),
                dec(30, 10_000_000_000_000_000_007),
                Arc::new(Int64Array::from_iter_values(0..n)),
            ],
        )
        .unwrap();
        put(&format!("memory:///{dir}/d.parquet"), &batch, None);
        schema
    }

    /// `batch` written as one Parquet object at `url` of the in-process store.
    fn put(
        url: &str,
        batch: &RecordBatch,
        props: Option<parquet::file::properties::WriterProperties>,
    ) {
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), props).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
        Location::parse(url).unwrap().put(buf, true).unwrap();
    }

    /// Every batch of every split of the table under `dir`, read with `stored` in their
    /// stored form.
    fn read_all(
        dir: &str,
        columns: Vec<usize>,
        stored: Vec<usize>,
        batch_size: usize,
    ) -> Vec<RecordBatch> {
        let plan =
            plan::plan(&[format!("memory:///{dir}")], |_| SplitOptions::at_least(1)).unwrap();
        plan.splits
            .iter()
            .flat_map(|split| {
                SplitReader::try_new(
                    plan.files[split.file].clone(),
                    split,
                    ReadOptions {
                        columns: columns.clone(),
                        batch_size,
                        row_filter: None,
                        ahead: None,
                        pages: None,
                        stored_form: stored.clone(),
                    },
                )
                .unwrap()
                .map(|b| b.unwrap())
                .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The data types of `batch`'s columns.
    fn types(batch: &RecordBatch) -> Vec<DataType> {
        batch
            .columns()
            .iter()
            .map(|c| c.data_type().clone())
            .collect()
    }

    #[test]
    fn decimals_stored_as_integers_are_read_at_their_width_and_widen_to_the_same_values() {
        let schema = decimal_file("narrow-decimals");
        let wide = read_all("narrow-decimals", vec![0, 1, 2, 3], Vec::new(), 128);
        let narrow = read_all("narrow-decimals", vec![0, 1, 2, 3], vec![0, 1, 2, 3], 128);
        assert_eq!(
            types(&wide[0]),
            schema
                .fields()
                .iter()
                .map(|f| f.data_type().clone())
                .collect::<Vec<_>>()
        );
        // Stored as INT32, INT64, FIXED_LEN_BYTE_ARRAY; then the integer column.
        let stored = |d4: DataType| {
            vec![
                d4,
                DataType::Decimal64(15, 2),
                DataType::Decimal128(30, 2),
                DataType::Int64,
            ]
        };
        assert_eq!(types(&narrow[0]), stored(DataType::Decimal32(4, 2)));
        assert_eq!(wide.len(), narrow.len());
        for (w, n) in wide.iter().zip(&narrow) {
            for (i, f) in schema.fields().iter().enumerate() {
                let widened = cast(n.column(i), f.data_type()).unwrap();
                assert_eq!(&widened, w.column(i), "column {}", f.name());
            }
        }
        // Only the columns asked for change.
        let one = read_all("narrow-decimals", vec![0, 1, 2, 3], vec![1], 128);
        assert_eq!(types(&one[0]), stored(DataType::Decimal128(4, 2)));
    }

    /// Decimals stored as FIXED_LEN_BYTE_ARRAY, as pyarrow writes them by default: precision
    /// 5 in 3 bytes, 15 in 7, and 10 in 16 (wider than it needs), and then an integer.
    fn fixed_decimal_file(dir: &str) {
        use parquet::data_type::{FixedLenByteArray, FixedLenByteArrayType, Int64Type};
        use parquet::file::writer::SerializedFileWriter;
        let message = "message t {
            optional fixed_len_byte_array(3) d5 (DECIMAL(5,2));
            required fixed_len_byte_array(7) d15 (DECIMAL(15,2));
            required fixed_len_byte_array(16) d10 (DECIMAL(10,2));
            required int64 id;
        }";
        let schema = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
        let n = 300i64;
        // Big-endian two's complement, `width` bytes.
        let be = |v: i64, width: usize| -> FixedLenByteArray {
            let b = (v as i128).to_be_bytes();
            b[16 - width..].to_vec().into()
        };
        let mut buf = Vec::new();
        let mut w = SerializedFileWriter::new(&mut buf, schema, Default::default()).unwrap();
        let mut rg = w.next_row_group().unwrap();
        let values = |scale: i64| (0..n).map(move |i| (i - 150) * scale);
        let mut c = rg.next_column().unwrap().unwrap();
        let d5: Vec<_> = values(61)
            .filter(|v| v % 7 != 3)
            .map(|v| be(v, 3))
            .collect();
        let def: Vec<i16> = values(61).map(|v| i16::from(v % 7 != 3)).collect();
        c.typed::<FixedLenByteArrayType>()
            .write_batch(&d5, Some(&def), None)
            .unwrap();
        c.close().unwrap();
        for (scale, width) in [(1_000_000_000_007, 7), (10_000_009, 16)] {
            let mut c = rg.next_column().unwrap().unwrap();
            let v: Vec<_> = values(scale).map(|v| be(v, width)).collect();
            c.typed::<FixedLenByteArrayType>()
                .write_batch(&v, None, None)
                .unwrap();
            c.close().unwrap();
        }
        let mut c = rg.next_column().unwrap().unwrap();
        let ids: Vec<i64> = (0..n).collect();
        c.typed::<Int64Type>()
            .write_batch(&ids, None, None)
            .unwrap();
        c.close().unwrap();
        rg.close().unwrap();
        w.close().unwrap();
        Location::parse(&format!("memory:///{dir}/f.parquet"))
            .unwrap()
            .put(buf, true)
            .unwrap();
    }

    #[test]
    fn fixed_length_decimals_are_read_at_the_width_their_bytes_fit_and_widen_to_the_same_values() {
        fixed_decimal_file("fixed-decimals");
        let wide = read_all("fixed-decimals", vec![0, 1, 2, 3], Vec::new(), 128);
        let narrow = read_all("fixed-decimals", vec![0, 1, 2, 3], vec![0, 1, 2, 3], 128);
        assert_eq!(
            types(&wide[0]),
            [
                DataType::Decimal128(5, 2),
                DataType::Decimal128(15, 2),
                DataType::Decimal128(10, 2),
                DataType::Int64
            ]
        );
        // 16 bytes do not fit 64 bits: that one stays at 128.
        assert_eq!(
            types(&narrow[0]),
            [
                DataType::Decimal32(5, 2),
                DataType::Decimal64(15, 2),
                DataType::Decimal128(10, 2),
                DataType::Int64
            ]
        );
        assert_eq!(wide.len(), narrow.len());
        let mut negative = 0;
        for (w, n) in wide.iter().zip(&narrow) {
            for i in 0..4 {
                let widened = cast(n.column(i), w.column(i).data_type()).unwrap();
                assert_eq!(&widened, w.column(i), "column {i}");
            }
            use arrow::array::AsArray;
            let d15 = w
                .column(1)
                .as_primitive::<arrow::datatypes::Decimal128Type>();
            negative += d15.values().iter().filter(|&&v| v < 0).count();
        }
        assert_eq!(negative, 150, "sign extension is exercised");
        let nulls: usize = wide.iter().map(|b| b.column(0).null_count()).sum();
        assert_eq!(nulls, 22);
    }

    /// A string column dictionary-encoded in every row group, and one whose dictionary grew
    /// past the writer's limit and fell back to plain pages.
    fn string_file(dir: &str) -> Arc<Schema> {
        use arrow::array::StringArray;
        use parquet::file::properties::WriterProperties;
        let schema = Arc::new(Schema::new(vec![
            Field::new("mode", DataType::Utf8, true),
            Field::new("comment", DataType::Utf8, false),
        ]));
        let n = 3000;
        let modes: StringArray = (0..n)
            .map(|i| (i % 11 != 5).then(|| ["AIR", "RAIL", "SHIP"][i % 3]))
            .collect();
        let comments: StringArray = (0..n)
            .map(|i| Some(format!("comment number {i}")))
            .collect();
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(modes), Arc::new(comments)])
            .unwrap();
        let props = WriterProperties::builder()
            .set_dictionary_page_size_limit(1024)
            .set_max_row_group_row_count(Some(1000))
            .build();
        put(&format!("memory:///{dir}/s.parquet"), &batch, Some(props));
        schema
    }

    #[test]
    fn strings_dictionary_encoded_in_every_row_group_are_read_as_dictionaries() {
        let schema = string_file("stored-strings");
        let plain = read_all("stored-strings", vec![0, 1], Vec::new(), 700);
        let stored = read_all("stored-strings", vec![0, 1], vec![0, 1], 700);
        let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        // The comments fell back to plain pages: they stay strings.
        for b in &stored {
            assert_eq!(b.column(0).data_type(), &dict);
            assert_eq!(b.column(1).data_type(), &DataType::Utf8);
        }
        let rows = |bs: &[RecordBatch]| bs.iter().map(|b| b.num_rows()).sum::<usize>();
        assert_eq!(rows(&plain), 3000);
        assert_eq!(rows(&stored), 3000);
        let concat = |bs: &[RecordBatch], i: usize| {
            let cols: Vec<_> = bs
                .iter()
                .map(|b| cast(b.column(i), schema.field(i).data_type()).unwrap())
                .collect();
            arrow::compute::concat(&cols.iter().map(|c| c.as_ref()).collect::<Vec<_>>()).unwrap()
        };
        for i in 0..2 {
            let (a, b) = (concat(&stored, i), concat(&plain, i));
            assert_eq!(a.as_ref(), b.as_ref(), "column {i}");
        }
    }

    /// A row filter's selection is skipped by runs when the mask would copy the bytes of
    /// at least a quarter of the projected leaves (byte arrays not dictionary-encoded in every
    /// row group read) or convert a fixed-length decimal, and masked otherwise.
    #[test]
    fn selections_are_skipped_when_the_mask_would_copy_or_convert_much() {
        use arrow::array::StringArray;
        use parquet::file::properties::WriterProperties;
        use parquet::schema::types::ColumnPath;
        let schema = Arc::new(Schema::new(vec![
            Field::new("mode", DataType::Utf8, false),
            Field::new("comment", DataType::Utf8, false),
            Field::new("qty", DataType::Int64, false),
            Field::new("price", DataType::Int64, false),
            Field::new("code", DataType::Utf8, false),
        ]));
        let n = 3000;
        let strings = |f: &dyn Fn(usize) -> String| -> Arc<dyn Array> {
            Arc::new((0..n).map(|i| Some(f(i))).collect::<StringArray>())
        };
        let batch = RecordBatch::try_new(
            schema,
            vec![
                strings(&|i| ["AIR", "RAIL", "SHIP"][i % 3].to_string()),
                strings(&|i| format!("comment number {i}")),
                Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| i % 5))),
                Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| i * 7))),
                // One value in the first row group; then a value a row, past the dictionary
                // page's limit.
                strings(&|i| {
                    if i < 1000 {
                        "x".into()
                    } else {
                        format!("code {i:040}")
                    }
                }),
            ],
        )
        .unwrap();
        let props = WriterProperties::builder()
            .set_dictionary_page_size_limit(1024)
            .set_max_row_group_row_count(Some(1000))
            .set_column_dictionary_enabled(ColumnPath::from("price"), false)
            .build();
        put("memory:///threshold/t.parquet", &batch, Some(props));
        let plan = plan::plan(&["memory:///threshold".to_string()], |_| {
            SplitOptions::at_least(1)
        })
        .unwrap();
        let md = plan.files[0].parquet();
        let (mask, skip) = (MASK_THRESHOLD, SKIP_THRESHOLD);
        let t = |leaves: &[usize], groups: &[usize]| selection_threshold(md, leaves, groups);
        let all = [0, 1, 2];
        assert_eq!(t(&[0, 2], &all), mask, "dictionary strings and integers");
        assert_eq!(t(&[0, 3], &all), mask, "a plain integer");
        assert_eq!(t(&[3], &all), mask);
        assert_eq!(
            t(&[0, 1, 3], &all),
            skip,
            "a fallen-back string among three leaves"
        );
        assert_eq!(t(&[1], &all), skip);
        assert_eq!(t(&[1, 0, 2, 3], &all), skip, "a quarter");
        // A dictionary in one row group and not the next: by the row groups read.
        assert_eq!(t(&[4], &[0]), mask);
        assert_eq!(t(&[4], &[0, 1]), skip);
        assert_eq!(t(&[0, 1, 2, 3, 4], &[0]), mask, "one copied of five");
        assert_eq!(t(&[0, 1, 2, 3, 4], &[0, 1]), skip, "two of five");
        assert_eq!(t(&[], &all), mask);
        assert_eq!(t(&[0], &[]), skip, "no row group says it is a dictionary");

        // Decimals stored as FIXED_LEN_BYTE_ARRAY: skipped, whatever else is read.
        fixed_decimal_file("threshold-fixed");
        let plan = plan::plan(&["memory:///threshold-fixed".to_string()], |_| {
            SplitOptions::at_least(1)
        })
        .unwrap();
        let md = plan.files[0].parquet();
        let t = |leaves: &[usize]| selection_threshold(md, leaves, &[0]);
        assert_eq!(t(&[3]), mask, "an integer");
        assert_eq!(t(&[0]), skip);
        assert_eq!(t(&[2, 3]), skip, "16 bytes");
        assert_eq!(t(&[1, 3, 3, 3, 3, 3, 3, 3]), skip, "one of eight");
    }
}
