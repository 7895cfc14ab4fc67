//! Processes a test starts: workspace binaries with their stderr in a
//! file, killed when the test drops them; signals; what `/proc` says of
//! them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::bin_dir;

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

/// Runs the workspace binary `binary` with `args` to its end; what it
/// printed and how it exited.
pub fn binary_output(binary: &str, args: &[&str]) -> Output {
    Command::new(bin_dir().join(binary))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {binary}: {e}"))
}

/// The one line of JSON a `--json` command printed.
pub fn stdout_json(output: &Output) -> serde_json::Value {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(
        text.trim().lines().count(),
        1,
        "exactly one line of JSON: {text}"
    );
    serde_json::from_str(&text).expect("stdout is one JSON object")
}
