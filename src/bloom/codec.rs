//! The native filter file format (version 1), documented in `docs/FORMAT.md`, and format
//! detection: [`decode`] and [`read`] also accept Apache Spark's serialized Bloom filters
//! (see [`super::spark`]), told apart by their first bytes.
//!
//! All integers are little-endian.
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | magic `BJFILTER` |
//! | 8  | 2 | format version, `1` |
//! | 10 | 1 | layout code (1 blocked, 2 classic, 3 spark-v1, 4 spark-v2, 5 sbbf) |
//! | 11 | 1 | key family code (1 integer, 2 bytes, 3 any: Spark layouts only, 4 timestamp, 5 timestamptz, 6 tuple) |
//! | 12 | 4 | `k`, number of hashes |
//! | 16 | 8 | `m`, number of bits |
//! | 24 | 8 | seed |
//! | 32 | 8 | inserted keys (non-null rows, with repeats) |
//! | 40 | 4 | metadata length `L` in bytes |
//! | 44 | 4 | by layout: sbbf, the physical type's code (1 INT32, 2 INT64, 6 BYTE_ARRAY, 7 FIXED_LEN_BYTE_ARRAY); spark-v1/v2, the key mode (0, or 1 and a Spark type: `--spark-keys xxhash64`); others: zero |
//! | 48 | L | metadata, a UTF-8 JSON object ([`FilterMeta`]) |
//! | .. | 0-7 | zero padding to a multiple of 8 |
//! | .. | m/8 | the bits, `m/64` words as u64 |
//! | end-8 | 8 | xxh3-64 (seed 0) of every byte before it |

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::{BloomFilter, BloomParams, Layout, MAX_BITS};
use crate::bloom::spark_keys::{SparkKeys, SparkType};
use crate::error::{Error, Result};
use crate::key::KeyFamily;

/// The first 8 bytes of every native filter file.
pub const MAGIC: &[u8; 8] = b"BJFILTER";
/// The newest format version, which this build writes for integer keys. Version 2 hashes
/// integers by value (a `UInt64` key of 2^63 and more has its own wide form); version 1
/// hashed such a key as its two's complement `i64`. This build reads both; see
/// [`version_for`] for what it writes.
pub const FORMAT_VERSION: u16 = 2;

/// The format version a filter is written with: 1 for a bytes-family filter (nothing about
/// bytes keys changed, so older builds still read it) and for a filter read from a version-1
/// file (its integers keep the old form); 2 otherwise, and always for the sbbf layout, which
/// version 2 introduced.
pub fn version_for(filter: &BloomFilter) -> u16 {
    let p = filter.params();
    if p.layout == Layout::Sbbf {
        FORMAT_VERSION
    } else if p.legacy_ints || (filter.family() == KeyFamily::Bytes && p.spark_keys.is_plain()) {
        1
    } else {
        FORMAT_VERSION
    }
}
const HEADER_LEN: usize = 48;
const CHECKSUM_LEN: usize = 8;

/// A filter file format.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum FileFormat {
    /// bloomjoin's own format (any layout; keeps key family, counts and metadata).
    #[default]
    Native,
    /// Apache Spark's `BloomFilter.writeTo` format (spark-v1 and spark-v2 layouts only; bits
    /// and params, nothing else).
    Spark,
}

impl FileFormat {
    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Native => "native",
            FileFormat::Spark => "spark",
        }
    }

    /// The format of a file, from its first bytes: the native magic, or Spark's big-endian
    /// version 1 or 2. `None` when it is neither.
    pub fn detect(bytes: &[u8]) -> Option<FileFormat> {
        if bytes.starts_with(MAGIC) {
            Some(FileFormat::Native)
        } else if super::spark::detect(bytes).is_some() {
            Some(FileFormat::Spark)
        } else {
            None
        }
    }

    /// Error unless a filter with `layout` can be written in this format (`what` names the
    /// option, e.g. `--format`).
    pub fn check_layout(self, layout: Layout, what: &str) -> Result<()> {
        if self == FileFormat::Spark && !layout.is_spark() {
            return Err(Error::param(
                what,
                format!(
                    "spark needs --layout spark-v1 or spark-v2, not {layout} (Spark's format has no other layouts)"
                ),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Descriptive metadata stored with a filter. Readers ignore fields they do not know.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FilterMeta {
    /// The program that wrote the filter, `bloomjoin <version>`.
    pub created_by: String,
    /// The key column the filter was trained on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The Arrow type of the key column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_type: Option<String>,
    /// The Parquet logical type of the key column where it changes what the keys' bytes
    /// mean: `UUID` (16 bytes; a string key is its text, so the two never meet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_type: Option<String>,
    /// The `--where` predicate applied before training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate: Option<String>,
    /// The input locations as given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// `i/N` when the filter is one shard of a sharded training.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The target false-positive rate of a filter sized by folding (`train --fpp` alone,
    /// blocked): `merge` folds such partials to the keys they hold and re-checks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fpp: Option<f64>,
    /// The columns of a composite key (family [`KeyFamily::Tuple`]), in key order, each with
    /// its family and type; empty for a one-column key (`column` and `key_type` say it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub key_columns: Vec<KeyColumn>,
}

/// One column of a composite key, as the filter's metadata records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyColumn {
    /// The column's name ("" when merged partials disagreed).
    #[serde(default)]
    pub name: String,
    /// Its key family (integer, bytes, timestamp or timestamptz): the join and `probe` read the component so.
    pub family: KeyFamily,
    /// Its Arrow type in the first input ("" when merged partials disagreed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_type: String,
    /// For a Spark-layout filter of `xxhash64(c1, c2, ...)` (`--spark-keys xxhash64`): the
    /// Spark type the column is hashed as (`int`, `bigint`, `decimal(p,s)`, `timestamp`,
    /// `string`); "" otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub spark_type: String,
    /// `UUID` for a column of Parquet's UUID logical type (16 bytes, never equal to a
    /// string's text); "" otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub logical_type: String,
}

impl FilterMeta {
    /// The key's columns as `(name, family)` pairs for a filter of `family`: the recorded
    /// components of a composite key, or the one column (name "" when not recorded).
    pub fn key_columns_of(&self, family: KeyFamily) -> Vec<(String, KeyFamily)> {
        if family == KeyFamily::Tuple {
            self.key_columns
                .iter()
                .map(|c| (c.name.clone(), c.family))
                .collect()
        } else {
            vec![(self.column.clone().unwrap_or_default(), family)]
        }
    }

    /// Metadata stamped with this build's name and version.
    pub fn new() -> Self {
        FilterMeta {
            created_by: crate::CREATED_BY.to_string(),
            ..Default::default()
        }
    }
}

/// The native file up to its words: the header and the padded metadata, with room reserved
/// for the words and the checksum when `reserve_words`.
fn native_head(filter: &BloomFilter, meta: &FilterMeta, reserve_words: bool) -> Vec<u8> {
    // A composite key in xxhash64 mode: the metadata records each column's Spark type.
    let mut with_types;
    let meta = if filter.spark_types().is_empty() {
        meta
    } else {
        with_types = meta.clone();
        with_types
            .key_columns
            .resize_with(filter.spark_types().len(), || KeyColumn {
                name: String::new(),
                family: KeyFamily::Any,
                key_type: String::new(),
                spark_type: String::new(),
                logical_type: String::new(),
            });
        for (c, t) in with_types.key_columns.iter_mut().zip(filter.spark_types()) {
            c.spark_type = t.to_string();
        }
        &with_types
    };
    let meta_json = serde_json::to_vec(meta).expect("metadata serializes");
    let p = filter.params();
    let padded = meta_json.len().next_multiple_of(8);
    let tail = if reserve_words {
        filter.num_words() * 8 + CHECKSUM_LEN
    } else {
        0
    };
    let mut out = Vec::with_capacity(HEADER_LEN + padded + tail);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version_for(filter).to_le_bytes());
    out.push(p.layout.code());
    out.push(filter.family().code());
    out.extend_from_slice(&p.num_hashes.to_le_bytes());
    out.extend_from_slice(&p.num_bits.to_le_bytes());
    out.extend_from_slice(&p.seed.to_le_bytes());
    out.extend_from_slice(&filter.inserted().to_le_bytes());
    out.extend_from_slice(&(meta_json.len() as u32).to_le_bytes());
    out.extend_from_slice(&layout_field(p));
    out.extend_from_slice(&meta_json);
    out.resize(HEADER_LEN + padded, 0);
    out
}

/// Serialize a filter and its metadata.
pub fn encode(filter: &BloomFilter, meta: &FilterMeta) -> Vec<u8> {
    let mut out = native_head(filter, meta, true);
    out.extend_from_slice(&filter.le_word_bytes());
    let sum = xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The native file as the chunks of one put: the head, the words and the checksum. On
/// little-endian targets the words chunk is the filter's own memory (shared through the `Arc`,
/// not copied), so writing a 10 MB filter neither copies it nor holds a second 10 MB.
fn encode_chunks(filter: &Arc<BloomFilter>, meta: &FilterMeta) -> Vec<bytes::Bytes> {
    let head = native_head(filter, meta, false);
    let mut sum = Xxh3::new();
    sum.update(&head);
    sum.update(&filter.le_word_bytes());
    let checksum = sum.digest().to_le_bytes();
    #[cfg(target_endian = "little")]
    let words = {
        /// The words of a shared filter, as the bytes of a put.
        struct LeWords(Arc<BloomFilter>);
        impl AsRef<[u8]> for LeWords {
            fn as_ref(&self) -> &[u8] {
                match self.0.le_word_bytes() {
                    std::borrow::Cow::Borrowed(b) => b,
                    std::borrow::Cow::Owned(_) => unreachable!("little-endian words are borrowed"),
                }
            }
        }
        bytes::Bytes::from_owner(LeWords(Arc::clone(filter)))
    };
    #[cfg(not(target_endian = "little"))]
    let words = bytes::Bytes::from(filter.le_word_bytes().into_owned());
    vec![
        bytes::Bytes::from(head),
        words,
        bytes::Bytes::copy_from_slice(&checksum),
    ]
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Encode a filter in `format` (Spark's format keeps only the params and bits).
pub fn encode_as(filter: &BloomFilter, meta: &FilterMeta, format: FileFormat) -> Result<Vec<u8>> {
    match format {
        FileFormat::Native => Ok(encode(filter, meta)),
        FileFormat::Spark => super::spark::encode(filter),
    }
}

/// Decode a filter file of either format, detected from its first bytes (see
/// [`FileFormat::detect`]). A Spark file yields empty metadata and [`KeyFamily::Any`].
/// `location` names the file in errors.
pub fn decode(bytes: &[u8], location: &str) -> Result<(BloomFilter, FilterMeta)> {
    match FileFormat::detect(bytes) {
        Some(FileFormat::Spark) => Ok((super::spark::decode(bytes, location)?, FilterMeta::default())),
        Some(FileFormat::Native) => decode_native(bytes, location),
        None => Err(Error::format(
            location,
            "bad magic (neither a bloomjoin filter file nor a Spark Bloom filter of version 1 or 2)",
        )),
    }
}

/// Header bytes 44..48, the layout's own field: for sbbf the Parquet physical type code (u32);
/// for the Spark layouts the key mode (4 zero bytes: the keys themselves; `1` and the 3-byte
/// Spark type: `xxhash64` keys); 0 for the other layouts.
fn layout_field(p: &BloomParams) -> [u8; 4] {
    match (p.layout, p.spark_keys) {
        (Layout::Sbbf, _) => p.physical.map_or(0, |t| t.code()).to_le_bytes(),
        (Layout::SparkV1 | Layout::SparkV2, SparkKeys::Xxhash64(t)) => {
            let [a, b, c] = t.code();
            [1, a, b, c]
        }
        (Layout::SparkV1 | Layout::SparkV2, SparkKeys::Xxhash64Tuple) => [1, TUPLE_CODE, 0, 0],
        _ => [0; 4],
    }
}

/// The Spark type code of header bytes 45..48 for `xxhash64(c1, c2, ...)` of a composite key:
/// the columns' types are in the metadata's `key_columns` (`spark_type`).
const TUPLE_CODE: u8 = 6;

/// The Spark layouts' key mode from header bytes 44..48 (see [`layout_field`]).
fn spark_keys_field(field: [u8; 4], version: u16) -> std::result::Result<SparkKeys, String> {
    match field {
        [0, 0, 0, 0] => Ok(SparkKeys::Plain),
        [1, TUPLE_CODE, 0, 0] if version >= 2 => Ok(SparkKeys::Xxhash64Tuple),
        [1, a, b, c] if version >= 2 => SparkType::from_code([a, b, c])
            .map(SparkKeys::Xxhash64)
            .ok_or_else(|| format!("unknown Spark key type code {:?}", [a, b, c])),
        _ => Err(format!(
            "Spark key mode field is {:#x}: neither 0 nor xxhash64 (1 and a Spark type, format version 2)",
            u32::from_le_bytes(field)
        )),
    }
}

/// Decode a native filter file. `location` names it in errors.
pub fn decode_native(bytes: &[u8], location: &str) -> Result<(BloomFilter, FilterMeta)> {
    let bad = |reason: String| Error::format(location, reason);
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad("bad magic (not a bloomjoin filter file)".into()));
    }
    if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(bad(format!(
            "truncated: {} bytes, shorter than the {}-byte header",
            bytes.len(),
            HEADER_LEN + CHECKSUM_LEN
        )));
    }
    let version = u16_at(bytes, 8);
    if version == 0 || version > FORMAT_VERSION {
        return Err(bad(format!(
            "format version {version} is not supported (this build reads versions 1 to {FORMAT_VERSION})"
        )));
    }
    let layout_code = bytes[10];
    let family_code = bytes[11];
    let num_hashes = u32_at(bytes, 12);
    let num_bits = u64_at(bytes, 16);
    let seed = u64_at(bytes, 24);
    let inserted = u64_at(bytes, 32);
    let meta_len = u32_at(bytes, 40) as usize;
    let reserved = u32_at(bytes, 44);
    let layout = Layout::from_code(layout_code)
        .ok_or_else(|| bad(format!("unknown layout code {layout_code}")))?;
    let family = KeyFamily::from_code(family_code)
        .ok_or_else(|| bad(format!("unknown key family code {family_code}")))?;
    if family == KeyFamily::Any && !layout.is_spark() {
        return Err(bad(format!(
            "key family \"any\" with the {layout} layout (only Spark layouts have it)"
        )));
    }
    if version == 1
        && matches!(
            family,
            KeyFamily::Timestamp | KeyFamily::TimestampTz | KeyFamily::Time
        )
    {
        return Err(bad(format!(
            "key family {family} in format version 1 ({family} keys exist from version 2)"
        )));
    }
    // Header bytes 44..48, by layout: sbbf's physical type, the Spark layouts' key mode,
    // reserved (zero) for the others.
    let mut physical = None;
    let spark_keys = match layout {
        Layout::Sbbf => {
            let t = super::sbbf::Physical::from_code(reserved).ok_or_else(|| {
                bad(format!(
                    "unknown physical type code {reserved} of an sbbf filter"
                ))
            })?;
            if t.family() != family {
                return Err(bad(format!(
                    "an sbbf filter of {t} values with key family {family}"
                )));
            }
            physical = Some(t);
            SparkKeys::Plain
        }
        Layout::SparkV1 | Layout::SparkV2 => {
            spark_keys_field([bytes[44], bytes[45], bytes[46], bytes[47]], version).map_err(bad)?
        }
        _ if reserved != 0 => {
            return Err(bad(format!(
                "reserved header field is {reserved:#x}, not 0"
            )))
        }
        _ => SparkKeys::Plain,
    };
    if num_bits == 0 || !num_bits.is_multiple_of(layout.bit_unit()) || num_bits > MAX_BITS {
        return Err(bad(format!(
            "impossible params: {num_bits} bits for the {layout} layout"
        )));
    }
    let expected = HEADER_LEN as u64
        + (meta_len as u64).next_multiple_of(8)
        + num_bits / 8
        + CHECKSUM_LEN as u64;
    if (bytes.len() as u64) < expected {
        return Err(bad(format!(
            "truncated: {} bytes, the header announces {expected}",
            bytes.len()
        )));
    }
    if bytes.len() as u64 > expected {
        return Err(bad(format!(
            "{} unexpected trailing bytes after the checksum",
            bytes.len() as u64 - expected
        )));
    }
    let body = &bytes[..bytes.len() - CHECKSUM_LEN];
    let stored = u64_at(bytes, bytes.len() - CHECKSUM_LEN);
    let actual = xxh3_64(body);
    if stored != actual {
        return Err(bad(format!(
            "checksum mismatch (stored {stored:016x}, computed {actual:016x}): the file is corrupt"
        )));
    }
    let params = BloomParams {
        layout,
        num_bits,
        num_hashes,
        seed,
        legacy_ints: version == 1 && family != KeyFamily::Bytes,
        physical,
        spark_keys,
    };
    params
        .validate()
        .map_err(|e| bad(format!("impossible params: {e}")))?;
    let meta_bytes = &bytes[HEADER_LEN..HEADER_LEN + meta_len];
    let meta: FilterMeta = serde_json::from_slice(meta_bytes)
        .map_err(|e| bad(format!("metadata is not valid JSON: {e}")))?;
    let spark_tuple = spark_keys == SparkKeys::Xxhash64Tuple;
    if spark_tuple != (family == KeyFamily::Tuple && layout.is_spark()) {
        return Err(bad(format!(
            "a {layout} filter of key family {family} with Spark key mode {spark_keys} (xxhash64 of a composite key goes with family tuple, code 6)"
        )));
    }
    if family == KeyFamily::Tuple {
        if version < 2 || (layout.is_spark() && !spark_tuple) || layout == Layout::Sbbf {
            return Err(bad(format!(
                "a composite key (family code 6) in a version-{version} {layout} filter"
            )));
        }
        if meta.key_columns.len() < 2
            || meta.key_columns.iter().any(|c| {
                !matches!(
                    c.family,
                    KeyFamily::Integer
                        | KeyFamily::Bytes
                        | KeyFamily::Timestamp
                        | KeyFamily::TimestampTz
                        | KeyFamily::Time
                )
            })
        {
            return Err(bad(
                "a composite key filter must record two or more key columns of family integer, bytes, timestamp, timestamptz or time (metadata key_columns)".into(),
            ));
        }
    }
    let words_at = HEADER_LEN + meta_len.next_multiple_of(8);
    let words = bytes[words_at..body.len()]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));
    let mut filter = BloomFilter::from_words(params, family, inserted, words)?;
    if spark_tuple {
        let types = meta
            .key_columns
            .iter()
            .map(|c| c.spark_type.parse::<SparkType>())
            .collect::<Result<Vec<_>>>()
            .map_err(|e| {
                bad(format!(
                    "an xxhash64 composite-key filter must record each key column's Spark type (metadata key_columns, spark_type): {}",
                    crate::error::one_line(&e)
                ))
            })?;
        filter.set_spark_tuple(types)?;
    }
    Ok((filter, meta))
}

/// Read and decode a filter (either format) from a location.
pub fn read(location: &crate::store::Location) -> Result<(BloomFilter, FilterMeta)> {
    let (f, m, _) = read_with_format(location)?;
    Ok((f, m))
}

/// Read and decode a filter from a location; also returns the file's format.
pub fn read_with_format(
    location: &crate::store::Location,
) -> Result<(BloomFilter, FilterMeta, FileFormat)> {
    let bytes = read_bytes(location)?;
    let (f, m) = decode(&bytes, location.as_str())?;
    let format = FileFormat::detect(&bytes).unwrap_or_default();
    Ok((f, m, format))
}

/// The bytes of a filter file, read whole once a local file has been seen to be a regular
/// file that starts like a filter. An object in a store is refused by its first bytes
/// while it streams in (one object of something else, 2 GiB, was downloaded whole before
/// its magic was looked at).
pub fn read_bytes(location: &crate::store::Location) -> Result<bytes::Bytes> {
    let name = location.as_str();
    if let Some(path) = location.local_path() {
        check_local_head(path, name)?;
        return location.read_all();
    }
    location.read_all_checked(MAGIC.len(), |head| check_head(head, name))
}

/// A file's first [`MAGIC`]`.len()` bytes must be one of the formats' (shorter files are
/// left to the decoder, which says how they end).
fn check_head(head: &[u8], name: &str) -> Result<()> {
    if head.len() == MAGIC.len() && FileFormat::detect(head).is_none() {
        // The error decoding gives for a file of these first bytes.
        decode(head, name)?;
    }
    Ok(())
}

/// Before a local file is read whole: it must be a regular file (not `/dev/zero` or a FIFO,
/// which never end) that starts like a filter (a large file of something else was read
/// whole, 2 GiB of memory, before its magic was looked at: fifth audit, 2026-11-26).
fn check_local_head(path: &std::path::Path, name: &str) -> Result<()> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| Error::io(name, e))?;
    if meta.is_dir() {
        return Err(Error::io(
            name,
            std::io::Error::from(std::io::ErrorKind::IsADirectory),
        ));
    }
    if !meta.is_file() {
        return Err(Error::Input {
            location: name.to_string(),
            reason: "not a regular file (a filter is read from a file or an object)".into(),
        });
    }
    let mut head = Vec::with_capacity(MAGIC.len());
    std::fs::File::open(path)
        .and_then(|f| f.take(MAGIC.len() as u64).read_to_end(&mut head))
        .map_err(|e| Error::io(name, e))?;
    check_head(&head, name)
}

/// Encode a filter and write it with one atomic put (create-only unless `overwrite`).
/// Returns the number of bytes written.
pub fn write(
    location: &crate::store::Location,
    filter: &Arc<BloomFilter>,
    meta: &FilterMeta,
    overwrite: bool,
) -> Result<u64> {
    write_as(location, filter, meta, FileFormat::Native, overwrite)
}

/// Encode a filter in `format` and write it with one atomic put (create-only unless
/// `overwrite`). Returns the number of bytes written. The native format is put straight from
/// the filter's memory (see `encode_chunks`).
pub fn write_as(
    location: &crate::store::Location,
    filter: &Arc<BloomFilter>,
    meta: &FilterMeta,
    format: FileFormat,
    overwrite: bool,
) -> Result<u64> {
    let chunks = match format {
        FileFormat::Native => encode_chunks(filter, meta),
        _ => vec![bytes::Bytes::from(encode_as(filter, meta, format)?)],
    };
    let len = chunks.iter().map(|c| c.len() as u64).sum();
    location.put(
        chunks.into_iter().collect::<object_store::PutPayload>(),
        overwrite,
    )?;
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `b` with its trailing checksum recomputed, so that a decoder gets past the checksum to
    /// the field a test changed.
    fn with_fresh_checksum(mut b: Vec<u8>) -> Vec<u8> {
        let n = b.len();
        let sum = xxh3_64(&b[..n - 8]);
        b[n - 8..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    fn small() -> (BloomFilter, FilterMeta) {
        let params = BloomParams::explicit(Layout::Classic, 128, 3, 42).unwrap();
        let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
        for v in [1, 2, 3] {
            f.insert_i64(v);
        }
        let meta = FilterMeta {
            created_by: "bloomjoin test".into(),
            column: Some("id".into()),
            ..Default::default()
        };
        (f, meta)
    }

    /// The native file is put in chunks straight from the filter's memory: the bytes are
    /// `encode`'s, for every layout (a checksum streamed over the chunks equals the one-shot).
    #[test]
    fn write_puts_the_encoded_bytes() {
        for (layout, bits, k) in [
            (Layout::Classic, 128, 3),
            (Layout::Split, 4096, 8),
            (Layout::Blocked, 2048, 6),
        ] {
            let params = BloomParams::explicit(layout, bits, k, 7).unwrap();
            let mut f = BloomFilter::try_new(params, KeyFamily::Integer).unwrap();
            for v in 0..300 {
                f.insert_i64(v * 7919);
            }
            let meta = FilterMeta {
                created_by: "bloomjoin test".into(),
                column: Some("id".into()),
                ..Default::default()
            };
            let f = Arc::new(f);
            let loc =
                crate::store::Location::parse(&format!("memory:///codec/{layout}.bjf")).unwrap();
            let n = write(&loc, &f, &meta, true).unwrap();
            let want = encode(&f, &meta);
            assert_eq!(n, want.len() as u64);
            assert_eq!(
                loc.read_all().unwrap().as_ref(),
                want.as_slice(),
                "{layout}"
            );
        }
    }

    #[test]
    fn round_trip() {
        let (f, meta) = small();
        let bytes = encode(&f, &meta);
        let (g, meta2) = decode(&bytes, "x").unwrap();
        assert_eq!(f, g);
        assert_eq!(meta, meta2);
        assert_eq!(encode(&g, &meta2), bytes);
    }

    #[test]
    fn header_bytes_are_as_documented() {
        let (f, meta) = small();
        let bytes = encode(&f, &meta);
        assert_eq!(&bytes[0..8], b"BJFILTER");
        assert_eq!(&bytes[8..10], &[2, 0], "version 2: integer keys by value");
        assert_eq!(bytes[10], 2, "classic layout code");
        assert_eq!(bytes[11], 1, "integer family code");
        assert_eq!(&bytes[12..16], &[3, 0, 0, 0]);
        assert_eq!(&bytes[16..24], &128u64.to_le_bytes());
        assert_eq!(&bytes[24..32], &42u64.to_le_bytes());
        assert_eq!(&bytes[32..40], &3u64.to_le_bytes());
        let meta_json = br#"{"created_by":"bloomjoin test","column":"id"}"#;
        assert_eq!(&bytes[40..44], &(meta_json.len() as u32).to_le_bytes());
        assert_eq!(&bytes[44..48], &[0, 0, 0, 0]);
        assert_eq!(&bytes[48..48 + meta_json.len()], meta_json);
        assert_eq!(bytes.len(), 48 + 48 + 16 + 8);
    }

    /// A composite-key filter: family code 6, version 2, its columns in the metadata; a
    /// tuple filter that does not record two or more columns, or claims version 1, is refused.
    #[test]
    fn tuple_filters_record_their_key_columns() {
        let params = BloomParams::explicit(Layout::Blocked, 512, 3, 7).unwrap();
        let mut f = BloomFilter::try_new(params, KeyFamily::Tuple).unwrap();
        let a = arrow::array::Int32Array::from(vec![1, 2]);
        let b = arrow::array::StringArray::from(vec!["x", "y"]);
        f.insert_columns(&[&a, &b]).unwrap();
        let col = |name: &str, family| KeyColumn {
            spark_type: String::new(),
            name: name.into(),
            family,
            key_type: "Int32".into(),
            logical_type: String::new(),
        };
        let meta = FilterMeta {
            created_by: "bloomjoin test".into(),
            key_columns: vec![col("a", KeyFamily::Integer), col("b", KeyFamily::Bytes)],
            ..Default::default()
        };
        let bytes = encode(&f, &meta);
        assert_eq!(&bytes[8..10], &[2, 0]);
        assert_eq!(bytes[11], 6, "tuple family code");
        let (g, m) = decode(&bytes, "t").unwrap();
        assert_eq!((g.family(), &m), (KeyFamily::Tuple, &meta));
        assert!(g.probe_columns(&[&a, &b]).unwrap().iter().all(|x| x));
        assert!(
            g.probe_array(&a).is_err(),
            "a one-column key is not a tuple"
        );
        let one = FilterMeta {
            key_columns: vec![col("a", KeyFamily::Integer)],
            ..meta.clone()
        };
        let err = decode(&encode(&f, &one), "t").unwrap_err().to_string();
        assert!(err.contains("two or more key columns"), "{err}");
        let mut v1 = bytes.clone();
        v1[8..10].copy_from_slice(&1u16.to_le_bytes());
        let err = decode(&with_fresh_checksum(v1), "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("version-1"), "{err}");
        let spark = BloomParams::explicit(Layout::SparkV2, 512, 3, 7).unwrap();
        assert!(BloomFilter::try_new(spark, KeyFamily::Tuple).is_err());
    }

    /// Issue 16: the timestamp families have codes 4 and 5, the time family 7, in version 2
    /// only.
    #[test]
    fn timestamp_families_round_trip_in_version_2_only() {
        for (family, code) in [
            (KeyFamily::Timestamp, 4u8),
            (KeyFamily::TimestampTz, 5),
            (KeyFamily::Time, 7),
        ] {
            let params = BloomParams::explicit(Layout::Blocked, 512, 3, 0).unwrap();
            let mut f = BloomFilter::try_new(params, family).unwrap();
            f.insert_hash(crate::key::hash_timestamp(1_000_000_000, 0));
            let mut bytes = encode(&f, &FilterMeta::default());
            assert_eq!(&bytes[8..12], &[2, 0, 1, code]);
            let (g, _) = decode(&bytes, "x").unwrap();
            assert_eq!((g.family(), &g), (family, &f));
            bytes[8] = 1;
            let e = decode(&with_fresh_checksum(bytes), "x")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("{family} keys exist from version 2")),
                "{e}"
            );
        }
    }

    /// Issue 16: the Spark key mode (xxhash64) and the Spark type are bytes 44..48 of the
    /// header (version 2), and round-trip; unknown codes are refused.
    #[test]
    fn spark_key_mode_is_in_the_header() {
        use crate::bloom::spark_keys::{SparkKeys, SparkType};
        let p = BloomParams {
            spark_keys: SparkKeys::Xxhash64(SparkType::Decimal(12, 3)),
            ..BloomParams::explicit(Layout::SparkV2, 640, 3, 7).unwrap()
        };
        let f = BloomFilter::try_new(p, KeyFamily::Integer).unwrap();
        let bytes = encode(&f, &FilterMeta::default());
        assert_eq!(&bytes[8..10], &[2, 0]);
        assert_eq!(&bytes[44..48], &[1, 3, 12, 3]);
        let (g, _) = decode(&bytes, "x").unwrap();
        assert_eq!(g.params().spark_keys, p.spark_keys);
        let s = BloomParams {
            spark_keys: SparkKeys::Xxhash64(SparkType::String),
            ..p
        };
        let fb = BloomFilter::try_new(s, KeyFamily::Bytes).unwrap();
        let b = encode(&fb, &FilterMeta::default());
        assert_eq!(
            (&b[8..10], &b[44..48]),
            (&[2u8, 0][..], &[1u8, 5, 0, 0][..])
        );
        assert_eq!(decode(&b, "x").unwrap().0.params().spark_keys, s.spark_keys);
        for (at, value, want) in [
            (45, 9u8, "unknown Spark key type code"),
            (44, 2, "Spark key mode field"),
            (8, 1, "Spark key mode field"),
        ] {
            let mut bad = bytes.clone();
            bad[at] = value;
            let e = decode(&with_fresh_checksum(bad), "x")
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{at}: {e}");
        }
        let e = BloomParams {
            layout: Layout::Blocked,
            num_bits: 512,
            ..p
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(e.contains("--spark-keys"), "{e}");
    }

    /// Issue 16: a composite key in Spark's xxhash64 mode is family tuple (6) with the mode
    /// field `1, 6, 0, 0`; each column's Spark type is in the metadata's key columns and
    /// comes back on the filter. Without them, or with the mode and another family, the file
    /// is refused.
    #[test]
    fn spark_tuple_filters_record_each_columns_spark_type() {
        use crate::bloom::spark_keys::{SparkKeys, SparkType};
        let p = BloomParams::explicit(Layout::SparkV2, 640, 3, 7).unwrap();
        let types = vec![SparkType::Bigint, SparkType::Decimal(10, 2)];
        let mut f = BloomFilter::try_new(
            BloomParams {
                spark_keys: SparkKeys::Xxhash64Tuple,
                ..p
            },
            KeyFamily::Tuple,
        )
        .unwrap();
        f.set_spark_tuple(types.clone()).unwrap();
        let a = arrow::array::Int64Array::from(vec![1, 2]);
        let b = arrow::array::Decimal128Array::from(vec![150, 700])
            .with_precision_and_scale(10, 2)
            .unwrap();
        f.insert_columns(&[&a, &b]).unwrap();
        let col = |name: &str| KeyColumn {
            name: name.into(),
            family: KeyFamily::Integer,
            key_type: String::new(),
            spark_type: String::new(),
            logical_type: String::new(),
        };
        let meta = FilterMeta {
            key_columns: vec![col("a"), col("b")],
            ..FilterMeta::default()
        };
        let bytes = encode(&f, &meta);
        assert_eq!(&bytes[8..12], &[2, 0, 4, 6], "version 2, spark-v2, tuple");
        assert_eq!(&bytes[44..48], &[1, 6, 0, 0]);
        let (g, m) = decode(&bytes, "x").unwrap();
        assert_eq!(g.spark_types(), &types[..]);
        assert_eq!(g, f);
        assert_eq!(m.key_columns[1].spark_type, "decimal(10,2)");
        assert!(g.probe_columns(&[&a, &b]).unwrap().iter().all(|x| x));
        // The native tuple hash is not what this filter holds.
        assert_eq!(g.params().spark_keys, SparkKeys::Xxhash64Tuple);
        // Without the types: refused. Family bytes with the tuple mode: refused.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.contains(r#""spark_type":"bigint""#));
        let mut untyped = f.clone();
        untyped.spark_types = Vec::new();
        let e = decode(&encode(&untyped, &meta), "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("spark_type"), "{e}");
        let mut bad = bytes.clone();
        bad[11] = KeyFamily::Bytes.code();
        let e = decode(&with_fresh_checksum(bad), "x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("xxhash64 of a composite key goes with family tuple"),
            "{e}"
        );
    }

    #[test]
    fn every_truncation_is_an_error() {
        let (f, meta) = small();
        let bytes = encode(&f, &meta);
        for len in 0..bytes.len() {
            let err = decode(&bytes[..len], "f.bjf").unwrap_err().to_string();
            assert!(err.starts_with("f.bjf: not a valid filter: "), "{err}");
            assert!(!err.contains('\n'));
        }
    }

    #[test]
    fn every_bit_flip_is_an_error() {
        let (f, meta) = small();
        let bytes = encode(&f, &meta);
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            assert!(decode(&b, "f").is_err(), "flip of bit {i} went unnoticed");
        }
    }

    #[test]
    fn wrong_magic_future_version_impossible_params() {
        let (f, meta) = small();
        let bytes = encode(&f, &meta);
        let mut b = bytes.clone();
        b[0] = b'X';
        assert!(decode(&b, "f")
            .unwrap_err()
            .to_string()
            .contains("bad magic"));

        let mut b = bytes.clone();
        b[8..10].copy_from_slice(&3u16.to_le_bytes());
        assert!(decode(&b, "f")
            .unwrap_err()
            .to_string()
            .contains("format version 3"));

        // k = 0 with a valid checksum: the params check must catch it.
        let mut b = bytes.clone();
        b[12..16].copy_from_slice(&0u32.to_le_bytes());
        let err = decode(&with_fresh_checksum(b), "f")
            .unwrap_err()
            .to_string();
        assert!(err.contains("impossible params"), "{err}");

        // m not a multiple of 64 for classic.
        let mut b = bytes.clone();
        b[16..24].copy_from_slice(&100u64.to_le_bytes());
        assert!(decode(&b, "f")
            .unwrap_err()
            .to_string()
            .contains("impossible params"));

        // Absurd m: refused before any allocation.
        let mut b = bytes;
        b[16..24].copy_from_slice(&(1u64 << 62).to_le_bytes());
        assert!(decode(&b, "f")
            .unwrap_err()
            .to_string()
            .contains("impossible params"));
    }
}
