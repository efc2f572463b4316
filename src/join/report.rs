//! What the join job did: the counters of its `--report` and its human summary.

use serde::Serialize;

use crate::bloom::BloomParams;
use crate::join::{JoinType, Strategy};
use crate::report::human_bytes;

/// Counters of one side's map stage.
#[derive(Debug, Default, Serialize)]
pub struct SideReport {
    /// Input files read.
    pub files: usize,
    /// Files not opened: their Hive partition values fail the side's `--where`.
    pub files_pruned_by_partition: usize,
    /// Files not opened: their key is one partition column, and the trained `--filter` rules
    /// its value out (right side, while planning; their rows are not known).
    pub files_pruned_by_partition_key: usize,
    /// Splits read.
    pub splits: usize,
    /// Rows in the row groups read (after skipping).
    pub rows_read: u64,
    /// Bytes fetched.
    pub bytes_read: u64,
    /// Of those, bytes of remote files fetched ahead of the worker that read them, while
    /// other splits were decoded.
    pub bytes_read_ahead: u64,
    /// Row groups skipped by key min/max statistics (right side, prefilter tier 1).
    pub row_groups_skipped: u64,
    /// Rows in skipped row groups.
    pub rows_skipped_by_stats: u64,
    /// Compressed bytes of the columns those row groups would have decoded.
    pub bytes_skipped_by_stats: u64,
    /// Row groups skipped by the right files' own Parquet Bloom filters (SBBF) on the key.
    pub row_groups_skipped_by_sbbf: u64,
    /// Rows in those row groups.
    pub rows_skipped_by_sbbf: u64,
    /// Compressed bytes of the columns those row groups would have decoded.
    pub bytes_skipped_by_sbbf: u64,
    /// Row groups whose SBBF was fetched and probed.
    pub row_groups_sbbf_probed: u64,
    /// Bytes of SBBFs fetched (part of `bytes_read`).
    pub sbbf_bytes_read: u64,
    /// Files not read (but for their footers, at planning): their key is all partition
    /// columns, and the key tiers ruled out its one value (right side; as Spark's dynamic
    /// partition pruning).
    pub files_skipped_by_partition_key: u64,
    /// Rows of those files (also counted as dropped by the tier that ruled their key out).
    pub rows_skipped_by_partition_key: u64,
    /// Rows dropped by the Bloom filter (right side, prefilter tier 2).
    pub rows_dropped_by_filter: u64,
    /// Rows dropped by the left keys themselves (right side, prefilter tier 3, replicated).
    pub rows_dropped_by_keys: u64,
    /// Rows dropped by `--left-where` / `--right-where`.
    pub rows_dropped_by_where: u64,
    /// Row groups never read: the statistics of their `--left-where` / `--right-where`
    /// columns (of the row group, or of every page in the page index) show that no row can
    /// pass.
    pub row_groups_skipped_by_where: u64,
    /// Rows of those row groups, and of the pages of other row groups that the page index
    /// rules out (not counted as read or dropped).
    pub rows_skipped_by_where: u64,
    /// Of those, the rows of pages that the page index rules out in the row groups read.
    pub rows_skipped_by_page_index: u64,
    /// Rows dropped because their key is null and the join type does not keep them.
    pub rows_dropped_null_key: u64,
    /// Rows handed to the join with a null key (in any column): those the join type keeps
    /// unmatched and, under `--nulls-equal`, those that may match.
    pub rows_null_key: u64,
    /// Rows the map stage handed to the join (built or probed under `replicated`, shuffled
    /// under `reduce-side`).
    pub rows_mapped: u64,
}

/// How the join was executed, and why.
#[derive(Debug, Serialize)]
pub struct StrategyReport {
    /// What `--strategy` asked for.
    pub requested: Strategy,
    /// What ran: `replicated` or `reduce-side`.
    pub used: Strategy,
    /// Why.
    pub reason: String,
    /// Bytes of left rows held in memory for the build (replicated), or of the largest
    /// partition (reduce-side).
    pub build_bytes: u64,
    /// The memory budget (`--memory-limit`).
    pub memory_limit: u64,
    /// Partitions of the shuffle (reduce-side only).
    pub partitions: Option<usize>,
    /// Bytes the shuffle wrote to local disk (reduce-side only).
    pub spilled_bytes: Option<u64>,
    /// Partitions whose left rows were over `--memory-limit` and were joined in passes, a
    /// chunk of left rows at a time (reduce-side only).
    pub partitions_in_passes: Option<usize>,
    /// The most passes any partition took over its right rows (reduce-side only; 1 when
    /// every partition fit the budget).
    pub max_passes: Option<u64>,
}

/// About the prefilter.
#[derive(Debug, Serialize)]
pub struct PrefilterReport {
    /// Whether the Bloom filter was applied.
    pub used: bool,
    /// Why not, when it was not.
    pub reason: Option<String>,
    /// The filter's location (`--filter`).
    pub filter: Option<String>,
    /// When the join built the filter in memory from the left side's keys (no `--filter`):
    /// the left rows it holds, the count it was sized for.
    pub built_from_rows: Option<u64>,
    /// The filter's parameters.
    pub params: Option<BloomParams>,
    /// The tiers that ran on the right side, cheapest first (`statistics`, `bloom`, `keys`).
    pub tiers: Vec<&'static str>,
    /// Right rows that passed the Bloom filter but have no left match (dropped by the `keys`
    /// tier, or probed in vain).
    pub false_positives: u64,
    /// `false_positives / (false_positives + rows dropped by the filter)`.
    pub observed_fpp: Option<f64>,
    /// Skipping right row groups with the right files' own Parquet Bloom filters.
    pub sbbf: SbbfReport,
}

/// About SBBF pruning: the right files' own Parquet Bloom filters probed with the left keys.
#[derive(Debug, Serialize)]
pub struct SbbfReport {
    /// Whether it ran.
    pub used: bool,
    /// Why not, when it did not.
    pub reason: Option<String>,
    /// The left side's distinct keys, when collected and at most `max_keys`.
    pub left_distinct_keys: Option<u64>,
    /// `--sbbf-max-keys`.
    pub max_keys: usize,
    /// Row groups whose filter could not be read (read in full; a warning).
    pub unreadable: u64,
}

/// What `--join-where` did.
#[derive(Debug, Serialize)]
pub struct JoinWhereReport {
    /// The condition as written.
    pub condition: String,
    /// Its conjuncts on one side's columns alone that went into that side's where
    /// (`pushed_to_left`, `pushed_to_right`; that side's unmatched rows are not kept, so a
    /// row they fail has no match anyway): they drop rows as the side is read, counted in
    /// its `rows_dropped_by_where`.
    #[serde(flatten)]
    pub pushed: crate::join::condition::Pushed,
    /// What stays a condition on the pairs of matching keys (`None`: nothing; the counters
    /// below are then zero).
    pub on_pairs: Option<String>,
    /// Its counters.
    #[serde(flatten)]
    pub counts: crate::reduce::ConditionCounts,
}

impl JoinWhereReport {
    /// The summary's `on` lines.
    fn summary(&self) -> String {
        let mut s = String::new();
        s += &self.pushed.lines();
        if let Some(c) = &self.on_pairs {
            s += &format!(
                "  on     {c:?} held for {} of {} pairs of matching keys; {} right rows unmatched by it\n",
                self.counts.pairs_passed, self.counts.pairs_tested, self.counts.right_rows_failed
            );
        }
        s
    }
}

/// What a commit that keeps parts did to the committed output (`--append`,
/// `--overwrite-partitions`).
#[derive(Debug, Default, Serialize)]
pub struct KeptReport {
    /// Its parts named in the new manifest.
    pub parts: usize,
    /// Its partition directories that stay (0 when it is not partitioned).
    pub partition_dirs: usize,
    /// `--overwrite-partitions`: its partition directories replaced by this run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_dirs_replaced: Option<usize>,
}

/// The output line's partition directories (`, in 3 partition directories of Score`).
pub(crate) fn partition_dirs_summary(cols: &[String], dirs: usize) -> String {
    format!(
        ", in {dirs} partition director{} of {}",
        if dirs == 1 { "y" } else { "ies" },
        cols.join(", ")
    )
}

impl KeptReport {
    /// What became of the committed output, for a summary's output line.
    pub(crate) fn summary(&self) -> String {
        let dirs = |n: usize| format!("{n} director{}", if n == 1 { "y" } else { "ies" });
        match self.partition_dirs_replaced {
            Some(r) => format!(
                "; replaced {} of the committed output, kept {} ({} parts)",
                dirs(r),
                dirs(self.partition_dirs),
                self.parts
            ),
            None => format!("; added to the committed output's {} parts", self.parts),
        }
    }

    /// What a commit kept of the output committed before, for a run with `mode`.
    pub(crate) fn of(committed: crate::commit::Committed, mode: crate::commit::WriteMode) -> Self {
        KeptReport {
            parts: committed.parts_kept,
            partition_dirs: committed.partitions_kept,
            partition_dirs_replaced: (mode == crate::commit::WriteMode::OverwritePartitions)
                .then_some(committed.partitions_replaced),
        }
    }
}

/// Time per stage, in milliseconds.
#[derive(Debug, Default, Serialize)]
pub struct JoinTimes {
    /// Loading the filter, planning both sides.
    pub plan_ms: u64,
    /// Left map and hash-table build (replicated) or left shuffle (reduce-side).
    pub build_ms: u64,
    /// Right map with the prefilter, and probing and part writing (replicated) or the right
    /// shuffle (reduce-side).
    pub probe_ms: u64,
    /// The reducers: build, probe and part writing per partition (reduce-side).
    pub reduce_ms: u64,
    /// Moving parts into place, `_SUCCESS`.
    pub commit_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// What the join job did: the counters of its `--report`.
#[derive(Debug, Serialize)]
pub struct JoinReport {
    /// `bloomjoin <version>`.
    pub created_by: &'static str,
    /// The join type.
    pub join_type: JoinType,
    /// `--nulls-equal`: null key components matched each other.
    pub nulls_equal: bool,
    /// `--coalesce-keys`: each key pair is one output column.
    pub coalesce_keys: bool,
    /// Map workers.
    pub workers: usize,
    /// The strategy and why.
    pub strategy: StrategyReport,
    /// Output parts written.
    pub parts: usize,
    /// `--partition-by`: the partition columns, in the order of their directories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_by: Option<Vec<String>>,
    /// With `--partition-by`: the partition directories written (each holds one or more
    /// parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_dirs: Option<usize>,
    /// With `--partition-by`: output rows of directories that a task met when it already
    /// had every part slot open (more directories than it keeps parts open, in no order):
    /// held, or spilled to local disk sorted by directory, and written when the task ended,
    /// so that each directory still has one part per task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_overflow_rows: Option<u64>,
    /// What the commit did to the output committed before (`--append`,
    /// `--overwrite-partitions` to a committed output; absent otherwise): its parts and
    /// partition directories kept, and its partition directories replaced. `_SUCCESS` has it
    /// too, counted under the commit's lease as the manifest is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<KeptReport>,
    /// `--join-where`: the condition and what it did (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join_where: Option<JoinWhereReport>,
    /// Left side counters.
    pub left: SideReport,
    /// Right side counters.
    pub right: SideReport,
    /// The prefilter.
    pub prefilter: PrefilterReport,
    /// Output directory.
    pub output: String,
    /// Output columns.
    pub columns: Vec<String>,
    /// Rows written.
    pub rows_out: u64,
    /// Bytes written (Parquet parts).
    pub bytes_out: u64,
    /// Time per stage.
    pub times: JoinTimes,
    /// Peak resident memory of the process, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Warnings (e.g. the filter was trained on another column); the command line prints
    /// them on stderr, even with `--quiet`.
    pub warnings: Vec<String>,
}

impl JoinReport {
    /// The human summary with the counters.
    pub fn summary(&self) -> String {
        let st = &self.strategy;
        let mut s = format!(
            "joined ({} join{}{}, {} strategy, {} workers, {} parts) into {}\n",
            self.join_type.name(),
            if self.nulls_equal {
                ", nulls equal"
            } else {
                ""
            },
            if self.coalesce_keys {
                ", keys coalesced"
            } else {
                ""
            },
            st.used.name(),
            self.workers,
            self.parts,
            self.output
        );
        s += &format!("  plan   {}\n", st.reason);
        if let (Some(n @ 1..), Some(m)) = (st.partitions_in_passes, st.max_passes) {
            let (what, whose) = if n == 1 {
                ("partition", "its")
            } else {
                ("partitions", "their")
            };
            s += &format!(
                "  passes {n} {what} with left rows over --memory-limit, joined a chunk of left rows at a time in up to {m} passes over {whose} right rows\n"
            );
        }
        for (name, side) in [("left", &self.left), ("right", &self.right)] {
            s += &format!(
                "  {name:<6} {} files{}{}, {} splits, {} rows read ({}), {} dropped by where{}, {} null keys dropped{}, {} to the join\n",
                side.files,
                crate::report::pruned_note(side.files_pruned_by_partition),
                match side.files_pruned_by_partition_key {
                    0 => String::new(),
                    n => format!(" (and {n} not opened: the filter rules out their partition key)"),
                },
                side.splits,
                side.rows_read,
                human_bytes(side.bytes_read),
                side.rows_dropped_by_where,
                crate::report::where_skipped_note(
                    side.row_groups_skipped_by_where,
                    side.rows_skipped_by_where,
                    side.rows_skipped_by_page_index
                ),
                side.rows_dropped_null_key,
                match self.nulls_equal {
                    true => format!(" ({} kept, --nulls-equal)", side.rows_null_key),
                    false => String::new(),
                },
                side.rows_mapped
            );
        }
        if let Some(w) = &self.join_where {
            s += &w.summary();
        }
        let p = &self.prefilter;
        if p.used {
            if let (Some(n), Some(params)) = (p.built_from_rows, &p.params) {
                s += &format!(
                    "  filter built from the left side's {n} rows ({}, k={}, model fpp {:.4})\n",
                    human_bytes(params.num_bytes()),
                    params.num_hashes,
                    params.model_fpp(n.max(1)),
                );
            }
            s += &format!(
                "  filter {} rows dropped by the filter, {} row groups ({} rows) skipped by statistics, {} dropped by the left keys, {} false positives (observed fpp {})\n",
                self.right.rows_dropped_by_filter,
                self.right.row_groups_skipped,
                self.right.rows_skipped_by_stats,
                self.right.rows_dropped_by_keys,
                p.false_positives,
                p.observed_fpp.map_or("n/a".into(), |f| format!("{f:.4}"))
            );
            if self.right.files_skipped_by_partition_key > 0 {
                s += &format!(
                    "  filter {} files ({} rows) never read: their partition key was ruled out\n",
                    self.right.files_skipped_by_partition_key,
                    self.right.rows_skipped_by_partition_key,
                );
            }
        } else {
            s += &format!("  filter off: {}\n", p.reason.as_deref().unwrap_or(""));
        }
        if p.sbbf.used {
            s += &format!(
                "  sbbf   {} row groups ({} rows, {}) skipped by Parquet Bloom filters of {} probed ({} left keys, {} of filters read)\n",
                self.right.row_groups_skipped_by_sbbf,
                self.right.rows_skipped_by_sbbf,
                human_bytes(self.right.bytes_skipped_by_sbbf),
                self.right.row_groups_sbbf_probed,
                p.sbbf.left_distinct_keys.unwrap_or(0),
                human_bytes(self.right.sbbf_bytes_read),
            );
        } else {
            s += &format!("  sbbf   off: {}\n", p.sbbf.reason.as_deref().unwrap_or(""));
        }
        s += &format!(
            "  output {} rows, {}",
            self.rows_out,
            human_bytes(self.bytes_out)
        );
        if let (Some(cols), Some(dirs)) = (&self.partition_by, self.partition_dirs) {
            s += &partition_dirs_summary(cols, dirs);
            if let Some(n @ 1..) = self.partition_overflow_rows {
                s += &format!(
                    " ({n} rows held or spilled sorted by directory: more directories than a task keeps parts open)"
                );
            }
        }
        if let Some(k) = &self.kept {
            s += &k.summary();
        }
        s += "\n";
        let t = &self.times;
        s += &format!(
            "  time   {} ms (plan {}, build {}, probe {}, reduce {}, commit {})",
            t.total_ms, t.plan_ms, t.build_ms, t.probe_ms, t.reduce_ms, t.commit_ms
        );
        if let Some(r) = self.peak_rss_bytes {
            s += &format!(", peak RSS {}", human_bytes(r));
        }
        s + "\n"
    }
}
