//! Atomic commit of a directory of output parts, Hadoop style, on any object store, and the
//! [`PartWriter`] that writes one part.
//!
//! Protocol (plain renames, create-only and conditional puts, so on S3 too):
//! 1. [`OutputDir::prepare`]: refuse a committed output (one with `_SUCCESS`) unless
//!    `--overwrite`, `--append` or `--overwrite-partitions` ([`WriteMode`]); list the location once, so that a missing
//!    bucket or a denied request fails the job before any work.
//! 2. Tasks write `<output>/_temporary/<run-id>/part-NNNNN.parquet`.
//! 3. When every task succeeded, the run takes the output's commit lease (`_lease`: an
//!    exclusive file lock for local outputs, a create-only object renewed and taken over with
//!    conditional puts on object stores), so commits to one output never interleave. Holding
//!    it, the run refuses an output committed meanwhile (without `--overwrite`) or removes the
//!    old `_SUCCESS` (with it, so no reader sees a `_SUCCESS` next to a mix of old and new
//!    parts), renames each part to `part-NNNNN-<run-id>.parquet` (a rename never exposes a
//!    half-written object), writes `_SUCCESS` create-only with the report, the run id and the
//!    part names (the manifest), removes the parts that earlier runs left, and releases the
//!    lease. Appending (`--append`), the run reads the committed manifest under the lease
//!    instead of removing it, moves its parts in, and replaces `_SUCCESS` in one put with a
//!    manifest of the committed parts and its own; the committed parts are not "left" by
//!    earlier runs and stay. Until that put the old manifest stands: a failure moves this
//!    run's parts out again, and a killed run's are removed by the next. Replacing
//!    partitions (`--overwrite-partitions`) commits as appending does, but the new manifest
//!    names only the committed parts of the partition directories this run did not write;
//!    those of the directories it wrote are no longer named, and removed after the put.
//!
//! A run removes only files whose names carry a bloomjoin run id: its own staging and parts,
//! the final-name parts of earlier runs (a replaced output, a failed or killed run: under the
//! lease no other run can be committing them), and the staging of runs whose process is known
//! to be dead (same machine, no such process), and the local output directory and parents
//! it created and left empty. A live run's staging stays. A directory that holds anything
//! else (a person's `part-1.parquet`, another tool's parts, a subdirectory; names that begin
//! with `_` or `.` aside, which readers skip) is refused before the run, with or without
//! `--overwrite`, as Spark and DuckDB refuse a non-empty output: readers would take those
//! files for part of the output, and they are not ours to delete.
//!
//! An output "exists" when it has a `_SUCCESS`. A run that failed, was killed or was
//! cancelled leaves no `_SUCCESS` and no partly written part under a final name; the next run
//! cleans up after it. A run that exits 0 leaves a committed output: `_SUCCESS` and exactly the
//! parts its manifest names (until a later `--overwrite` run replaces them the same way).

use std::num::{NonZeroU64, NonZeroUsize};
use std::time::{Duration, Instant};

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, SchemaRef};
use bytes::Bytes;
use futures::TryStreamExt;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use parquet::arrow::ArrowWriter;
use parquet::basic::{
    BrotliLevel, Compression, Encoding, GzipLevel, Type as PhysicalType, ZstdLevel,
};
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;

use crate::error::{Error, Result};
use crate::store::{block_on, Location};

pub(crate) mod overflow;
pub(crate) mod partition;

/// The entries of an output directory (name, whether it is a directory) that bloomjoin did
/// not write, sorted: everything but `_SUCCESS`, `_lease`, `_temporary` and other names that
/// begin with `_` or `.` (which Hadoop, Spark, DuckDB and Arrow readers skip) and the parts of
/// bloomjoin runs (`part-NNNNN-<run-id>.parquet`).
fn foreign_entries(entries: impl IntoIterator<Item = (String, bool)>) -> Vec<String> {
    let mut names: Vec<String> = entries
        .into_iter()
        .filter(|(name, dir)| {
            crate::plan::is_data_name(name) && (*dir || part_run_id(name).is_none())
        })
        .map(|(name, dir)| if dir { format!("{name}/") } else { name })
        .collect();
    names.sort();
    names
}

/// The marker written last.
pub const SUCCESS: &str = "_SUCCESS";
/// The staging folder.
pub const TEMPORARY: &str = "_temporary";
/// The commit lease.
pub const LEASE: &str = "_lease";

/// What a run does with an output that is already committed (one with `_SUCCESS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Refuse it (the default).
    #[default]
    Create,
    /// Replace it: its parts are removed once this run's are committed (`--overwrite`).
    Overwrite,
    /// Add to it: its parts stay, and the new `_SUCCESS` names them and this run's
    /// (`--append`, Spark's `mode("append")`).
    Append,
    /// Replace the partitions this run writes: the committed parts in the partition
    /// directories that this run's parts are in are removed once this run's are committed,
    /// and the others stay (`--overwrite-partitions`, Spark's dynamic
    /// `partitionOverwriteMode`).
    OverwritePartitions,
}

impl WriteMode {
    /// True when the committed output's parts (some or all) stay in the new manifest.
    pub(crate) fn keeps_parts(self) -> bool {
        matches!(self, WriteMode::Append | WriteMode::OverwritePartitions)
    }

    /// The mode's name, as the dry run's JSON gives it: `create`, `overwrite`, `append` or
    /// `overwrite-partitions`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            WriteMode::Create => "create",
            m => m.flag().trim_start_matches("--"),
        }
    }

    /// The option that asks for this mode (none for [`WriteMode::Create`]).
    pub(crate) fn flag(self) -> &'static str {
        match self {
            WriteMode::Create => "",
            WriteMode::Overwrite => "--overwrite",
            WriteMode::Append => "--append",
            WriteMode::OverwritePartitions => "--overwrite-partitions",
        }
    }
}

/// The committed parts a commit kept (appending, or replacing partitions): those named in the
/// new manifest, all those named in the old one that were there, and the output's listing
/// under the lease, before this run's parts moved in (for [`OutputDir::remove_stale`]).
struct KeptParts {
    kept: Vec<String>,
    before: Vec<String>,
    listed: Vec<ObjPath>,
}

/// What a commit did to the output that was committed before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Committed {
    /// Its parts that stay (named in the new manifest): all of them appending, those of the
    /// partitions this run did not write replacing partitions, none otherwise.
    pub parts_kept: usize,
    /// Its partition directories that this run replaced (`--overwrite-partitions`).
    pub partitions_replaced: usize,
    /// Its partition directories that stay.
    pub partitions_kept: usize,
}

impl KeptParts {
    /// The counts of what was kept and replaced.
    fn counts(&self) -> Committed {
        let dirs = |names: &[String]| -> std::collections::BTreeSet<String> {
            names.iter().map(|n| partition_of(n).to_string()).collect()
        };
        let (kept_dirs, before_dirs) = (dirs(&self.kept), dirs(&self.before));
        let partitions =
            |d: &std::collections::BTreeSet<String>| d.iter().filter(|d| !d.is_empty()).count();
        // Appending keeps every directory: none is replaced.
        Committed {
            parts_kept: self.kept.len(),
            partitions_replaced: partitions(&before_dirs) - partitions(&kept_dirs),
            partitions_kept: partitions(&kept_dirs),
        }
    }
}

/// The partition directories of a part's name relative to the output (`a=1/b=x` of
/// `a=1/b=x/part-00000-<run-id>.parquet`; empty for a part at the top).
fn partition_of(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(dirs, _)| dirs)
}

/// An output directory being written by one run.
#[derive(Debug)]
pub struct OutputDir {
    dir: Location,
    run_id: String,
    mode: WriteMode,
    /// The local directories that did not exist before this run (the output directory and
    /// its missing parents, deepest first): removed again when the run leaves them empty
    /// (failed or cancelled).
    created: Vec<std::path::PathBuf>,
}

/// A new run id: 32 hex digits, the start time in nanoseconds (16), this machine's
/// [`host_id`](crate::sys::host_id) (8) and the process id (8), so later runs can tell the runs
/// of dead processes on this machine from live ones.
fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!(
        "{nanos:016x}{:08x}{:08x}",
        crate::sys::host_id(),
        std::process::id()
    )
}

/// True for a run id bloomjoin writes: 32 lowercase hex digits, or the 21 of versions before
/// the commit lease.
fn is_run_id(s: &str) -> bool {
    (s.len() == 32 || s.len() == 21) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The run id in a final part name, if the name is one: `part-NNNNN-<run-id>.parquet`, or
/// `part-NNNNN-K-<run-id>.parquet` (a task's K-th further part in a partition directory).
fn part_run_id(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("part-")?.strip_suffix(".parquet")?;
    let (num, id) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let id = match id.split_once('-') {
        Some((k, id)) if digits(k) => id,
        _ => id,
    };
    (num.len() == 5 && digits(num) && is_run_id(id)).then_some(id)
}

/// True for a Hive partition directory's name (`dt=2024-01-01`): a name with a `=` after its
/// first character that readers do not skip.
fn is_partition_dir(name: &str) -> bool {
    crate::plan::is_data_name(name) && name.find('=').is_some_and(|i| i > 0)
}

/// A path below an output directory split into its number of directories and its file
/// name, when every directory is a partition directory (none: a file at the top).
fn in_partition_dirs(rel: &str) -> Option<(usize, &str)> {
    let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    let dirs: Vec<&str> = dirs.split('/').filter(|d| !d.is_empty()).collect();
    dirs.iter()
        .all(|d| is_partition_dir(d))
        .then_some((dirs.len(), file))
}

/// True for a path below an output directory that a partitioned bloomjoin run wrote:
/// partition directories down to a final part name (or a name readers skip).
fn is_partitioned_part(rel: &str) -> bool {
    in_partition_dirs(rel).is_some_and(|(dirs, file)| {
        dirs > 0 && (part_run_id(file).is_some() || !crate::plan::is_data_name(file))
    })
}

/// True when the run `id` (a 32-digit id) belongs to a process of this machine that is gone.
fn run_is_dead(id: &str) -> bool {
    if id.len() != 32 || !is_run_id(id) {
        return false;
    }
    let host = u32::from_str_radix(&id[16..24], 16).ok();
    let pid = u32::from_str_radix(&id[24..32], 16).ok();
    match (host, pid) {
        (Some(h), Some(p)) => h == crate::sys::host_id() && !crate::sys::process_alive(p),
        _ => false,
    }
}

fn env_secs(name: &str, default: f64) -> Duration {
    let secs = std::env::var(name)
        .ok()
        .and_then(|v| crate::store::positive_secs(&v))
        .unwrap_or(default);
    Duration::from_secs_f64(secs)
}

impl OutputDir {
    /// Claim `dir` for a run: refuse a committed output (one with `_SUCCESS`) unless `mode`
    /// replaces or appends to it, and a directory that holds files bloomjoin did not write,
    /// whatever the mode (readers of the output would take them for part of it; see
    /// [`foreign_entries`]); fail now when the location cannot be listed (a missing bucket).
    pub fn prepare(dir: Location, mode: WriteMode) -> Result<OutputDir> {
        let mut created = Vec::new();
        dir.check_creatable()?;
        let foreign = if let Some(p) = dir.local_path() {
            if p.is_file() {
                return Err(Error::Location {
                    location: dir.to_string(),
                    reason: "is a file; the join output is a directory".into(),
                });
            }
            created = p
                .ancestors()
                .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
                .map(|a| a.to_path_buf())
                .collect();
            let mut names = Vec::new();
            if created.is_empty() {
                let entries =
                    std::fs::read_dir(p).map_err(|e| Error::io(p.display().to_string(), e))?;
                for e in entries {
                    let e = e.map_err(|e| Error::io(p.display().to_string(), e))?;
                    let dir = e.file_type().is_ok_and(|t| t.is_dir());
                    names.push((e.file_name().to_string_lossy().into_owned(), dir));
                }
            }
            foreign_entries(names)
        } else {
            // A HEAD of a missing bucket is a plain 404; a listing names the cause.
            let list = block_on(dir.store().list_with_delimiter(Some(dir.path())))
                .map_err(|source| Error::store(dir.to_string(), source))?;
            if !dir.path().as_ref().is_empty() && dir.exists()? {
                return Err(Error::Location {
                    location: dir.to_string(),
                    reason: "is an object (a file); the join output is a directory".into(),
                });
            }
            let name = |p: &ObjPath| p.filename().unwrap_or_default().to_string();
            foreign_entries(
                list.objects
                    .iter()
                    .map(|o| (name(&o.location), false))
                    .chain(list.common_prefixes.iter().map(|p| (name(p), true))),
            )
        };
        // A partition directory is ours when it holds parts of partitioned runs and nothing
        // else (an empty one is no more ours than any other directory). One listing of the
        // output serves every such directory.
        let partition_dir = |name: &String| name.strip_suffix('/').is_some_and(is_partition_dir);
        let foreign = if foreign.iter().any(partition_dir) {
            let below: Vec<String> = list_below(&dir)?.iter().map(|p| rel(&dir, p)).collect();
            foreign
                .into_iter()
                .filter(|name| {
                    let under: Vec<&String> = below
                        .iter()
                        .filter(|r| r.starts_with(name.as_str()))
                        .collect();
                    let ours = partition_dir(name)
                        && !under.is_empty()
                        && under.iter().all(|r| is_partitioned_part(r));
                    !ours
                })
                .collect()
        } else {
            foreign
        };
        if !foreign.is_empty() {
            let more = if foreign.len() > 3 {
                format!(" and {} more", foreign.len() - 3)
            } else {
                String::new()
            };
            return Err(Error::Location {
                location: dir.to_string(),
                reason: format!(
                    "holds files bloomjoin did not write ({}{more}), which readers of the output would take for part of it: write to a new or empty directory, or move them",
                    foreign[..foreign.len().min(3)].join(", ")
                ),
            });
        }
        if mode == WriteMode::Create && dir.child(SUCCESS).exists()? {
            return Err(Error::OutputExists {
                location: dir.to_string(),
            });
        }
        Ok(OutputDir {
            dir,
            run_id: new_run_id(),
            mode,
            created,
        })
    }

    /// The output directory.
    pub fn location(&self) -> &Location {
        &self.dir
    }

    /// This run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// This run's staging folder.
    pub(crate) fn staging(&self) -> Staging {
        Staging {
            dir: self.dir.child(TEMPORARY).child(&self.run_id),
        }
    }

    /// Where task part `name` (e.g. `part-00003`, or `dt=2024-01-01/part-00003` in a
    /// partition directory) is staged.
    pub fn staged(&self, name: &str) -> Location {
        self.staging().part(name)
    }

    /// The final name of task part `name`, relative to the output directory
    /// (`dt=2024-01-01/part-00003-<run-id>.parquet`).
    pub fn final_name(&self, name: &str) -> String {
        format!("{name}-{}.parquet", self.run_id)
    }

    /// Run `stages`, which stage this run's parts and return its report and their names, then
    /// [`commit`](Self::commit) them with the report as `_SUCCESS`'s marker; when `stages`
    /// fails, what it staged is removed. The report, what the commit kept of the output
    /// committed before, and the commit's milliseconds.
    pub(crate) fn stage_and_commit<R: serde::Serialize>(
        &self,
        stages: impl FnOnce() -> Result<(R, Vec<String>)>,
    ) -> Result<(R, Option<Committed>, u64)> {
        let (report, parts) = stages().inspect_err(|_| self.cleanup_staging())?;
        let t_commit = Instant::now();
        let marker = serde_json::to_vec_pretty(&report).expect("report serializes");
        let committed = self.commit(&parts, Bytes::from(marker))?;
        Ok((report, committed, t_commit.elapsed().as_millis() as u64))
    }

    /// Under the output's commit lease: move the staged `parts` into place and write
    /// `_SUCCESS` with `marker` (a JSON object, the report; the run id and the part names are
    /// added to it), then remove what earlier runs left. On failure or cancellation, this
    /// run's moved parts are removed again and nothing is committed. What became of the
    /// output committed before, when this run kept some of it (appending or replacing
    /// partitions of a committed output).
    pub fn commit(&self, parts: &[String], marker: Bytes) -> Result<Option<Committed>> {
        let r = match Lease::acquire(&self.dir, &self.run_id) {
            Ok(mut lease) => {
                let mut moved = Vec::new();
                let r = self.try_commit(&mut lease, parts, marker, &mut moved);
                let r = match r {
                    Ok(mut kept) => {
                        let keep: Vec<Location> = kept
                            .iter()
                            .flat_map(|k| &k.kept)
                            .map(|name| self.dir.descend(name))
                            .collect();
                        let listed = kept.as_mut().map(|k| std::mem::take(&mut k.listed));
                        self.remove_stale(&[moved.as_slice(), keep.as_slice()].concat(), listed);
                        Ok(kept)
                    }
                    Err(e) => {
                        for l in &moved {
                            let _ = l.delete();
                        }
                        self.remove_empty_partition_dirs();
                        Err(e)
                    }
                };
                lease.release();
                r
            }
            Err(e) => Err(e),
        };
        self.cleanup_staging();
        Ok(r?.map(|k| k.counts()))
    }

    /// The commit under the lease. When the mode keeps parts of a committed output: those
    /// that stay (appended to, or in partitions this run did not write), and all its parts
    /// (those still there).
    fn try_commit(
        &self,
        lease: &mut Lease,
        parts: &[String],
        marker: Bytes,
        moved: &mut Vec<Location>,
    ) -> Result<Option<KeptParts>> {
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        let store = self.dir.store();
        let success = self.dir.child(SUCCESS);
        // Appending or replacing partitions: the committed parts, read under the lease (a run
        // that committed while this one worked is appended to as well).
        let mut before = Vec::new();
        let mut listed = Vec::new();
        let committed_before = success.exists()?;
        // This run keeps parts of a committed output: its `_SUCCESS` is replaced in one put.
        let keeping = self.mode.keeps_parts() && committed_before;
        if committed_before {
            match self.mode {
                // Another run committed while this one worked.
                WriteMode::Create => {
                    return Err(Error::OutputExists {
                        location: self.dir.to_string(),
                    })
                }
                WriteMode::Overwrite => success.delete()?,
                // The old `_SUCCESS` stays until the new one replaces it in one put: a
                // failure before leaves the committed output as it was.
                // (Those still there: a manifest names no part that a person removed.)
                WriteMode::Append | WriteMode::OverwritePartitions => {
                    listed = list_below(&self.dir)?;
                    let present: std::collections::HashSet<String> =
                        listed.iter().map(|p| rel(&self.dir, p)).collect();
                    before = committed(&self.dir, self.mode)?.0;
                    before.retain(|name| present.contains(name));
                }
            }
        }
        // Replacing partitions: the committed parts in the directories this run writes go.
        let written: std::collections::HashSet<&str> =
            parts.iter().map(|name| partition_of(name)).collect();
        let kept: Vec<String> = match self.mode {
            WriteMode::OverwritePartitions => before
                .iter()
                .filter(|name| !written.contains(partition_of(name)))
                .cloned()
                .collect(),
            _ => before.clone(),
        };
        let mut names = Vec::with_capacity(parts.len());
        for name in parts {
            lease.renew()?;
            let from = self.staged(name);
            let final_name = self.final_name(name);
            let to = self.dir.descend(&final_name);
            block_on(store.rename(from.path(), to.path()))
                .map_err(|source| Error::store(to.to_string(), source))?;
            moved.push(to);
            names.push(final_name);
        }
        crate::fault::hit("commit")?;
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        // Also proves that the lease is still this run's.
        lease.renew_now()?;
        let all: Vec<String> = kept.iter().chain(&names).cloned().collect();
        let kept = KeptParts {
            kept,
            before,
            listed,
        };
        // Keeping parts, the manifest says what stayed, as the report does.
        let kept_json = keeping.then(|| {
            serde_json::to_value(crate::join::KeptReport::of(kept.counts(), self.mode))
                .expect("JSON serializes")
        });
        let manifest = manifest(&marker, &self.run_id, &all, kept_json);
        // Keeping parts, the run replaces `_SUCCESS` in one put (readers see the old
        // manifest or the new); otherwise none is there, and a run that committed meanwhile
        // wins.
        let mode = match keeping {
            true => PutMode::Overwrite,
            false => PutMode::Create,
        };
        let opts = PutOptions {
            mode,
            ..Default::default()
        };
        match block_on(store.put_opts(success.path(), PutPayload::from(manifest), opts)) {
            Ok(_) => Ok(keeping.then_some(kept)),
            Err(object_store::Error::AlreadyExists { .. }) => Err(Error::OutputExists {
                location: self.dir.to_string(),
            }),
            Err(source) => Err(Error::store(success.to_string(), source)),
        }
    }

    /// After a commit: remove the final-name parts of earlier bloomjoin runs (none of them
    /// can be committing: this run holds the lease) and the staging of dead runs. Files
    /// without a bloomjoin run id in their name, and live runs' staging, stay.
    fn remove_stale(&self, ours: &[Location], listed: Option<Vec<ObjPath>>) {
        let keep: std::collections::HashSet<&str> =
            ours.iter().map(|l| l.path().as_ref()).collect();
        // The listing the commit made under this lease, before this run's parts moved in
        // (they are `ours`): nothing else can commit meanwhile, so it holds every stale part.
        let paths = match listed {
            Some(paths) => paths,
            None => match list_below(&self.dir) {
                Ok(paths) => paths,
                Err(_) => return,
            },
        };
        let mut dead_staging = Vec::new();
        for p in paths {
            let r = rel(&self.dir, &p);
            if keep.contains(p.as_ref()) {
                continue;
            }
            if let Some(staging) = r.strip_prefix(&format!("{TEMPORARY}/")) {
                let run = staging.split('/').next().unwrap_or_default();
                if run != self.run_id && run_is_dead(run) {
                    let _ = block_on(self.dir.store().delete(&p));
                    dead_staging.push(run.to_string());
                }
            } else if in_partition_dirs(&r).is_some_and(|(_, file)| part_run_id(file).is_some()) {
                let _ = block_on(self.dir.store().delete(&p));
            }
        }
        self.remove_empty_partition_dirs();
        for run in dead_staging {
            if let Some(p) = self.dir.child(TEMPORARY).child(&run).local_path() {
                let _ = std::fs::remove_dir_all(p);
            }
        }
    }

    /// Remove the local output's partition directories that hold nothing (those of a
    /// replaced output, or a failed commit's), deepest first. Object stores have no empty
    /// directories.
    fn remove_empty_partition_dirs(&self) {
        fn walk(dir: &std::path::Path) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.file_type().is_ok_and(|t| t.is_dir()) && is_partition_dir(&name) {
                    walk(&e.path());
                    // Fails, as it should, when the directory holds anything.
                    let _ = std::fs::remove_dir(e.path());
                }
            }
        }
        if let Some(p) = self.dir.local_path() {
            walk(p);
        }
    }

    /// Remove this run's staged files (best effort; used on failure and after commit).
    pub fn cleanup_staging(&self) {
        let staging = self.staging().dir;
        if let Ok(paths) = list_below(&staging) {
            for p in paths {
                let _ = block_on(self.dir.store().delete(&p));
            }
        }
        if let Some(p) = staging.local_path() {
            let _ = std::fs::remove_dir_all(p);
            if let Some(parent) = p.parent() {
                // Only removes `_temporary` when no other run is staging.
                let _ = std::fs::remove_dir(parent);
            }
        }
        // Only when empty, deepest first: a failed or cancelled run leaves no directory it
        // made, the output's missing parents included.
        for p in &self.created {
            if std::fs::remove_dir(p).is_err() {
                break;
            }
        }
    }
}

/// A run's staging folder, `<output>/_temporary/<run-id>`.
#[derive(Debug, Clone)]
pub(crate) struct Staging {
    dir: Location,
}

impl Staging {
    /// Where part `name` (maybe in partition directories: `dt=2024-01-01/part-00003`) is
    /// staged.
    pub(crate) fn part(&self, name: &str) -> Location {
        self.dir.descend(&format!("{name}.parquet"))
    }
}

/// The codec of the output parts' pages (`--compression`), as DuckDB's `COMPRESSION` and
/// Spark's `spark.sql.parquet.compression.codec` name them.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[value(rename_all = "kebab-case")]
pub enum Codec {
    /// Zstandard, level 1 unless `--compression-level` says otherwise (1 to 22; 0 is zstd's
    /// default, 3; negative levels are its faster modes).
    #[default]
    Zstd,
    /// Snappy, which every Parquet reader reads (no levels).
    Snappy,
    /// Gzip, level 6 unless `--compression-level` says otherwise (0 to 9).
    Gzip,
    /// LZ4 in Parquet's LZ4_RAW form (no levels); the older LZ4 codec, deprecated by the
    /// format, is never written.
    #[value(alias = "lz4-raw")]
    #[serde(alias = "lz4-raw")]
    Lz4,
    /// Brotli, level 1 unless `--compression-level` says otherwise (0 to 11).
    Brotli,
    /// No compression.
    #[value(alias = "uncompressed")]
    #[serde(alias = "uncompressed")]
    None,
}

/// The zstd level the parts get by default: level 3 cost 1-8 % more CPU for files 0-6 %
/// smaller (docs/BENCHMARKS.md, "Join output writer settings").
pub const DEFAULT_ZSTD_LEVEL: i32 = 1;

impl Codec {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Zstd => "zstd",
            Codec::Snappy => "snappy",
            Codec::Gzip => "gzip",
            Codec::Lz4 => "lz4",
            Codec::Brotli => "brotli",
            Codec::None => "none",
        }
    }

    /// The parquet crate's setting for this codec at `level` (`None`: the codec's default).
    /// A level out of the codec's range, or given to a codec without levels, is an error
    /// naming `--compression-level`.
    pub fn compression(self, level: Option<i32>) -> Result<Compression> {
        let bad = |range: &str| {
            Error::param(
                "--compression-level",
                format!(
                    "{} is not a {} level ({range})",
                    level.unwrap_or_default(),
                    self.name()
                ),
            )
        };
        let unsigned = |range: &str| -> Result<Option<u32>> {
            level
                .map(|l| u32::try_from(l).map_err(|_| bad(range)))
                .transpose()
        };
        Ok(match self {
            Codec::Zstd => Compression::ZSTD(
                ZstdLevel::try_new(level.unwrap_or(DEFAULT_ZSTD_LEVEL))
                    .map_err(|_| bad("-131072 to 22"))?,
            ),
            Codec::Gzip => Compression::GZIP(match unsigned("0 to 9")? {
                Some(l) => GzipLevel::try_new(l).map_err(|_| bad("0 to 9"))?,
                None => GzipLevel::default(),
            }),
            Codec::Brotli => Compression::BROTLI(match unsigned("0 to 11")? {
                Some(l) => BrotliLevel::try_new(l).map_err(|_| bad("0 to 11"))?,
                None => BrotliLevel::default(),
            }),
            Codec::Snappy | Codec::Lz4 | Codec::None => {
                if let Some(l) = level {
                    return Err(Error::param(
                        "--compression-level",
                        format!("{l} given, but {} has no levels", self.name()),
                    ));
                }
                match self {
                    Codec::Snappy => Compression::SNAPPY,
                    Codec::Lz4 => Compression::LZ4_RAW,
                    _ => Compression::UNCOMPRESSED,
                }
            }
        })
    }
}

/// The writer settings of a part, chosen by measurement (docs/BENCHMARKS.md, "Join output
/// writer settings": TPC-H scale 1 joins, CPU seconds of the whole join, medians of 5): zstd
/// level 1 (level 3: 1-8 % more CPU for files 0-6 % smaller; LZ4: 24-40 % larger files, no
/// less CPU), 1 MiB data pages (256 and 64 KiB: no measurable gain), page statistics (chunk
/// statistics only: no measurable gain), and dictionary encoding for top-level string,
/// binary and dictionary columns only. Numbers, decimals, dates and nested columns get no
/// dictionary: the writer's default, a dictionary for every column, cost 6-18 % more CPU
/// (and 15-20 % more peak RSS) for files between 3 % larger and 7 % smaller; no dictionaries
/// at all made files 7-53 % larger. Integer-backed columns (integers, dates, timestamps,
/// decimals of up to 18 digits) are DELTA_BINARY_PACKED rather than PLAIN: zstd then has a
/// third to a half of the bytes to compress (TPC-H scale 5 joins: 1-21 % less CPU, files
/// 7 % smaller, and DuckDB, Polars and pyarrow read them faster). `compression` is the
/// user's (`--compression`, zstd level 1 by default).
pub(crate) fn part_properties(
    schema: &SchemaRef,
    compression: Compression,
) -> WriterPropertiesBuilder {
    let mut b = WriterProperties::builder()
        .set_compression(compression)
        // Parquet's own types (Date64 as DATE, standard list and map names), so that
        // readers other than arrow-rs see the values, not raw milliseconds.
        .set_coerce_types(true)
        .set_dictionary_enabled(false);
    for f in schema.fields() {
        if matches!(
            f.data_type(),
            DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::Dictionary(..)
        ) {
            b = b.set_column_dictionary_enabled(ColumnPath::from(f.name().as_str()), true);
        }
    }
    // Integers, dates, timestamps and decimals of up to 18 digits are INT32 or INT64 in the
    // file: DELTA_BINARY_PACKED, whatever their nesting.
    let leaves = parquet::arrow::ArrowSchemaConverter::new()
        .with_coerce_types(true)
        .convert(schema);
    for c in leaves.iter().flat_map(|d| d.columns()) {
        if matches!(c.physical_type(), PhysicalType::INT32 | PhysicalType::INT64) {
            b = b.set_column_encoding(c.path().clone(), Encoding::DELTA_BINARY_PACKED);
        }
    }
    b
}

/// How the output's files are written (`join --compression`, `--row-group-rows`,
/// `--row-group-size`, `--max-rows-per-file`, `--max-file-size`): the pages' codec, where a
/// row group ends and where a file ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileFormat {
    /// The pages' codec ([`Codec::compression`]).
    pub compression: Compression,
    /// The most rows of a row group (DuckDB's `ROW_GROUP_SIZE`).
    pub row_group_rows: NonZeroUsize,
    /// The most encoded bytes of a row group, as the parquet crate estimates them while it
    /// writes (Spark's `parquet.block.size`, DuckDB's `ROW_GROUP_SIZE_BYTES`).
    pub row_group_bytes: Option<NonZeroUsize>,
    /// The most rows of a file (Spark's `maxRecordsPerFile`): a part's further rows go on
    /// in a further file.
    pub max_rows: Option<NonZeroU64>,
    /// About the most bytes of a file (DuckDB's `FILE_SIZE_BYTES`): a file is closed after
    /// the batch that takes its written and buffered row groups (as the writer estimates
    /// them) past this, so it may pass it by one batch's encoded rows and the footer.
    pub max_bytes: Option<NonZeroU64>,
}

/// The most rows of an output row group unless `--row-group-rows` says otherwise: the parquet
/// crate's default.
pub const DEFAULT_ROW_GROUP_ROWS: usize =
    parquet::file::properties::DEFAULT_MAX_ROW_GROUP_ROW_COUNT;

impl FileFormat {
    /// Files in `compression` with the default row groups and no file limits.
    pub fn new(compression: Compression) -> FileFormat {
        FileFormat {
            compression,
            row_group_rows: NonZeroUsize::new(DEFAULT_ROW_GROUP_ROWS).expect("nonzero"),
            row_group_bytes: None,
            max_rows: None,
            max_bytes: None,
        }
    }

    /// The writer properties of a file of `schema` with the Parquet Bloom filters `blooms`.
    fn properties(
        &self,
        schema: &SchemaRef,
        blooms: &crate::bloom::sbbf::WriteBlooms,
    ) -> WriterProperties {
        // A file of at most `max_rows` rows holds no more distinct values per column.
        let blooms = match self.max_rows {
            Some(n) => blooms.at_most(n.get()),
            None => blooms.clone(),
        };
        blooms
            .apply(part_properties(schema, self.compression))
            .set_max_row_group_row_count(Some(self.row_group_rows.get()))
            .set_max_row_group_bytes(self.row_group_bytes.map(NonZeroUsize::get))
            .build()
    }
}

/// The name of a part's `k`-th file (from 0): the part's own name, then
/// `part-00003-1`, `part-00003-2`, ... (final names `part-00003-1-<run-id>.parquet`).
pub(crate) fn file_name(part: &str, k: usize) -> String {
    match k {
        0 => part.to_string(),
        k => format!("{part}-{k}"),
    }
}

/// A file a [`PartWriter`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenFile {
    /// Its task part name ([`file_name`]: `part-00003`, `dt=2024-01-01/part-00003-1`).
    pub name: String,
    /// Rows written.
    pub rows: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// Writes one part: one Parquet file, or several when [`FileFormat`] bounds a file's rows or
/// bytes (the part's next rows then go to its next file, [`file_name`]). Each file is
/// written straight into the staging location for local outputs, or to a local temporary
/// file uploaded as soon as it is complete for object stores (so a file's size bounds the
/// local disk an upload takes).
pub struct PartWriter {
    staging: Staging,
    /// The part's name (`part-00003`, `dt=2024-01-01/part-00003`).
    name: String,
    /// Every file's writer properties (boxed: they are a kilobyte).
    props: Box<WriterProperties>,
    schema: SchemaRef,
    format: FileFormat,
    /// The file being written (none between a file that reached its limit and the next
    /// rows).
    file: Option<OpenFile>,
    /// The files complete.
    done: Vec<WrittenFile>,
    /// Fail every write with this error (a fault test's full disk).
    fault: Option<std::io::Error>,
    /// Batches taken by [`PartWriter::write`] and not yet handed to the Parquet writer.
    pending: Vec<RecordBatch>,
    /// Their memory (as Arrow counts it: a slice counts its whole buffers).
    pending_bytes: usize,
    /// Hand the pending batches to the writer once they hold this many bytes (0: at once).
    buffer_bytes: usize,
}

/// One file of a part, being written.
struct OpenFile {
    writer: ArrowWriter<PartFile>,
    /// The first I/O error the file returned (see [`file_error`]).
    failed: WriteFailure,
    local: LocalFile,
    target: Location,
    rows: u64,
}

impl PartWriter {
    /// Start part `name` in `staging` with `schema`, the Parquet Bloom filters `blooms` and
    /// the files' `format`. Its first file is created now (a part of no rows is one empty
    /// file).
    pub fn create(
        staging: &Staging,
        name: &str,
        schema: SchemaRef,
        blooms: &crate::bloom::sbbf::WriteBlooms,
        format: &FileFormat,
    ) -> Result<Self> {
        Self::create_with_fault(
            staging,
            name,
            schema,
            blooms,
            format,
            crate::fault::io_error("write"),
        )
    }

    /// [`PartWriter::create`] whose files fail every write with `fault`, if given.
    fn create_with_fault(
        staging: &Staging,
        name: &str,
        schema: SchemaRef,
        blooms: &crate::bloom::sbbf::WriteBlooms,
        format: &FileFormat,
        fault: Option<std::io::Error>,
    ) -> Result<Self> {
        let mut w = PartWriter {
            staging: staging.clone(),
            name: name.to_string(),
            props: Box::new(format.properties(&schema, blooms)),
            schema,
            format: *format,
            file: None,
            done: Vec::new(),
            fault,
            pending: Vec::new(),
            pending_bytes: 0,
            buffer_bytes: 0,
        };
        w.open_file()?;
        Ok(w)
    }

    /// Start the part's next file.
    fn open_file(&mut self) -> Result<()> {
        let target = self.staging.part(&file_name(&self.name, self.done.len()));
        let (local, upload) = match target.local_path() {
            Some(p) => (p.to_path_buf(), false),
            None => {
                remove_dead_temporary_parts();
                let name = format!(
                    "{TEMP_PART_PREFIX}{:08x}-{}-{}.parquet",
                    crate::sys::host_id(),
                    std::process::id(),
                    target.path().as_ref().replace('/', "_")
                );
                (std::env::temp_dir().join(name), true)
            }
        };
        if let Some(dir) = local.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
        }
        let file =
            std::fs::File::create(&local).map_err(|e| Error::io(local.display().to_string(), e))?;
        let failed = WriteFailure::default();
        let file = PartFile {
            file,
            fault: self
                .fault
                .as_ref()
                .map(|e| std::io::Error::new(e.kind(), e.to_string())),
            failed: failed.clone(),
        };
        // Made before the writer, so that a failed start removes a temporary file.
        let local = LocalFile {
            path: local,
            upload,
        };
        let perr = |source| Error::Parquet {
            location: target.to_string(),
            source,
        };
        let props = WriterProperties::clone(&self.props);
        // Columns of a Parquet logical type their Arrow type does not say (a UUID, an
        // INTERVAL) are written with it.
        let mut schema = self.schema.clone();
        let mut options = parquet::arrow::arrow_writer::ArrowWriterOptions::new();
        if let Some(schemas) = crate::read::logical::writer_schema(&schema, props.coerce_types()) {
            let (plain, descr) = schemas.map_err(perr)?;
            schema = plain;
            options = options.with_parquet_schema(descr);
        }
        let options = options.with_properties(props);
        let geo = crate::read::logical::geo_metadata(&self.schema);
        let mut writer = ArrowWriter::try_new_with_options(file, schema, options).map_err(perr)?;
        // GeoParquet geometry columns of a CRS Parquet's GEOMETRY cannot say are described
        // in the file's `geo` metadata, as their input's were.
        if let Some(geo) = geo {
            writer.append_key_value_metadata(parquet::file::metadata::KeyValue::new(
                "geo".into(),
                geo,
            ));
        }
        self.file = Some(OpenFile {
            writer,
            failed,
            local,
            target,
            rows: 0,
        });
        Ok(())
    }

    /// Keep written batches until they hold `bytes` of memory, then encode them in one go.
    ///
    /// A writer handed small batches between the decoding of large ones (a join's output,
    /// a few hundred rows per right batch) finds its column writers' state (dictionaries,
    /// Bloom filters, page buffers) evicted from the CPU's cache at every write; in bursts
    /// it finds them there. The bytes written are the same: the writer gets the same
    /// batches in the same calls and order, only later.
    pub fn with_write_buffer(mut self, bytes: usize) -> Self {
        self.buffer_bytes = bytes;
        self
    }

    /// Append a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_bytes += batch.get_array_memory_size();
        self.pending.push(batch.clone());
        if self.pending_bytes >= self.buffer_bytes {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Hand the pending batches to the Parquet writer, in the order they came.
    fn write_pending(&mut self) -> Result<()> {
        // The take empties `pending` even when a write fails part way.
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        pending.into_iter().try_for_each(|b| self.encode(b))
    }

    /// Encode a batch into the part's files: as many rows as the open file may still take,
    /// the rest into the next ones.
    fn encode(&mut self, mut batch: RecordBatch) -> Result<()> {
        while batch.num_rows() > 0 {
            if self.file.is_none() {
                self.open_file()?;
            }
            let f = self.file.as_mut().expect("open file");
            let room = self.format.max_rows.map_or(u64::MAX, |m| m.get() - f.rows);
            let n = (batch.num_rows() as u64).min(room) as usize;
            f.writer
                .write(&batch.slice(0, n))
                .map_err(|source| f.error(source))?;
            f.rows += n as u64;
            batch = batch.slice(n, batch.num_rows() - n);
            let full_rows = self.format.max_rows.is_some_and(|m| f.rows >= m.get());
            let full_bytes = self.format.max_bytes.is_some_and(|m| {
                (f.writer.bytes_written() + f.writer.in_progress_size()) as u64 >= m.get()
            });
            if full_rows || full_bytes {
                self.close_file()?;
            }
        }
        Ok(())
    }

    /// Finish the open file (uploading it to an object store).
    fn close_file(&mut self) -> Result<()> {
        let Some(OpenFile {
            writer,
            failed,
            local,
            target,
            rows,
        }) = self.file.take()
        else {
            return Ok(());
        };
        if let Err(source) = writer.close() {
            return Err(file_error(&failed, &target, source));
        }
        let bytes = std::fs::metadata(&local.path)
            .map_err(|e| Error::io(local.path.display().to_string(), e))?
            .len();
        if local.upload {
            crate::store::upload_file(&local.path, &target)?;
        }
        self.done.push(WrittenFile {
            name: file_name(&self.name, self.done.len()),
            rows,
            bytes,
        });
        Ok(())
    }

    /// Bytes the part holds in memory: the row group being written (its encoders, pages
    /// and dictionaries) and the batches not yet handed to it.
    pub fn memory_size(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.writer.memory_size()) + self.pending_bytes
    }

    /// Write out the buffered rows as a row group now.
    pub fn flush_row_group(&mut self) -> Result<()> {
        self.write_pending()?;
        if let Some(f) = self.file.as_mut() {
            f.writer.flush().map_err(|source| f.error(source))?;
        }
        Ok(())
    }

    /// Finish the part; its files, in order.
    pub fn finish(mut self) -> Result<Vec<WrittenFile>> {
        self.write_pending()?;
        self.close_file()?;
        Ok(std::mem::take(&mut self.done))
    }
}

impl OpenFile {
    /// The error of a failed Parquet write to this file ([`file_error`]).
    fn error(&self, source: parquet::errors::ParquetError) -> Error {
        file_error(&self.failed, &self.target, source)
    }
}

/// The error of a failed Parquet write to `target`: the I/O error of its file when there was
/// one (`failed`), so that its kind decides the exit code (a full disk is exit 1). The parquet
/// crate keeps the kind of most write errors, but not of a failed Bloom filter write, which
/// it turns into text ("Could not write bloom filter bit set: ...").
fn file_error(
    failed: &WriteFailure,
    target: &Location,
    source: parquet::errors::ParquetError,
) -> Error {
    match failed.lock().expect("write failure").take() {
        Some(io) => Error::io(target.to_string(), io),
        None => Error::Parquet {
            location: target.to_string(),
            source,
        },
    }
}

/// A file being written locally: the output's own for local outputs, else a temporary file
/// that is removed when dropped (uploaded, failed or cancelled).
struct LocalFile {
    path: std::path::PathBuf,
    upload: bool,
}

impl Drop for LocalFile {
    fn drop(&mut self) {
        if self.upload {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A part's file, with the `write:enospc` fault point (`src/fault.rs`): writes then fail as
/// on a full disk, through the same path as a real one.
struct PartFile {
    file: std::fs::File,
    fault: Option<std::io::Error>,
    failed: WriteFailure,
}

/// The first I/O error a part's file returned, shared with its [`PartWriter`].
type WriteFailure = std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>;

impl PartFile {
    fn note<T>(&self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r {
            self.failed
                .lock()
                .expect("write failure")
                .get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        }
        r
    }
}

impl std::io::Write for PartFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = match &self.fault {
            Some(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
            None => self.file.write(buf),
        };
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.file.flush();
        self.note(r)
    }
}

/// Local temporary parts (of object-store outputs) are named
/// `bloomjoin-part-<host id>-<pid>-<target>.parquet` in the temporary directory.
const TEMP_PART_PREFIX: &str = "bloomjoin-part-";

/// Remove the temporary parts that processes of this machine left when they died (killed, or
/// a power cut): once per process, before its first temporary part. Names of other machines
/// (a shared temporary directory) and of live processes are left alone.
fn remove_dead_temporary_parts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = std::env::temp_dir();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        let host = format!("{:08x}", crate::sys::host_id());
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(TEMP_PART_PREFIX) else {
                continue;
            };
            let mut fields = rest.splitn(3, '-');
            let (Some(h), Some(pid)) = (fields.next(), fields.next()) else {
                continue;
            };
            let dead = h == host
                && pid
                    .parse::<u32>()
                    .is_ok_and(|p| !crate::sys::process_alive(p));
            if dead && name.ends_with(".parquet") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    });
}

/// The `_SUCCESS` body: the report object with `run_id` and `parts` added.
fn manifest(
    marker: &[u8],
    run_id: &str,
    parts: &[String],
    kept: Option<serde_json::Value>,
) -> Bytes {
    let mut v: serde_json::Value =
        serde_json::from_slice(marker).unwrap_or(serde_json::Value::Null);
    if !v.is_object() {
        v = serde_json::json!({ "report": v });
    }
    if let Some(kept) = kept {
        v["kept"] = kept;
    }
    v["run_id"] = serde_json::json!(run_id);
    v["parts"] = serde_json::json!(parts);
    Bytes::from(serde_json::to_vec_pretty(&v).expect("JSON serializes"))
}

/// `--append` or `--overwrite-partitions` to a committed output: its `--partition-by`
/// columns must be this job's (`job`: `join` or `filter`), and its parts must hold its other columns, in order,
/// of the same types. Readers take the parts that stay and this run's for one table (Spark's
/// append checks the table's schema the same way); a column of another type, or parts in
/// other directories, would break them. Checked before any row is read, and again by nobody:
/// the commit keeps the parts under its lease.
pub(crate) fn check_kept_parts(
    output: &Location,
    mode: WriteMode,
    partition_by: &[String],
    out_schema: &arrow::datatypes::Schema,
    job: &str,
) -> Result<()> {
    let success = output.child(SUCCESS);
    if !mode.keeps_parts() || !success.exists()? {
        return Ok(());
    }
    let flag = mode.flag();
    let (parts, manifest) = committed(output, mode)?;
    let theirs: Vec<String> = manifest["partition_by"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let ours = partition_by.to_vec();
    let show = |names: &[String]| match names {
        [] => "not partitioned".to_string(),
        names => format!("partitioned by {}", names.join(", ")),
    };
    if theirs != ours {
        return Err(Error::param(
            flag,
            format!(
                "{} is {}, and this {job}'s output would be {}: it must be partitioned by the same --partition-by (or write to a new directory)",
                output,
                show(&theirs),
                show(&ours)
            ),
        ));
    }
    // The first part still there (a person may have removed some).
    let mut first = None;
    for name in &parts {
        let part = output.descend(name);
        if part.exists()? {
            first = Some(part);
            break;
        }
    }
    let Some(first) = first else {
        return Ok(());
    };
    let file = crate::plan::InputFile::open(first)?;
    let columns = |fields: Vec<&arrow::datatypes::FieldRef>| -> Vec<String> {
        fields
            .into_iter()
            .map(|f| format!("{} {}", f.name(), f.data_type()))
            .collect()
    };
    let have = columns(file.schema().fields().iter().collect());
    let want = columns(
        out_schema
            .fields()
            .iter()
            .filter(|f| !ours.contains(f.name()))
            .collect(),
    );
    if have != want {
        return Err(Error::param(
            flag,
            format!(
                "the parts of {} hold the columns ({}), and this {job} writes ({}): they must be the same columns, in the same order, of the same types (or write to a new directory)",
                output,
                have.join(", "),
                want.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The committed output in `dir`, read to keep some of its parts (`mode`): the parts its
/// `_SUCCESS` names, and the whole manifest (the report of the run that wrote it). An error
/// names `_SUCCESS` when it is not a bloomjoin manifest (no part of an output is kept, or
/// replaced, when its parts are not known).
pub(crate) fn committed(
    dir: &Location,
    mode: WriteMode,
) -> Result<(Vec<String>, serde_json::Value)> {
    let success = dir.child(SUCCESS);
    let bytes = success.read_all()?;
    let why = match mode {
        WriteMode::OverwritePartitions => "cannot replace the partitions of an output",
        _ => "cannot append to an output",
    };
    let bad = |what: &str| {
        Error::Location {
        location: success.to_string(),
        reason: format!("{what}: {why} whose parts it does not name (write to a new directory, or replace it with --overwrite)"),
    }
    };
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|_| bad("not a bloomjoin manifest (JSON)"))?;
    let parts = v["parts"].as_array().ok_or_else(|| bad("names no parts"))?;
    let parts = parts
        .iter()
        .map(|p| {
            p.as_str()
                .filter(|name| {
                    let file = name.rsplit('/').next().unwrap_or_default();
                    part_run_id(file).is_some()
                        && !name.split('/').any(|c| c == ".." || c.is_empty())
                })
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("part {p} is not a bloomjoin part name")))
        })
        .collect::<Result<_>>()?;
    Ok((parts, v))
}

fn rel(dir: &Location, p: &ObjPath) -> String {
    p.as_ref()
        .strip_prefix(dir.path().as_ref())
        .unwrap_or(p.as_ref())
        .trim_start_matches('/')
        .to_string()
}

/// Every object below a location (recursively).
pub fn list_below(dir: &Location) -> Result<Vec<ObjPath>> {
    if let Some(p) = dir.local_path() {
        if !p.exists() {
            return Ok(Vec::new());
        }
    }
    let prefix = dir.path().clone();
    block_on(dir.store().list(Some(&prefix)).try_collect::<Vec<_>>())
        .map(|v| v.into_iter().map(|m| m.location).collect())
        .map_err(|source| Error::store(dir.to_string(), source))
}

/// The commit lease of one output: at most one run moves parts into it and writes its
/// `_SUCCESS` at a time.
///
/// - Local outputs: an exclusive lock (`flock`) on `<output>/_lease`. The kernel releases it
///   when the holder dies, so a killed run never blocks the next one.
/// - Object stores: the object `<output>/_lease`, created with a create-only put and holding
///   the run id, machine, process and an expiry (`BLOOMJOIN_LEASE_SECS`, default 300 s). The
///   holder renews it with a conditional put (`PutMode::Update` on its ETag/version) at least
///   every third of that time while it commits. A waiter takes over a lease that expired or
///   whose process is known dead with the same conditional put, so of several waiters exactly
///   one wins.
///
/// A run waits for the lease at most `BLOOMJOIN_COMMIT_WAIT_SECS` (default 600 s).
enum Lease {
    Local {
        file: std::fs::File,
        path: std::path::PathBuf,
    },
    Object {
        loc: Location,
        run_id: String,
        version: UpdateVersion,
        renewed: Instant,
        ttl: Duration,
    },
}

#[derive(serde::Serialize, serde::Deserialize)]
struct LeaseBody {
    run_id: String,
    host: u32,
    pid: u32,
    expires_unix_ms: u64,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn lease_body(run_id: &str, ttl: Duration) -> PutPayload {
    let body = LeaseBody {
        run_id: run_id.to_string(),
        host: crate::sys::host_id(),
        pid: std::process::id(),
        expires_unix_ms: now_ms() + ttl.as_millis() as u64,
    };
    PutPayload::from(serde_json::to_vec(&body).expect("JSON serializes"))
}

/// Sleeps between attempts to take the lease: 10 ms doubling to 500 ms; fails once `limit`
/// has passed, and at once when the job is cancelled.
struct Wait {
    start: Instant,
    limit: Duration,
    next: Duration,
}

impl Wait {
    fn new() -> Wait {
        Wait {
            start: Instant::now(),
            limit: env_secs("BLOOMJOIN_COMMIT_WAIT_SECS", 600.0),
            next: Duration::from_millis(10),
        }
    }

    fn sleep(&mut self, dir: &Location) -> Result<()> {
        if crate::cancel::requested() {
            return Err(Error::Cancelled);
        }
        if self.start.elapsed() >= self.limit {
            return Err(Error::io(
                dir.as_str(),
                std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "another run held the commit lease ({LEASE}) for more than {:.0} s (BLOOMJOIN_COMMIT_WAIT_SECS)",
                        self.limit.as_secs_f64()
                    ),
                ),
            ));
        }
        std::thread::sleep(self.next);
        self.next = (self.next * 2).min(Duration::from_millis(500));
        Ok(())
    }
}

impl Lease {
    fn acquire(dir: &Location, run_id: &str) -> Result<Lease> {
        match dir.local_path() {
            Some(p) => Lease::acquire_local(dir, &p.join(LEASE)),
            None => Lease::acquire_object(dir, run_id),
        }
    }

    fn acquire_local(dir: &Location, path: &std::path::Path) -> Result<Lease> {
        let ioe = |e| Error::io(path.display().to_string(), e);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(ioe)?;
        }
        let mut wait = Wait::new();
        loop {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(ioe)?;
            match file.try_lock() {
                // The previous holder removes the file before unlocking it: a lock on a file
                // that is no longer at `path` is no lease.
                Ok(()) if same_file(&file, path) => {
                    return Ok(Lease::Local {
                        file,
                        path: path.to_path_buf(),
                    })
                }
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(ioe(e)),
            }
            drop(file);
            wait.sleep(dir)?;
        }
    }

    fn acquire_object(dir: &Location, run_id: &str) -> Result<Lease> {
        let loc = dir.child(LEASE);
        let store = loc.store().clone();
        let ttl = env_secs("BLOOMJOIN_LEASE_SECS", 300.0);
        let serr = |source| Error::store(loc.to_string(), source);
        let held = |r: object_store::PutResult| Lease::Object {
            loc: loc.clone(),
            run_id: run_id.to_string(),
            version: r.into(),
            renewed: Instant::now(),
            ttl,
        };
        let mut wait = Wait::new();
        loop {
            let create = PutOptions {
                mode: PutMode::Create,
                ..Default::default()
            };
            match block_on(store.put_opts(loc.path(), lease_body(run_id, ttl), create)) {
                Ok(r) => return Ok(held(r)),
                Err(object_store::Error::AlreadyExists { .. })
                | Err(object_store::Error::Precondition { .. }) => {}
                Err(e) => return Err(serr(e)),
            }
            let current = block_on(async {
                let g = store.get(loc.path()).await?;
                let meta = g.meta.clone();
                Ok::<_, object_store::Error>((meta, g.bytes().await?))
            });
            let (meta, body) = match current {
                Ok(x) => x,
                // Released between our two requests: try again at once.
                Err(object_store::Error::NotFound { .. }) => continue,
                Err(e) => return Err(serr(e)),
            };
            let stale = match serde_json::from_slice::<LeaseBody>(&body) {
                Ok(b) => {
                    now_ms() > b.expires_unix_ms
                        || (b.host == crate::sys::host_id() && !crate::sys::process_alive(b.pid))
                }
                // Not ours to read: stale once it is older than a lease.
                Err(_) => {
                    let age = chrono_age_ms(meta.last_modified.timestamp_millis());
                    age > ttl.as_millis() as u64
                }
            };
            if stale {
                let update = PutOptions {
                    mode: PutMode::Update(UpdateVersion {
                        e_tag: meta.e_tag.clone(),
                        version: meta.version.clone(),
                    }),
                    ..Default::default()
                };
                match block_on(store.put_opts(loc.path(), lease_body(run_id, ttl), update)) {
                    Ok(r) => return Ok(held(r)),
                    // Another waiter took it over first, or the holder renewed it.
                    Err(object_store::Error::Precondition { .. })
                    | Err(object_store::Error::AlreadyExists { .. })
                    | Err(object_store::Error::NotFound { .. })
                    | Err(object_store::Error::NotImplemented { .. }) => {}
                    Err(e) => return Err(serr(e)),
                }
            }
            wait.sleep(dir)?;
        }
    }

    /// Renew an object lease once a third of its time has passed.
    fn renew(&mut self) -> Result<()> {
        match self {
            Lease::Object { renewed, ttl, .. } if renewed.elapsed() < *ttl / 3 => Ok(()),
            _ => self.renew_now(),
        }
    }

    /// Renew an object lease now, proving that it is still this run's.
    fn renew_now(&mut self) -> Result<()> {
        let Lease::Object {
            loc,
            run_id,
            version,
            renewed,
            ttl,
        } = self
        else {
            return Ok(());
        };
        let opts = PutOptions {
            mode: PutMode::Update(version.clone()),
            ..Default::default()
        };
        match block_on(
            loc.store()
                .put_opts(loc.path(), lease_body(run_id, *ttl), opts),
        ) {
            Ok(r) => {
                *version = r.into();
                *renewed = Instant::now();
                Ok(())
            }
            Err(object_store::Error::Precondition { .. })
            | Err(object_store::Error::NotFound { .. }) => Err(Error::io(
                loc.as_str(),
                std::io::Error::other(format!(
                    "this run lost the commit lease: it was not renewed within {:.0} s (BLOOMJOIN_LEASE_SECS) and another run took it over",
                    ttl.as_secs_f64()
                )),
            )),
            Err(source) => Err(Error::store(loc.to_string(), source)),
        }
    }

    /// Give the lease up (best effort: an expired lease is taken over anyway).
    fn release(self) {
        match self {
            Lease::Local { file, path } => {
                // Remove before unlocking (see `acquire_local`).
                let _ = std::fs::remove_file(&path);
                drop(file);
            }
            Lease::Object { loc, version, .. } => {
                // Only while it is still ours.
                if let Ok(meta) = block_on(loc.store().head(loc.path())) {
                    if meta.e_tag == version.e_tag {
                        let _ = loc.delete();
                    }
                }
            }
        }
    }
}

fn chrono_age_ms(then_ms: i64) -> u64 {
    (now_ms() as i64).saturating_sub(then_ms).max(0) as u64
}

#[cfg(unix)]
fn same_file(file: &std::fs::File, path: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &std::fs::File, path: &std::path::Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each codec's default level, the levels at its range's ends, and the levels it refuses.
    #[test]
    fn codecs_take_the_levels_in_their_ranges() {
        let c = |codec: Codec, level| codec.compression(level).map(|c| format!("{c:?}"));
        assert_eq!(c(Codec::Zstd, None).unwrap(), "ZSTD(ZstdLevel(1))");
        assert_eq!(c(Codec::Zstd, Some(22)).unwrap(), "ZSTD(ZstdLevel(22))");
        assert_eq!(c(Codec::Zstd, Some(-5)).unwrap(), "ZSTD(ZstdLevel(-5))");
        assert_eq!(c(Codec::Gzip, None).unwrap(), "GZIP(GzipLevel(6))");
        assert_eq!(c(Codec::Gzip, Some(0)).unwrap(), "GZIP(GzipLevel(0))");
        assert_eq!(c(Codec::Brotli, None).unwrap(), "BROTLI(BrotliLevel(1))");
        assert_eq!(
            c(Codec::Brotli, Some(11)).unwrap(),
            "BROTLI(BrotliLevel(11))"
        );
        assert_eq!(c(Codec::Snappy, None).unwrap(), "SNAPPY");
        assert_eq!(c(Codec::Lz4, None).unwrap(), "LZ4_RAW");
        assert_eq!(c(Codec::None, None).unwrap(), "UNCOMPRESSED");
        for (codec, level, needle) in [
            (Codec::Zstd, 23, "23 is not a zstd level"),
            (Codec::Gzip, 10, "10 is not a gzip level (0 to 9)"),
            (Codec::Gzip, -1, "-1 is not a gzip level (0 to 9)"),
            (Codec::Brotli, 12, "12 is not a brotli level (0 to 11)"),
            (Codec::Snappy, 1, "1 given, but snappy has no levels"),
            (Codec::Lz4, 0, "0 given, but lz4 has no levels"),
            (Codec::None, 3, "3 given, but none has no levels"),
        ] {
            let e = c(codec, Some(level)).unwrap_err().to_string();
            assert!(
                e.contains("--compression-level") && e.contains(needle),
                "{e}"
            );
        }
    }

    /// A full disk while a part's Parquet Bloom filter is written is exit 1 like any full
    /// disk: the parquet crate reports a failed bitset write as text, without the I/O error's
    /// kind (exit 2, bad input, before). The part is small enough for the writer's buffer, so
    /// the first write that reaches the file is the filter's (found by `disk_full_is_exit_1_in_
    /// train_and_join`, which failed now and then).
    #[test]
    fn a_full_disk_while_writing_a_bloom_filter_is_exit_1() {
        use arrow::array::Int32Array;
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.parquet");
        let schema = Arc::new(arrow::datatypes::Schema::new(vec![
            arrow::datatypes::Field::new("k", arrow::datatypes::DataType::Int32, false),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int32Array::from_iter_values(0..2000))],
        )
        .unwrap();
        let blooms = crate::bloom::sbbf::WriteBlooms {
            columns: vec!["k".into()],
            fpp: 1e-6,
            max_distinct: Vec::new(),
        };
        let mut w = PartWriter::create_with_fault(
            &Staging::at(&path),
            part_stem(&path),
            schema,
            &blooms,
            &FileFormat::new(Codec::Zstd.compression(None).unwrap()),
            Some(std::io::Error::from_raw_os_error(28)),
        )
        .unwrap();
        w.write(&batch).unwrap();
        let e = w.finish().unwrap_err();
        assert_eq!(e.exit_code(), 1, "{e:?}");
        assert!(
            crate::error::one_line(&e).contains("No space left on device"),
            "{e:?}"
        );
    }

    impl Staging {
        /// The staging folder of the file `path` (`dir/name.parquet`).
        fn at(path: &std::path::Path) -> Staging {
            Staging {
                dir: Location::parse(path.parent().unwrap().to_str().unwrap()).unwrap(),
            }
        }
    }

    /// The part name of `path`: its file name without `.parquet`.
    fn part_stem(path: &std::path::Path) -> &str {
        path.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix(".parquet")
            .unwrap()
    }

    #[test]
    fn run_ids_and_part_names() {
        let id = new_run_id();
        assert!(is_run_id(&id), "{id}");
        assert!(!run_is_dead(&id), "this process is alive");
        let dead = format!(
            "{}{:08x}{:08x}",
            &id[..16],
            crate::sys::host_id(),
            u32::MAX - 1
        );
        assert!(run_is_dead(&dead));
        let elsewhere = format!(
            "{}{:08x}{:08x}",
            &id[..16],
            crate::sys::host_id() ^ 1,
            u32::MAX - 1
        );
        assert!(
            !run_is_dead(&elsewhere),
            "another machine's run is never known dead"
        );
        assert_eq!(
            part_run_id(&format!("part-00003-{id}.parquet")),
            Some(id.as_str())
        );
        assert_eq!(
            part_run_id("part-00000-17f3a2b4c5d6e7f80a1b2.parquet"),
            Some("17f3a2b4c5d6e7f80a1b2")
        );
        for theirs in [
            "part-1.parquet",
            "part-00000.parquet",
            "part-00000-notes.parquet",
            "part-00000-3f2a8b1c-5d6e-4f70-8a9b-0c1d2e3f4a5b-c000.snappy.parquet",
            "part-00000-3F2A8B1C5D6E4F708A9B0C1D2E3F4A5B.parquet",
            "part-0000-3f2a8b1c5d6e4f708a9b0c1d2e3f4a5b.parquet",
            "part-00000--3f2a8b1c5d6e4f708a9b0c1d2e3f4a5b.parquet",
            "part-00000-x-3f2a8b1c5d6e4f708a9b0c1d2e3f4a5b.parquet",
        ] {
            assert_eq!(part_run_id(theirs), None, "{theirs}");
        }
        // A task's further parts in a partition directory.
        assert_eq!(
            part_run_id(&format!("part-00003-2-{id}.parquet")),
            Some(id.as_str())
        );
        let ours = format!("dt=2024-01-01/region=a%2Fb/part-00003-2-{id}.parquet");
        assert!(is_partitioned_part(&ours));
        assert!(is_partitioned_part("dt=2024-01-01/.part-00000.crc"));
        for theirs in [
            format!("part-00003-{id}.parquet"),
            format!("notes/part-00003-{id}.parquet"),
            format!("=x/part-00003-{id}.parquet"),
            format!("_tmp=1/part-00003-{id}.parquet"),
            "dt=2024-01-01/part-00000-3f2a8b1c-5d6e-4f70-8a9b-0c1d2e3f4a5b-c000.snappy.parquet"
                .to_string(),
        ] {
            assert!(!is_partitioned_part(&theirs), "{theirs}");
        }
    }

    /// `--overwrite-partitions` over nested partition directories: a committed part is
    /// replaced when this run writes its whole directory path (`a=1/b=x`), not a parent's or
    /// a sibling's; the replaced parts are removed, the others named again.
    #[test]
    fn overwrite_partitions_replaces_the_directories_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Location::parse(tmp.path().join("out").to_str().unwrap()).unwrap();
        let run = |mode: WriteMode, names: &[&str]| -> (OutputDir, Option<Committed>) {
            let out = OutputDir::prepare(dir.clone(), mode).unwrap();
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            for n in &names {
                out.staged(n)
                    .put(Bytes::from_static(b"PAR1"), false)
                    .unwrap();
            }
            let c = out.commit(&names, Bytes::from_static(b"{}")).unwrap();
            (out, c)
        };
        let (first, c) = run(
            WriteMode::OverwritePartitions,
            &[
                "a=1/b=x/part-00000",
                "a=1/b=y/part-00000",
                "a=2/b=x/part-00000",
                "a=2/b=x/part-00001",
            ],
        );
        assert_eq!(c, None);
        let (second, c) = run(
            WriteMode::OverwritePartitions,
            &["a=2/b=x/part-00000", "a=3/b=x/part-00000"],
        );
        assert_eq!(
            c.unwrap(),
            Committed {
                parts_kept: 2,
                partitions_replaced: 1,
                partitions_kept: 2,
            }
        );
        let mut want = vec![
            first.final_name("a=1/b=x/part-00000"),
            first.final_name("a=1/b=y/part-00000"),
            second.final_name("a=2/b=x/part-00000"),
            second.final_name("a=3/b=x/part-00000"),
        ];
        want.sort();
        let mut named = committed(&dir, WriteMode::OverwritePartitions).unwrap().0;
        named.sort();
        assert_eq!(named, want);
        let mut there: Vec<String> = list_below(&dir)
            .unwrap()
            .iter()
            .map(|p| rel(&dir, p))
            .filter(|r| r != SUCCESS)
            .collect();
        there.sort();
        assert_eq!(there, want);
        // Appending keeps every part, replacing nothing.
        let (_, c) = run(WriteMode::Append, &["a=1/b=x/part-00000"]);
        assert_eq!(
            c.unwrap(),
            Committed {
                parts_kept: 4,
                partitions_replaced: 0,
                partitions_kept: 4,
            }
        );
    }

    #[test]
    fn manifest_adds_the_run_and_its_parts() {
        let m = manifest(
            br#"{"rows_out": 3}"#,
            "abc",
            &["part-00000-abc.parquet".into()],
            None,
        );
        let v: serde_json::Value = serde_json::from_slice(&m).unwrap();
        assert_eq!(v["rows_out"], 3);
        assert_eq!(v["run_id"], "abc");
        assert_eq!(v["parts"][0], "part-00000-abc.parquet");
    }

    /// Two holders of one output's lease never overlap, on the local file system and on an
    /// object store (here the in-memory one, which implements conditional puts).
    #[test]
    fn the_lease_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let local = Location::parse(dir.path().join("out").to_str().unwrap()).unwrap();
        let memory = Location::parse("memory:///commit-test/lease/out").unwrap();
        for loc in [local, memory] {
            let inside = std::sync::atomic::AtomicUsize::new(0);
            let max = std::sync::atomic::AtomicUsize::new(0);
            std::thread::scope(|s| {
                for t in 0..4 {
                    let (loc, inside, max) = (&loc, &inside, &max);
                    s.spawn(move || {
                        for i in 0..10 {
                            let lease = Lease::acquire(loc, &format!("{t:016x}{i:016x}")).unwrap();
                            let n = inside.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                            max.fetch_max(n, std::sync::atomic::Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(2));
                            inside.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                            lease.release();
                        }
                    });
                }
            });
            assert_eq!(max.load(std::sync::atomic::Ordering::SeqCst), 1, "{loc}");
            assert!(!loc.child(LEASE).exists().unwrap(), "{loc}: released");
        }
    }

    /// A lease left by a dead process of this machine is taken over at once.
    #[test]
    fn a_dead_holders_object_lease_is_taken_over() {
        let dir = Location::parse("memory:///commit-test/stale/out").unwrap();
        let body = LeaseBody {
            run_id: "x".into(),
            host: crate::sys::host_id(),
            pid: u32::MAX - 1,
            expires_unix_ms: now_ms() + 3_600_000,
        };
        dir.child(LEASE)
            .put(Bytes::from(serde_json::to_vec(&body).unwrap()), false)
            .unwrap();
        let lease = Lease::acquire(&dir, "mine").unwrap();
        let held: LeaseBody =
            serde_json::from_slice(&dir.child(LEASE).read_all().unwrap()).unwrap();
        assert_eq!(held.run_id, "mine");
        lease.release();
    }

    #[test]
    fn part_encodings_by_column_type() {
        use arrow::array::{ArrayRef, Date32Array, Decimal128Array, Int64Array, StringArray};
        use arrow::datatypes::{Field, Schema};
        use parquet::basic::Encoding;
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use std::sync::Arc;

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.parquet");
        let schema = Arc::new(Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("i", DataType::Int64, true),
            Field::new("d", DataType::Date32, true),
            Field::new("m", DataType::Decimal128(15, 2), true),
            Field::new("w", DataType::Decimal128(30, 2), true),
        ]));
        let n = 1000;
        let cols: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("v{}", i % 7)),
            )),
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % 7))),
            Arc::new(Date32Array::from_iter_values(
                (0..n).map(|i| (i % 7) as i32),
            )),
            Arc::new(
                Decimal128Array::from_iter_values((0..n).map(|i| i as i128 * 101))
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from_iter_values((0..n).map(|i| i as i128 * 101))
                    .with_precision_and_scale(30, 2)
                    .unwrap(),
            ),
        ];
        let batch = RecordBatch::try_new(schema.clone(), cols).unwrap();
        let mut w = PartWriter::create(
            &Staging::at(&path),
            part_stem(&path),
            schema,
            &crate::bloom::sbbf::WriteBlooms::none(),
            &FileFormat::new(Codec::Zstd.compression(None).unwrap()),
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let rg = reader.metadata().row_group(0);
        let dict = |c: usize| {
            rg.column(c)
                .encodings()
                .any(|e| e == Encoding::RLE_DICTIONARY || e == Encoding::PLAIN_DICTIONARY)
        };
        assert!(dict(0), "strings are dictionary-encoded");
        assert!(!dict(1), "integers have no dictionary");
        assert!(!dict(2), "dates have no dictionary");
        let delta = |c: usize| {
            rg.column(c)
                .encodings()
                .any(|e| e == Encoding::DELTA_BINARY_PACKED)
        };
        assert!(!delta(0), "strings are not delta-encoded");
        assert!(delta(1), "integers are DELTA_BINARY_PACKED");
        assert!(delta(2), "dates (INT32) are DELTA_BINARY_PACKED");
        assert!(
            delta(3),
            "decimals of 15 digits (INT64) are DELTA_BINARY_PACKED"
        );
        assert!(
            !delta(4),
            "decimals of 30 digits (fixed-length bytes) are not"
        );
        assert!(rg.column(1).statistics().is_some(), "statistics are kept");
        // The values read back as written.
        let back = parquet::arrow::arrow_reader::ParquetRecordBatchReader::try_new(
            std::fs::File::open(&path).unwrap(),
            2048,
        )
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
        assert_eq!(back, batch);
    }

    /// A column's `max_distinct` bound only changes where its Parquet Bloom filter starts:
    /// once folded to the values written, the filter is the one the unbounded writer makes.
    #[test]
    fn a_distinct_bound_gives_the_same_folded_bloom_filter() {
        use arrow::array::{ArrayRef, Int64Array};
        use arrow::datatypes::{Field, Schema};
        use parquet::file::properties::ReaderProperties;
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::file::serialized_reader::ReadOptionsBuilder;
        use std::sync::Arc;

        let dir = tempfile::tempdir().unwrap();
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
        // 5,000 distinct keys over 50,000 rows.
        let keys: ArrayRef = Arc::new(Int64Array::from_iter_values(
            (0..50_000i64).map(|i| (i * 7919) % 5_000 * 1_000_003),
        ));
        let batch = RecordBatch::try_new(schema.clone(), vec![keys]).unwrap();
        let filter_of = |name: &str, max_distinct: Vec<(String, u64)>| {
            let path = dir.path().join(name);
            let blooms = crate::bloom::sbbf::WriteBlooms {
                columns: vec!["k".into()],
                fpp: 0.01,
                max_distinct,
            };
            let mut w = PartWriter::create(
                &Staging::at(&path),
                part_stem(&path),
                schema.clone(),
                &blooms,
                &FileFormat::new(Codec::Zstd.compression(None).unwrap()),
            )
            .unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
            let props = ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build();
            let options = ReadOptionsBuilder::new()
                .with_reader_properties(props)
                .build();
            let file = std::fs::File::open(&path).unwrap();
            let reader = SerializedFileReader::new_with_options(file, options).unwrap();
            let rg = reader.get_row_group(0).unwrap();
            rg.get_column_bloom_filter(0).cloned().unwrap()
        };
        let free = filter_of("free.parquet", Vec::new());
        let bounded = filter_of("bounded.parquet", vec![("k".into(), 5_000)]);
        let bytes = |f: &parquet::bloom_filter::Sbbf| {
            let mut out = Vec::new();
            f.write(&mut out).unwrap();
            out
        };
        assert_eq!(bytes(&free), bytes(&bounded));
        for i in 0..5_000i64 {
            assert!(bounded.check(&(i * 1_000_003)), "key {i}");
        }
    }

    /// The part a writer makes of `batches`, keeping `buffer` bytes before it encodes them.
    fn part_bytes(batches: &[RecordBatch], buffer: usize, fault: Option<i32>) -> Result<Vec<u8>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.parquet");
        let blooms = crate::bloom::sbbf::WriteBlooms {
            columns: vec!["k".into(), "s".into()],
            fpp: 0.01,
            max_distinct: Vec::new(),
        };
        let mut w = PartWriter::create_with_fault(
            &Staging::at(&path),
            part_stem(&path),
            batches[0].schema(),
            &blooms,
            &FileFormat::new(Codec::Zstd.compression(None).unwrap()),
            fault.map(std::io::Error::from_raw_os_error),
        )?
        .with_write_buffer(buffer);
        for b in batches {
            w.write(b)?;
        }
        w.finish()?;
        Ok(std::fs::read(&path).unwrap())
    }

    /// Batches of `sizes` rows: an integer key and strings long enough to fill several pages
    /// and make the writer give up its dictionary.
    fn batches_of(sizes: &[usize]) -> Vec<RecordBatch> {
        use arrow::array::{Int64Array, StringArray};
        use arrow::datatypes::{Field, Schema};
        let schema = std::sync::Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        let mut next = 0i64;
        sizes
            .iter()
            .map(|&n| {
                let keys: Vec<i64> = (next..next + n as i64)
                    .map(|i| i * 7919 % 100_003)
                    .collect();
                next += n as i64;
                let strings = StringArray::from_iter(keys.iter().map(|&k| {
                    (k % 11 != 0).then(|| format!("{k:0>12}-{}", "x".repeat((k % 97) as usize)))
                }));
                RecordBatch::try_new(
                    schema.clone(),
                    vec![
                        std::sync::Arc::new(Int64Array::from(keys)),
                        std::sync::Arc::new(strings),
                    ],
                )
                .unwrap()
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// Keeping batches before encoding them changes nothing in the part: its bytes are
        /// those of a writer handed each batch at once, for any buffer size.
        #[test]
        fn a_write_buffer_leaves_the_part_byte_for_byte_the_same(
            sizes in proptest::collection::vec(1usize..3_000, 1..40),
            buffer in 1usize..4_000_000,
        ) {
            let batches = batches_of(&sizes);
            let at_once = part_bytes(&batches, 0, None).unwrap();
            proptest::prop_assert_eq!(part_bytes(&batches, buffer, None).unwrap(), at_once.clone());
            proptest::prop_assert_eq!(part_bytes(&batches, usize::MAX, None).unwrap(), at_once);
        }
    }

    /// The batches of a Parquet file, read back whole.
    fn read_file(bytes: Bytes) -> (Vec<RecordBatch>, Vec<usize>) {
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
        let groups = reader
            .metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows() as usize)
            .collect();
        let batches = reader.build().unwrap().map(|b| b.unwrap()).collect();
        (batches, groups)
    }

    /// The files part `name` wrote into `staging` under `format` from `batches` (with a write
    /// buffer of `buffer` bytes), each as its report, its rows and its row groups' sizes.
    fn rolled(
        staging: &Staging,
        batches: &[RecordBatch],
        buffer: usize,
        format: &FileFormat,
    ) -> Vec<(WrittenFile, Vec<RecordBatch>, Vec<usize>)> {
        let blooms = crate::bloom::sbbf::WriteBlooms {
            columns: vec!["k".into()],
            fpp: 0.01,
            max_distinct: Vec::new(),
        };
        let mut w = PartWriter::create(staging, "part-00001", batches[0].schema(), &blooms, format)
            .unwrap()
            .with_write_buffer(buffer);
        for b in batches {
            w.write(b).unwrap();
        }
        let files = w.finish().unwrap();
        files
            .into_iter()
            .enumerate()
            .map(|(k, f)| {
                assert_eq!(f.name, file_name("part-00001", k));
                let bytes = staging.part(&f.name).read_all().unwrap();
                assert_eq!(bytes.len() as u64, f.bytes, "{}", f.name);
                let (rows, groups) = read_file(bytes);
                (f, rows, groups)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
        /// A part with at most `max` rows a file writes its rows, in order, into files of
        /// exactly `max` rows but the last, named `part-00001`, `part-00001-1`, ..., with row
        /// groups of at most `--row-group-rows`; for any batch sizes and write buffer.
        #[test]
        fn a_part_goes_on_in_files_of_at_most_max_rows(
            sizes in proptest::collection::vec(1usize..2_500, 1..12),
            max in 1u64..6_000,
            group in 1usize..3_000,
            buffer in proptest::prop_oneof![proptest::strategy::Just(0usize), 1usize..2_000_000],
        ) {
            let dir = tempfile::tempdir().unwrap();
            let staging = Staging::at(&dir.path().join("x.parquet"));
            let batches = batches_of(&sizes);
            let mut format = FileFormat::new(Compression::UNCOMPRESSED);
            format.max_rows = NonZeroU64::new(max);
            format.row_group_rows = NonZeroUsize::new(group).unwrap();
            let files = rolled(&staging, &batches, buffer, &format);
            let total: usize = sizes.iter().sum();
            proptest::prop_assert_eq!(files.len(), total.div_ceil(max as usize));
            for (k, (f, _, groups)) in files.iter().enumerate() {
                let expected = if k + 1 < files.len() { max } else { total as u64 - max * k as u64 };
                proptest::prop_assert_eq!(f.rows, expected);
                proptest::prop_assert_eq!(groups.iter().sum::<usize>() as u64, f.rows);
                proptest::prop_assert!(groups.iter().all(|&g| g <= group), "{:?}", groups);
            }
            let back: Vec<RecordBatch> = files.into_iter().flat_map(|(_, rows, _)| rows).collect();
            let schema = batches[0].schema();
            proptest::prop_assert_eq!(
                arrow::compute::concat_batches(&schema, &back).unwrap(),
                arrow::compute::concat_batches(&schema, &batches).unwrap()
            );
        }
    }

    /// A part with `max_bytes` closes each file after the batch that takes the writer's
    /// estimate of it past the size. Without a codec the estimate is the bytes: every file
    /// but the last ends within that batch (and the footer and Bloom filter) of the size, and
    /// the rows come back in order.
    #[test]
    fn a_part_goes_on_in_files_of_about_max_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::at(&dir.path().join("x.parquet"));
        let batches = batches_of(&[1_000; 60]);
        let mut format = FileFormat::new(Compression::UNCOMPRESSED);
        let whole: u64 = rolled(&staging, &batches, 0, &format)[0].0.bytes;
        let max = whole / 6;
        format.max_bytes = NonZeroU64::new(max);
        // A batch of 1,000 rows is about 70 KB; a footer and a filter of a few thousand keys
        // a few KB.
        let batch = whole / 60;
        for buffer in [0, 1 << 20] {
            let files = rolled(&staging, &batches, buffer, &format);
            assert!((6..=7).contains(&files.len()), "{} files", files.len());
            for (f, _, _) in &files[..files.len() - 1] {
                assert!(f.bytes <= max + batch + 16_384, "{f:?} against {max}");
                assert!(f.bytes >= max - 16_384, "{f:?} against {max}");
            }
            let back: Vec<RecordBatch> = files.into_iter().flat_map(|(_, rows, _)| rows).collect();
            let schema = batches[0].schema();
            assert_eq!(
                arrow::compute::concat_batches(&schema, &back).unwrap(),
                arrow::compute::concat_batches(&schema, &batches).unwrap()
            );
        }
    }

    /// On an object store each file is uploaded when it is complete, and its local temporary
    /// file removed; a part that ends exactly at a file's limit leaves no empty file after
    /// it, and a part of no rows is one empty file.
    #[test]
    fn files_of_an_object_store_part_are_uploaded_as_they_complete() {
        let staging = Staging {
            dir: Location::parse("memory:///rolled/_temporary/run").unwrap(),
        };
        let batches = batches_of(&[700, 700, 600]);
        let mut format = FileFormat::new(Compression::UNCOMPRESSED);
        format.max_rows = NonZeroU64::new(1_000);
        let files = rolled(&staging, &batches, 0, &format);
        let rows: Vec<u64> = files.iter().map(|(f, _, _)| f.rows).collect();
        assert_eq!(rows, [1_000, 1_000]);
        let temp = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.starts_with(TEMP_PART_PREFIX)
                    && n.contains(&format!("-{}-", std::process::id()))
                    && n.contains("rolled")
            })
            .count();
        assert_eq!(temp, 0, "temporary files left behind");
        let blooms = crate::bloom::sbbf::WriteBlooms::none();
        let w = PartWriter::create(
            &staging,
            "part-00002",
            batches[0].schema(),
            &blooms,
            &format,
        )
        .unwrap();
        let empty = w.finish().unwrap();
        assert_eq!(empty.len(), 1);
        assert_eq!(empty[0].rows, 0);
        assert!(staging.part("part-00002").exists().unwrap());
    }

    /// A full disk under a write buffer is still exit 1, from whichever call encodes the
    /// kept batches: a write that fills the buffer, or the finish.
    #[test]
    fn a_full_disk_under_a_write_buffer_is_exit_1() {
        let batches = batches_of(&[2_000, 2_000, 2_000]);
        for buffer in [1, 100_000, usize::MAX] {
            let e = part_bytes(&batches, buffer, Some(28)).unwrap_err();
            assert_eq!(e.exit_code(), 1, "buffer {buffer}: {e:?}");
            assert!(
                crate::error::one_line(&e).contains("No space left on device"),
                "buffer {buffer}: {e:?}"
            );
        }
    }
}
