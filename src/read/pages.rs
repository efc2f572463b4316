//! The pages of a `--where`'s row groups that the page index rules out, skipped as Spark's
//! column-index filtering and DataFusion's page pruning skip them.
//!
//! A row group that its statistics keep ([`crate::expr::stats`]) may still hold its passing
//! rows in a few of its pages: a range of a sorted column, a day of a month. When the file has
//! a page index (a column index of min, max and null count per page, and an offset index of
//! where each page starts; arrow-rs, parquet-mr and Spark write one by default, pyarrow with
//! `write_page_index=True`), the condition's columns' page statistics are judged, and the
//! reader gets a selection of the rows that may pass: it neither fetches nor decodes the
//! pages of the rows left out, in any column. The condition still runs on every row read,
//! so the selection only has to be a bound.
//!
//! The index is read only for the row groups read and the condition's columns (column
//! index) and the decoded columns (offset index): one read per split, and only when a row
//! group's footer says it has one.

use std::ops::Range;
use std::sync::Arc;

use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use parquet::arrow::push_decoder::RowGroupSelection;
use parquet::file::metadata::{
    ColumnChunkMask, PageIndexPolicy, ParquetMetaData, ParquetMetaDataPushDecoder,
};
use parquet::DecodeResult;

use crate::error::Result;
use crate::expr::stats::absent_names;
use crate::expr::Predicate;
use crate::plan::side::Filled;
use crate::plan::{InputFile, RangeReader};

/// What the reader of a split takes when pages were ruled out: the footer with the page
/// index, and each row group's selection.
pub(crate) struct Pages {
    /// The file's footer and schema, with the page index of the row groups read.
    pub metadata: ArrowReaderMetadata,
    /// The row groups to read, in order, each with the rows that may pass.
    pub selections: Vec<RowGroupSelection>,
}

/// The row groups of a split after their pages were judged.
pub(crate) struct PagePlan {
    /// The row groups to read: those with a row that may pass.
    pub row_groups: Vec<usize>,
    /// The row groups whose every page was ruled out.
    pub skipped_groups: Vec<usize>,
    /// The rows of [`Self::row_groups`] in pages ruled out (not read).
    pub skipped_rows: u64,
    /// For the reader, when some rows of [`Self::row_groups`] were ruled out.
    pub pages: Option<Pages>,
}

impl PagePlan {
    /// Every row group read whole.
    fn whole(row_groups: Vec<usize>) -> PagePlan {
        PagePlan {
            row_groups,
            skipped_groups: Vec::new(),
            skipped_rows: 0,
            pages: None,
        }
    }
}

/// Judge the pages of row groups `rgs` of `file` by condition `p` (`filled`: the columns the
/// file does not hold, filled in), reading the page index through the reader `open` gives
/// when a row group has one for a column `p` judges. A page index that cannot be decoded decides nothing (the
/// row groups are read whole and their data judged as always); a failed read fails.
pub(crate) fn plan(
    p: &Predicate,
    file: &InputFile,
    filled: &[Filled],
    rgs: Vec<usize>,
    open: impl FnOnce() -> Result<RangeReader>,
) -> Result<PagePlan> {
    let absent = &absent_names(filled)[..];
    let (leaves, with_index) = indexed(p, file, absent, &rgs);
    if with_index.is_empty() {
        return Ok(PagePlan::whole(rgs));
    }
    let Some(indexed_meta) = load(file, &open()?, &with_index, &leaves)? else {
        return Ok(PagePlan::whole(rgs));
    };
    let Some(index) = indexed_meta.page_index() else {
        return Ok(PagePlan::whole(rgs));
    };
    let mut plan = PagePlan::whole(Vec::new());
    let mut selections = Vec::with_capacity(rgs.len());
    let mut ruled_out_some = false;
    for rg in rgs {
        let selection = with_index.binary_search(&rg).ok().and_then(|_| {
            p.page_selection(&indexed_meta, index.as_ref(), file.schema(), rg, absent)
        });
        let rows = file.row_group_rows(rg);
        match selection {
            Some(s) if !s.selects_any() => plan.skipped_groups.push(rg),
            Some(s) => {
                let kept: u64 = s.row_count() as u64;
                plan.skipped_rows += rows - kept.min(rows);
                ruled_out_some = true;
                plan.row_groups.push(rg);
                selections.push(RowGroupSelection::new(rg, Some(s)));
            }
            None => {
                plan.row_groups.push(rg);
                selections.push(RowGroupSelection::new(rg, None));
            }
        }
    }
    if !ruled_out_some {
        return Ok(plan);
    }
    // The footer with the index, read as the file is (its own schema, or the one planning
    // gave it: see plan::InputFile::open); failing that, the row groups are read whole.
    let indexed_meta = Arc::new(indexed_meta);
    let natural =
        ArrowReaderMetadata::try_new(Arc::clone(&indexed_meta), ArrowReaderOptions::new())
            .ok()
            .filter(|m| m.schema() == file.schema());
    let metadata = natural.or_else(|| {
        let options = ArrowReaderOptions::new().with_schema(Arc::clone(file.schema()));
        ArrowReaderMetadata::try_new(indexed_meta, options).ok()
    });
    match metadata {
        Some(metadata) => {
            plan.pages = Some(Pages {
                metadata,
                selections,
            })
        }
        // (The row groups every page of which was ruled out stay skipped.)
        None => plan.skipped_rows = 0,
    }
    Ok(plan)
}

/// The leaf columns `p` judges in `file`, and the row groups of `rgs` with a page index for
/// one of them.
fn indexed(
    p: &Predicate,
    file: &InputFile,
    absent: &[&str],
    rgs: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let meta = file.parquet();
    let leaves = p.judged_leaves(meta, file.schema(), absent);
    let has_index = |rg: &usize| {
        leaves.iter().any(|l| {
            let c = meta.row_group(*rg).column(*l);
            c.column_index_range().is_some() && c.offset_index_range().is_some()
        })
    };
    let with_index = match leaves.is_empty() {
        true => Vec::new(),
        false => rgs.iter().copied().filter(has_index).collect(),
    };
    (leaves, with_index)
}

/// The byte range [`plan`] reads the page index from, for the same arguments (to fetch it
/// ahead): the column indexes of the condition's columns and the offset indexes of every
/// column, in the row groups that have one, as the parquet crate's decoder asks for them.
pub(crate) fn index_range(
    p: &Predicate,
    file: &InputFile,
    filled: &[Filled],
    rgs: &[usize],
) -> Option<Range<u64>> {
    let (leaves, with_index) = indexed(p, file, &absent_names(filled), rgs);
    let meta = file.parquet();
    let mut range: Option<Range<u64>> = None;
    for rg in with_index {
        let g = meta.row_group(rg);
        let columns = leaves
            .iter()
            .filter_map(|l| g.column(*l).column_index_range());
        let offsets = g.columns().iter().filter_map(|c| c.offset_index_range());
        for r in columns.chain(offsets) {
            range = Some(match range {
                Some(a) => a.start.min(r.start)..a.end.max(r.end),
                None => r,
            });
        }
    }
    range
}

/// `file`'s footer with the page index of row groups `rgs`: the column index of `leaves`,
/// the offset index of every column. `None` when it cannot be decoded.
fn load(
    file: &InputFile,
    io: &RangeReader,
    rgs: &[usize],
    leaves: &[usize],
) -> Result<Option<ParquetMetaData>> {
    let meta: ParquetMetaData = file.parquet().as_ref().clone();
    let Ok(decoder) = ParquetMetaDataPushDecoder::try_new_with_metadata(file.size, meta) else {
        return Ok(None);
    };
    let mut decoder = decoder
        .with_column_index_policy(PageIndexPolicy::Optional)
        .with_offset_index_policy(PageIndexPolicy::Optional)
        .with_column_index_mask(ColumnChunkMask::row_groups_and_columns(
            rgs.iter().copied(),
            leaves.iter().copied(),
        ))
        .with_offset_index_mask(ColumnChunkMask::row_groups(rgs.iter().copied()));
    // The crate's decoder of the index is checked, but it is user data: a panic in it is a
    // corrupt index, which decides nothing.
    loop {
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decoder.try_decode()));
        match step {
            Ok(Ok(DecodeResult::NeedsData(ranges))) => {
                let data = io.fetch(&ranges)?;
                if decoder.push_ranges(ranges, data).is_err() {
                    return Ok(None);
                }
            }
            Ok(Ok(DecodeResult::Data(m))) => return Ok(Some(m)),
            Ok(Ok(DecodeResult::Finished)) | Ok(Err(_)) | Err(_) => return Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use crate::read::{ReadOptions, SplitReader};
    use crate::store::Location;

    /// A file of `rows` rows of `(i, s)` (i = 0, 1, ...; s = i's last digit as a word) in row
    /// groups of `group` rows and pages of `page` rows, with or without a page index.
    fn write(
        dir: &std::path::Path,
        rows: i64,
        group: usize,
        page: usize,
        index: bool,
    ) -> InputFile {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let words = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        ];
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from_iter_values(0..rows)),
                Arc::new(StringArray::from_iter_values(
                    (0..rows).map(|i| words[(i % 10) as usize]),
                )),
            ],
        )
        .unwrap();
        let stats = match index {
            true => parquet::file::properties::EnabledStatistics::Page,
            false => parquet::file::properties::EnabledStatistics::Chunk,
        };
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group))
            .set_data_page_row_count_limit(page)
            .set_write_batch_size(page)
            .set_statistics_enabled(stats)
            .set_offset_index_disabled(!index)
            .build();
        let path = dir.join(format!("t{index}.parquet"));
        let mut w =
            ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), schema, Some(props))
                .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        InputFile::open(Location::parse(path.to_str().unwrap()).unwrap()).unwrap()
    }

    fn read(file: &InputFile, plan: PagePlan) -> Vec<i64> {
        let file = Arc::new(InputFile::open(file.location.clone()).unwrap());
        let reader = SplitReader::with_row_groups(
            file,
            plan.row_groups,
            ReadOptions {
                columns: vec![0, 1],
                batch_size: 7,
                row_filter: None,
                stored_form: Vec::new(),
                ahead: None,
                pages: plan.pages,
            },
        )
        .unwrap();
        let mut out = Vec::new();
        for b in reader {
            let b = b.unwrap();
            let i = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            out.extend(i.values().iter().copied());
        }
        out
    }

    fn plan_of(file: &InputFile, cond: &str) -> PagePlan {
        let p = Predicate::parse(cond, "--where").unwrap();
        let rgs = (0..file.num_row_groups()).collect();
        plan(&p, file, &[], rgs, || RangeReader::open(&file.location)).unwrap()
    }

    #[test]
    fn pages_outside_a_range_are_neither_read_nor_decoded() {
        let dir = tempfile::tempdir().unwrap();
        // 1000 rows, row groups of 400, pages of 50.
        let file = write(dir.path(), 1000, 400, 50, true);
        // Rows 120..=130 lie in pages [100, 150) of row group 0.
        // (Row groups 1 and 2, which their own statistics would rule out, are not judged
        // by them here: every one of their pages is ruled out.)
        let plan = plan_of(&file, "i BETWEEN 120 AND 130");
        assert_eq!(plan.row_groups, [0]);
        assert_eq!(plan.skipped_groups, [1, 2]);
        assert_eq!(plan.skipped_rows, 350);
        let rows = read(&file, plan);
        assert_eq!(rows, (100..150).collect::<Vec<_>>());
        // An OR of two ranges in two row groups; an AND with a column of other pages.
        let rows = read(&file, plan_of(&file, "i < 60 OR i >= 990"));
        assert_eq!(rows, (0..100).chain(950..1000).collect::<Vec<_>>());
        let rows = read(
            &file,
            plan_of(&file, "i >= 420 AND i < 430 AND s = 'three'"),
        );
        assert_eq!(rows, (400..450).collect::<Vec<_>>());
        // Nothing decided: every row read, no selection handed on.
        let plan = plan_of(&file, "s = 'three'");
        assert!(plan.pages.is_none() && plan.skipped_rows == 0);
        assert!(plan_of(&file, "lower(s) = 'x'").pages.is_none());
    }

    #[test]
    fn a_row_group_whose_pages_all_fail_is_skipped_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), 1000, 400, 50, true);
        // No row of 0..1000 is 2000 or below -5: each page's statistics say so.
        let plan = plan_of(&file, "i = 2000 OR i < -5");
        assert!(plan.row_groups.is_empty(), "{:?}", plan.row_groups);
        assert_eq!(plan.skipped_groups, [0, 1, 2]);
    }

    #[test]
    fn the_range_fetched_ahead_is_the_range_the_index_is_read_from() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), 1000, 400, 50, true);
        let p = Predicate::parse("i BETWEEN 120 AND 130", "--where").unwrap();
        for rgs in [vec![0, 1, 2], vec![1], vec![0, 2]] {
            let want = index_range(&p, &file, &[], &rgs).unwrap();
            let asked = std::sync::Mutex::new(Vec::new());
            let io = RangeReader::open(&file.location).unwrap();
            let meta: ParquetMetaData = file.parquet().as_ref().clone();
            let mut decoder = ParquetMetaDataPushDecoder::try_new_with_metadata(file.size, meta)
                .unwrap()
                .with_column_index_mask(ColumnChunkMask::row_groups_and_columns(
                    rgs.iter().copied(),
                    [0],
                ))
                .with_offset_index_mask(ColumnChunkMask::row_groups(rgs.iter().copied()));
            while let DecodeResult::NeedsData(ranges) = decoder.try_decode().unwrap() {
                asked.lock().unwrap().extend(ranges.clone());
                let data = io.fetch(&ranges).unwrap();
                decoder.push_ranges(ranges, data).unwrap();
            }
            assert_eq!(*asked.lock().unwrap(), [want], "{rgs:?}");
        }
        // No index: nothing to fetch.
        let plain = write(dir.path(), 1000, 400, 50, false);
        assert_eq!(index_range(&p, &plain, &[], &[0, 1, 2]), None);
    }

    #[test]
    fn a_file_without_a_page_index_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), 1000, 400, 50, false);
        let plan = plan_of(&file, "i BETWEEN 120 AND 130");
        assert_eq!(plan.row_groups, [0, 1, 2]);
        assert!(plan.pages.is_none() && plan.skipped_rows == 0);
    }
}
