//! `bloomjoin merge`: OR partial filters into one.

use crate::bloom::codec::{self, FileFormat, FilterMeta};
use crate::bloom::sbbf::{ColumnFilters, Physical};
use crate::bloom::{BloomFilter, Layout};
use crate::error::{Error, Result};
use crate::store::Location;

/// Arguments of `merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write the merged filter.
    #[arg(long, short)]
    pub output: String,
    /// The partial filters (same layout, m, k, seed and key family). With --column, a
    /// Parquet file here stands for the Parquet Bloom filters (SBBF) of that column, one
    /// partial per row group; they merge with sbbf-layout filters of the same physical type
    /// (SBBFs of different sizes are folded to the smallest first).
    #[arg(required = true, value_name = "PARTIAL")]
    pub partials: Vec<String>,
    /// The column whose Parquet Bloom filters the Parquet files among the partials give.
    #[arg(long, value_name = "COL")]
    pub column: Option<String>,
    /// With --column: only this row group (from 0) of each Parquet file [default: all].
    #[arg(long, value_name = "N", requires = "column")]
    pub row_group: Option<usize>,
    /// Replace an existing output.
    #[arg(long)]
    pub overwrite: bool,
    /// Output format [default: the format of the first partial, so Spark files in give a Spark
    /// file out]. `spark` needs spark-v1/spark-v2 filters.
    #[arg(long, value_enum)]
    pub format: Option<FileFormat>,
}

/// How `merge` sized its output: blocked or sbbf partials of different sizes are folded to
/// the smallest one before the OR; with a recorded target FPP the result is folded down to the
/// keys it holds and the FPP re-checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergeSizing {
    /// Partials folded to the common size before the OR (their names).
    pub folded_partials: Vec<String>,
    /// The common size of the OR, in bits.
    pub common_bits: u64,
    /// The target FPP all partials recorded (`--fpp` of their training), if any.
    pub fpp: Option<f64>,
    /// The distinct keys of the merged filter, estimated from its bits.
    pub estimated_distinct: Option<u64>,
    /// The model FPP at that count, for the final size.
    pub model_fpp: Option<f64>,
    /// When every partial is a shard of one sharded training (`i/N`): the shards not among
    /// them, whose keys the merged filter lacks.
    pub missing_shards: Vec<u64>,
}

/// The partials' recorded shards (`i/N` with `N > 1`, from `train --shard`): the same shard twice, or
/// shards of trainings split differently, are an error (one of them is a copy, or from
/// another training: keys would be missing); when every partial is a shard of one training,
/// the shards not given.
fn check_shards(parts: &[(String, BloomFilter, FilterMeta)]) -> Result<Vec<u64>> {
    let mut seen: Vec<(u64, u64, &str)> = Vec::new();
    for (name, _, m) in parts {
        let Some(shard) = m.shard.as_deref() else {
            continue;
        };
        let parsed = shard
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
        // `0/1` is a whole training (docs/SCALE-OUT.md: separate runs over different inputs,
        // each with `--shard 0/1`): any number of them merge.
        let Some((i, n)) = parsed.filter(|&(_, n): &(u64, u64)| n > 1) else {
            continue;
        };
        for (j, other_n, other) in &seen {
            if *other_n != n {
                return Err(Error::Usage(format!(
                    "{name} is shard {i}/{n} but {other} is shard {j}/{other_n}: shards of trainings split differently; merge the shards of one training"
                )));
            }
            if *j == i {
                return Err(Error::Usage(format!(
                    "{name} and {other} are both shard {i}/{n}: one is a copy, and another shard's keys would be missing"
                )));
            }
        }
        seen.push((i, n, name));
    }
    match seen.first() {
        Some((_, n, _)) if seen.len() == parts.len() => Ok((0..*n)
            .filter(|i| !seen.iter().any(|(j, _, _)| j == i))
            .collect()),
        _ => Ok(Vec::new()),
    }
}

impl MergeSizing {
    /// True when a target was recorded and the merged filter misses it (by the model at the
    /// estimated count, or by `estimated_fpp`, the estimate from its bits).
    pub fn misses(&self, estimated_fpp: f64) -> bool {
        match self.fpp {
            Some(p) => self.model_fpp.is_some_and(|m| m > p) || estimated_fpp > p,
            None => false,
        }
    }
}

/// Merge decoded filters: OR the bits, add the counts, and combine the metadata (fields that
/// all partials agree on are kept, `shard` is dropped, inputs are the union in order).
///
/// Split (or blocked) partials of different sizes (trained with `--fpp` alone on inputs of
/// different sizes) are first folded to the smallest size (see [`BloomFilter::fold_to`]). When every
/// partial recorded the same target FPP, the merged filter is folded down to the smallest size
/// that meets it for the distinct keys estimated from its bits, and the FPP is re-checked.
pub fn merge_filters(
    parts: Vec<(String, BloomFilter, FilterMeta)>,
) -> Result<(BloomFilter, FilterMeta)> {
    merge_and_fold(parts).map(|(f, m, _)| (f, m))
}

/// [`merge_filters`], also saying how the output was sized.
pub fn merge_and_fold(
    parts: Vec<(String, BloomFilter, FilterMeta)>,
) -> Result<(BloomFilter, FilterMeta, MergeSizing)> {
    let mut sizing = MergeSizing {
        missing_shards: check_shards(&parts)?,
        ..Default::default()
    };
    let all = |layout: Layout| parts.iter().all(|(_, f, _)| f.params().layout == layout);
    // Split or blocked partials fold by block count.
    let (by_blocks, sbbf) = (
        all(Layout::Blocked) || all(Layout::Split),
        all(Layout::Sbbf),
    );
    let fpp = parts.first().and_then(|(_, _, m)| m.fpp);
    sizing.fpp = fpp.filter(|p| parts.iter().all(|(_, _, m)| m.fpp == Some(*p)));
    // Partials of different sizes are folded to the smallest before the OR, which loses no
    // key: split and blocked filters by block count (BloomFilter::fold_to), SBBFs by bits
    // (BloomFilter::fold_sbbf_to). Parquet writers size each column chunk's SBBF for its own
    // row group (the parquet crate folds it to the values written), so the chunks of one
    // file differ in size.
    let size = |f: &BloomFilter| {
        if sbbf {
            f.params().num_bits
        } else {
            f.num_blocks()
        }
    };
    let parts = match parts.iter().map(|(_, f, _)| size(f)).min() {
        Some(common) if by_blocks || sbbf => {
            let mut out = Vec::with_capacity(parts.len());
            for (name, f, m) in parts {
                if size(&f) == common {
                    out.push((name, f, m));
                    continue;
                }
                sizing.folded_partials.push(name.clone());
                let folded = if sbbf {
                    f.fold_sbbf_to(common)?
                } else {
                    f.fold_to(common)?
                };
                out.push((name, folded, m));
            }
            out
        }
        _ => parts,
    };
    let mut iter = parts.into_iter();
    let (_, mut merged, first_meta) = iter
        .next()
        .ok_or_else(|| Error::Usage("merge needs at least one partial filter".into()))?;
    let mut meta = FilterMeta {
        shard: None,
        ..first_meta
    };
    for (name, f, m) in iter {
        check_key_columns(&meta, &m, &name)?;
        merged.union(&f, &name)?;
        for (ours, theirs) in meta.key_columns.iter_mut().zip(&m.key_columns) {
            if ours.name != theirs.name {
                ours.name.clear();
            }
            if ours.key_type != theirs.key_type {
                ours.key_type.clear();
            }
            if ours.logical_type != theirs.logical_type {
                ours.logical_type.clear();
            }
        }
        if meta.column != m.column {
            meta.column = None;
        }
        if meta.key_type != m.key_type {
            meta.key_type = None;
        }
        if meta.logical_type != m.logical_type {
            meta.logical_type = None;
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
    sizing.common_bits = merged.params().num_bits;
    if let (Some(p), true) = (sizing.fpp, by_blocks || sbbf) {
        // Counted as `train` counts the OR of its workers' partials (the keys inserted bound
        // the count there too), so that the merge of a training's shards folds to the
        // unsharded filter's size and bytes.
        let (_, n) = crate::train::counted_distinct(&merged.bit_stats(), merged.inserted());
        merged = crate::train::fold_to_target(merged, n, p)?;
        sizing.estimated_distinct = Some(n);
        sizing.model_fpp = Some(merged.params().model_fpp(n));
    }
    meta.fpp = sizing.fpp;
    Ok((merged, meta, sizing))
}

/// Whether the file at `loc` is a Parquet file (starts with `PAR1`), read with one ranged
/// read of 4 bytes.
fn is_parquet(loc: &Location) -> Result<bool> {
    let io = crate::plan::RangeReader::open(loc)?;
    if io.size()? < 8 {
        return Ok(false);
    }
    let head = io.fetch(std::slice::from_ref(&(0..4)))?;
    Ok(head.first().is_some_and(|b| &b[..] == b"PAR1"))
}

/// The Parquet Bloom filters of `column` in the Parquet file `location` (row group
/// `row_group`, or all of them) as sbbf-layout partials, named `FILE row group N`. Every row
/// group asked for must have one: a merged filter must hold every value of the file.
fn column_partials(
    location: &str,
    column: &str,
    row_group: Option<usize>,
) -> Result<Vec<(String, BloomFilter, FilterMeta)>> {
    let f = ColumnFilters::read(location, column, row_group)?;
    let physical = Physical::of(f.physical).ok_or_else(|| {
        Error::param(
            "--column",
            format!(
                "{location}: column {column:?} is {}: sbbf filters hash INT32, INT64, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY values",
                f.physical
            ),
        )
    })?;
    let mut out = Vec::with_capacity(f.groups.len());
    for (rg, rows, filter) in &f.groups {
        let Some((sbbf, _)) = filter else {
            return Err(Error::Usage(format!(
                "{location}: row group {rg} has no Parquet Bloom filter on column {column:?}, so a merge could not hold its values (pick row groups with --row-group)"
            )));
        };
        // A column chunk's filter does not record how many values went in: count its rows.
        let filter = BloomFilter::from_sbbf(sbbf, physical, *rows)?;
        let meta = FilterMeta {
            column: Some(column.to_string()),
            inputs: vec![location.to_string()],
            ..FilterMeta::new()
        };
        out.push((format!("{location} row group {rg}"), filter, meta));
    }
    Ok(out)
}

/// Refuse to merge a composite-key filter with one of another arity or other component
/// families (a one-column filter records none).
fn check_key_columns(ours: &FilterMeta, theirs: &FilterMeta, name: &str) -> Result<()> {
    let families = |m: &FilterMeta| {
        m.key_columns
            .iter()
            .map(|c| c.family.to_string())
            .collect::<Vec<_>>()
    };
    let (a, b) = (families(ours), families(theirs));
    if a != b {
        let show = |f: Vec<String>| {
            if f.is_empty() {
                "one column".to_string()
            } else {
                format!("{} columns ({})", f.len(), f.join(", "))
            }
        };
        return Err(Error::Incompatible {
            location: name.to_string(),
            field: "key columns",
            ours: show(a),
            theirs: show(b),
        });
    }
    Ok(())
}

/// Run `merge`.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let out = Location::parse(&args.output)?;
    out.check_file_output()?;
    if !args.overwrite && out.exists()? {
        return Err(Error::OutputExists {
            location: out.to_string(),
        });
    }
    let mut parts = Vec::with_capacity(args.partials.len());
    let mut first_format = None;
    let mut parquet_inputs = 0;
    // The first partial in Spark's format and the first of any other kind (native or a
    // Parquet file's Bloom filters), which may not be merged together.
    let (mut first_spark, mut first_other): (Option<String>, Option<String>) = (None, None);
    for p in &args.partials {
        let loc = Location::parse(p)?;
        if is_parquet(&loc)? {
            let Some(column) = &args.column else {
                return Err(Error::param(
                    "--column",
                    format!("{p} is a Parquet file: give --column C, the column whose Parquet Bloom filters to merge"),
                ));
            };
            parquet_inputs += 1;
            first_other.get_or_insert_with(|| p.clone());
            first_format.get_or_insert(FileFormat::Native);
            parts.extend(column_partials(p, column, args.row_group)?);
            continue;
        }
        let (f, m, format) = codec::read_with_format(&loc)?;
        first_format.get_or_insert(format);
        if format == FileFormat::Spark {
            first_spark.get_or_insert_with(|| p.clone());
        } else {
            first_other.get_or_insert_with(|| p.clone());
        }
        parts.push((p.clone(), f, m));
    }
    // A file in Spark's format records neither how its keys were hashed (plain or
    // xxhash64) nor their type, which a native filter records; taken as plain, an xxhash64
    // shard merged into a native filter made every one of its keys a false negative (audit,
    // 2026-11-26).
    if let (Some(spark), Some(other)) = (&first_spark, &first_other) {
        return Err(Error::Usage(format!(
            "cannot merge {spark} with {other}: {spark} is in Spark's format, which does not record how its keys were hashed or their type; merge the Spark-format partials on their own, or train every shard in one format"
        )));
    }
    if args.column.is_some() && parquet_inputs == 0 {
        return Err(Error::param(
            "--column",
            "applies to Parquet files among the partials, and there are none",
        ));
    }
    let n = parts.len();
    let (merged, meta, sizing) = merge_and_fold(parts)?;
    let format = args.format.or(first_format).unwrap_or_default();
    format.check_layout(merged.params().layout, "--format")?;
    let merged = std::sync::Arc::new(merged);
    let bytes = codec::write_as(&out, &merged, &meta, format, args.overwrite)?;
    if !sizing.folded_partials.is_empty() && !quiet {
        eprintln!(
            "folded {} to the common size of {} bits before the OR",
            sizing.folded_partials.join(", "),
            sizing.common_bits
        );
    }
    let stats = merged.bit_stats();
    let est = stats.estimated_fpp();
    if merged.params().layout == Layout::Sbbf && !sizing.folded_partials.is_empty() && est > 0.5 {
        // Even with -q: SBBFs cannot grow, and the smallest one is too small for all the keys.
        eprintln!(
            "bloomjoin: warning: the merged filter is nearly full (est. fpp {est:.6} in m={} bits, the smallest partial's size); merge fewer or similar-sized row groups (--row-group N), or train an sbbf-layout filter on the column",
            merged.params().num_bits
        );
    }
    if let (Some(p), Some(d)) = (sizing.fpp, sizing.estimated_distinct) {
        let model = sizing.model_fpp.unwrap_or(f64::NAN);
        if sizing.misses(est) {
            // Even with -q: the filter is weaker than its partials promised.
            eprintln!(
                "bloomjoin: warning: the merged filter misses its target fpp {p}: ~{d} distinct keys in m={} bits (model fpp {model:.6}, est. fpp {:.6}); the smallest partial is too small for all the keys, retrain it larger",
                merged.params().num_bits,
                est
            );
        } else if !quiet {
            eprintln!(
                "re-checked fpp {p}: ~{d} distinct keys (from the bits), folded {} to {} bits, model fpp {model:.6}",
                sizing.common_bits,
                merged.params().num_bits
            );
        }
    }
    if !sizing.missing_shards.is_empty() {
        // Even with -q: a join using this filter would drop the rows of those shards' keys.
        let shards: Vec<String> = sizing.missing_shards.iter().map(u64::to_string).collect();
        eprintln!(
            "bloomjoin: warning: shard{} {} of the training {} not among the partials: the merged filter lacks their keys; merge them in before using it",
            if shards.len() == 1 { "" } else { "s" },
            shards.join(", "),
            if shards.len() == 1 { "is" } else { "are" },
        );
    }
    if !quiet {
        eprintln!(
            "merged {n} filters into {out} ({format} format): {} keys inserted, fill ratio {:.4}, est. fpp {:.6}, {} bytes",
            merged.inserted(),
            stats.fill_ratio(),
            est,
            bytes
        );
    }
    Ok(())
}
