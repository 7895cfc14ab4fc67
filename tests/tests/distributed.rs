//! The distributed system as users run it: `rnad-learner serve`, several
//! `rnad-actor` processes and `rnad-evaluator watch`, talking tarpc over
//! real TCP on 127.0.0.1 with ephemeral ports, each exporting metrics.
//! Every wait is bounded in time.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rnad_testkit::{
    free_port, history, labelled, local, sample, sample_names, scrape, scratch, wait_for,
    workspace, Launch, Process,
};
use rnad_tests::cluster::{
    learner_step, newest_checkpoint, restart_evaluator, start_actor, start_actor_with,
    start_evaluator, start_evaluator_with, start_learner, start_learner_with, wait_for_steps,
    Learner, LONG, SHORT,
};
use rnad_tests::manifests::documents;
use rnad_tests::{dashboard_queries, promql_metric_names};

/// `promtool check metrics` on a scrape.
fn promtool_accepts(text: &str) {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        panic!("promtool not found: run docker/install-check-tools.sh (.ci/run does)");
    };
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let complaints = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && complaints.trim().is_empty(),
        "promtool: {complaints}\n{text}"
    );
}

#[test]
fn learner_actors_and_evaluator_train_kuhn_with_metrics() {
    let dir = scratch("distributed_train");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (_a, actor_metrics) = start_actor(&dir, learner.port, 1);
    let (_b, _) = start_actor(&dir, learner.port, 2);
    let (evaluator, evaluator_metrics, history_path) = start_evaluator(&dir, learner.port);
    let panel_policy = workspace().join("fixtures/openspiel/kuhn_poker_cfrplus100_policy.json");
    let (panel, panel_metrics, panel_history) = start_evaluator_with(
        &dir,
        learner.port,
        "panel",
        &[
            "--mode",
            "head_to_head",
            "--panel-policy",
            panel_policy.to_str().unwrap(),
        ],
    );

    let (br, br_metrics, _) = start_evaluator_with(
        &dir,
        learner.port,
        "best-response",
        &["--mode", "best_response"],
    );

    let best = wait_for(
        "the evaluator's history to show the target policy at NashConv <= 0.15",
        LONG,
        || {
            history(&history_path)
                .iter()
                .filter_map(|e| e["nash_conv"]["target"].as_f64())
                .find(|&v| v <= 0.15)
        },
        || format!("{}\n{}", learner.process.stderr(), evaluator.stderr()),
    );
    assert!(best <= 0.15);
    let entries = history(&history_path);
    assert!(entries[0]["nash_conv"]["target"].as_f64().unwrap() > best);

    let learner_text = scrape(learner.metrics).unwrap();
    for name in [
        "rnad_learner_step",
        "rnad_learner_updates_total",
        "rnad_learner_decisions_total",
        "rnad_learner_queue_depth",
        "rnad_learner_param_version",
        "rnad_learner_dropped_trajectories_total",
        "rnad_learner_policy_lag_count",
        "rnad_learner_update_seconds_count",
    ] {
        assert!(
            sample(&learner_text, name).is_some(),
            "{name} missing:\n{learner_text}"
        );
    }
    assert!(labelled(&learner_text, "rnad_learner_loss", "term=\"value\"").is_some());
    assert_eq!(
        labelled(
            &learner_text,
            "rnad_learner_rejected_batches_total",
            "reason=\"invalid\""
        ),
        Some(0.0)
    );
    let actor_text = scrape(actor_metrics).unwrap();
    for name in [
        "rnad_actor_games_total",
        "rnad_actor_decisions_total",
        "rnad_actor_param_fetches_total",
        "rnad_actor_reconnects_total",
    ] {
        assert!(
            sample(&actor_text, name).is_some_and(|v| v >= 0.0),
            "{name} missing:\n{actor_text}"
        );
    }
    assert!(sample(&actor_text, "rnad_actor_games_total").unwrap() > 0.0);
    let evaluator_text = scrape(evaluator_metrics).unwrap();
    assert!(labelled(
        &evaluator_text,
        "rnad_evaluator_nash_conv",
        "policy=\"target\""
    )
    .is_some());
    assert!(labelled(
        &evaluator_text,
        "rnad_evaluator_exploitability",
        "policy=\"reg\""
    )
    .is_some());
    assert!(labelled(
        &evaluator_text,
        "rnad_evaluator_best_response_value",
        "player=\"1\",policy=\"online\""
    )
    .is_some());
    assert!(sample(&evaluator_text, "rnad_evaluator_evaluated_step").unwrap() > 0.0);
    assert!(sample(&evaluator_text, "rnad_evaluator_eval_seconds_count").unwrap() > 0.0);
    let panel_text = panel_plays_every_opponent(&panel, panel_metrics, &panel_history);
    let br_text = wait_for(
        "the best-response service's first gain",
        LONG,
        || scrape(br_metrics).filter(|t| t.contains("rnad_evaluator_br_gain{")),
        || br.stderr(),
    );
    dashboard_and_alerts_read_only_exported_metrics(&[
        &learner_text,
        &actor_text,
        &evaluator_text,
        &panel_text,
        &br_text,
    ]);
    a_restarted_watcher_goes_on_averaging(&dir, learner.port, evaluator);
}

/// Kills the watcher and starts another on the same history: it goes on
/// from the average's sums the first left (the same first policy), not
/// afresh.
fn a_restarted_watcher_goes_on_averaging(dir: &Path, learner: u16, mut evaluator: Process) {
    evaluator.signal(libc::SIGKILL);
    evaluator.wait(SHORT);
    let before = average_sums(dir);
    let first_step = before["counters"]["first_step"].as_u64().unwrap();
    let last_step = before["counters"]["step"].as_u64().unwrap();
    let restarted = restart_evaluator(dir, learner, "evaluator-1.log");
    let after = wait_for(
        "the restarted watcher's sums",
        LONG,
        || {
            let after = average_sums(dir);
            (after["counters"]["step"].as_u64()? > last_step).then_some(after)
        },
        || restarted.stderr(),
    );
    assert_eq!(
        after["counters"]["first_step"].as_u64(),
        Some(first_step),
        "the average goes on from the same first policy"
    );
    let restored = format!(
        "target_average goes on from {}",
        dir.join("target_average.sums.json").display()
    );
    assert!(
        restarted.stderr().contains(&restored),
        "{}",
        restarted.stderr()
    );
}

/// A watcher in head-to-head mode plays uniform, rules, its policy file and
/// the version before on every evaluation after the first, writes them to
/// its history (without NashConv) and exports them; returns its page.
fn panel_plays_every_opponent(
    panel: &rnad_testkit::Process,
    metrics: u16,
    history_path: &std::path::Path,
) -> String {
    let entries = wait_for(
        "the panel watcher's second evaluation",
        LONG,
        || Some(history(history_path)).filter(|e| e.len() >= 2),
        || panel.stderr(),
    );
    let opponents = |entry: &serde_json::Value| -> Vec<String> {
        entry["head_to_head"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["opponent"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(opponents(&entries[0]), ["uniform", "rules", "policy"]);
    assert_eq!(
        opponents(&entries[1]),
        ["uniform", "rules", "policy", "previous"]
    );
    assert_eq!(
        entries[1]["head_to_head"][3]["opponent_step"],
        entries[0]["learner_step"]
    );
    for entry in &entries {
        assert!(entry.get("nash_conv").is_none(), "{entry}");
        for result in entry["head_to_head"].as_array().unwrap() {
            assert_eq!(result["deals"], 10_000, "the config's default");
            let half_width = result["ci95"].as_f64().unwrap();
            assert!(half_width > 0.0 && half_width < 0.1, "{result}");
        }
    }
    let text = wait_for(
        "the panel watcher's gauges",
        SHORT,
        || scrape(metrics).filter(|t| t.contains("opponent=\"previous\"")),
        || panel.stderr(),
    );
    for opponent in ["uniform", "rules", "policy", "previous"] {
        let label = format!("opponent=\"{opponent}\"");
        let mean = labelled(&text, "rnad_evaluator_head_to_head", &label);
        let half_width = labelled(&text, "rnad_evaluator_head_to_head_ci95", &label);
        assert!(mean.is_some_and(f64::is_finite), "{opponent}:\n{text}");
        assert!(half_width.is_some_and(|w| w > 0.0), "{opponent}:\n{text}");
    }
    assert!(labelled(&text, "rnad_evaluator_nash_conv", "policy=\"target\"").is_none());
    text
}

/// A served hold'em run with the best-response service beside it: the
/// watcher in mode best_response writes no history of its own, learns a
/// best response in both seats against a version the learner published,
/// writes it to `best_response.jsonl` beside its history, and its page
/// shows what the dashboard draws of it (gain and interval in mbb/hand,
/// the step it judged) with the values of that line.
#[test]
fn a_served_holdem_run_shows_its_learned_best_response_on_the_metrics_page() {
    let dir = scratch("distributed_best_response_holdem");
    let config = workspace().join("configs/holdem.toml");
    let run_dir = dir.join("run");
    let (port, metrics) = (free_port(), free_port());
    let learner = Learner {
        process: Process::start(
            "rnad-learner",
            &[
                "serve",
                "--config",
                config.to_str().unwrap(),
                "--set",
                "network.hidden=[32]",
                "--set",
                "rnad.batch_size=32",
                "--set",
                "evaluation.br_budget_steps=4",
                "--set",
                "evaluation.br_judge_episodes=400",
                "--listen",
                &local(port),
                "--metrics",
                &local(metrics),
                "--run-dir",
                run_dir.to_str().unwrap(),
            ],
            &dir.join("learner.log"),
        ),
        port,
        metrics,
    };
    let (_actor, _) = start_actor(&dir, learner.port, 1);
    let (watcher, watcher_metrics, watcher_history) = start_evaluator_with(
        &dir,
        learner.port,
        "best-response",
        &["--mode", "best_response"],
    );
    let text = wait_for(
        "the best-response service's gauges",
        LONG,
        || scrape(watcher_metrics).filter(|t| t.contains("rnad_evaluator_br_gain{")),
        || format!("{}\n{}", learner.process.stderr(), watcher.stderr()),
    );
    let lines = history(&dir.join("best_response.jsonl"));
    let line = lines.last().expect("the line of the gauges' best response");
    let report = &line["best_response"];
    assert_eq!(report["unit"], "mbb/hand", "{line}");
    assert_eq!(report["budget_steps"], 4, "{line}");
    assert_eq!(report["seats"].as_array().unwrap().len(), 2, "{line}");
    let all = "seat=\"all\",unit=\"mbb/hand\"";
    let gain = labelled(&text, "rnad_evaluator_br_gain", all).unwrap();
    let half_width = labelled(&text, "rnad_evaluator_br_ci95", all).unwrap();
    assert!(
        (gain - report["gain"].as_f64().unwrap()).abs() < 1e-6,
        "{gain} vs {line}"
    );
    assert!(half_width > 0.0 && half_width.is_finite(), "{text}");
    for seat in ["0", "1"] {
        let labels = format!("seat=\"{seat}\",unit=\"mbb/hand\"");
        assert!(labelled(&text, "rnad_evaluator_br_gain", &labels).is_some_and(f64::is_finite));
    }
    assert_eq!(
        sample(&text, "rnad_evaluator_br_step"),
        line["learner_step"].as_f64()
    );
    assert!(
        !watcher_history.exists(),
        "mode best_response writes no history"
    );
    let exported = sample_names(&text);
    for query in dashboard_queries()
        .iter()
        .filter(|q| q.contains("rnad_evaluator_br_"))
    {
        for name in promql_metric_names(query) {
            assert!(
                exported.contains(&name) || name == "rnad_learner_step",
                "the dashboard reads {name}, which the service does not export"
            );
        }
    }
}

/// Every live `/metrics` page passes `promtool check metrics` (names, types,
/// help texts). Set apart because a fresh machine has no promtool.
#[test]
#[ignore = "needs promtool: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn every_metrics_page_passes_promtool() {
    let dir = scratch("distributed_promtool");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (_actor, actor_metrics) = start_actor(&dir, learner.port, 1);
    let (evaluator, evaluator_metrics, _) = start_evaluator(&dir, learner.port);
    let (br, br_metrics, _) = start_evaluator_with(
        &dir,
        learner.port,
        "best-response",
        &["--mode", "best_response"],
    );
    let evaluator_text = wait_for(
        "the evaluator's first NashConv",
        LONG,
        || scrape(evaluator_metrics).filter(|t| t.contains("rnad_evaluator_nash_conv{")),
        || evaluator.stderr(),
    );
    let br_text = wait_for(
        "the best-response service's first gain",
        LONG,
        || scrape(br_metrics).filter(|t| t.contains("rnad_evaluator_br_gain{")),
        || br.stderr(),
    );
    wait_for_steps(&learner, 5.0, "the learner to step");
    let actor_text = wait_for(
        "the actor's page",
        SHORT,
        || scrape(actor_metrics),
        || learner.process.stderr(),
    );
    for text in [
        &scrape(learner.metrics).unwrap(),
        &actor_text,
        &evaluator_text,
        &br_text,
    ] {
        promtool_accepts(text);
    }
}

/// Every metric the Grafana dashboard queries and the alerts read (the
/// compose Prometheus's rules and the Kubernetes PrometheusRule, generated
/// from them) is on one of the live pages (or is `up`, which Prometheus
/// itself records per target).
fn dashboard_and_alerts_read_only_exported_metrics(pages: &[&str]) {
    let mut exported = std::collections::BTreeSet::from(["up".to_string()]);
    for page in pages {
        exported.extend(sample_names(page));
    }
    let alerts = std::fs::read_to_string(workspace().join("docker/prometheus/alerts.yml")).unwrap();
    let alerts: Vec<String> = documents(&alerts)[0]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .map(|r| r["expr"].as_str().unwrap().to_string())
        .collect();
    for (what, queries) in [("dashboard", dashboard_queries()), ("alerts", alerts)] {
        assert!(queries.len() >= 8, "{what}: {queries:?}");
        for query in &queries {
            let names = promql_metric_names(query);
            assert!(!names.is_empty(), "{query} reads no metric");
            for name in names {
                assert!(
                    exported.contains(&name),
                    "the {what} query {query:?} reads {name}, which no process exports"
                );
            }
        }
    }
}

/// One actor process plays on several threads, each its own games and
/// connection: as many as `--threads` says, or the run's `actors.threads`
/// (2 here) when it says nothing; the learner trains on them.
#[test]
fn an_actor_process_plays_on_every_thread() {
    let dir = scratch("distributed_actor_threads");
    let learner = start_learner_with(
        &dir,
        free_port(),
        free_port(),
        "learner.log",
        &["--set", "actors.threads=2"],
        &Launch::default(),
    );
    let launch = Launch::default();
    let (three, three_metrics) =
        start_actor_with(&dir, learner.port, "three", &["--threads", "3"], &launch);
    let (default, default_metrics) = start_actor(&dir, learner.port, 7);
    for (actor, metrics, threads) in [(&three, three_metrics, 3), (&default, default_metrics, 2)] {
        wait_for(
            "every thread to play and the actor to finish games",
            SHORT,
            || {
                let playing = actor.stderr().matches(" playing games=").count();
                let games = scrape(metrics).and_then(|t| sample(&t, "rnad_actor_games_total"));
                (playing == threads).then_some(games?).filter(|g| *g > 0.0)
            },
            || actor.stderr(),
        );
        assert!(
            actor.stderr().contains(&format!("threads={threads}")),
            "{}",
            actor.stderr()
        );
    }
    wait_for_steps(&learner, 20.0, "the learner to take 20 steps");
}

#[test]
fn a_killed_actor_is_survived_and_a_new_one_is_used() {
    let dir = scratch("distributed_actor_kill");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (first, _) = start_actor(&dir, learner.port, 1);
    let (mut second, _) = start_actor(&dir, learner.port, 2);
    let before = wait_for_steps(&learner, 20.0, "the learner to take 20 steps");

    first.signal(libc::SIGKILL);
    drop(first);
    let after_kill = wait_for_steps(&learner, before + 20.0, "steps after an actor was killed");

    let (_third, third_metrics) = start_actor(&dir, learner.port, 3);
    wait_for(
        "the new actor to finish games",
        SHORT,
        || {
            scrape(third_metrics)
                .and_then(|t| sample(&t, "rnad_actor_games_total"))
                .filter(|g| *g > 0.0)
        },
        || learner.process.stderr(),
    );
    // With the second original actor gone too, only the new one feeds the learner.
    second.signal(libc::SIGKILL);
    assert!(!second.running() || second.wait(SHORT).code().is_none());
    let only_new = learner_step(&learner).unwrap();
    wait_for_steps(
        &learner,
        only_new.max(after_kill) + 20.0,
        "steps fed by the new actor alone",
    );
}

#[test]
fn a_killed_learner_resumes_and_everyone_reconnects() {
    let dir = scratch("distributed_learner_kill");
    let (port, metrics) = (free_port(), free_port());
    let learner = start_learner(&dir, port, metrics, "learner-1.log");
    let (actor, actor_metrics) = start_actor(&dir, port, 1);
    let (watcher, _, history_path) = start_evaluator(&dir, port);
    let checkpoints = dir.join("run/checkpoints");
    wait_for(
        "a checkpoint at step 200 or later",
        LONG,
        || newest_checkpoint(&checkpoints).filter(|s| *s >= 200),
        || learner.process.stderr(),
    );
    let averaged_from = wait_for(
        "the watcher's first sums",
        LONG,
        || {
            let sums = dir.join("target_average.sums.json");
            sums.exists()
                .then(|| average_sums(&dir)["counters"]["first_step"].as_u64())
        },
        || watcher.stderr(),
    );
    let crash = Crash {
        dir: &dir,
        port,
        metrics,
        actor: &actor,
        history: &history_path,
        averaged_from,
    };
    // The learner crashes: the watcher, still running, finds the average
    // as it stood at the learner's checkpoint in memory.
    let (learner, watcher, resumed_at) =
        crash.off_a_checkpoint(learner, watcher, "learner-2.log", false);
    wait_for_steps(
        &learner,
        resumed_at + 50.0,
        "training to go on after the restart",
    );
    // A host reboot: learner and watcher die together, and the watcher
    // finds it in the sums it saved.
    let (learner, _watcher, resumed_at) =
        crash.off_a_checkpoint(learner, watcher, "learner-3.log", true);
    wait_for_steps(
        &learner,
        resumed_at + 50.0,
        "training to go on after the reboot",
    );
    let reconnects = scrape(actor_metrics)
        .and_then(|t| sample(&t, "rnad_actor_reconnects_total"))
        .unwrap();
    assert!(reconnects >= 2.0, "the actor reconnected by itself, twice");
}

/// A Kuhn cluster of one learner, one actor and one watcher, whose
/// learner is made to crash off a checkpoint step.
struct Crash<'a> {
    dir: &'a Path,
    port: u16,
    metrics: u16,
    actor: &'a Process,
    history: &'a Path,
    /// The first step of the watcher's average, which no crash changes.
    averaged_from: Option<u64>,
}

impl Crash<'_> {
    /// Holds the actor until the learner stands still off a checkpoint
    /// step and the watcher has saved its average there, SIGKILLs the
    /// learner and starts it again, logging to `log`: back at its
    /// checkpoint, behind the watcher's last evaluation, the learner's
    /// target average goes on from its sums at or before that step, from
    /// the same first policy, not afresh. The watcher evaluates the
    /// restarted learner at its checkpoint step; with `reboot` the watcher
    /// dies with the learner and is started again only once the learner
    /// has trained past the average's newest policy, so only the learner's
    /// new incarnation tells it the learner went back. Returns the new
    /// learner, the watcher and the step the learner resumed at.
    fn off_a_checkpoint(
        &self,
        mut learner: Learner,
        mut watcher: Process,
        log: &str,
        reboot: bool,
    ) -> (Learner, Process, f64) {
        let checkpoints = self.dir.join("run/checkpoints");
        let stopped_at = hold_off_a_checkpoint(&learner, self.actor, &checkpoints);
        wait_for(
            "the watcher to save its average of the held learner",
            LONG,
            || {
                let step = average_sums(self.dir)["counters"]["step"].as_u64();
                (step == Some(stopped_at)).then_some(())
            },
            || watcher.stderr(),
        );
        learner.process.signal(libc::SIGKILL);
        learner.process.wait(SHORT);
        if reboot {
            watcher.signal(libc::SIGKILL);
            watcher.wait(SHORT);
        }
        let saved = newest_checkpoint(&checkpoints).unwrap();
        assert!(
            saved < stopped_at,
            "checkpoint {saved}, held at {stopped_at}"
        );
        let evaluated_before = history(self.history).len();

        let restarted = start_learner(self.dir, self.port, self.metrics, log);
        let resumed_at = wait_for(
            "the restarted learner's step",
            LONG,
            || learner_step(&restarted),
            || restarted.process.stderr(),
        );
        assert_eq!(resumed_at, saved as f64, "the actor is held");
        assert!(
            restarted
                .process
                .stderr()
                .contains(&format!("(step {saved})")),
            "{}",
            restarted.process.stderr()
        );
        if reboot {
            self.actor.signal(libc::SIGCONT);
            wait_for_steps(
                &restarted,
                stopped_at as f64,
                "the restarted learner to pass the average's newest policy",
            );
            watcher = restart_evaluator(self.dir, self.port, &format!("evaluator-before-{log}"));
        }
        let evaluated_at = wait_for(
            "the watcher to evaluate the restarted learner",
            LONG,
            || history(self.history).get(evaluated_before)?["learner_step"].as_u64(),
            || watcher.stderr(),
        );
        if reboot {
            assert!(evaluated_at > stopped_at, "evaluated at {evaluated_at}");
            let kept = "sums kept for a learner that goes back: steps [";
            assert!(watcher.stderr().contains(kept), "{}", watcher.stderr());
        } else {
            assert_eq!(evaluated_at, saved, "the actor is held");
        }
        let went_back = format!(
            "the learner went back from step {stopped_at} to {saved}: target_average goes on from its sums at step"
        );
        assert!(
            watcher.stderr().contains(&went_back),
            "{}",
            watcher.stderr()
        );
        let sums = wait_for(
            "the watcher's sums of the restarted learner",
            SHORT,
            || {
                let sums = average_sums(self.dir);
                (sums["counters"]["step"].as_u64()? >= evaluated_at).then_some(sums)
            },
            || watcher.stderr(),
        );
        assert_eq!(sums["counters"]["first_step"].as_u64(), self.averaged_from);
        self.actor.signal(libc::SIGCONT);
        (restarted, watcher, resumed_at)
    }
}

/// Stops `actor` (SIGSTOP) until the learner stands still at a step with
/// no checkpoint of its own (a few tries; between them the actor runs on
/// briefly); returns that step.
fn hold_off_a_checkpoint(learner: &Learner, actor: &Process, checkpoints: &Path) -> u64 {
    for _ in 0..5 {
        actor.signal(libc::SIGSTOP);
        let step = wait_for(
            "the learner to stand still",
            SHORT,
            || {
                let before = learner_step(learner)?;
                std::thread::sleep(Duration::from_secs(1));
                (learner_step(learner)? == before).then_some(before as u64)
            },
            || learner.process.stderr(),
        );
        if newest_checkpoint(checkpoints) != Some(step) {
            return step;
        }
        actor.signal(libc::SIGCONT);
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!("the learner stopped on a checkpoint step five times");
}

/// The target's average's sums as the watcher of `dir` saved them.
fn average_sums(dir: &Path) -> serde_json::Value {
    let path = dir.join("target_average.sums.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn bad_batches_and_mismatched_clients_are_refused_while_serving_goes_on() {
    use rnad_run::config::Config;
    use rnad_wire::trajectory::{Decision, Trajectory};
    use rnad_wire::{config_hash, Hello, ProtoError, Submission, PROTOCOL_VERSION};

    let dir = scratch("distributed_bad_batch");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (_actor, _) = start_actor(&dir, learner.port, 1);
    let before = wait_for_steps(&learner, 5.0, "the learner to step");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = rnad_wire::connect(&local(learner.port), None).await.unwrap();
        let info = client.info(rnad_wire::context(), PROTOCOL_VERSION).await.unwrap().unwrap();
        let config = Config::from_toml(&info.config_toml, "learner").unwrap();
        assert_eq!(info.config_hash, config_hash(&config));
        let hello = Hello { protocol: PROTOCOL_VERSION, config_hash: info.config_hash, learner: info.learner.id };
        let decision_over = |legal: &[u16], behaviour: &[f32]| {
            let mut game = Trajectory::new(info.version);
            game.push(Decision {
                obs: &[0.0; 11],
                legal,
                player: 0,
                action: 1,
                behaviour,
                rewards: &[1.0, -1.0],
            });
            game
        };
        let one_decision = |behaviour: &[f32]| decision_over(&[0, 1], behaviour);
        // Malformed sparse decisions, each behind a good game: probabilities
        // that do not sum to one, an id past Kuhn's two actions, an id twice.
        for (bad, said) in [
            (one_decision(&[0.9, 0.9]), "does not sum to 1"),
            (decision_over(&[1, 5], &[0.5, 0.5]), "legal action 5 out of range (the game has 2 actions)"),
            (decision_over(&[1, 1], &[0.5, 0.5]), "are not strictly increasing (one given twice?)"),
        ] {
            let batch = vec![one_decision(&[0.5, 0.5]), bad];
            let err = client.submit(rnad_wire::context(), hello.clone(), Submission(batch)).await.unwrap().unwrap_err();
            assert!(matches!(&err, ProtoError::BadBatch(m) if m.contains("trajectory 1: step 0") && m.contains(said)), "{err}");
        }
        let mut short = one_decision(&[0.5, 0.5]);
        short.obs.pop();
        let err = client.submit(rnad_wire::context(), hello.clone(), Submission(vec![short])).await.unwrap().unwrap_err();
        assert!(matches!(&err, ProtoError::BadBatch(m) if m.contains("trajectory 0: obs has 10 entries, expected 11")), "{err}");

        let wrong = Hello { config_hash: info.config_hash ^ 1, ..hello };
        let err = client.submit(rnad_wire::context(), wrong, Submission::default()).await.unwrap().unwrap_err();
        assert!(err.to_string().contains("kuhn_poker with torso mlp of widths [64, 64]"), "{err}");
        let old = Hello { protocol: PROTOCOL_VERSION + 1, ..hello };
        let gone = Hello { learner: info.learner.id ^ 1, ..hello };
        let err = client.fetch_params(rnad_wire::context(), gone, None, vec![]).await.unwrap().unwrap_err();
        assert!(matches!(err, ProtoError::WentBack { .. }), "{err}");
        let err = client.fetch_params(rnad_wire::context(), old, None, vec![]).await.unwrap().unwrap_err();
        assert!(matches!(err, ProtoError::Protocol { .. }), "{err}");

        let unchanged = client.fetch_params(rnad_wire::context(), hello.clone(), None, vec![]).await.unwrap().unwrap().unwrap();
        let again = client
            .fetch_params(rnad_wire::context(), hello, Some(unchanged.version), vec![])
            .await
            .unwrap()
            .unwrap();
        assert!(again.is_none() || again.unwrap().version > unchanged.version, "an unchanged version is not resent");
    });

    let text = scrape(learner.metrics).unwrap();
    assert_eq!(
        labelled(
            &text,
            "rnad_learner_rejected_batches_total",
            "reason=\"invalid\""
        ),
        // Three malformed decisions and one short column.
        Some(4.0)
    );
    assert_eq!(
        labelled(
            &text,
            "rnad_learner_rejected_batches_total",
            "reason=\"config\""
        ),
        Some(1.0)
    );
    wait_for_steps(
        &learner,
        before + 20.0,
        "the learner to keep stepping after refusing bad input",
    );
}
