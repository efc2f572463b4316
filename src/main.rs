//! The `bloomjoin` binary: parse the command line, run it, map errors to exit codes
//! (0 success, 2 bad usage or bad input, 1 anything else).

use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::Parser;

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
    let cli = bloomjoin::cli::Cli::parse();
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
