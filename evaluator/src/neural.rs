//! Exact evaluation of a neural policy: one batched forward pass over every
//! information state turns the network into a tabular policy, which the
//! best response then judges; plus the reference post-processing (drop
//! actions below a threshold, round to multiples of 1/n).

use candle_core::{Device, Result, Tensor};
use rnad_common::net::{legal_policy, NetShape, ParamSet, PolicyValueNet};
use rnad_common::policy::TabularPolicy;
use rnad_common::tree::GameTree;

/// Probabilities below this are dropped by the reference post-processing.
pub const POLICY_THRESHOLD: f64 = 0.03;
/// The reference post-processing rounds probabilities to multiples of 1/this.
pub const POLICY_DISCRETIZATION: u32 = 32;

/// The network's legal policy at every information state of `tree`.
pub fn network_policy(
    tree: &GameTree,
    shape: &NetShape,
    params: &ParamSet,
) -> Result<TabularPolicy> {
    let states = tree.info_states();
    let actions = tree.num_distinct_actions();
    let obs = Tensor::from_vec(
        tree.info_state_tensors(),
        (states.len(), tree.tensor_size()),
        &Device::Cpu,
    )?;
    let mut legal = vec![0.0f32; states.len() * actions];
    for (i, state) in states.iter().enumerate() {
        for &a in &state.legal_actions {
            legal[i * actions + a] = 1.0;
        }
    }
    let mask = Tensor::from_vec(legal, (states.len(), actions), &Device::Cpu)?;
    let (logits, _) = PolicyValueNet::new(shape, params.tensors()).forward(&obs)?;
    let probs = legal_policy(&logits, &mask)?.to_vec2::<f32>()?;
    let mut slots = vec![0.0; tree.num_slots()];
    for (state, row) in states.iter().zip(&probs) {
        for (slot, &a) in state.slots().zip(&state.legal_actions) {
            slots[slot] = f64::from(row[a]);
        }
    }
    let policy = TabularPolicy::from_slots(tree, slots).expect("one probability per slot");
    Ok(normalised(tree, policy))
}

/// Renormalises each information state's probabilities in f64 (the network
/// computes in f32).
fn normalised(tree: &GameTree, policy: TabularPolicy) -> TabularPolicy {
    let mut probs = policy.probs().to_vec();
    for state in tree.info_states() {
        let row = &mut probs[state.slots()];
        let total: f64 = row.iter().sum();
        row.iter_mut().for_each(|p| *p /= total);
    }
    TabularPolicy::from_slots(tree, probs).expect("same length")
}

/// The reference post-processing: zero the probabilities below
/// `threshold` and renormalise, then give each action, most likely first,
/// `min(⌈p·n⌉, units left)` of `n` units.
pub fn post_process(
    tree: &GameTree,
    policy: &TabularPolicy,
    threshold: f64,
    n: u32,
) -> TabularPolicy {
    let mut probs = policy.probs().to_vec();
    for state in tree.info_states() {
        let row = &mut probs[state.slots()];
        let kept: f64 = row.iter().filter(|&&p| p >= threshold).sum();
        if kept > 0.0 {
            row.iter_mut()
                .for_each(|p| *p = if *p >= threshold { *p / kept } else { 0.0 });
        }
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        let mut left = n;
        let mut units = vec![0u32; row.len()];
        for k in order {
            let want = (row[k] * f64::from(n)).ceil() as u32;
            units[k] = want.min(left);
            left -= units[k];
        }
        for (p, u) in row.iter_mut().zip(units) {
            *p = f64::from(u) / f64::from(n);
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("same length")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_common::game::GameName;

    #[test]
    fn post_processing_thresholds_and_rounds_to_32nds() {
        let tree = GameTree::build(GameName::KuhnPoker.load().as_ref()).unwrap();
        let mut probs = vec![0.0; tree.num_slots()];
        for (i, state) in tree.info_states().iter().enumerate() {
            let s = state.slots().start;
            let p = [0.02, 0.5, 0.7, 0.99][i % 4];
            probs[s] = p;
            probs[s + 1] = 1.0 - p;
        }
        let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
        let out = post_process(&tree, &policy, 0.03, 32);
        let first = |i: usize| out.probs()[tree.info_states()[i].slots().start];
        // 0.02 is dropped; 0.5 stays; 0.7·32 = 22.4 → the larger 0.7 takes 23 units;
        // 0.99 takes ⌈31.68⌉ = 32 units, leaving 0.01 nothing.
        assert_eq!(first(0), 0.0);
        assert_eq!(first(1), 0.5);
        assert_eq!(first(2), 23.0 / 32.0);
        assert_eq!(first(3), 1.0);
        for state in tree.info_states() {
            let total: f64 = out.probs()[state.slots()].iter().sum();
            assert_eq!(total, 1.0);
        }
    }
}
