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

/// Tune glibc's allocator for batch jobs: serve buffers up to 32 MiB from the heap and keep up
/// to 256 MiB of freed memory instead of returning it at once. By default glibc gives every
/// allocation of 128 KiB or more (a decoded column of an 8,192-row batch) its own `mmap` and
/// unmaps it on free, so each batch pays fresh page faults and zeroing. Measured on TPC-H
/// scale 5, lineitem x part: 10-20 % less wall time, about 20 MiB more peak RSS
/// (docs/BENCHMARKS.md). Does nothing on other C libraries. `BLOOMJOIN_MALLOC_DEFAULTS=1`
/// keeps glibc's defaults.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("BLOOMJOIN_MALLOC_DEFAULTS").is_none() {
        // SAFETY: mallopt only changes allocator parameters; called before any thread starts.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
    }
}

/// The number of files this process may hold open (`RLIMIT_NOFILE`), after raising its soft
/// limit to the hard one (at most 65,536), as a job that keeps many files open should. `None`
/// when the system does not say.
pub fn open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the struct passed, nothing else.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
                return None;
            }
            let want = lim.rlim_max.min(65_536);
            if lim.rlim_cur < want {
                let raised = libc::rlimit {
                    rlim_cur: want,
                    rlim_max: lim.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    lim.rlim_cur = want;
                }
            }
        }
        Some(lim.rlim_cur)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A 32-bit tag of this machine (a hash of its host name), written into run ids and lease
/// files so that a later run can tell whether a process id it finds there is on this machine.
pub fn host_id() -> u32 {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    xxhash_rust::xxh3::xxh3_64(name.trim().as_bytes()) as u32
}

/// False only when process `pid` of this machine is known to be gone (Linux: no
/// `/proc/<pid>`). Elsewhere every process counts as alive, so nothing of it is removed.
pub fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") && std::path::Path::new("/proc/self").exists() {
        return std::path::Path::new(&format!("/proc/{pid}")).exists();
    }
    true
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
            assert!(super::process_alive(std::process::id()));
            assert!(super::process_alive(1));
            // Beyond Linux's pid_max (2^22).
            assert!(!super::process_alive(u32::MAX - 1));
        }
    }
}
