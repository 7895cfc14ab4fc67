//! Helpers for the cross-process tests: start the release binaries as real
//! processes, find free loopback ports, scrape Prometheus endpoints, and
//! wait for conditions with bounded polling.
//!
//! The binaries are the ones `cargo test --workspace` builds next to this
//! test executable (every package with binaries has integration tests, so
//! cargo builds them before running any test).

pub mod cluster;
pub mod manifests;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The directory holding the workspace's binaries: beside this executable,
/// or one level up when it is a test in `target/<profile>/deps`.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("executable path");
    let dir = exe.parent().expect("executable directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("target/<profile>").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = bin_dir().join("rnad-tests-tmp").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A loopback port nobody listens on right now, and one this test process
/// has not handed out before: a process given a port may not have bound it
/// yet when the next one is asked for, and the system would hand the same
/// port out again (two processes of one test then collide on it).
pub fn free_port() -> u16 {
    static HANDED_OUT: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if handed_out.insert(port) {
            return port;
        }
    }
    panic!("the system offered only ports handed out before, 1000 times");
}

/// `127.0.0.1:port`.
pub fn local(port: u16) -> String {
    format!("127.0.0.1:{port}")
}

/// A child process with its stderr in a file; killed when dropped.
pub struct Process {
    child: Child,
    /// Its stderr log.
    pub log: PathBuf,
    name: String,
}

/// How to start a [`Process`] beyond its arguments.
#[derive(Clone, Debug, Default)]
pub struct Launch<'a> {
    /// Extra environment variables.
    pub env: Vec<(&'a str, &'a str)>,
    /// A soft limit on open file descriptors (`ulimit -n`), if any.
    pub max_open_files: Option<u64>,
}

impl Process {
    /// Starts `binary` (a workspace binary name) with `args`.
    pub fn start(binary: &str, args: &[&str], log: &Path) -> Process {
        Process::launch(binary, args, log, &Launch::default())
    }

    /// Starts `binary` with `args` as `launch` says.
    pub fn launch(binary: &str, args: &[&str], log: &Path, launch: &Launch) -> Process {
        use std::os::unix::process::CommandExt;
        let stderr = std::fs::File::create(log).unwrap();
        let mut command = Command::new(bin_dir().join(binary));
        command
            .args(args)
            .envs(launch.env.iter().copied())
            .stdout(Stdio::null())
            .stderr(stderr);
        if let Some(limit) = launch.max_open_files {
            // SAFETY: setrlimit is async-signal-safe, touches no memory of
            // the parent, and runs in the child between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let rlimit = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: limit,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("starting {binary}: {e}"));
        Process {
            child,
            log: log.to_path_buf(),
            name: binary.to_string(),
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal (`libc::SIGKILL`, `SIGTERM`, `SIGINT`).
    pub fn signal(&self, signal: libc::c_int) {
        send_signal(self.child.id(), signal);
    }

    /// Waits at most `timeout` for the process to exit; its exit status.
    pub fn wait(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit within {timeout:?}:\n{}",
                self.name,
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the process is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Everything it wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a workspace binary run to its end printed.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status.
    pub status: std::process::ExitStatus,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
}

/// Runs `binary` with `args` to its end (killed and failed after
/// `timeout`), its output in files under `dir` named after `name`.
pub fn run_binary(
    binary: &str,
    args: &[&str],
    dir: &Path,
    name: &str,
    timeout: Duration,
) -> Finished {
    let (out_path, err_path) = (
        dir.join(format!("{name}.out")),
        dir.join(format!("{name}.err")),
    );
    let mut child = Command::new(bin_dir().join(binary))
        .args(args)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {binary}: {e}"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{binary} {args:?} did not finish within {timeout:?}:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Finished {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
    }
}

/// Sends `signal` to process `pid`.
pub fn send_signal(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2) on a child's pid has no memory effects.
    let status = unsafe { libc::kill(pid as libc::pid_t, signal) };
    assert_eq!(status, 0, "kill({pid}, {signal})");
}

/// Open file descriptors of process `pid`.
pub fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|entries| entries.count())
        .unwrap_or(0)
}

/// Resident memory of process `pid`, in bytes.
pub fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Raises this process's soft limit on open files to `wanted` (or its hard
/// limit, if lower) and returns the limit in effect.
pub fn raise_open_file_limit(wanted: u64) -> u64 {
    let mut rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct we own.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut rlimit);
        rlimit.rlim_cur = wanted.min(rlimit.rlim_max).max(rlimit.rlim_cur);
        libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut rlimit);
    }
    rlimit.rlim_cur
}

/// Polls `check` every 100 ms for at most `timeout`; panics with `what`
/// (and `context()`) if it never returns `Some`.
pub fn wait_for<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
    context: impl Fn() -> String,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}\n{}",
            context()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The text of `http://127.0.0.1:port/metrics`, or `None` if nobody answers.
pub fn scrape(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// The value of an unlabelled sample `name` in a scrape.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
}

/// The value of `name{labels}` in a scrape (labels as written, e.g.
/// `policy="target"`).
pub fn labelled(text: &str, name: &str, labels: &str) -> Option<f64> {
    let prefix = format!("{name}{{{labels}}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.trim().parse().ok())
}

/// The step of a learner log's `stopped at step N; checkpoint …` line.
pub fn stopped_at(log: &str) -> Option<u64> {
    let (_, rest) = log.split_once("stopped at step ")?;
    rest.split(';').next()?.trim().parse().ok()
}

/// How many games a head-to-head evaluation had played when a signal
/// stopped it: the N of a log's `evaluation stopped after N of M games`.
pub fn games_before_stop(log: &str) -> Option<u64> {
    let (_, rest) = log.split_once("evaluation stopped after ")?;
    rest.split(' ').next()?.parse().ok()
}

/// The history file's lines, parsed.
pub fn history(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// PromQL's keywords and aggregations (which may have `by (...)` before
/// their `(`). Functions are told by the `(` after them: a metric name is
/// never followed by one.
const PROMQL_KEYWORDS: &[&str] = &[
    "and",
    "or",
    "unless",
    "offset",
    "bool",
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
];

/// Keywords followed by a list of labels, not of expressions.
const PROMQL_LABEL_LISTS: &[&str] = &[
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
];

/// The metric names a PromQL expression reads: every identifier outside
/// label matchers (`{...}`), range selectors (`[...]`), strings and
/// `by`/`without` lists that is not a PromQL word.
pub fn promql_metric_names(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut chars = expr.char_indices().peekable();
    let mut depth_braces = 0;
    let mut depth_brackets = 0;
    let mut grouping = false;
    let mut previous = ' ';
    while let Some((i, c)) = chars.next() {
        // A letter right after a digit is a unit (`5m`), not a name.
        let after_number = previous.is_ascii_digit();
        previous = c;
        match c {
            '{' => depth_braces += 1,
            '}' => depth_braces -= 1,
            '[' => depth_brackets += 1,
            ']' => depth_brackets -= 1,
            ')' if grouping => grouping = false,
            '"' => {
                for (_, q) in chars.by_ref() {
                    if q == '"' {
                        break;
                    }
                }
            }
            c if (c.is_ascii_alphabetic() || c == '_')
                && !after_number
                && depth_braces == 0
                && depth_brackets == 0 =>
            {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == ':' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &expr[i..end];
                let called = expr[end..].trim_start().starts_with('(');
                if PROMQL_LABEL_LISTS.contains(&word) {
                    grouping = true;
                } else if !grouping && !called && !PROMQL_KEYWORDS.contains(&word) {
                    names.push(word.to_string());
                }
            }
            _ => {}
        }
    }
    names
}

/// The sample names of a Prometheus text page (histograms' `_bucket`,
/// `_sum` and `_count` included).
pub fn sample_names(page: &str) -> std::collections::BTreeSet<String> {
    page.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(str::to_string)
        .collect()
}

/// Every PromQL expression of the Grafana dashboard.
pub fn dashboard_queries() -> Vec<String> {
    let path = workspace().join("docker/grafana/dashboards/rnad.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).unwrap();
    dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .map(|t| t["expr"].as_str().unwrap().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promql_names_skip_functions_labels_and_ranges() {
        assert_eq!(
            promql_metric_names(
                "histogram_quantile(0.99, sum by (le) (rate(rnad_learner_policy_lag_bucket[5m])))"
            ),
            ["rnad_learner_policy_lag_bucket"]
        );
        assert_eq!(
            promql_metric_names(r#"sum(up{job="actor"}) / count(x_total{a="b c"}[1h] offset 5m)"#),
            ["up", "x_total"]
        );
        assert_eq!(
            promql_metric_names("rate(a_sum[5m]) / rate(a_count[5m])"),
            ["a_sum", "a_count"]
        );
        assert_eq!(
            promql_metric_names(
                "time() - max(b) > 1 or absent(c) unless on (job) group_left(x) d * bool e"
            ),
            ["b", "c", "d", "e"]
        );
    }
}
