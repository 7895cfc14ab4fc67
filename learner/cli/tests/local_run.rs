//! The learner end to end, in-process: training on Kuhn (with the MLP and
//! the residual torso) reaches a NashConv
//! bound, a stopped and resumed run is bit-identical to a straight one (its
//! average of the target policy included),
//! checkpoints of another experiment or none readable are refused and left
//! in place.

use std::path::Path;
use std::time::Duration;

use rnad_evaluator::checkpoint_policy::CheckpointPolicies;
use rnad_evaluator::neural::NetworkInputs;
use rnad_games::exploitability::nash_conv;
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_learner::checkpoint::{self, Checkpoint};
use rnad_learner::resume::OpenOptions;
use rnad_learner::training::RunSummary;
use rnad_learner_cli::local::{run_local, LocalOptions};
use rnad_net::TorsoKind;
use rnad_process::shutdown::Shutdown;
use rnad_run::config::Config;
use rnad_run::history::{HistoryEntry, PolicyKind};
use rnad_run::run_dir::RunDir;
use rnad_run::ResolvedRun;
use rnad_testkit::{scratch, TestConfig};
use rnad_wire::frames::{FrameLimits, MAX_SUBMIT_TRAJECTORIES};

/// Kuhn in lockstep, evaluated every 100 steps, in `run_dir`.
fn kuhn_config(run_dir: &Path) -> Config {
    TestConfig::kuhn_lockstep(100).in_run_dir(run_dir)
}

fn run(config: &Config, max_steps: u64) -> Result<RunSummary, rnad_learner_cli::error::CliError> {
    let options = LocalOptions {
        max_steps: Some(max_steps),
        progress: false,
        metrics: None,
        ..LocalOptions::default()
    };
    run_local(
        ResolvedRun::new(config.clone()).unwrap(),
        options,
        &Shutdown::new(),
    )
}

fn history(dir: &Path) -> Vec<HistoryEntry> {
    std::fs::read_to_string(dir.join("history.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn training_on_kuhn_drives_the_target_and_its_average_below_a_tenth() {
    let dir = scratch("kuhn_training");
    let mut config = kuhn_config(&dir);
    config.evaluation.average_horizon_steps = 500;
    let summary = run(&config, 3000).unwrap();
    assert_eq!(summary.step, 3000);
    let entries = history(&dir);
    let first = &entries[0];
    assert_eq!(first.learner_step, 0, "the initial policy is evaluated");
    assert!(
        first.nash_conv.as_ref().unwrap().target > 0.8,
        "starts near uniform (0.9167): {first:?}"
    );
    let last = entries.last().unwrap();
    assert_eq!(last.learner_step, 3000);
    assert!(
        last.nash_conv.as_ref().unwrap().target <= 0.1,
        "target NashConv after 3000 steps: {last:?}"
    );
    // The average of the target policy starts as the initial target (near
    // uniform, nothing held at the threshold) and ends as close to
    // equilibrium.
    let first = first.nash_conv.as_ref().unwrap();
    let average = first.target_average.expect("the config keeps an average");
    assert!((average - first.target).abs() < 1e-9, "{first:?}");
    let average = last.nash_conv.as_ref().unwrap().target_average.unwrap();
    assert!(
        average <= 0.1,
        "average NashConv after 3000 steps: {last:?}"
    );
    // The last checkpoint holds the average's sums, and gives back the
    // policy of the last evaluation.
    let evaluated = checkpoint_nash_conv(&dir, &config, 3000, PolicyKind::TargetAverage);
    assert!(
        (evaluated - average).abs() < 1e-12,
        "checkpoint {evaluated}, history {average}"
    );
    // The average also leaves the run as a policy file that evaluates back
    // to the last evaluation's value.
    let text = std::fs::read_to_string(dir.join("target_average.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["kind"], "target_average");
    assert_eq!(file["step"], 3000);
    let tree = PublicTree::build(config.game.load()).unwrap();
    let policy = TabularPolicy::from_json(&tree, &text).unwrap();
    let evaluated = nash_conv(&tree, &policy).nash_conv;
    assert!(
        (evaluated - average).abs() < 1e-9,
        "file {evaluated}, history {average}"
    );
    assert!(std::fs::read_to_string(dir.join("config.toml"))
        .unwrap()
        .contains("kuhn_poker"));
}

/// The residual torso, trained by autograd, reaches the MLP's bound in
/// the same steps, and its checkpoint gives back what was evaluated.
#[test]
fn training_on_kuhn_with_the_residual_torso_drives_the_target_below_a_tenth() {
    let dir = scratch("kuhn_training_residual");
    let mut config = kuhn_config(&dir);
    config.network.torso = TorsoKind::ResidualMlp;
    config.network.hidden = vec![64, 64];
    run(&config, 3000).unwrap();
    let entries = history(&dir);
    assert!(entries[0].nash_conv.as_ref().unwrap().target > 0.8);
    let last = entries.last().unwrap();
    assert_eq!(last.learner_step, 3000);
    let target = last.nash_conv.as_ref().unwrap().target;
    assert!(target <= 0.1, "target NashConv after 3000 steps: {last:?}");
    let evaluated = checkpoint_nash_conv(&dir, &config, 3000, PolicyKind::Target);
    assert!(
        (evaluated - target).abs() < 1e-9,
        "checkpoint {evaluated}, history {target}"
    );
}

/// What the averaged network reaches on Kuhn in 3,000 steps, with room for
/// the run's noise above what it reached when written (0.058; θ_target
/// 0.042): the bound of the other Kuhn runs.
const AVERAGE_NETWORK_BOUND: f64 = 0.1;

/// The averaged network learns the run's average policy from the states
/// actors visit: from the initial network's near-uniform policy to a
/// NashConv bound within 3,000 steps, and the checkpoint holds it (with
/// its Adam moments, one update a step) so that the `average_network`
/// kind evaluates back to what the history says.
#[test]
fn training_on_kuhn_trains_the_averaged_network() {
    let dir = scratch("kuhn_training_average_network");
    let mut config = kuhn_config(&dir);
    config.average_network.reservoir_size = 50_000;
    config.average_network.horizon_steps = 500;
    config.evaluation.interval_steps = 500;
    run(&config, 3000).unwrap();
    let entries = history(&dir);
    let first = entries[0].nash_conv.as_ref().unwrap();
    assert!(
        first
            .average_network
            .expect("the run trains an averaged network")
            > 0.8,
        "a near-uniform start: {first:?}"
    );
    let last = entries.last().unwrap();
    assert_eq!(last.learner_step, 3000);
    let average = last.nash_conv.as_ref().unwrap().average_network.unwrap();
    assert!(
        average <= AVERAGE_NETWORK_BOUND,
        "averaged network's NashConv after 3000 steps: {last:?}"
    );
    let evaluated = checkpoint_nash_conv(&dir, &config, 3000, PolicyKind::AverageNetwork);
    assert!(
        (evaluated - average).abs() < 1e-9,
        "checkpoint {evaluated}, history {average}"
    );
    let kept = saved(&dir, 3000, &config).state.average_network.unwrap();
    assert_eq!(kept.adam.count, 3000);
    // Its loss is in the training log: a cross-entropy, at least the
    // entropy of the policies it fits, so positive.
    let training = std::fs::read_to_string(dir.join("training.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(training.lines().last().unwrap()).unwrap();
    let loss = last["loss_average_network"].as_f64().unwrap();
    assert!(loss > 0.0 && loss < 1.0, "{last}");
}

/// The card torso on OpenSpiel's default universal_poker (two players,
/// two rounds, a deck of 4 suits × 6 ranks in hole-card and board
/// planes, 100-chip blinds): from the initial, nearly uniform policy's
/// NashConv of 454 chips to below 200 in 3,000 steps, a bound with room
/// for the run's noise above what it reaches (docs/results/networks/).
#[test]
fn the_card_torso_trains_the_default_universal_poker() {
    let dir = scratch("universal_poker_card_torso");
    let mut config = kuhn_config(&dir);
    config.game = "universal_poker".parse().unwrap();
    config.network.torso = TorsoKind::CardConv;
    config.network.hidden = vec![8, 64];
    config.rnad.reward_scale = 0.01;
    config.evaluation.interval_steps = 3000;
    run(&config, 3000).unwrap();
    let entries = history(&dir);
    let first = entries[0].nash_conv.as_ref().unwrap().target;
    assert!(first > 400.0, "a nearly uniform start: {first}");
    let last = entries.last().unwrap();
    assert_eq!(last.learner_step, 3000);
    let target = last.nash_conv.as_ref().unwrap().target;
    assert!(target < 200.0, "target NashConv after 3000 steps: {last:?}");
}

/// A network that scores action groups trains a no-limit game whose every
/// raise amount is an action (`SMALL_FULL_GAME`: 11 actions, raises to 4
/// through 10 chips, in groups of one or several amounts): the exact
/// NashConv of its target, each
/// group's probability shared evenly among its amounts, falls from the
/// nearly uniform start's to below half of it, and the post-processed
/// target (thresholds applied to groups, not to single amounts) stays
/// close to the target.
#[test]
fn a_network_over_action_groups_trains_a_no_limit_game_of_every_amount() {
    let dir = scratch("grouped_full_game");
    let mut config = kuhn_config(&dir);
    config.game = rnad_testkit::SMALL_FULL_GAME.parse().unwrap();
    config.network.action_groups = true;
    config.rnad.reward_scale = 0.05;
    config.evaluation.interval_steps = GROUPED_STEPS;
    run(&config, GROUPED_STEPS).unwrap();
    let entries = history(&dir);
    let first = entries[0].nash_conv.as_ref().unwrap();
    let last = entries.last().unwrap();
    assert_eq!(last.learner_step, GROUPED_STEPS);
    let nash_conv = last.nash_conv.as_ref().unwrap();
    assert!(
        nash_conv.target < 0.5 * first.target,
        "from {first:?} to {nash_conv:?}"
    );
    assert!(
        nash_conv.target_postprocessed < 1.5 * nash_conv.target,
        "{nash_conv:?}"
    );
}

/// A local run in mode best_response judges nothing of its own: it writes
/// no history line, only the best responses it learns (in
/// `best_response.jsonl`, each naming the version it judged).
#[test]
fn a_local_run_in_mode_best_response_writes_best_responses_and_no_history() {
    let dir = scratch("best_response_mode");
    let mut config = kuhn_config(&dir);
    config.evaluation.mode = rnad_run::config::EvaluationMode::BestResponse;
    config.evaluation.br_interval_evaluations = 1;
    config.evaluation.br_budget_steps = 100;
    run(&config, 2000).unwrap();
    let history = std::fs::read_to_string(dir.join("history.jsonl")).unwrap_or_default();
    assert_eq!(history, "", "no history lines");
    let lines = std::fs::read_to_string(dir.join("best_response.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    for line in &lines {
        let step = line["learner_step"].as_u64().unwrap();
        assert!(step <= 2000 && step % 100 == 0, "{line}");
    }
}

/// Steps of the grouped run.
const GROUPED_STEPS: u64 = 2000;

/// For each torso Kuhn's input allows (mlp, residual_mlp): its checkpoints
/// carry the whole learner across a restart.
#[test]
fn stopping_and_resuming_is_bit_identical_to_running_straight_through() {
    for torso in [TorsoKind::Mlp, TorsoKind::ResidualMlp] {
        let straight = scratch(&format!("resume_straight_{torso:?}"));
        let resumed = scratch(&format!("resume_twice_{torso:?}"));
        let mut config = kuhn_config(&straight);
        config.network.torso = torso;
        config.rnad.entropy_schedule_size = vec![7];
        config.rnad.entropy_schedule_repeats = vec![1];
        // Evaluated at every step, with an average short enough to move.
        config.evaluation.interval_steps = 1;
        config.evaluation.average_horizon_steps = 10;
        run(&config, 40).unwrap();

        config.run_dir = resumed.clone();
        let first = run(&config, 23).unwrap();
        assert_eq!(first.step, 23);
        let second = run(&config, 40).unwrap();
        assert_eq!(second.step, 40);

        let (a, b) = (saved(&straight, 40, &config), saved(&resumed, 40, &config));
        assert_same_state(&a, &b);
        assert!(a.state.rolls >= 5, "the schedule rolled during the run");
        // The average of the target policy goes on from the checkpoint:
        // every evaluation after the restart, the average's included, is
        // the straight run's, and so are the sums the last checkpoint
        // holds.
        let average = a.target_average.as_ref().expect("the run keeps an average");
        assert_eq!(
            (average.counters.first_step, average.counters.step),
            (0, 40)
        );
        assert_eq!(a.target_average, b.target_average);
        let (straight, resumed) = (history(&straight), history(&resumed));
        assert_eq!(straight.len(), 41, "steps 0 to 40");
        for (x, y) in straight.iter().zip(&resumed) {
            assert_eq!(
                (x.learner_step, x.decisions, &x.nash_conv),
                (y.learner_step, y.decisions, &y.nash_conv)
            );
        }
        assert_eq!(straight.len(), resumed.len());
    }
}

/// NashConv of the `kind` policy of the checkpoint the run in `dir` saved
/// at `step`.
fn checkpoint_nash_conv(dir: &Path, config: &Config, step: u64, kind: PolicyKind) -> f64 {
    let checkpoint = checkpoint::path_for(&dir.join("checkpoints"), step);
    let tree = PublicTree::build(config.game.load()).unwrap();
    let policy = CheckpointPolicies::read(&checkpoint)
        .unwrap()
        .policy(&tree, &NetworkInputs::new(&tree), kind)
        .unwrap();
    nash_conv(&tree, &policy).nash_conv
}

/// The checkpoint the run in `dir` saved at `step`.
fn saved(dir: &Path, step: u64, config: &Config) -> Checkpoint {
    checkpoint::load(
        &checkpoint::path_for(&dir.join("checkpoints"), step),
        &ResolvedRun::new(config.clone()).unwrap(),
    )
    .unwrap()
}

/// Two checkpoints hold the same learner state, bit for bit.
fn assert_same_state(a: &Checkpoint, b: &Checkpoint) {
    for (x, y) in [
        (&a.state.online, &b.state.online),
        (&a.state.target, &b.state.target),
        (&a.state.reg, &b.state.reg),
        (&a.state.reg_prev, &b.state.reg_prev),
    ] {
        let (x, y) = (x.to_vec().unwrap(), y.to_vec().unwrap());
        assert!(
            x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()),
            "parameters differ"
        );
    }
    assert_eq!(a.state.rolls, b.state.rolls);
    assert_eq!(a.state.decisions, b.state.decisions);
    assert_eq!(a.meta.actor_rngs, b.meta.actor_rngs);
}

/// The late batch size takes over at its step, and a run with it is
/// bit-identical to one stopped there and resumed with the larger
/// `batch_size` (how its remedy was first measured).
#[test]
fn a_late_batch_size_applies_from_its_step_like_a_resumption_with_that_batch() {
    let scheduled = scratch("late_batch_scheduled");
    let resumed = scratch("late_batch_resumed");
    let mut config = kuhn_config(&scheduled);
    config.rnad.batch_size = 2;
    config.evaluation.interval_steps = 10;
    config.rnad.late_batch_start_step = 20;
    config.rnad.late_batch_size = 16;
    run(&config, 40).unwrap();
    // Every Kuhn game has 2 or 3 decisions: 10 steps of 2 games consume
    // 40 to 60, 10 steps of 16 games 320 to 480.
    let decisions: Vec<u64> = history(&scheduled).iter().map(|e| e.decisions).collect();
    assert_eq!(decisions.len(), 5, "evaluations at 0, 10, 20, 30, 40");
    let per_ten: Vec<u64> = decisions.windows(2).map(|w| w[1] - w[0]).collect();
    for (i, consumed) in per_ten.iter().enumerate() {
        let games = if i < 2 { 20 } else { 160 };
        assert!(
            (2 * games..=3 * games).contains(consumed),
            "steps {}-{}: {consumed} decisions for {games} games ({per_ten:?})",
            10 * i,
            10 * (i + 1)
        );
    }

    let mut plain = kuhn_config(&resumed);
    plain.rnad.batch_size = 2;
    plain.evaluation.interval_steps = 10;
    run(&plain, 20).unwrap();
    plain.rnad.batch_size = 16;
    let options = LocalOptions {
        max_steps: Some(40),
        progress: false,
        open: OpenOptions {
            accept_config_change: true,
            ..OpenOptions::default()
        },
        ..LocalOptions::default()
    };
    run_local(
        ResolvedRun::new(plain.clone()).unwrap(),
        options,
        &Shutdown::new(),
    )
    .unwrap();
    assert_same_state(
        &saved(&scheduled, 40, &config),
        &saved(&resumed, 40, &plain),
    );
}

#[test]
fn with_no_readable_checkpoint_the_run_is_refused_and_nothing_moves() {
    let dir = scratch("bad_checkpoints");
    let mut config = kuhn_config(&dir);
    config.checkpoint.interval_steps = 2;
    run(&config, 4).unwrap();
    let paths = checkpoint::list(&RunDir::new(&dir).checkpoints()).unwrap();
    assert_eq!(paths.len(), 2);
    std::fs::write(&paths[0], b"").unwrap();
    std::fs::write(&paths[1], b"not a checkpoint").unwrap();
    let err = run(&config, 6).unwrap_err().to_string();
    for path in &paths {
        assert!(err.contains(&path.display().to_string()), "{err}");
    }
    assert!(err.contains("no checkpoint in"), "{err}");
    assert_eq!(
        checkpoint::list(&RunDir::new(&dir).checkpoints()).unwrap(),
        paths
    );
    assert_eq!(std::fs::read(&paths[1]).unwrap(), b"not a checkpoint");
}

#[test]
fn checkpoints_of_another_game_or_network_are_refused_and_kept() {
    let dir = scratch("mismatched_checkpoint");
    let config = kuhn_config(&dir);
    let saved = run(&config, 2).unwrap().checkpoint;
    let accepted = |config: &Config| {
        let options = LocalOptions {
            max_steps: Some(4),
            progress: false,
            open: OpenOptions {
                accept_config_change: true,
                ..OpenOptions::default()
            },
            ..LocalOptions::default()
        };
        run_local(
            ResolvedRun::new(config.clone()).unwrap(),
            options,
            &Shutdown::new(),
        )
    };
    let mut wider = config.clone();
    wider.network.hidden = vec![64];
    let err = accepted(&wider).unwrap_err().to_string();
    assert!(
        err.contains("torso mlp of widths [64, 64]") && err.contains("torso mlp of widths [64]"),
        "{err}"
    );
    let mut residual = config.clone();
    residual.network.torso = TorsoKind::ResidualMlp;
    let err = accepted(&residual).unwrap_err().to_string();
    assert!(err.contains("says torso residual_mlp"), "{err}");
    let mut leduc = config.clone();
    leduc.game = "leduc_poker".parse().unwrap();
    let err = accepted(&leduc).unwrap_err().to_string();
    assert!(
        err.contains("for game kuhn_poker, this run is leduc_poker"),
        "{err}"
    );
    assert!(saved.exists());
}

#[test]
fn an_asynchronous_run_whose_queue_cannot_hold_a_batch_is_refused() {
    let dir = scratch("queue_too_small");
    let mut config = kuhn_config(&dir);
    config.actors.lockstep = false;
    config.actors.queue_capacity = 64;
    let err = run(&config, 10).unwrap_err().to_string();
    assert!(
        err.contains("actors.queue_capacity") && err.contains("(128 trajectories)"),
        "{err}"
    );
    assert!(!dir.join("config.toml").exists(), "nothing recorded");
}

/// Requests and responses each get through when larger than the other
/// way's limit: a submit of more games than a parameter reply holds, and a
/// parameter reply of a network wider than the largest submit. Both sides
/// wrote frames only up to their own read limit, and the run made no step,
/// reconnecting forever.
#[test]
fn frames_larger_than_the_other_ways_limit_get_through() {
    let dir = scratch("large_frames");
    let mut large_submits = kuhn_config(&dir);
    large_submits.actors.lockstep = false;
    large_submits.actors.games_per_actor = MAX_SUBMIT_TRAJECTORIES;
    large_submits.network.hidden = vec![8];
    // Every Kuhn game has at least two decisions, each with its
    // observation: a submit of this many is larger than the reply.
    let limits = FrameLimits::for_run(&ResolvedRun::new(large_submits.clone()).unwrap());
    let observations = large_submits.game.load().information_state_tensor_size() * 4;
    assert!(limits.response < MAX_SUBMIT_TRAJECTORIES * 2 * observations);
    assert_eq!(three_steps_within_a_minute(large_submits), 3);

    let _ = std::fs::remove_dir_all(&dir);
    let mut wide = kuhn_config(&dir);
    wide.actors.lockstep = false;
    wide.network.hidden = vec![512, 512];
    let limits = FrameLimits::for_run(&ResolvedRun::new(wide.clone()).unwrap());
    assert!(limits.response > limits.request, "{limits:?}");
    assert_eq!(three_steps_within_a_minute(wide), 3);
}

/// The steps an asynchronous local run of `config` makes towards three
/// before a minute is up.
fn three_steps_within_a_minute(config: Config) -> u64 {
    let shutdown = Shutdown::new();
    let (finished, waiting) = std::sync::mpsc::channel::<()>();
    let timer = {
        let shutdown = shutdown.clone();
        std::thread::spawn(move || {
            if waiting.recv_timeout(Duration::from_secs(60)).is_err() {
                shutdown.cancel();
            }
        })
    };
    let options = LocalOptions {
        max_steps: Some(3),
        ..LocalOptions::default()
    };
    let summary = run_local(ResolvedRun::new(config).unwrap(), options, &shutdown).unwrap();
    let _ = finished.send(());
    timer.join().unwrap();
    summary.step
}

/// A run stopped by a signal saves its checkpoint at once, without the
/// final evaluation a run that reaches its step limit makes: the
/// checkpoint must land within a scheduler's grace period.
#[test]
fn a_stopped_run_saves_its_checkpoint_without_a_last_evaluation() {
    let dir = scratch("stopped_without_evaluation");
    let mut config = kuhn_config(&dir);
    config.evaluation.interval_steps = 1_000_000;
    let shutdown = Shutdown::new();
    let stopper = {
        let shutdown = shutdown.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            shutdown.cancel();
        })
    };
    let summary = run_local(
        ResolvedRun::new(config).unwrap(),
        LocalOptions::default(),
        &shutdown,
    )
    .unwrap();
    stopper.join().unwrap();
    assert!(summary.step > 0, "it trained before the stop");
    let entries = history(&dir);
    let steps: Vec<u64> = entries.iter().map(|e| e.learner_step).collect();
    assert_eq!(steps, [0], "only the initial policy is evaluated");
    assert_eq!(
        summary.checkpoint,
        checkpoint::path_for(&dir.join("checkpoints"), summary.step)
    );
    assert!(summary.checkpoint.is_file());
}

#[test]
fn only_the_newest_checkpoints_are_kept() {
    let dir = scratch("checkpoint_rotation");
    let mut config = kuhn_config(&dir);
    config.checkpoint.interval_steps = 2;
    config.checkpoint.keep = 2;
    run(&config, 9).unwrap();
    let names: Vec<String> = checkpoint::list(&RunDir::new(&dir).checkpoints())
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "checkpoint-000000000008.safetensors",
            "checkpoint-000000000009.safetensors"
        ]
    );
}

/// `evaluation.mode = "head_to_head"`: every evaluation plays the panel
/// instead of computing NashConv, and the sampled result against uniform
/// covers the exact expected payoff of the same policy (the final
/// checkpoint's), computed by walking the tree.
#[test]
fn head_to_head_mode_plays_the_panel_and_its_interval_covers_the_exact_value() {
    use rnad_evaluator::players::{PlayerSpec, Tabulator};
    use rnad_games::headtohead::{play_match, Mode};
    use rnad_games::public_tree::PublicTree;
    use rnad_run::config::EvaluationMode;

    let dir = scratch("kuhn_head_to_head");
    let mut config = kuhn_config(&dir);
    config.evaluation.mode = EvaluationMode::HeadToHead;
    config.evaluation.deals = 4000;
    config.evaluation.interval_steps = 500;
    run(&config, 1500).unwrap();
    let entries = history(&dir);
    let steps: Vec<u64> = entries.iter().map(|e| e.learner_step).collect();
    assert_eq!(steps, [0, 500, 1000, 1500]);
    for (i, entry) in entries.iter().enumerate() {
        assert!(entry.nash_conv.is_none(), "{entry:?}");
        let opponents: Vec<&str> = entry
            .head_to_head
            .iter()
            .map(|h| h.opponent.as_str())
            .collect();
        let expected: &[&str] = if i == 0 {
            &["uniform", "rules"]
        } else {
            &["uniform", "rules", "previous"]
        };
        assert_eq!(opponents, expected);
        if i > 0 {
            assert_eq!(entry.head_to_head[2].opponent_step, Some(steps[i - 1]));
        }
    }
    let last = &entries[3].head_to_head[0];
    assert!(
        last.mean - last.ci95 > 0.0,
        "the trained policy beats uniform: {last:?}"
    );

    let tree = PublicTree::build(config.game.load()).unwrap();
    let checkpoint = checkpoint::list(&RunDir::new(&dir).checkpoints())
        .unwrap()
        .pop()
        .unwrap();
    let mut tabulator = Tabulator::new(&tree);
    let learned = tabulator
        .policy(&PlayerSpec::Checkpoint {
            path: checkpoint,
            kind: rnad_run::history::PolicyKind::TargetPostprocessed,
            greedy: false,
        })
        .unwrap();
    let uniform = tabulator.policy(&PlayerSpec::Uniform).unwrap();
    let names = ["learned".to_string(), "uniform".to_string()];
    let exact = play_match(&tree, &names, &[learned, uniform], Mode::Exact).players[0].mean;
    assert!(
        (last.mean - exact).abs() <= last.ci95,
        "sampled {} ± {} against exact {exact}",
        last.mean,
        last.ci95
    );
}

/// Hold'em, too large for a public tree, is judged state by state: the
/// trained network against seed 004's heuristic player, the uniform player,
/// a player the config adds (`evaluation.panel_extra`) and its previous
/// version on fixed duplicate deals, and every second
/// evaluation a local best response; the history and a real scrape of the
/// run's metrics say the same.
#[test]
fn holdem_is_judged_by_its_panel_and_local_best_responses() {
    use rnad_testkit::{free_port, scrape, wait_for};
    let dir = scratch("holdem_panel");
    let config = TestConfig::file("holdem")
        .lockstep()
        .evaluate_every(5)
        .with(|c| {
            c.network.hidden = vec![32];
            c.rnad.batch_size = 16;
            c.actors.games_per_actor = 16;
            c.evaluation.deals = 50;
            c.evaluation.lbr_interval_evaluations = 2;
            c.evaluation.lbr_hands = 20;
            c.evaluation.panel_extra = vec!["raise".into()];
        })
        .in_run_dir(&dir);
    let port = free_port();
    let shutdown = Shutdown::new();
    let runner = {
        let shutdown = shutdown.clone();
        std::thread::spawn(move || {
            let options = LocalOptions {
                max_steps: Some(10_000),
                progress: false,
                metrics: Some(([127, 0, 0, 1], port).into()),
                ..LocalOptions::default()
            };
            run_local(ResolvedRun::new(config).unwrap(), options, &shutdown)
        })
    };
    let read = || -> Vec<HistoryEntry> {
        std::fs::read_to_string(dir.join("history.jsonl"))
            .map(|t| {
                t.lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let page = wait_for(
        "three evaluations and a scrape",
        Duration::from_secs(300),
        || (read().len() >= 3).then(|| scrape(port)).flatten(),
        || format!("{:?}", read()),
    );
    shutdown.cancel();
    runner.join().unwrap().unwrap();
    let entries = read();
    for (i, entry) in entries.iter().enumerate() {
        assert!(entry.nash_conv.is_none(), "{entry:?}");
        let opponents: Vec<&str> = entry
            .head_to_head
            .iter()
            .map(|h| h.opponent.as_str())
            .collect();
        let expected: &[&str] = if i == 0 {
            &["heuristic", "uniform", "raise"]
        } else {
            &["heuristic", "uniform", "raise", "previous"]
        };
        assert_eq!(opponents, expected, "{entry:?}");
        if i > 0 {
            let previous = entries[i - 1].learner_step;
            assert_eq!(entry.head_to_head[3].opponent_step, Some(previous));
        }
        for h in &entry.head_to_head {
            assert!(h.mean.is_finite() && h.ci95 > 0.0 && h.deals == 50, "{h:?}");
        }
        // LBR at evaluations 0, 2, 4, …
        let lbr = entry.lbr.as_ref();
        assert_eq!(lbr.is_some(), i % 2 == 0, "{entry:?}");
        if let Some(lbr) = lbr {
            assert_eq!((lbr.hands, lbr.bets.as_str()), (20, "fcpa"));
            assert!(
                lbr.mbb_per_hand.is_finite() && lbr.ci95_mbb > 0.0,
                "{lbr:?}"
            );
        }
    }
    let scraped = rnad_testkit::sample(&page, "rnad_evaluator_lbr_mbb_per_hand").unwrap();
    assert!(
        entries
            .iter()
            .filter_map(|e| e.lbr.as_ref())
            .any(|l| (l.mbb_per_hand - scraped).abs() <= 1e-6 * l.mbb_per_hand.abs().max(1.0)),
        "scraped {scraped}, history {entries:?}"
    );
    let heuristic = rnad_testkit::labelled(
        &page,
        "rnad_evaluator_head_to_head",
        "opponent=\"heuristic\"",
    );
    assert!(heuristic.is_some_and(f64::is_finite), "{page}");
    let added = rnad_testkit::labelled(&page, "rnad_evaluator_head_to_head", "opponent=\"raise\"");
    assert!(added.is_some_and(f64::is_finite), "{page}");

    // Its checkpoint plays in `match` and `lbr` as a network, state by
    // state; the average, which needs a public tree, is refused saying so.
    let checkpoint = checkpoint::list(&RunDir::new(&dir).checkpoints())
        .unwrap()
        .pop()
        .unwrap();
    let network = format!("checkpoint:{}", checkpoint.display());
    let evaluator = |name: &str, args: &[&str]| {
        rnad_testkit::run_binary("rnad-evaluator", args, &dir, name, Duration::from_secs(120))
    };
    let players = format!("{network},heuristic");
    let played = evaluator(
        "match",
        &[
            "match",
            "--game",
            "holdem",
            "--players",
            &players,
            "--deals",
            "40",
            "--json",
            "--value-function",
            checkpoint.to_str().unwrap(),
        ],
    );
    assert!(played.status.success(), "{}", played.stderr);
    let report: serde_json::Value = serde_json::from_str(&played.stdout).unwrap();
    assert_eq!(report["games"], 80, "{report}");
    // Three estimates of the same games: raw, all-in equity, control variate.
    let corrected = report["control_variate"][0]["mean"].as_f64().unwrap();
    assert!(corrected.is_finite(), "{report}");
    let lbr = evaluator(
        "lbr",
        &[
            "lbr", "--game", "holdem", "--player", &network, "--hands", "10", "--json",
        ],
    );
    assert!(lbr.status.success(), "{}", lbr.stderr);
    let report: serde_json::Value = serde_json::from_str(&lbr.stdout).unwrap();
    assert_eq!(report["hands"], 10, "{report}");
    let average = format!("{network}:target_average,heuristic");
    let refused = evaluator(
        "refused",
        &[
            "match",
            "--game",
            "holdem",
            "--players",
            &average,
            "--deals",
            "4",
        ],
    );
    assert!(!refused.status.success());
    assert!(
        refused
            .stderr
            .contains("target_average averages over every information state"),
        "{}",
        refused.stderr
    );
}
