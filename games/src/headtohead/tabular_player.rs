//! A tabular policy as a [`Player`]: the policy's row at the information
//! state the player sees, for the algorithms that play state by state (a
//! learned best response's frozen seats, LBR) against a policy given as a
//! table.

use std::collections::HashMap;

use super::sampled::Player;
use crate::policy::TabularPolicy;
use crate::public_tree::PublicTree;
use crate::{Action, State, Turn};

/// `policy` looked up by information-state string.
#[derive(Clone, Debug)]
pub struct TabularPlayer {
    rows: HashMap<String, Vec<f64>>,
}

impl TabularPlayer {
    /// The player of `policy`, a policy over `tree`.
    pub fn new(tree: &PublicTree, policy: &TabularPolicy) -> TabularPlayer {
        let rows = tree
            .info_state_index()
            .into_iter()
            .map(|(key, (d, hand))| {
                let slots = tree.decisions()[d].slots(hand);
                (key, policy.probs()[slots].to_vec())
            })
            .collect();
        TabularPlayer { rows }
    }
}

impl Player for TabularPlayer {
    /// # Panics
    ///
    /// At a state of another game, or where no player acts: a caller's
    /// mistake, not the policy's.
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        let Turn::Player(p) = state.turn() else {
            panic!("a tabular player is asked to act where no player acts");
        };
        let key = state.information_state_string(p);
        let row = self
            .rows
            .get(&key)
            .unwrap_or_else(|| panic!("the policy has no information state {key:?}"));
        assert_eq!(
            row.len(),
            legal.len(),
            "{key}: one probability a legal action"
        );
        row.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameSpec;

    /// On Kuhn the player reads the table's row at each information state.
    #[test]
    fn plays_the_tables_row_at_each_information_state() {
        let tree = PublicTree::build("kuhn_poker".parse::<GameSpec>().unwrap().load()).unwrap();
        let policy = TabularPolicy::pure(&tree, |decision, _| decision.legal_actions[1]);
        let mut player = TabularPlayer::new(&tree, &policy);
        let game = tree.game();
        let mut state = game.new_initial_state();
        state.apply_action(2);
        state.apply_action(0);
        assert_eq!(
            player.policy(state.as_ref(), &state.legal_actions()),
            vec![0.0, 1.0]
        );
        state.apply_action(1);
        assert_eq!(
            player.policy(state.as_ref(), &state.legal_actions()),
            vec![0.0, 1.0]
        );
    }
}
