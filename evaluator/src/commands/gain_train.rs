//! `rnad-evaluator gain-train`: seed 004's learning: a gain network fitted
//! to every decision of some ACPC hand-history logs, written as a file the
//! `gain:FILE` player plays.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use candle_core::Device;
use clap::Args;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::{Game, GameSpec};
use rnad_net::{first_nonfinite, parse_device};

use super::{emit, game_help};
use crate::error::EvaluatorError;
use crate::gain::file::{save, GainMeta, FORMAT};
use crate::gain::{heads_up_poker_with_planes, samples_from_log, GainTrainer};

/// Arguments of `gain-train`.
#[derive(Debug, Args)]
pub struct GainTrainArgs {
    /// The game of the logs: heads-up universal_poker with a 52-card deck.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// ACPC hand-history logs (as `match --log` writes them); repeat for
    /// several.
    #[arg(long = "log", required = true)]
    pub logs: Vec<PathBuf>,
    /// Where to write the network.
    #[arg(long)]
    pub out: PathBuf,
    /// Adadelta steps.
    #[arg(long, default_value_t = 10_000)]
    pub steps: u64,
    /// Stop training after this many seconds even if steps are left (the
    /// file records the steps taken): seed 004's sizes take hours on a CPU.
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Samples a step, drawn at random from all.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// The generation this network is (recorded in its file).
    #[arg(long, default_value_t = 1)]
    pub generation: u32,
    /// Seed of the initial weights, the batches and the dropout.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where the network trains: cpu, cuda or cuda:N (a build with the
    /// cuda feature, .ci/cuda-build.sh).
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: Device,
}

/// Samples on which the final error is measured, at most.
const ERROR_SAMPLES: usize = 2_048;

/// Runs `gain-train`.
pub fn run(args: &GainTrainArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let game = heads_up_poker_with_planes(&args.game)?;
    if args
        .max_seconds
        .is_some_and(|s| !(s.is_finite() && s > 0.0))
    {
        return Err(EvaluatorError::Usage(
            "--max-seconds must be a positive number of seconds".into(),
        ));
    }
    if args.batch == 0 {
        return Err(EvaluatorError::Usage("--batch must be positive".into()));
    }
    // The most a player can win heads-up is the other's stack: the buy-in.
    let buy_in = game.utility_range().1;
    let (mut samples, mut hands) = (Vec::new(), 0u64);
    for path in &args.logs {
        let text = std::fs::read_to_string(path).map_err(|source| EvaluatorError::Read {
            path: path.clone(),
            source,
        })?;
        hands += text.lines().filter(|l| l.starts_with("STATE:")).count() as u64;
        let more = samples_from_log(&game, &text, buy_in)
            .map_err(|e| EvaluatorError::Usage(format!("{}: {e}", path.display())))?;
        samples.extend(more);
    }
    if samples.is_empty() {
        return Err(EvaluatorError::Usage("the logs hold no decisions".into()));
    }
    tracing::info!(hands, samples = samples.len(), "training a gain network");
    let mut trainer = GainTrainer::new(args.seed, &args.device)?;
    // The batches' own stream: the initial weights draw from the seed itself.
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ 0xba7c_4e50);
    let start = Instant::now();
    let mut recent = 0.0;
    let mut steps_taken = 0;
    for step in 1..=args.steps {
        let batch: Vec<_> = (0..args.batch)
            .map(|_| &samples[rng.random_range(0..samples.len())])
            .collect();
        let loss = trainer.step(&batch)?;
        if !loss.is_finite() {
            return Err(EvaluatorError::Usage(format!(
                "the training error is {loss} at step {step}: nothing written"
            )));
        }
        recent += loss;
        steps_taken = step;
        if step % 100 == 0 || step == args.steps {
            let steps_in = if step % 100 == 0 { 100 } else { step % 100 };
            tracing::info!(
                step,
                error = recent / steps_in as f64,
                samples_per_second =
                    (step as usize * args.batch) as f64 / start.elapsed().as_secs_f64(),
                "gain-train"
            );
            recent = 0.0;
        }
        if args
            .max_seconds
            .is_some_and(|limit| start.elapsed().as_secs_f64() >= limit)
        {
            tracing::warn!(step, "gain-train: --max-seconds reached, stopping early");
            break;
        }
    }
    let measured: Vec<_> = samples
        .iter()
        .step_by(samples.len().div_ceil(ERROR_SAMPLES))
        .collect();
    let error = measured
        .chunks(256)
        .map(|chunk| trainer.error(chunk).map(|e| e * chunk.len() as f64))
        .sum::<candle_core::Result<f64>>()?
        / measured.len() as f64;
    if !error.is_finite() || first_nonfinite(trainer.params())?.is_some() {
        return Err(EvaluatorError::Usage(format!(
            "the trained network is not finite (error {error}): nothing written"
        )));
    }
    let meta = GainMeta {
        format: FORMAT.into(),
        game: args.game.clone(),
        generation: args.generation,
        hands,
        samples: samples.len() as u64,
        steps: steps_taken,
        batch: args.batch,
        seed: args.seed,
        error,
    };
    save(&args.out, trainer.params(), &meta)?;
    emit(
        out,
        &format!(
            "generation {} from {} decisions of {hands} hands: {} steps of {}, mean squared error {error:.4} on {} of them; wrote {}",
            args.generation,
            samples.len(),
            steps_taken,
            args.batch,
            measured.len(),
            args.out.display()
        ),
    )
}
