//! The averaged network (`[average_network]`): distribution averaging, the
//! table-free counterpart of the `target_average` policy kind. At every
//! learner step a few of the batch's rows (states actors visited, with
//! θ_target's policy there) are offered to a weighted reservoir; then one
//! Adam step fits a second network of the run's shape to the policies the
//! reservoir holds, by cross-entropy over the legal actions. The policies
//! are kept without the actions NeuRD holds at its threshold, as the
//! `target_average` table averages them ([`rnad_net::held_actions`]).
//! Its policy at a state tends to the average of those policies there over
//! the steps the reservoir samples, each state weighted by how often actors
//! reach it, or, with `own_reach_clip`, by the own reach of the player to
//! move, as an average strategy needs (`docs/rnad-update.md`). Only the
//! policy head learns; the value head keeps its initial weights.
//!
//! Until the reservoir is full it holds every state offered, whatever its
//! weight: the weights decide what it keeps once it has to choose.
//!
//! The reservoir is not checkpointed (on a Leduc run it is megabytes, on
//! hold'em a gigabyte): a resumed run keeps the network and its Adam
//! moments and refills the reservoir from the states it plays next.

use candle_core::{Device, Result, Tensor};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_net::held_actions::drop_held_row;
use rnad_net::{
    first_nonfinite, CellPolicy, LegalCells, NetInput, NetShape, ParamSet, RecordedForward,
};
use rnad_run::config::AverageNetworkConfig;
use rnad_run::ResolvedRun;

use crate::adam::{Adam, AdamSettings};
use crate::reservoir::Reservoir;

/// One visited state: the network's input, the legal actions (1 or 0) and
/// θ_target's policy there, its held actions dropped.
#[derive(Debug)]
struct Visit {
    obs: Vec<f32>,
    legal: Vec<f32>,
    policy: Vec<f32>,
}

/// The states of one learner batch, as the step saw them.
#[derive(Debug)]
pub struct BatchStates {
    /// Distinct observations, `input` floats each.
    pub distinct_obs: Vec<f32>,
    /// Each row's distinct observation.
    pub index: Vec<u32>,
    /// Each row's legal actions, `actions` floats each.
    pub legal: Vec<f32>,
    /// θ_target's policy at each row, `actions` floats each.
    pub target_policy: Vec<f32>,
    /// Each row's log reach by the other players
    /// ([`crate::batch::Batch::others_log_reach`]), where the trainer
    /// [weighs states by own reach](AverageTrainer::weighs_own_reach).
    pub others_log_reach: Option<Vec<f32>>,
}

/// The averaged network and its Adam moments: learner state, kept in
/// checkpoints.
#[derive(Clone, Debug)]
pub struct AverageNetwork {
    /// Its parameters (the run's network shape).
    pub params: ParamSet,
    /// Adam's moments for them.
    pub adam: Adam,
}

impl AverageNetwork {
    /// The first averaged network of `config`'s run.
    pub fn initial(run: &ResolvedRun) -> Result<AverageNetwork> {
        let config = run.config();
        let params = ParamSet::init(run.shape(), config.seed ^ SEED_OFFSET)?;
        let adam = Adam::new(&params, AdamSettings::from_config(&config.rnad))?;
        Ok(AverageNetwork { params, adam })
    }

    /// The same network with every tensor on `device`.
    pub fn into_device(self, device: &Device) -> Result<AverageNetwork> {
        Ok(AverageNetwork {
            params: self.params.to_device(device)?,
            adam: self.adam.into_device(device)?,
        })
    }
}

/// Trains the averaged network alongside the learner: the reservoir of
/// visited states and the random stream that fills and draws it.
#[derive(Debug)]
pub struct AverageTrainer {
    settings: AverageNetworkConfig,
    shape: NetShape,
    /// NeuRD's threshold, which tells the held actions.
    beta: f64,
    reservoir: Reservoir<Visit>,
    rng: ChaCha8Rng,
}

/// Where the averaged network's own random streams start (its initial
/// weights, the reservoir's keys and draws), apart from θ's.
const SEED_OFFSET: u64 = 0x00a7_e4a6_e000;

impl AverageTrainer {
    /// A trainer for `config`'s averaged network, none where the config
    /// keeps no reservoir. A resumed run's stream starts at the step it
    /// resumes from.
    pub fn for_run(run: &ResolvedRun, step: u64) -> Option<AverageTrainer> {
        let config = run.config();
        let settings = config.average_network.clone();
        if settings.reservoir_size == 0 {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ SEED_OFFSET);
        rng.set_stream(step);
        Some(AverageTrainer {
            reservoir: Reservoir::new(settings.reservoir_size),
            settings,
            shape: run.shape().clone(),
            beta: config.rnad.beta_neurd,
            rng,
        })
    }

    /// Whether offered states weigh by the own reach of the player to move
    /// (`own_reach_clip` above 0): the batch must then carry the others'
    /// reach.
    pub fn weighs_own_reach(&self) -> bool {
        self.settings.own_reach_clip > 0.0
    }

    /// Offers `offered_per_step` rows of `batch`, drawn at random, as seen
    /// at learner step `step`.
    pub fn offer(&mut self, step: u64, batch: &BatchStates) {
        let (input, actions) = (self.shape.input, self.shape.actions);
        let rows = batch.index.len();
        if rows == 0 {
            return;
        }
        let step_log_weight = match self.settings.horizon_steps {
            0 => 0.0,
            horizon => step as f64 / horizon as f64,
        };
        // Dividing by the others' reach leaves the own reach of the one
        // to move (actors reach a state with everyone's); the clip bounds
        // the variance a rare action of theirs would bring.
        let clip = self.settings.own_reach_clip;
        let others_log_reach = self.weighs_own_reach().then(|| {
            batch
                .others_log_reach
                .as_deref()
                .expect("a trainer that weighs own reach is given the others' reach")
        });
        let reach_log_weight = |row: usize| {
            others_log_reach.map_or(0.0, |reach| (-f64::from(reach[row])).min(clip.ln()))
        };
        for _ in 0..self.settings.offered_per_step {
            let row = self.rng.random_range(0..rows);
            let obs_row = batch.index[row] as usize;
            let cells = row * actions..(row + 1) * actions;
            let log_weight = step_log_weight + reach_log_weight(row);
            self.reservoir.offer(log_weight, &mut self.rng, || Visit {
                obs: batch.distinct_obs[obs_row * input..(obs_row + 1) * input].to_vec(),
                legal: batch.legal[cells.clone()].to_vec(),
                policy: without_held_actions(
                    &batch.target_policy[cells.clone()],
                    &batch.legal[cells],
                    self.beta,
                ),
            });
        }
    }

    /// One Adam step of `network` towards the reservoir's policies on
    /// `device`: the network after it and the step's cross-entropy, or none
    /// where the reservoir is empty or something the step computed is not
    /// finite (the network then stays as it was).
    pub fn train(
        &mut self,
        network: &AverageNetwork,
        device: &Device,
    ) -> Result<Option<(AverageNetwork, f64)>> {
        let params = &network.params;
        let drawn = self.reservoir.draw(self.settings.batch_size, &mut self.rng);
        if drawn.is_empty() {
            return Ok(None);
        }
        let (n, input, actions) = (drawn.len(), self.shape.input, self.shape.actions);
        let gather = |field: fn(&Visit) -> &[f32]| -> Vec<f32> {
            drawn
                .iter()
                .flat_map(|v| field(v).iter().copied())
                .collect()
        };
        let obs = NetInput::new(Tensor::from_vec(gather(|v| &v.obs), (n, input), device)?);
        let cells = LegalCells::from_masks(&gather(|v| &v.legal), actions);
        let target = cells.gather(&gather(|v| &v.policy), actions);
        let on_device = cells.on(device, actions)?;
        let recorded = RecordedForward::record(&self.shape, params.tensors(), &obs, &on_device)?;
        // Cross-entropy −Σ p log π̄ over the legal actions, averaged over
        // the drawn states; its gradient in the logits is (π̄ − p) / n.
        let policy = CellPolicy::new(&recorded.logits.to_vec1::<f32>()?, cells.offsets());
        let loss = -target
            .iter()
            .zip(&policy.log_policy)
            .map(|(p, log_q)| f64::from(p * log_q))
            .sum::<f64>()
            / n as f64;
        let d_logits: Vec<f32> = policy
            .policy
            .iter()
            .zip(&target)
            .map(|(q, p)| (q - p) / n as f32)
            .collect();
        let d_logits = Tensor::from_vec(d_logits, cells.len(), device)?;
        let d_values = Tensor::zeros(n, candle_core::DType::F32, device)?;
        let grads = recorded.parameter_gradients(&d_logits, &d_values)?;
        if !loss.is_finite() || first_nonfinite(&grads)?.is_some() {
            return Ok(None);
        }
        let mut adam = network.adam.clone();
        let params = adam.step(params, &grads, self.settings.learning_rate)?;
        if first_nonfinite(params.tensors())?.is_some() {
            return Ok(None);
        }
        Ok(Some((AverageNetwork { params, adam }, loss)))
    }
}

/// `policy` (zero at illegal actions) with the legal actions held at
/// threshold `beta` dropped and the rest renormalised.
fn without_held_actions(policy: &[f32], legal: &[f32], beta: f64) -> Vec<f32> {
    let legal_at: Vec<usize> = (0..legal.len()).filter(|&a| legal[a] > 0.0).collect();
    let mut row: Vec<f64> = legal_at.iter().map(|&a| f64::from(policy[a])).collect();
    drop_held_row(&mut row, beta);
    let mut kept = vec![0.0; policy.len()];
    for (&a, p) in legal_at.iter().zip(row) {
        kept[a] = p as f32;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_run::config::Config;

    /// Kuhn's network shape; two states told apart by their first inputs.
    fn config(horizon_steps: u64) -> Config {
        let mut config = rnad_testkit::TestConfig::file("kuhn").build();
        config.average_network = AverageNetworkConfig {
            // Full after 32 of the 600 steps' offers (weights only tell
            // once it is full: until then it holds everything offered).
            reservoir_size: 500,
            horizon_steps,
            own_reach_clip: 0.0,
            offered_per_step: 16,
            batch_size: 64,
            learning_rate: 1e-2,
        };
        config
    }

    /// One learner batch: each of the two states visited once, with
    /// θ_target's policy `first` at the first and `second` at the other,
    /// both reached by the other player with probability 1.
    fn batch(input: usize, first: [f32; 2], second: [f32; 2]) -> BatchStates {
        let mut obs = vec![0.0; 2 * input];
        obs[0] = 1.0;
        obs[input + 1] = 1.0;
        BatchStates {
            distinct_obs: obs,
            index: vec![0, 1],
            legal: vec![1.0; 4],
            target_policy: [first, second].concat(),
            others_log_reach: Some(vec![0.0; 2]),
        }
    }

    /// The network's policy at the two states.
    fn policy(network: &AverageNetwork, shape: &NetShape) -> Vec<f32> {
        let mut obs = vec![0.0f32; 2 * shape.input];
        obs[0] = 1.0;
        obs[shape.input + 1] = 1.0;
        let obs = Tensor::from_vec(obs, (2, shape.input), &Device::Cpu).unwrap();
        let legal =
            Tensor::ones((2, shape.actions), candle_core::DType::F32, &Device::Cpu).unwrap();
        rnad_net::PolicyValueNet::new(shape, network.params.tensors())
            .unwrap()
            .policy(&obs, &legal)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    /// 300 steps of one target policy, then 300 of another at the first
    /// state (the second state's stays), the first phase's states reached
    /// by the other player with probability `first_reach`: the averaged
    /// network learns the mean of the two where every step weighs alike,
    /// and the newer one under a short horizon.
    fn averaged_after_two_phases(config: &Config, first_reach: f32) -> Vec<f32> {
        let run = ResolvedRun::new(config.clone()).unwrap();
        let shape = run.shape().clone();
        let mut trainer = AverageTrainer::for_run(&run, 0).unwrap();
        let mut network = AverageNetwork::initial(&run).unwrap();
        for step in 0..600u64 {
            let mut batch = if step < 300 {
                batch(shape.input, [0.9, 0.1], [0.2, 0.8])
            } else {
                batch(shape.input, [0.1, 0.9], [0.2, 0.8])
            };
            if step < 300 {
                batch.others_log_reach = Some(vec![first_reach.ln(); 2]);
            }
            trainer.offer(step, &batch);
            let (trained, _) = trainer.train(&network, &Device::Cpu).unwrap().unwrap();
            network = trained;
        }
        // The policies the reservoir holds, fitted to convergence.
        for _ in 0..600 {
            network = trainer.train(&network, &Device::Cpu).unwrap().unwrap().0;
        }
        policy(&network, &shape)
    }

    #[test]
    fn equal_weights_learn_the_mean_policy_of_the_run() {
        let policy = averaged_after_two_phases(&config(0), 1.0);
        for (got, want) in policy.iter().zip([0.5, 0.5, 0.2, 0.8]) {
            assert!((got - want).abs() < 0.03, "policy {policy:?}");
        }
    }

    #[test]
    fn a_short_horizon_learns_the_recent_policy() {
        // Weights e^(t/20): the first phase weighs e^-15 of the second.
        let policy = averaged_after_two_phases(&config(20), 1.0);
        for (got, want) in policy.iter().zip([0.1, 0.9, 0.2, 0.8]) {
            assert!((got - want).abs() < 0.03, "policy {policy:?}");
        }
    }

    #[test]
    fn the_own_reach_clip_divides_the_others_reach_out_up_to_the_clip() {
        // The first phase's states were reached by the other player with
        // probability 1/4. Weighing by visits, each phase's rows weigh
        // alike; by own reach, the first phase's weigh 4 (0.9·4 + 0.1) / 5
        // = 0.74; clipped at 2, they weigh 2: (0.9·2 + 0.1) / 3 = 0.633.
        // The second state's policy is the same in both phases.
        for (clip, want) in [(0.0, 0.5), (100.0, 0.74), (2.0, 1.9 / 3.0)] {
            let mut config = config(0);
            config.average_network.own_reach_clip = clip;
            let policy = averaged_after_two_phases(&config, 0.25);
            assert!((policy[0] - want).abs() < 0.03, "clip {clip}: {policy:?}");
            assert!((policy[2] - 0.2).abs() < 0.03, "clip {clip}: {policy:?}");
        }
    }

    #[test]
    fn held_actions_are_dropped_among_the_legal_ones() {
        // Legal actions 0, 2 and 3 with centred logits −2, 0.5 and 1.5
        // (mean 0): at β = 2 the first is held and goes, the others keep
        // their ratio; the illegal action 1 stays at zero.
        let z = (-2f64).exp() + 0.5f64.exp() + 1.5f64.exp();
        let p = |logit: f64| (logit.exp() / z) as f32;
        let policy = [p(-2.0), 0.0, p(0.5), p(1.5)];
        let legal = [1.0, 0.0, 1.0, 1.0];
        let kept = without_held_actions(&policy, &legal, 2.0);
        let rest = 0.5f64.exp() + 1.5f64.exp();
        let want = [0.0, 0.0, 0.5f64.exp() / rest, 1.5f64.exp() / rest];
        for (got, want) in kept.iter().zip(want) {
            assert!((f64::from(*got) - want).abs() < 1e-6, "{kept:?}");
        }
        // A threshold of 3 holds nothing here: the row is unchanged.
        assert_eq!(without_held_actions(&policy, &legal, 3.0), policy);
    }

    #[test]
    fn the_network_learns_the_policy_without_its_held_actions() {
        // θ_target plays the first state's first action at 0.0195, its
        // centred logit −1.95: held at β = 2 (Kuhn's), so the averaged
        // network learns never to play it, where the stored policy would
        // have taught 0.0195.
        let config = config(0);
        assert_eq!(config.rnad.beta_neurd, 2.0);
        let run = ResolvedRun::new(config).unwrap();
        let shape = run.shape().clone();
        let mut trainer = AverageTrainer::for_run(&run, 0).unwrap();
        let mut network = AverageNetwork::initial(&run).unwrap();
        for step in 0..900u64 {
            if step < 300 {
                trainer.offer(step, &batch(shape.input, [0.0195, 0.9805], [0.2, 0.8]));
            }
            network = trainer.train(&network, &Device::Cpu).unwrap().unwrap().0;
        }
        let policy = policy(&network, &shape);
        assert!(policy[0] < 0.005, "policy {policy:?}");
        assert!((policy[2] - 0.2).abs() < 0.03, "policy {policy:?}");
    }

    #[test]
    fn an_empty_reservoir_trains_nothing() {
        let config = config(0);
        let run = ResolvedRun::new(config.clone()).unwrap();
        let mut trainer = AverageTrainer::for_run(&run, 0).unwrap();
        let network = AverageNetwork::initial(&run).unwrap();
        assert!(trainer.train(&network, &Device::Cpu).unwrap().is_none());
        let mut off = config;
        off.average_network.reservoir_size = 0;
        assert!(AverageTrainer::for_run(&ResolvedRun::new(off).unwrap(), 0).is_none());
    }
}
