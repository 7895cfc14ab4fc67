//! One R-NaD learner step (docs/rnad-update.md, steps 1 to 8).
//!
//! Forward θ with gradient and θ_target, θ_reg, θ_reg' without; the entropy
//! schedule's α blends the two regularisation policies into `log_reg`;
//! v-trace per player (on θ_target's values) gives value targets and
//! q-values; the loss is the value loss plus the NeuRD loss; Adam moves θ;
//! θ_target follows by EMA; at a roll θ_reg' takes θ_reg and θ_reg takes the
//! averaging mode's blend of itself and θ_target. A step whose loss,
//! gradients, new parameters or new outputs are not finite is not applied
//! ([`crate::guard`]).

use candle_core::{Device, Result, Tensor};
use rnad_net::{
    first_nonfinite, CellPolicy, NetInput, NetShape, ParamSet, PolicyValueNet, PublishedSets,
    RecordedForward,
};
use rnad_run::config::RnadConfig;
use rnad_run::ResolvedRun;
use rnad_wire::trajectory::Trajectory;

use crate::adam::{Adam, AdamSettings};
use crate::average_network::{AverageNetwork, AverageTrainer, BatchStates};
use crate::averaging::next_reg;
use crate::batch::Batch;
use crate::guard::NonFinite;
use crate::importance::{importance_spread, ImportanceSpread};
use crate::learning_rate::LearningRateSchedule;
use crate::loss::{Loss, LossInputs};
use crate::neurd::{neurd_coefficients, pinned_fraction, NeurdInputs};
use crate::vtrace::{v_trace, VTraceInput};
use rnad_run::schedule::EntropySchedule;

/// Everything that changes from step to step (and goes into checkpoints).
#[derive(Clone, Debug)]
pub struct LearnerState {
    /// Learner steps taken.
    pub step: u64,
    /// Regularisation rolls so far (`n` of the averaging modes).
    pub rolls: u64,
    /// Decisions consumed.
    pub decisions: u64,
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
    /// What the learning rate schedule is multiplied by: 1, times the
    /// roll-back factor for every roll-back of a diverging run.
    pub learning_rate_scale: f64,
    /// Roll-backs since the learner last trained through a checkpoint
    /// interval (the divergence guard stops the run at
    /// `rnad.max_rollbacks`).
    pub rollbacks: u64,
    /// The averaged network, where the run trains one
    /// (`average_network.reservoir_size` > 0).
    pub average_network: Option<AverageNetwork>,
}

impl LearnerState {
    /// The sets the learner publishes: θ, θ_target and θ_reg.
    pub fn published(&self) -> PublishedSets<'_> {
        PublishedSets {
            online: &self.online,
            target: &self.target,
            reg: &self.reg,
        }
    }

    /// The same state with every tensor on `device`.
    fn into_device(self, device: &Device) -> Result<LearnerState> {
        Ok(LearnerState {
            online: self.online.to_device(device)?,
            target: self.target.to_device(device)?,
            reg: self.reg.to_device(device)?,
            reg_prev: self.reg_prev.to_device(device)?,
            adam: self.adam.into_device(device)?,
            average_network: self
                .average_network
                .map(|a| a.into_device(device))
                .transpose()?,
            ..self
        })
    }
}

/// Whether a step was applied.
#[derive(Clone, Debug, PartialEq)]
pub enum Stepped {
    /// The state moved on.
    Applied(StepStats),
    /// Something was not finite; the state is as it was.
    Skipped(NonFinite),
}

/// Observations of a batch whose outputs the guard checks under the new
/// parameters: a few, since a network that overflows does so everywhere.
const PROBED_STATES: usize = 16;

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
    /// The averaged network's cross-entropy on the states it trained on
    /// this step (none where the run trains none, or it did not train).
    pub average_loss: Option<f64>,
}

/// The R-NaD learner.
#[derive(Debug)]
pub struct Learner {
    rnad: RnadConfig,
    /// `rnad.eta` in reward units (`ResolvedRun::eta_in_rewards`).
    eta: f64,
    shape: NetShape,
    players: usize,
    schedule: EntropySchedule,
    learning_rate: LearningRateSchedule,
    state: LearnerState,
    device: Device,
    average: Option<AverageTrainer>,
}

impl Learner {
    /// A fresh learner on `device`: all four parameter sets equal, drawn
    /// from the seed (on the CPU, so every device starts alike).
    pub fn new(run: &ResolvedRun, device: &Device) -> Result<Learner> {
        let config = run.config();
        let params = ParamSet::init(run.shape(), config.seed)?;
        let adam = Adam::new(&params, AdamSettings::from_config(&config.rnad))?;
        let state = LearnerState {
            step: 0,
            rolls: 0,
            decisions: 0,
            online: params.clone(),
            target: params.clone(),
            reg: params.clone(),
            reg_prev: params,
            adam,
            learning_rate_scale: 1.0,
            rollbacks: 0,
            average_network: None,
        };
        Learner::from_state(run, state, device)
    }

    /// A learner continuing from `state` (a checkpoint's), moved to
    /// `device`; a run that trains an averaged network and finds none in
    /// `state` starts one.
    pub fn from_state(
        run: &ResolvedRun,
        mut state: LearnerState,
        device: &Device,
    ) -> Result<Learner> {
        let r = &run.config().rnad;
        let average = AverageTrainer::for_run(run, state.step);
        state.average_network = match (&average, state.average_network.take()) {
            (None, _) => None,
            (Some(_), Some(kept)) => Some(kept),
            (Some(_), None) => {
                if state.step > 0 {
                    tracing::warn!(
                        step = state.step,
                        "the checkpoint holds no averaged network: one starts now"
                    );
                }
                Some(AverageNetwork::initial(run)?)
            }
        };
        let state = state.into_device(device)?;
        let eta = run.eta_in_rewards();
        tracing::info!(eta, "entropy regularisation strength in reward units");
        Ok(Learner {
            rnad: r.clone(),
            eta,
            shape: run.shape().clone(),
            players: run.game().num_players(),
            schedule: EntropySchedule::new(
                r.entropy_schedule_size.clone(),
                r.entropy_schedule_repeats.clone(),
            ),
            learning_rate: LearningRateSchedule::from_config(r),
            state,
            device: device.clone(),
            average,
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

    /// The learner trained through a checkpoint interval: its roll-backs
    /// count afresh.
    pub fn recovered(&mut self) {
        self.state.rollbacks = 0;
    }

    /// The device the learner computes on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Adam's learning rate for the next step.
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate.at(self.state.step) * self.state.learning_rate_scale
    }

    /// One R-NaD step on `trajectories`, applied only where everything it
    /// computes is finite.
    pub fn step(&mut self, trajectories: &[Trajectory]) -> Result<Stepped> {
        let (grads, mut stats, probe, visited) = self.gradient(trajectories)?;
        let s = &self.state;
        let skipped = |what: String| Ok(Stepped::Skipped(NonFinite { step: s.step, what }));
        for (loss, name) in [
            (stats.loss_value, "the value loss"),
            (stats.loss_neurd, "the NeuRD loss"),
        ] {
            if !loss.is_finite() {
                return skipped(name.into());
            }
        }
        // Names are listed only for a refusal: listing builds the network.
        let name = |i: usize| self.shape.param_names()[i].0.clone();
        if let Some(i) = first_nonfinite(&grads)? {
            return skipped(format!("θ's gradient of {}", name(i)));
        }

        // 6–8. Adam, target EMA, regularisation roll, on copies.
        let roll = self.schedule.at(s.step).roll;
        let mut adam = s.adam.clone();
        let online = adam.step(&s.online, &grads, self.learning_rate())?;
        let target = s.target.lerp(&online, self.rnad.gamma_target)?;
        let (rolls, reg, reg_prev) = if roll {
            let reg = next_reg(
                self.rnad.averaging,
                self.rnad.gamma_averaging,
                s.rolls + 1,
                &s.reg,
                &target,
            )?;
            (s.rolls + 1, reg, s.reg.clone())
        } else {
            (s.rolls, s.reg.clone(), s.reg_prev.clone())
        };
        for (set, label) in [
            (online.tensors(), "θ's"),
            (target.tensors(), "θ_target's"),
            (reg.tensors(), "θ_reg's"),
            (adam.nu.as_slice(), "Adam's second moment of"),
        ] {
            if let Some(i) = first_nonfinite(set)? {
                return skipped(format!("{label} {} after the update", name(i)));
            }
        }
        let (logits, values) =
            PolicyValueNet::new(&self.shape, online.tensors())?.forward(&probe)?;
        if let Some(i) = first_nonfinite(&[logits, values])? {
            let output = ["logits", "values"][i];
            return skipped(format!(
                "θ's {output} on the batch's states after the update"
            ));
        }
        let average_network = match (self.average.as_mut(), &s.average_network, visited) {
            (Some(trainer), Some(network), Some(visited)) => {
                trainer.offer(s.step, &visited);
                match trainer.train(network, &self.device)? {
                    Some((trained, loss)) => {
                        stats.average_loss = Some(loss);
                        Some(trained)
                    }
                    None => Some(network.clone()),
                }
            }
            (_, network, _) => network.clone(),
        };
        self.state = LearnerState {
            step: s.step + 1,
            rolls,
            decisions: s.decisions + stats.decisions as u64,
            online,
            target,
            reg,
            reg_prev,
            adam,
            learning_rate_scale: s.learning_rate_scale,
            rollbacks: s.rollbacks,
            average_network,
        };
        Ok(Stepped::Applied(stats))
    }

    /// Steps 1 to 5 on `trajectories`: θ's gradient of the loss (in
    /// [`rnad_net::NetShape::param_names`] order), what the step
    /// measured, a few of the batch's observations for the guard and,
    /// where the run trains an averaged network, the batch's states with
    /// θ_target's policy there.
    fn gradient(
        &self,
        trajectories: &[Trajectory],
    ) -> Result<(Vec<Tensor>, StepStats, Tensor, Option<BatchStates>)> {
        let mut batch = Batch::new(trajectories, self.players);
        batch.scale_rewards(self.rnad.reward_scale as f32);
        let n = batch.rows;
        let point = self.schedule.at(self.state.step);
        let device = self.device.clone();
        // Networks run once per distinct information state, at the rows'
        // legal cells; rows gather their values.
        let distinct = std::mem::take(&mut batch.distinct_obs);
        let index = std::mem::take(&mut batch.obs_index);
        let distinct_rows = distinct.len() / self.shape.input;
        let kept_obs = self.average.is_some().then(|| distinct.clone());
        let weighs_own_reach = self
            .average
            .as_ref()
            .is_some_and(AverageTrainer::weighs_own_reach);
        let obs = NetInput::from_rows(distinct, distinct_rows, self.shape.input, &device)?;
        let index_t = Tensor::from_slice(&index, n, &device)?;
        let cells = batch.cells.on(&device, self.shape.actions)?;
        let offsets = batch.cells.offsets();
        let row_values = |values: &Tensor| values.index_select(&index_t, 0)?.to_vec1::<f32>();
        let forward = |params: &ParamSet| -> Result<(Vec<f32>, Tensor)> {
            let net = PolicyValueNet::new(&self.shape, params.tensors())?;
            let (logits, values) = net.forward_cells(&obs, &cells)?;
            Ok((logits.to_vec1::<f32>()?, values))
        };

        // 1. Forward passes; θ's keeps what its gradient needs.
        let recorded =
            RecordedForward::record(&self.shape, self.state.online.tensors(), &obs, &cells)?;
        let logits = recorded.logits.to_vec1::<f32>()?;
        let online = CellPolicy::new(&logits, offsets);
        let (target_logits, target_values) = forward(&self.state.target)?;
        let target_policy = kept_obs
            .is_some()
            .then(|| CellPolicy::new(&target_logits, offsets).policy);
        let log_pi_reg = CellPolicy::new(&forward(&self.state.reg)?.0, offsets).log_policy;

        // 2. Entropy schedule (θ_reg' has weight 0 once α reaches 1).
        let blended = if point.alpha < 1.0 {
            let log_pi_reg_prev =
                CellPolicy::new(&forward(&self.state.reg_prev)?.0, offsets).log_policy;
            let alpha = point.alpha as f32;
            log_pi_reg
                .iter()
                .zip(&log_pi_reg_prev)
                .map(|(now, before)| now * alpha + before * (1.0 - alpha))
                .collect()
        } else {
            log_pi_reg
        };
        let log_reg: Vec<f32> = online
            .log_policy
            .iter()
            .zip(&blended)
            .map(|(log_pi, reg)| log_pi - reg)
            .collect();

        // 3. V-trace per player.
        let value_v = row_values(&target_values)?;
        let (value_target, q) = self.v_trace_targets(&batch, &online.policy, &log_reg, &value_v);
        let weights = player_weights(&batch, self.players);

        // 4–5. The value and NeuRD losses, and θ's gradient.
        let beta = self.rnad.beta_neurd as f32;
        let coefficients = neurd_coefficients(
            &NeurdInputs {
                logits: &logits,
                policy: &online.policy,
                q: &q,
                weights: &weights,
                cells: offsets,
            },
            beta,
            self.rnad.clip_neurd as f32,
        );
        let pinned_logits = pinned_fraction(&logits, offsets, beta);
        let importance = importance_spread(&online.policy, &batch.taken, &batch.behaviour);
        let loss = Loss::new(&LossInputs {
            values: &row_values(&recorded.values)?,
            value_targets: &value_target,
            weights: &weights,
            logits: &logits,
            coefficients: &coefficients,
            cells: offsets,
            index: &index,
            distinct: distinct_rows,
        });
        let d_logits = Tensor::from_slice(&loss.d_logits, loss.d_logits.len(), &device)?;
        let d_values = Tensor::from_slice(&loss.d_values, distinct_rows, &device)?;
        let grads = recorded.parameter_gradients(&d_logits, &d_values)?;
        let stats = StepStats {
            loss_value: loss.value,
            loss_neurd: loss.neurd,
            decisions: n,
            alpha: point.alpha,
            pinned_logits,
            importance,
            average_loss: None,
        };
        let probe = obs
            .tensor()
            .narrow(0, 0, distinct_rows.min(PROBED_STATES))?;
        // The batch's rows go to the averaged network whole (as dense rows:
        // it is a small games' feature); it picks the few it offers.
        let actions = self.shape.actions;
        let visited = kept_obs
            .zip(target_policy)
            .map(|(distinct_obs, target_policy)| BatchStates {
                distinct_obs,
                index,
                others_log_reach: weighs_own_reach.then(|| batch.others_log_reach()),
                legal: batch.cells.masks(actions),
                target_policy: batch.cells.spread(&target_policy, actions),
            });
        Ok((grads, stats, probe, visited))
    }

    /// Value targets of every row and q-values of every cell, each from
    /// the v-trace of the row's acting player over the row's trajectory.
    fn v_trace_targets(
        &self,
        batch: &Batch,
        pi: &[f32],
        log_reg: &[f32],
        value: &[f32],
    ) -> (Vec<f32>, Vec<f32>) {
        let mut value_target = vec![0.0f32; batch.rows];
        let mut q = vec![0.0f32; batch.cells.len()];
        let valid = vec![true; batch.rows];
        for rows in batch.spans.iter().cloned() {
            for player in 0..self.players {
                let input = VTraceInput {
                    valid: &valid[rows.clone()],
                    player: &batch.player[rows.clone()],
                    cells: &batch.cells.offsets()[rows.start..=rows.end],
                    taken: &batch.taken[rows.clone()],
                    behaviour: &batch.behaviour[rows.clone()],
                    reward: &batch.rewards_of(player)[rows.clone()],
                    value: &value[rows.clone()],
                    policy: pi,
                    log_reg,
                };
                v_trace(
                    &input,
                    player as u8,
                    self.eta,
                    self.rnad.rho_vtrace,
                    &mut value_target[rows.clone()],
                    &mut q,
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

#[cfg(test)]
mod tests;
