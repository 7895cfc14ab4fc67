//! The learner's step on real batches: schedules, weight decay, the
//! closed-form gradient against autograd, NeuRD and its diagnostics.

use super::*;
use rnad_net::{legal_log_policy, legal_policy};
use rnad_run::config::Config;

/// Fresh learners for `first` and `second` (equal parameters, as both
/// draw them from the seed) and 64 games played by the first's policy
/// with random stream `stream`, to step both on the same batch.
fn two_learners_and_a_batch(
    first: &Config,
    second: &Config,
    stream: u64,
) -> (Learner, Learner, Vec<Trajectory>) {
    two_learners_and_games(first, second, stream, 64)
}

/// [`two_learners_and_a_batch`] of `games` games.
fn two_learners_and_games(
    first: &Config,
    second: &Config,
    stream: u64,
    games: usize,
) -> (Learner, Learner, Vec<Trajectory>) {
    use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
    let first = ResolvedRun::new(first.clone()).unwrap();
    let second = ResolvedRun::new(second.clone()).unwrap();
    let a = Learner::new(&first, &Device::Cpu).unwrap();
    let b = Learner::new(&second, &Device::Cpu).unwrap();
    let snapshot = PolicySnapshot {
        version: 0,
        params: a.state().online.clone(),
    };
    let mut play = SelfPlay::new(
        first.game().clone(),
        first.shape().clone(),
        8,
        RngStream::of(stream),
    );
    let batch = play.play_fresh(&snapshot, games).unwrap();
    (a, b, batch)
}

/// Steps `learner` on `batch`, which must be applied.
fn applied(learner: &mut Learner, batch: &[Trajectory]) -> StepStats {
    match learner.step(batch).unwrap() {
        Stepped::Applied(stats) => stats,
        Stepped::Skipped(bad) => panic!("{bad}"),
    }
}

/// A step that would make θ's outputs overflow is not applied: the state
/// stays as it was, and the guard names what was not finite.
#[test]
fn a_step_that_diverges_is_skipped_and_changes_nothing() {
    let mut config = rnad_testkit::TestConfig::file("kuhn").build();
    config.rnad.learning_rate = 1e30;
    config.rnad.clip_gradient = 1e30;
    let (mut wild, _, batch) = two_learners_and_a_batch(&config, &config, 5);
    let before = wild.state().online.to_vec().unwrap();
    let Stepped::Skipped(bad) = wild.step(&batch).unwrap() else {
        panic!("a learning rate of 1e30 went through");
    };
    assert_eq!(bad.step, 0);
    assert!(bad.to_string().contains("is not finite"), "{bad}");
    assert!(bad.what.contains("θ"), "{bad}");
    assert_eq!(wild.state().step, 0);
    assert_eq!(wild.state().online.to_vec().unwrap(), before);
    assert_eq!(wild.state().adam.count, 0, "Adam's moments are untouched");
}

/// Adam's step is linear in the rate, so from equal states on equal
/// batches a learner whose schedule has decayed to a quarter moves θ by
/// exactly a quarter of a constant-rate learner's move.
#[test]
fn updates_follow_the_learning_rate_schedule() {
    let constant = rnad_testkit::TestConfig::file("kuhn").build();
    let mut decaying = constant.clone();
    decaying.rnad.learning_rate_decay_steps = 1;
    decaying.rnad.learning_rate_final_fraction = 0.25;
    let (mut a, mut b, batch) = two_learners_and_a_batch(&constant, &decaying, 7);
    assert_eq!(b.learning_rate(), constant.rnad.learning_rate);
    applied(&mut a, &batch);
    applied(&mut b, &batch);
    let after_one = a.state().online.to_vec().unwrap();
    assert_eq!(b.state().online.to_vec().unwrap(), after_one);
    assert_eq!(b.learning_rate(), constant.rnad.learning_rate * 0.25);
    applied(&mut a, &batch);
    applied(&mut b, &batch);
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
    let plain = rnad_testkit::TestConfig::file("kuhn").build();
    let mut decaying = plain.clone();
    decaying.rnad.weight_decay = 10.0;
    let (mut a, mut b, batch) = two_learners_and_a_batch(&plain, &decaying, 3);
    let start = a.state().online.to_vec().unwrap();
    applied(&mut a, &batch);
    applied(&mut b, &batch);
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
    let dir = rnad_testkit::scratch("weight-decay");
    let saved = crate::checkpoint::save(
        &dir,
        a.state(),
        &ResolvedRun::new(plain).unwrap(),
        crate::checkpoint::RunClock::default(),
        None,
        1,
    )
    .unwrap();
    let resumed = crate::checkpoint::load(&saved, &ResolvedRun::new(decaying).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(resumed.state.adam.settings.weight_decay, 10.0);
    assert_eq!(a.state().adam.settings.weight_decay, 0.0);
}

/// θ's gradient of the loss as candle's autograd takes it, built the
/// way the learner built it before the closed form and the legal cells:
/// θ's parameters as variables, dense rows of every action gathered from
/// distinct states under dense legal masks, the value loss and the NeuRD
/// loss as tensors, then `backward`.
fn autograd_gradient(learner: &Learner, trajectories: &[Trajectory]) -> Vec<Vec<f32>> {
    use candle_core::Var;
    let cpu = &Device::Cpu;
    let batch = Batch::new(trajectories, learner.players);
    let (n, actions) = (batch.rows, learner.shape.actions);
    let point = learner.schedule.at(learner.state.step);
    let input = learner.shape.input;
    let obs = Tensor::from_slice(
        &batch.distinct_obs,
        (batch.distinct_obs.len() / input, input),
        cpu,
    )
    .unwrap();
    let index = Tensor::from_slice(&batch.obs_index, n, cpu).unwrap();
    let forward = |params: &[Tensor]| {
        let (logits, values) = PolicyValueNet::new(&learner.shape, params)
            .unwrap()
            .forward(&obs)
            .unwrap();
        (
            logits.index_select(&index, 0).unwrap(),
            values.index_select(&index, 0).unwrap(),
        )
    };
    let cells = &batch.cells;
    let legal = cells.masks(actions);
    let at_cells = |dense: &Tensor| -> Vec<f32> {
        cells.gather(
            &dense.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            actions,
        )
    };
    let mask = Tensor::from_slice(&legal, (n, actions), cpu).unwrap();
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
    let pi_v = at_cells(&pi);
    let (value_target, q) = learner.v_trace_targets(
        &batch,
        &pi_v,
        &at_cells(&log_reg),
        &target_values.to_vec1::<f32>().unwrap(),
    );
    let weights = player_weights(&batch, learner.players);
    let weights_t = Tensor::from_slice(&weights, n, cpu).unwrap();
    let targets = Tensor::from_slice(&value_target, n, cpu).unwrap();
    let loss_value = ((values - targets).unwrap().sqr().unwrap() * &weights_t)
        .unwrap()
        .sum_all()
        .unwrap();
    let logits_v = at_cells(&detached);
    let inputs = NeurdInputs {
        logits: &logits_v,
        policy: &pi_v,
        q: &q,
        weights: &weights,
        cells: cells.offsets(),
    };
    let c = neurd_coefficients(
        &inputs,
        learner.rnad.beta_neurd as f32,
        learner.rnad.clip_neurd as f32,
    );
    let c = Tensor::from_vec(cells.spread(&c, actions), (n, actions), cpu).unwrap();
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

/// The learner's gradient at the legal cells, on real batches while θ_reg'
/// still has weight (α < 1), is what autograd takes over dense rows of
/// every action: on Leduc under either head (the MLP's closed form), on
/// Daihinmin (2,660 actions) under the gathered head, the residual torso
/// (autograd through the gathered cells) and the dense head.
#[test]
fn the_gradient_at_the_legal_cells_is_autograds_over_dense_rows() {
    use rnad_net::{HeadKind, TorsoKind};
    let daihinmin = |torso: TorsoKind, head: HeadKind| {
        rnad_testkit::TestConfig::file("daihinmin")
            .with(|c| {
                c.network.torso = torso;
                c.network.hidden = vec![24, 24];
                c.network.head = head;
            })
            .build()
    };
    let leduc = |head: HeadKind| {
        rnad_testkit::TestConfig::file("leduc")
            .with(|c| c.network.head = head)
            .build()
    };
    for (config, games) in [
        (leduc(HeadKind::Dense), 64),
        (leduc(HeadKind::Gathered), 64),
        (daihinmin(TorsoKind::Mlp, HeadKind::Gathered), 6),
        (daihinmin(TorsoKind::ResidualMlp, HeadKind::Gathered), 6),
        (daihinmin(TorsoKind::Mlp, HeadKind::Dense), 6),
    ] {
        let case = format!(
            "{} {} {}",
            config.game, config.network.torso, config.network.head
        );
        let (fresh, _, batch) = two_learners_and_games(&config, &config, 9, games);
        // θ_target, θ_reg and θ_reg' each different from θ, so that a
        // network's output used in another's place would show.
        let mut state = fresh.state().clone();
        state.target = ParamSet::init(&fresh.shape, 101).unwrap();
        state.reg = ParamSet::init(&fresh.shape, 102).unwrap();
        state.reg_prev = ParamSet::init(&fresh.shape, 103).unwrap();
        let run = ResolvedRun::new(config).unwrap();
        let learner = Learner::from_state(&run, state, &Device::Cpu).unwrap();
        assert!(learner.schedule.at(learner.state.step).alpha < 1.0);
        let (ours, stats, _, _) = learner.gradient(&batch).unwrap();
        assert!(stats.decisions > 100, "{case}: {}", stats.decisions);
        let expected = autograd_gradient(&learner, &batch);
        assert_eq!(ours.len(), expected.len());
        for ((ours, expected), (name, _)) in
            ours.iter().zip(&expected).zip(learner.shape.param_names())
        {
            let ours = ours.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            let scale = expected.iter().fold(0f32, |m, g| m.max(g.abs()));
            assert!(scale > 1e-4, "{case} {name}: no gradient");
            for (o, e) in ours.iter().zip(expected) {
                assert!(
                    (o - e).abs() <= 1e-4 * scale + 1e-4 * e.abs(),
                    "{case} {name}: {o} vs {e}"
                );
            }
        }
    }
}
