//! Atomic commit of a directory of output parts, Hadoop style.
//!
//! Parts are staged under `<output>/_temporary/<run-id>/`, moved to their final names with
//! create-only renames when every task has succeeded, and `_SUCCESS` is written last with a
//! create-only put. A failed or aborted job leaves no `_SUCCESS` and no part under a final
//! name; two jobs racing for one output: the first to claim a final name wins, the other
//! fails cleanly and removes what it staged.

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

impl OutputDir {
    /// Claim `dir` for a run: refuse an existing output (anything but `_temporary/`) unless
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
        let existing = list_below(&dir)?;
        let visible = existing
            .iter()
            .filter(|p| !rel(&dir, p).starts_with(TEMPORARY))
            .count();
        if visible > 0 && !overwrite {
            return Err(Error::OutputExists {
                location: dir.to_string(),
            });
        }
        let run_id = format!(
            "{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        Ok(OutputDir {
            dir,
            run_id,
            overwrite,
        })
    }

    /// The output directory.
    pub fn location(&self) -> &Location {
        &self.dir
    }

    /// Where part `name` is staged.
    pub fn staged(&self, name: &str) -> Location {
        self.dir.child(TEMPORARY).child(&self.run_id).child(name)
    }

    /// Where part `name` ends up.
    pub fn final_location(&self, name: &str) -> Location {
        self.dir.child(name)
    }

    /// Move the staged `parts` into place and write `_SUCCESS` with `marker`. On any failure
    /// the parts this run already moved are removed again, and the staging is cleaned.
    pub fn commit(&self, parts: &[String], marker: Bytes) -> Result<()> {
        let mut moved = Vec::new();
        let r = self.try_commit(parts, marker, &mut moved);
        if r.is_err() {
            for l in &moved {
                let _ = l.delete();
            }
        }
        self.cleanup_staging();
        r
    }

    fn try_commit(&self, parts: &[String], marker: Bytes, moved: &mut Vec<Location>) -> Result<()> {
        let store = self.dir.store();
        if self.overwrite {
            // Remove the previous output's visible files (not other runs' staging).
            for p in list_below(&self.dir)? {
                if !rel(&self.dir, &p).starts_with(TEMPORARY) {
                    block_on(store.delete(&p)).map_err(|source| self.err(source))?;
                }
            }
        }
        let claimed = |r: std::result::Result<(), object_store::Error>, at: &Location| match r {
            Ok(()) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(Error::OutputExists {
                location: at.to_string(),
            }),
            Err(source) => Err(Error::Store {
                location: at.to_string(),
                source,
            }),
        };
        for name in parts {
            let from = self.staged(name);
            let to = self.final_location(name);
            claimed(
                block_on(store.rename_if_not_exists(from.path(), to.path())),
                &to,
            )?;
            moved.push(to);
        }
        let success = self.final_location(SUCCESS);
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        let put =
            block_on(store.put_opts(success.path(), PutPayload::from(marker), opts)).map(|_| ());
        claimed(put, &success)
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

    fn err(&self, source: object_store::Error) -> Error {
        Error::Store {
            location: self.dir.to_string(),
            source,
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
