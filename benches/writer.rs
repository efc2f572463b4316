//! The join output writer's settings, measured: compression codec and level, dictionaries,
//! statistics, on a join output of TPC-H scale 1 (lineitem's first 600,000 rows, its narrow
//! projection of the join benchmark and all its columns). Prints each setting's file size,
//! then criterion times the writes. `cargo bench --bench writer`; needs
//! `.cache/tpch/sf1/lineitem.parquet` (scripts/bench.sh --scale 1 generates it) or
//! `BLOOMJOIN_BENCH_LINEITEM=<path>`. The writer alone; the join's settings
//! (`commit::part_properties`) were chosen from whole-join CPU seconds, in docs/BENCHMARKS.md
//! ("Join output writer settings").

use std::hint::black_box;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::DataType;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;

const ROWS: usize = 600_000;

fn lineitem() -> Option<Vec<RecordBatch>> {
    let path = std::env::var("BLOOMJOIN_BENCH_LINEITEM")
        .unwrap_or_else(|_| ".cache/tpch/sf1/lineitem.parquet".into());
    let file = std::fs::File::open(&path).ok()?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .ok()?
        .with_batch_size(8192)
        .with_limit(ROWS)
        .build()
        .ok()?;
    reader.collect::<Result<Vec<_>, _>>().ok()
}

fn narrow(batches: &[RecordBatch]) -> Vec<RecordBatch> {
    let names = [
        "l_orderkey",
        "l_partkey",
        "l_suppkey",
        "l_quantity",
        "l_extendedprice",
        "l_discount",
        "l_shipdate",
    ];
    batches
        .iter()
        .map(|b| {
            let schema = b.schema();
            let idx: Vec<usize> = names.iter().map(|n| schema.index_of(n).unwrap()).collect();
            b.project(&idx).unwrap()
        })
        .collect()
}

/// The settings compared: the writer's defaults with zstd level 1 (what the join used before
/// it kept dictionaries for strings only), and one change at a time.
fn settings(batches: &[RecordBatch]) -> Vec<(&'static str, WriterProperties)> {
    let zstd = |l| Compression::ZSTD(ZstdLevel::try_new(l).unwrap());
    let base = || WriterProperties::builder().set_compression(zstd(1));
    // Dictionaries for strings only: numbers of high cardinality rarely gain from them.
    let strings_only = |mut b: WriterPropertiesBuilder| {
        for f in batches[0].schema().fields() {
            let is_string = matches!(
                f.data_type(),
                DataType::Utf8
                    | DataType::LargeUtf8
                    | DataType::Utf8View
                    | DataType::Dictionary(..)
            );
            b = b.set_column_dictionary_enabled(ColumnPath::from(f.name().as_str()), is_string);
        }
        b
    };
    vec![
        ("zstd(1), defaults", base().build()),
        (
            "zstd(1), dictionaries for strings only",
            strings_only(base()).build(),
        ),
        (
            "zstd(1), no dictionaries",
            base().set_dictionary_enabled(false).build(),
        ),
        (
            "zstd(1), chunk statistics only",
            base()
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .build(),
        ),
        (
            "zstd(1), 32 KiB dictionary pages",
            base().set_dictionary_page_size_limit(32 << 10).build(),
        ),
        (
            "zstd(3)",
            WriterProperties::builder().set_compression(zstd(3)).build(),
        ),
        (
            "lz4",
            WriterProperties::builder()
                .set_compression(Compression::LZ4_RAW)
                .build(),
        ),
        (
            "snappy",
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .build(),
        ),
        (
            "lz4, dictionaries for strings only, chunk statistics",
            strings_only(WriterProperties::builder().set_compression(Compression::LZ4_RAW))
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .build(),
        ),
    ]
}

fn write(batches: &[RecordBatch], props: &WriterProperties) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 << 20);
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props.clone())).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out
}

fn writer(c: &mut Criterion) {
    let Some(all) = lineitem() else {
        eprintln!("no TPC-H lineitem (see the module docs): nothing to measure");
        return;
    };
    let rows: usize = all.iter().map(|b| b.num_rows()).sum();
    for (label, batches) in [("narrow", narrow(&all)), ("all columns", all)] {
        let batches = Arc::new(batches);
        let mut g = c.benchmark_group(format!("write lineitem {label}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(rows as u64));
        for (name, props) in settings(&batches) {
            eprintln!("{label}: {name}: {} bytes", write(&batches, &props).len());
            g.bench_function(name, |b| {
                b.iter(|| black_box(write(&batches, &props).len()))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, writer);
criterion_main!(benches);
