//! # bloomjoin
//!
//! Batch jobs built around Bloom filters, in the style of Hadoop's reduce-side join with a
//! Bloom filter (MapReduce Design Patterns): **train** a filter over a key column of Parquet
//! files in parallel (partial filters OR-merged into one, bit-identical to a single-threaded
//! build), and **join** two Parquet inputs with the filter broadcast to every map worker, so
//! rows of the big side whose key the filter rules out are dropped before the shuffle.
//!
//! The public pieces: [`key`] (canonical keys and their hashes), [`bloom`] (the filter, its
//! layouts and its file format), [`store`] (locations on local disk or object stores),
//! [`expr`] (`--where` predicates on Arrow batches), the jobs [`train`] and [`join`], and
//! [`cli`] (the subcommands, job files, and the options they validate into jobs). Inside the
//! crate, the jobs run the pipeline's stages: `plan` (inputs, splits, the sides of a join),
//! `map` (the workers and the right side's prefilter), `shuffle`, `reduce` (the hash join)
//! and `commit` (parts and the atomic commit).
//!
//! ```
//! use arrow::array::StringArray;
//! use bloomjoin::bloom::{codec, BloomFilter, BloomParams, Layout};
//! use bloomjoin::key::KeyFamily;
//!
//! let params = BloomParams::for_items(Layout::Blocked, 10_000, 0.01, 0)?;
//! let mut filter = BloomFilter::try_new(params, KeyFamily::Bytes)?;
//! filter.insert_array(&StringArray::from(vec!["alice", "bob"]))?;
//! let bytes = codec::encode(&filter, &codec::FilterMeta::new());
//! let (back, _) = codec::decode(&bytes, "in-memory")?;
//! assert!(back.contains_bytes(b"alice"));
//! # Ok::<(), bloomjoin::Error>(())
//! ```

pub mod bloom;
pub mod cancel;
pub mod cli;
pub(crate) mod commit;
pub mod datagen;
pub mod error;
pub mod expr;
pub(crate) mod fault;
pub mod join;
pub mod key;
pub(crate) mod map;
pub(crate) mod plan;
pub(crate) mod progress;
pub(crate) mod read;
pub(crate) mod reduce;
pub(crate) mod report;
pub mod seed;
pub(crate) mod shuffle;
pub mod sieve;
pub mod store;
pub mod sys;
pub mod train;

pub use error::{Error, Result};

/// `bloomjoin <version>`, stamped into every filter and report.
pub const CREATED_BY: &str = concat!("bloomjoin ", env!("CARGO_PKG_VERSION"));
