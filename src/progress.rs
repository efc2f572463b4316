//! Progress bars on stderr (indicatif), shown only when stderr is a terminal and `--quiet`
//! is off.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar counting `total` rows for `stage`; hidden unless `enabled` and stderr is a terminal.
pub fn rows(stage: &str, total: u64, enabled: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if !enabled || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>8} [{bar:30}] {human_pos}/{human_len} rows {per_sec} eta {eta}",
        )
        .expect("template parses")
        .progress_chars("=> "),
    );
    bar.set_prefix(stage.to_string());
    bar
}
