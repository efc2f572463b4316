//! `bloomjoin merge`: OR partial filters into one.

use crate::bloom::codec::{self, FileFormat, FilterMeta};
use crate::bloom::BloomFilter;
use crate::error::{Error, Result};
use crate::store::Location;

/// Arguments of `merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write the merged filter.
    #[arg(long, short)]
    pub output: String,
    /// The partial filters (same layout, m, k, seed and key family).
    #[arg(required = true, value_name = "PARTIAL")]
    pub partials: Vec<String>,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Output format [default: the format of the first partial, so Spark files in give a Spark
    /// file out]. `spark` needs spark-v1/spark-v2 filters.
    #[arg(long, value_enum)]
    pub format: Option<FileFormat>,
}

/// Merge decoded filters: OR the bits, add the counts, and combine the metadata (fields that
/// all partials agree on are kept, `shard` is dropped, inputs are the union in order).
pub fn merge_filters(
    parts: Vec<(String, BloomFilter, FilterMeta)>,
) -> Result<(BloomFilter, FilterMeta)> {
    let mut iter = parts.into_iter();
    let (_, mut merged, first_meta) = iter
        .next()
        .ok_or_else(|| Error::Usage("merge needs at least one partial filter".into()))?;
    let mut meta = FilterMeta {
        shard: None,
        ..first_meta
    };
    for (name, f, m) in iter {
        merged.union(&f, &name)?;
        if meta.column != m.column {
            meta.column = None;
        }
        if meta.key_type != m.key_type {
            meta.key_type = None;
        }
        if meta.predicate != m.predicate {
            meta.predicate = None;
        }
        for i in m.inputs {
            if !meta.inputs.contains(&i) {
                meta.inputs.push(i);
            }
        }
    }
    meta.created_by = crate::CREATED_BY.to_string();
    Ok((merged, meta))
}

/// Run `merge`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let out = Location::parse(&args.output)?;
    if !args.overwrite && out.exists()? {
        return Err(Error::OutputExists {
            location: out.to_string(),
        });
    }
    let mut parts = Vec::with_capacity(args.partials.len());
    let mut first_format = None;
    for p in &args.partials {
        let loc = Location::parse(p)?;
        let (f, m, format) = codec::read_with_format(&loc)?;
        first_format.get_or_insert(format);
        parts.push((p.clone(), f, m));
    }
    let n = parts.len();
    let (merged, meta) = merge_filters(parts)?;
    let format = args.format.or(first_format).unwrap_or_default();
    format.check_layout(merged.params().layout, "--format")?;
    let bytes = codec::write_as(&out, &merged, &meta, format, args.overwrite)?;
    if !quiet {
        eprintln!(
            "merged {n} filters into {out} ({format} format): {} keys inserted, fill ratio {:.4}, est. fpp {:.6}, {} bytes",
            merged.inserted(),
            merged.fill_ratio(),
            merged.estimated_fpp(),
            bytes
        );
    }
    Ok(())
}
