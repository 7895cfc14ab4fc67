//! One R-NaD learner step (docs/rnad-update.md, steps 1 to 8).
//!
//! Forward θ with gradient and θ_target, θ_reg, θ_reg' without; the entropy
//! schedule's α blends the two regularisation policies into `log_reg`;
//! v-trace per player (on θ_target's values) gives value targets and
//! q-values; the loss is the value loss plus the NeuRD loss; Adam moves θ;
//! θ_target follows by EMA; at a roll θ_reg' takes θ_reg and θ_reg takes the
//! averaging mode's blend of itself and θ_target.

use candle_core::{Device, Result, Tensor};
use rnad_common::config::{Config, RnadConfig};
use rnad_common::net::{legal_log_policy, legal_policy, NetShape, ParamSet, PolicyValueNet};
use rnad_common::trajectory::Trajectory;

use crate::adam::{Adam, AdamSettings};
use crate::averaging::next_reg;
use crate::batch::Batch;
use crate::learning_rate::LearningRateSchedule;
use crate::loss::{Loss, LossInputs};
use crate::schedule::EntropySchedule;
use crate::vtrace::{v_trace, VTraceInput};

/// Everything that changes from step to step (and goes into checkpoints).
#[derive(Clone, Debug)]
pub struct LearnerState {
    /// Learner steps taken.
    pub step: u64,
    /// Regularisation rolls so far (`n` of the averaging modes).
    pub rolls: u64,
    /// Decisions consumed.
    pub samples: u64,
    /// θ.
    pub online: ParamSet,
    /// θ_target.
    pub target: ParamSet,
    /// θ_reg.
    pub reg: ParamSet,
    /// θ_reg' (the regularisation before the last roll).
    pub reg_prev: ParamSet,
    /// Adam's moments for θ.
    pub adam: Adam,
}

impl LearnerState {
    /// The same state with every tensor on `device`.
    fn into_device(self, device: &Device) -> Result<LearnerState> {
        Ok(LearnerState {
            online: self.online.to_device(device)?,
            target: self.target.to_device(device)?,
            reg: self.reg.to_device(device)?,
            reg_prev: self.reg_prev.to_device(device)?,
            adam: self.adam.into_device(device)?,
            ..self
        })
    }
}

/// What one step did.
#[derive(Clone, Debug, PartialEq)]
pub struct StepStats {
    /// The value loss.
    pub loss_value: f64,
    /// The NeuRD loss.
    pub loss_neurd: f64,
    /// Decisions in the batch.
    pub decisions: usize,
    /// The schedule's α.
    pub alpha: f64,
    /// Fraction of the batch's legal logits that sit at or beyond NeuRD's
    /// threshold (centred |logit| ≥ β): pinned, they stop moving one way.
    pub pinned_logits: f64,
    /// How far the behaviour policies were from θ's on the batch.
    pub importance: ImportanceSpread,
}

/// The R-NaD learner.
#[derive(Debug)]
pub struct Learner {
    rnad: RnadConfig,
    shape: NetShape,
    players: usize,
    schedule: EntropySchedule,
    learning_rate: LearningRateSchedule,
    state: LearnerState,
    device: Device,
}

impl Learner {
    /// A fresh learner on `device`: all four parameter sets equal, drawn
    /// from the seed (on the CPU, so every device starts alike).
    pub fn new(config: &Config, device: &Device) -> Result<Learner> {
        let shape = NetShape::for_config(config);
        let params = ParamSet::init(&shape, config.seed)?;
        let adam = Adam::new(&params, AdamSettings::from_config(&config.rnad))?;
        let state = LearnerState {
            step: 0,
            rolls: 0,
            samples: 0,
            online: params.clone(),
            target: params.clone(),
            reg: params.clone(),
            reg_prev: params,
            adam,
        };
        Learner::from_state(config, state, device)
    }

    /// A learner continuing from `state` (a checkpoint's), moved to
    /// `device`.
    pub fn from_state(config: &Config, state: LearnerState, device: &Device) -> Result<Learner> {
        let r = &config.rnad;
        let state = state.into_device(device)?;
        Ok(Learner {
            rnad: r.clone(),
            shape: NetShape::for_config(config),
            players: config.game.load().num_players(),
            schedule: EntropySchedule::new(
                r.entropy_schedule_size.clone(),
                r.entropy_schedule_repeats.clone(),
            ),
            learning_rate: LearningRateSchedule::from_config(r),
            state,
            device: device.clone(),
        })
    }

    /// The current state.
    pub fn state(&self) -> &LearnerState {
        &self.state
    }

    /// The network shape.
    pub fn shape(&self) -> &NetShape {
        &self.shape
    }

    /// Adam's learning rate for the next step.
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate.at(self.state.step)
    }

    /// One R-NaD step on `trajectories`.
    pub fn step(&mut self, trajectories: &[Trajectory]) -> Result<StepStats> {
        let (grads, stats) = self.gradient(trajectories)?;
        let roll = self.schedule.at(self.state.step).roll;

        // 6–8. Adam, target EMA, regularisation roll.
        let s = &mut self.state;
        s.online = s
            .adam
            .step(&s.online, &grads, self.learning_rate.at(s.step))?;
        s.target = s.target.lerp(&s.online, self.rnad.gamma_target)?;
        if roll {
            s.rolls += 1;
            let reg = next_reg(
                self.rnad.averaging,
                self.rnad.gamma_averaging,
                s.rolls,
                &s.reg,
                &s.target,
            )?;
            s.reg_prev = std::mem::replace(&mut s.reg, reg);
        }
        s.step += 1;
        s.samples += stats.decisions as u64;
        Ok(stats)
    }

    /// Steps 1 to 5 on `trajectories`: θ's gradient of the loss (in
    /// [`rnad_common::net::NetShape::param_names`] order) and what the step
    /// measured.
    fn gradient(&self, trajectories: &[Trajectory]) -> Result<(Vec<Tensor>, StepStats)> {
        let batch = Batch::new(trajectories, self.players);
        let n = batch.rows;
        let actions = self.shape.actions;
        let point = self.schedule.at(self.state.step);
        let device = self.device.clone();
        // Networks run once per distinct information state; rows gather.
        let (distinct, index) = batch.distinct_obs();
        let distinct_rows = distinct.len() / self.shape.input;
        let obs = Tensor::from_vec(distinct, (distinct_rows, self.shape.input), &device)?;
        let index_t = Tensor::from_slice(&index, n, &device)?;
        let gather = |(logits, values): (Tensor, Tensor)| -> Result<(Tensor, Tensor)> {
            Ok((
                logits.index_select(&index_t, 0)?,
                values.index_select(&index_t, 0)?,
            ))
        };
        let forward = |params: &ParamSet| {
            gather(PolicyValueNet::new(&self.shape, params.tensors()).forward(&obs)?)
        };
        let mask = Tensor::from_slice(&batch.legal, (n, actions), &device)?;

        // 1. Forward passes; θ's keeps what its gradient needs.
        let online = PolicyValueNet::new(&self.shape, self.state.online.tensors());
        let recorded = online.forward_recorded(&obs)?;
        let (logits, values) = gather((recorded.logits.clone(), recorded.values.clone()))?;
        let pi = legal_policy(&logits, &mask)?;
        let log_pi = legal_log_policy(&logits, &mask)?;
        let (_, target_values) = forward(&self.state.target)?;
        let log_pi_reg = legal_log_policy(&forward(&self.state.reg)?.0, &mask)?;

        // 2. Entropy schedule (θ_reg' has weight 0 once α reaches 1).
        let blended = if point.alpha < 1.0 {
            let log_pi_reg_prev = legal_log_policy(&forward(&self.state.reg_prev)?.0, &mask)?;
            ((log_pi_reg * point.alpha)? + (log_pi_reg_prev * (1.0 - point.alpha))?)?
        } else {
            log_pi_reg
        };
        let log_reg = (&log_pi - blended)?;

        // 3. V-trace per player.
        let pi_v = pi.flatten_all()?.to_vec1::<f32>()?;
        let log_reg_v = log_reg.flatten_all()?.to_vec1::<f32>()?;
        let value_v = target_values.to_vec1::<f32>()?;
        let (value_target, q) = self.v_trace_targets(&batch, &pi_v, &log_reg_v, &value_v);
        let weights = player_weights(&batch, self.players);

        // 4–5. The value and NeuRD losses, and θ's gradient.
        let logits_v = logits.flatten_all()?.to_vec1::<f32>()?;
        let coefficients = neurd_coefficients(
            &NeurdInputs {
                logits: &logits_v,
                legal: &batch.legal,
                policy: &pi_v,
                q: &q,
                weights: &weights,
                actions,
            },
            self.rnad.beta_neurd as f32,
            self.rnad.clip_neurd as f32,
        );
        let pinned_logits = pinned_fraction(
            &logits_v,
            &batch.legal,
            actions,
            self.rnad.beta_neurd as f32,
        );
        let importance = importance_spread(&pi_v, &batch.action, &batch.behaviour, actions);
        let loss = Loss::new(&LossInputs {
            values: &values.to_vec1::<f32>()?,
            value_targets: &value_target,
            weights: &weights,
            logits: &logits_v,
            legal: &batch.legal,
            coefficients: &coefficients,
            actions,
            index: &index,
            distinct: distinct_rows,
        });
        let d_logits = Tensor::from_slice(&loss.d_logits, (distinct_rows, actions), &device)?;
        let d_values = Tensor::from_slice(&loss.d_values, distinct_rows, &device)?;
        let grads = online.parameter_gradients(&recorded, &d_logits, &d_values)?;
        let stats = StepStats {
            loss_value: loss.value,
            loss_neurd: loss.neurd,
            decisions: n,
            alpha: point.alpha,
            pinned_logits,
            importance,
        };
        Ok((grads, stats))
    }

    /// Value targets and q-values of every row, each from the v-trace of
    /// the row's acting player over the row's trajectory.
    fn v_trace_targets(
        &self,
        batch: &Batch,
        pi: &[f32],
        log_reg: &[f32],
        value: &[f32],
    ) -> (Vec<f32>, Vec<f32>) {
        let actions = self.shape.actions;
        let mut value_target = vec![0.0f32; batch.rows];
        let mut q = vec![0.0f32; batch.rows * actions];
        let valid = vec![true; batch.rows];
        for rows in batch.spans.iter().cloned() {
            let cells = rows.start * actions..rows.end * actions;
            for player in 0..self.players {
                let input = VTraceInput {
                    valid: &valid[rows.clone()],
                    player: &batch.player[rows.clone()],
                    action: &batch.action[rows.clone()],
                    behaviour: &batch.behaviour[rows.clone()],
                    reward: &batch.rewards_of(player)[rows.clone()],
                    value: &value[rows.clone()],
                    policy: &pi[cells.clone()],
                    log_reg: &log_reg[cells.clone()],
                    num_actions: actions,
                };
                v_trace(
                    &input,
                    player as u8,
                    self.rnad.eta,
                    &mut value_target[rows.clone()],
                    &mut q[cells.clone()],
                );
            }
        }
        (value_target, q)
    }
}

/// Per-row loss weights: each player's rows are averaged separately (weight
/// 1 / that player's row count), then the players' losses are summed.
fn player_weights(batch: &Batch, players: usize) -> Vec<f32> {
    let mut per_player = vec![0usize; players];
    for &p in &batch.player {
        per_player[usize::from(p)] += 1;
    }
    batch
        .player
        .iter()
        .map(|&p| 1.0 / per_player[usize::from(p)] as f32)
        .collect()
}

/// What the NeuRD force needs per row (all row-major, `A` per row).
pub struct NeurdInputs<'a> {
    /// θ's logits (no gradient).
    pub logits: &'a [f32],
    /// Legal mask.
    pub legal: &'a [f32],
    /// θ's legal policy.
    pub policy: &'a [f32],
    /// The acting player's q-values from v-trace.
    pub q: &'a [f32],
    /// Per-row weight (1 / number of the acting player's rows).
    pub weights: &'a [f32],
    /// Actions per row.
    pub actions: usize,
}

/// The constant each centred logit is multiplied by in the NeuRD loss
/// (which is minus the sum of logit × coefficient): the advantage
/// `q − Σ π q`, clipped to ±clip, kept only where the threshold lets the
/// logit move that way (down while above −β, up while below β), on legal
/// actions, times the row weight.
pub fn neurd_coefficients(inputs: &NeurdInputs, beta: f32, clip: f32) -> Vec<f32> {
    let a = inputs.actions;
    let mut out = vec![0.0f32; inputs.weights.len() * a];
    for (row, &weight) in inputs.weights.iter().enumerate() {
        let cells = row * a..(row + 1) * a;
        let legal = &inputs.legal[cells.clone()];
        let logits = &inputs.logits[cells.clone()];
        let q = &inputs.q[cells.clone()];
        let baseline: f32 = inputs.policy[cells.clone()]
            .iter()
            .zip(q)
            .map(|(p, q)| p * q)
            .sum();
        let mean = legal_mean(logits, legal);
        for k in 0..a {
            if legal[k] == 0.0 {
                continue;
            }
            let advantage = (q[k] - baseline).clamp(-clip, clip);
            let centred = logits[k] - mean;
            let allowed =
                (advantage < 0.0 && centred > -beta) || (advantage > 0.0 && centred < beta);
            if allowed {
                out[row * a + k] = advantage * weight;
            }
        }
    }
    out
}

/// The mean of one row's legal logits (`legal` is its 0/1 mask): the
/// centre NeuRD measures logits from.
pub(crate) fn legal_mean(logits: &[f32], legal: &[f32]) -> f32 {
    let count: f32 = legal.iter().sum();
    logits.iter().zip(legal).map(|(l, m)| l * m).sum::<f32>() / count
}

/// The fraction of legal logits whose value centred on the row's legal
/// mean is at least `beta` in size: where the NeuRD threshold holds them.
pub fn pinned_fraction(logits: &[f32], legal: &[f32], actions: usize, beta: f32) -> f64 {
    let (mut pinned, mut total) = (0usize, 0usize);
    for (logits, legal) in logits.chunks(actions).zip(legal.chunks(actions)) {
        if legal.iter().all(|&m| m == 0.0) {
            continue;
        }
        let mean = legal_mean(logits, legal);
        for (l, &m) in logits.iter().zip(legal) {
            if m != 0.0 {
                total += 1;
                pinned += usize::from((l - mean).abs() >= beta);
            }
        }
    }
    if total == 0 {
        0.0
    } else {
        pinned as f64 / total as f64
    }
}

/// The importance weights `ρ = π(a_t)/μ(a_t)` of a batch's taken actions
/// (θ's probability over the behaviour policy's): v-trace multiplies
/// returns by them, so stale or far-off behaviour shows here first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImportanceSpread {
    /// The largest ρ.
    pub max: f64,
    /// The mean of |log ρ| (0 when θ plays exactly the behaviour policy).
    pub mean_abs_log: f64,
}

/// The spread of the importance weights of `action` (one per row, policy
/// rows of `actions` entries) under behaviour probabilities `behaviour`.
pub fn importance_spread(
    policy: &[f32],
    action: &[u8],
    behaviour: &[f32],
    actions: usize,
) -> ImportanceSpread {
    let mut spread = ImportanceSpread::default();
    for (row, (&a, &mu)) in action.iter().zip(behaviour).enumerate() {
        // θ's probability can underflow to 0 in f32; the floor keeps the
        // logarithm finite (a JSON log line cannot hold infinity).
        let rho = (f64::from(policy[row * actions + usize::from(a)]) / f64::from(mu))
            .max(f64::MIN_POSITIVE);
        spread.max = spread.max.max(rho);
        spread.mean_abs_log += rho.ln().abs();
    }
    spread.mean_abs_log /= action.len().max(1) as f64;
    spread
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fresh learners for `first` and `second` (equal parameters, as both
    /// draw them from the seed) and 64 games played by the first's policy
    /// with random stream `stream`, to step both on the same batch.
    fn two_learners_and_a_batch(
        first: &Config,
        second: &Config,
        stream: u64,
    ) -> (Learner, Learner, Vec<Trajectory>) {
        use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
        let a = Learner::new(first, &Device::Cpu).unwrap();
        let b = Learner::new(second, &Device::Cpu).unwrap();
        let snapshot = PolicySnapshot {
            version: 0,
            params: a.state().online.clone(),
        };
        let game = first.game.load();
        let mut play = SelfPlay::new(game, NetShape::for_config(first), 8, RngStream::of(stream));
        let batch = play.play_fresh(&snapshot, 64).unwrap();
        (a, b, batch)
    }

    /// Adam's step is linear in the rate, so from equal states on equal
    /// batches a learner whose schedule has decayed to a quarter moves θ by
    /// exactly a quarter of a constant-rate learner's move.
    #[test]
    fn updates_follow_the_learning_rate_schedule() {
        let constant = Config::from_toml(include_str!("../../configs/kuhn.toml"), "kuhn").unwrap();
        let mut decaying = constant.clone();
        decaying.rnad.learning_rate_decay_steps = 1;
        decaying.rnad.learning_rate_final_fraction = 0.25;
        let (mut a, mut b, batch) = two_learners_and_a_batch(&constant, &decaying, 7);
        assert_eq!(b.learning_rate(), constant.rnad.learning_rate);
        a.step(&batch).unwrap();
        b.step(&batch).unwrap();
        let after_one = a.state().online.to_vec().unwrap();
        assert_eq!(b.state().online.to_vec().unwrap(), after_one);
        assert_eq!(b.learning_rate(), constant.rnad.learning_rate * 0.25);
        a.step(&batch).unwrap();
        b.step(&batch).unwrap();
        let (full, quarter) = (
            a.state().online.to_vec().unwrap(),
            b.state().online.to_vec().unwrap(),
        );
        let mut moved = 0;
        for ((start, full), quarter) in after_one.iter().zip(&full).zip(&quarter) {
            let (full_move, quarter_move) = (full - start, quarter - start);
            assert!(
                (quarter_move - 0.25 * full_move).abs() <= 1e-7 + 1e-3 * full_move.abs(),
                "{quarter_move} is not a quarter of {full_move}"
            );
            moved += usize::from(full_move != 0.0);
        }
        assert!(moved > after_one.len() / 2, "only {moved} weights moved");
    }

    #[test]
    fn the_configs_weight_decay_shrinks_the_weights_by_lr_times_lambda() {
        let plain = Config::from_toml(include_str!("../../configs/kuhn.toml"), "kuhn").unwrap();
        let mut decaying = plain.clone();
        decaying.rnad.weight_decay = 10.0;
        let (mut a, mut b, batch) = two_learners_and_a_batch(&plain, &decaying, 3);
        let start = a.state().online.to_vec().unwrap();
        a.step(&batch).unwrap();
        b.step(&batch).unwrap();
        // Same parameters, same batch, same Adam update: the two differ by
        // the decay alone, −lr·λ·θ.
        let shrink = plain.rnad.learning_rate * 10.0;
        let (without, with) = (
            a.state().online.to_vec().unwrap(),
            b.state().online.to_vec().unwrap(),
        );
        for ((theta, without), with) in start.iter().zip(&without).zip(&with) {
            let expected = -shrink * f64::from(*theta);
            let got = f64::from(with - without);
            assert!(
                (got - expected).abs() <= 1e-7 + 1e-3 * expected.abs(),
                "decay moved {theta} by {got}, not {expected}"
            );
        }
        // A checkpoint of the plain run, resumed with the decay, decays.
        let dir = std::env::temp_dir().join(format!("rnad-weight-decay-{}", std::process::id()));
        let saved = crate::checkpoint::save(
            &dir,
            a.state(),
            &plain,
            crate::checkpoint::RunClock::default(),
            None,
            1,
        )
        .unwrap();
        let resumed = crate::checkpoint::load(&saved, &decaying).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(resumed.state.adam.settings.weight_decay, 10.0);
        assert_eq!(a.state().adam.settings.weight_decay, 0.0);
    }

    /// θ's gradient of the loss as candle's autograd takes it, built the
    /// way the learner built it before the closed form: θ's parameters as
    /// variables, the rows gathered from distinct states, the value loss
    /// and the NeuRD loss as tensors, then `backward`.
    fn autograd_gradient(learner: &Learner, trajectories: &[Trajectory]) -> Vec<Vec<f32>> {
        use candle_core::Var;
        let cpu = &Device::Cpu;
        let batch = Batch::new(trajectories, learner.players);
        let (n, actions) = (batch.rows, learner.shape.actions);
        let point = learner.schedule.at(learner.state.step);
        let (distinct, index) = batch.distinct_obs();
        let obs = Tensor::from_vec(
            distinct.clone(),
            (distinct.len() / learner.shape.input, learner.shape.input),
            cpu,
        )
        .unwrap();
        let index = Tensor::from_vec(index, n, cpu).unwrap();
        let forward = |params: &[Tensor]| {
            let (logits, values) = PolicyValueNet::new(&learner.shape, params)
                .forward(&obs)
                .unwrap();
            (
                logits.index_select(&index, 0).unwrap(),
                values.index_select(&index, 0).unwrap(),
            )
        };
        let mask = Tensor::from_slice(&batch.legal, (n, actions), cpu).unwrap();
        let vars: Vec<Var> = learner
            .state
            .online
            .tensors()
            .iter()
            .map(|t| Var::from_tensor(t).unwrap())
            .collect();
        let tracked: Vec<Tensor> = vars.iter().map(|v| v.as_tensor().clone()).collect();
        let (logits, values) = forward(&tracked);
        let detached = logits.detach();
        let pi = legal_policy(&detached, &mask).unwrap();
        let log_pi = legal_log_policy(&detached, &mask).unwrap();
        let (_, target_values) = forward(learner.state.target.tensors());
        let log_reg_now = legal_log_policy(&forward(learner.state.reg.tensors()).0, &mask).unwrap();
        let log_reg_prev =
            legal_log_policy(&forward(learner.state.reg_prev.tensors()).0, &mask).unwrap();
        let blended = ((log_reg_now * point.alpha).unwrap()
            + (log_reg_prev * (1.0 - point.alpha)).unwrap())
        .unwrap();
        let log_reg = (&log_pi - blended).unwrap();
        let pi_v = pi.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let (value_target, q) = learner.v_trace_targets(
            &batch,
            &pi_v,
            &log_reg.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            &target_values.to_vec1::<f32>().unwrap(),
        );
        let weights = player_weights(&batch, learner.players);
        let weights_t = Tensor::from_slice(&weights, n, cpu).unwrap();
        let targets = Tensor::from_slice(&value_target, n, cpu).unwrap();
        let loss_value = ((values - targets).unwrap().sqr().unwrap() * &weights_t)
            .unwrap()
            .sum_all()
            .unwrap();
        let logits_v = detached.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let inputs = NeurdInputs {
            logits: &logits_v,
            legal: &batch.legal,
            policy: &pi_v,
            q: &q,
            weights: &weights,
            actions,
        };
        let c = neurd_coefficients(
            &inputs,
            learner.rnad.beta_neurd as f32,
            learner.rnad.clip_neurd as f32,
        );
        let c = Tensor::from_slice(&c, (n, actions), cpu).unwrap();
        let mean = (&logits * &mask)
            .unwrap()
            .sum_keepdim(1)
            .unwrap()
            .broadcast_div(&mask.sum_keepdim(1).unwrap())
            .unwrap();
        let centred = logits.broadcast_sub(&mean).unwrap();
        let loss_neurd = (centred * c).unwrap().sum_all().unwrap().neg().unwrap();
        let grads = (&loss_value + &loss_neurd).unwrap().backward().unwrap();
        vars.iter()
            .map(|v| {
                grads
                    .get(v.as_tensor())
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap()
            })
            .collect()
    }

    /// The learner's closed-form gradient, on a real batch of Leduc games
    /// while θ_reg' still has weight (α < 1), is what autograd takes.
    #[test]
    fn the_closed_form_gradient_is_autograds() {
        let config = Config::from_toml(include_str!("../../configs/leduc.toml"), "leduc").unwrap();
        let (fresh, _, batch) = two_learners_and_a_batch(&config, &config, 9);
        // θ_target, θ_reg and θ_reg' each different from θ, so that a
        // network's output used in another's place would show.
        let mut state = fresh.state().clone();
        state.target = ParamSet::init(&fresh.shape, 101).unwrap();
        state.reg = ParamSet::init(&fresh.shape, 102).unwrap();
        state.reg_prev = ParamSet::init(&fresh.shape, 103).unwrap();
        let learner = Learner::from_state(&config, state, &Device::Cpu).unwrap();
        assert!(learner.schedule.at(learner.state.step).alpha < 1.0);
        let (ours, stats) = learner.gradient(&batch).unwrap();
        assert!(stats.decisions > 100);
        let expected = autograd_gradient(&learner, &batch);
        assert_eq!(ours.len(), expected.len());
        for ((ours, expected), (name, _)) in
            ours.iter().zip(&expected).zip(learner.shape.param_names())
        {
            let ours = ours.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            let scale = expected.iter().fold(0f32, |m, g| m.max(g.abs()));
            assert!(scale > 1e-4, "{name}: no gradient");
            for (o, e) in ours.iter().zip(expected) {
                assert!(
                    (o - e).abs() <= 1e-4 * scale + 1e-4 * e.abs(),
                    "{name}: {o} vs {e}"
                );
            }
        }
    }

    #[test]
    fn importance_spread_reads_the_taken_actions_ratio() {
        // Row 0 took action 1: π 0.5 over μ 0.25 → ρ = 2. Row 1 took
        // action 0: π 0.2 over μ 0.4 → ρ = 0.5. |log ρ| = ln 2 for both.
        let policy = [0.5, 0.5, 0.2, 0.8];
        let spread = importance_spread(&policy, &[1, 0], &[0.25, 0.4], 2);
        assert!((spread.max - 2.0).abs() < 1e-6, "{spread:?}");
        assert!((spread.mean_abs_log - 2f64.ln()).abs() < 1e-6, "{spread:?}");
        // On-policy: every ρ is 1.
        let on_policy = importance_spread(&policy, &[1, 0], &[0.5, 0.2], 2);
        assert!((on_policy.max - 1.0).abs() < 1e-6);
        assert!(on_policy.mean_abs_log < 1e-6);
        // θ's probability underflowed to 0: the spread stays finite.
        let underflow = importance_spread(&[0.0, 1.0], &[0], &[0.5], 2);
        assert!(underflow.mean_abs_log.is_finite() && underflow.mean_abs_log > 700.0);
    }

    #[test]
    fn pinned_logits_are_counted_on_legal_actions_against_the_legal_mean() {
        // Row 0: legal [1, 1, 1], logits [3, -1, -2], mean 0, β = 2: 3 and
        // -2 pinned. Row 1: legal [1, 0, 1], logits [1, 100, -1], mean 0:
        // neither legal logit reaches 2; the illegal 100 is not counted.
        let logits = [3.0, -1.0, -2.0, 1.0, 100.0, -1.0];
        let legal = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
        assert_eq!(pinned_fraction(&logits, &legal, 3, 2.0), 2.0 / 5.0);
        assert_eq!(pinned_fraction(&logits, &legal, 3, 100.0), 0.0);
    }

    /// The NeuRD loss −Σ y'·c has gradient −c with respect to the centred
    /// logits: zero where the threshold blocks, and descending it raises a
    /// logit with positive advantage and lowers one with negative advantage.
    #[test]
    fn neurd_force_follows_the_advantage_and_stops_at_the_threshold() {
        // Row 0: logits centred [3, −1, −2] (mean 0), β = 2: action 0 is
        // above β (cannot rise), action 2 is at −β (cannot fall).
        // π = [0.5, 0.25, 0.25], q = [4, 0, −4] → baseline 1, adv [3, −1, −5].
        // Row 1: same q, logits all 0: every action may move.
        let inputs = NeurdInputs {
            logits: &[3.0, -1.0, -2.0, 0.0, 0.0, 0.0],
            legal: &[1.0; 6],
            policy: &[0.5, 0.25, 0.25, 0.5, 0.25, 0.25],
            q: &[4.0, 0.0, -4.0, 4.0, 0.0, -4.0],
            weights: &[1.0, 0.5],
            actions: 3,
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(&c[..3], &[0.0, -1.0, 0.0]);
        assert_eq!(&c[3..], &[1.5, -0.5, -2.5]);
        // Clipping the advantage.
        let clipped = neurd_coefficients(&inputs, 2.0, 2.0);
        assert_eq!(&clipped[3..], &[1.0, -0.5, -1.0]);
    }

    #[test]
    fn neurd_ignores_illegal_actions_and_centres_on_legal_logits() {
        // Legal [1, 0, 1]; logits [1, 100, −1]: legal mean 0, centred ±1.
        let inputs = NeurdInputs {
            logits: &[1.0, 100.0, -1.0],
            legal: &[1.0, 0.0, 1.0],
            policy: &[0.5, 0.0, 0.5],
            q: &[1.0, 50.0, -1.0],
            weights: &[1.0],
            actions: 3,
        };
        let c = neurd_coefficients(&inputs, 2.0, 1e4);
        assert_eq!(c, vec![1.0, 0.0, -1.0]);
    }
}
