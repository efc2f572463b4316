//! Bloom filters over canonical keys.
//!
//! A filter is defined by [`BloomParams`]: a [`Layout`], the number of bits `m`, the number of
//! hash functions `k` and the hash seed. Every key is hashed once to 64 bits (see
//! [`crate::key`]); the layout derives the `k` bit positions from that hash:
//!
//! - [`Layout::Split`] (the default) has the blocked layout's blocks and block index, and
//!   `k = 8`: bit `(h * SALT[w]) >> 58` of each 64-bit word `w` of the block. Computing the 8
//!   positions is one 8-lane multiply and shift, and an insert or probe one 512-bit OR or test
//!   (AVX-512, with a scalar path that sets the same bits): about twice as fast as blocked,
//!   for about 2 % more bits at 1 %. It folds and sizes like blocked, with its own model of a
//!   block's hit probability (the product of 8 independent word fills).
//! - [`Layout::Blocked`] splits the `m` bits into 512-bit blocks (one cache line).
//!   The block is `(h * num_blocks) >> 64` (128-bit product, so the high bits of `h` choose it);
//!   bit `i` inside the block is the top 9 bits of `h * SALT[i]` (64-bit wrapping product), with
//!   the odd constants [`BLOCK_SALTS`]. One cache miss per key. Sizing uses the blocked model of
//!   Putze, Sanders and Singler: the load of a block is Binomial(n, 1/num_blocks), so the mean
//!   rate is `sum_i P(i) * E[fill(i)^k]`; sizing holds that mean plus 3 standard deviations of
//!   a real key set's rate to the target ([`BloomParams::model_fpp`]), so small filters meet
//!   it too. It needs about 3 % more bits than the classic formula at 1 %. Because the block
//!   index scales the top of the hash, a filter folds to fewer blocks without losing a key
//!   ([`BloomFilter::fold_to`]): how `train --fpp` sizes in one pass.
//! - [`Layout::Classic`] spreads the `k` positions over all `m` bits with 64-bit
//!   Kirsch-Mitzenmacher double hashing: `g_i = h + i * h2` (wrapping), `h2 = fmix64(h) | 1`,
//!   position `(g_i * m) >> 64`. Its false-positive rate is the textbook `(1 - e^(-kn/m))^k`.
//! - [`Layout::SparkV1`] and [`Layout::SparkV2`] are Apache Spark's
//!   `org.apache.spark.util.sketch.BloomFilter` versions 1 (Spark 2.0-4.0) and 2 (Spark 4.1+),
//!   bit for bit: Spark's Murmur3 hashes, index math and sizing (see [`spark`]). Their "hash"
//!   packs Spark's two 32-bit hashes; their filters can also be written in Spark's own format.
//! - [`Layout::Sbbf`] is Parquet's split-block Bloom filter, bit for bit: 256-bit blocks of
//!   eight 32-bit words, k = 8 with the spec's salts, XXH64 (seed 0) of the key's plain
//!   encoding as a value of the filter's [`sbbf::Physical`] type (see [`sbbf`]). Its bits are
//!   those of a column chunk's filter over the same values, so the two merge and compare.
//!
//! | target fpp | classic bits/key | classic k | blocked bits/key | blocked k | split bits/key |
//! |-----------:|-----------------:|----------:|-----------------:|----------:|---------------:|
//! | 10 %       | 4.79             | 3         | ~4.9             | 3         | ~5.9 (8)       |
//! | 1 %        | 9.59             | 7         | ~9.9             | 7         | ~10.1 (8)      |
//! | 0.1 %      | 14.38            | 10        | ~15.3            | 9-10      | ~15.8 (8)      |
//!
//! Filters with equal params and key family merge by bitwise OR ([`BloomFilter::union`]), which
//! is how partial filters from parallel workers become one filter, bit-identical to a filter
//! built by one thread.
//!
//! ```
//! use arrow::array::Int64Array;
//! use bloomjoin::bloom::{BloomFilter, BloomParams, Layout};
//! use bloomjoin::key::KeyFamily;
//!
//! let params = BloomParams::for_items(Layout::Blocked, 1000, 0.01, 42).unwrap();
//! let mut filter = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
//! filter.insert_array(&Int64Array::from(vec![1, 2, 3])).unwrap();
//! assert!(filter.contains_i64(2));
//! ```

pub mod codec;
pub mod sbbf;
pub mod spark;
pub mod spark_keys;

use std::fmt;
use std::str::FromStr;

use arrow::array::Array;
use arrow::buffer::BooleanBuffer;

use crate::error::{Error, Result};
use crate::key::{self, HashedKeys, KeyFamily, KeyHasher};

/// Bits in one block of the blocked layout (a 64-byte cache line).
pub const BLOCK_BITS: u64 = 512;

/// The largest number of hash functions a filter may use.
pub const MAX_HASHES: u32 = 32;

/// The largest filter, in bits (64 GiB); larger requests are refused before allocating.
pub const MAX_BITS: u64 = 1 << 39;

/// Odd 64-bit multipliers that derive the bit positions inside a block: entry `i` is the
/// `i`-th output of SplitMix64 started at 0, with the low bit set.
pub const BLOCK_SALTS: [u64; MAX_HASHES as usize] = block_salts();

const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn block_salts() -> [u64; MAX_HASHES as usize] {
    let mut out = [0u64; MAX_HASHES as usize];
    let mut state = 0u64;
    let mut i = 0;
    while i < out.len() {
        out[i] = splitmix64(&mut state) | 1;
        i += 1;
    }
    out
}

/// MurmurHash3's 64-bit finalizer, used to derive the second hash of the classic layout.
#[inline(always)]
pub fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[inline(always)]
fn fastrange(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// How bit positions are laid out in the filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Layout {
    /// 512-bit cache-line blocks, k bits anywhere in the block; one cache miss per key.
    Blocked,
    /// k positions over all m bits (Kirsch-Mitzenmacher); textbook false-positive rate.
    Classic,
    /// Apache Spark's `BloomFilterImpl` (version 1, Spark 2.0-4.0): Murmur3 `h1`/`h2`, 32-bit
    /// index math, no seed.
    SparkV1,
    /// Apache Spark's `BloomFilterImplV2` (version 2, the default of Spark 4.1+): Murmur3
    /// `h1`/`h2` seeded with a 32-bit seed, 64-bit index math.
    SparkV2,
    /// Parquet's split-block Bloom filter (SBBF): 256-bit blocks, k = 8, XXH64 of the plain
    /// encoding of the recorded physical type ([`BloomParams::physical`]).
    Sbbf,
    /// 512-bit cache-line blocks split into eight 64-bit words, one bit set in each (k = 8):
    /// one cache miss per key, and an insert or probe is one SIMD operation (the default).
    Split,
}

impl Layout {
    /// Every layout, in code order.
    pub const ALL: [Layout; 6] = [
        Layout::Blocked,
        Layout::Classic,
        Layout::SparkV1,
        Layout::SparkV2,
        Layout::Sbbf,
        Layout::Split,
    ];

    /// The layout's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Blocked => "blocked",
            Layout::Classic => "classic",
            Layout::SparkV1 => "spark-v1",
            Layout::SparkV2 => "spark-v2",
            Layout::Sbbf => "sbbf",
            Layout::Split => "split",
        }
    }

    /// The layout's code in the native filter format.
    pub fn code(self) -> u8 {
        match self {
            Layout::Blocked => 1,
            Layout::Classic => 2,
            Layout::SparkV1 => 3,
            Layout::SparkV2 => 4,
            Layout::Sbbf => 5,
            Layout::Split => 6,
        }
    }

    /// The layout for a format code.
    pub fn from_code(code: u8) -> Option<Self> {
        Layout::ALL.into_iter().find(|l| l.code() == code)
    }

    /// `m` must be a multiple of this many bits.
    pub fn bit_unit(self) -> u64 {
        match self {
            Layout::Blocked | Layout::Split => BLOCK_BITS,
            Layout::Classic | Layout::SparkV1 | Layout::SparkV2 => 64,
            Layout::Sbbf => sbbf::SBBF_BLOCK_BITS,
        }
    }

    /// True for the layouts that hash keys with the native hash (XXH3-64 and the seed):
    /// [`Layout::Split`], [`Layout::Blocked`] and [`Layout::Classic`]. The join then shares one
    /// hash per key between the filter and its own stages.
    pub fn hashes_natively(self) -> bool {
        matches!(self, Layout::Blocked | Layout::Classic | Layout::Split)
    }

    /// True for the layouts of 512-bit blocks chosen by the top of the hash
    /// ([`Layout::Split`], [`Layout::Blocked`]): they fold to fewer blocks without losing a
    /// key ([`BloomFilter::fold_to`]), so `train --fpp` sizes them in one pass.
    pub fn folds(self) -> bool {
        matches!(self, Layout::Blocked | Layout::Split)
    }

    /// True for the layouts `train --fpp` sizes in one pass, by folding a filter sized for
    /// every row down to the keys counted: those that [`Self::folds`], and [`Layout::Sbbf`],
    /// whose power-of-two block count halves by OR-ing neighbouring blocks
    /// ([`BloomFilter::fold_sbbf_to`]: its block index is the top bits of the hash too).
    pub fn sizes_by_folding(self) -> bool {
        self.folds() || self == Layout::Sbbf
    }

    /// True for the Spark layouts ([`Layout::SparkV1`], [`Layout::SparkV2`]).
    pub fn is_spark(self) -> bool {
        matches!(self, Layout::SparkV1 | Layout::SparkV2)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| {
                Error::param(
                    "--layout",
                    format!("{s:?} (expected split, blocked, classic, spark-v1, spark-v2 or sbbf)"),
                )
            })
    }
}

/// The parameters that define a filter; two filters merge only when all four are equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BloomParams {
    /// Bit layout.
    pub layout: Layout,
    /// Number of bits `m` (a multiple of [`Layout::bit_unit`]).
    pub num_bits: u64,
    /// Number of hash functions `k`.
    pub num_hashes: u32,
    /// Seed of the key hash. For [`Layout::SparkV2`] the two's-complement bits of Spark's
    /// 32-bit seed (0..=2^32-1; Spark's -1 is 4294967295); always 0 for [`Layout::SparkV1`].
    pub seed: u64,
    /// True for a filter read from native format version 1, which hashed a `UInt64` key of
    /// 2^63 and more as its two's complement `i64` ([`key::Wrapping`]); such a filter keeps
    /// hashing that way, so that it still finds every key it holds, and is written back as
    /// version 1. False for every filter this build creates (integers hash by value).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub legacy_ints: bool,
    /// For [`Layout::Sbbf`]: the Parquet physical type whose plain encoding the filter hashes
    /// (`None` only in params not yet bound to a key column, which no filter has). `None` for
    /// every other layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical: Option<sbbf::Physical>,
    /// What a Spark-layout filter inserts for a key: the key itself, or Spark's
    /// `xxhash64(key)` as a long ([`spark_keys`]). Always plain for the native layouts.
    #[serde(default, skip_serializing_if = "spark_keys::SparkKeys::is_plain")]
    pub spark_keys: spark_keys::SparkKeys,
}

impl BloomParams {
    /// Size a filter for `expected_items` keys at false-positive rate `fpp`, with the layout's
    /// own model. Errors name `--expected-items` or `--fpp`.
    ///
    /// The Spark layouts use Spark's sizing exactly (`BloomFilter.create(n, fpp)`):
    /// `numBits = optimalNumOfBits(n, fpp)`, `k = optimalNumOfHashFunctions(n, numBits)` (from
    /// the requested bits), `m = ceil(numBits / 64) * 64`.
    pub fn for_items(layout: Layout, expected_items: u64, fpp: f64, seed: u64) -> Result<Self> {
        if layout.is_spark() {
            let (_, words, k) = spark::size(expected_items, fpp)?;
            let params = BloomParams {
                layout,
                num_bits: words * 64,
                num_hashes: k,
                seed,
                legacy_ints: false,
                physical: None,
                spark_keys: spark_keys::SparkKeys::Plain,
            };
            params.validate()?;
            return Ok(params);
        }
        if expected_items == 0 {
            return Err(Error::param("--expected-items", "must be at least 1"));
        }
        if layout == Layout::Sbbf {
            let params = BloomParams {
                layout,
                num_bits: sbbf::num_bytes_for(expected_items, fpp)? * 8,
                num_hashes: 8,
                seed,
                legacy_ints: false,
                physical: None,
                spark_keys: spark_keys::SparkKeys::Plain,
            };
            params.validate()?;
            return Ok(params);
        }
        if !(fpp > 0.0 && fpp < 1.0) {
            return Err(Error::param(
                "--fpp",
                format!("{fpp} is not a probability strictly between 0 and 1"),
            ));
        }
        let n = expected_items as f64;
        let ln2 = std::f64::consts::LN_2;
        let classic_bits = (-n * fpp.ln() / (ln2 * ln2)).ceil();
        let (num_bits, num_hashes) = match layout {
            Layout::Classic => {
                let m = round_up(classic_bits.max(64.0), 64.0);
                let k = ((m / n) * ln2).round().clamp(1.0, MAX_HASHES as f64) as u32;
                (m, k)
            }
            Layout::Blocked | Layout::Split => {
                size_blocked(layout, expected_items, fpp, classic_bits)
            }
            Layout::SparkV1 | Layout::SparkV2 | Layout::Sbbf => unreachable!("sized above"),
        };
        if !num_bits.is_finite() || num_bits > MAX_BITS as f64 {
            let limit = MAX_BITS / 8 / (1 << 30);
            let need = if num_bits.is_finite() {
                format!(
                    "{} bits, more than the limit of {limit} GiB",
                    num_bits.ceil()
                )
            } else {
                format!("more bits than the limit of {limit} GiB")
            };
            return Err(Error::param(
                "--expected-items/--fpp",
                format!(
                    "{expected_items} items at fpp {} need {need}",
                    show_fpp(fpp)
                ),
            ));
        }
        let params = BloomParams {
            layout,
            num_bits: num_bits as u64,
            num_hashes,
            seed,
            legacy_ints: false,
            physical: None,
            spark_keys: spark_keys::SparkKeys::Plain,
        };
        params.validate()?;
        Ok(params)
    }

    /// Explicit `m` (rounded up to the layout's unit) and `k`. Errors name `--bits`/`--hashes`.
    /// The SBBF layout takes only what Parquet writers size: `m` a power of two of at least
    /// 256 bits (32 bytes), `k` = 8.
    pub fn explicit(layout: Layout, num_bits: u64, num_hashes: u32, seed: u64) -> Result<Self> {
        if num_bits == 0 {
            return Err(Error::param("--bits", "must be at least 1"));
        }
        if layout == Layout::Sbbf && (!num_bits.is_power_of_two() || num_bits < 256) {
            return Err(Error::param(
                "--bits",
                format!(
                    "{num_bits} is not a power of two of at least 256 (an sbbf filter has a power of two of bytes, 32 B to 128 MiB)"
                ),
            ));
        }
        let unit = layout.bit_unit();
        let num_bits = num_bits
            .checked_next_multiple_of(unit)
            .ok_or_else(|| Error::param("--bits", format!("{num_bits} is too large")))?;
        let params = BloomParams {
            layout,
            num_bits,
            num_hashes,
            seed,
            legacy_ints: false,
            physical: None,
            spark_keys: spark_keys::SparkKeys::Plain,
        };
        params.validate()?;
        Ok(params)
    }

    /// These params bound to the physical type an SBBF-layout filter hashes.
    pub fn with_physical(self, physical: sbbf::Physical) -> Self {
        BloomParams {
            physical: Some(physical),
            ..self
        }
    }

    /// Check the invariants: `m` a positive multiple of the unit and at most [`MAX_BITS`],
    /// `1 <= k <= MAX_HASHES`. Spark layouts: at most 2^31-1 words,
    /// `1 <= k <=` [`spark::SPARK_MAX_HASHES`], a 32-bit seed (V2) or seed 0 (V1).
    pub fn validate(&self) -> Result<()> {
        let unit = self.layout.bit_unit();
        if self.num_bits == 0 || !self.num_bits.is_multiple_of(unit) {
            return Err(Error::param(
                "--bits",
                format!(
                    "{} is not a positive multiple of {unit} (required by the {} layout)",
                    self.num_bits, self.layout
                ),
            ));
        }
        if self.layout == Layout::Sbbf {
            return self.validate_sbbf();
        }
        if self.physical.is_some() {
            return Err(Error::param(
                "--layout",
                format!(
                    "a physical type is recorded only by sbbf filters, not {}",
                    self.layout
                ),
            ));
        }
        if self.num_bits > MAX_BITS {
            return Err(Error::param(
                "--bits",
                format!(
                    "{} bits ({} GiB) exceed the limit of {} GiB",
                    self.num_bits,
                    self.num_bits / 8 / (1 << 30),
                    MAX_BITS / 8 / (1 << 30)
                ),
            ));
        }
        if self.layout == Layout::Split && self.num_hashes != SPLIT_HASHES {
            return Err(Error::param(
                "--hashes",
                format!(
                    "{} is not 8: a split filter sets one bit in each of a block's 8 words",
                    self.num_hashes
                ),
            ));
        }
        let max_hashes = if self.layout.is_spark() {
            spark::SPARK_MAX_HASHES
        } else {
            MAX_HASHES
        };
        if self.num_hashes == 0 || self.num_hashes > max_hashes {
            return Err(Error::param(
                "--hashes",
                format!("{} is not between 1 and {max_hashes}", self.num_hashes),
            ));
        }
        match self.layout {
            Layout::SparkV1 | Layout::SparkV2 if self.num_bits / 64 > spark::SPARK_MAX_WORDS => {
                return Err(Error::param(
                    "--bits",
                    format!(
                        "{} bits exceed Spark's limit of 2^31-1 words of 64 bits",
                        self.num_bits
                    ),
                ))
            }
            Layout::SparkV1 if self.seed != 0 => {
                return Err(Error::param(
                    "--seed",
                    format!(
                        "{} is not 0: spark-v1 filters have no seed (use spark-v2)",
                        self.seed
                    ),
                ))
            }
            _ if !self.spark_keys.is_plain() && !self.layout.is_spark() => {
                return Err(Error::param(
                    "--spark-keys",
                    format!(
                        "xxhash64 needs --layout spark-v1 or spark-v2, not {} (Spark's might_contain probes Spark's filters)",
                        self.layout
                    ),
                ))
            }
            Layout::SparkV2 if self.seed > u32::MAX as u64 => {
                return Err(Error::param(
                    "--seed",
                    format!(
                        "{} does not fit Spark's 32-bit seed (0..=4294967295, two's complement)",
                        self.seed
                    ),
                ))
            }
            _ => {}
        }
        Ok(())
    }

    /// [`BloomParams::validate`] for the SBBF layout: `m` a multiple of 256 bits up to
    /// 128 MiB (the spec's block index takes any block count; the writers' power of two is
    /// checked where a size is chosen), k = 8, seed 0 (XXH64's, fixed by the spec).
    fn validate_sbbf(&self) -> Result<()> {
        if self.num_bits > sbbf::SBBF_MAX_BITS {
            return Err(Error::param(
                "--bits",
                format!(
                    "{} bits exceed the 128 MiB that a Parquet SBBF may have",
                    self.num_bits
                ),
            ));
        }
        if self.num_hashes != 8 {
            return Err(Error::param(
                "--hashes",
                format!(
                    "{} is not 8: an sbbf filter sets one bit in each of a block's 8 words",
                    self.num_hashes
                ),
            ));
        }
        if self.seed != 0 {
            return Err(Error::param(
                "--seed",
                format!(
                    "{} is not 0: an sbbf filter hashes with XXH64 and seed 0, as the Parquet spec fixes",
                    self.seed
                ),
            ));
        }
        if self.legacy_ints {
            return Err(Error::param(
                "--layout",
                "an sbbf filter has no version-1 integer form",
            ));
        }
        Ok(())
    }

    /// Size of the bit array in bytes.
    pub fn num_bytes(&self) -> u64 {
        self.num_bits / 8
    }

    /// The false-positive rate the layout's model predicts after `n` distinct keys (its
    /// mean over key sets).
    pub fn expected_fpp(&self, n: u64) -> f64 {
        let (n, m, k) = (n as f64, self.num_bits as f64, self.num_hashes as f64);
        match self.layout {
            Layout::Classic | Layout::SparkV1 | Layout::SparkV2 => classic_fpp(n, m, k),
            // The parquet crate's (and Arrow C++'s) sizing model.
            Layout::Sbbf => classic_fpp(n, m, 8.0),
            Layout::Blocked | Layout::Split => {
                blocked_fpp_moments(self.layout, n, m / BLOCK_BITS as f64, k).0
            }
        }
    }

    /// The false-positive rate that sizing holds to the target after `n` distinct keys: for
    /// the blocked layout the mean plus [`BLOCKED_SIGMAS`] standard deviations of the rate a
    /// real key set gets (the spread of keys over few blocks matters at small `m`); for the
    /// other layouts [`BloomParams::expected_fpp`]. `for_items(layout, n, p)` gives the
    /// smallest filter with `model_fpp(n) <= p`.
    pub fn model_fpp(&self, n: u64) -> f64 {
        match self.layout {
            Layout::Blocked | Layout::Split => blocked_fpp_bound(
                self.layout,
                n as f64,
                (self.num_bits / BLOCK_BITS) as f64,
                self.num_hashes as f64,
            ),
            _ => self.expected_fpp(n),
        }
    }

    /// The hash of one integer key in a filter with these params.
    #[inline]
    pub fn hash_i64(&self, v: i64) -> u64 {
        if let Some(h) = self.sbbf_hasher() {
            return h.hash_int(v);
        }
        if let spark_keys::SparkKeys::Xxhash64(ty) = self.spark_keys {
            let seed = spark_keys::XXHASH64_SEED;
            let l = ty
                .hash_number(arrow::datatypes::i256::from_i128(v as i128), 0, seed)
                .unwrap_or_else(|| spark_keys::fallback(&v.to_le_bytes(), seed));
            return spark::SparkHasher::new(self).hash_int(l as i64);
        }
        if self.layout.is_spark() {
            spark::SparkHasher::new(self).hash_int(v)
        } else {
            key::hash_i64(v, self.seed)
        }
    }

    /// The hash of one `UInt64` key by value in a filter with these params; `None` when the
    /// filter cannot hold it (a Spark layout, whose keys are longs, and a value above
    /// `i64::MAX`).
    pub fn hash_u64(&self, v: u64) -> Option<u64> {
        if let Ok(s) = i64::try_from(v) {
            return Some(self.hash_i64(s));
        }
        if let Some(h) = self.sbbf_hasher() {
            return h.hash_wide(v);
        }
        if let spark_keys::SparkKeys::Xxhash64(ty) = self.spark_keys {
            let seed = spark_keys::XXHASH64_SEED;
            let l = ty
                .hash_number(arrow::datatypes::i256::from_i128(v as i128), 0, seed)
                .unwrap_or_else(|| spark_keys::fallback(&(v as u128).to_le_bytes(), seed));
            return Some(spark::SparkHasher::new(self).hash_int(l as i64));
        }
        match (self.layout.is_spark(), self.legacy_ints) {
            (_, true) => Some(self.hash_i64(v as i64)),
            (true, false) => None,
            (false, false) => Some(key::hash_wide(v, self.seed)),
        }
    }

    /// The hash of one bytes key in a filter with these params.
    #[inline]
    pub fn hash_bytes(&self, v: &[u8]) -> u64 {
        if let Some(h) = self.sbbf_hasher() {
            return h.hash_bytes(v);
        }
        if let spark_keys::SparkKeys::Xxhash64(ty) = self.spark_keys {
            let seed = spark_keys::XXHASH64_SEED;
            let l = ty
                .hash_bytes(v, seed)
                .unwrap_or_else(|| spark_keys::fallback(v, seed));
            return spark::SparkHasher::new(self).hash_int(l as i64);
        }
        if self.layout.is_spark() {
            spark::SparkHasher::new(self).hash_bytes(v)
        } else {
            key::hash_bytes(v, self.seed)
        }
    }
}

impl BloomParams {
    /// The SBBF layout's key hasher (`None` for the other layouts). Params of a filter always
    /// record the physical type; unbound params hash as INT64.
    pub fn sbbf_hasher(&self) -> Option<sbbf::SbbfHasher> {
        (self.layout == Layout::Sbbf)
            .then(|| sbbf::SbbfHasher(self.physical.unwrap_or(sbbf::Physical::Int64)))
    }
}

fn round_up(x: f64, unit: f64) -> f64 {
    (x / unit).ceil() * unit
}

fn classic_fpp(n: f64, m: f64, k: f64) -> f64 {
    (1.0 - (-k * n / m).exp()).powf(k)
}

/// How many standard deviations of a blocked filter's realized false-positive rate the sizing
/// keeps below the target (see `blocked_fpp_bound`).
pub const BLOCKED_SIGMAS: f64 = 3.0;

/// `ln(x!)` for `x >= 0`: exact sums below 32, Stirling's series above (error below 1e-12).
fn ln_factorial(x: f64) -> f64 {
    if x < 32.0 {
        return (2..=x as u64).map(|i| (i as f64).ln()).sum();
    }
    let ln_2pi = (2.0 * std::f64::consts::PI).ln();
    x * x.ln() - x + 0.5 * (ln_2pi + x.ln()) + 1.0 / (12.0 * x) - 1.0 / (360.0 * x * x * x)
}

/// The number of hash functions of the split layout: one bit in each 64-bit word of a block.
pub const SPLIT_HASHES: u32 = 8;

/// Mean and variance of the fill (fraction of bits set) after `t` balls thrown uniformly into
/// `bins` bins: the occupancy law's empty bins.
fn fill_moments(t: f64, bins: f64) -> (f64, f64) {
    let empty = bins * (1.0 - 1.0 / bins).powf(t);
    let var_empty =
        (bins * (bins - 1.0) * (1.0 - 2.0 / bins).powf(t) + empty - empty * empty).max(0.0);
    (1.0 - empty / bins, var_empty / (bins * bins))
}

/// Mean and variance of the probability that a key absent from a block finds all its bits set
/// there, when the block holds `i` keys.
///
/// - [`Layout::Blocked`]: `E[f^k]` and `Var[f^k]`, `f` the fill after `t = i k` positions thrown
///   into 512 bits; the fill's own variance enters by the delta method.
/// - [`Layout::Split`]: each of the 8 words holds one bit per key, thrown independently into
///   its 64 bits, so the hit probability is the product of 8 independent word fills `f_w`
///   after `i` balls: mean `E[f]^8`, second moment `E[f^2]^8`.
fn block_hit_moments(layout: Layout, i: f64, k: f64) -> (f64, f64) {
    if i == 0.0 {
        return (0.0, 0.0);
    }
    if layout == Layout::Split {
        let (p, v) = fill_moments(i, 64.0);
        let words = SPLIT_HASHES as i32;
        let e1 = p.powi(words);
        let e2 = (p * p + v).powi(words);
        return (e1, (e2 - e1 * e1).max(0.0));
    }
    let (p, v) = fill_moments(i * k, BLOCK_BITS as f64);
    // E[f^j] ~ p^j + C(j,2) p^(j-2) Var[f]
    let moment = |j: f64| p.powf(j) + j * (j - 1.0) / 2.0 * p.powf(j - 2.0) * v;
    let e1 = moment(k);
    let e2 = moment(2.0 * k);
    (e1, (e2 - e1 * e1).max(0.0))
}

/// Mean and standard deviation of the realized false-positive rate of a filter of the blocked
/// or split `layout` with `num_blocks` blocks and `k` hashes after `n` distinct keys (Putze,
/// Sanders, Singler, with the exact binomial law of a block's load instead of the Poisson
/// limit). The realized rate is the mean over blocks of the hit probability
/// ([`block_hit_moments`]); its variance is `Var[hit of one block] / B` less the part
/// explained linearly by the block's load, which cancels because the loads sum to `n`.
fn blocked_fpp_moments(layout: Layout, n: f64, num_blocks: f64, k: f64) -> (f64, f64) {
    let mean_load = n / num_blocks;
    if mean_load > 4096.0 {
        // Far beyond any useful load; the load's spread no longer matters here.
        let fpp = match layout {
            Layout::Split => (1.0 - (-mean_load / 64.0).exp()).powi(SPLIT_HASHES as i32),
            _ => classic_fpp(n, num_blocks * BLOCK_BITS as f64, k),
        };
        return (fpp, 0.0);
    }
    if num_blocks <= 1.0 {
        let (e, v) = block_hit_moments(layout, n, k);
        return (e, v.sqrt());
    }
    // Load of one block: Binomial(n, 1/B), summed over mean +- 12 sd (+ 30).
    let p = 1.0 / num_blocks;
    let sd = (n * p * (1.0 - p)).sqrt();
    let lo = (mean_load - 12.0 * sd - 30.0).floor().max(0.0);
    let hi = (mean_load + 12.0 * sd + 30.0).ceil().min(n);
    let (ln_p, ln_q) = (p.ln(), (-p).ln_1p());
    let ln_n_fact = ln_factorial(n);
    let mut ln_pmf =
        ln_n_fact - ln_factorial(lo) - ln_factorial(n - lo) + lo * ln_p + (n - lo) * ln_q;
    let (mut e1, mut e2, mut e_load) = (0.0, 0.0, 0.0);
    let mut i = lo;
    while i <= hi {
        let w = ln_pmf.exp();
        let (m, v) = block_hit_moments(layout, i, k);
        e1 += w * m;
        e2 += w * (v + m * m);
        e_load += w * i * m;
        ln_pmf += (n - i).ln() - (i + 1.0).ln() + ln_p - ln_q;
        i += 1.0;
    }
    // The loads of the blocks sum to n, so the part of a block's rate that is linear in its
    // load averages out over the blocks: remove it (its covariance with the load, squared,
    // over the load's variance) from the variance of the mean.
    let var_load = n * p * (1.0 - p);
    let cov = e_load - mean_load * e1;
    let linear = if var_load > 0.0 {
        cov * cov / var_load
    } else {
        0.0
    };
    let var_block = (e2 - e1 * e1 - linear).max(0.0);
    (e1, (var_block / num_blocks).sqrt())
}

/// What blocked sizing holds to the target: the mean realized false-positive rate plus
/// [`BLOCKED_SIGMAS`] standard deviations. At small `m` a few blocks decide the rate, and a
/// filter sized by the mean alone misses the target for one key set in several (299 keys at
/// 1 % in 6 blocks: model 0.94 %, one real key set 1.23 %); at large `m` the margin vanishes
/// (under 1 % more bits from 10^5 keys on).
fn blocked_fpp_bound(layout: Layout, n: f64, num_blocks: f64, k: f64) -> f64 {
    let (mean, sd) = blocked_fpp_moments(layout, n, num_blocks, k);
    mean + BLOCKED_SIGMAS * sd
}

/// Smallest filter of the blocked or split `layout` (and its k) whose [`blocked_fpp_bound`]
/// meets `fpp` for `n` keys.
fn size_blocked(layout: Layout, n: u64, fpp: f64, classic_bits: f64) -> (f64, u32) {
    let mut best: Option<(u64, u32)> = None;
    let ks = match layout {
        Layout::Split => SPLIT_HASHES..=SPLIT_HASHES,
        _ => 1..=MAX_HASHES,
    };
    for k in ks {
        let kf = k as f64;
        // Find an upper bound, then binary search the block count below it.
        let mut hi = ((classic_bits / BLOCK_BITS as f64).ceil() as u64).max(1);
        let mut tries = 0;
        while blocked_fpp_bound(layout, n as f64, hi as f64, kf) > fpp {
            hi = hi.saturating_mul(2);
            tries += 1;
            if tries > 8 {
                break;
            }
        }
        if blocked_fpp_bound(layout, n as f64, hi as f64, kf) > fpp {
            continue;
        }
        let hi = blocks_for(layout, n, k, fpp, hi);
        if best.is_none_or(|(b, _)| hi < b) {
            best = Some((hi, k));
        }
    }
    match best {
        Some((blocks, k)) => (blocks as f64 * BLOCK_BITS as f64, k),
        None => (f64::INFINITY, 1),
    }
}

/// Smallest block count of a blocked or split `layout` filter whose `blocked_fpp_bound`
/// meets `fpp` for `n` keys with `k` hashes, searched up to `max_blocks` (returned when even
/// that misses).
pub fn blocks_for(layout: Layout, n: u64, k: u32, fpp: f64, max_blocks: u64) -> u64 {
    let (n, kf) = (n as f64, k as f64);
    let (mut lo, mut hi) = (1u64, max_blocks.max(1));
    if blocked_fpp_bound(layout, n, hi as f64, kf) > fpp {
        return hi;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if blocked_fpp_bound(layout, n, mid as f64, kf) <= fpp {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// A false-positive rate for a message: as given when it reads well, else in scientific
/// notation (`1e-20`, not twenty zeros).
pub(crate) fn show_fpp(fpp: f64) -> String {
    if fpp >= 1e-4 {
        fpp.to_string()
    } else {
        format!("{fpp:e}")
    }
}

/// The `k` of a blocked or split `layout` for training sized by folding at `fpp`: for split
/// always 8; for blocked the `k` of the smallest filter for 10^6 keys. It depends on `fpp`
/// alone, so shards and runs over different inputs agree on it and their filters merge.
pub fn fold_hashes(layout: Layout, fpp: f64) -> Result<u32> {
    BloomParams::for_items(Layout::Blocked, 1, fpp, 0)?;
    if layout == Layout::Split {
        return Ok(SPLIT_HASHES);
    }
    // The same as `for_items(Blocked, 10^6, fpp).num_hashes`, searched only near the classic
    // optimum log2(1/fpp) (the blocked optimum lies a little below it; a test checks).
    let classic = (-fpp.log2()).round() as u32;
    // Capped at MAX_HASHES both ends: a tiny fpp (1e-15) put the whole range above it.
    let top = (classic + 2).min(MAX_HASHES);
    let ks = classic.saturating_sub(classic / 4 + 2).clamp(1, top)..=top;
    let max_blocks = MAX_BITS / BLOCK_BITS;
    let best = ks
        .map(|k| (blocks_for(layout, 1_000_000, k, fpp, max_blocks), k))
        .min()
        .expect("at least one k");
    Ok(best.1)
}

/// Keys a block of a filter folded from `from` to `to` blocks holds on average, relative to
/// `n / to`: an old block that straddles a boundary of the new blocks is ORed into both, which
/// adds `(to - gcd(from, to)) / from` (nothing when `to` divides `from`).
fn fold_load_factor(from: u64, to: u64) -> f64 {
    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    1.0 + (to - gcd(from, to)) as f64 / from as f64
}

/// The model FPP of a filter of the blocked or split `layout` of `from` blocks holding `n`
/// keys, folded to `to` blocks.
pub fn fold_model_fpp(layout: Layout, n: u64, k: u32, from: u64, to: u64) -> f64 {
    blocked_fpp_bound(
        layout,
        n as f64 * fold_load_factor(from, to),
        to as f64,
        k as f64,
    )
}

/// The smallest block count `to <= from` to fold a blocked or split `layout` filter of `from`
/// blocks holding `n` distinct keys (with `k` hashes) to, such that [`fold_model_fpp`] meets
/// `fpp`: a divisor of `from` (an exact fold) or, when smaller, any count (straddling blocks
/// ORed into both neighbours). `from` when nothing smaller meets it.
pub fn fold_target(layout: Layout, n: u64, k: u32, fpp: f64, from: u64) -> u64 {
    let need = blocks_for(layout, n, k, fpp, from);
    if need >= from {
        return from;
    }
    let divisor = (need..=from)
        .find(|d| from.is_multiple_of(*d))
        .unwrap_or(from);
    // The straddling fold's model is (nearly) monotone in `to`: binary search it, then check.
    let (mut lo, mut hi) = (need, divisor);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fold_model_fpp(layout, n, k, from, mid) <= fpp {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if hi < divisor && fold_model_fpp(layout, n, k, from, hi) <= fpp {
        hi
    } else {
        divisor
    }
}

/// A starting block count for training sized by folding: at least `need` blocks, rounded up to
/// a multiple of a highly composite number, so that many sizes below it are exact divisors:
/// at most 1/8 more below 1000 blocks (64 KiB), at most 2 % more above (the filter is kept
/// unfolded when the keys are nearly all distinct).
pub fn fold_start_blocks(need: u64) -> u64 {
    const COMPOSITE: [u64; 14] = [
        720_720, 55_440, 27_720, 5_040, 2_520, 840, 360, 240, 120, 60, 24, 12, 6, 2,
    ];
    let slack = if need < 1000 { 8 } else { 50 };
    let unit = COMPOSITE
        .into_iter()
        .find(|c| c * slack <= need)
        .unwrap_or(1);
    need.max(1).next_multiple_of(unit)
}

/// Hash every slot of a key array as a filter with `params` does (into `out`, cleared
/// first); returns the key family. Every layout's key hashing goes through here.
///
/// Native layouts hash with XXH3-64 and the seed; Spark layouts compute Spark's `h1`/`h2`
/// (see [`spark`]) and pack them into the u64.
pub fn hash_into(params: &BloomParams, array: &dyn Array, out: &mut Vec<u64>) -> Result<KeyFamily> {
    if let Some(h) = params.sbbf_hasher() {
        return key::hash_array_with(array, &h, out);
    }
    if params.layout.is_spark() && KeyFamily::of(array.data_type()) == Some(KeyFamily::Time) {
        return Err(spark_keys::spark_time());
    }
    let spark = spark::SparkHasher::new(params);
    if let spark_keys::SparkKeys::Xxhash64(ty) = params.spark_keys {
        // Spark's xxhash64 of the key as the filter's Spark type, inserted as a long.
        let family = KeyFamily::of(array.data_type()).ok_or_else(|| {
            Error::Usage(format!(
                "type {} cannot be a key (integers, decimals, dates, times, timestamps, strings and binary can)",
                array.data_type()
            ))
        })?;
        let mut seeds = vec![spark_keys::XXHASH64_SEED; array.len()];
        spark_keys::xxhash64_column(array, ty, &mut seeds)?;
        out.clear();
        out.extend(seeds.iter().map(|&l| spark.hash_int(l as i64)));
        return Ok(family);
    }
    if params.spark_keys == spark_keys::SparkKeys::Xxhash64Tuple {
        return Err(Error::Usage(
            "the filter holds xxhash64 of composite keys: give one key column per recorded column"
                .into(),
        ));
    }
    let native = key::Xxh3(params.seed);
    match (params.layout.is_spark(), params.legacy_ints) {
        (true, false) => key::hash_array_with(array, &spark, out),
        (true, true) => key::hash_array_with(array, &key::Wrapping(spark), out),
        (false, false) => key::hash_array_with(array, &native, out),
        (false, true) => key::hash_array_with(array, &key::Wrapping(native), out),
    }
}

/// Hash the rows of a composite key (two or more columns) as a filter with `params` does
/// (into `out`, replaced): the native tuple hash ([`key::hash_tuple_into`]), or for a Spark
/// layout in [`spark_keys::SparkKeys::Xxhash64Tuple`] mode Spark's `xxhash64(c1, c2, ...)`
/// of the columns as `spark_types`, inserted as a long. Null rows (in any column) hold an
/// unspecified hash.
pub fn hash_tuple_into(
    params: &BloomParams,
    spark_types: &[spark_keys::SparkType],
    columns: &[&dyn Array],
    out: &mut Vec<u64>,
) -> Result<()> {
    if !params.layout.is_spark() {
        key::hash_tuple_into(columns, params.seed, out)?;
        return Ok(());
    }
    if params.spark_keys != spark_keys::SparkKeys::Xxhash64Tuple
        || spark_types.len() != columns.len()
    {
        return Err(Error::Usage(format!(
            "a composite key of {} columns cannot probe this {} filter: Spark's layouts hold one long or string per key, or xxhash64 of a composite key of the columns they record",
            columns.len(),
            params.layout
        )));
    }
    spark_keys::xxhash64_columns(columns, spark_types, out)?;
    let spark = spark::SparkHasher::new(params);
    for h in out.iter_mut() {
        *h = spark.hash_int(*h as i64);
    }
    Ok(())
}

/// One 512-bit block, aligned to a cache line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
struct Block([u64; 8]);

/// A Bloom filter: params, key family, an inserted-keys count and the bits.
#[derive(PartialEq, Eq)]
pub struct BloomFilter {
    params: BloomParams,
    family: KeyFamily,
    inserted: u64,
    /// The Spark type of each column of a composite key in Spark's `xxhash64` mode
    /// ([`spark_keys::SparkKeys::Xxhash64Tuple`]); empty otherwise.
    spark_types: Vec<spark_keys::SparkType>,
    /// `num_bits / 64` words, stored in cache-line blocks (the last block may be partly
    /// unused in the classic layout; unused words stay zero).
    blocks: Vec<Block>,
}

impl Clone for BloomFilter {
    /// A copy whose bits are allocated like a new filter's (with the huge-page advice).
    fn clone(&self) -> Self {
        let mut blocks = alloc_blocks(self.blocks.len()).expect("allocation failed");
        blocks.copy_from_slice(&self.blocks);
        BloomFilter {
            params: self.params,
            family: self.family,
            inserted: self.inserted,
            spark_types: self.spark_types.clone(),
            blocks,
        }
    }
}

impl fmt::Debug for BloomFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BloomFilter")
            .field("params", &self.params)
            .field("family", &self.family)
            .field("inserted", &self.inserted)
            .field("spark_types", &self.spark_types)
            .finish_non_exhaustive()
    }
}

/// What one batch insert did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InsertStats {
    /// Non-null keys inserted.
    pub inserted: u64,
    /// Null slots skipped.
    pub nulls: u64,
}

/// Blocks per chunk of [`BloomFilter::union_all`]'s parallel OR (256 KiB).
const UNION_CHUNK_BLOCKS: usize = 4096;

/// Keys ahead of the current one whose cache lines the other layouts (sbbf, classic, Spark's)
/// prefetch. On the project machine (docs/BENCHMARKS.md "Prefetch distance on the EPYC"), 64
/// against 16 trains an sbbf filter of 7.5 M keys with 15 % less CPU (11 % at 128 MB); classic
/// and Spark's layouts, which prefetch only the first of a key's k lines (the others miss
/// anyway), neither gain nor lose.
const PREFETCH_DISTANCE: usize = 64;

/// Keys ahead of the current one whose block the blocked kernels prefetch: enough cache misses
/// in flight to hide the latency of memory, not just of the last-level cache. Swept on the
/// project machine (docs/BENCHMARKS.md "Prefetch distance on the EPYC"): 128 probes a 1 GiB
/// filter at 274 M keys/s against 150 M/s at 32, and trains 120 MB filters with 12-22 % less
/// CPU; a job's 9.5 MB partials, which share the cache with two workers' decoding, train with
/// 6-16 % less CPU. Only an insert into a filter that has the last-level cache to itself (the
/// kernel benchmark's 12 MiB) is faster at 32; filters in L2 do not care.
const PREFETCH_AHEAD: usize = 128;

#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Call `f(i, hashes[i], block_index)` for every key of a blocked filter with `num_blocks`
/// blocks at `base`, prefetching the block of key `i + PREFETCH_AHEAD` first.
#[inline(always)]
fn for_each_block(
    num_blocks: u64,
    base: *const Block,
    hashes: &[u64],
    mut f: impl FnMut(usize, u64, usize),
) {
    let block = |h: u64| fastrange(h, num_blocks) as usize;
    for &h in hashes.iter().take(PREFETCH_AHEAD) {
        prefetch(base.wrapping_add(block(h)));
    }
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + PREFETCH_AHEAD) {
            prefetch(base.wrapping_add(block(ahead)));
        }
        f(i, h, block(h));
    }
}

/// The blocked probe over a batch: `hit(h, block)` per key, packed into 64-key words.
#[inline(always)]
fn probe_words(
    blocks: &[Block],
    hashes: &[u64],
    hit: impl Fn(u64, &Block) -> bool,
) -> BooleanBuffer {
    let mut words: Vec<u64> = Vec::with_capacity(hashes.len().div_ceil(64));
    let mut word = 0u64;
    for_each_block(blocks.len() as u64, blocks.as_ptr(), hashes, |i, h, b| {
        word |= (hit(h, &blocks[b]) as u64) << (i & 63);
        if i & 63 == 63 {
            words.push(word);
            word = 0;
        }
    });
    if !hashes.len().is_multiple_of(64) {
        words.push(word);
    }
    BooleanBuffer::new(arrow::buffer::Buffer::from_vec(words), 0, hashes.len())
}

/// Set the split layout's bits of `h` in `block` (scalar).
#[inline(always)]
fn split_set(block: &mut Block, h: u64) {
    for (w, m) in block.0.iter_mut().zip(split_mask(h)) {
        *w |= m;
    }
}

/// Whether every bit of the split layout's mask of `h` is set in `block` (scalar).
#[inline(always)]
fn split_has(block: &Block, h: u64) -> bool {
    let mut missing = 0u64;
    for (w, m) in block.0.iter().zip(split_mask(h)) {
        missing |= m & !*w;
    }
    missing == 0
}

/// Whether every bit of the blocked layout's `salts` for `h` is set in `block` (scalar).
#[inline(always)]
fn block_has(block: &Block, salts: &[u64], h: u64) -> bool {
    let mut missing = 0u64;
    for salt in salts {
        let p = (h.wrapping_mul(*salt) >> 55) as usize;
        missing |= !block.0[p >> 6] >> (p & 63);
    }
    missing & 1 == 0
}

/// The blocked probe with AVX-512: the (up to 8) bit positions of a key are computed in one
/// 8-lane multiply, the block is one 512-bit load, and a permute brings each position's word
/// to its lane. Same answers as [`block_has`] (a test compares them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn probe_blocked_avx512(blocks: &[Block], num_hashes: u32, hashes: &[u64]) -> BooleanBuffer {
    use std::arch::x86_64::*;
    // SAFETY: BLOCK_SALTS has 32 entries; the load reads the first 8 (unaligned load).
    let salts = unsafe { _mm512_loadu_si512(BLOCK_SALTS.as_ptr().cast()) };
    let lanes: __mmask8 = ((1u32 << num_hashes) - 1) as u8;
    let low6 = _mm512_set1_epi64(63);
    let one = _mm512_set1_epi64(1);
    probe_words(blocks, hashes, |h, block| {
        let pos = _mm512_srli_epi64::<55>(_mm512_mullo_epi64(_mm512_set1_epi64(h as i64), salts));
        let word_of = _mm512_srli_epi64::<6>(pos);
        let bit = _mm512_sllv_epi64(one, _mm512_and_si512(pos, low6));
        // SAFETY: `block` is a 64-byte aligned reference to 64 bytes.
        let words = unsafe { _mm512_load_si512((block as *const Block).cast()) };
        let words = _mm512_permutexvar_epi64(word_of, words);
        _mm512_mask_test_epi64_mask(lanes, words, bit) == lanes
    })
}

/// The split layout's 8-word mask of `h`: bit `(h * BLOCK_SALTS[w]) >> 58` of word `w`.
#[inline(always)]
fn split_mask(h: u64) -> [u64; 8] {
    std::array::from_fn(|w| 1u64 << (h.wrapping_mul(BLOCK_SALTS[w]) >> 58))
}

/// The split layout's mask of `h` in one AVX-512 register: one 8-lane multiply, a shift, and
/// a variable shift of 1. The same bits as [`split_mask`] (a test compares them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn split_mask_avx512(
    h: u64,
    salts: std::arch::x86_64::__m512i,
    one: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let pos = _mm512_srli_epi64::<58>(_mm512_mullo_epi64(_mm512_set1_epi64(h as i64), salts));
    _mm512_sllv_epi64(one, pos)
}

/// The split insert with AVX-512: per key, the mask in a register ORed into its block with
/// one 512-bit load and store, prefetching [`PREFETCH_AHEAD`] keys ahead.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn insert_split_avx512(blocks: &mut [Block], hashes: &[u64]) {
    use std::arch::x86_64::*;
    // SAFETY: BLOCK_SALTS has 32 entries; the load reads the first 8 (unaligned load).
    let salts = unsafe { _mm512_loadu_si512(BLOCK_SALTS.as_ptr().cast()) };
    let one = _mm512_set1_epi64(1);
    let (nb, base) = (blocks.len() as u64, blocks.as_mut_ptr());
    for_each_block(nb, base.cast_const(), hashes, |_, h, b| {
        // SAFETY: `b < nb` (fastrange of a u64 into nb), so `base + b` is an aligned block of
        // `blocks`, which this function borrows mutably.
        unsafe {
            let p = base.add(b).cast::<__m512i>();
            let bits = split_mask_avx512(h, salts, one);
            _mm512_store_si512(p, _mm512_or_si512(_mm512_load_si512(p), bits));
        }
    });
}

/// The split probe with AVX-512: a key is present when its mask has no bit outside its block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn probe_split_avx512(blocks: &[Block], hashes: &[u64]) -> BooleanBuffer {
    use std::arch::x86_64::*;
    // SAFETY: BLOCK_SALTS has 32 entries; the load reads the first 8 (unaligned load).
    let salts = unsafe { _mm512_loadu_si512(BLOCK_SALTS.as_ptr().cast()) };
    let one = _mm512_set1_epi64(1);
    probe_words(blocks, hashes, |h, block| {
        let bits = split_mask_avx512(h, salts, one);
        // SAFETY: `block` is a 64-byte aligned reference to 64 bytes.
        let words = unsafe { _mm512_load_si512((block as *const Block).cast()) };
        _mm512_test_epi64_mask(_mm512_andnot_si512(words, bits), bits) == 0
    })
}

/// Whether the AVX-512 blocked probe can run here (k <= 8 and the CPU has AVX-512 F and DQ).
fn use_avx512(num_hashes: u32) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        num_hashes <= 8
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = num_hashes;
        false
    }
}

/// Call `f` with the bits set in each of every block's 8 words, in block order, counted with
/// the CPU's popcount instruction where it has one (a build for baseline x86-64 would
/// otherwise count bits with a dozen shifts and masks a word: a 10 MB filter's fill ratio,
/// estimated FPP and distinct count took 4 ms instead of 1).
#[inline(always)]
fn for_each_block_ones(blocks: &[Block], f: &mut impl FnMut([u32; 8])) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        #[target_feature(enable = "popcnt")]
        unsafe fn with_popcnt(blocks: &[Block], f: &mut impl FnMut([u32; 8])) {
            for b in blocks {
                f(b.0.map(u64::count_ones));
            }
        }
        // SAFETY: the CPU has POPCNT (checked above).
        return unsafe { with_popcnt(blocks, f) };
    }
    for b in blocks {
        f(b.0.map(u64::count_ones));
    }
}

/// Allocate `n` zeroed blocks, asking the kernel for transparent huge pages when the filter
/// spans several of them: with 4 KiB pages every probe of a large filter is also a TLB miss.
fn alloc_blocks(n: usize) -> Option<Vec<Block>> {
    let mut blocks: Vec<Block> = Vec::new();
    blocks.try_reserve_exact(n).ok()?;
    advise_huge_pages(&blocks);
    blocks.resize(n, Block::default());
    Some(blocks)
}

/// `madvise(MADV_HUGEPAGE)` on the 2 MiB-aligned part of `blocks`' allocation, before it is
/// touched. Only a hint: failure changes nothing but speed.
fn advise_huge_pages(blocks: &Vec<Block>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = blocks.as_ptr() as usize;
        let end = start + blocks.capacity() * std::mem::size_of::<Block>();
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation `blocks` owns; MADV_HUGEPAGE does
            // not change its contents or validity.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = blocks;
}

impl BloomFilter {
    /// An empty filter. Fails when the params are invalid or the memory cannot be allocated.
    pub fn try_new(params: BloomParams, family: KeyFamily) -> Result<Self> {
        params.validate()?;
        if family == KeyFamily::Any && !params.layout.is_spark() {
            return Err(Error::param(
                "key family",
                format!(
                    "\"any\" is only possible for Spark layouts, not {}",
                    params.layout
                ),
            ));
        }
        if family == KeyFamily::Time && params.layout.is_spark() {
            return Err(spark_keys::spark_time());
        }
        if params.layout == Layout::Sbbf {
            match params.physical {
                None => {
                    return Err(Error::Internal(
                        "an sbbf filter needs the physical type it hashes".into(),
                    ))
                }
                Some(p) if p.family() != family => {
                    return Err(Error::param(
                        "key family",
                        format!("{family} keys cannot be hashed as {p} values"),
                    ))
                }
                Some(_) => {}
            }
        }
        if family == KeyFamily::Tuple
            && params.layout.is_spark()
            && params.spark_keys != spark_keys::SparkKeys::Xxhash64Tuple
        {
            return Err(Error::param(
                "--layout",
                format!(
                    "{}: a composite key needs a native layout (split, blocked or classic), or --spark-keys xxhash64 (Spark's layouts hold one long or string per key)",
                    params.layout
                ),
            ));
        }
        let words = (params.num_bits / 64) as usize;
        let nblocks = words.div_ceil(8);
        let blocks = alloc_blocks(nblocks).ok_or_else(|| {
            Error::param(
                "--bits",
                format!(
                    "cannot allocate {} MiB for the filter",
                    params.num_bytes() >> 20
                ),
            )
        })?;
        Ok(BloomFilter {
            params,
            family,
            inserted: 0,
            spark_types: Vec::new(),
            blocks,
        })
    }

    /// An empty filter with the same params, family and Spark types (a fresh partial).
    pub fn empty_like(&self) -> Result<Self> {
        let mut f = BloomFilter::try_new(self.params, self.family)?;
        f.spark_types = self.spark_types.clone();
        Ok(f)
    }

    /// The Spark type of each column of a composite key in Spark's `xxhash64` mode (empty
    /// otherwise).
    pub fn spark_types(&self) -> &[spark_keys::SparkType] {
        &self.spark_types
    }

    /// Hash composite keys as Spark's `xxhash64(c1, c2, ...)` of the columns as `types`
    /// (two or more): the filter's mode becomes [`spark_keys::SparkKeys::Xxhash64Tuple`].
    /// Errors for a layout other than Spark's.
    pub fn set_spark_tuple(&mut self, types: Vec<spark_keys::SparkType>) -> Result<()> {
        if types.len() < 2 {
            return Err(Error::Internal(format!(
                "a composite key of {} Spark types",
                types.len()
            )));
        }
        self.set_spark_keys(spark_keys::SparkKeys::Xxhash64Tuple)?;
        self.spark_types = types;
        Ok(())
    }

    /// The filter's parameters.
    pub fn params(&self) -> &BloomParams {
        &self.params
    }

    /// Read keys of this Spark-layout filter with `mode` (`--spark-keys` for a filter in
    /// Spark's format, which does not record it). Errors for other layouts.
    pub fn set_spark_keys(&mut self, mode: spark_keys::SparkKeys) -> Result<()> {
        let params = BloomParams {
            spark_keys: mode,
            ..self.params
        };
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// The key family the filter holds.
    pub fn family(&self) -> KeyFamily {
        self.family
    }

    /// Number of non-null keys inserted (with repeats), summed over merged partials.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// Number of 64-bit words.
    pub fn num_words(&self) -> usize {
        (self.params.num_bits / 64) as usize
    }

    /// The words, in order (word `w` holds bits `64w..64w+63`, bit `b` at `1 << b`).
    pub fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.word_slice().iter().copied()
    }

    /// The words as one slice, in the filter's own memory.
    pub fn word_slice(&self) -> &[u64] {
        // SAFETY: `Block` is `repr(C)` around `[u64; 8]`, so the blocks are contiguous u64s;
        // the first `num_words()` of them are the filter's words.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<u64>(), self.num_words()) }
    }

    /// The words as one mutable slice (see [`Self::word_slice`]).
    fn word_slice_mut(&mut self) -> &mut [u64] {
        let n = self.num_words();
        // SAFETY: as in `word_slice`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<u64>(), n) }
    }

    /// The words as little-endian bytes, as the file formats store them: the filter's own
    /// memory on little-endian targets (no copy of a 10 MB filter), a copy elsewhere.
    pub fn le_word_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        #[cfg(target_endian = "little")]
        {
            let w = self.word_slice();
            // SAFETY: any initialized u64s are valid bytes, u8 has alignment 1, and the length
            // covers exactly the words' memory; on little-endian that is the LE encoding.
            std::borrow::Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(w.as_ptr().cast::<u8>(), std::mem::size_of_val(w))
            })
        }
        #[cfg(not(target_endian = "little"))]
        {
            std::borrow::Cow::Owned(self.words().flat_map(u64::to_le_bytes).collect())
        }
    }

    /// Build a filter from decoded parts; used by the codec.
    pub(crate) fn from_words(
        params: BloomParams,
        family: KeyFamily,
        inserted: u64,
        words: impl ExactSizeIterator<Item = u64>,
    ) -> Result<Self> {
        let mut f = BloomFilter::try_new(params, family)?;
        if words.len() != f.num_words() {
            return Err(Error::Internal(format!(
                "word count {} does not match {} bits",
                words.len(),
                params.num_bits
            )));
        }
        for (dst, w) in f.word_slice_mut().iter_mut().zip(words) {
            *dst = w;
        }
        f.inserted = inserted;
        Ok(f)
    }

    #[inline(always)]
    fn block_of(&self, h: u64) -> usize {
        fastrange(h, self.blocks.len() as u64) as usize
    }

    #[inline(always)]
    fn block_mask(&self, h: u64) -> [u64; 8] {
        let mut mask = [0u64; 8];
        for salt in &BLOCK_SALTS[..self.params.num_hashes as usize] {
            let p = (h.wrapping_mul(*salt) >> 55) as usize;
            mask[p >> 6] |= 1u64 << (p & 63);
        }
        mask
    }

    #[inline(always)]
    fn classic_positions(&self, h: u64) -> impl Iterator<Item = u64> {
        let h2 = fmix64(h) | 1;
        let m = self.params.num_bits;
        (0..self.params.num_hashes as u64)
            .map(move |i| fastrange(h.wrapping_add(i.wrapping_mul(h2)), m))
    }

    /// The SBBF layout's 8 bit positions of a hash: bit `bit_in_word(h, i)` of 32-bit word
    /// `i` of block `block_index(h)`, i.e. bit `256 b + 32 i + bit`. (The spec's words are
    /// little-endian u32s and ours little-endian u64s: the same bytes.)
    #[inline(always)]
    fn sbbf_positions(num_bits: u64, h: u64) -> impl Iterator<Item = u64> {
        let b = sbbf::block_index(h, num_bits / sbbf::SBBF_BLOCK_BITS);
        (0..8).map(move |i| {
            b * sbbf::SBBF_BLOCK_BITS + 32 * i as u64 + sbbf::bit_in_word(h, i) as u64
        })
    }

    #[inline(always)]
    fn set_bit(&mut self, pos: u64) {
        let w = (pos >> 6) as usize;
        self.blocks[w >> 3].0[w & 7] |= 1u64 << (pos & 63);
    }

    #[inline(always)]
    fn get_bit(&self, pos: u64) -> bool {
        let w = (pos >> 6) as usize;
        self.blocks[w >> 3].0[w & 7] & (1u64 << (pos & 63)) != 0
    }

    /// Insert one pre-hashed key (hashed with this filter's seed).
    #[inline]
    pub fn insert_hash(&mut self, h: u64) {
        match self.params.layout {
            Layout::Blocked => {
                let mask = self.block_mask(h);
                let b = self.block_of(h);
                let block = &mut self.blocks[b].0;
                for (w, m) in block.iter_mut().zip(mask) {
                    *w |= m;
                }
            }
            Layout::Classic => {
                let h2 = fmix64(h) | 1;
                let m = self.params.num_bits;
                for i in 0..self.params.num_hashes as u64 {
                    self.set_bit(fastrange(h.wrapping_add(i.wrapping_mul(h2)), m));
                }
            }
            Layout::SparkV1 => {
                let (k, m) = (self.params.num_hashes, self.params.num_bits);
                for p in spark::v1_positions(h, k, m) {
                    self.set_bit(p);
                }
            }
            Layout::SparkV2 => {
                let (k, m) = (self.params.num_hashes, self.params.num_bits);
                for p in spark::v2_positions(h, k, m) {
                    self.set_bit(p);
                }
            }
            Layout::Sbbf => {
                for p in Self::sbbf_positions(self.params.num_bits, h) {
                    self.set_bit(p);
                }
            }
            Layout::Split => {
                let b = self.block_of(h);
                split_set(&mut self.blocks[b], h);
            }
        }
        self.inserted += 1;
    }

    /// True when the pre-hashed key may be in the set; false when it surely is not.
    #[inline]
    pub fn contains_hash(&self, h: u64) -> bool {
        match self.params.layout {
            Layout::Blocked => {
                let mask = self.block_mask(h);
                let block = &self.blocks[self.block_of(h)].0;
                let mut missing = 0u64;
                for (w, m) in block.iter().zip(mask) {
                    missing |= m & !*w;
                }
                missing == 0
            }
            Layout::Classic => self.classic_positions(h).all(|p| self.get_bit(p)),
            Layout::SparkV1 => spark::v1_positions(h, self.params.num_hashes, self.params.num_bits)
                .all(|p| self.get_bit(p)),
            Layout::SparkV2 => spark::v2_positions(h, self.params.num_hashes, self.params.num_bits)
                .all(|p| self.get_bit(p)),
            Layout::Sbbf => Self::sbbf_positions(self.params.num_bits, h).all(|p| self.get_bit(p)),
            Layout::Split => split_has(&self.blocks[self.block_of(h)], h),
        }
    }

    fn prefetch_for(&self, h: u64) {
        match self.params.layout {
            Layout::Blocked | Layout::Split => prefetch(&self.blocks[self.block_of(h)]),
            Layout::Classic => {
                let w = (fastrange(h, self.params.num_bits) >> 6) as usize;
                prefetch(&self.blocks[w >> 3]);
            }
            // Spark's positions are scattered over the whole array; prefetch the first.
            Layout::SparkV1 | Layout::SparkV2 => {
                let (k, m) = (1, self.params.num_bits);
                let first = if self.params.layout == Layout::SparkV1 {
                    spark::v1_positions(h, k, m).next()
                } else {
                    spark::v2_positions(h, k, m).next()
                };
                if let Some(p) = first {
                    prefetch(&self.blocks[(p >> 9) as usize]);
                }
            }
            Layout::Sbbf => {
                let b = sbbf::block_index(h, self.params.num_bits / sbbf::SBBF_BLOCK_BITS);
                prefetch(&self.blocks[(b >> 1) as usize]);
            }
        }
    }

    /// Insert the hashes of the distinct keys among `keys` non-null keys (a row group's
    /// dictionary): the bits of inserting every key, and [`inserted`](Self::inserted) counts
    /// `keys`, as it would have.
    pub fn insert_distinct_hashes(&mut self, hashes: &[u64], keys: u64) {
        let before = self.inserted;
        self.insert_hashes(hashes);
        self.inserted = before + keys;
    }

    /// Insert a batch of pre-hashed keys, prefetching ahead.
    pub fn insert_hashes(&mut self, hashes: &[u64]) {
        match self.params.layout {
            Layout::Blocked => return self.insert_blocked(hashes),
            Layout::Split => return self.insert_split(hashes),
            _ => {}
        }
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&next) = hashes.get(i + PREFETCH_DISTANCE) {
                self.prefetch_for(next);
            }
            self.insert_hash(h);
        }
    }

    /// The blocked layout's batch insert, prefetching [`PREFETCH_AHEAD`] keys ahead. A key
    /// equal to the one before it (sorted or clustered input) sets no new bit: runs of equal
    /// keys are collapsed first, in chunks on the stack, so that the prefetch distance counts
    /// distinct keys.
    fn insert_blocked(&mut self, hashes: &[u64]) {
        const RUN_CHUNK: usize = 4096;
        let salts = &BLOCK_SALTS[..self.params.num_hashes as usize];
        let (nb, base) = (self.blocks.len() as u64, self.blocks.as_ptr());
        let blocks = &mut self.blocks;
        let mut distinct = [0u64; RUN_CHUNK];
        for chunk in hashes.chunks(RUN_CHUNK) {
            // Branch-free run collapse: always write, advance only past a new value.
            let mut n = 0;
            let mut prev = !chunk[0];
            for &h in chunk {
                distinct[n] = h;
                n += (h != prev) as usize;
                prev = h;
            }
            for_each_block(nb, base, &distinct[..n], |_, h, b| {
                let block = &mut blocks[b].0;
                for salt in salts {
                    let p = (h.wrapping_mul(*salt) >> 55) as usize;
                    block[p >> 6] |= 1u64 << (p & 63);
                }
            });
        }
        self.inserted += hashes.len() as u64;
    }

    /// The split layout's batch insert: AVX-512 where available, else scalar; both prefetch
    /// [`PREFETCH_AHEAD`] keys ahead. (Collapsing runs of equal keys first, as the blocked
    /// insert does, costs more than the one OR it would save.)
    fn insert_split(&mut self, hashes: &[u64]) {
        self.inserted += hashes.len() as u64;
        #[cfg(target_arch = "x86_64")]
        if use_avx512(SPLIT_HASHES) {
            // SAFETY: use_avx512 checked that the CPU has AVX-512 F and DQ.
            return unsafe { insert_split_avx512(&mut self.blocks, hashes) };
        }
        self.insert_split_scalar(hashes);
    }

    /// The split insert without SIMD (and its `inserted` count left to the caller).
    fn insert_split_scalar(&mut self, hashes: &[u64]) {
        let (nb, base) = (self.blocks.len() as u64, self.blocks.as_ptr());
        let blocks = &mut self.blocks;
        for_each_block(nb, base, hashes, |_, h, b| split_set(&mut blocks[b], h));
    }

    /// The blocked layout's batch probe: AVX-512 where available, else scalar; both prefetch
    /// [`PREFETCH_AHEAD`] keys ahead and assemble each 64-key output word in a register.
    fn probe_blocked(&self, hashes: &[u64]) -> BooleanBuffer {
        let k = self.params.num_hashes;
        #[cfg(target_arch = "x86_64")]
        if use_avx512(k) {
            // SAFETY: use_avx512 checked that the CPU has AVX-512 F and DQ.
            return unsafe { probe_blocked_avx512(&self.blocks, k, hashes) };
        }
        self.probe_blocked_scalar(hashes)
    }

    fn probe_blocked_scalar(&self, hashes: &[u64]) -> BooleanBuffer {
        let salts = &BLOCK_SALTS[..self.params.num_hashes as usize];
        probe_words(&self.blocks, hashes, |h, block| block_has(block, salts, h))
    }

    fn probe_split_scalar(&self, hashes: &[u64]) -> BooleanBuffer {
        probe_words(&self.blocks, hashes, |h, block| split_has(block, h))
    }

    /// Probe a batch of pre-hashed keys, prefetching ahead; bit `i` is `contains_hash(h[i])`.
    pub fn probe_hashes(&self, hashes: &[u64]) -> BooleanBuffer {
        match self.params.layout {
            Layout::Blocked => return self.probe_blocked(hashes),
            Layout::Split => {
                #[cfg(target_arch = "x86_64")]
                if use_avx512(SPLIT_HASHES) {
                    // SAFETY: use_avx512 checked that the CPU has AVX-512 F and DQ.
                    return unsafe { probe_split_avx512(&self.blocks, hashes) };
                }
                return self.probe_split_scalar(hashes);
            }
            _ => {}
        }
        BooleanBuffer::collect_bool(hashes.len(), |i| {
            if let Some(&next) = hashes.get(i + PREFETCH_DISTANCE) {
                self.prefetch_for(next);
            }
            self.contains_hash(hashes[i])
        })
    }

    /// Insert the non-null keys of a hashed array (hashed with this filter's seed).
    pub fn insert_keys(&mut self, keys: &HashedKeys) -> Result<InsertStats> {
        self.check_family(keys.family)?;
        let nulls = keys.null_count() as u64;
        if nulls == 0 {
            self.insert_hashes(&keys.hashes);
        } else {
            self.insert_hashes(&keys.valid_hashes());
        }
        Ok(InsertStats {
            inserted: keys.len() as u64 - nulls,
            nulls,
        })
    }

    /// Probe a hashed array: true where the key may be present; null keys are false.
    pub fn probe_keys(&self, keys: &HashedKeys) -> Result<BooleanBuffer> {
        self.check_family(keys.family)?;
        let hits = self.probe_hashes(&keys.hashes);
        Ok(match &keys.nulls {
            Some(n) => &hits & n.inner(),
            None => hits,
        })
    }

    /// Hash every slot of a key array the way this filter hashes keys.
    pub fn hash_array(&self, array: &dyn Array) -> Result<HashedKeys> {
        let mut hashes = Vec::new();
        let family = hash_into(&self.params, array, &mut hashes)?;
        Ok(HashedKeys {
            family,
            hashes,
            nulls: array.logical_nulls(),
        })
    }

    /// Hash every row of a key of one or more columns (a composite key: one array per
    /// component) the way this filter hashes keys. One column is [`BloomFilter::hash_array`];
    /// several make tuple keys ([`key::hash_tuple_into`], family [`KeyFamily::Tuple`]), null
    /// where any component is.
    pub fn hash_columns(&self, columns: &[&dyn Array]) -> Result<HashedKeys> {
        match columns {
            [one] => self.hash_array(*one),
            _ => {
                let mut hashes = Vec::new();
                hash_tuple_into(&self.params, &self.spark_types, columns, &mut hashes)?;
                Ok(HashedKeys {
                    family: KeyFamily::Tuple,
                    hashes,
                    nulls: key::tuple_nulls(columns),
                })
            }
        }
    }

    /// Hash and insert every non-null key of one or more key columns (see
    /// [`BloomFilter::hash_columns`]).
    pub fn insert_columns(&mut self, columns: &[&dyn Array]) -> Result<InsertStats> {
        let keys = self.hash_columns(columns)?;
        self.insert_keys(&keys)
    }

    /// Hash and probe every row of one or more key columns; rows with a null are false.
    pub fn probe_columns(&self, columns: &[&dyn Array]) -> Result<BooleanBuffer> {
        let keys = self.hash_columns(columns)?;
        self.probe_keys(&keys)
    }

    /// Hash and insert every non-null key of an Arrow array.
    pub fn insert_array(&mut self, array: &dyn Array) -> Result<InsertStats> {
        let keys = self.hash_array(array)?;
        self.insert_keys(&keys)
    }

    /// Hash and probe every slot of an Arrow array.
    pub fn probe_array(&self, array: &dyn Array) -> Result<BooleanBuffer> {
        let keys = self.hash_array(array)?;
        self.probe_keys(&keys)
    }

    /// Insert one integer key.
    pub fn insert_i64(&mut self, v: i64) {
        self.insert_hash(self.params.hash_i64(v));
    }

    /// Probe one integer key.
    pub fn contains_i64(&self, v: i64) -> bool {
        self.contains_hash(self.params.hash_i64(v))
    }

    /// Insert one bytes key.
    pub fn insert_bytes(&mut self, v: &[u8]) {
        self.insert_hash(self.params.hash_bytes(v));
    }

    /// Probe one bytes key.
    pub fn contains_bytes(&self, v: &[u8]) -> bool {
        self.contains_hash(self.params.hash_bytes(v))
    }

    /// Hash a text key (one line of `probe` input) as a key of `family`, the way this filter
    /// hashes keys: integers parse as `i64`, bytes keys are the UTF-8 bytes of the text.
    pub fn hash_text(&self, text: &str, family: KeyFamily) -> Result<u64> {
        self.check_family(family)?;
        let p = &self.params;
        if let Some(h) = p.sbbf_hasher() {
            return key::hash_text_key_with(text, family, &h);
        }
        let spark = spark::SparkHasher::new(p);
        if let spark_keys::SparkKeys::Xxhash64(ty) = p.spark_keys {
            let l = spark_keys::xxhash64_text(text, family, ty)?;
            return Ok(spark.hash_int(l as i64));
        }
        let native = key::Xxh3(p.seed);
        match (p.layout.is_spark(), p.legacy_ints) {
            (true, false) => key::hash_text_key_with(text, family, &spark),
            (true, true) => key::hash_text_key_with(text, family, &key::Wrapping(spark)),
            (false, false) => key::hash_text_key_with(text, family, &native),
            (false, true) => key::hash_text_key_with(text, family, &key::Wrapping(native)),
        }
    }

    /// Hash a text tuple (the tab-separated fields of a `probe` line) of a composite key whose
    /// columns have `families` (`dates[i]`: column `i` is a date) the way this filter hashes
    /// composite keys.
    pub fn hash_text_tuple(
        &self,
        fields: &[&str],
        families: &[KeyFamily],
        dates: &[bool],
    ) -> Result<u64> {
        let p = &self.params;
        if !p.layout.is_spark() {
            return key::hash_text_tuple(fields, families, dates, p.seed);
        }
        if p.spark_keys != spark_keys::SparkKeys::Xxhash64Tuple
            || self.spark_types.len() != families.len()
        {
            return Err(Error::Usage(format!(
                "a {} filter holds composite keys only as xxhash64 of the columns it records",
                p.layout
            )));
        }
        let l = spark_keys::xxhash64_text_tuple(fields, families, dates, &self.spark_types)?;
        Ok(spark::SparkHasher::new(p).hash_int(l as i64))
    }

    /// Error unless keys of `family` can be used with this filter (a filter of family
    /// [`KeyFamily::Any`] takes either).
    pub fn check_family(&self, family: KeyFamily) -> Result<()> {
        if family == self.family || (self.family == KeyFamily::Any && family != KeyFamily::Tuple) {
            Ok(())
        } else {
            Err(Error::Usage(format!(
                "the filter holds {} keys, not {family} keys",
                self.family
            )))
        }
    }

    /// OR `other` into `self`. Refuses (naming `other_name` and the field) when layout, m, k,
    /// seed or key family differ.
    ///
    /// Spark layouts follow Spark's `mergeInPlace` rules, checked in Spark's order: same
    /// version (layout), same bit size, same seed, same k. A filter of family
    /// [`KeyFamily::Any`] merges with either family and the result is `Any`.
    pub fn union(&mut self, other: &BloomFilter, other_name: &str) -> Result<()> {
        self.union_all(std::slice::from_ref(other), other_name)
    }

    /// OR every filter of `others` into `self`, as [`Self::union`] one after another would,
    /// with one pass over the words: chunks of blocks in parallel on the current rayon pool
    /// (each chunk ORs every other filter's chunk into its own), so merging `W` partials
    /// costs one read of each rather than `W - 1` serial passes. Checked first, so a
    /// mismatch leaves `self` unchanged.
    pub fn union_all(&mut self, others: &[BloomFilter], others_name: &str) -> Result<()> {
        let mut family = self.family;
        for other in others {
            family = self.compatible(family, other, others_name)?;
        }
        self.family = family;
        let or_chunk = |(i, chunk): (usize, &mut [Block])| {
            let start = i * UNION_CHUNK_BLOCKS;
            for other in others {
                for (x, y) in chunk.iter_mut().zip(&other.blocks[start..]) {
                    for (w, v) in x.0.iter_mut().zip(y.0) {
                        *w |= v;
                    }
                }
            }
        };
        if self.blocks.len() > UNION_CHUNK_BLOCKS {
            use rayon::prelude::*;
            self.blocks
                .par_chunks_mut(UNION_CHUNK_BLOCKS)
                .enumerate()
                .for_each(or_chunk);
        } else {
            self.blocks
                .chunks_mut(UNION_CHUNK_BLOCKS)
                .enumerate()
                .for_each(or_chunk);
        }
        self.inserted += others.iter().map(|o| o.inserted).sum::<u64>();
        Ok(())
    }

    /// The key family of `self` merged with `other`, or the error naming `other_name` and the
    /// first field in which they differ. `family` is `self`'s so far.
    fn compatible(
        &self,
        family: KeyFamily,
        other: &BloomFilter,
        other_name: &str,
    ) -> Result<KeyFamily> {
        let (a, b) = (&self.params, &other.params);
        let mismatch = |field: &'static str, ours: String, theirs: String| Error::Incompatible {
            location: other_name.to_string(),
            field,
            ours,
            theirs,
        };
        if a.layout != b.layout {
            return Err(mismatch(
                "layout",
                a.layout.to_string(),
                b.layout.to_string(),
            ));
        }
        if a.num_bits != b.num_bits {
            return Err(mismatch(
                "num_bits (m)",
                a.num_bits.to_string(),
                b.num_bits.to_string(),
            ));
        }
        // Spark checks the seed before k; the native layouts check k first.
        let seed_first = a.layout.is_spark();
        if seed_first && a.seed != b.seed {
            return Err(mismatch("seed", a.seed.to_string(), b.seed.to_string()));
        }
        if a.num_hashes != b.num_hashes {
            return Err(mismatch(
                "num_hashes (k)",
                a.num_hashes.to_string(),
                b.num_hashes.to_string(),
            ));
        }
        if a.seed != b.seed {
            return Err(mismatch("seed", a.seed.to_string(), b.seed.to_string()));
        }
        if a.physical != b.physical {
            let name = |p: Option<sbbf::Physical>| p.map_or("none".to_string(), |p| p.to_string());
            return Err(mismatch(
                "physical type",
                name(a.physical),
                name(b.physical),
            ));
        }
        if a.legacy_ints != b.legacy_ints {
            let v = |legacy: bool| {
                if legacy {
                    "format version 1 (UInt64 keys of 2^63 and more hashed as negative numbers; retrain it with this build)".to_string()
                } else {
                    "format version 2 (integers by value)".to_string()
                }
            };
            return Err(mismatch(
                "integer key form",
                v(a.legacy_ints),
                v(b.legacy_ints),
            ));
        }
        if a.spark_keys != b.spark_keys {
            return Err(mismatch(
                "spark keys",
                a.spark_keys.to_string(),
                b.spark_keys.to_string(),
            ));
        }
        if self.spark_types != other.spark_types {
            let show = |t: &[spark_keys::SparkType]| {
                t.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(mismatch(
                "spark key types",
                show(&self.spark_types),
                show(&other.spark_types),
            ));
        }
        match (family, other.family) {
            (x, y) if x == y => Ok(x),
            (KeyFamily::Any, _) | (_, KeyFamily::Any) => Ok(KeyFamily::Any),
            (x, y) => Err(mismatch("key family", x.to_string(), y.to_string())),
        }
    }

    /// A column chunk's SBBF (read by the parquet crate) as a filter of the SBBF layout that
    /// hashes `physical` values; `inserted` is what the caller knows of the values in it.
    pub fn from_sbbf(
        filter: &sbbf::Sbbf,
        physical: sbbf::Physical,
        inserted: u64,
    ) -> Result<BloomFilter> {
        let mut bytes = Vec::with_capacity(filter.num_blocks() * 32);
        filter
            .write_bitset(&mut bytes)
            .map_err(|e| Error::Internal(format!("cannot copy an SBBF bitset: {e}")))?;
        let params = BloomParams {
            layout: Layout::Sbbf,
            num_bits: bytes.len() as u64 * 8,
            num_hashes: 8,
            seed: 0,
            legacy_ints: false,
            physical: Some(physical),
            spark_keys: spark_keys::SparkKeys::Plain,
        };
        let words = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
        BloomFilter::from_words(params, physical.family(), inserted, words)
    }

    /// An SBBF-layout filter as the parquet crate's `Sbbf` (the same bitset), e.g. to write
    /// it or to probe it with `Sbbf::check`. `None` for other layouts.
    pub fn to_sbbf(&self) -> Option<sbbf::Sbbf> {
        if self.params.layout != Layout::Sbbf {
            return None;
        }
        let bytes: Vec<u8> = self.words().flat_map(u64::to_le_bytes).collect();
        Some(sbbf::Sbbf::new(&bytes))
    }

    /// Number of blocks of the blocked layout (words / 8).
    pub fn num_blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// This blocked filter folded to `num_blocks` blocks (at most its own count): new block
    /// `j` is the OR of the old blocks that overlap `[j / B', (j+1) / B')` of the hash range.
    /// A key's block is `hi64(h * B)`, the top of the hash scaled to `B` blocks, so a key of old
    /// block `b` lands in one of the new blocks overlapping old block `b`: no key is lost. When
    /// `num_blocks` divides the old count, each new block is the OR of `B / B'` consecutive old
    /// blocks, exactly the filter that inserting every key at `B'` blocks would give; otherwise
    /// an old block straddling a boundary is ORed into both neighbours. Bit positions inside a
    /// block do not depend on `B`.
    pub fn fold_to(&self, num_blocks: u64) -> Result<BloomFilter> {
        let from = self.blocks.len() as u64;
        if !self.params.layout.folds() {
            return Err(Error::param(
                "--layout",
                format!(
                    "only split and blocked filters fold, not {}",
                    self.params.layout
                ),
            ));
        }
        if num_blocks == 0 || num_blocks > from {
            return Err(Error::Internal(format!(
                "cannot fold {from} blocks to {num_blocks}"
            )));
        }
        let params = BloomParams {
            num_bits: num_blocks * BLOCK_BITS,
            ..self.params
        };
        let mut out = BloomFilter::try_new(params, self.family)?;
        out.inserted = self.inserted;
        out.spark_types = self.spark_types.clone();
        let to = num_blocks as u128;
        for (b, block) in self.blocks.iter().enumerate() {
            let b = b as u128;
            let first = (b * to / from as u128) as usize;
            let last = (((b + 1) * to).div_ceil(from as u128) - 1) as usize;
            for target in &mut out.blocks[first..=last] {
                for (w, v) in target.0.iter_mut().zip(block.0) {
                    *w |= v;
                }
            }
        }
        Ok(out)
    }

    /// This SBBF-layout filter folded to `num_bits` (a power of two, at least 256 and at most
    /// its own size). Parquet's SBBF picks block `((h >> 32) * B) >> 32` of its `B` 256-bit
    /// blocks, so with `B` a power of two (as the format requires) the block is the top
    /// `log2 B` bits of the hash, and halving `B` drops the lowest of them: new block `j` is the
    /// OR of old blocks `2j` and `2j + 1`. The bits inside a block come from the low 32 bits
    /// of the hash and do not depend on `B`. So the result is exactly the filter that
    /// inserting every key at `num_bits` gives (a test checks this against the parquet
    /// crate), and merge can OR column chunks that writers sized differently.
    pub fn fold_sbbf_to(&self, num_bits: u64) -> Result<BloomFilter> {
        let from = self.params.num_bits;
        if self.params.layout != Layout::Sbbf {
            return Err(Error::Internal(format!(
                "fold_sbbf_to on a {} filter",
                self.params.layout
            )));
        }
        if !num_bits.is_power_of_two() || num_bits < sbbf::SBBF_BLOCK_BITS || num_bits > from {
            return Err(Error::Internal(format!(
                "cannot fold an SBBF of {from} bits to {num_bits}"
            )));
        }
        const WORDS: usize = (sbbf::SBBF_BLOCK_BITS / 64) as usize;
        let ratio = (from / num_bits) as usize;
        let old = self.word_slice();
        let mut words = vec![0u64; (num_bits / 64) as usize];
        for (j, block) in words.chunks_exact_mut(WORDS).enumerate() {
            for b in old[j * ratio * WORDS..(j + 1) * ratio * WORDS].chunks_exact(WORDS) {
                for (w, v) in block.iter_mut().zip(b) {
                    *w |= v;
                }
            }
        }
        let params = BloomParams {
            num_bits,
            ..self.params
        };
        BloomFilter::from_words(params, self.family, self.inserted, words.into_iter())
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.bit_stats().ones
    }

    /// Fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.bit_stats().fill_ratio()
    }

    /// Distinct keys estimated from the fill ratio (Swamidass and Baldi):
    /// `-(m/k) ln(1 - X/m)`; `None` when every bit is set.
    pub fn estimated_distinct(&self) -> Option<f64> {
        self.bit_stats().estimated_distinct()
    }

    /// Distinct keys of a filter estimated from its bits, block by block
    /// ([`BitStats::estimated_distinct_by_block`]).
    pub fn estimated_distinct_by_block(&self) -> Option<f64> {
        self.bit_stats().estimated_distinct_by_block()
    }

    /// The false-positive rate of the filter as it is now ([`BitStats::estimated_fpp`]).
    pub fn estimated_fpp(&self) -> f64 {
        self.bit_stats().estimated_fpp()
    }

    /// Count the bits once for every estimate above: one pass over the words, in parallel
    /// chunks on the current rayon pool when the filter is large. The chunks depend on the
    /// filter's size alone and are combined in order, so the figures do not depend on the
    /// number of threads.
    pub fn bit_stats(&self) -> BitStats {
        // At most about 1,024 chunks, each of at least 4,096 blocks (256 KiB).
        let chunk = UNION_CHUNK_BLOCKS.max(self.blocks.len().div_ceil(1024));
        let split = self.params.layout == Layout::Split;
        // An SBBF's blocks are 256 bits, two to a storage block.
        let halves = self.params.layout == Layout::Sbbf;
        let of_chunk = |blocks: &[Block]| {
            let mut c = ChunkStats {
                ones: 0,
                by_ones: Box::new([0; BLOCK_BITS as usize + 1]),
                split_fpp: 0.0,
            };
            if halves {
                // Each 256-bit block: its count, and the product of its eight 32-bit word
                // fills (a key sets one bit in each word). The mean fill to the 8th power,
                // the parquet crate's estimate, ignores how unevenly keys fall into blocks:
                // half the observed rate of a filter at fill 0.41 (found by an audit).
                for b in blocks {
                    for half in b.0.chunks(4) {
                        let (mut ones, mut fpp) = (0u32, 1.0f64);
                        for &w in half {
                            let (lo, hi) =
                                ((w as u32).count_ones(), ((w >> 32) as u32).count_ones());
                            ones += lo + hi;
                            fpp *= (lo as f64 / 32.0) * (hi as f64 / 32.0);
                        }
                        c.ones += ones as u64;
                        c.by_ones[ones as usize] += 1;
                        c.split_fpp += fpp;
                    }
                }
                return c;
            }
            for_each_block_ones(blocks, &mut |o| {
                let x: u32 = o.iter().sum();
                c.ones += x as u64;
                c.by_ones[x as usize] += 1;
                if split {
                    c.split_fpp += o.iter().map(|&x| x as f64 / 64.0).product::<f64>();
                }
            });
            c
        };
        let chunks: Vec<ChunkStats> = if self.blocks.len() > chunk {
            use rayon::prelude::*;
            self.blocks.par_chunks(chunk).map(of_chunk).collect()
        } else {
            self.blocks.chunks(chunk).map(of_chunk).collect()
        };
        let mut stats = BitStats {
            layout: self.params.layout,
            num_bits: self.params.num_bits,
            num_hashes: self.params.num_hashes,
            blocks: self.blocks.len() as u64,
            ones: 0,
            by_ones: Box::new([0; BLOCK_BITS as usize + 1]),
            split_fpp: 0.0,
        };
        for c in chunks {
            stats.ones += c.ones;
            for (t, x) in stats.by_ones.iter_mut().zip(c.by_ones.iter()) {
                *t += x;
            }
            stats.split_fpp += c.split_fpp;
        }
        if halves {
            // The unused half of a one-block (256-bit) SBBF's storage is no block.
            let phantom = self.blocks.len() as u64 * 2 - self.params.num_bits / 256;
            stats.by_ones[0] -= phantom;
        }
        stats
    }
}

/// One chunk's share of [`BitStats`].
struct ChunkStats {
    ones: u64,
    by_ones: Box<[u64; BLOCK_BITS as usize + 1]>,
    split_fpp: f64,
}

/// A filter's bits counted once ([`BloomFilter::bit_stats`]): the fill ratio, the estimated
/// false-positive rate and the distinct keys estimated from them.
#[derive(Debug, Clone)]
pub struct BitStats {
    layout: Layout,
    num_bits: u64,
    num_hashes: u32,
    blocks: u64,
    /// Bits set.
    ones: u64,
    /// Blocks by their count of set bits (for an SBBF, its 256-bit blocks).
    by_ones: Box<[u64; BLOCK_BITS as usize + 1]>,
    /// The split layout: the sum over blocks of the product of their 8 word fills (64-bit
    /// words); an SBBF: the same over its 256-bit blocks (32-bit words).
    split_fpp: f64,
}

impl BitStats {
    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.ones
    }

    /// Fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.ones as f64 / self.num_bits as f64
    }

    /// Distinct keys estimated from the fill ratio (Swamidass and Baldi):
    /// `-(m/k) ln(1 - X/m)`; `None` when every bit is set.
    pub fn estimated_distinct(&self) -> Option<f64> {
        let m = self.num_bits as f64;
        let x = self.ones as f64;
        if x >= m {
            return None;
        }
        Some(-(m / self.num_hashes as f64) * (1.0 - x / m).ln())
    }

    /// Distinct keys of a filter estimated from its bits. For the blocked layout, block by
    /// block: a key sets `k` positions drawn from its block's 512 bits, so a block with `x` bits
    /// set holds about `ln(1 - x/512) / (k ln(1 - 1/512))` keys; the sum over blocks. For the
    /// split layout a key sets one bit in each 64-bit word, so the block holds about
    /// `ln(1 - x/512) / ln(1 - 1/64)` keys (counted over the block's bits together: word by
    /// word, the logarithm of few bits biases the estimate upward). An SBBF's key sets one
    /// bit in each 32-bit word of a 256-bit block: `ln(1 - x/256) / ln(1 - 1/32)`. Other
    /// layouts: [`Self::estimated_distinct`]. `None` when a block (or the filter) is full.
    /// One-pass training sizes its fold with it: the filter it starts from is sized for the
    /// most keys the inputs can hold, so no block comes near full unless the footers lie.
    pub fn estimated_distinct_by_block(&self) -> Option<f64> {
        let (bits, per_key) = match self.layout {
            Layout::Blocked => (
                BLOCK_BITS,
                self.num_hashes as f64 * (1.0 - 1.0 / BLOCK_BITS as f64).ln(),
            ),
            // One bit in each 64-bit word: a block with `i` keys has `512 (1 - (63/64)^i)`
            // bits set on average.
            Layout::Split => (BLOCK_BITS, (1.0 - 1.0 / 64.0f64).ln()),
            Layout::Sbbf => (sbbf::SBBF_BLOCK_BITS, (1.0 - 1.0 / 32.0f64).ln()),
            _ => return self.estimated_distinct(),
        };
        let (full, bits) = (bits as usize, bits as f64);
        // Blocks with the same count of set bits hold the same estimate.
        if self.by_ones[full] > 0 {
            return None;
        }
        Some(
            self.by_ones
                .iter()
                .enumerate()
                .filter(|(x, c)| *x > 0 && **c > 0)
                .map(|(x, c)| *c as f64 * (1.0 - x as f64 / bits).ln() / per_key)
                .sum(),
        )
    }

    /// The false-positive rate of the filter as it is now: `fill^k` for the classic layout,
    /// the mean over blocks of `fill_block^k` for the blocked layout, and of the product of
    /// the 8 word fills for the split layout.
    pub fn estimated_fpp(&self) -> f64 {
        let k = self.num_hashes as i32;
        match self.layout {
            // Spark's expectedFpp() is (cardinality / bitSize)^k, the same estimate.
            Layout::Classic | Layout::SparkV1 | Layout::SparkV2 => self.fill_ratio().powi(k),
            // The mean over the 256-bit blocks of the product of their 8 word fills (the
            // unused half of a one-block storage adds 0 and is not counted).
            Layout::Sbbf => self.split_fpp / (self.num_bits / 256).max(1) as f64,
            // The mean over blocks of the chance that a key absent from the block finds its
            // bits set: the block's fill to the k-th power (blocked; blocks with the same
            // count of set bits counted together), or the product of its 8 word fills (split).
            Layout::Blocked => {
                let sum: f64 = self
                    .by_ones
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(x, c)| *c as f64 * (x as f64 / BLOCK_BITS as f64).powi(k))
                    .sum();
                sum / self.blocks as f64
            }
            Layout::Split => self.split_fpp / self.blocks as f64,
        }
    }
}

#[cfg(test)]
mod tests;
