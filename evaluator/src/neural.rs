//! Exact evaluation of a neural policy: one batched forward pass over every
//! information state turns the network into a tabular policy, which the
//! best response then judges; plus the reference post-processing (drop
//! actions below a threshold, round to multiples of 1/n).

use candle_core::{Device, Tensor};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::ActionGroup;
use rnad_net::{first_nonfinite, NetShape, ParamSet, PolicyValueNet};

use rnad_games::cfr::normalise_or_uniform;

/// Why a network could not be turned into a policy.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// A tensor computation failed.
    #[error("evaluating the network: {0}")]
    Tensor(#[from] candle_core::Error),
    /// A parameter is NaN or infinite: the network diverged (a ReLU can
    /// hide a NaN weight from the outputs, so the parameters are checked
    /// first).
    #[error("the network's parameter {tensor} is not finite: its parameters diverged")]
    NonFiniteParameter {
        /// The tensor's name.
        tensor: String,
    },
    /// Its outputs are NaN or infinite somewhere: its parameters diverged,
    /// and no NashConv of it would mean anything.
    #[error("the network's policy is not finite at {states} of {total} information states: its parameters diverged")]
    NonFinite {
        /// Information states with a non-finite probability.
        states: usize,
        /// Information states evaluated.
        total: usize,
    },
}

/// Probabilities below this are dropped by the reference post-processing.
pub const POLICY_THRESHOLD: f64 = 0.03;
/// The reference post-processing rounds probabilities to multiples of 1/this.
pub const POLICY_DISCRETIZATION: u32 = 32;

/// Every reachable information state of a tree as network input rows:
/// made once (each by replaying a history), used for every evaluation.
#[derive(Debug)]
pub struct NetworkInputs {
    /// (decision index, hand) of each row.
    rows: Vec<(usize, usize)>,
    /// Information-state tensors, row-major.
    obs: Vec<f32>,
    /// Legal-action masks, row-major.
    legal: Vec<f32>,
    /// Where the game groups its actions, each decision's legal groups
    /// (the same for every hand: they follow the public betting) and the
    /// rows' masks over groups, for networks that score groups.
    groups: Option<(Vec<Vec<ActionGroup>>, Vec<f32>)>,
}

impl NetworkInputs {
    /// The rows of every reachable information state of `tree`.
    pub fn new(tree: &PublicTree) -> NetworkInputs {
        let game = tree.game();
        let (size, actions) = (
            game.information_state_tensor_size(),
            game.num_distinct_actions(),
        );
        let group_count = game.num_action_groups();
        let mut inputs = NetworkInputs {
            rows: Vec::with_capacity(tree.num_info_states()),
            obs: Vec::with_capacity(tree.num_info_states() * size),
            legal: Vec::with_capacity(tree.num_info_states() * actions),
            groups: group_count.map(|_| (Vec::new(), Vec::new())),
        };
        let mut tensor = vec![0.0f32; size];
        for (d, decision) in tree.decisions().iter().enumerate() {
            let hands = (0..tree.num_hands()).filter(|&h| tree.is_possible(decision, h));
            if let Some((groups, _)) = &mut inputs.groups {
                let first = hands.clone().next();
                groups.push(first.map_or_else(Vec::new, |hand| {
                    tree.representative_state(decision, hand).legal_groups()
                }));
            }
            for hand in hands {
                tree.network_input(decision, hand, &mut tensor);
                inputs.obs.extend_from_slice(&tensor);
                let mut mask = vec![0.0f32; actions];
                for &a in &decision.legal_actions {
                    mask[a] = 1.0;
                }
                inputs.legal.extend_from_slice(&mask);
                if let (Some((groups, masks)), Some(count)) = (&mut inputs.groups, group_count) {
                    let mut mask = vec![0.0f32; count];
                    groups[d].iter().for_each(|g| mask[usize::from(g.id)] = 1.0);
                    masks.extend_from_slice(&mask);
                }
                inputs.rows.push((d, hand));
            }
        }
        inputs
    }

    /// What networks of `shape` choose among at each decision.
    pub fn choices(&self, shape: &NetShape) -> Choices<'_> {
        let groups = shape.grouped.then(|| match &self.groups {
            Some((groups, _)) => groups.as_slice(),
            None => panic!("a network that scores action groups on a game without them"),
        });
        Choices { groups }
    }
}

/// What a network's policy chooses among at each decision of a tree: the
/// legal actions, or where the network scores action groups, the legal
/// groups, each group's probability shared evenly among its actions.
/// Post-processing and greedy play act on these.
#[derive(Clone, Copy, Debug)]
pub struct Choices<'a> {
    /// Each decision's legal groups (none where no hand reaches it).
    groups: Option<&'a [Vec<ActionGroup>]>,
}

/// The network's legal policy at every information state of `tree`
/// (renormalised in f64; the network computes in f32; a network that
/// scores action groups shares each group's probability evenly among its
/// actions); refused where any probability is not finite.
pub fn network_policy(
    tree: &PublicTree,
    inputs: &NetworkInputs,
    shape: &NetShape,
    params: &ParamSet,
) -> Result<TabularPolicy, NetworkError> {
    if let Some(i) = first_nonfinite(params.tensors())? {
        return Err(NetworkError::NonFiniteParameter {
            tensor: shape.param_names()[i].0.clone(),
        });
    }
    // Parameters trained on another device are evaluated on the CPU.
    let params = params.to_device(&Device::Cpu)?;
    let rows = inputs.rows.len();
    let device = Device::Cpu;
    let groups = inputs.choices(shape).groups;
    let mask = match (&inputs.groups, shape.grouped) {
        (Some((_, group_masks)), true) => group_masks,
        _ => &inputs.legal,
    };
    let obs = Tensor::from_slice(&inputs.obs, (rows, shape.input), &device)?;
    let legal = Tensor::from_slice(mask, (rows, shape.actions), &device)?;
    let probs = PolicyValueNet::new(shape, params.tensors())?.policy(&obs, &legal)?;
    let probs = probs.flatten_all()?.to_vec1::<f32>()?;
    let states = probs
        .chunks(shape.actions)
        .filter(|row| row.iter().any(|p| !p.is_finite()))
        .count();
    if states > 0 {
        return Err(NetworkError::NonFinite {
            states,
            total: inputs.rows.len(),
        });
    }
    let mut policy = TabularPolicy::uniform(tree).probs().to_vec();
    for (row, &(d, hand)) in inputs.rows.iter().enumerate() {
        let decision = &tree.decisions()[d];
        let slots = decision.slots(hand);
        let probs = &probs[row * shape.actions..(row + 1) * shape.actions];
        match groups {
            Some(groups) => {
                let spread = ActionGroup::spread(&groups[d], &decision.legal_actions, |id| {
                    f64::from(probs[usize::from(id)])
                });
                policy[slots.clone()].copy_from_slice(&spread);
            }
            None => {
                for (slot, &a) in slots.clone().zip(&decision.legal_actions) {
                    policy[slot] = f64::from(probs[a]);
                }
            }
        }
        normalise_or_uniform(&mut policy[slots]);
    }
    Ok(TabularPolicy::from_slots(tree, policy).expect("one probability per slot"))
}

/// The reference post-processing: zero the probabilities below
/// `threshold` and renormalise, then give each action (each group, where
/// `choices` are groups), most likely first, `min(⌈p·n⌉, units left)` of
/// `n` units.
pub fn post_process(
    tree: &PublicTree,
    choices: Choices,
    policy: &TabularPolicy,
    threshold: f64,
    n: u32,
) -> TabularPolicy {
    each_row(tree, choices, policy, |row| {
        post_process_row(row, threshold, n)
    })
}

/// `policy` played greedily: every row's mass on its most probable action
/// (group, where `choices` are groups; the first of equals).
pub fn greedy(tree: &PublicTree, choices: Choices, policy: &TabularPolicy) -> TabularPolicy {
    each_row(tree, choices, policy, greedy_row)
}

/// `policy` with `change` applied to its row at every decision and hand:
/// to the legal actions' probabilities, or where `choices` are groups, to
/// the groups' (then shared evenly among their actions again).
fn each_row(
    tree: &PublicTree,
    choices: Choices,
    policy: &TabularPolicy,
    mut change: impl FnMut(&mut [f64]),
) -> TabularPolicy {
    let mut probs = policy.probs().to_vec();
    for (d, decision) in tree.decisions().iter().enumerate() {
        for hand in 0..tree.num_hands() {
            let row = &mut probs[decision.slots(hand)];
            let Some(groups) = choices.groups.map(|groups| &groups[d]) else {
                change(row);
                continue;
            };
            let mut masses = Vec::with_capacity(groups.len());
            let mut at = 0;
            for g in groups {
                masses.push(row[at..at + g.actions.len()].iter().sum());
                at += g.actions.len();
            }
            change(&mut masses);
            let mut at = 0;
            for (g, mass) in groups.iter().zip(masses) {
                let n = g.actions.len();
                row[at..at + n].fill(mass / n as f64);
                at += n;
            }
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("same length")
}

/// One row's mass on its most probable action, the first of equals (an
/// empty row stays empty).
pub(crate) fn greedy_row(row: &mut [f64]) {
    let best =
        row.iter()
            .enumerate()
            .fold(None, |best: Option<(usize, f64)>, (i, &p)| match best {
                Some((_, q)) if q >= p => best,
                _ => Some((i, p)),
            });
    if let Some((best, _)) = best {
        row.iter_mut()
            .enumerate()
            .for_each(|(i, p)| *p = if i == best { 1.0 } else { 0.0 });
    }
}

pub(crate) fn post_process_row(row: &mut [f64], threshold: f64, n: u32) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_processing_thresholds_and_rounds_to_32nds() {
        for (p, expected) in [(0.02, 0.0), (0.5, 0.5), (0.7, 23.0 / 32.0), (0.99, 1.0)] {
            let mut row = [p, 1.0 - p];
            post_process_row(&mut row, 0.03, 32);
            // 0.02 is dropped; 0.5 stays; 0.7·32 = 22.4 → the larger 0.7
            // takes 23 units; 0.99 takes ⌈31.68⌉ = 32 units, leaving 0.01
            // nothing.
            assert_eq!(row[0], expected, "{p}");
            assert_eq!(row.iter().sum::<f64>(), 1.0);
        }
    }

    #[test]
    fn greedy_play_puts_the_mass_on_the_most_probable_action_first_of_equals() {
        let mut row = [0.2, 0.5, 0.3];
        greedy_row(&mut row);
        assert_eq!(row, [0.0, 1.0, 0.0]);
        let mut tie = [0.4, 0.2, 0.4];
        greedy_row(&mut tie);
        assert_eq!(tie, [1.0, 0.0, 0.0]);
        let mut empty: [f64; 0] = [];
        greedy_row(&mut empty);
    }
}
