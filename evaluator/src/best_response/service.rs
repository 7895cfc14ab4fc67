//! The evaluator's best-response service: every few evaluations, a best
//! response learned in every seat against the evaluated version (its
//! post-processed target policy, what the panel plays), in a thread of its
//! own so that neither the evaluator nor the learner waits for it.
//!
//! The thread takes one version at a time. A version offered while it is
//! still learning against another is not queued (it would be stale by the
//! time its turn came): the offer stands again at the next evaluation,
//! with the newer version. Finished results wait in a channel until the
//! evaluator collects them ([`BestResponseService::finished`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Instant;

use rnad_games::headtohead::sampled::Player;
use rnad_games::Game;
use rnad_net::{NetShape, ParamSet};
use rnad_run::best_response_log::{BestResponseLine, BestResponseSummary, SeatGain};
use rnad_run::history::PolicyKind;
use rnad_run::ResolvedRun;

use super::judge::{respond_in_seat, FrozenPolicy, SeatReport};
use super::{BrOptions, Budget};
use crate::error::EvaluatorError;
use crate::kinds::KindEvaluator;
use crate::network_player::NetworkPlayer;

/// A version of the learner's parameters: where it stands in training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Version {
    /// Its learner step.
    pub step: u64,
    /// Training wall time when it was published, seconds.
    pub wall_seconds: f64,
    /// Decisions consumed by then.
    pub decisions: u64,
}

/// A version to learn against.
struct Job {
    version: Version,
    target: ParamSet,
}

/// The service: the offers' schedule and the thread's channels.
pub struct BestResponseService {
    /// Evaluations between versions taken.
    every: u64,
    /// Evaluations since the last version was taken.
    since: u64,
    jobs: SyncSender<Job>,
    /// Set by an offer the thread took, cleared when it has finished with
    /// it: an offer goes through only while it is clear.
    busy: Arc<AtomicBool>,
    finished: Receiver<BestResponseLine>,
    stop: Arc<AtomicBool>,
}

impl BestResponseService {
    /// Starts the thread for `run`'s game, taking a version every `every`
    /// evaluations (or the first evaluation after, where it is busy then),
    /// each seat trained `evaluation.br_budget_steps` steps of
    /// `evaluation.br_episodes_per_step` games.
    pub fn start(run: &ResolvedRun, every: u64) -> Result<BestResponseService, EvaluatorError> {
        let worker = Worker::new(run)?;
        let (jobs, waiting) = std::sync::mpsc::sync_channel::<Job>(1);
        let (done, finished) = std::sync::mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let busy = Arc::new(AtomicBool::new(false));
        let (stopped, working) = (stop.clone(), busy.clone());
        std::thread::Builder::new()
            .name("best-response".into())
            .spawn(move || {
                for job in waiting {
                    let step = job.version.step;
                    let result = worker.respond(job, &|| stopped.load(Ordering::Relaxed));
                    working.store(false, Ordering::Release);
                    match result {
                        Ok(Some(line)) => {
                            tracing::info!("{}", line.describe());
                            if done.send(line).is_err() {
                                return;
                            }
                        }
                        Ok(None) => return,
                        Err(error) => {
                            tracing::error!(step, %error, "the best response failed; the next version is offered as usual")
                        }
                    }
                }
            })
            .map_err(|e| EvaluatorError::Usage(format!("cannot start the best-response thread: {e}")))?;
        Ok(BestResponseService {
            every: every.max(1),
            since: every.max(1) - 1,
            jobs,
            busy,
            finished,
            stop,
        })
    }

    /// One evaluation happened, of `target` at `version`: taken by the
    /// thread if this is its turn and the thread is free.
    pub fn offer(&mut self, version: Version, target: &ParamSet) {
        self.since += 1;
        if self.since < self.every {
            return;
        }
        if self.busy.swap(true, Ordering::AcqRel) {
            tracing::debug!(
                step = version.step,
                "the best response is still learning; the next evaluation offers again"
            );
            return;
        }
        let job = Job {
            version,
            target: target.clone(),
        };
        match self.jobs.try_send(job) {
            Ok(()) => {
                tracing::info!(
                    step = version.step,
                    "learning a best response against this version"
                );
                self.since = 0;
            }
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                tracing::error!("the best-response thread has ended; no more best responses")
            }
        }
    }

    /// The best responses finished since the last call.
    pub fn finished(&self) -> Vec<BestResponseLine> {
        self.finished.try_iter().collect()
    }
}

impl Drop for BestResponseService {
    /// Stops a response still learning (at its next optimiser step).
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What the thread needs: the game, the network's shape and, where the
/// game has one, its public tree.
struct Worker {
    game: Arc<dyn Game>,
    shape: NetShape,
    tree: Option<KindEvaluator>,
    budget_steps: u64,
    episodes_per_step: usize,
    judge_episodes: usize,
    seed: u64,
    /// Sampled gains in milli-big-blinds per hand (poker), else payoff.
    per_big_blind: Option<f64>,
}

impl Worker {
    fn new(run: &ResolvedRun) -> Result<Worker, EvaluatorError> {
        let (config, game) = (run.config(), run.game().clone());
        let tree = match game.hands() {
            Some(_) => Some(KindEvaluator::new(game.clone(), run.shape().clone())?),
            None => None,
        };
        Ok(Worker {
            game,
            shape: run.shape().clone(),
            tree,
            budget_steps: config.evaluation.br_budget_steps,
            episodes_per_step: config.evaluation.br_episodes_per_step,
            judge_episodes: config.evaluation.br_judge_episodes,
            seed: config.seed,
            per_big_blind: config.game.capabilities().units.big_blind(),
        })
    }

    /// Best responses in every seat against the job's version; none where
    /// `stop` ended one.
    fn respond(
        &self,
        job: Job,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<BestResponseLine>, EvaluatorError> {
        let started = Instant::now();
        let seed = self.seed.wrapping_add(job.version.step);
        let tabular = match &self.tree {
            Some(kinds) => Some(kinds.target_postprocessed(&job.target)?),
            None => None,
        };
        let network = || -> Result<Box<dyn Player>, EvaluatorError> {
            NetworkPlayer::new(&self.shape, &job.target, true)
                .map(|player| Box::new(player) as Box<dyn Player>)
                .map_err(|source| EvaluatorError::Network {
                    kind: PolicyKind::TargetPostprocessed,
                    source,
                })
        };
        let frozen = match (&self.tree, &tabular) {
            (Some(kinds), Some(policy)) => FrozenPolicy::Tabular {
                tree: kinds.tree(),
                policy,
            },
            _ => FrozenPolicy::Sampled {
                make: &network,
                episodes: self.judge_episodes,
                seed,
            },
        };
        let mut seats = Vec::with_capacity(self.game.num_players());
        for seat in 0..self.game.num_players() {
            let options = BrOptions {
                episodes_per_step: self.episodes_per_step,
                ..BrOptions::standard(
                    seat,
                    Budget::Steps(self.budget_steps),
                    seed.wrapping_add(seat as u64),
                )
            };
            match respond_in_seat(self.game.as_ref(), &frozen, &options, stop)? {
                Some(report) => seats.push(report),
                None => return Ok(None),
            }
        }
        Ok(Some(BestResponseLine {
            learner_step: job.version.step,
            wall_seconds: job.version.wall_seconds,
            decisions: job.version.decisions,
            best_response: self.summary(&seats, started.elapsed().as_secs_f64()),
        }))
    }

    /// The seats' reports in the line's units, and their sum.
    fn summary(&self, seats: &[SeatReport], seconds: f64) -> BestResponseSummary {
        let (scale, unit) = match (&self.tree, self.per_big_blind) {
            (None, Some(big_blind)) => (1000.0 / big_blind, "mbb/hand"),
            _ => (1.0, "payoff"),
        };
        let gains: Vec<SeatGain> = seats
            .iter()
            .map(|r| SeatGain {
                seat: r.seat,
                gain: r.learned_gain * scale,
                ci95: r.ci95 * scale,
                exact_gain: r.exact_gain.map(|g| g * scale),
            })
            .collect();
        BestResponseSummary {
            policy: PolicyKind::TargetPostprocessed.name().into(),
            unit: unit.into(),
            budget_steps: self.budget_steps,
            seconds,
            gain: gains.iter().map(|g| g.gain).sum(),
            ci95: gains.iter().map(|g| g.ci95 * g.ci95).sum::<f64>().sqrt(),
            exact_gain: gains.iter().map(|g| g.exact_gain).sum(),
            seats: gains,
        }
    }
}
