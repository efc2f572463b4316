//! Golden vectors written by a real Apache Spark 4.3.0 (`tests/data/spark/`, a copy of the
//! interop material's `vectors/`): our spark-v1/spark-v2 filters, trained on the manifest's
//! key sets, must equal Spark's files byte for byte and give every recorded answer.

use std::collections::BTreeSet;

use arrow::array::{ArrayRef, BinaryArray, Int64Array, StringArray};
use bloomjoin::bloom::{codec, spark, BloomFilter, BloomParams, Layout};
use bloomjoin::key::KeyFamily;
use serde_json::Value;

use crate::util::root;

fn dir() -> std::path::PathBuf {
    root().join("tests/data/spark")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(dir().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn bin(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn layout_of(version: &Value) -> Layout {
    match version.as_i64().unwrap() {
        1 => Layout::SparkV1,
        2 => Layout::SparkV2,
        v => panic!("version {v}"),
    }
}

/// Spark's 32-bit seed as our u64 seed (its two's-complement bits).
fn seed_of(seed: &Value) -> u64 {
    seed.as_i64().unwrap() as i32 as u32 as u64
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A key list of the manifest (`long`, `string` or `binary`) as raw keys.
enum Keys {
    Long(Vec<i64>),
    Str(Vec<String>),
    Bin(Vec<Vec<u8>>),
}

impl Keys {
    fn from(kind: &str, v: &Value) -> Keys {
        let a = v.as_array().unwrap();
        match kind {
            "long" => Keys::Long(a.iter().map(|x| x.as_i64().unwrap()).collect()),
            "string" => Keys::Str(a.iter().map(|x| x.as_str().unwrap().to_string()).collect()),
            "binary" => Keys::Bin(a.iter().map(|x| hex(x.as_str().unwrap())).collect()),
            k => panic!("key type {k}"),
        }
    }

    fn family(&self) -> KeyFamily {
        match self {
            Keys::Long(_) => KeyFamily::Integer,
            _ => KeyFamily::Bytes,
        }
    }

    fn array(&self) -> ArrayRef {
        match self {
            Keys::Long(v) => std::sync::Arc::new(Int64Array::from(v.clone())),
            Keys::Str(v) => std::sync::Arc::new(StringArray::from(v.clone())),
            Keys::Bin(v) => std::sync::Arc::new(BinaryArray::from_iter_values(v.iter())),
        }
    }

    /// Insert one at a time, returning Spark's `put` results (true when a bit changed).
    fn put_each(&self, f: &mut BloomFilter) -> String {
        let mut out = String::new();
        let mut put = |f: &mut BloomFilter, present: bool, insert: &dyn Fn(&mut BloomFilter)| {
            let before = f.count_ones();
            insert(f);
            let changed = f.count_ones() != before;
            assert_eq!(changed, !present, "put result vs mightContain before put");
            out.push(if changed { '1' } else { '0' });
        };
        match self {
            Keys::Long(v) => {
                for &k in v {
                    put(f, f.contains_i64(k), &|f| f.insert_i64(k));
                }
            }
            Keys::Str(v) => {
                for k in v {
                    put(f, f.contains_bytes(k.as_bytes()), &|f| {
                        f.insert_bytes(k.as_bytes())
                    });
                }
            }
            Keys::Bin(v) => {
                for k in v {
                    put(f, f.contains_bytes(k), &|f| f.insert_bytes(k));
                }
            }
        }
        out
    }
}

fn answers(f: &BloomFilter, probes: &Keys) -> String {
    let hits = f.probe_array(probes.array().as_ref()).unwrap();
    hits.iter().map(|b| if b { '1' } else { '0' }).collect()
}

/// `"probe_sets.long"` -> the list.
fn lookup<'a>(m: &'a Value, path: &'a str) -> (&'a str, &'a Value) {
    let (set, kind) = path.split_once('.').unwrap();
    (kind, &m[set][kind])
}

#[test]
fn api_filters_are_reproduced_byte_for_byte_with_every_answer() {
    let m = manifest();
    let filters = m["filters"].as_array().unwrap();
    assert_eq!(filters.len(), 27);
    let mut probes_checked = 0;
    for spec in filters {
        let id = spec["id"].as_str().unwrap();
        let layout = layout_of(&spec["version"]);
        let n = spec["expected_num_items"].as_u64().unwrap();
        let fpp = spec["fpp"].as_f64().unwrap();
        // Spark's sizing through our params.
        let params = BloomParams::for_items(layout, n, fpp, seed_of(&spec["seed"])).unwrap();
        assert_eq!(params.num_bits, spec["bit_size"].as_u64().unwrap(), "{id}");
        assert_eq!(
            params.num_hashes as u64,
            spec["num_hash_functions"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(
            spark::optimal_num_of_bits(n as i64, fpp),
            spec["requested_num_bits"].as_i64().unwrap(),
            "{id}"
        );
        let (kind, keys) = lookup(&m, spec["inserted"].as_str().unwrap());
        let keys = Keys::from(kind, keys);
        assert_eq!(kind, spec["key_type"].as_str().unwrap());

        // Batch insertion (the train path: hash_into + insert_hashes).
        let mut batch = BloomFilter::try_new(params, keys.family()).unwrap();
        batch.insert_array(keys.array().as_ref()).unwrap();
        // One at a time, recording Spark's put results.
        let mut single = BloomFilter::try_new(params, keys.family()).unwrap();
        let puts = keys.put_each(&mut single);
        assert_eq!(puts, spec["put_returned"].as_str().unwrap(), "{id} put");
        assert_eq!(batch, single, "{id}");

        let expected = bin(spec["file"].as_str().unwrap());
        let ours = spark::encode(&batch).unwrap();
        assert_eq!(ours.len(), expected.len(), "{id} length");
        assert_eq!(hex_of(&ours[..16]), hex_of(&expected[..16]), "{id} header");
        assert!(ours == expected, "{id}: bytes differ from Spark's");
        assert!(
            hex_of(&ours).starts_with(spec["header_hex"].as_str().unwrap()),
            "{id}"
        );
        assert_eq!(
            batch.count_ones(),
            spec["cardinality"].as_u64().unwrap(),
            "{id}"
        );

        // Spark's file decodes to the same bits; its mightContain answers are ours.
        let (decoded, meta) = codec::decode(&expected, id).unwrap();
        assert_eq!(decoded.family(), KeyFamily::Any);
        assert_eq!(meta, codec::FilterMeta::default());
        assert_eq!(decoded.params(), batch.params(), "{id}");
        assert!(decoded.words().eq(batch.words()), "{id}");
        let (pkind, probes) = lookup(&m, spec["probes"].as_str().unwrap());
        let probes = Keys::from(pkind, probes);
        let want = spec["might_contain"].as_str().unwrap();
        assert_eq!(answers(&batch, &probes), want, "{id} mightContain");
        assert_eq!(
            answers(&decoded, &probes),
            want,
            "{id} mightContain (decoded)"
        );
        probes_checked += want.len();
        // Spark's expectedFpp() = (cardinality / bitSize)^k.
        let efpp = spec["expected_fpp"].as_f64().unwrap();
        assert!((batch.estimated_fpp() - efpp).abs() <= efpp * 1e-12, "{id}");
    }
    assert!(probes_checked > 27 * 500, "{probes_checked}");
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn explicit_num_bits_filters_are_reproduced() {
    let m = manifest();
    let specs = m["explicit_num_bits_filters"].as_array().unwrap();
    assert_eq!(specs.len(), 5);
    for spec in specs {
        let file = spec["file"].as_str().unwrap();
        let layout = layout_of(&spec["version"]);
        let n = spec["expected_num_items"].as_i64().unwrap();
        let bits = spec["num_bits_arg"].as_i64().unwrap();
        // create(version, n, numBits, seed): k from the requested bits, m = numWords * 64.
        let k = spark::optimal_num_of_hash_functions(n, bits);
        let words = spark::num_words(bits).unwrap();
        let params =
            BloomParams::explicit(layout, words * 64, k as u32, seed_of(&spec["seed"])).unwrap();
        assert_eq!(
            params.num_bits,
            spec["bit_size"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(
            params.num_hashes as u64,
            spec["num_hash_functions"].as_u64().unwrap(),
            "{file}"
        );
        let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
        let keys: Vec<i64> = spec["inserted_long_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        f.insert_array(&Int64Array::from(keys)).unwrap();
        assert!(
            spark::encode(&f).unwrap() == bin(file),
            "{file}: bytes differ"
        );
        let (pkind, probes) = lookup(&m, spec["probes"].as_str().unwrap());
        let probes = Keys::from(pkind, probes);
        assert_eq!(
            answers(&f, &probes),
            spec["might_contain"].as_str().unwrap(),
            "{file}"
        );
    }
}

#[test]
fn single_key_bit_sets_match() {
    let m = manifest();
    let entries = m["single_key_set_bits"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 220);
    for e in entries {
        let layout = layout_of(&e["version"]);
        let params = BloomParams::explicit(
            layout,
            e["bit_size"].as_u64().unwrap(),
            e["num_hash_functions"].as_u64().unwrap() as u32,
            seed_of(&e["seed"]),
        )
        .unwrap();
        let kind = e["key_type"].as_str().unwrap();
        let keys = Keys::from(kind, &Value::Array(vec![e["key"].clone()]));
        let mut f = BloomFilter::try_new(params, keys.family()).unwrap();
        f.insert_array(keys.array().as_ref()).unwrap();
        let set: BTreeSet<u64> = f
            .words()
            .enumerate()
            .flat_map(|(w, word)| {
                (0..64)
                    .filter(move |b| word >> b & 1 == 1)
                    .map(move |b| w as u64 * 64 + b)
            })
            .collect();
        let want: BTreeSet<u64> = e["set_bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(set, want, "{e}");
    }
}

#[test]
fn murmur3_values_match() {
    let m = manifest();
    let longs = m["murmur3"]["hashLong"].as_array().unwrap();
    let bytes = m["murmur3"]["hashUnsafeBytes"].as_array().unwrap();
    assert!(longs.len() + bytes.len() >= 100);
    for e in longs {
        let seed = e["seed"].as_i64().unwrap() as i32;
        assert_eq!(
            spark::hash_long(e["input"].as_i64().unwrap(), seed) as i64,
            e["result"].as_i64().unwrap(),
            "{e}"
        );
    }
    let mut differs_from_standard = 0;
    for e in bytes {
        let input = hex(e["input_hex"].as_str().unwrap());
        let seed = e["seed"].as_i64().unwrap() as i32;
        let want = e["hashUnsafeBytes"].as_i64().unwrap();
        assert_eq!(spark::hash_unsafe_bytes(&input, seed) as i64, want, "{e}");
        if want != e["hashUnsafeBytes2_standard_murmur3"].as_i64().unwrap() {
            differs_from_standard += 1;
            assert_ne!(input.len() % 4, 0, "{e}");
        }
    }
    assert!(
        differs_from_standard > 10,
        "the vectors exercise the tail quirk"
    );
}

#[test]
fn sizing_table_matches() {
    let m = manifest();
    let rows = m["sizing"]["optimalNumOfBits(n,fpp)"].as_array().unwrap();
    assert_eq!(rows.len(), 252);
    for r in rows {
        let n = r["n"].as_u64().unwrap();
        let fpp = r["fpp"].as_f64().unwrap();
        let bits = spark::optimal_num_of_bits(n as i64, fpp);
        assert_eq!(bits, r["optimalNumOfBits"].as_i64().unwrap(), "{r}");
        if let Some(k) = r.get("optimalNumOfHashFunctions") {
            assert_eq!(
                spark::optimal_num_of_hash_functions(n as i64, bits) as i64,
                k.as_i64().unwrap(),
                "{r}"
            );
        }
        if r.get("create_error").is_some() || r.get("numWords_error").is_some() {
            let e = BloomParams::for_items(Layout::SparkV2, n, fpp, 0).unwrap_err();
            let e = e.to_string();
            assert!(
                e.contains("positive") || e.contains("cannot allocate"),
                "{r}: {e}"
            );
            continue;
        }
        let (b, words, k) = spark::size(n, fpp).unwrap();
        assert_eq!(b, bits);
        assert_eq!(words, r["numWords"].as_u64().unwrap(), "{r}");
        assert_eq!(k as u64, r["optimalNumOfHashFunctions"].as_u64().unwrap());
        for layout in [Layout::SparkV1, Layout::SparkV2] {
            let p = BloomParams::for_items(layout, n, fpp, 0).unwrap();
            assert_eq!(p.num_bits, r["bitSize"].as_u64().unwrap(), "{r}");
            assert_eq!(p.num_hashes, k);
        }
    }
    let capped = &m["sizing"]["optimalNumOfBits(n,maxItems,maxBits) [used by InjectRuntimeFilter]"];
    for r in capped.as_array().unwrap() {
        assert_eq!(
            spark::optimal_num_of_bits_capped(
                r["expectedNumItems"].as_i64().unwrap(),
                r["maxNumItems"].as_i64().unwrap(),
                r["maxNumOfBits"].as_i64().unwrap()
            ),
            r["optimalNumOfBits"].as_i64().unwrap(),
            "{r}"
        );
    }
}

#[test]
fn merge_vectors_and_compatibility_rules() {
    let m = manifest();
    let keys: Vec<i64> = m["key_sets"]["long"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    for (cfg, single) in [
        ("v1", "v1_long_n1000_p0_03.bin"),
        ("v2s0", "v2s0_long_n1000_p0_03.bin"),
        ("v2s42", "v2s42_long_n1000_p0_03.bin"),
    ] {
        let spec = &m["merge"][cfg];
        assert_eq!(spec["merged_equals_single_filter_bytes"], true);
        let parts = spec["parts"].as_array().unwrap();
        let (even, odd) = (
            bin(parts[0].as_str().unwrap()),
            bin(parts[1].as_str().unwrap()),
        );
        // Our partials, trained on the even/odd halves, equal Spark's partial files.
        let (layout, seed) = match cfg {
            "v1" => (Layout::SparkV1, 0),
            "v2s0" => (Layout::SparkV2, 0),
            _ => (Layout::SparkV2, 42),
        };
        let params = BloomParams::for_items(layout, 1000, 0.03, seed).unwrap();
        for (rem, want) in [(0, &even), (1, &odd)] {
            let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
            let half: Vec<i64> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == rem)
                .map(|(_, k)| *k)
                .collect();
            f.insert_array(&Int64Array::from(half)).unwrap();
            assert!(spark::encode(&f).unwrap() == *want, "{cfg} part {rem}");
        }
        // OR of Spark's partials == the single-pass filter.
        let (mut a, _) = codec::decode(&even, "even").unwrap();
        let (b, _) = codec::decode(&odd, "odd").unwrap();
        a.union(&b, "odd").unwrap();
        assert!(spark::encode(&a).unwrap() == bin(single), "{cfg} merged");
        // AND of the partials == Spark's intersectInPlace file.
        let inter = bin(spec["intersect_file"].as_str().unwrap());
        let (i, _) = codec::decode(&inter, "intersect").unwrap();
        let (ea, _) = codec::decode(&even, "even").unwrap();
        assert!(
            i.words().eq(ea.words().zip(b.words()).map(|(x, y)| x & y)),
            "{cfg} intersect"
        );
    }

    // The compatibility cases of the manifest, each rejected with the field Spark names.
    let mk = |layout, n: u64, bits: i64, seed: u64| {
        let k = spark::optimal_num_of_hash_functions(n as i64, bits) as u32;
        let words = spark::num_words(bits).unwrap();
        let p = BloomParams::explicit(layout, words * 64, k, seed).unwrap();
        BloomFilter::try_new(p, KeyFamily::Any).unwrap()
    };
    let cases = m["compatibility"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for c in cases {
        let name = c["case"].as_str().unwrap();
        let (mut a, b, field) = match name {
            "V1 vs V2 (same n, bits)" => (
                mk(Layout::SparkV1, 1000, 7298, 0),
                mk(Layout::SparkV2, 1000, 7298, 0),
                Some("layout"),
            ),
            "V2 seed 0 vs V2 seed 42" => (
                mk(Layout::SparkV2, 1000, 7298, 0),
                mk(Layout::SparkV2, 1000, 7298, 42),
                Some("seed"),
            ),
            "V2 different bit size" => (
                mk(Layout::SparkV2, 1000, 7298, 0),
                mk(Layout::SparkV2, 1000, 14596, 0),
                Some("num_bits"),
            ),
            "V2 same bit size (7298 vs 7360 requested -> both 115 words), same k" => (
                mk(Layout::SparkV2, 1000, 7298, 0),
                mk(Layout::SparkV2, 1000, 7360, 0),
                None,
            ),
            "V2 same bit size, different k (n=1000 vs n=2000)" => (
                mk(Layout::SparkV2, 1000, 7298, 0),
                mk(Layout::SparkV2, 2000, 7298, 0),
                Some("num_hashes"),
            ),
            "V1 different k" => (
                mk(Layout::SparkV1, 1000, 7298, 0),
                mk(Layout::SparkV1, 2000, 7298, 0),
                Some("num_hashes"),
            ),
            other => panic!("unknown compatibility case {other:?}"),
        };
        let r = a.union(&b, "other.bin");
        assert_eq!(r.is_ok(), c["isCompatible"].as_bool().unwrap(), "{name}");
        if let Some(field) = field {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("other.bin"), "{name}: {e}");
        }
    }
    // Seed is checked before k, as Spark does.
    let mut a = mk(Layout::SparkV2, 1000, 7298, 0);
    let e = a
        .union(&mk(Layout::SparkV2, 2000, 7298, 1), "x")
        .unwrap_err();
    assert!(e.to_string().contains("seed"), "{e}");
}

#[test]
fn bad_versions_and_big_filter_indices() {
    let m = manifest();
    for (case, msg) in m["readFrom_bad_input"].as_object().unwrap() {
        let v: i32 = case.trim_start_matches("version ").parse().unwrap();
        let mut b = v.to_be_bytes().to_vec();
        b.extend_from_slice(&[0; 12]);
        let e = codec::decode(&b, "bad.bin").unwrap_err().to_string();
        assert!(e.starts_with("bad.bin: not a valid filter"), "{msg}: {e}");
    }
    // big_filter_check.json: bitSize 2^32+320, k=30, 7 keys (positions only; the filter itself
    // would need 512 MiB).
    let big: Value = serde_json::from_str(
        &std::fs::read_to_string(dir().join("big_filter_check.json")).unwrap(),
    )
    .unwrap();
    let bit_size = big["num_bits_arg"].as_u64().unwrap();
    let keys: Vec<i64> = big["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    for r in big["results"].as_array().unwrap() {
        assert_eq!(r["bit_size"].as_u64().unwrap(), bit_size);
        let k = r["num_hash_functions"].as_u64().unwrap() as u32;
        assert_eq!(
            spark::optimal_num_of_hash_functions(
                big["expected_num_items"].as_i64().unwrap(),
                bit_size as i64
            ) as u32,
            k
        );
        let mut set = BTreeSet::new();
        for &key in &keys {
            let h = spark::long_pair(key, 0);
            match r["version"].as_i64().unwrap() {
                1 => set.extend(spark::v1_positions(h, k, bit_size)),
                _ => set.extend(spark::v2_positions(h, k, bit_size)),
            }
        }
        assert_eq!(set.len() as u64, r["num_set_bits"].as_u64().unwrap());
        assert_eq!(*set.last().unwrap(), r["max_set_bit"].as_u64().unwrap());
        assert_eq!(
            set.range(1u64 << 31..).count() as u64,
            r["set_bits_above_2^31"].as_u64().unwrap()
        );
    }
}

#[test]
fn spark_sql_runtime_filter_over_xxhash64_is_reproduced() {
    // bloom_filter_agg(xxhash64(k), 1000, 7298) over the string keys: putLong of XXH64(utf8, 42).
    let m = manifest();
    let spec = &m["dataframe_and_expression_api"]
        ["bloom_filter_agg(xxhash64(k), 1000, 7298) over STRING_KEYS"];
    let xx = |s: &str| xxhash_rust::xxh64::xxh64(s.as_bytes(), 42) as i64;
    let keys: Vec<i64> = m["key_sets"]["string"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| xx(v.as_str().unwrap()))
        .collect();
    let params = BloomParams::for_items(Layout::SparkV2, 1000, 0.03, 0).unwrap();
    let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
    f.insert_array(&Int64Array::from(keys)).unwrap();
    assert!(spark::encode(&f).unwrap() == bin(spec["file"].as_str().unwrap()));
    let mc = &m["might_contain_xxhash64_string"];
    let probes: Vec<i64> = m["probe_sets"]["string"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| xx(v.as_str().unwrap()))
        .collect();
    let got: String = f
        .probe_array(&Int64Array::from(probes))
        .unwrap()
        .iter()
        .map(|b| if b { '1' } else { '0' })
        .collect();
    assert_eq!(got, mc["might_contain"].as_str().unwrap());
    // Spark's xxhash64 is XXH64 with seed 42 (the manifest's long values: 8 LE bytes).
    for pair in m["xxhash64_seed42"]["long"].as_array().unwrap() {
        let k = pair[0].as_i64().unwrap();
        let want = pair[1].as_i64().unwrap();
        assert_eq!(
            xxhash_rust::xxh64::xxh64(&k.to_le_bytes(), 42) as i64,
            want,
            "{k}"
        );
    }
}
