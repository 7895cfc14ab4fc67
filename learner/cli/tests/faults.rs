//! `rnad-learner local` after what goes wrong on a real machine: a newest
//! checkpoint torn by a power loss, kills at random moments that cut the
//! history's last line short, and a restart with another config. Every
//! loop is bounded in count and time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rnad_learner::checkpoint;
use rnad_run::config::Config;
use rnad_testkit::{scratch, send_signal, stopped_at, TestConfig};

const LEARNER: &str = env!("CARGO_BIN_EXE_rnad-learner");

/// Kuhn in lockstep, evaluated every 20 steps and checkpointed every 50,
/// written to `dir/kuhn.toml` with `edit` applied.
fn write_config(dir: &Path, edit: impl FnOnce(&mut Config)) -> PathBuf {
    TestConfig::kuhn_lockstep(20)
        .checkpoint_every(50)
        .with(|c| c.checkpoint.keep = 3)
        .with(edit)
        .write(&dir.join("kuhn.toml"))
}

fn local(config: &Path, run_dir: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(LEARNER);
    command
        .arg("local")
        .arg("--config")
        .arg(config)
        .arg("--run-dir")
        .arg(run_dir)
        .args(extra);
    command
}

fn finish(config: &Path, run_dir: &Path, max_steps: u64, extra: &[&str]) -> Output {
    let steps = max_steps.to_string();
    let mut args = vec!["--max-steps", steps.as_str()];
    args.extend_from_slice(extra);
    local(config, run_dir, &args).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_torn_newest_checkpoint_is_moved_aside_and_the_run_resumes_from_the_one_before() {
    let dir = scratch("faults_torn_checkpoint");
    let config = write_config(&dir, |_| {});
    let run = dir.join("run");
    let first = finish(&config, &run, 100, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let checkpoints = checkpoint::list(&run.join("checkpoints")).unwrap();
    let newest = checkpoints.last().unwrap().clone();
    assert_eq!(checkpoint::step_of(&newest), Some(100));
    // What a power loss before the data reached the disk leaves behind.
    let length = std::fs::metadata(&newest).unwrap().len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&newest)
        .unwrap();
    file.set_len(length / 3).unwrap();
    drop(file);
    let torn = std::fs::read(&newest).unwrap();

    let second = finish(&config, &run, 120, &[]);
    let log = stderr(&second);
    assert!(second.status.success(), "{log}");
    assert!(log.contains("unreadable checkpoint moved aside"), "{log}");
    assert!(
        log.contains("(step 50)"),
        "resumed from the one before: {log}"
    );
    assert_eq!(stopped_at(&log), Some(120));
    let aside = PathBuf::from(format!("{}.unreadable", newest.display()));
    assert_eq!(
        std::fs::read(&aside).unwrap(),
        torn,
        "the torn file is kept"
    );
    let history = std::fs::read_to_string(run.join("history.jsonl")).unwrap();
    let steps: Vec<u64> = history
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["learner_step"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(
        steps,
        [0, 20, 40, 60, 80, 100, 120],
        "cut back to step 50, then made again"
    );
}

/// A small deterministic generator for the kill times.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn start(config: &Path, run_dir: &Path) -> Child {
    local(config, run_dir, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Killed with SIGKILL at random moments twelve times, a third of them
/// with the history's last line then cut short as a crash mid-append
/// leaves it, the run resumes every time, its history stays a clean
/// sequence of evaluations, and `plot` draws it.
#[test]
fn a_run_killed_at_random_moments_resumes_every_time_and_plots() {
    let dir = scratch("faults_random_kills");
    let config = write_config(&dir, |c| c.checkpoint.interval_steps = 20);
    let run = dir.join("run");
    let history = run.join("history.jsonl");
    let mut random = Lcg(2026);
    for round in 0..12 {
        let mut child = start(&config, &run);
        let deadline = Instant::now() + Duration::from_secs(60);
        let before = std::fs::metadata(&history).map_or(0, |m| m.len());
        while std::fs::metadata(&history).map_or(0, |m| m.len()) <= before {
            assert!(
                Instant::now() < deadline,
                "round {round}: no evaluation within 60 s"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "round {round}: exited early"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(random.below(400)));
        send_signal(child.id(), libc::SIGKILL);
        child.wait().unwrap();
        if round % 3 == 0 {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&history)
                .unwrap();
            file.write_all(br#"{"learner_step":99999,"wall_sec"#)
                .unwrap();
        }
    }
    let reached = checkpoint::list(&run.join("checkpoints"))
        .unwrap()
        .iter()
        .filter_map(|p| checkpoint::step_of(p))
        .max()
        .unwrap();
    let budget = reached + 100;
    let output = finish(&config, &run, budget, &[]);
    let log = stderr(&output);
    assert!(output.status.success(), "{log}");
    let text = std::fs::read_to_string(&history).unwrap();
    let mut steps = Vec::new();
    for line in text.lines() {
        let entry: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}\n{text}"));
        steps.push(entry["learner_step"].as_u64().unwrap());
    }
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
    assert_eq!(steps.first(), Some(&0));
    assert_eq!(steps.last(), Some(&budget));

    let figure = dir.join("nash_conv.svg");
    let plot = Command::new(rnad_testkit::bin_dir().join("rnad-evaluator"))
        .arg("plot")
        .arg("--runs")
        .arg(&run)
        .arg("--out")
        .arg(&figure)
        .output()
        .unwrap();
    assert!(plot.status.success(), "{}", stderr(&plot));
    assert!(std::fs::metadata(&figure).unwrap().len() > 1000);
}

#[test]
fn a_changed_learning_rate_is_refused_by_name_then_accepted_and_recorded() {
    let dir = scratch("faults_config_change");
    let run = dir.join("run");
    let original = write_config(&dir, |_| {});
    let first = finish(&original, &run, 40, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let recorded = std::fs::read_to_string(run.join("config.toml")).unwrap();

    let changed = write_config(&dir, |c| {
        c.rnad.learning_rate = 1e-3;
        c.checkpoint.keep = 5;
    });
    let refused = finish(&changed, &run, 60, &[]);
    let log = stderr(&refused);
    assert!(!refused.status.success());
    assert!(
        log.contains("rnad.learning_rate = 0.0003 -> 0.001")
            && log.contains("--accept-config-change"),
        "{log}"
    );
    assert!(
        !log.contains("checkpoint.keep = 3 -> 5"),
        "operational keys are not refused: {log}"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("config.toml")).unwrap(),
        recorded,
        "nothing changed"
    );
    assert!(!run.join("config-changes.jsonl").exists());

    let accepted = finish(&changed, &run, 60, &["--accept-config-change"]);
    let log = stderr(&accepted);
    assert!(accepted.status.success(), "{log}");
    let now = Config::load(&run.join("config.toml")).unwrap();
    assert_eq!(now.rnad.learning_rate, 1e-3);
    let changes = std::fs::read_to_string(run.join("config-changes.jsonl")).unwrap();
    let record: serde_json::Value = serde_json::from_str(changes.trim()).unwrap();
    assert_eq!(record["learner_step"], 40);
    let keys: Vec<(&str, &str, &str)> = record["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap(),
                c["from"].as_str().unwrap(),
                c["to"].as_str().unwrap(),
            )
        })
        .filter(|(key, _, _)| *key != "run_dir")
        .collect();
    assert_eq!(
        keys,
        [
            ("checkpoint.keep", "3", "5"),
            ("rnad.learning_rate", "0.0003", "0.001")
        ]
    );

    // Only operational keys changed: no flag needed, still recorded.
    let operational = write_config(&dir, |c| {
        c.rnad.learning_rate = 1e-3;
        c.checkpoint.keep = 4;
    });
    let output = finish(&operational, &run, 80, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(run.join("config-changes.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

/// Every value of every parameter set of the checkpoint at `path`, read
/// back from the file.
fn checkpoint_values(path: &Path, config: &Config) -> Vec<f32> {
    let file = rnad_run::checkpoint::CheckpointFile::read(path).unwrap();
    let run = rnad_run::ResolvedRun::new(config.clone()).unwrap();
    ["online", "target", "reg", "reg_prev", "adam_nu"]
        .iter()
        .flat_map(|set| file.params(run.shape(), set).unwrap().to_vec().unwrap())
        .collect()
}

/// A run whose learning rate makes every step diverge: the guard skips the
/// steps, rolls back to the newest checkpoint with a smaller rate, and
/// once the roll-backs allowed are spent stops with status 1; nothing
/// non-finite reaches a checkpoint or the history.
#[test]
fn a_diverging_run_skips_rolls_back_and_stops_with_an_error_writing_nothing_non_finite() {
    let dir = scratch("faults_divergence");
    let config = write_config(&dir, |_| {});
    let run = dir.join("run");
    let first = finish(&config, &run, 100, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let started = Instant::now();
    let wild = finish(
        &config,
        &run,
        300,
        &[
            "--accept-config-change",
            "--set",
            "rnad.learning_rate=1e30",
            "--set",
            "rnad.clip_gradient=1e30",
            "--set",
            "rnad.max_nonfinite_steps=4",
            "--set",
            "rnad.max_rollbacks=2",
        ],
    );
    let log = stderr(&wild);
    assert_eq!(wild.status.code(), Some(1), "{log}");
    assert!(started.elapsed() < Duration::from_secs(60), "{log}");
    assert_eq!(log.matches("the step is skipped").count(), 12, "{log}");
    assert!(
        log.contains("is not finite in 4 steps in a row: rolled back to")
            && log.contains("checkpoint-000000000100.safetensors (step 100) with the learning rate scaled by 0.5 (roll-back 1 of 2)")
            && log.contains("scaled by 0.25 (roll-back 2 of 2)"),
        "{log}"
    );
    assert!(
        log.contains("the run keeps diverging: step 100: θ")
            && log.contains("after 2 roll-back(s)"),
        "{log}"
    );
    let recorded = Config::load(&run.join("config.toml")).unwrap();
    let checkpoints = checkpoint::list(&run.join("checkpoints")).unwrap();
    assert_eq!(
        checkpoints
            .iter()
            .filter_map(|p| checkpoint::step_of(p))
            .collect::<Vec<_>>(),
        [50, 100],
        "no checkpoint after the divergence"
    );
    for path in &checkpoints {
        let values = checkpoint_values(path, &recorded);
        assert!(!values.is_empty() && values.iter().all(|v| v.is_finite()));
    }
    let history = std::fs::read_to_string(run.join("history.jsonl")).unwrap();
    assert!(
        !history.contains("NaN") && !history.contains("null"),
        "{history}"
    );
    let last: serde_json::Value = serde_json::from_str(history.lines().last().unwrap()).unwrap();
    assert_eq!(last["learner_step"], 100);
}

/// A run that diverges a step after its newest checkpoint: the roll-back
/// takes it back a step, and what it reports from then on (training log,
/// progress) starts afresh there; the smaller rate and the roll-back count
/// are checkpointed at once, so a restart goes on from them and does not
/// roll back again past `rnad.max_rollbacks`.
#[test]
fn a_roll_back_past_applied_steps_starts_the_records_afresh_and_survives_a_restart() {
    let dir = scratch("faults_roll_back");
    let config = write_config(&dir, |_| {});
    let run = dir.join("run");
    let first = finish(&config, &run, 100, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    // A rate of 1000 applies one step from the checkpoint; the next one's
    // Adam moments overflow.
    let wild = [
        "--accept-config-change",
        "--set",
        "training_log.interval_steps=1",
        "--set",
        "rnad.learning_rate=1e3",
        "--set",
        "rnad.clip_gradient=1e30",
        "--set",
        "rnad.max_nonfinite_steps=2",
        "--set",
        "rnad.max_rollbacks=1",
    ];
    let diverged = finish(&config, &run, 300, &wild);
    let log = stderr(&diverged);
    assert_eq!(diverged.status.code(), Some(1), "{log}");
    assert!(
        log.contains("step 101: ")
            && log.contains("rolled back to")
            && log.contains("(step 100) with the learning rate scaled by 0.5 (roll-back 1 of 1)"),
        "{log}"
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(run.join("training.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let steps: Vec<u64> = lines
        .iter()
        .map(|l| l["learner_step"].as_u64().unwrap())
        .collect();
    assert_eq!(
        steps.last(),
        Some(&101),
        "the step made again after the roll-back"
    );
    assert!(
        steps.windows(2).all(|w| w[0] < w[1]),
        "cut back, not duplicated: {steps:?}"
    );
    let after = lines.last().unwrap();
    assert_eq!(after["steps"], 1);
    assert_eq!(after["learning_rate"], 500.0);
    let speed = after["steps_per_second"].as_f64().unwrap();
    assert!(speed.is_finite() && speed < 1e7, "{after}");
    let meta = rnad_run::checkpoint::CheckpointFile::read(
        &run.join("checkpoints/checkpoint-000000000100.safetensors"),
    )
    .unwrap()
    .meta;
    assert_eq!((meta.learning_rate_scale, meta.rollbacks), (0.5, 1));

    let again = finish(&config, &run, 300, &wild[1..]);
    let log = stderr(&again);
    assert_eq!(again.status.code(), Some(1), "{log}");
    assert!(!log.contains("rolled back to"), "{log}");
    assert!(log.contains("after 1 roll-back(s)"), "{log}");
}
