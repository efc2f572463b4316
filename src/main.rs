//! The `bloomjoin` binary: parse the command line, run it, map errors to exit codes
//! (0 success, 2 bad usage or bad input, 1 anything else).

use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::Parser;

/// A command-line usage error on one line, like every other error: clap's message, its
/// possible values and tip, without the usage block and the pointer to --help, which the
/// line ends with instead.
fn usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect();
    let mut line = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            // A list follows its heading ("were not provided: --input, --column").
            line += match (line.ends_with(':'), parts[i - 1].ends_with(':')) {
                (true, _) => " ",
                (false, false) if !parts[i - 1].contains(' ') || !p.contains(' ') => ", ",
                _ => "; ",
            };
        }
        line += p;
    }
    format!("{line} (see --help)")
}

/// The signal that asked the job to stop (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// SIGINT and SIGTERM cancel the job cleanly ([`bloomjoin::cancel`]): it stops, removes what it
/// staged, commits nothing and exits 128 + the signal (130, 143). A second signal ends the
/// process at once.
fn handle_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("bloomjoin-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
                    std::process::exit(128 + sig);
                }
                bloomjoin::cancel::request();
            }
        });
}

fn main() -> ExitCode {
    bloomjoin::sys::tune_allocator();
    bloomjoin::store::refuse_memory_outputs();
    let cli = match bloomjoin::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version, and the help printed when no subcommand is given.
        Err(e)
            if !e.use_stderr()
                || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("bloomjoin: error: {}", usage_error(&e));
            return ExitCode::from(2);
        }
    };
    if let Err(e) = bloomjoin::store::check_environment() {
        eprintln!("bloomjoin: error: {}", bloomjoin::error::one_line(&e));
        return ExitCode::from(2);
    }
    let filter = tracing_subscriber::EnvFilter::try_from_env("BLOOMJOIN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    // Worker panics are caught and reported as one-line errors; keep the default hook from
    // printing them (and their backtraces) as well.
    std::panic::set_hook(Box::new(|info| {
        tracing::debug!("panic: {info}");
    }));
    handle_signals();
    let result = std::panic::catch_unwind(|| bloomjoin::cli::run(cli)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(bloomjoin::Error::Internal(format!("panic: {msg}")))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_cancelled() => {
            let sig = match SIGNAL.load(Ordering::SeqCst) {
                0 => 2,
                s => s,
            };
            eprintln!("bloomjoin: error: {}", bloomjoin::error::one_line(&e));
            ExitCode::from((128 + sig) as u8)
        }
        Err(e) => {
            eprintln!("bloomjoin: error: {}", bloomjoin::error::one_line(&e));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
