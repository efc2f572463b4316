//! Kernel benchmarks: hashing, insert and probe throughput for u64 and 16-byte string keys at
//! n = 10^7, p = 1 %, and a 1 GiB filter against a random-read baseline over an array of the
//! same size in the same run, and the merge of 8 partials of 64 MiB (train's reduce) with
//! `union_all` against 7 `union` calls, and one `bit_stats` pass against three estimates.
//! `cargo bench --bench bloom`; results in docs/BENCHMARKS.md.

use std::hint::black_box;

use arrow::array::{Int64Array, StringArray};
use bloomjoin::bloom::{BloomFilter, BloomParams, Layout};
use bloomjoin::key::{hash_array, hash_array_into, hash_tuple_into, KeyFamily};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const N: usize = 10_000_000;
const BATCH: usize = 65_536;

/// Deterministic pseudo-random u64s (SplitMix64).
fn randoms(n: usize, mut s: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

fn u64_keys(seed: u64) -> Int64Array {
    Int64Array::from(
        randoms(N, seed)
            .into_iter()
            .map(|v| v as i64)
            .collect::<Vec<_>>(),
    )
}

fn string_keys(seed: u64) -> StringArray {
    StringArray::from_iter_values(randoms(N, seed).into_iter().map(|v| format!("{v:016x}")))
}

fn kernels(c: &mut Criterion) {
    let ints = u64_keys(1);
    let absent = u64_keys(2);
    let strs = string_keys(3);
    // Composite keys: (ints, second) and (absent, second) tuples of two integers.
    let second = u64_keys(4);

    let mut g = c.benchmark_group("hash");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));
    // As the jobs hash: batch by batch (65,536 keys, train's default) into a reused buffer.
    let mut out = Vec::new();
    g.bench_function("u64 (batches of 65536)", |b| {
        b.iter(|| {
            for i in (0..N).step_by(BATCH) {
                hash_array_into(&ints.slice(i, BATCH.min(N - i)), 0, &mut out).unwrap();
                black_box(&out);
            }
        })
    });
    // The same batch over and over: the keys sit in cache, as they do right after decoding.
    let batch = ints.slice(0, BATCH);
    g.bench_function("u64 (one cached batch of 65536, repeated)", |b| {
        b.iter(|| {
            for _ in (0..N).step_by(BATCH) {
                hash_array_into(black_box(&batch), 0, &mut out).unwrap();
                black_box(&out);
            }
        })
    });
    g.bench_function("tuple i64,i64 (batches of 65536)", |b| {
        b.iter(|| {
            for i in (0..N).step_by(BATCH) {
                let len = BATCH.min(N - i);
                let (x, y) = (ints.slice(i, len), second.slice(i, len));
                hash_tuple_into(&[&x, &y], 0, &mut out).unwrap();
                black_box(&out);
            }
        })
    });
    let batch2 = second.slice(0, BATCH);
    g.bench_function("tuple i64,i64 (one cached batch of 65536, repeated)", |b| {
        b.iter(|| {
            for _ in (0..N).step_by(BATCH) {
                hash_tuple_into(&[black_box(&batch), black_box(&batch2)], 0, &mut out).unwrap();
                black_box(&out);
            }
        })
    });
    g.bench_function("str16 (batches of 65536)", |b| {
        b.iter(|| {
            for i in (0..N).step_by(BATCH) {
                hash_array_into(&strs.slice(i, BATCH.min(N - i)), 0, &mut out).unwrap();
                black_box(&out);
            }
        })
    });
    // All 10^7 at once into a fresh 80 MB vector: bound by writing that memory.
    g.bench_function("u64 (one array, new vector)", |b| {
        b.iter(|| hash_array(black_box(&ints), 0).unwrap())
    });
    g.finish();

    for layout in [Layout::Split, Layout::Blocked, Layout::Classic] {
        let params = BloomParams::for_items(layout, N as u64, 0.01, 0).unwrap();
        let empty = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
        let int_hashes = hash_array(&ints, 0).unwrap().hashes;
        let absent_hashes = hash_array(&absent, 0).unwrap().hashes;
        let mut full = empty.clone();
        full.insert_hashes(&int_hashes);

        let mut g = c.benchmark_group(format!(
            "{layout} n=1e7 p=1% ({} MiB)",
            params.num_bytes() >> 20
        ));
        g.sample_size(10);
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function("insert u64 (hashed)", |b| {
            b.iter_batched_ref(
                || empty.clone(),
                |f| f.insert_hashes(&int_hashes),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("insert u64 (hash+insert)", |b| {
            b.iter_batched_ref(
                || empty.clone(),
                |f| f.insert_array(&ints).unwrap(),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("probe u64 absent (hashed)", |b| {
            b.iter(|| full.probe_hashes(black_box(&absent_hashes)))
        });
        g.bench_function("probe u64 present (hashed)", |b| {
            b.iter(|| full.probe_hashes(black_box(&int_hashes)))
        });
        g.bench_function("probe u64 (hash+probe)", |b| {
            b.iter(|| full.probe_array(black_box(&absent)).unwrap())
        });

        let tempty = BloomFilter::try_new(params, KeyFamily::Tuple).unwrap();
        let mut tfull = tempty.clone();
        tfull.insert_columns(&[&ints, &second]).unwrap();
        g.bench_function("insert tuple i64,i64 (hash+insert)", |b| {
            b.iter_batched_ref(
                || tempty.clone(),
                |f| f.insert_columns(&[&ints, &second]).unwrap(),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("probe tuple i64,i64 (hash+probe)", |b| {
            b.iter(|| {
                tfull
                    .probe_columns(&[black_box(&absent), black_box(&second)])
                    .unwrap()
            })
        });

        let sempty = BloomFilter::try_new(params, KeyFamily::Bytes).unwrap();
        let mut sfull = sempty.clone();
        sfull.insert_array(&strs).unwrap();
        g.bench_function("insert str16 (hash+insert)", |b| {
            b.iter_batched_ref(
                || sempty.clone(),
                |f| f.insert_array(&strs).unwrap(),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("probe str16 (hash+probe)", |b| {
            b.iter(|| sfull.probe_array(black_box(&strs)).unwrap())
        });
        g.finish();
    }
}

/// A 1 GiB blocked filter against random reads of the same count: over the filter's own words
/// (same allocation, same pages) and over a plain 1 GiB `Vec`.
fn one_gib(c: &mut Criterion) {
    const BYTES: u64 = 1 << 30;
    let params = BloomParams::explicit(Layout::Blocked, BYTES * 8, 7, 0).unwrap();
    let mut filter = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
    let fill = randoms(N * 10, 9);
    filter.insert_hashes(&fill);
    let probes = randoms(N, 10);
    let array: Vec<u64> = randoms((BYTES / 8) as usize, 11);
    let idx: Vec<usize> = probes
        .iter()
        .map(|h| ((*h as u128 * array.len() as u128) >> 64) as usize)
        .collect();

    let mut g = c.benchmark_group("1 GiB");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));
    let random_reads = |words: &[u64]| {
        let mut acc = 0u64;
        for &i in &idx {
            acc = acc.wrapping_add(words[i]);
        }
        acc
    };
    g.bench_function("baseline random read u64 (filter's memory)", |b| {
        b.iter(|| random_reads(black_box(filter.word_slice())))
    });
    g.bench_function("baseline random read u64 (plain Vec)", |b| {
        b.iter(|| random_reads(black_box(&array)))
    });
    g.bench_function("probe blocked (hashed)", |b| {
        b.iter(|| filter.probe_hashes(black_box(&probes)))
    });
    g.finish();
}

/// Train's reduce: 8 partials of 64 MiB (split layout, 1 M keys each) ORed into the first,
/// by one `union_all` against 7 `union` calls (one pass over the words each); and the bits
/// counted for the fold and the report, by one `bit_stats` against the three estimates.
fn merge(c: &mut Criterion) {
    const BYTES: u64 = 64 << 20;
    const W: usize = 8;
    let params = BloomParams::explicit(Layout::Split, BYTES * 8, 8, 0).unwrap();
    let partials: Vec<BloomFilter> = (0..W)
        .map(|i| {
            let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
            f.insert_hashes(&randoms(1_000_000, 20 + i as u64));
            f
        })
        .collect();
    let mut g = c.benchmark_group("merge 8 partials of 64 MiB");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(BYTES * W as u64));
    g.bench_function("union_all (one pass)", |b| {
        b.iter_batched(
            || partials[0].clone(),
            |mut base| {
                base.union_all(&partials[1..], "partial").unwrap();
                base
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("union, 7 calls", |b| {
        b.iter_batched(
            || partials[0].clone(),
            |mut base| {
                for p in &partials[1..] {
                    base.union(p, "partial").unwrap();
                }
                base
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
    let merged = {
        let mut base = partials[0].clone();
        base.union_all(&partials[1..], "partial").unwrap();
        base
    };
    let mut g = c.benchmark_group("count the bits of 64 MiB");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(BYTES));
    g.bench_function("bit_stats (one pass)", |b| {
        b.iter(|| {
            let s = merged.bit_stats();
            (
                s.fill_ratio(),
                s.estimated_fpp(),
                s.estimated_distinct_by_block(),
            )
        })
    });
    g.bench_function("three estimates (three passes)", |b| {
        b.iter(|| {
            (
                merged.fill_ratio(),
                merged.estimated_fpp(),
                merged.estimated_distinct_by_block(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, kernels, one_gib, merge);
criterion_main!(benches);
