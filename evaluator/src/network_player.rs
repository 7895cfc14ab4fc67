//! A policy-value network as a player that decides from the state it is
//! in: for games too large to tabulate (hold'em), in matches, in local
//! best response and in the head-to-head panel. It reads each state's
//! network input ([`State::network_input`]) as the actors do, and many
//! states at once in one forward pass (a range's every hand).

use candle_core::{Device, Tensor};
use rnad_games::headtohead::sampled::{Player, ValueFunction};
use rnad_games::{Action, ActionGroup, State, Turn};
use rnad_net::{first_nonfinite, legal_policy, NetShape, ParamSet, PolicyValueNet};

use crate::neural::{
    greedy_row, post_process_row, NetworkError, POLICY_DISCRETIZATION, POLICY_THRESHOLD,
};

/// A network's policy, optionally post-processed as the reference does.
pub struct NetworkPlayer {
    net: PolicyValueNet,
    shape: NetShape,
    post_process: bool,
    greedy: bool,
}

impl NetworkPlayer {
    /// The player of `params` (networks of `shape`); with `post_process`,
    /// actions below the threshold dropped and the rest rounded
    /// ([`crate::neural::post_process`]). Parameters that are not finite
    /// are refused.
    pub fn new(
        shape: &NetShape,
        params: &ParamSet,
        post_process: bool,
    ) -> Result<NetworkPlayer, NetworkError> {
        if let Some(i) = first_nonfinite(params.tensors())? {
            return Err(NetworkError::NonFiniteParameter {
                tensor: shape.param_names()[i].0.clone(),
            });
        }
        let params = params.to_device(&Device::Cpu)?;
        Ok(NetworkPlayer {
            net: PolicyValueNet::new(shape, params.tensors())?,
            shape: shape.clone(),
            post_process,
            greedy: false,
        })
    }

    /// This player playing its most probable action at every decision
    /// (after any post-processing; the first of equals).
    pub fn greedy(self) -> NetworkPlayer {
        NetworkPlayer {
            greedy: true,
            ..self
        }
    }

    /// Logits and values at `states`, each as `reader(state)` sees it.
    fn forward(
        &self,
        states: &[&dyn State],
        reader: impl Fn(&dyn State) -> usize,
    ) -> candle_core::Result<(Tensor, Tensor)> {
        let input = self.shape.input;
        let mut obs = vec![0.0f32; states.len() * input];
        for (state, row) in states.iter().zip(obs.chunks_mut(input)) {
            state.network_input(reader(*state), row);
        }
        let obs = Tensor::from_vec(obs, (states.len(), input), &Device::Cpu)?;
        self.net.forward(&obs)
    }

    /// The policy played at each of `states` over its `legal[i]`
    /// actions: the network's legal softmax, post-processed and played as
    /// this player plays. Where the network scores action groups, the
    /// softmax is over the state's legal groups, post-processing and
    /// greedy play choose among groups, and each group's probability is
    /// shared evenly among its actions.
    fn played(
        &self,
        states: &[&dyn State],
        legal: &[&[Action]],
    ) -> candle_core::Result<Vec<Vec<f64>>> {
        let actions = self.shape.actions;
        let (logits, _) = self.forward(states, |state| match state.turn() {
            Turn::Player(player) => player,
            _ => panic!("a network is asked to act where no player acts"),
        })?;
        let groups: Vec<Vec<ActionGroup>> = match self.shape.grouped {
            true => states.iter().map(|s| s.legal_groups()).collect(),
            false => Vec::new(),
        };
        let mut masks = vec![0.0f32; states.len() * actions];
        for (i, row) in masks.chunks_mut(actions).enumerate() {
            match groups.get(i) {
                Some(groups) => groups.iter().for_each(|g| row[usize::from(g.id)] = 1.0),
                None => legal[i].iter().for_each(|&a| row[a] = 1.0),
            }
        }
        let masks = Tensor::from_vec(masks, (states.len(), actions), &Device::Cpu)?;
        let probs = legal_policy(&logits, &masks)?
            .flatten_all()?
            .to_vec1::<f32>()?;
        Ok(probs
            .chunks(actions)
            .enumerate()
            .map(|(i, row)| match groups.get(i) {
                Some(groups) => {
                    let ids: Vec<usize> = groups.iter().map(|g| usize::from(g.id)).collect();
                    let mut by_id = vec![0.0; actions];
                    for (&id, p) in ids.iter().zip(self.choose(row, &ids)) {
                        by_id[id] = p;
                    }
                    ActionGroup::spread(groups, legal[i], |id| by_id[usize::from(id)])
                }
                None => self.choose(row, legal[i]),
            })
            .collect())
    }

    /// `row`'s probabilities of `choices` (its legal actions or groups),
    /// post-processed and made greedy as this player plays.
    fn choose(&self, row: &[f32], choices: &[usize]) -> Vec<f64> {
        let mut policy: Vec<f64> = choices.iter().map(|&a| f64::from(row[a])).collect();
        if self.post_process {
            post_process_row(&mut policy, POLICY_THRESHOLD, POLICY_DISCRETIZATION);
        }
        if self.greedy {
            greedy_row(&mut policy);
        }
        policy
    }
}

/// A network's value head as the control variate's value function: each
/// seat's value read from its own view of the state, in chips (the head
/// predicts returns times `rnad.reward_scale`).
pub struct NetworkValue {
    network: NetworkPlayer,
    chips_per_unit: f64,
}

impl NetworkValue {
    /// The value head of `network`, trained on returns times
    /// `reward_scale`.
    pub fn new(network: NetworkPlayer, reward_scale: f64) -> NetworkValue {
        NetworkValue {
            network,
            chips_per_unit: 1.0 / reward_scale,
        }
    }
}

impl ValueFunction for NetworkValue {
    fn values(&mut self, states: &[&dyn State], seat: usize, _: &[usize]) -> Vec<f64> {
        let (_, values) = self
            .network
            .forward(states, |_| seat)
            .expect("a finite network's forward pass on the CPU");
        values
            .to_vec1::<f32>()
            .expect("one value a state")
            .into_iter()
            .map(|v| f64::from(v) * self.chips_per_unit)
            .collect()
    }
}

impl Player for NetworkPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        self.policies(&[state], legal).remove(0)
    }

    fn policies(&mut self, states: &[&dyn State], legal: &[Action]) -> Vec<Vec<f64>> {
        self.played(states, &vec![legal; states.len()])
            .expect("a finite network's forward pass on the CPU")
    }

    fn policies_each(&mut self, states: &[&dyn State], legal: &[Vec<Action>]) -> Vec<Vec<f64>> {
        let rows: Vec<&[Action]> = legal.iter().map(Vec::as_slice).collect();
        self.played(states, &rows)
            .expect("a finite network's forward pass on the CPU")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_games::GameSpec;
    use rnad_net::{PolicyValueNet, TorsoKind};

    /// Leduc and the shape of a small dense MLP for it.
    fn leduc_network() -> (std::sync::Arc<dyn rnad_games::Game>, NetShape) {
        let game = "leduc_poker".parse::<GameSpec>().unwrap().load();
        let shape = NetShape {
            input: game.information_state_tensor_size(),
            torso: TorsoKind::Mlp,
            hidden: vec![16],
            actions: game.num_distinct_actions(),
            head: rnad_net::HeadKind::Dense,
            grouped: false,
            cards: None,
        };
        (game, shape)
    }

    /// On Leduc, where every state can also be tabulated, the player gives
    /// the tabulated network's probabilities, and a range of states in one
    /// call the same as one by one.
    #[test]
    fn matches_the_tabulated_network_state_by_state_and_batched() {
        let (game, shape) = leduc_network();
        let params = ParamSet::init(&shape, 3).unwrap();
        let mut player = NetworkPlayer::new(&shape, &params, false).unwrap();
        let tree = rnad_games::public_tree::PublicTree::build(game.clone()).unwrap();
        let inputs = crate::neural::NetworkInputs::new(&tree);
        let table = crate::neural::network_policy(&tree, &inputs, &shape, &params).unwrap();
        let index = tree.info_state_index();
        // Deal, then player 0 checks: player 1 acts holding each card.
        let mut compared = 0;
        let mut seen: Vec<(Box<dyn State>, Vec<f64>)> = Vec::new();
        for (first, second) in [(0, 1), (2, 5), (4, 3)] {
            let mut state = game.new_initial_state();
            state.apply_action(first);
            state.apply_action(second);
            state.apply_action(1);
            let legal = state.legal_actions();
            let one = player.policy(state.as_ref(), &legal);
            let two = player.policies(&[state.as_ref(), state.as_ref()], &legal);
            assert_eq!(two, vec![one.clone(), one.clone()]);
            let key = state.information_state_string(1);
            let (d, hand) = index[&key];
            let tabulated = &table.probs()[tree.decisions()[d].slots(hand)];
            for (p, t) in one.iter().zip(tabulated) {
                assert!((p - t).abs() < 1e-6, "{key}: {one:?} against {tabulated:?}");
            }
            compared += 1;
            seen.push((state.clone_box(), one));
            // A state facing a raise: other legal actions.
            let mut raised = state.clone_box();
            raised.apply_action(2);
            let legal = raised.legal_actions();
            let one = player.policy(raised.as_ref(), &legal);
            seen.push((raised, one));
        }
        assert_eq!(compared, 3);
        // Each its own legal actions, in one call: the same as one by one.
        let states: Vec<&dyn State> = seen.iter().map(|(s, _)| s.as_ref()).collect();
        let legal: Vec<Vec<Action>> = states.iter().map(|s| s.legal_actions()).collect();
        assert!(legal.windows(2).any(|w| w[0] != w[1]));
        let each = player.policies_each(&states, &legal);
        for ((_, one), batched) in seen.iter().zip(&each) {
            for (a, b) in one.iter().zip(batched) {
                assert!((a - b).abs() < 1e-6, "{one:?} against {batched:?}");
            }
        }
    }

    /// Greedy play puts everything on the action the network rates most
    /// probable.
    #[test]
    fn a_greedy_player_plays_the_networks_most_probable_action() {
        let (game, shape) = leduc_network();
        let params = ParamSet::init(&shape, 5).unwrap();
        let mut mixed = NetworkPlayer::new(&shape, &params, false).unwrap();
        let mut greedy = NetworkPlayer::new(&shape, &params, false).unwrap().greedy();
        let mut state = game.new_initial_state();
        state.apply_action(0);
        state.apply_action(3);
        let legal = state.legal_actions();
        let probs = mixed.policy(state.as_ref(), &legal);
        let best = (0..probs.len())
            .max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
            .unwrap();
        assert!(probs.iter().all(|&p| p > 0.0 && p < 1.0), "{probs:?}");
        let pure = greedy.policy(state.as_ref(), &legal);
        let expected: Vec<f64> = (0..probs.len())
            .map(|i| f64::from(u8::from(i == best)))
            .collect();
        assert_eq!(pure, expected);
    }

    /// A network that scores action groups, on a no-limit game whose
    /// every raise amount is an action: at every information state the
    /// player and the tabulated network (two ways of spreading) agree,
    /// each group's actions share its probability evenly, and the groups'
    /// probabilities are the network's softmax over the legal groups.
    #[test]
    fn a_grouped_network_shares_each_groups_probability_evenly() {
        let game = rnad_testkit::SMALL_FULL_GAME
            .parse::<GameSpec>()
            .unwrap()
            .load();
        let shape = NetShape::for_game(&*game, TorsoKind::Mlp, &[16])
            .with_action_groups(&*game)
            .unwrap();
        assert_eq!((shape.actions, game.num_distinct_actions()), (13, 11));
        let params = ParamSet::init(&shape, 3).unwrap();
        let mut player = NetworkPlayer::new(&shape, &params, false).unwrap();
        let tree = rnad_games::public_tree::PublicTree::build(game.clone()).unwrap();
        let inputs = crate::neural::NetworkInputs::new(&tree);
        let table = crate::neural::network_policy(&tree, &inputs, &shape, &params).unwrap();
        let net = PolicyValueNet::new(&shape, params.tensors()).unwrap();
        let (mut states, mut shared) = (0, 0);
        for (decision, hand) in tree.info_states() {
            let state = tree.representative_state(decision, hand);
            let Turn::Player(seat) = state.turn() else {
                panic!("an information state where no one acts")
            };
            let legal = state.legal_actions();
            let played = player.policy(state.as_ref(), &legal);
            let tabulated = &table.probs()[decision.slots(hand)];
            for (p, t) in played.iter().zip(tabulated) {
                assert!((p - t).abs() < 1e-6, "{played:?} against {tabulated:?}");
            }
            let mut obs = vec![0.0f32; shape.input];
            state.network_input(seat, &mut obs);
            let groups = state.legal_groups();
            let mut mask = vec![0.0f32; shape.actions];
            groups.iter().for_each(|g| mask[usize::from(g.id)] = 1.0);
            let row =
                |v: Vec<f32>| Tensor::from_vec(v.clone(), (1, v.len()), &Device::Cpu).unwrap();
            let softmax = net
                .policy(&row(obs), &row(mask))
                .unwrap()
                .flatten_all()
                .unwrap();
            let softmax = softmax.to_vec1::<f32>().unwrap();
            let mut at = 0;
            for g in &groups {
                let share = f64::from(softmax[usize::from(g.id)]) / g.actions.len() as f64;
                for p in &played[at..at + g.actions.len()] {
                    assert!((p - share).abs() < 1e-6, "{g:?}: {played:?}");
                }
                at += g.actions.len();
                shared += usize::from(g.actions.len() > 1);
            }
            assert_eq!(at, legal.len());
            states += 1;
        }
        assert!(
            states > 100 && shared > 100,
            "{states} states, {shared} shared groups"
        );
    }

    #[test]
    fn parameters_that_are_not_finite_are_refused() {
        let shape = NetShape {
            input: 4,
            torso: TorsoKind::Mlp,
            hidden: vec![3],
            actions: 2,
            head: rnad_net::HeadKind::Dense,
            grouped: false,
            cards: None,
        };
        let params = ParamSet::init(&shape, 0).unwrap();
        let mut tensors = params.tensors().to_vec();
        tensors[0] = (&tensors[0] * f64::NAN).unwrap();
        let broken = ParamSet::from_tensors(tensors);
        let error = NetworkPlayer::new(&shape, &broken, false).err().unwrap();
        assert!(error.to_string().contains("torso.0.weight"), "{error}");
    }
}
