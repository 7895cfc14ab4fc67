//! A best response that learns: one seat is trained by reinforcement
//! learning against a frozen policy that plays every other seat, for games
//! where no exact best response can be computed (and, to check it, for the
//! games where one can).
//!
//! Against a fixed policy the game is a single-agent problem: the frozen
//! seats are part of the environment. So the learner needs no
//! regularisation (R-NaD's reward transformation exists to make self-play
//! converge; against a fixed environment plain policy improvement does).
//! Each step plays a batch of episodes from the learning seat's network,
//! all of the batch's decisions of that seat in one forward pass, and
//! takes one Adam step on an actor-critic loss: the policy gradient of the
//! episode's return less the value head's estimate, the value head's
//! squared error, and an entropy bonus that decays linearly to zero over
//! the budget (early exploration, a near-deterministic policy at the end,
//! as a best response is). The network reads the seat's information-state
//! tensor, so what it may use is what the seat knows; the frozen policy's
//! own beliefs are learned implicitly, through the returns.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::headtohead::run_out::run_out_value;
use rnad_games::headtohead::sampled::Player;
use rnad_games::sampling::inverse_cdf;
use rnad_games::{Action, Game, State, Turn};
use rnad_net::{autograd, NetShape, ParamSet, PolicyValueNet, TorsoKind};
use rnad_process::logging::Throttle;

pub mod judge;
pub mod service;

/// Illegal actions' logits are pushed this far down before the softmax.
const ILLEGAL_LOGIT: f64 = 1e9;

/// How long the best response trains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// This many optimiser steps.
    Steps(u64),
    /// This many seconds of training.
    Seconds(f64),
}

impl std::str::FromStr for Budget {
    type Err = String;

    /// `N` steps, or `Ns` / `Nm` seconds or minutes of training.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("budget {s:?}: give steps (2000) or a time (90s, 10m), more than zero");
        let time = |text: &str, unit: f64| {
            text.parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t > 0.0)
                .map(|t| Budget::Seconds(t * unit))
                .ok_or_else(bad)
        };
        if let Some(minutes) = s.strip_suffix('m') {
            time(minutes, 60.0)
        } else if let Some(seconds) = s.strip_suffix('s') {
            time(seconds, 1.0)
        } else {
            s.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .map(Budget::Steps)
                .ok_or_else(bad)
        }
    }
}

/// How the best response learns.
#[derive(Clone, Debug)]
pub struct BrOptions {
    /// The seat it learns to play.
    pub seat: usize,
    /// Widths of its MLP torso.
    pub hidden: Vec<usize>,
    /// Episodes played for each optimiser step.
    pub episodes_per_step: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// The entropy bonus at the start, decaying linearly to zero.
    pub entropy: f64,
    /// How long it trains.
    pub budget: Budget,
    /// Seed of the network's initialisation, the cards and every action.
    pub seed: u64,
    /// A network to start from instead of a fresh one (its shape and
    /// parameters; `hidden` is then unused): the frozen policy's own, so
    /// that the response starts at the policy's value and only improves
    /// on it.
    pub start: Option<(NetShape, ParamSet)>,
}

/// The MLP's widths unless told otherwise.
pub const DEFAULT_HIDDEN: [usize; 2] = [128, 128];
/// Episodes a step unless told otherwise.
pub const DEFAULT_EPISODES_PER_STEP: usize = 128;
/// Adam's learning rate unless told otherwise.
pub const DEFAULT_LEARNING_RATE: f64 = 3e-3;
/// The entropy bonus at the start of a fresh network's training.
pub const DEFAULT_ENTROPY: f64 = 0.1;
/// The entropy bonus at the start of training from a trained network (the
/// policy's own, or another checkpoint's): a larger bonus first undoes
/// the play it starts from.
pub const DEFAULT_ENTROPY_FROM_A_NETWORK: f64 = 0.01;

impl BrOptions {
    /// A fresh MLP of the default widths, trained with the defaults.
    pub fn standard(seat: usize, budget: Budget, seed: u64) -> BrOptions {
        BrOptions {
            seat,
            hidden: DEFAULT_HIDDEN.to_vec(),
            episodes_per_step: DEFAULT_EPISODES_PER_STEP,
            learning_rate: DEFAULT_LEARNING_RATE,
            entropy: DEFAULT_ENTROPY,
            budget,
            seed,
            start: None,
        }
    }
}

/// Where training stands, for progress output.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Optimiser steps taken.
    pub steps: u64,
    /// Episodes played.
    pub episodes: u64,
    /// The learning seat's mean return over the last step's episodes.
    pub mean_return: f64,
    /// Seconds since training started.
    pub seconds: f64,
}

/// A trained best response: its network and what training cost.
#[derive(Debug)]
pub struct LearnedBestResponse {
    /// The network's shape (an MLP over the game's information-state
    /// tensor).
    pub shape: NetShape,
    /// Its parameters.
    pub params: ParamSet,
    /// The seat it plays.
    pub seat: usize,
    /// Where training ended.
    pub trained: Progress,
}

/// One batch of the learning seat's decisions and its episodes' returns.
struct Batch {
    obs: Vec<f32>,
    legal: Vec<f32>,
    taken: Vec<f32>,
    returns: Vec<f32>,
    decisions: usize,
    episode_returns: Vec<f64>,
}

/// Trains a best response for `options.seat` of `game` against `frozen`,
/// which plays every other seat; `progress` hears about every step, and
/// training ends there, short of its budget, where it breaks.
pub fn learn_best_response(
    game: &dyn Game,
    frozen: &mut dyn Player,
    options: &BrOptions,
    mut progress: impl FnMut(&Progress) -> ControlFlow<()>,
) -> candle_core::Result<LearnedBestResponse> {
    assert!(options.seat < game.num_players(), "the seat is in the game");
    let (shape, initial) = match &options.start {
        Some((shape, params)) => (shape.clone(), params.to_device(&Device::Cpu)?),
        None => {
            let shape = NetShape::for_game(game, TorsoKind::Mlp, &options.hidden);
            let params = ParamSet::init(&shape, options.seed)?;
            (shape, params)
        }
    };
    let (vars, tensors) = autograd::tracked(initial.tensors())?;
    let net = PolicyValueNet::new(&shape, &tensors)?;
    let mut adam = AdamW::new(
        vars.clone(),
        ParamsAdamW {
            lr: options.learning_rate,
            weight_decay: 0.0,
            ..ParamsAdamW::default()
        },
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let started = Instant::now();
    let mut done = Progress {
        steps: 0,
        episodes: 0,
        mean_return: 0.0,
        seconds: 0.0,
    };
    loop {
        let fraction = match options.budget {
            Budget::Steps(steps) => done.steps as f64 / steps as f64,
            Budget::Seconds(seconds) => done.seconds / seconds,
        };
        if fraction >= 1.0 {
            break;
        }
        let batch = play(game, frozen, &net, &shape, options, &mut rng)?;
        if batch.decisions > 0 {
            let loss = loss(&net, &shape, &batch, options.entropy * (1.0 - fraction))?;
            adam.backward_step(&loss)?;
        }
        done.steps += 1;
        done.episodes += batch.episode_returns.len() as u64;
        done.mean_return =
            batch.episode_returns.iter().sum::<f64>() / batch.episode_returns.len() as f64;
        done.seconds = started.elapsed().as_secs_f64();
        if progress(&done).is_break() {
            break;
        }
    }
    Ok(LearnedBestResponse {
        params: ParamSet::from_tensors(
            vars.iter()
                .map(|v| v.as_tensor().copy())
                .collect::<candle_core::Result<Vec<_>>>()?,
        ),
        shape,
        seat: options.seat,
        trained: done,
    })
}

/// Plays one batch of episodes: chance and the frozen seats sample their
/// moves, the learning seat samples its network's policy, all the games'
/// decisions of that seat at once.
fn play(
    game: &dyn Game,
    frozen: &mut dyn Player,
    net: &PolicyValueNet,
    shape: &NetShape,
    options: &BrOptions,
    rng: &mut ChaCha8Rng,
) -> candle_core::Result<Batch> {
    let seat = options.seat;
    let (input, actions) = (shape.input, shape.actions);
    let mut states: Vec<Box<dyn State>> = (0..options.episodes_per_step)
        .map(|_| game.new_initial_state())
        .collect();
    let mut batch = Batch {
        obs: Vec::new(),
        legal: Vec::new(),
        taken: Vec::new(),
        returns: Vec::new(),
        decisions: 0,
        episode_returns: Vec::new(),
    };
    // Which episode each recorded decision belongs to.
    let mut episode_of = Vec::new();
    let mut deals: Vec<Deal> = (0..states.len())
        .map(|_| Deal::new(ChaCha8Rng::seed_from_u64(rng.random())))
        .collect();
    play_lockstep(
        &mut states,
        &mut deals,
        seat,
        frozen,
        rng,
        |waiting, states, rng| {
            let mut obs = vec![0.0f32; waiting.len() * input];
            let mut legal = vec![0.0f32; waiting.len() * actions];
            let mut legal_actions = Vec::with_capacity(waiting.len());
            for (k, &g) in waiting.iter().enumerate() {
                states[g].network_input(seat, &mut obs[k * input..(k + 1) * input]);
                let ids = states[g].legal_actions();
                for &a in &ids {
                    legal[k * actions + a] = 1.0;
                }
                legal_actions.push(ids);
            }
            let obs_t = Tensor::from_slice(&obs, (waiting.len(), input), &Device::Cpu)?;
            let legal_t = Tensor::from_slice(&legal, (waiting.len(), actions), &Device::Cpu)?;
            let probs = net.policy(&obs_t, &legal_t)?.to_vec2::<f32>()?;
            let mut chosen = Vec::with_capacity(waiting.len());
            for (k, &g) in waiting.iter().enumerate() {
                let ids = &legal_actions[k];
                let action = inverse_cdf(
                    rng.random::<f64>(),
                    ids.iter().map(|&a| (a, f64::from(probs[k][a]))),
                );
                let mut taken = vec![0.0f32; actions];
                taken[action] = 1.0;
                batch.taken.extend(taken);
                episode_of.push(g);
                chosen.push(action);
            }
            batch.obs.extend(obs);
            batch.legal.extend(legal);
            Ok(chosen)
        },
    )?;
    batch.episode_returns = states.iter().map(|s| s.returns()[seat]).collect();
    // Returns in units of the game's largest payoff, so that one entropy
    // bonus and one learning rate suit Kuhn's ±2 chips and hold'em's ±5,000.
    let (lo, hi) = game.utility_range();
    let scale = lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
    batch.returns = episode_of
        .iter()
        .map(|&g| (batch.episode_returns[g] / scale) as f32)
        .collect();
    batch.decisions = episode_of.len();
    Ok(batch)
}

/// One game's chance: its own stream (so that two players in the seat
/// can be dealt the same cards), and, where its game was judged so, the
/// expected returns over its all-in run-out.
struct Deal {
    chance: ChaCha8Rng,
    /// Where the game is judged with its all-in run-out averaged over.
    all_in: Option<AllIn>,
}

/// A judged game's all-in run-out.
struct AllIn {
    /// The seed and game whose stream samples run-outs where they are
    /// many.
    seed: u64,
    game: usize,
    /// The expected returns over the run-out, once the game reached one.
    expected: Option<Vec<f64>>,
}

impl Deal {
    /// A deal from `chance`, its returns as dealt.
    fn new(chance: ChaCha8Rng) -> Deal {
        Deal {
            chance,
            all_in: None,
        }
    }

    /// Game `game` of the deals seeded `seed`, the same whoever plays it,
    /// its all-in run-out averaged over.
    fn judged(seed: u64, game: usize) -> Deal {
        let mut chance = ChaCha8Rng::seed_from_u64(seed ^ 0x0DEA_1000_0DEA_1000);
        chance.set_stream(game as u64);
        Deal {
            chance,
            all_in: Some(AllIn {
                seed,
                game,
                expected: None,
            }),
        }
    }

    /// `seat`'s return at the end of `state`: the expectation over its
    /// run-out where it had one and is judged so.
    fn value(&self, state: &dyn State, seat: usize) -> f64 {
        match self.all_in.as_ref().and_then(|a| a.expected.as_ref()) {
            Some(expected) => expected[seat],
            None => state.returns()[seat],
        }
    }
}

/// Plays every game of `states` to its end in lockstep: chance samples its
/// moves from each game's deal, `frozen` decides the waiting games of
/// every other seat in one call, and `seat_moves` those of `seat`.
fn play_lockstep(
    states: &mut [Box<dyn State>],
    deals: &mut [Deal],
    seat: usize,
    frozen: &mut dyn Player,
    rng: &mut ChaCha8Rng,
    mut seat_moves: impl FnMut(
        &[usize],
        &[Box<dyn State>],
        &mut ChaCha8Rng,
    ) -> candle_core::Result<Vec<Action>>,
) -> candle_core::Result<()> {
    loop {
        let (mut at_seat, mut at_frozen) = (Vec::new(), Vec::new());
        for ((g, state), deal) in states.iter_mut().enumerate().zip(deals.iter_mut()) {
            if state.turn() == Turn::Chance {
                if let Some(all_in) = deal.all_in.as_mut().filter(|a| a.expected.is_none()) {
                    all_in.expected = run_out_value(state.as_ref(), all_in.seed, all_in.game);
                }
            }
            while state.turn() == Turn::Chance {
                let action = inverse_cdf(deal.chance.random::<f64>(), state.chance_outcomes());
                state.apply_action(action);
            }
            match state.turn() {
                Turn::Player(p) if p == seat => at_seat.push(g),
                Turn::Player(_) => at_frozen.push(g),
                Turn::Terminal | Turn::Chance => {}
            }
        }
        if at_seat.is_empty() && at_frozen.is_empty() {
            return Ok(());
        }
        if !at_frozen.is_empty() {
            let legal: Vec<Vec<Action>> = at_frozen
                .iter()
                .map(|&g| states[g].legal_actions())
                .collect();
            let probs = {
                let waiting: Vec<&dyn State> =
                    at_frozen.iter().map(|&g| states[g].as_ref()).collect();
                frozen.policies_each(&waiting, &legal)
            };
            for ((&g, legal), probs) in at_frozen.iter().zip(&legal).zip(probs) {
                let action = inverse_cdf(rng.random::<f64>(), legal.iter().copied().zip(probs));
                states[g].apply_action(action);
            }
        }
        if !at_seat.is_empty() {
            let actions = seat_moves(&at_seat, states, rng)?;
            for (&g, action) in at_seat.iter().zip(actions) {
                states[g].apply_action(action);
            }
        }
    }
}

/// The actor-critic loss of `batch`: the policy gradient of each
/// decision's episode return (scaled to the game's largest payoff) less
/// the value estimate (held fixed), half
/// the value's squared error, less `entropy` times the policy's entropy.
fn loss(
    net: &PolicyValueNet,
    shape: &NetShape,
    batch: &Batch,
    entropy: f64,
) -> candle_core::Result<Tensor> {
    let n = batch.decisions;
    let device = Device::Cpu;
    let obs = Tensor::from_slice(&batch.obs, (n, shape.input), &device)?;
    let legal = Tensor::from_slice(&batch.legal, (n, shape.actions), &device)?;
    let taken = Tensor::from_slice(&batch.taken, (n, shape.actions), &device)?;
    let returns = Tensor::from_slice(&batch.returns, n, &device)?;
    let (logits, values) = net.forward(&obs)?;
    let masked = (logits + ((&legal - 1.0)? * ILLEGAL_LOGIT)?)?;
    let max = masked.max_keepdim(1)?.detach();
    let shifted = masked.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(1)?.log()?;
    let log_policy = (shifted.broadcast_sub(&log_sum)? * &legal)?;
    let policy = (log_policy.exp()? * &legal)?;
    let advantage = (&returns - values.detach())?;
    let taken_log = (&log_policy * &taken)?.sum(1)?;
    let policy_loss = (advantage * taken_log)?.mean_all()?.neg()?;
    let value_loss = (values - &returns)?.sqr()?.mean_all()?;
    let entropy_now = (policy * &log_policy)?.sum(1)?.mean_all()?.neg()?;
    policy_loss + (value_loss * 0.5)? - (entropy_now * entropy)?
}

/// The learned network as a player: its most probable legal action (a
/// best response is deterministic; the entropy bonus has decayed to zero
/// by the end of training).
pub fn greedy_player(
    learned: &LearnedBestResponse,
) -> Result<crate::network_player::NetworkPlayer, crate::neural::NetworkError> {
    Ok(crate::network_player::NetworkPlayer::new(&learned.shape, &learned.params, false)?.greedy())
}

/// Games played at once when judging by sampling.
const JUDGED_AT_ONCE: usize = 256;

/// Time between progress lines while a best response learns or is
/// judged: against a slow frozen player (Daihinmin's Monte-Carlo ones)
/// either can take hours.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// `seat`'s return in each of `episodes` games with `player` in `seat`
/// and `frozen` in every other, a few hundred at a time: game `g` is dealt
/// the same cards from the same `seed` whoever plays the seat (duplicate
/// deals: two players' returns differ by their play more than by their
/// cards), and a game that reaches an all-in run-out is worth the
/// run-outs' expectation (all-in equity).
pub fn sample_returns(
    game: &dyn Game,
    seat: usize,
    player: &mut dyn Player,
    frozen: &mut dyn Player,
    episodes: usize,
    seed: u64,
) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    let mut returns = Vec::with_capacity(episodes);
    let mut progress = Throttle::new(PROGRESS_EVERY);
    // The first line after a whole interval, not at the first batch.
    progress.ready();
    while returns.len() < episodes {
        let count = JUDGED_AT_ONCE.min(episodes - returns.len());
        let mut states: Vec<Box<dyn State>> =
            (0..count).map(|_| game.new_initial_state()).collect();
        let first = returns.len();
        let mut deals: Vec<Deal> = (first..first + count)
            .map(|g| Deal::judged(seed, g))
            .collect();
        play_lockstep(
            &mut states,
            &mut deals,
            seat,
            frozen,
            &mut rng,
            |waiting, states, rng| {
                let legal: Vec<Vec<Action>> =
                    waiting.iter().map(|&g| states[g].legal_actions()).collect();
                let at: Vec<&dyn State> = waiting.iter().map(|&g| states[g].as_ref()).collect();
                let probs = player.policies_each(&at, &legal);
                Ok(legal
                    .iter()
                    .zip(probs)
                    .map(|(legal, probs)| {
                        inverse_cdf(rng.random::<f64>(), legal.iter().copied().zip(probs))
                    })
                    .collect())
            },
        )
        .expect("the players here decide without failing tensor computations");
        returns.extend(
            states
                .iter()
                .zip(&deals)
                .map(|(s, deal)| deal.value(s.as_ref(), seat)),
        );
        if progress.ready().is_some() {
            tracing::info!(seat, played = returns.len(), episodes, "judging");
        }
    }
    returns
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_games::bots::poker_baselines::Baseline;
    use rnad_games::GameSpec;

    /// Judged game `g` deals the same cards whoever plays: two callers
    /// see game `g` through to the same showdown from either seat (one
    /// seat's return the other's negated, game by game); a game all in
    /// before the flop is worth its run-outs' expectation, not one board's
    /// stack won or lost; and the same deals give the same returns again.
    #[test]
    fn judged_games_are_duplicate_deals_with_all_in_equity() {
        let game = "holdem".parse::<GameSpec>().unwrap().load();
        let returns = |seat: usize, player: Baseline| {
            let mut frozen = Baseline::Call;
            sample_returns(game.as_ref(), seat, &mut { player }, &mut frozen, 400, 9)
        };
        let (first, second) = (returns(0, Baseline::Call), returns(1, Baseline::Call));
        assert!(first.iter().any(|&v| v != 0.0));
        for (a, b) in first.iter().zip(&second) {
            assert_eq!(*a, -*b);
        }
        let shove = returns(0, Baseline::Raise);
        assert!(shove.iter().all(|v| v.abs() < 5000.0), "{shove:?}");
        assert_eq!(returns(0, Baseline::Raise), shove);
    }
}
