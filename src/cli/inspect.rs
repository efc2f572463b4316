//! `bloomjoin inspect`: what a filter is and how full it is.

use serde::Serialize;

use crate::bloom::codec::{self, FileFormat, FilterMeta};
use crate::bloom::spark_keys::SparkKeys;
use crate::bloom::{spark, BloomFilter, Layout};
use crate::error::Result;
use crate::key::KeyFamily;
use crate::store::Location;

/// Arguments of `inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The filter (a path or an object-store URL).
    pub filter: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Show the Parquet Bloom filters (SBBF) of this column of the FILTER Parquet file.
    #[arg(long, value_name = "COL")]
    pub column: Option<String>,
    /// With --column: only this row group (from 0) [default: all].
    #[arg(long, value_name = "N", requires = "column")]
    pub row_group: Option<usize>,
}

/// One row group's Parquet Bloom filter, as `inspect --column` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct SbbfInfo {
    /// The row group.
    pub row_group: usize,
    /// Its rows.
    pub rows: u64,
    /// Whether the column chunk has a filter (the fields below are null when not).
    pub has_filter: bool,
    /// 256-bit blocks.
    pub blocks: Option<usize>,
    /// Bytes of the filter (header and bitset) in the file.
    pub bytes: Option<u64>,
    /// Fraction of bits set.
    pub fill_ratio: Option<f64>,
    /// False-positive rate estimated from the bits (as `inspect FILTER` estimates an sbbf
    /// filter's).
    pub estimated_fpp: Option<f64>,
}

/// `inspect FILE.parquet --column C [--row-group N]`.
fn run_parquet(args: &Args, column: &str) -> Result<()> {
    let f = crate::bloom::sbbf::ColumnFilters::read(&args.filter, column, args.row_group)?;
    // The estimates of `inspect FILTER` (BitStats), not the parquet crate's mean fill to the
    // 8th power, which is about half the measured rate. Only the bits count: a physical
    // type bloomjoin does not hash (FLOAT, DOUBLE, ...) is read as bytes.
    let physical = crate::bloom::sbbf::Physical::of(f.physical)
        .unwrap_or(crate::bloom::sbbf::Physical::ByteArray);
    let infos = f
        .groups
        .iter()
        .map(|(rg, rows, filter)| {
            let stats = filter
                .as_ref()
                .map(|(s, _)| BloomFilter::from_sbbf(s, physical, *rows).map(|b| b.bit_stats()))
                .transpose()?;
            Ok(SbbfInfo {
                row_group: *rg,
                rows: *rows,
                has_filter: filter.is_some(),
                blocks: filter.as_ref().map(|(s, _)| s.num_blocks()),
                bytes: filter.as_ref().map(|(_, b)| *b),
                fill_ratio: stats.as_ref().map(|s| s.fill_ratio()),
                estimated_fpp: stats.as_ref().map(|s| s.estimated_fpp()),
            })
        })
        .collect::<Result<Vec<SbbfInfo>>>()?;
    let out = if args.json {
        serde_json::to_string_pretty(&serde_json::json!({
            "location": f.location,
            "column": f.column,
            "physical_type": f.physical.to_string(),
            "layout": "sbbf",
            "row_groups": infos,
        }))
        .expect("info serializes")
            + "\n"
    } else {
        let mut s = format!(
            "file          {}\ncolumn        {} ({})\nlayout        sbbf (Parquet split-block Bloom filter: 256-bit blocks, k = 8, XXH64)\n{:>9} {:>10} {:>8} {:>10} {:>8} {:>10}\n",
            f.location, f.column, f.physical, "row group", "rows", "blocks", "bytes", "fill", "est. fpp"
        );
        for i in &infos {
            match (i.blocks, i.bytes, i.fill_ratio, i.estimated_fpp) {
                (Some(b), Some(n), Some(fill), Some(p)) => {
                    s += &format!(
                        "{:>9} {:>10} {:>8} {:>10} {:>8.4} {:>10.6}\n",
                        i.row_group, i.rows, b, n, fill, p
                    )
                }
                _ => s += &format!("{:>9} {:>10}  no filter\n", i.row_group, i.rows),
            }
        }
        s
    };
    crate::cli::print(&out)
}

/// Everything `inspect` reports.
#[derive(Debug, Clone, Serialize)]
pub struct FilterInfo {
    /// Where the filter was read from.
    pub location: String,
    /// File format and version (`bloomjoin v1`, `spark v1`, `spark v2`).
    pub format: String,
    /// Bit layout.
    pub layout: Layout,
    /// Number of bits m.
    pub num_bits: u64,
    /// Number of hashes k.
    pub num_hashes: u32,
    /// Hash seed; for the Spark layouts as Spark prints it, a signed 32-bit Java int.
    pub seed: i128,
    /// Key family.
    pub key_family: KeyFamily,
    /// For the sbbf layout: the Parquet physical type whose plain encoding it hashes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physical_type: Option<crate::bloom::sbbf::Physical>,
    /// What a Spark-layout filter inserts for a key (`xxhash64`: Spark's `xxhash64(key)` of
    /// the key as a Spark type); absent for plain keys.
    #[serde(skip_serializing_if = "SparkKeys::is_plain")]
    pub spark_keys: SparkKeys,
    /// Non-null keys inserted (with repeats); null for Spark's format, which does not record it.
    pub inserted: Option<u64>,
    /// Fraction of bits set.
    pub fill_ratio: f64,
    /// Distinct keys estimated from the fill ratio (null when the filter is saturated).
    pub estimated_distinct: Option<u64>,
    /// False-positive rate estimated from the bits.
    pub estimated_fpp: f64,
    /// Size of the bit array in bytes.
    pub bits_bytes: u64,
    /// Size of the file in bytes.
    pub file_bytes: u64,
    /// The filter's metadata.
    pub metadata: FilterMeta,
}

/// The Spark SQL type to cast a key column to before `xxhash64`, for a recorded Spark type
/// name and the column's key family: a timestamp without a time zone is TIMESTAMP_NTZ in
/// Spark (a cast to TIMESTAMP would move it by the session time zone; both hash alike).
fn spark_sql_type(spark_type: &str, family: KeyFamily) -> String {
    match (spark_type, family) {
        ("timestamp", KeyFamily::Timestamp) => "TIMESTAMP_NTZ".into(),
        (t, _) => t.to_uppercase(),
    }
}

impl FilterInfo {
    /// Describe a decoded filter read from a file of `format`.
    pub fn new(
        location: &str,
        filter: &BloomFilter,
        meta: &FilterMeta,
        format: FileFormat,
        file_bytes: u64,
    ) -> Self {
        let p = filter.params();
        let stats = filter.bit_stats();
        let native = format == FileFormat::Native;
        FilterInfo {
            location: location.to_string(),
            format: match spark::version_of(p.layout) {
                Some(v) if !native => format!("spark v{v}"),
                _ => format!("bloomjoin v{}", codec::version_for(filter)),
            },
            layout: p.layout,
            num_bits: p.num_bits,
            num_hashes: p.num_hashes,
            seed: if p.layout.is_spark() {
                spark::spark_seed(p) as i128
            } else {
                p.seed as i128
            },
            key_family: filter.family(),
            physical_type: p.physical,
            spark_keys: p.spark_keys,
            inserted: native.then(|| filter.inserted()),
            fill_ratio: stats.fill_ratio(),
            estimated_distinct: stats
                .estimated_distinct_by_block()
                .map(|d| d.round() as u64),
            estimated_fpp: stats.estimated_fpp(),
            bits_bytes: p.num_bytes(),
            file_bytes,
            metadata: meta.clone(),
        }
    }

    /// The human table.
    pub fn to_table(&self) -> String {
        let mut rows: Vec<(&str, String)> = vec![
            ("filter", self.location.clone()),
            ("format", self.format.clone()),
            ("layout", self.layout.to_string()),
            ("bits (m)", self.num_bits.to_string()),
            ("hashes (k)", self.num_hashes.to_string()),
            ("seed", self.seed.to_string()),
            (
                "key family",
                match self.physical_type {
                    Some(t) => format!("{} (hashed as Parquet {t} values)", self.key_family),
                    None => self.key_family.to_string(),
                },
            ),
            (
                "spark keys",
                match self.spark_keys {
                    SparkKeys::Plain if self.layout.is_spark() => "plain (the keys themselves)".into(),
                    SparkKeys::Plain => String::new(),
                    SparkKeys::Xxhash64(t) => format!(
                        "xxhash64: Spark's xxhash64(key) of the key as {t} (might_contain(filter, xxhash64(CAST(col AS {}))))",
                        spark_sql_type(&t.to_string(), self.key_family)
                    ),
                    SparkKeys::Xxhash64Tuple => format!(
                        "xxhash64: Spark's xxhash64 of the key columns, each as its Spark type (might_contain(filter, xxhash64({})))",
                        self.metadata
                            .key_columns
                            .iter()
                            .map(|c| format!(
                                "CAST({} AS {})",
                                if c.name.is_empty() { "?" } else { &c.name },
                                spark_sql_type(&c.spark_type, c.family)
                            ))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
            ),
            (
                "inserted",
                self.inserted
                    .map_or("unknown (not recorded in Spark's format)".into(), |n| {
                        n.to_string()
                    }),
            ),
            ("fill ratio", format!("{:.4}", self.fill_ratio)),
            (
                "est. distinct",
                self.estimated_distinct
                    .map_or("saturated".to_string(), |d| d.to_string()),
            ),
            ("est. fpp", format!("{:.6}", self.estimated_fpp)),
            (
                "size",
                format!(
                    "{} bits array, {} file ({} bytes)",
                    super::human_bytes(self.bits_bytes),
                    super::human_bytes(self.file_bytes),
                    self.file_bytes
                ),
            ),
        ];
        let m = &self.metadata;
        if let Some(c) = &m.column {
            rows.push(("column", c.clone()));
        }
        if let Some(t) = &m.key_type {
            match &m.logical_type {
                Some(l) => rows.push(("key type", format!("{t} ({l})"))),
                None => rows.push(("key type", t.clone())),
            }
        }
        if !m.key_columns.is_empty() {
            rows.push((
                "key columns",
                m.key_columns
                    .iter()
                    .map(|c| {
                        let name = if c.name.is_empty() {
                            "?"
                        } else {
                            c.name.as_str()
                        };
                        let spark = if c.spark_type.is_empty() {
                            String::new()
                        } else {
                            format!(", Spark {}", c.spark_type)
                        };
                        // Its logical type (UUID, TIMETZ) as the one-column key's shows.
                        let logical = if c.logical_type.is_empty() {
                            String::new()
                        } else {
                            format!(" ({})", c.logical_type)
                        };
                        if c.key_type.is_empty() {
                            format!("{name} ({}{spark})", c.family)
                        } else {
                            format!("{name} ({}, {}{logical}{spark})", c.family, c.key_type)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        if let Some(w) = &m.predicate {
            rows.push(("where", w.clone()));
        }
        if !m.inputs.is_empty() {
            rows.push(("inputs", m.inputs.join(", ")));
        }
        if let Some(s) = &m.shard {
            rows.push(("shard", s.clone()));
        }
        if !m.created_by.is_empty() {
            rows.push(("created by", m.created_by.clone()));
        }
        rows.iter()
            .filter(|(k, v)| !(*k == "spark keys" && v.is_empty()))
            .map(|(k, v)| format!("{k:<14}{v}\n"))
            .collect()
    }
}

/// Run `inspect`.
pub fn run(args: Args) -> Result<()> {
    if let Some(column) = &args.column {
        return run_parquet(&args, column);
    }
    let loc = Location::parse(&args.filter)?;
    let bytes = codec::read_bytes(&loc)?;
    let (filter, meta) = codec::decode(&bytes, loc.as_str())?;
    let format = FileFormat::detect(&bytes).unwrap_or_default();
    let info = FilterInfo::new(loc.as_str(), &filter, &meta, format, bytes.len() as u64);
    let out = if args.json {
        serde_json::to_string_pretty(&info).expect("info serializes") + "\n"
    } else {
        info.to_table()
    };
    crate::cli::print(&out)
}
