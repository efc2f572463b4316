//! Apache Spark's Bloom filter (`org.apache.spark.util.sketch.BloomFilter`), versions 1 and 2:
//! hashing, index math, sizing and the big-endian serialized format, bit-exact with Spark.
//!
//! The layouts [`Layout::SparkV1`] and [`Layout::SparkV2`] use this module. A key's 64-bit
//! "hash" in these layouts packs Spark's two 32-bit Murmur3 hashes: `h1` in the low 32 bits and
//! `h2` in the high 32 bits ([`pack`]). `h1 = murmur3(key, seed)`, `h2 = murmur3(key, h1)`,
//! where an integer key (any width, widened to `i64`) goes through [`hash_long`] (Spark's
//! `putLong`) and a bytes key through [`hash_unsafe_bytes`] (Spark's `putBinary`/`putString` of
//! the UTF-8 bytes). The seed is 0 for V1 and the header's seed for V2.
//!
//! Serialized format (`BloomFilter.writeTo`, all integers big-endian):
//!
//! | version | header | then |
//! |---|---|---|
//! | 1 | `i32 1`, `i32 k`, `i32 numWords` | `numWords` x `i64` |
//! | 2 | `i32 2`, `i32 k`, `i32 seed`, `i32 numWords` | `numWords` x `i64` |
//!
//! Bit `i` of the filter is bit `i & 63` of word `i >> 6`, the same as the native layout's
//! words, so only the byte order of the words differs from the native file.
//!
//! ```
//! use bloomjoin::bloom::spark;
//! // Spark's worked example: the long key 0, seed 0.
//! let h1 = spark::hash_long(0, 0);
//! assert_eq!(h1, 1669671676);
//! assert_eq!(spark::hash_long(0, h1), -879649492);
//! // The non-standard tail: "abcde" differs from standard MurmurHash3_x86_32.
//! assert_eq!(spark::hash_unsafe_bytes(b"abcde", 0), -1811849892);
//! ```

use super::{BloomFilter, BloomParams, Layout};
use crate::error::{Error, Result};
use crate::key::{KeyFamily, KeyHasher};

/// The largest `k` a Spark-layout filter may have. Spark's own sizing can ask for far more
/// (`create(1, 1000000)` gives k = 693,147, which this bound admits); larger values, only
/// possible from a crafted file or absurd sizing, are refused so a probe stays bounded.
pub const SPARK_MAX_HASHES: u32 = 1 << 20;

/// The largest number of 64-bit words Spark can allocate (`Integer.MAX_VALUE`).
pub const SPARK_MAX_WORDS: u64 = i32::MAX as u64;

/// Spark's `DEFAULT_FPP` for `BloomFilter.create(n)`.
pub const SPARK_DEFAULT_FPP: f64 = 0.03;

const C1: u32 = 0xcc9e_2d51;
const C2: u32 = 0x1b87_3593;

#[inline(always)]
fn mix_k1(k: u32) -> u32 {
    k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2)
}

#[inline(always)]
fn mix_h1(h: u32, k: u32) -> u32 {
    (h ^ k)
        .rotate_left(13)
        .wrapping_mul(5)
        .wrapping_add(0xe654_6b64)
}

#[inline(always)]
fn fmix(mut h: u32, len: u32) -> u32 {
    h ^= len;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Spark's `Murmur3_x86_32.hashLong(v, seed)`: standard MurmurHash3_x86_32 of the 8
/// little-endian bytes of `v`.
#[inline]
pub fn hash_long(v: i64, seed: i32) -> i32 {
    let low = v as u64 as u32;
    let high = ((v as u64) >> 32) as u32;
    let h = mix_h1(seed as u32, mix_k1(low));
    let h = mix_h1(h, mix_k1(high));
    fmix(h, 8) as i32
}

/// Spark's `Murmur3_x86_32.hashUnsafeBytes(bytes, seed)`, the variant its Bloom filter uses:
/// 4-byte little-endian blocks as in MurmurHash3_x86_32, but each of the 0-3 trailing bytes is
/// sign-extended and mixed as a block of its own (so it equals the standard hash only when
/// the length is a multiple of 4).
#[inline]
pub fn hash_unsafe_bytes(bytes: &[u8], seed: i32) -> i32 {
    let mut h = seed as u32;
    let blocks = bytes.chunks_exact(4);
    let tail = blocks.remainder();
    for b in blocks {
        h = mix_h1(h, mix_k1(u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    }
    for &b in tail {
        h = mix_h1(h, mix_k1(b as i8 as i32 as u32));
    }
    fmix(h, bytes.len() as u32) as i32
}

/// Pack Spark's two hashes of a key into the 64-bit hash the filter works with: `h1` in the
/// low 32 bits, `h2` in the high 32 bits.
#[inline(always)]
pub fn pack(h1: i32, h2: i32) -> u64 {
    (h1 as u32 as u64) | ((h2 as u32 as u64) << 32)
}

/// The inverse of [`pack`]: `(h1, h2)`.
#[inline(always)]
pub fn unpack(h: u64) -> (i32, i32) {
    (h as u32 as i32, (h >> 32) as u32 as i32)
}

/// The packed hashes of an integer key (`putLong`), with Spark's 32-bit seed.
#[inline]
pub fn long_pair(v: i64, seed: i32) -> u64 {
    let h1 = hash_long(v, seed);
    pack(h1, hash_long(v, h1))
}

/// The packed hashes of a bytes key (`putBinary`, or `putString` of its UTF-8 bytes).
#[inline]
pub fn bytes_pair(v: &[u8], seed: i32) -> u64 {
    let h1 = hash_unsafe_bytes(v, seed);
    pack(h1, hash_unsafe_bytes(v, h1))
}

/// Spark's 32-bit seed for a filter's params: the low 32 bits of `seed`, as two's complement
/// (so Spark's seed -1 is stored as 4294967295). Always 0 for V1.
#[inline]
pub fn spark_seed(params: &BloomParams) -> i32 {
    match params.layout {
        Layout::SparkV2 => params.seed as u32 as i32,
        _ => 0,
    }
}

/// The key hasher of the Spark layouts (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct SparkHasher {
    seed: i32,
}

impl SparkHasher {
    /// The hasher for a filter with these params.
    pub fn new(params: &BloomParams) -> Self {
        SparkHasher {
            seed: spark_seed(params),
        }
    }
}

impl KeyHasher for SparkHasher {
    #[inline(always)]
    fn hash_int(&self, v: i64) -> u64 {
        long_pair(v, self.seed)
    }
    #[inline(always)]
    fn hash_wide(&self, _: u64) -> Option<u64> {
        // Spark's keys are longs: a UInt64 value above i64::MAX is none of them.
        None
    }
    #[inline(always)]
    fn hash_canonical(&self, _: &[u8]) -> Option<u64> {
        // Nor is a fraction or an integer beyond 64 bits.
        None
    }
    #[inline(always)]
    fn hash_bytes(&self, v: &[u8]) -> u64 {
        bytes_pair(v, self.seed)
    }
    #[inline(always)]
    fn hash_timestamp(&self, ns: i128) -> Option<u64> {
        // Spark's TIMESTAMP (and TIMESTAMP_NTZ) is a long of microseconds since the epoch.
        timestamp_micros(ns).map(|us| self.hash_int(us))
    }
}

/// A timestamp (nanoseconds since the epoch) as Spark's long of microseconds; `None` when it
/// has digits below a microsecond or does not fit a long.
#[inline]
pub fn timestamp_micros(ns: i128) -> Option<i64> {
    (ns % 1000 == 0)
        .then(|| i64::try_from(ns / 1000).ok())
        .flatten()
}

/// V1 bit positions (`BloomFilterImpl`): for `i` in `1..=k`, `c = h1 + i*h2` in 32-bit
/// wrapping arithmetic, `c = !c` when negative, position `c % bit_size`.
#[inline]
pub fn v1_positions(h: u64, k: u32, bit_size: u64) -> impl Iterator<Item = u64> {
    let (h1, h2) = unpack(h);
    (1..=k).map(move |i| {
        let c = h1.wrapping_add((i as i32).wrapping_mul(h2));
        let c = if c < 0 { !c } else { c };
        c as u64 % bit_size
    })
}

/// V2 bit positions (`BloomFilterImplV2`): `c = h1 * i32::MAX` in 64-bit arithmetic; `k` times
/// `c += h2`, position `(c < 0 ? !c : c) % bit_size` (the accumulator itself is not flipped).
#[inline]
pub fn v2_positions(h: u64, k: u32, bit_size: u64) -> impl Iterator<Item = u64> {
    let (h1, h2) = unpack(h);
    let mut c = (h1 as i64).wrapping_mul(i32::MAX as i64);
    (0..k).map(move |_| {
        c = c.wrapping_add(h2 as i64);
        let idx = if c < 0 { !c } else { c };
        idx as u64 % bit_size
    })
}

/// Spark's `BloomFilter.optimalNumOfBits(n, p)`:
/// `(long) (-n * ln p / (ln 2 * ln 2))`, truncated toward zero (may be 0).
pub fn optimal_num_of_bits(n: i64, p: f64) -> i64 {
    let ln2 = 2f64.ln();
    ((-(n as f64)) * p.ln() / (ln2 * ln2)) as i64
}

/// Spark's capped `BloomFilter.optimalNumOfBits(n, maxNumItems, maxNumBits)` (used by Spark
/// SQL's runtime filters): `fpp = min(n / (maxNumItems / 0.03), 0.03)`, then
/// `min(optimalNumOfBits(n, fpp), maxNumBits)`.
pub fn optimal_num_of_bits_capped(n: i64, max_num_items: i64, max_num_bits: i64) -> i64 {
    let fpp = (n as f64 / (max_num_items as f64 / SPARK_DEFAULT_FPP)).min(SPARK_DEFAULT_FPP);
    optimal_num_of_bits(n, fpp).min(max_num_bits)
}

/// Spark's `BloomFilter.optimalNumOfHashFunctions(n, m)`:
/// `max(1, (int) Math.round((double) m / n * ln 2))`, with Java's wrapping `(int)` cast.
pub fn optimal_num_of_hash_functions(n: i64, m: i64) -> i32 {
    let x = m as f64 / n as f64 * 2f64.ln();
    // Java's Math.round rounds half up; for x >= 0 that is f64::round. `as i64` saturates
    // like Java's (long) cast; `as i32` wraps like Java's (int) cast of a long.
    let r = x.round() as i64;
    (r as i32).max(1)
}

/// Spark's sizing for `create(n, fpp)` and `create(version, n, numBits, seed)`: returns
/// `(requested numBits, numWords, k)`. Errors (naming `--expected-items`/`--fpp`/`--bits`)
/// where Spark throws.
pub fn size(expected_items: u64, fpp: f64) -> Result<(i64, u64, u32)> {
    if expected_items == 0 || expected_items > i64::MAX as u64 {
        return Err(Error::param(
            "--expected-items",
            format!("{expected_items} is not a positive 64-bit integer"),
        ));
    }
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::param(
            "--fpp",
            format!("{fpp} is not a probability strictly between 0 and 1"),
        ));
    }
    let n = expected_items as i64;
    let bits = optimal_num_of_bits(n, fpp);
    if bits <= 0 {
        return Err(Error::param(
            "--expected-items/--fpp",
            format!(
                "Spark's sizing gives {bits} bits for {n} items at fpp {fpp} (Spark: \"Number of bits must be positive\")"
            ),
        ));
    }
    let words = num_words(bits)?;
    let k = optimal_num_of_hash_functions(n, bits);
    if k < 1 || k as u32 > SPARK_MAX_HASHES {
        return Err(Error::param(
            "--expected-items/--fpp",
            format!("Spark's sizing gives k = {k}, outside 1..={SPARK_MAX_HASHES}"),
        ));
    }
    Ok((bits, words, k as u32))
}

/// Spark's `BitArray.numWords(numBits)`: `ceil(numBits / 64)`, at most `Integer.MAX_VALUE`.
pub fn num_words(num_bits: i64) -> Result<u64> {
    if num_bits <= 0 {
        return Err(Error::param(
            "--bits",
            format!("numBits must be positive, but got {num_bits}"),
        ));
    }
    let words = (num_bits as f64 / 64.0).ceil() as u64;
    if words > SPARK_MAX_WORDS {
        return Err(Error::param(
            "--bits",
            format!(
                "Spark cannot allocate enough space for {num_bits} bits (at most 2^31-1 words)"
            ),
        ));
    }
    Ok(words)
}

/// The Spark format version of a Spark layout (1 or 2).
pub fn version_of(layout: Layout) -> Option<i32> {
    match layout {
        Layout::SparkV1 => Some(1),
        Layout::SparkV2 => Some(2),
        _ => None,
    }
}

/// Serialize a Spark-layout filter exactly as Spark's `BloomFilter.writeTo` does. Errors when
/// the filter's layout is not a Spark layout.
pub fn encode(filter: &BloomFilter) -> Result<Vec<u8>> {
    let p = filter.params();
    let version = version_of(p.layout).ok_or_else(|| {
        Error::param(
            "--format",
            format!(
                "spark needs a spark-v1 or spark-v2 layout, the filter has the {} layout",
                p.layout
            ),
        )
    })?;
    let header = if version == 1 { 12 } else { 16 };
    let mut out = Vec::with_capacity(header + filter.num_words() * 8);
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&(p.num_hashes as i32).to_be_bytes());
    if version == 2 {
        out.extend_from_slice(&spark_seed(p).to_be_bytes());
    }
    out.extend_from_slice(&(filter.num_words() as i32).to_be_bytes());
    for w in filter.words() {
        out.extend_from_slice(&w.to_be_bytes());
    }
    Ok(out)
}

/// The Spark format version a file starts with (its first big-endian `i32`), when it is 1 or 2.
pub fn detect(bytes: &[u8]) -> Option<i32> {
    let v = i32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
    matches!(v, 1 | 2).then_some(v)
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decode a filter in Spark's format. The file records no key family, so the filter's family
/// is [`KeyFamily::Any`]: integer keys probe as Spark's longs and bytes keys as Spark's
/// binary/strings. Every malformed input is an [`Error::Format`] naming `location`.
pub fn decode(bytes: &[u8], location: &str) -> Result<BloomFilter> {
    let bad = |reason: String| Error::format(location, reason);
    if bytes.len() < 4 {
        return Err(bad(format!(
            "truncated: {} bytes, shorter than a Spark Bloom filter header",
            bytes.len()
        )));
    }
    let version = i32_at(bytes, 0);
    let (layout, header) = match version {
        1 => (Layout::SparkV1, 12),
        2 => (Layout::SparkV2, 16),
        v => return Err(bad(format!("unknown Spark Bloom filter version {v}"))),
    };
    if bytes.len() < header {
        return Err(bad(format!(
            "truncated: {} bytes, shorter than the {header}-byte Spark v{version} header",
            bytes.len()
        )));
    }
    let k = i32_at(bytes, 4);
    let seed = if version == 2 { i32_at(bytes, 8) } else { 0 };
    let num_words = i32_at(bytes, header - 4);
    if k < 1 || k as u32 > SPARK_MAX_HASHES {
        return Err(bad(format!(
            "impossible Spark params: k = {k} (expected 1..={SPARK_MAX_HASHES})"
        )));
    }
    if num_words < 1 {
        return Err(bad(format!(
            "impossible Spark params: numWords = {num_words} (must be positive)"
        )));
    }
    let expected = header as u64 + 8 * num_words as u64;
    if (bytes.len() as u64) < expected {
        return Err(bad(format!(
            "truncated: {} bytes, the Spark v{version} header announces {expected}",
            bytes.len()
        )));
    }
    if bytes.len() as u64 > expected {
        return Err(bad(format!(
            "{} unexpected trailing bytes after the Spark v{version} filter ({expected} bytes)",
            bytes.len() as u64 - expected
        )));
    }
    let params = BloomParams {
        layout,
        num_bits: num_words as u64 * 64,
        num_hashes: k as u32,
        seed: seed as u32 as u64,
        legacy_ints: false,
        physical: None,
        spark_keys: super::spark_keys::SparkKeys::Plain,
    };
    params
        .validate()
        .map_err(|e| bad(format!("impossible Spark params: {e}")))?;
    let words = bytes[header..]
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes")));
    BloomFilter::from_words(params, KeyFamily::Any, 0, words)
        .map_err(|e| bad(format!("cannot load: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard MurmurHash3_x86_32 (for contrast with Spark's tail handling).
    fn standard(bytes: &[u8], seed: u32) -> u32 {
        let mut h = seed;
        let blocks = bytes.chunks_exact(4);
        let tail = blocks.remainder();
        for b in blocks {
            h = mix_h1(h, mix_k1(u32::from_le_bytes(b.try_into().unwrap())));
        }
        let mut k1 = 0u32;
        for (i, &b) in tail.iter().enumerate() {
            k1 |= (b as u32) << (8 * i);
        }
        if !tail.is_empty() {
            h ^= mix_k1(k1);
        }
        fmix(h, bytes.len() as u32)
    }

    #[test]
    fn murmur3_spec_examples() {
        // SPEC.md §3.
        assert_eq!(hash_unsafe_bytes(b"abcde", 0), -1811849892);
        assert_eq!(standard(b"abcde", 0) as i32, -392455434);
        assert_eq!(hash_unsafe_bytes(&[0x80], 0), -1220221994);
        assert_eq!(standard(&[0x80], 0) as i32, 267099677);
        assert_eq!(hash_unsafe_bytes(&[0xde, 0xad, 0xbe, 0xef], 0), -13625526);
        assert_eq!(standard(&[0xde, 0xad, 0xbe, 0xef], 0) as i32, -13625526);
        assert_eq!(hash_unsafe_bytes(b"", 0), 0);
        // SPEC.md §9.
        assert_eq!(hash_long(0, 0), 1669671676);
        assert_eq!(hash_long(0, 1669671676), -879649492);
        assert_eq!(hash_unsafe_bytes(b"key-0", 0), -1360379609);
        assert_eq!(hash_unsafe_bytes(b"key-0", -1360379609), 1143425187);
        assert_eq!(hash_long(0, 42), -1670924195);
        assert_eq!(hash_long(0, -1670924195), 1972096366);
    }

    #[test]
    fn hash_long_is_standard_murmur3_of_le_bytes() {
        for v in [0i64, 1, -1, i64::MIN, i64::MAX, 0x0123_4567_89ab_cdef] {
            for seed in [0i32, 42, -7] {
                assert_eq!(
                    hash_long(v, seed) as u32,
                    standard(&v.to_le_bytes(), seed as u32)
                );
            }
        }
    }

    #[test]
    fn pack_round_trips() {
        for (a, b) in [
            (0, 0),
            (-1, 1),
            (i32::MIN, i32::MAX),
            (1669671676, -879649492),
        ] {
            assert_eq!(unpack(pack(a, b)), (a, b));
        }
    }

    #[test]
    fn index_math_spec_examples() {
        // SPEC.md §9: create(V*, 1000, 7298, seed) has bitSize 7360, k = 5.
        let h = long_pair(0, 0);
        assert_eq!(
            v1_positions(h, 5, 7360).collect::<Vec<_>>(),
            [7144, 4587, 1599, 5971, 6872]
        );
        assert_eq!(
            v2_positions(h, 5, 7360).collect::<Vec<_>>(),
            [4080, 7068, 2696, 5684, 1312]
        );
        let h = bytes_pair(b"key-0", 0);
        assert_eq!(
            v1_positions(h, 5, 7360).collect::<Vec<_>>(),
            [3701, 1325, 6352, 5836, 6550]
        );
        assert_eq!(
            v2_positions(h, 5, 7360).collect::<Vec<_>>(),
            [5635, 608, 2941, 5274, 247]
        );
        let h = long_pair(0, 42);
        assert_eq!(
            v2_positions(h, 5, 7360).collect::<Vec<_>>(),
            [1838, 2752, 3666, 4580, 5494]
        );
    }

    #[test]
    fn v1_stays_below_2_pow_31_and_v2_does_not() {
        let bit_size = (1u64 << 32) + 320;
        let mut v2_high = 0;
        for key in [0i64, 1, 42, -7, 1099511627779, i64::MIN, 123456789] {
            let h = long_pair(key, 0);
            assert!(v1_positions(h, 30, bit_size).all(|p| p < 1 << 31));
            v2_high += v2_positions(h, 30, bit_size)
                .filter(|&p| p >= 1 << 31)
                .count();
        }
        // SPEC.md §4 (big_filter_check.json): 104 of V2's 210 bits are at or above 2^31.
        assert_eq!(v2_high, 104);
    }

    #[test]
    fn sizing_spec_examples() {
        assert_eq!(size(1000, 0.03).unwrap(), (7298, 115, 5));
        assert_eq!(size(5000, 0.001).unwrap(), (71887, 1124, 10));
        assert_eq!(size(100, 0.1).unwrap(), (479, 8, 3));
        assert!(size(1, 0.9).unwrap_err().to_string().contains("positive"));
        assert!(size(10_000_000_000, 0.001)
            .unwrap_err()
            .to_string()
            .contains("cannot allocate"));
        // (int) Math.round wraps like Java.
        assert_eq!(optimal_num_of_hash_functions(1, 1_000_000), 693147);
    }

    #[test]
    fn header_bytes_match_spark() {
        let p = BloomParams::for_items(Layout::SparkV2, 1000, 0.03, 0).unwrap();
        let f = BloomFilter::try_new(p, KeyFamily::Integer).unwrap();
        let b = encode(&f).unwrap();
        assert_eq!(b[..16], [0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0x73]);
        assert_eq!(b.len(), 16 + 115 * 8);
        let p = BloomParams::for_items(Layout::SparkV1, 1000, 0.03, 0).unwrap();
        let f = BloomFilter::try_new(p, KeyFamily::Integer).unwrap();
        let b = encode(&f).unwrap();
        assert_eq!(b[..12], [0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 0x73]);
    }

    #[test]
    fn bad_files_are_one_line_format_errors() {
        let p = BloomParams::explicit(Layout::SparkV2, 128, 3, 7).unwrap();
        let mut f = BloomFilter::try_new(p, KeyFamily::Integer).unwrap();
        f.insert_i64(5);
        let good = encode(&f).unwrap();
        for len in 0..good.len() {
            let e = decode(&good[..len], "s.bin").unwrap_err().to_string();
            assert!(e.starts_with("s.bin: not a valid filter: "), "{e}");
        }
        let mut long = good.clone();
        long.push(0);
        assert!(decode(&long, "s")
            .unwrap_err()
            .to_string()
            .contains("trailing"));
        for (at, v, needle) in [
            (0, 3, "version 3"),
            (4, 0, "k = 0"),
            (4, -5, "k = -5"),
            (12, 0, "numWords = 0"),
            (12, -1, "numWords = -1"),
            (12, 1000, "truncated"),
        ] {
            let v: i32 = v;
            let mut b = good.clone();
            b[at..at + 4].copy_from_slice(&v.to_be_bytes());
            let e = decode(&b, "s").unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }
}
