//! One trainer per run directory, and no litter: a second learner on a
//! directory in use is refused at once naming the holder, a learner killed
//! while holding it is restarted without complaint, and a disk that fails
//! every checkpoint leaves no temporary files behind. Real `rnad-learner`
//! processes; every wait is bounded.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rnad_testkit::{scratch, send_signal, stopped_at, TestConfig};

const LEARNER: &str = env!("CARGO_BIN_EXE_rnad-learner");
/// Bound of every wait for a process.
const LIMIT: Duration = Duration::from_secs(60);

/// Kuhn in lockstep, evaluated every 20 steps and checkpointed every 50.
fn write_config(dir: &Path) -> PathBuf {
    TestConfig::kuhn_lockstep(20)
        .checkpoint_every(50)
        .write(&dir.join("kuhn.toml"))
}

fn learner(command: &str, config: &Path, run_dir: &Path, extra: &[&str]) -> Command {
    let mut learner = Command::new(LEARNER);
    learner
        .arg(command)
        .arg("--config")
        .arg(config)
        .arg("--run-dir")
        .arg(run_dir)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    learner
}

/// Runs to the end, at most [`LIMIT`].
fn output(mut command: Command) -> Output {
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("rnad-learner did not finish within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Waits until `path` exists and is not empty.
fn wait_for_file(path: &Path, child: &mut Child) {
    let deadline = Instant::now() + LIMIT;
    while std::fs::metadata(path).map_or(0, |m| m.len()) == 0 {
        assert!(child.try_wait().unwrap().is_none(), "the learner exited");
        assert!(Instant::now() < deadline, "{} not written", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|name| name.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_second_learner_is_refused_naming_the_holder_and_a_killed_holder_blocks_nothing() {
    let dir = scratch("run_dir_lock");
    let config = write_config(&dir);
    let run = dir.join("run");
    let mut holder = learner("local", &config, &run, &[]).spawn().unwrap();
    wait_for_file(&run.join("history.jsonl"), &mut holder);
    let named = format!("pid {}", holder.id());
    for (command, extra) in [
        ("local", vec!["--max-steps", "1000000"]),
        ("serve", vec!["--listen", "127.0.0.1:0"]),
    ] {
        let started = Instant::now();
        let second = output(learner(command, &config, &run, &extra));
        let log = stderr(&second);
        assert_eq!(second.status.code(), Some(1), "{command}: {log}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{command} took {:?} to give up",
            started.elapsed()
        );
        assert!(
            log.contains("is in use by") && log.contains(&named) && log.contains("on host"),
            "{command}: {log}"
        );
    }
    // The holder was not disturbed: it still trains.
    assert!(holder.try_wait().unwrap().is_none());
    send_signal(holder.id(), libc::SIGKILL);
    holder.wait().unwrap();
    let newest = checkpoint_steps(&run.join("checkpoints"))
        .last()
        .copied()
        .unwrap_or(0);
    let until = (newest + 10).to_string();
    let restarted = output(learner("local", &config, &run, &["--max-steps", &until]));
    let log = stderr(&restarted);
    assert!(restarted.status.success(), "{log}");
    assert!(!log.contains("in use"), "{log}");
    assert_eq!(stopped_at(&log), Some(newest + 10));
}

#[test]
fn a_disk_that_fails_every_checkpoint_leaves_no_temporaries_and_the_run_resumes_after() {
    let dir = scratch("run_dir_litter");
    let config = write_config(&dir);
    let run = dir.join("run");
    let checkpoints = run.join("checkpoints");
    // Files may grow to 48 KiB: the logs fit, a Kuhn checkpoint (about
    // 100 KiB) fails part-way, as on a full disk.
    let mut full = learner("local", &config, &run, &[]);
    // SAFETY: setrlimit and signal are async-signal-safe and touch only
    // the child, between fork and exec.
    unsafe {
        full.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 48 * 1024,
                rlim_max: 48 * 1024,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let log_path = dir.join("full.log");
    full.stderr(std::fs::File::create(&log_path).unwrap());
    let mut child = full.spawn().unwrap();
    let deadline = Instant::now() + LIMIT;
    loop {
        let log = std::fs::read_to_string(&log_path).unwrap();
        if log.matches("write failed").count() >= 4 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "exited:\n{log}");
        assert!(Instant::now() < deadline, "no failed checkpoints:\n{log}");
        std::thread::sleep(Duration::from_millis(20));
        // A write may be under way at any moment: at most its one file.
        assert!(temporaries(&checkpoints).len() <= 1);
    }
    send_signal(child.id(), libc::SIGKILL);
    child.wait().unwrap();
    assert!(
        temporaries(&checkpoints).len() <= 1,
        "{:?}",
        temporaries(&checkpoints)
    );
    assert!(checkpoint_steps(&checkpoints).is_empty());
    // What a crash mid-write leaves, whatever this run left.
    std::fs::write(
        checkpoints.join("checkpoint-000000000050.safetensors.tmp"),
        b"half a checkpoint",
    )
    .unwrap();

    let resumed = output(learner("local", &config, &run, &["--max-steps", "100"]));
    let log = stderr(&resumed);
    assert!(resumed.status.success(), "{log}");
    assert!(log.contains("removed a temporary file"), "{log}");
    assert!(temporaries(&checkpoints).is_empty());
    assert_eq!(checkpoint_steps(&checkpoints), [50, 100]);
}

fn checkpoint_steps(dir: &Path) -> Vec<u64> {
    let mut steps: Vec<u64> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix("checkpoint-")?
                .strip_suffix(".safetensors")?
                .parse()
                .ok()
        })
        .collect();
    steps.sort_unstable();
    steps
}
