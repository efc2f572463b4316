//! The `bloomjoin` binary: parse the command line, run it, map errors to exit codes
//! (0 success, 2 bad usage or bad input, 1 anything else).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    bloomjoin::sys::tune_allocator();
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
        Err(e) => {
            eprintln!("bloomjoin: error: {}", bloomjoin::error::one_line(&e));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
