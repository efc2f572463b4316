//! A filter built from keys in memory (the Python package's `Filter.build`): `train` without
//! the Parquet reading.
//!
//! In: a [`BuildJob`] (validated options, see
//! [`BuildSpec::to_job`](crate::cli::train::BuildSpec::to_job)) and the key arrays, one array
//! per chunk (a struct array for a composite key: its fields are the key's columns). Out: the
//! filter and its metadata. The keys are sized, hashed and inserted as `train` does it, so the
//! bytes are those of `train` over a Parquet file of the same keys in one row group (the
//! footers' bound on the distinct keys is the same), and they are the same for any chunking
//! and worker count.

use std::num::NonZeroUsize;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{DataType, Field, Schema};

use super::{
    filter_meta, finish_sizing, merged_estimate, or_partials, passing_hashes, sbbf_key,
    spark_keys_for, start_sizing, trained_params, Counts, FileKey, FilterOptions, SizingReport,
    Sketch,
};
use crate::bloom::codec::{FileFormat, FilterMeta};
use crate::bloom::spark_keys::SparkType;
use crate::bloom::{BloomFilter, BloomParams};
use crate::error::{Error, Result};
use crate::key::KeyFamily;
use crate::plan::side::Source;

/// Rows hashed and inserted at a time: a unit of work, and the hashes of one stay in cache.
const SLICE_ROWS: usize = 1 << 16;

/// A validated build: what [`build`] consumes.
#[derive(Debug, Clone)]
pub struct BuildJob {
    /// For one array, the key column's name to record; for a struct (a table's rows), the
    /// fields that make the key, in key order. `None`: every field of a struct, or no name.
    pub(crate) columns: Option<Vec<String>>,
    /// What filter to build.
    pub(crate) filter: FilterOptions,
    /// Threads that hash and insert.
    pub(crate) workers: NonZeroUsize,
}

/// A built filter, with what `train`'s report would say of it.
#[derive(Debug)]
pub struct Built {
    /// The filter.
    pub filter: BloomFilter,
    /// Its metadata (column names and types, the fpp it was folded to).
    pub meta: FilterMeta,
    /// The format the job asked for.
    pub format: FileFormat,
    /// How it was sized.
    pub sizing: SizingReport,
    /// Keys given, null ones included.
    pub rows: u64,
    /// Null keys (skipped).
    pub null_keys: u64,
    /// Keys inserted.
    pub keys_inserted: u64,
}

/// The key columns of one chunk: its own, or a struct's fields, each with the struct's nulls
/// (a null struct is a null key).
fn key_columns(chunk: &ArrayRef) -> Result<Vec<ArrayRef>> {
    let Some(s) = chunk.as_struct_opt() else {
        return Ok(vec![chunk.clone()]);
    };
    let Some(valid) = s.nulls() else {
        return Ok(s.columns().to_vec());
    };
    s.columns()
        .iter()
        .map(|c| {
            let nulls = arrow::buffer::NullBuffer::union(Some(valid), c.logical_nulls().as_ref());
            let data = c
                .to_data()
                .into_builder()
                .nulls(nulls)
                .build()
                .map_err(|e| Error::arrow("a struct's nulls", e))?;
            Ok(arrow::array::make_array(data))
        })
        .collect()
}

/// The most distinct keys `columns` (each a list of chunks, of `rows` rows in all) can hold,
/// as `train` bounds one row group of them: its rows, and for an integer, date or timestamp
/// column the length of its range; for a composite key, the product of its columns' bounds,
/// at most the rows.
fn distinct_bound(columns: &[Vec<ArrayRef>], rows: u64) -> u64 {
    let bound = |chunks: &Vec<ArrayRef>| {
        let range = chunks.iter().fold(None, |acc, c| {
            crate::map::prune::union(acc, crate::map::prune::key_range(c.as_ref()))
        });
        match range {
            Some((lo, hi)) => rows.min(u64::try_from(hi - lo + 1).unwrap_or(u64::MAX)),
            None => rows,
        }
    };
    match columns {
        [one] => bound(one),
        many => many
            .iter()
            .map(bound)
            .fold(1u64, u64::saturating_mul)
            .min(rows),
    }
}

/// Run `work` over every slice in `units` on the current pool's `workers` threads, each with
/// its own state from `init` ([`crate::map::run_tasks`], the map stage's scheduler); returns
/// the states. Stops at the first error, as it is, or on a requested cancellation.
fn on_workers<S: Send>(
    units: &[RecordBatch],
    workers: usize,
    init: impl Fn() -> Result<S> + Sync,
    work: impl Fn(&mut S, &RecordBatch) -> Result<()> + Sync,
) -> Result<Vec<S>> {
    let cancel = std::sync::atomic::AtomicBool::new(false);
    crate::map::run_tasks(
        units.len(),
        workers,
        &cancel,
        init,
        |state, i| work(state, &units[i]),
        |_, e| e,
    )
}

/// Build a filter of the keys in `chunks` (one array per chunk, all of one type; a struct
/// array for a composite key) as `train` trains one, on a pool of the job's workers; `what`
/// names the keys in errors.
pub fn build(job: &BuildJob, chunks: &[ArrayRef], what: &str) -> Result<Built> {
    crate::map::worker_pool(job.workers.get())?.install(|| build_in_pool(job, chunks, what))
}

/// [`build`], in the worker pool.
fn build_in_pool(job: &BuildJob, chunks: &[ArrayRef], what: &str) -> Result<Built> {
    let first = chunks.first().ok_or_else(|| {
        Error::Usage(format!(
            "{what}: no arrays, so no key type (give an empty array of the key's type)"
        ))
    })?;
    if let Some(c) = chunks.iter().find(|c| c.data_type() != first.data_type()) {
        return Err(Error::Usage(format!(
            "{what}: chunks of different types ({} and {})",
            first.data_type(),
            c.data_type()
        )));
    }
    // The key columns: one array, named by `column`; or a struct's fields (a table's columns),
    // all of them, or those `column` names.
    let fields: Option<Vec<String>> = first
        .as_struct_opt()
        .map(|s| s.column_names().iter().map(|n| n.to_string()).collect());
    let (names, pick): (Vec<String>, Option<Vec<usize>>) = match (&job.columns, fields) {
        (Some(names), Some(fields)) => {
            let pick = names
                .iter()
                .map(|n| {
                    fields.iter().position(|f| f == n).ok_or_else(|| {
                        Error::param(
                            "column",
                            format!(
                                "{n:?} is not a field of the keys (they have {})",
                                fields.join(", ")
                            ),
                        )
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            (names.clone(), Some(pick))
        }
        (Some(names), None) if names.len() != 1 => {
            return Err(Error::param(
                "column",
                format!(
                "names {} key columns, the keys are one array (a struct or a table holds several)",
                names.len()
            ),
            ))
        }
        (Some(names), None) => (names.clone(), None),
        (None, Some(fields)) => (fields, None),
        (None, None) => (vec![String::new()], None),
    };
    let per_chunk: Vec<Vec<ArrayRef>> = chunks
        .iter()
        .map(|c| {
            let columns = key_columns(c)?;
            Ok(match &pick {
                Some(pick) => pick.iter().map(|i| columns[*i].clone()).collect(),
                None => columns,
            })
        })
        .collect::<Result<_>>()?;
    let arity = per_chunk[0].len();
    if arity == 0 {
        return Err(Error::Usage(format!("{what}: a struct without fields")));
    }
    let types: Vec<DataType> = per_chunk[0].iter().map(|c| c.data_type().clone()).collect();
    // How the key columns are named in messages: by name, else by position.
    let shown: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| match (n.is_empty(), arity) {
            (false, _) => n.clone(),
            (true, 1) => "keys".into(),
            (true, _) => format!("field {i}"),
        })
        .collect();
    crate::cli::train::check_composite_layout(
        job.filter.layout,
        job.filter.spark_keys,
        arity,
        &shown.join(","),
    )?;
    let families: Vec<KeyFamily> = types
        .iter()
        .zip(&shown)
        .map(|(t, c)| KeyFamily::check(t, what, c))
        .collect::<Result<_>>()?;
    let family = KeyFamily::of_key(&families);
    let physical = sbbf_key(job.filter.layout, &shown, family, |c| {
        crate::bloom::sbbf::physical_of_arrow(&types[0], what, c)
    })?;
    let (spark_keys, spark_types) = spark_keys_for(job.filter.spark_keys, &shown, |i, c| {
        SparkType::of(&types[i], c)
    })?;

    // The key columns of each chunk as one batch, cut into slices: the units of work.
    let rows: u64 = chunks.iter().map(|c| c.len() as u64).sum();
    let columns: Vec<Vec<ArrayRef>> = (0..arity)
        .map(|i| per_chunk.iter().map(|c| c[i].clone()).collect())
        .collect();
    let rows_bound = distinct_bound(&columns, rows);
    let schema = std::sync::Arc::new(Schema::new(
        types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
            .collect::<Vec<_>>(),
    ));
    let mut units = Vec::new();
    for cols in per_chunk {
        let n = cols[0].len();
        let options = RecordBatchOptions::new().with_row_count(Some(n));
        let batch = RecordBatch::try_new_with_options(schema.clone(), cols, &options)
            .map_err(|e| Error::arrow("the key columns", e))?;
        for offset in (0..n).step_by(SLICE_ROWS) {
            units.push(batch.slice(offset, SLICE_ROWS.min(n - offset)));
        }
    }
    let fk = FileKey {
        keys: (0..arity).map(Some).collect(),
        key_types: types.clone(),
        columns: (0..arity).collect(),
        key_pos: (0..arity).map(Source::Decoded).collect(),
        where_fill: Vec::new(),
    };
    let workers = job.workers.get();

    let (params, mut sizing) = start_sizing(
        job.filter.sizing,
        job.filter.layout,
        rows_bound,
        job.filter.seed,
        workers,
        |count_params| {
            let sketches = on_workers(
                &units,
                workers,
                || Ok(Box::new(Sketch::new())),
                |est, unit| {
                    let (mut scratch, mut hashes) = (Vec::new(), Vec::new());
                    let mut counts = Counts::default();
                    passing_hashes(
                        unit,
                        &fk,
                        None,
                        (count_params, &[]),
                        &mut counts,
                        &mut scratch,
                        &mut hashes,
                    )?;
                    for h in &hashes {
                        est.insert_hash(*h);
                    }
                    Ok(())
                },
            )?;
            Ok(merged_estimate(&sketches))
        },
    )?;
    let params = trained_params(
        BloomParams {
            spark_keys,
            ..params
        },
        physical,
        workers,
    )?;
    let partials = on_workers(
        &units,
        workers,
        || {
            let mut f = BloomFilter::try_new(params, family)?;
            if !spark_types.is_empty() {
                f.set_spark_tuple(spark_types.clone())?;
            }
            Ok((f, Counts::default(), Vec::new(), Vec::new()))
        },
        |(filter, counts, scratch, hashes), unit| {
            passing_hashes(
                unit,
                &fk,
                None,
                (&params, &spark_types),
                counts,
                scratch,
                hashes,
            )?;
            counts.inserted += hashes.len() as u64;
            filter.insert_hashes(hashes);
            Ok(())
        },
    )?;
    let (filter, total) = or_partials(partials.into_iter().map(|(f, c, _, _)| (f, c)))?;
    let folding = sizing.method == "folded";
    let fpp = job.filter.sizing.fpp();
    let (filter, _) = finish_sizing(filter, &mut sizing, fpp, rows_bound, true)?;
    let meta = filter_meta(
        &names,
        &families,
        &types,
        &[],
        &spark_types,
        FilterMeta {
            fpp: folding.then_some(fpp),
            ..FilterMeta::default()
        },
    );
    Ok(Built {
        filter,
        meta,
        format: job.filter.format,
        sizing,
        rows,
        null_keys: total.nulls,
        keys_inserted: total.inserted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::spark_keys::SparkKeyMode;
    use crate::bloom::Layout;
    use crate::cli::train::{BuildSpec, TrainSpec};
    use arrow::array::{Int32Array, Int64Array, StringArray, StructArray};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// Train over `batch` written as one Parquet row group, with `spec`'s filter options.
    fn trained(batch: &RecordBatch, column: &str, spec: &BuildSpec) -> (BloomFilter, FilterMeta) {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("keys.parquet");
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&input).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
        let output = dir.path().join("keys.bjf");
        let job = TrainSpec {
            input: vec![input.to_str().unwrap().into()],
            column: column.into(),
            output: output.to_str().unwrap().into(),
            expected_items: spec.expected_items,
            fpp: spec.fpp,
            bits: spec.bits,
            hashes: spec.hashes,
            num_bytes: spec.num_bytes,
            seed: spec.seed,
            layout: spec.layout,
            spark_keys: spec.spark_keys,
            format: spec.format,
            workers: Some(2),
            ..TrainSpec::default()
        }
        .to_job()
        .unwrap();
        crate::train::run(&job, false).unwrap();
        let bytes = std::fs::read(&output).unwrap();
        crate::bloom::codec::decode(&bytes, "trained").unwrap()
    }

    fn built(spec: &BuildSpec, chunks: &[ArrayRef]) -> Built {
        build(&spec.to_job().unwrap(), chunks, "keys").unwrap()
    }

    /// The filter fields both ways must agree on (inputs aside, which train records).
    fn assert_same(b: &Built, (f, meta): &(BloomFilter, FilterMeta), what: &str) {
        assert_eq!(b.filter.params(), f.params(), "{what}: params");
        assert_eq!(b.filter.family(), f.family(), "{what}: family");
        assert_eq!(b.filter.inserted(), f.inserted(), "{what}: inserted");
        assert!(
            b.filter.word_slice() == f.word_slice(),
            "{what}: bits differ"
        );
        let meta = FilterMeta {
            inputs: Vec::new(),
            ..meta.clone()
        };
        assert_eq!(b.meta, meta, "{what}: metadata");
    }

    fn ints(n: i64) -> ArrayRef {
        // Duplicates and nulls: every 7th key null, keys repeat with period 5000.
        Arc::new(Int64Array::from_iter(
            (0..n).map(|i| (i % 7 != 3).then_some((i * 7919) % 5000)),
        ))
    }

    fn strings(n: i64) -> ArrayRef {
        Arc::new(StringArray::from_iter(
            (0..n).map(|i| (i % 11 != 5).then(|| format!("k{}", (i * 31) % 3000))),
        ))
    }

    /// The promise of `Filter.build`: the filter `train` builds over a Parquet file of the
    /// same keys in one row group, for every layout and way of sizing, one and two key
    /// columns.
    #[test]
    fn same_filter_as_train_over_one_row_group() {
        let sizings = [
            BuildSpec::default(),
            BuildSpec {
                fpp: Some(0.001),
                ..BuildSpec::default()
            },
            BuildSpec {
                expected_items: Some(4000),
                ..BuildSpec::default()
            },
            BuildSpec {
                bits: Some(1 << 16),
                hashes: Some(8),
                ..BuildSpec::default()
            },
        ];
        let layouts = [
            Layout::Split,
            Layout::Blocked,
            Layout::Classic,
            Layout::SparkV1,
            Layout::SparkV2,
            Layout::Sbbf,
        ];
        for (name, keys) in [("id", ints(20_000)), ("name", strings(20_000))] {
            let batch = RecordBatch::try_from_iter([(name, keys.clone())]).unwrap();
            for layout in layouts {
                for sizing in &sizings {
                    if layout == Layout::Sbbf && sizing.bits.is_some() {
                        continue; // sbbf sizes by --num-bytes, below
                    }
                    let spec = BuildSpec {
                        layout,
                        column: Some(name.into()),
                        ..sizing.clone()
                    };
                    let what = format!("{name} {layout} {sizing:?}");
                    let b = built(&spec, &[keys.slice(0, 7000), keys.slice(7000, 13_000)]);
                    assert_same(&b, &trained(&batch, name, &spec), &what);
                }
            }
            let unnamed = built(&BuildSpec::default(), std::slice::from_ref(&keys));
            assert_eq!(unnamed.meta.column, None);
            let spec = BuildSpec {
                layout: Layout::Sbbf,
                num_bytes: Some(4096),
                column: Some(name.into()),
                ..BuildSpec::default()
            };
            assert_same(
                &built(&spec, std::slice::from_ref(&keys)),
                &trained(&batch, name, &spec),
                "sbbf num-bytes",
            );
        }
        // A composite key: a struct's fields, named by the struct; native and Spark xxhash64.
        let a: ArrayRef = Arc::new(Int32Array::from_iter(
            (0..9000).map(|i| (i % 13 != 0).then_some(i % 40)),
        ));
        let b = strings(9000);
        let batch = RecordBatch::try_from_iter([("a", a.clone()), ("b", b.clone())]).unwrap();
        let tuple: ArrayRef = Arc::new(StructArray::from(batch.clone()));
        for spec in [
            BuildSpec::default(),
            BuildSpec {
                layout: Layout::Blocked,
                fpp: Some(0.05),
                ..BuildSpec::default()
            },
            BuildSpec {
                layout: Layout::SparkV2,
                spark_keys: SparkKeyMode::Xxhash64,
                expected_items: Some(2000),
                ..BuildSpec::default()
            },
        ] {
            let b = built(&spec, &[tuple.slice(0, 100), tuple.slice(100, 8900)]);
            assert_same(
                &b,
                &trained(&batch, "a,b", &spec),
                &format!("tuple {spec:?}"),
            );
            assert_eq!(b.meta.key_columns.len(), 2);
            assert_eq!(b.meta.key_columns[1].name, "b");
        }
    }

    /// A table's rows (a struct of its columns): `column` picks the key's fields by name, in
    /// its order, and the filter is the one of those columns alone.
    #[test]
    fn column_picks_a_tables_key_columns() {
        let batch =
            RecordBatch::try_from_iter([("a", ints(500)), ("b", strings(500)), ("c", ints(500))])
                .unwrap();
        let table: ArrayRef = Arc::new(StructArray::from(batch));
        let pick = |column: &str| BuildSpec {
            column: Some(column.into()),
            ..BuildSpec::default()
        };
        let one = built(&pick("b"), std::slice::from_ref(&table));
        let alone = built(&pick("b"), &[strings(500)]);
        assert!(one.filter.word_slice() == alone.filter.word_slice());
        assert_eq!(one.meta, alone.meta);
        let pair = built(&pick("b,a"), std::slice::from_ref(&table));
        let batch = RecordBatch::try_from_iter([("b", strings(500)), ("a", ints(500))]).unwrap();
        let both: ArrayRef = Arc::new(StructArray::from(batch));
        let by_struct = built(&BuildSpec::default(), &[both]);
        assert!(pair.filter.word_slice() == by_struct.filter.word_slice());
        assert_eq!(pair.meta, by_struct.meta);
        let missing = build(&pick("d").to_job().unwrap(), &[table], "build()").unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("\"d\" is not a field of the keys (they have a, b, c)"),
            "{missing}"
        );
    }

    /// A null struct is a null key, whatever its fields hold.
    #[test]
    fn a_null_struct_is_a_null_key() {
        let a: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
        let fields = vec![Arc::new(Field::new("a", DataType::Int64, true))];
        let nulls = arrow::buffer::NullBuffer::from(vec![true, false, true]);
        let s: ArrayRef = Arc::new(StructArray::new(fields.into(), vec![a], Some(nulls)));
        let b = built(&BuildSpec::default(), &[s]);
        assert_eq!((b.rows, b.null_keys, b.keys_inserted), (3, 1, 2));
        assert_eq!(b.meta.column.as_deref(), Some("a"));
        let probe = |v: i64| b.filter.contains_i64(v);
        assert!(probe(1) && probe(3));
    }

    #[test]
    fn bad_keys_are_one_line_errors() {
        let job = BuildSpec::default().to_job().unwrap();
        let err = |chunks: &[ArrayRef], job: &BuildJob| {
            build(job, chunks, "build()").unwrap_err().to_string()
        };
        let floats: ArrayRef = Arc::new(arrow::array::Float64Array::from(vec![1.5]));
        assert!(
            err(&[floats], &job).contains("\"keys\": type Float64 cannot be a key"),
            "{}",
            err(&[], &job)
        );
        assert!(err(&[], &job).contains("no arrays"));
        assert!(err(&[ints(3), strings(3)], &job)
            .contains("chunks of different types (Int64 and Utf8)"));
        let named = BuildSpec {
            column: Some("a,b".into()),
            ..BuildSpec::default()
        }
        .to_job()
        .unwrap();
        assert!(
            err(&[ints(3)], &named).contains("column: names 2 key columns, the keys are one array")
        );
        let batch = RecordBatch::try_from_iter([("a", ints(3)), ("b", strings(3))]).unwrap();
        let tuple: ArrayRef = Arc::new(StructArray::from(batch));
        let sbbf = BuildSpec {
            layout: Layout::Sbbf,
            ..BuildSpec::default()
        }
        .to_job()
        .unwrap();
        assert!(err(std::slice::from_ref(&tuple), &sbbf)
            .contains("a composite key needs a native layout"));
        let spark = BuildSpec {
            layout: Layout::SparkV1,
            ..BuildSpec::default()
        }
        .to_job()
        .unwrap();
        assert!(
            err(&[tuple], &spark).contains("a composite key (--column a,b) needs a native layout")
        );
        let decimals: ArrayRef = Arc::new(
            arrow::array::Decimal128Array::from(vec![700])
                .with_precision_and_scale(10, 2)
                .unwrap(),
        );
        assert!(err(&[decimals], &sbbf).contains("cannot be an sbbf key"));
        let bad = BuildSpec {
            bits: Some(1024),
            ..BuildSpec::default()
        };
        assert!(bad
            .to_job()
            .unwrap_err()
            .to_string()
            .contains("--bits and --hashes go together"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// The bytes do not depend on how the keys are chunked or on the worker count, and no
        /// key is missing.
        #[test]
        fn chunks_and_workers_do_not_change_the_filter(
            keys in proptest::collection::vec(proptest::option::weighted(0.9, -500i64..500), 0..3000),
            cuts in proptest::collection::vec(0usize..3000, 0..5),
            workers in 1usize..5,
            layout in prop_oneof![Just(Layout::Split), Just(Layout::Blocked), Just(Layout::Classic)],
        ) {
            let all: ArrayRef = Arc::new(Int64Array::from(keys.clone()));
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(keys.len())).collect();
            cuts.push(0);
            cuts.push(keys.len());
            cuts.sort_unstable();
            let chunks: Vec<ArrayRef> = cuts.windows(2).map(|w| all.slice(w[0], w[1] - w[0])).collect();
            let one = built(&BuildSpec { layout, workers: Some(1), ..BuildSpec::default() }, &[all]);
            let many = built(&BuildSpec { layout, workers: Some(workers), ..BuildSpec::default() }, &chunks);
            prop_assert_eq!(one.filter.params(), many.filter.params());
            prop_assert!(one.filter.word_slice() == many.filter.word_slice());
            for k in keys.iter().flatten() {
                prop_assert!(many.filter.contains_i64(*k));
            }
        }
    }
}
