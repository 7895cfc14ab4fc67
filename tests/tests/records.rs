//! What a researcher takes out of a run, through the binaries: the
//! training log with every column, cut back on resume and drawn by `plot
//! --metric`; a trained checkpoint evaluated by `rnad-evaluator eval
//! --checkpoint` agrees with the learner's own evaluation at that step, and
//! every policy kind exported to OpenSpiel's tabular format evaluates back
//! to the same NashConv.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rnad_testkit::{run_binary, scratch, workspace, Finished};
use serde_json::Value;

const KINDS: [&str; 4] = ["online", "target", "target_postprocessed", "reg"];
const LIMIT: Duration = Duration::from_secs(120);

fn succeeded(finished: &Finished) {
    assert!(
        finished.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        finished.status,
        finished.stdout,
        finished.stderr
    );
}

/// The command failed, saying `expected` on stderr.
fn refused(finished: &Finished, expected: &str, context: &str) {
    assert!(!finished.status.success(), "{context}: {finished:?}");
    assert!(
        finished.stderr.contains(expected),
        "{context}: {}",
        finished.stderr
    );
}

fn json(finished: &Finished) -> Value {
    succeeded(finished);
    serde_json::from_str(finished.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {}", finished.stdout))
}

/// Trains Kuhn with asynchronous actors for `max_steps` (counted across
/// restarts), evaluated every 100 steps, a training-log line every 50 and
/// checkpointed at the end; the run directory.
fn kuhn_run(dir: &Path, max_steps: u64) -> PathBuf {
    let text = std::fs::read_to_string(workspace().join("configs/kuhn.toml"))
        .unwrap()
        .replace("interval_seconds = 5.0", "interval_seconds = 0.0")
        .replace("interval_steps = 0", "interval_steps = 100")
        + "\n[training_log]\ninterval_steps = 50\n";
    let config = dir.join("kuhn.toml");
    std::fs::write(&config, text).unwrap();
    let run = dir.join("run");
    let finished = run_binary(
        "rnad-learner",
        &[
            "local",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--max-steps",
            &max_steps.to_string(),
        ],
        dir,
        "learner",
        LIMIT,
    );
    succeeded(&finished);
    run
}

#[test]
fn checkpoints_evaluate_and_export_to_the_learners_own_nash_conv() {
    let dir = scratch("records_export");
    let run = kuhn_run(&dir, 300);
    let checkpoint = run.join("checkpoints/checkpoint-000000000300.safetensors");
    let history = std::fs::read_to_string(run.join("history.jsonl")).unwrap();
    let last: Value = serde_json::from_str(history.lines().last().unwrap()).unwrap();
    assert_eq!(last["learner_step"], 300, "{history}");

    let report = json(&run_binary(
        "rnad-evaluator",
        &[
            "eval",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--json",
        ],
        &dir,
        "eval-checkpoint",
        LIMIT,
    ));
    assert_eq!(report["game"], "kuhn_poker");
    assert_eq!(report["step"], 300);
    for kind in KINDS {
        let ours = report["kinds"][kind]["nash_conv"].as_f64().unwrap();
        let learners = last["nash_conv"][kind].as_f64().unwrap();
        assert!(
            (ours - learners).abs() < 1e-12,
            "{kind}: eval --checkpoint {ours}, the learner's evaluation {learners}"
        );
        let exploitability = report["kinds"][kind]["exploitability"].as_f64().unwrap();
        assert!((exploitability - ours / 2.0).abs() < 1e-15);

        let exported = dir.join(format!("{kind}.json"));
        let finished = run_binary(
            "rnad-evaluator",
            &[
                "export",
                "--checkpoint",
                checkpoint.to_str().unwrap(),
                "--kind",
                kind,
                "--out",
                exported.to_str().unwrap(),
            ],
            &dir,
            &format!("export-{kind}"),
            LIMIT,
        );
        succeeded(&finished);
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(&exported).unwrap()).unwrap();
        assert_eq!(file["game"], "kuhn_poker");
        assert_eq!(file["kind"], kind);
        assert_eq!(file["step"], 300);
        assert_eq!(
            file["policy"].as_object().unwrap().len(),
            12,
            "every information state"
        );
        assert!((file["nash_conv"].as_f64().unwrap() - ours).abs() < 1e-12);

        let back = json(&run_binary(
            "rnad-evaluator",
            &[
                "eval",
                "--game",
                "kuhn_poker",
                "--policy",
                exported.to_str().unwrap(),
                "--json",
            ],
            &dir,
            &format!("eval-{kind}"),
            LIMIT,
        ));
        let round_trip = back["nash_conv"].as_f64().unwrap();
        assert!(
            (round_trip - ours).abs() < 1e-9,
            "{kind}: exported {round_trip}, checkpoint {ours}"
        );
    }
    // The post-processed policy is the target's, thresholded and rounded to
    // 32nds: every exported probability is a multiple of 1/32.
    let processed: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("target_postprocessed.json")).unwrap(),
    )
    .unwrap();
    for pairs in processed["policy"].as_object().unwrap().values() {
        for pair in pairs.as_array().unwrap() {
            let units = pair[1].as_f64().unwrap() * 32.0;
            assert_eq!(units, units.round(), "{pairs}");
        }
    }
}

#[test]
fn eval_and_export_refuse_another_game_a_missing_source_and_the_average() {
    let dir = scratch("records_refusals");
    let run = kuhn_run(&dir, 100);
    let checkpoint = run.join("checkpoints/checkpoint-000000000100.safetensors");
    let finished = run_binary(
        "rnad-evaluator",
        &[
            "eval",
            "--game",
            "leduc_poker",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
        ],
        &dir,
        "wrong-game",
        LIMIT,
    );
    refused(&finished, "is a checkpoint of kuhn_poker", "wrong game");
    let finished = run_binary(
        "rnad-evaluator",
        &["eval", "--game", "kuhn_poker"],
        &dir,
        "no-source",
        LIMIT,
    );
    refused(&finished, "--policy", "no source");
    // Export refuses a file that is no checkpoint, and the moving average
    // of the target policy from the checkpoint of a run that keeps none.
    // Neither leaves a file behind.
    let not_a_checkpoint = dir.join("kuhn.toml");
    let out = dir.join("x.json");
    for (source, kind, expected, context) in [
        (&not_a_checkpoint, "target", "kuhn.toml", "not-a-checkpoint"),
        (
            &checkpoint,
            "target_average",
            "the checkpoint holds no target_average",
            "average-from-checkpoint",
        ),
    ] {
        let finished = run_binary(
            "rnad-evaluator",
            &[
                "export",
                "--checkpoint",
                source.to_str().unwrap(),
                "--kind",
                kind,
                "--out",
                out.to_str().unwrap(),
            ],
            &dir,
            context,
            LIMIT,
        );
        refused(&finished, expected, context);
        assert!(!out.exists(), "{context}");
    }
}

fn training_log(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("training.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn the_training_log_has_every_column_and_is_cut_back_on_resume() {
    let dir = scratch("records_training_log");
    let run = kuhn_run(&dir, 200);
    let lines = training_log(&run);
    let steps: Vec<u64> = lines
        .iter()
        .map(|l| l["learner_step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [50, 100, 150, 200]);
    for line in &lines {
        for column in [
            "wall_seconds",
            "decisions",
            "steps",
            "loss_value",
            "loss_neurd",
            "pinned_logits",
            "importance_weight_max",
            "importance_weight_mean_abs_log",
            "alpha",
            "learning_rate",
            "steps_per_second",
            "decisions_per_second",
            "queue_depth",
            "policy_lag_median",
            "policy_lag_p99",
            "dropped_trajectories",
            "rejected_batches",
        ] {
            assert!(line[column].is_number(), "{column} in {line}");
        }
        assert_eq!(line["steps"], 50);
        assert_eq!(line["learning_rate"], 3e-4);
        assert!(line["loss_value"].as_f64().unwrap().is_finite());
        assert!((0.0..=1.0).contains(&line["pinned_logits"].as_f64().unwrap()));
        assert!(line["steps_per_second"].as_f64().unwrap() > 0.0);
        // Actors play θ of at most a few steps ago: weights near 1.
        let rho_max = line["importance_weight_max"].as_f64().unwrap();
        assert!((0.5..100.0).contains(&rho_max), "{line}");
        let log_spread = line["importance_weight_mean_abs_log"].as_f64().unwrap();
        assert!((0.0..1.0).contains(&log_spread), "{line}");
        assert!(line["policy_lag_p99"].as_f64() >= line["policy_lag_median"].as_f64());
    }

    // A crash after the checkpoint at 200 left a line past it and a torn
    // one: resuming drops both, and the log goes on from 200.
    let path = run.join("training.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        &lines[3]
            .to_string()
            .replace("\"learner_step\":200", "\"learner_step\":250"),
    );
    text.push_str("\n{\"learner_step\":3");
    std::fs::write(&path, text).unwrap();
    kuhn_run(&dir, 300);
    let steps: Vec<u64> = training_log(&run)
        .iter()
        .map(|l| l["learner_step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [50, 100, 150, 200, 250, 300]);

    // plot --metric draws a column of it.
    let figure = dir.join("loss.svg");
    let finished = run_binary(
        "rnad-evaluator",
        &[
            "plot",
            "--runs",
            run.to_str().unwrap(),
            "--metric",
            "loss_neurd",
            "--out",
            figure.to_str().unwrap(),
        ],
        &dir,
        "plot",
        LIMIT,
    );
    succeeded(&finished);
    let svg = std::fs::read_to_string(&figure).unwrap();
    assert!(svg.contains("loss_neurd"), "the axis names the column");
    let finished = run_binary(
        "rnad-evaluator",
        &[
            "plot",
            "--runs",
            run.to_str().unwrap(),
            "--metric",
            "no_such_column",
            "--out",
            figure.to_str().unwrap(),
        ],
        &dir,
        "plot-unknown",
        LIMIT,
    );
    refused(&finished, "no_such_column", "unknown column");
}

#[test]
fn config_prints_every_key_with_its_meaning_and_set_is_checked_like_the_file() {
    use rnad_run::config::Config;

    let dir = scratch("records_config");
    let finished = run_binary(
        "rnad-learner",
        &[
            "config",
            "--set",
            "rnad.eta=0.05",
            "--set",
            "network.hidden=[64, 32]",
        ],
        &dir,
        "config",
        LIMIT,
    );
    succeeded(&finished);
    let printed = Config::from_toml(&finished.stdout, "rnad-learner config").unwrap();
    let default = Config::from_toml(
        &std::fs::read_to_string(workspace().join("configs/leduc.toml")).unwrap(),
        "leduc.toml",
    )
    .unwrap();
    assert_eq!(printed.rnad.eta, 0.05);
    assert_eq!(printed.network.hidden, [64, 32]);
    assert_eq!(printed.rnad.learning_rate, default.rnad.learning_rate);
    for doc in rnad_run::config::keys() {
        let (section, name) = doc.key.rsplit_once('.').unwrap_or(("", &doc.key));
        let from = match section {
            "" => 0,
            _ => finished
                .stdout
                .find(&format!("\n[{section}]\n"))
                .unwrap_or_else(|| panic!("[{section}] printed")),
        };
        let at = from
            + finished.stdout[from..]
                .find(&format!("\n{name} = "))
                .unwrap_or_else(|| panic!("{} printed", doc.key));
        // The line just above the value gives the range.
        let comment = finished.stdout[..at].rsplit('\n').next().unwrap();
        assert!(
            comment.starts_with(&format!("# Values: {};", doc.values)),
            "{}: {comment}",
            doc.key
        );
    }

    // Every command that takes --set refuses a bad one naming the key, and
    // starts nothing.
    for (command, extra) in [
        ("config", vec![]),
        ("local", vec!["--max-steps", "1"]),
        ("serve", vec!["--listen", "127.0.0.1:0"]),
        ("bench", vec!["--seconds", "0.1"]),
    ] {
        let mut args = vec![command, "--set", "rnad.etta=0.1"];
        args.extend(extra);
        let finished = run_binary(
            "rnad-learner",
            &args,
            &dir,
            &format!("bad-{command}"),
            LIMIT,
        );
        refused(
            &finished,
            "`rnad.etta`: no such key; the keys of [rnad] are",
            command,
        );
    }
    for (given, expected) in [
        (
            "rnad.batch_size=many",
            "`rnad.batch_size`: takes an integer, got a string",
        ),
        (
            "rnad.learning_rate=0",
            "`rnad.learning_rate`: must be positive, got 0",
        ),
    ] {
        let finished = run_binary(
            "rnad-learner",
            &["config", "--set", given],
            &dir,
            "bad-value",
            LIMIT,
        );
        refused(&finished, expected, given);
    }
}

#[test]
fn local_runs_with_overrides_and_records_them() {
    let dir = scratch("records_set_local");
    let config = dir.join("kuhn.toml");
    std::fs::copy(workspace().join("configs/kuhn.toml"), &config).unwrap();
    let run = dir.join("run");
    let finished = run_binary(
        "rnad-learner",
        &[
            "local",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--max-steps",
            "80",
            "--set",
            "training_log.interval_steps=20",
            "--set",
            "rnad.learning_rate=1e-3",
            "--set",
            "rnad.learning_rate_decay_start_step=20",
            "--set",
            "rnad.learning_rate_decay_steps=40",
            "--set",
            "rnad.learning_rate_final_fraction=0.01",
        ],
        &dir,
        "local",
        LIMIT,
    );
    succeeded(&finished);
    let recorded = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(recorded.contains("learning_rate = 0.001"), "{recorded}");
    assert!(
        recorded.contains("learning_rate_decay_steps = 40")
            && recorded.contains("learning_rate_decay_start_step = 20"),
        "{recorded}"
    );
    let lines = training_log(&run);
    let steps: Vec<u64> = lines
        .iter()
        .map(|l| l["learner_step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [20, 40, 60, 80]);
    // 1e-3 until step 20, then 1e-3 · 0.01^((step − 20) / 40): a tenth
    // half-way, then a hundredth, held.
    let rates: Vec<f64> = lines
        .iter()
        .map(|l| l["learning_rate"].as_f64().unwrap())
        .collect();
    assert_eq!(rates.len(), 4, "{rates:?}");
    for (rate, expected) in rates.iter().zip([1e-3, 1e-4, 1e-5, 1e-5]) {
        assert!((rate - expected).abs() < 1e-12, "{rates:?}");
    }
}

#[test]
fn a_local_run_serves_learner_actor_and_evaluation_metrics_on_one_endpoint() {
    use rnad_testkit::{free_port, labelled, sample, scrape, wait_for, Process};

    let dir = scratch("records_local_metrics");
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let run = dir.join("run");
    let mut learner = Process::start(
        "rnad-learner",
        &[
            "local",
            "--config",
            workspace().join("configs/kuhn.toml").to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--metrics",
            &address,
        ],
        &dir.join("learner.log"),
    );
    let page = wait_for(
        "a page with the learner's steps, the actors' decisions and an evaluation",
        LIMIT,
        || {
            scrape(port).filter(|page| {
                sample(page, "rnad_learner_step").is_some_and(|s| s > 0.0)
                    && sample(page, "rnad_actor_decisions_total").is_some_and(|d| d > 0.0)
                    && page.contains("rnad_evaluator_nash_conv{")
            })
        },
        || learner.stderr(),
    );
    let hash = format!(
        "{:016x}",
        rnad_wire::config_hash(&rnad_run::config::Config::load(&run.join("config.toml")).unwrap())
    );
    assert_eq!(
        labelled(
            &page,
            "rnad_learner_run_info",
            &format!("averaging=\"ema\",config_hash=\"{hash}\",game=\"kuhn_poker\"")
        ),
        Some(1.0),
        "{page}"
    );
    let evaluated_at = sample(&page, "rnad_evaluator_last_evaluation_timestamp_seconds").unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        (now - 120.0..=now + 1.0).contains(&evaluated_at),
        "{evaluated_at} vs {now}"
    );
    for name in [
        "rnad_learner_updates_total",
        "rnad_learner_decisions_total",
        "rnad_learner_update_seconds_count",
        "rnad_actor_games_total",
        "rnad_evaluator_eval_seconds_count",
        "rnad_evaluator_evaluated_step",
    ] {
        assert!(sample(&page, name).is_some(), "{name} missing:\n{page}");
    }
    learner.signal(libc::SIGINT);
    assert!(learner.wait(LIMIT).success(), "{}", learner.stderr());
}

#[test]
fn the_learner_benchmark_writes_its_figures_with_overrides_applied() {
    let dir = scratch("records_learner_bench");
    let out = dir.join("bench.json");
    let finished = run_binary(
        "rnad-learner",
        &[
            "bench",
            "--config",
            workspace().join("configs/kuhn.toml").to_str().unwrap(),
            "--seconds",
            "0.3",
            "--set",
            "rnad.batch_size=32",
            "--out",
            out.to_str().unwrap(),
        ],
        &dir,
        "bench",
        LIMIT,
    );
    succeeded(&finished);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(report["game"], "kuhn_poker");
    assert_eq!(report["batch_size"], 32);
    for figure in [
        "learner_steps_per_second",
        "actor_decisions_per_second",
        "end_to_end_decisions_per_second",
        "neural_nash_conv_seconds",
    ] {
        assert!(report[figure].as_f64().unwrap() > 0.0, "{figure}: {report}");
    }
    let inference = report["actor_inference_fraction"].as_f64().unwrap();
    assert!(inference > 0.0 && inference < 1.0, "{report}");
    let fraction = report["end_to_end_fraction_of_learner"].as_f64().unwrap();
    let expected = report["end_to_end_steps_per_second"].as_f64().unwrap()
        / report["learner_steps_per_second"].as_f64().unwrap();
    assert!((fraction - expected).abs() < 1e-12, "{report}");
    assert_eq!(
        report["threads_per_product"], 1,
        "one thread unless RAYON_NUM_THREADS is set"
    );
}

#[test]
fn a_runs_history_tables_and_its_average_replayed_from_its_checkpoints() {
    let dir = scratch("records_history_replay");
    let run = kuhn_run(&dir, 300);
    let tables = run_binary(
        "rnad-evaluator",
        &[
            "history",
            run.to_str().unwrap(),
            "--kind",
            "target",
            "--threshold",
            "10",
        ],
        &dir,
        "history",
        LIMIT,
    );
    succeeded(&tables);
    let lines: Vec<&str> = tables.stdout.lines().collect();
    assert!(
        lines[0].starts_with("target first ≤ 10 at ") && lines[0].contains("(step 0)"),
        "{}",
        tables.stdout
    );
    assert!(tables
        .stdout
        .contains("| minutes | step at the end | target: min / mean / max |"));
    // Kuhn's schedule rolls every 200 steps: a period 0–200 and the last,
    // cut short by the run's end at 300.
    assert!(
        tables.stdout.contains("| 0–200 |") && tables.stdout.contains("| 200–300 |"),
        "{}",
        tables.stdout
    );

    let checkpoints = run.join("checkpoints");
    let replay = run_binary(
        "rnad-evaluator",
        &[
            "replay-average",
            "--checkpoints",
            checkpoints.to_str().unwrap(),
            "--every",
            "100",
            "300",
            "half",
        ],
        &dir,
        "replay-average",
        LIMIT,
    );
    succeeded(&replay);
    let mut rows = replay.stdout.lines();
    assert_eq!(rows.next(), Some("step,h=300,h=half"));
    let rows: Vec<Vec<f64>> = rows
        .map(|row| row.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(!rows.is_empty(), "{}", replay.stdout);
    for row in &rows {
        assert_eq!(row.len(), 3);
        assert_eq!(row[0] as u64 % 100, 0);
        assert!(
            row[1..].iter().all(|v| v.is_finite() && *v >= 0.0),
            "{row:?}"
        );
    }
    let bad = run_binary(
        "rnad-evaluator",
        &[
            "replay-average",
            "--checkpoints",
            checkpoints.to_str().unwrap(),
            "--every",
            "100",
            "soon",
        ],
        &dir,
        "replay-average-bad-rule",
        LIMIT,
    );
    refused(&bad, "horizon rule \"soon\"", "a rule that is no rule");
}
