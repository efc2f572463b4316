//! `bloomjoin run`: run a job file (see [`crate::cli::job`]) and print each step's summary.

use std::time::Instant;

use crate::cli::job::{self, Job, StepReport};
use crate::error::Result;

/// Arguments of `run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The job file (TOML with `[train]`, `[join]` and `[filter]` tables), e.g. jobs/users_comments.toml.
    pub job: String,
    /// Override a key of the job file, e.g. --set join.reducers=4 --set train.fpp=0.001
    /// (repeatable; the value is TOML, or else a string).
    #[arg(long = "set", value_name = "TABLE.KEY=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub dry_run: crate::cli::DryRunArg,
}

/// Run `run`: validate the whole job, then its steps in order, printing each summary.
pub fn run(args: Args, quiet: bool) -> Result<()> {
    let t0 = Instant::now();
    let job = Job::load(&args.job, &args.set)?;
    let json = args.dry_run.format == Some(crate::cli::DryRunFormat::Json);
    if !quiet && !json {
        let names: Vec<&str> = job.steps().iter().map(|s| s.name()).collect();
        let mut head = format!("job {}: {}\n", job.path, names.join(", then "));
        if let Some(d) = &job.description {
            head += &format!("  {d}\n");
        }
        crate::cli::print(&head)?;
    }
    if let Some(format) = args.dry_run.format {
        let plans = job::dry_run(&job)?;
        if json {
            for w in plans.iter().flat_map(|d| &d.warnings) {
                eprintln!("bloomjoin: warning: {w}");
            }
            let steps: Vec<serde_json::Value> = plans.into_iter().map(|d| d.plan).collect();
            return crate::cli::print_json(&serde_json::json!({
                "job": job.path,
                "description": job.description,
                "steps": steps,
            }));
        }
        let n = plans.len();
        for (i, (d, step)) in plans.iter().zip(job.steps()).enumerate() {
            if !quiet {
                crate::cli::print(&format!("\n[{}/{n}] {}\n", i + 1, step.name()))?;
            }
            crate::cli::print_dry_run(d, format, quiet)?;
        }
        return Ok(());
    }
    let reports = job::run(
        &job,
        !quiet,
        |i, n, step| {
            if !quiet {
                let _ = crate::cli::print(&format!("\n[{i}/{n}] {}\n", step.name()));
            }
        },
        |r| {
            if let StepReport::Join(j) = r {
                crate::cli::join::warn(j);
            }
            if quiet {
                Ok(())
            } else {
                crate::cli::print(&r.summary())
            }
        },
    )?;
    if !quiet {
        let out = reports.last().map(|r| match r {
            StepReport::Join(j) => format!(", {} rows out in {}", j.rows_out, j.output),
            StepReport::Train(t) => format!(", filter {}", t.output),
            StepReport::Filter(f) => format!(", {} rows out in {}", f.rows_out, f.output),
        });
        crate::cli::print(&format!(
            "\njob done: {} steps in {} ms{}\n",
            reports.len(),
            t0.elapsed().as_millis(),
            out.unwrap_or_default()
        ))?;
    }
    Ok(())
}
