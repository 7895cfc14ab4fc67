//! `rnad-learner bench`: throughput of the learner, the actors and the whole
//! local run, and the time of one exact evaluation of a neural policy.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use candle_core::Device;
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_evaluator::error::EvaluatorError;
use rnad_evaluator::kinds::KindEvaluator;
use rnad_games::exploitability::nash_conv;
use rnad_games::Game;
use rnad_net::NetShape;
use rnad_process::shutdown::Shutdown;
use rnad_run::history::PolicyKind;
use rnad_run::ResolvedRun;
use rnad_wire::trajectory::Trajectory;
use rnad_wire::{encoded_len, packed, Submission};
use serde::Serialize;

use rnad_learner::error::LearnerError;
use rnad_learner::resume::OpenOptions;
use rnad_learner::rnad::{Learner, Stepped};

use crate::error::CliError;
use crate::local::{run_local, LocalOptions};

/// Everything `bench` measures.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// The game.
    pub game: String,
    /// The network's torso.
    pub torso: String,
    /// Its widths.
    pub hidden: Vec<usize>,
    /// Where the learner computed.
    pub device: String,
    /// Where the actor's forward passes ran.
    pub actor_device: String,
    /// Trajectories per learner step.
    pub batch_size: usize,
    /// Learner steps per second on pre-generated batches.
    pub learner_steps_per_second: f64,
    /// Valid decisions the learner consumes per second.
    pub learner_decisions_per_second: f64,
    /// Decisions one actor (one thread) takes per second.
    pub actor_decisions_per_second: f64,
    /// The fraction of that actor's time spent running the network (the
    /// rest: the games, sampling, recording).
    pub actor_inference_fraction: f64,
    /// Decisions consumed per second by the whole local run (learner and
    /// actor threads sharing the machine).
    pub end_to_end_decisions_per_second: f64,
    /// Learner steps per second in the whole local run.
    pub end_to_end_steps_per_second: f64,
    /// Seconds for one neural-policy NashConv (forward pass over every
    /// information state, then the best responses); none for games
    /// without a public tree.
    pub neural_nash_conv_seconds: Option<f64>,
    /// Seconds to evaluate all four policy kinds as training does; none
    /// for games without a public tree.
    pub all_policy_kinds_seconds: Option<f64>,
    /// The whole local run's learner steps per second as a fraction of the
    /// learner's alone: what sharing the machine with the actors costs.
    pub end_to_end_fraction_of_learner: f64,
    /// Bytes a decision of the actor's games takes in a `submit` (one
    /// learner batch's worth, encoded as the wire carries it).
    pub wire_bytes_per_decision: f64,
    /// What the same decisions took in protocol 7's dense format (float
    /// observations, a legal mask and a behaviour policy over every
    /// action), encoded the same way.
    pub dense_wire_bytes_per_decision: f64,
    /// Threads each CPU matrix product used (`RAYON_NUM_THREADS`; one
    /// unless set, see `rnad_net::compute`).
    pub threads_per_product: usize,
}

/// Runs every measurement for about `seconds` each, the learner on
/// `device` and the actor's forward passes on `actor_device`; `scratch` is
/// a directory for the end-to-end run.
pub fn run(
    run: &ResolvedRun,
    seconds: f64,
    scratch: &Path,
    device: &Device,
    actor_device: &Device,
) -> Result<BenchReport, CliError> {
    let budget = Duration::from_secs_f64(seconds);
    let (config, game, shape) = (run.config(), run.game(), run.shape());
    let mut learner = Learner::new(run, device)?;
    let snapshot = PolicySnapshot {
        version: 0,
        params: learner.state().online.clone(),
    };

    // Actor alone.
    let mut play = SelfPlay::new(
        game.clone(),
        shape.clone(),
        config.actors.games_per_actor,
        RngStream::of(config.seed),
    )
    .on_device(actor_device.clone());
    let start = Instant::now();
    while start.elapsed() < budget {
        play.step(&snapshot)?;
    }
    let actor_seconds = start.elapsed().as_secs_f64();
    let actor_decisions_per_second = play.decisions() as f64 / actor_seconds;
    let actor_inference_fraction = play.inference_seconds() / actor_seconds;

    // Learner alone, on batches played beforehand.
    let batches: Vec<_> = (0..8)
        .map(|_| play.play_fresh(&snapshot, config.rnad.batch_size))
        .collect::<Result<_, _>>()?;
    // The wire: one batch as a submit carries it, and as the dense format
    // would have.
    let batch_decisions: usize = batches[0].iter().map(Trajectory::len).sum();
    let sparse_bytes = encoded_len(&Submission(batches[0].clone()));
    let dense: Vec<DenseTrajectory> = batches[0]
        .iter()
        .map(|t| DenseTrajectory::of(t, shape.actions))
        .collect();
    let wire_bytes_per_decision = sparse_bytes as f64 / batch_decisions as f64;
    let dense_wire_bytes_per_decision = encoded_len(&dense) as f64 / batch_decisions as f64;
    // One step untimed: a GPU compiles its kernels on first use.
    let mut warm_up = Learner::new(run, device)?;
    warm_up.step(&batches[0])?;
    let (mut steps, mut decisions) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < budget || steps < 3 {
        match learner.step(&batches[steps as usize % batches.len()])? {
            Stepped::Applied(stats) => decisions += stats.decisions as u64,
            Stepped::Skipped(bad) => {
                return Err(LearnerError::Diverged { bad, rollbacks: 0 }.into());
            }
        }
        steps += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();

    // Exact evaluation of the neural policy, where the game has a tree.
    let (neural_nash_conv_seconds, all_policy_kinds_seconds) = if game.hands().is_some() {
        let (nash_conv_seconds, kinds_seconds) = exact_evaluation_seconds(game, shape, &learner)?;
        (Some(nash_conv_seconds), Some(kinds_seconds))
    } else {
        (None, None)
    };

    // The whole local run.
    let _ = std::fs::remove_dir_all(scratch);
    let mut e2e = config.clone();
    e2e.run_dir = scratch.to_path_buf();
    e2e.evaluation.interval_seconds = 0.0;
    e2e.evaluation.interval_steps = 0;
    // The evaluations at the start and the end as small as they come where
    // a panel plays (games without a tree): they are not what is timed.
    e2e.evaluation.deals = 2;
    e2e.evaluation.lbr_interval_evaluations = 0;
    // Never within the measurement (and still a TOML integer, which the
    // checkpoint's recorded config must be).
    e2e.checkpoint.interval_steps = i64::MAX as u64;
    let shutdown = Shutdown::new();
    let timer = {
        let shutdown = shutdown.clone();
        std::thread::spawn(move || {
            std::thread::sleep(budget);
            shutdown.cancel();
        })
    };
    let start = Instant::now();
    let options = LocalOptions {
        open: OpenOptions {
            device: device.clone(),
            ..OpenOptions::default()
        },
        actor_device: actor_device.clone(),
        ..LocalOptions::default()
    };
    let summary = run_local(ResolvedRun::new(e2e)?, options, &shutdown)?;
    let e2e_seconds = start.elapsed().as_secs_f64();
    timer.join().expect("timer thread");
    let e2e_decisions = rnad_learner::checkpoint::load(&summary.checkpoint, run)?
        .state
        .decisions;

    let learner_steps_per_second = steps as f64 / elapsed;
    let end_to_end_steps_per_second = summary.step as f64 / e2e_seconds;
    Ok(BenchReport {
        game: config.game.to_string(),
        torso: config.network.torso.to_string(),
        hidden: config.network.hidden.clone(),
        device: format!("{device:?}"),
        actor_device: format!("{actor_device:?}"),
        batch_size: config.rnad.batch_size,
        learner_steps_per_second,
        learner_decisions_per_second: decisions as f64 / elapsed,
        actor_decisions_per_second,
        actor_inference_fraction,
        end_to_end_decisions_per_second: e2e_decisions as f64 / e2e_seconds,
        end_to_end_steps_per_second,
        neural_nash_conv_seconds,
        all_policy_kinds_seconds,
        end_to_end_fraction_of_learner: end_to_end_steps_per_second / learner_steps_per_second,
        wire_bytes_per_decision,
        dense_wire_bytes_per_decision,
        threads_per_product: rnad_net::compute::threads_per_product(),
    })
}

/// A trajectory as protocol 7 carried it: the columns of today's, with
/// float observations and every decision's legal mask and behaviour
/// policy over all the game's actions.
#[derive(Serialize)]
struct DenseTrajectory {
    param_version: u64,
    #[serde(with = "packed::bytes")]
    player: Vec<u8>,
    #[serde(with = "packed::u16s")]
    action: Vec<u16>,
    #[serde(with = "packed::f32s")]
    obs: Vec<f32>,
    #[serde(with = "packed::f32s")]
    legal: Vec<f32>,
    #[serde(with = "packed::f32s")]
    behaviour: Vec<f32>,
    #[serde(with = "packed::f32s")]
    rewards: Vec<f32>,
}

impl DenseTrajectory {
    /// `sparse` spread over `actions` actions.
    fn of(sparse: &Trajectory, actions: usize) -> DenseTrajectory {
        let rows = sparse.len() * actions;
        let (mut legal, mut behaviour) = (vec![0.0; rows], vec![0.0; rows]);
        for (t, decision) in sparse.decisions().enumerate() {
            for (&a, &p) in decision.legal.iter().zip(decision.behaviour) {
                legal[t * actions + usize::from(a)] = 1.0;
                behaviour[t * actions + usize::from(a)] = p;
            }
        }
        DenseTrajectory {
            param_version: sparse.param_version,
            player: sparse.player.clone(),
            action: sparse.action.clone(),
            obs: sparse.obs.clone(),
            legal,
            behaviour,
            rewards: sparse.rewards.clone(),
        }
    }
}

/// Seconds for one NashConv of the online network and for the evaluation
/// of every policy kind, each the mean of 20.
fn exact_evaluation_seconds(
    game: &Arc<dyn Game>,
    shape: &NetShape,
    learner: &Learner,
) -> Result<(f64, f64), CliError> {
    let evaluator =
        KindEvaluator::new(game.clone(), shape.clone()).map_err(EvaluatorError::from)?;
    let state = learner.state();
    let timed = |f: &mut dyn FnMut() -> Result<(), CliError>| -> Result<f64, CliError> {
        let runs = 20;
        let start = Instant::now();
        for _ in 0..runs {
            f()?;
        }
        Ok(start.elapsed().as_secs_f64() / f64::from(runs))
    };
    let neural_nash_conv_seconds = timed(&mut || {
        let policy = evaluator
            .policy(&state.online)
            .map_err(|source| EvaluatorError::Network {
                kind: PolicyKind::Online,
                source,
            })?;
        std::hint::black_box(nash_conv(evaluator.tree(), &policy));
        Ok(())
    })?;
    let kinds = state.published();
    let all_policy_kinds_seconds =
        timed(&mut || Ok(evaluator.evaluate(kinds, None, None).map(|_| ())?))?;
    Ok((neural_nash_conv_seconds, all_policy_kinds_seconds))
}
