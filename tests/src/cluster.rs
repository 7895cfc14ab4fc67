//! A Kuhn-poker cluster of real processes for the cross-process tests:
//! `rnad-learner serve`, `rnad-actor`s and `rnad-evaluator watch` on
//! ephemeral 127.0.0.1 ports, each with its log in the test's directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rnad_testkit::{free_port, local, sample, scrape, wait_for, Launch, Process, TestConfig};

/// Bound of the waits for training progress.
pub const LONG: Duration = Duration::from_secs(120);
/// Bound of the waits for things that should happen at once.
pub const SHORT: Duration = Duration::from_secs(30);

/// Kuhn poker with asynchronous actors, checkpoints every 100 steps and a
/// `target_average` over 2,000 steps.
pub fn kuhn() -> TestConfig {
    TestConfig::file("kuhn")
        .checkpoint_every(100)
        .with(|c| c.evaluation.average_horizon_steps = 2000)
}

/// [`kuhn`], written to `dir/kuhn.toml`.
pub fn kuhn_config(dir: &Path) -> PathBuf {
    kuhn().write(&dir.join("kuhn.toml"))
}

/// A running `rnad-learner serve`.
pub struct Learner {
    /// The process.
    pub process: Process,
    /// Its RPC port.
    pub port: u16,
    /// Its metrics port.
    pub metrics: u16,
}

/// Starts `rnad-learner serve` on `dir/run` with [`kuhn_config`], logging
/// to `dir/log`; `extra` arguments and `launch` as given.
pub fn start_learner_with(
    dir: &Path,
    port: u16,
    metrics: u16,
    log: &str,
    extra: &[&str],
    launch: &Launch,
) -> Learner {
    let config = kuhn_config(dir);
    let run_dir = dir.join("run");
    let mut args = vec![
        "serve".to_string(),
        "--config".into(),
        config.to_str().unwrap().into(),
        "--listen".into(),
        local(port),
        "--metrics".into(),
        local(metrics),
        "--run-dir".into(),
        run_dir.to_str().unwrap().into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let process = Process::launch("rnad-learner", &args, &dir.join(log), launch);
    Learner {
        process,
        port,
        metrics,
    }
}

/// Starts `rnad-learner serve` with default limits.
pub fn start_learner(dir: &Path, port: u16, metrics: u16, log: &str) -> Learner {
    start_learner_with(dir, port, metrics, log, &[], &Launch::default())
}

/// Starts an actor of 32 games for the learner on `learner`, logging to
/// `dir/actor-NAME.log`; returns it with its metrics port. `extra`
/// arguments (a `--seed`, a `--token-file`) and `launch` as given.
pub fn start_actor_with(
    dir: &Path,
    learner: u16,
    name: &str,
    extra: &[&str],
    launch: &Launch,
) -> (Process, u16) {
    let metrics = free_port();
    let mut args = vec![
        "--learner".to_string(),
        local(learner),
        "--metrics".into(),
        local(metrics),
        "--games".into(),
        "32".into(),
        "--submit-every".into(),
        "32".into(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let log = dir.join(format!("actor-{name}.log"));
    (Process::launch("rnad-actor", &args, &log, launch), metrics)
}

/// Starts an actor with `--seed SEED`.
pub fn start_actor(dir: &Path, learner: u16, seed: u64) -> (Process, u16) {
    let seed = seed.to_string();
    start_actor_with(dir, learner, &seed, &["--seed", &seed], &Launch::default())
}

/// Starts `rnad-evaluator watch` looking every half second; returns it
/// with its metrics port and history file.
pub fn start_evaluator(dir: &Path, learner: u16) -> (Process, u16, PathBuf) {
    start_evaluator_with(dir, learner, "evaluator", &[])
}

/// Starts [`start_evaluator`]'s watcher again, on the same history, once
/// the one before has died: its log, which the new one would start
/// afresh, is kept as `dir/kept_log`.
pub fn restart_evaluator(dir: &Path, learner: u16, kept_log: &str) -> Process {
    std::fs::rename(dir.join("evaluator.log"), dir.join(kept_log)).unwrap();
    start_evaluator(dir, learner).0
}

/// Starts `rnad-evaluator watch` with more arguments, its history and log
/// named after `name`.
pub fn start_evaluator_with(
    dir: &Path,
    learner: u16,
    name: &str,
    extra: &[&str],
) -> (Process, u16, PathBuf) {
    let metrics = free_port();
    let history = dir.join(format!("{name}-history.jsonl"));
    let (learner, metrics_at) = (local(learner), local(metrics));
    let mut args = vec![
        "watch",
        "--learner",
        &learner,
        "--metrics",
        &metrics_at,
        "--interval",
        "0.5",
        "--history",
        history.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let process = Process::start("rnad-evaluator", &args, &dir.join(format!("{name}.log")));
    (process, metrics, history)
}

/// The step of the newest `checkpoint-STEP.safetensors` in `dir`.
pub fn newest_checkpoint(dir: &Path) -> Option<u64> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_prefix("checkpoint-")?
                .strip_suffix(".safetensors")?
                .parse::<u64>()
                .ok()
        })
        .max()
}

/// The learner's `rnad_learner_step`, once its endpoint answers.
pub fn learner_step(learner: &Learner) -> Option<f64> {
    scrape(learner.metrics).and_then(|t| sample(&t, "rnad_learner_step"))
}

/// Waits until the learner's step passes `beyond`.
pub fn wait_for_steps(learner: &Learner, beyond: f64, what: &str) -> f64 {
    wait_for(
        what,
        LONG,
        || learner_step(learner).filter(|s| *s > beyond),
        || learner.process.stderr(),
    )
}

/// Waits until the actor whose metrics are on `port` has had a batch
/// accepted by the learner.
pub fn wait_for_submits(port: u16, actor: &Process) {
    wait_for(
        "the actor's first accepted batch",
        LONG,
        || {
            scrape(port)
                .and_then(|t| sample(&t, "rnad_actor_submits_total"))
                .filter(|n| *n >= 1.0)
        },
        || actor.stderr(),
    );
}
