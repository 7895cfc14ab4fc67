//! `rnad-learner sweep` through the binary on Kuhn: every (grid value,
//! seed) run in its own directory named by its settings, resumed where it stopped (interrupted by a step
//! budget or by SIGTERM) with the same histories as a straight run, a run
//! stopped from outside the sweep reported unfinished, the summary written,
//! finished runs left alone, and foreign run directories refused.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use rnad_run::config::Config;
use rnad_run::history::HistoryEntry;
use rnad_testkit::{scratch, TestConfig};

const LEARNER: &str = env!("CARGO_BIN_EXE_rnad-learner");

/// Kuhn in lockstep (reproducible), evaluated and checkpointed every 10
/// steps.
fn write_config(dir: &Path) -> PathBuf {
    TestConfig::kuhn_lockstep(10)
        .checkpoint_every(10)
        .write(&dir.join("kuhn-sweep.toml"))
}

/// `sweep` over the averaging variants given (comma-separated) and seeds,
/// two runs at a time.
fn sweep_command(
    config: &Path,
    out: &Path,
    variants: &str,
    seeds: &str,
    max_steps: u64,
) -> Command {
    let grid = format!("rnad.averaging={variants}");
    let mut command = Command::new(LEARNER);
    command
        .args(["sweep", "--config"])
        .arg(config)
        .args(["--grid", &grid, "--seeds", seeds, "--jobs", "2"])
        .args(["--max-steps", &max_steps.to_string(), "--out"])
        .arg(out);
    command
}

/// Runs [`sweep_command`] to its end.
fn sweep(config: &Path, out: &Path, variants: &str, seeds: &str, max_steps: u64) -> Output {
    sweep_command(config, out, variants, seeds, max_steps)
        .output()
        .unwrap()
}

/// A sweep started with a budget no test reaches, its output captured.
/// Dropped before it has exited (a failed assertion), it is killed with
/// its runs, so no training process outlives the test.
struct UnboundedSweep {
    child: Option<Child>,
}

impl UnboundedSweep {
    fn start(config: &Path, out: &Path, seeds: &str, extra: &[&str]) -> UnboundedSweep {
        let child = sweep_command(config, out, "none", seeds, 100_000_000)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        UnboundedSweep { child: Some(child) }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().expect("still running").id()
    }

    /// Waits (at most a minute) for the sweep to exit; its output.
    fn finish(mut self) -> Output {
        let child = self.child.as_mut().expect("still running");
        rnad_testkit::wait_for(
            "the sweep to exit",
            Duration::from_secs(60),
            || child.try_wait().unwrap(),
            String::new,
        );
        self.child.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for UnboundedSweep {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            for run in children_of(child.id()) {
                rnad_testkit::send_signal(run, libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The pids of a process's children, read from /proc.
fn children_of(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`: comm may hold spaces and brackets.
            let after_comm = &stat[stat.rfind(')')? + 1..];
            let ppid: u32 = after_comm.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == parent).then_some(pid)
        })
        .collect()
}

/// Waits (at most a minute) until the run has evaluated `count` times.
fn wait_for_evaluations(run: &Path, count: usize) {
    let history = run.join("history.jsonl");
    rnad_testkit::wait_for(
        &format!("{} to hold {count} evaluations", history.display()),
        Duration::from_secs(60),
        || {
            std::fs::read_to_string(&history)
                .is_ok_and(|h| h.lines().count() >= count)
                .then_some(())
        },
        String::new,
    );
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// (step, NashConvs) of a run, wall time left out.
fn curve(run: &Path) -> Vec<(u64, [f64; 4])> {
    std::fs::read_to_string(run.join("history.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let e: HistoryEntry = serde_json::from_str(line).unwrap();
            let n = e.nash_conv.expect("an exact evaluation");
            (
                e.learner_step,
                [n.online, n.target, n.target_postprocessed, n.reg],
            )
        })
        .collect()
}

#[test]
fn sweep_resumes_runs_and_summarises_them() {
    let root = scratch("resume");
    let config = write_config(&root);
    let out = root.join("out");

    let first = sweep(&config, &out, "none,ema", "0,1", 20);
    assert!(first.status.success(), "{}", text(&first));
    let second = sweep(&config, &out, "none,ema", "0,1", 40);
    let log = text(&second);
    assert!(second.status.success(), "{log}");
    assert!(log.contains("[4/4] starting"), "{log}");
    for variant in ["none", "ema"] {
        for seed in [0, 1] {
            let run = out
                .join(format!("rnad.averaging={variant}"))
                .join(format!("seed-{seed}"));
            let steps: Vec<u64> = curve(&run).iter().map(|(s, _)| *s).collect();
            assert_eq!(steps, [0, 10, 20, 30, 40], "{}", run.display());
            let run_log = std::fs::read_to_string(run.join("log.txt")).unwrap();
            assert!(run_log.contains("resuming from"), "{run_log}");
            let recorded = Config::load(&run.join("config.toml")).unwrap();
            assert_eq!(recorded.seed, seed);
            assert_eq!(recorded.settings()["rnad.averaging"], variant);
        }
    }

    // A straight run of one pair gives the same evaluations.
    let straight = root.join("straight");
    let output = sweep(&config, &straight, "ema", "1", 40);
    assert!(output.status.success(), "{}", text(&output));
    let resumed = curve(&out.join("rnad.averaging=ema/seed-1"));
    assert_eq!(curve(&straight.join("rnad.averaging=ema/seed-1")), resumed);
    assert_ne!(
        curve(&out.join("rnad.averaging=ema/seed-0")),
        resumed,
        "seeds give different runs"
    );

    // The summary: stdout carries the Markdown; the CSV has a row per
    // (variant, kind).
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.starts_with("# Sweep on kuhn_poker: seeds 0, 1, 40 learner steps per run"),
        "{md}"
    );
    assert!(String::from_utf8_lossy(&second.stdout).contains("| averaging=ema | 2 | 40 |"));
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 1 + 2 * 4, "{csv}");
    assert!(
        rows[1].starts_with("\"averaging=none\",online,2,40,"),
        "{csv}"
    );

    // Given again, nothing runs and nothing changes.
    let again = sweep(&config, &out, "none,ema", "0,1", 40);
    let log = text(&again);
    assert!(again.status.success(), "{log}");
    assert_eq!(log.matches("done already (step 40)").count(), 4, "{log}");
    assert!(!log.contains("starting"), "{log}");
    assert_eq!(curve(&out.join("rnad.averaging=ema/seed-1")), resumed);
}

#[test]
fn sweep_refuses_a_directory_holding_another_experiment() {
    let root = scratch("foreign");
    let config = write_config(&root);
    let out = root.join("out");
    let output = sweep(&config, &out, "am", "3", 10);
    assert!(output.status.success(), "{}", text(&output));
    let recorded = out.join("rnad.averaging=am/seed-3/config.toml");
    let other = std::fs::read_to_string(&recorded)
        .unwrap()
        .replace("learning_rate = 0.0003", "learning_rate = 0.001");
    std::fs::write(&recorded, &other).unwrap();
    let history =
        std::fs::read_to_string(out.join("rnad.averaging=am/seed-3/history.jsonl")).unwrap();

    let refused = sweep(&config, &out, "am", "3", 20);
    let log = text(&refused);
    assert!(!refused.status.success(), "{log}");
    assert!(
        log.contains("rnad.averaging=am/seed-3/config.toml already holds a run with rnad.learning_rate = 0.001"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("rnad.averaging=am/seed-3/history.jsonl")).unwrap(),
        history,
        "the run is left as it was"
    );

    let unknown = sweep(&config, &out, "ema,median", "0", 10);
    let log = text(&unknown);
    assert!(!unknown.status.success());
    assert!(
        log.contains("unknown variant `median`, expected one of `none`, `ema`, `am`, `scheduled`"),
        "{log}"
    );
}

#[test]
fn sigterm_stops_every_run_with_a_checkpoint_and_the_same_command_resumes() {
    let root = scratch("sigterm");
    let config = write_config(&root);
    let out = root.join("out");
    let sweep_run = UnboundedSweep::start(&config, &out, "0,1", &[]);
    for seed in [0, 1] {
        wait_for_evaluations(&out.join(format!("rnad.averaging=none/seed-{seed}")), 3);
    }
    rnad_testkit::send_signal(sweep_run.pid(), libc::SIGTERM);
    let output = sweep_run.finish();
    let log = text(&output);
    assert!(output.status.success(), "{log}");
    assert!(log.contains("sweep interrupted"), "{log}");
    assert!(
        !out.join("summary.md").exists(),
        "no summary of unfinished runs"
    );

    let mut stopped_at = Vec::new();
    for seed in [0, 1] {
        let run = out.join(format!("rnad.averaging=none/seed-{seed}"));
        let run_log = std::fs::read_to_string(run.join("log.txt")).unwrap();
        let step = rnad_testkit::stopped_at(&run_log).unwrap_or_else(|| panic!("{run_log}"));
        stopped_at.push(step);
    }
    let budget = stopped_at.iter().max().unwrap() + 15;
    let resumed = sweep(&config, &out, "none", "0,1", budget);
    assert!(resumed.status.success(), "{}", text(&resumed));
    for (seed, stopped) in [0, 1].iter().zip(&stopped_at) {
        let run = out.join(format!("rnad.averaging=none/seed-{seed}"));
        let run_log = std::fs::read_to_string(run.join("log.txt")).unwrap();
        assert!(
            run_log.contains(&format!("(step {stopped})")),
            "resumed at {stopped}: {run_log}"
        );
        assert_eq!(curve(&run).last().unwrap().0, budget);
    }
    assert!(out.join("summary.md").exists());
}

#[test]
fn a_run_stopped_from_outside_the_sweep_is_reported_unfinished_and_resumes() {
    let root = scratch("stopped-from-outside");
    let config = write_config(&root);
    let out = root.join("out");
    let sweep_run = UnboundedSweep::start(&config, &out, "0", &[]);
    let run = out.join("rnad.averaging=none/seed-0");
    wait_for_evaluations(&run, 3);
    let runs = children_of(sweep_run.pid());
    assert_eq!(runs.len(), 1, "the sweep's one run: {runs:?}");
    rnad_testkit::send_signal(runs[0], libc::SIGTERM);
    let output = sweep_run.finish();
    let log = text(&output);
    assert!(!output.status.success(), "{log}");
    let run_log = std::fs::read_to_string(run.join("log.txt")).unwrap();
    let stopped = rnad_testkit::stopped_at(&run_log).unwrap_or_else(|| panic!("{run_log}"));
    assert!(
        log.contains(&format!(
            "runs did not finish: rnad.averaging=none seed 0 (exited 0 at step {stopped} of \
             100000000, short of the budget: stopped from outside the sweep? give the same \
             command again to resume it; see {})",
            run.join("log.txt").display()
        )),
        "{log}"
    );
    assert!(
        !log.contains("finished rnad.averaging=none seed 0"),
        "{log}"
    );
    assert!(
        !out.join("summary.md").exists(),
        "no summary of an unfinished run"
    );

    let budget = stopped + 15;
    let resumed = sweep(&config, &out, "none", "0", budget);
    assert!(resumed.status.success(), "{}", text(&resumed));
    assert!(
        text(&resumed).contains("finished rnad.averaging=none seed 0"),
        "{}",
        text(&resumed)
    );
    assert_eq!(curve(&run).last().unwrap().0, budget);
    assert!(out.join("summary.md").exists());
}

#[test]
fn grids_over_any_keys_run_their_product_in_directories_named_by_settings() {
    let root = scratch("grids");
    let config = write_config(&root);
    let out = root.join("out");
    let output = Command::new(LEARNER)
        .args(["sweep", "--config"])
        .arg(&config)
        .args([
            "--grid",
            "rnad.averaging=none,ema",
            "--grid",
            "rnad.eta=0.2,0.05",
        ])
        .args([
            "--set",
            "network.hidden=[16]",
            "--seeds",
            "0",
            "--jobs",
            "2",
        ])
        .args(["--max-steps", "10", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    for averaging in ["none", "ema"] {
        for eta in ["0.2", "0.05"] {
            let run = out.join(format!("rnad.averaging={averaging},rnad.eta={eta}/seed-0"));
            let recorded = Config::load(&run.join("config.toml")).unwrap();
            let settings = recorded.settings();
            assert_eq!(settings["rnad.averaging"], averaging);
            assert_eq!(settings["rnad.eta"], eta);
            assert_eq!(settings["network.hidden"], "[16]");
            assert_eq!(curve(&run).last().unwrap().0, 10);
        }
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("averaging=ema, eta=0.05"), "{md}");

    for (flag, value, expected) in [
        ("--grid", "rnad.etta=0.1,0.2", "`rnad.etta`: no such key"),
        ("--grid", "seed=1,2", "--grid seed: give seeds with --seeds"),
        (
            "--grid",
            "rnad.eta=0.1,-1",
            "`rnad.eta`: must be finite and non-negative",
        ),
        ("--grid", "rnad.eta=0.1,1e-1", "are the same setting"),
        ("--set", "seed=3", "--set seed: give seeds with --seeds"),
    ] {
        let output = Command::new(LEARNER)
            .args(["sweep", "--config"])
            .arg(&config)
            .args([flag, value, "--max-steps", "10", "--out"])
            .arg(root.join("refused"))
            .output()
            .unwrap();
        assert!(!output.status.success(), "{flag} {value}");
        assert!(
            text(&output).contains(expected),
            "{flag} {value}: {}",
            text(&output)
        );
        assert!(
            !root.join("refused").exists(),
            "{flag} {value}: nothing started"
        );
    }
}

/// A scheduler's array of tasks: `--list` gives one line per run, each
/// `--index` task runs its run alone (the same evaluations as in a whole
/// sweep), only the task that finds every run done writes the summary, and
/// an index past the end is refused.
#[test]
fn indexed_tasks_run_one_run_each_and_the_last_writes_the_summary() {
    let root = scratch("indexed");
    let config = write_config(&root);
    let out = root.join("out");
    let task = |extra: &[&str]| {
        sweep_command(&config, &out, "none,ema", "3", 20)
            .args(extra)
            .output()
            .unwrap()
    };

    let list = task(&["--list"]);
    assert!(list.status.success(), "{}", text(&list));
    let lines: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("0\trnad.averaging=none seed 3\t"),
        "{lines:?}"
    );
    assert!(lines[1].ends_with("rnad.averaging=ema/seed-3"), "{lines:?}");
    assert!(
        !out.join("rnad.averaging=none").exists(),
        "listing runs nothing"
    );

    let second = task(&["--index", "1"]);
    assert!(second.status.success(), "{}", text(&second));
    assert!(!out.join("summary.md").exists(), "run 0 is not done yet");
    assert!(!out.join("rnad.averaging=none/seed-3").exists());
    let first = task(&["--index", "0"]);
    assert!(first.status.success(), "{}", text(&first));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| averaging=ema | 1 | 20 |"), "{md}");
    assert!(md.contains("| averaging=none | 1 | 20 |"), "{md}");

    let whole = root.join("whole");
    let output = sweep(&config, &whole, "ema", "3", 20);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        curve(&whole.join("rnad.averaging=ema/seed-3")),
        curve(&out.join("rnad.averaging=ema/seed-3"))
    );

    let past = task(&["--index", "2"]);
    assert_eq!(past.status.code(), Some(2), "{}", text(&past));
    assert!(
        text(&past).contains("--index 2: the sweep has 2 runs (0 to 1"),
        "{}",
        text(&past)
    );
}

/// A task of an array stopped by a signal (an eviction, a time limit)
/// saves its checkpoint and exits 75, not 0, so that the scheduler runs it
/// again; run again, it resumes and finishes.
#[test]
fn an_indexed_task_stopped_by_a_signal_exits_75_and_resumes() {
    let root = scratch("indexed-signal");
    let config = write_config(&root);
    let out = root.join("out");
    let task = UnboundedSweep::start(&config, &out, "0,1", &["--index", "1"]);
    let run = out.join("rnad.averaging=none/seed-1");
    wait_for_evaluations(&run, 3);
    rnad_testkit::send_signal(task.pid(), libc::SIGTERM);
    let output = task.finish();
    let log = text(&output);
    assert_eq!(output.status.code(), Some(75), "{log}");
    assert!(log.contains("the same command resumes it"), "{log}");
    let run_log = std::fs::read_to_string(run.join("log.txt")).unwrap();
    let stopped = rnad_testkit::stopped_at(&run_log).unwrap_or_else(|| panic!("{run_log}"));

    let budget = stopped + 15;
    let resumed = sweep_command(&config, &out, "none", "0,1", budget)
        .args(["--index", "1"])
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed));
    assert_eq!(curve(&run).last().unwrap().0, budget);
    assert!(
        !out.join("rnad.averaging=none/seed-0").exists(),
        "only its own run"
    );
}
