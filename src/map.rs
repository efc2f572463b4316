//! The map stage: the runner shared by `train`, `join` and `scan` (the splits of a [`Plan`]
//! on `W` worker threads of the current rayon pool), and the join's map task with its
//! prefilter tiers (`task`, `prefilter`, `prune`).
//!
//! Each worker pulls the next split index from a shared counter and folds it into its own
//! accumulator (a partial filter, a scratch buffer), so work is balanced without per-split
//! allocation of accumulators. The first failure (an error or a panic, caught here) cancels the
//! other workers and is returned once, wrapped with the stage and the split it came from.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::plan::Plan;

pub(crate) mod prefilter;
pub(crate) mod prune;
pub(crate) mod task;

/// The pool of `workers` map threads (`bloomjoin-map-N`) a job's stages run on.
pub(crate) fn worker_pool(workers: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|i| format!("bloomjoin-map-{i}"))
        .build()
        .map_err(|e| Error::Internal(format!("cannot start {workers} worker threads: {e}")))
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Run `f(acc, split_index)` for every split on `workers` threads; each worker starts from
/// `init()`. Returns the accumulators of the workers that ran. `cancel` is set on failure and,
/// when set by someone else (a failed reducer), stops the workers early without an error. A
/// split's error names its `stage` and its file and row groups.
pub fn run_splits<A: Send>(
    plan: &Plan,
    stage: &'static str,
    workers: usize,
    cancel: &AtomicBool,
    init: impl Fn() -> Result<A> + Sync,
    f: impl Fn(&mut A, usize) -> Result<()> + Sync,
) -> Result<Vec<A>> {
    run_tasks(
        plan.splits.len(),
        workers,
        cancel,
        init,
        |acc, i| crate::fault::hit("map").and_then(|()| f(acc, i)),
        |i, e| {
            let split = &plan.splits[i];
            Error::Task {
                stage,
                task: format!(
                    "{} row groups {}..{}",
                    plan.files[split.file].location, split.row_groups.start, split.row_groups.end
                ),
                source: Box::new(e),
            }
        },
    )
}

/// Run `f(acc, i)` for every task `i` in `0..n` on `workers` threads of the current rayon
/// pool, each taking the next task when it is done with one; each worker starts from
/// `init()`. Returns the accumulators of the workers that ran. A task that fails or panics
/// sets `cancel` and stops the others; its error (other than a cancellation) is passed
/// through `task_error(i, error)`. `cancel`, set by someone else, stops the workers early
/// without an error; a requested cancellation ([`crate::cancel`]) stops them with one.
pub(crate) fn run_tasks<A: Send>(
    n: usize,
    workers: usize,
    cancel: &AtomicBool,
    init: impl Fn() -> Result<A> + Sync,
    f: impl Fn(&mut A, usize) -> Result<()> + Sync,
    task_error: impl Fn(usize, Error) -> Error + Sync,
) -> Result<Vec<A>> {
    let next = AtomicUsize::new(0);
    let accs: Mutex<Vec<A>> = Mutex::new(Vec::new());
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    let fail = |e: Error| {
        cancel.store(true, Ordering::Relaxed);
        first_err.lock().expect("error slot").get_or_insert(e);
    };
    rayon::scope(|s| {
        for _ in 0..workers.min(n).max(1) {
            s.spawn(|_| {
                let mut acc = match init() {
                    Ok(a) => a,
                    Err(e) => return fail(e),
                };
                loop {
                    if crate::cancel::requested() {
                        return fail(Error::Cancelled);
                    }
                    if cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let task = || f(&mut acc, i);
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task))
                        .unwrap_or_else(|p| {
                            Err(Error::Internal(format!(
                                "a map task panicked: {}",
                                panic_message(p.as_ref())
                            )))
                        });
                    if let Err(e) = r {
                        if e.is_cancelled() {
                            return fail(e);
                        }
                        return fail(task_error(i, e));
                    }
                }
                accs.lock().expect("accumulators").push(acc);
            });
        }
    });
    match first_err.into_inner().expect("error slot") {
        Some(e) => Err(e),
        None => Ok(accs.into_inner().expect("accumulators")),
    }
}
