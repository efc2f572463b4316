//! Atomic commit of a directory of output parts, Hadoop style, on any object store.
//!
//! Protocol (works with plain renames and create-only puts, so on S3 too):
//! 1. Tasks write `<output>/_temporary/<run-id>/part-NNNNN.parquet`.
//! 2. When every task succeeded, each part is renamed to its final name
//!    `<output>/part-NNNNN-<run-id>.parquet` (a rename never exposes a half-written object: a
//!    local rename is atomic, an object-store rename is a server-side copy).
//! 3. `_SUCCESS` is written last with a create-only put; it holds the report and the list of
//!    the run's parts (the manifest). A run that loses the race for `_SUCCESS` removes its
//!    parts again and fails. With `--overwrite`, the old `_SUCCESS` is removed first, so no
//!    reader ever sees a `_SUCCESS` next to a mix of old and new parts.
//! 4. After `_SUCCESS`, parts of earlier failed or replaced runs and this run's staging are
//!    removed.
//!
//! An output "exists" when it has a `_SUCCESS`. A run that failed or was killed leaves no
//! `_SUCCESS` and no partly written part under a final name; the next run cleans up after it.

use bytes::Bytes;
use futures::TryStreamExt;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::error::{Error, Result};
use crate::store::{block_on, Location};

/// The marker written last.
pub const SUCCESS: &str = "_SUCCESS";
/// The staging folder.
pub const TEMPORARY: &str = "_temporary";

/// An output directory being written by one run.
#[derive(Debug)]
pub struct OutputDir {
    dir: Location,
    run_id: String,
    overwrite: bool,
}

/// A new run id: time and process id, unique enough for concurrent runs on one store.
fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:05x}", nanos, std::process::id() & 0xfffff)
}

impl OutputDir {
    /// Claim `dir` for a run: refuse a committed output (one with `_SUCCESS`) unless
    /// `overwrite`.
    pub fn prepare(dir: Location, overwrite: bool) -> Result<OutputDir> {
        if let Some(p) = dir.local_path() {
            if p.is_file() {
                return Err(Error::Location {
                    location: dir.to_string(),
                    reason: "is a file; the join output is a directory".into(),
                });
            }
        }
        if !overwrite && dir.child(SUCCESS).exists()? {
            return Err(Error::OutputExists {
                location: dir.to_string(),
            });
        }
        Ok(OutputDir {
            dir,
            run_id: new_run_id(),
            overwrite,
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

    /// Where task part `name` (e.g. `part-00003`) is staged.
    pub fn staged(&self, name: &str) -> Location {
        self.dir
            .child(TEMPORARY)
            .child(&self.run_id)
            .child(&format!("{name}.parquet"))
    }

    /// The final file name of task part `name`.
    pub fn final_name(&self, name: &str) -> String {
        format!("{name}-{}.parquet", self.run_id)
    }

    /// Move the staged `parts` into place and write `_SUCCESS` with `marker`; then remove
    /// leftovers of earlier runs. On failure, this run's moved parts are removed again.
    pub fn commit(&self, parts: &[String], marker: Bytes) -> Result<()> {
        let mut moved = Vec::new();
        let r = self.try_commit(parts, marker, &mut moved);
        match &r {
            Ok(()) => self.remove_stale(&moved),
            Err(_) => {
                for l in &moved {
                    let _ = l.delete();
                }
            }
        }
        self.cleanup_staging();
        r
    }

    fn try_commit(&self, parts: &[String], marker: Bytes, moved: &mut Vec<Location>) -> Result<()> {
        let store = self.dir.store();
        let success = self.dir.child(SUCCESS);
        if self.overwrite {
            success.delete()?;
        }
        for name in parts {
            let from = self.staged(name);
            let to = self.dir.child(&self.final_name(name));
            block_on(store.rename(from.path(), to.path())).map_err(|source| Error::Store {
                location: to.to_string(),
                source,
            })?;
            moved.push(to);
        }
        crate::fault::hit("commit")?;
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        match block_on(store.put_opts(success.path(), PutPayload::from(marker), opts)) {
            Ok(_) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(Error::OutputExists {
                location: self.dir.to_string(),
            }),
            Err(source) => Err(Error::Store {
                location: success.to_string(),
                source,
            }),
        }
    }

    /// Remove every file that is not this run's output: parts of failed or replaced runs,
    /// and all of `_temporary` (as Hadoop's committer does; a run still staging there would
    /// lose the race for `_SUCCESS` anyway).
    fn remove_stale(&self, ours: &[Location]) {
        let keep: Vec<&str> = ours.iter().map(|l| l.path().as_ref()).collect();
        if let Ok(paths) = list_below(&self.dir) {
            for p in paths {
                let r = rel(&self.dir, &p);
                if r == SUCCESS || keep.contains(&p.as_ref()) {
                    continue;
                }
                if r.starts_with(TEMPORARY) || (r.starts_with("part-") && !r.contains('/')) {
                    let _ = block_on(self.dir.store().delete(&p));
                }
            }
        }
        if let Some(p) = self.dir.child(TEMPORARY).local_path() {
            let _ = std::fs::remove_dir_all(p);
        }
    }

    /// Remove this run's staged files (best effort; used on failure and after commit).
    pub fn cleanup_staging(&self) {
        let staging = self.dir.child(TEMPORARY).child(&self.run_id);
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
    }
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
        .map_err(|source| Error::Store {
            location: dir.to_string(),
            source,
        })
}
