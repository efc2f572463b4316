//! Machine facts for reports and memory checks (Linux `/proc`; `None` elsewhere).

/// Peak resident set size of this process in bytes (`VmHWM`).
pub fn peak_rss() -> Option<u64> {
    proc_status_kib("VmHWM:").map(|k| k * 1024)
}

/// Total physical memory in bytes (`MemTotal`).
pub fn total_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    field_kib(&s, "MemTotal:").map(|k| k * 1024)
}

fn proc_status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    field_kib(&s, field)
}

fn field_kib(text: &str, field: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The number of worker threads to use when the user gives none: all cores.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_proc_fields() {
        assert_eq!(
            super::field_kib("VmHWM:\t  1234 kB\n", "VmHWM:"),
            Some(1234)
        );
        if cfg!(target_os = "linux") {
            assert!(super::peak_rss().unwrap() > 0);
            assert!(super::total_memory().unwrap() > 0);
        }
    }
}
