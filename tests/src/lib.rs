//! Helpers for the cross-process tests: start the release binaries as real
//! processes, find free loopback ports, scrape Prometheus endpoints, and
//! wait for conditions with bounded polling.
//!
//! The binaries are the ones `cargo test --workspace` builds next to this
//! test executable (every package with binaries has integration tests, so
//! cargo builds them before running any test).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The directory holding the workspace's binaries.
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/..")
        .to_path_buf()
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

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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

impl Process {
    /// Starts `binary` (a workspace binary name) with `args`.
    pub fn start(binary: &str, args: &[&str], log: &Path) -> Process {
        let stderr = std::fs::File::create(log).unwrap();
        let child = Command::new(bin_dir().join(binary))
            .args(args)
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {binary}: {e}"));
        Process {
            child,
            log: log.to_path_buf(),
            name: binary.to_string(),
        }
    }

    /// Sends a signal (`KILL`, `TERM`, `INT`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{name} {}", self.name);
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

/// The history file's lines, parsed.
pub fn history(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
