//! The full game's actions in a dozen groups, for policies that score
//! groups ([`crate::Game::num_action_groups`]): fold, check/call, the
//! smallest raise, raises by their size as a fraction of the pot after
//! calling (OpenSpiel's pot-sized bet measure) in eight bands whose
//! centres are the sizes players bet (half, three quarters, one, one and a
//! half, two, three pots, …), and all-in. Under `fullgame` a no-limit
//! state has a legal action for every raise-to amount from the minimum to
//! the stack, thousands of them; a group is a run of consecutive amounts,
//! so a policy over groups that shares each group's probability evenly
//! still plays every amount.

use super::betting::Betting;
use super::params::Rules;
use crate::{Action, ActionGroup};

/// Groups there are: fold, call, the smallest raise, [`BANDS`]` + 1`
/// bands, all-in.
pub const GROUPS: usize = 3 + BANDS.len() + 1 + 1;

/// Upper ends of the bands of raises between the smallest and all-in, as
/// fractions of the pot after calling; the last band has no upper end.
const BANDS: [f64; 8] = [0.375, 0.625, 0.875, 1.25, 1.75, 2.5, 4.0, 8.0];

const FOLD: u16 = 0;
const CALL: u16 = 1;
const SMALLEST_RAISE: u16 = 2;
const FIRST_BAND: u16 = 3;
const ALL_IN: u16 = GROUPS as u16 - 1;

/// The legal actions of the player to act in `betting` in groups: fold
/// where it may fold, call, and where it may raise to `least..=most`
/// chips, the smallest raise, the bands that hold any amount strictly
/// between, and all-in (`most`; a raise that can only be all-in is
/// all-in).
pub(super) fn full_game_groups(betting: &Betting, rules: &Rules) -> Vec<ActionGroup> {
    let one = |id: u16, action: Action| ActionGroup {
        id,
        actions: action..action + 1,
    };
    let mut groups = Vec::with_capacity(GROUPS);
    if betting.can_fold(rules) {
        groups.push(one(FOLD, 0));
    }
    groups.push(one(CALL, 1));
    let Some((least, most)) = betting.raise_range(rules) else {
        return groups;
    };
    if least < most {
        groups.push(one(SMALLEST_RAISE, least as Action));
        // Band b holds the amounts above band b - 1's upper end up to its
        // own, clipped to the amounts strictly between least and most.
        let mut next = least + 1;
        for (b, id) in (0..=BANDS.len()).zip(FIRST_BAND..) {
            let top = match BANDS.get(b) {
                Some(&fraction) => betting.pot_raise_to(rules, fraction).min(most - 1),
                None => most - 1,
            };
            if top >= next {
                groups.push(ActionGroup {
                    id,
                    actions: next as Action..top as Action + 1,
                });
                next = top + 1;
            }
        }
    }
    groups.push(one(ALL_IN, most as Action));
    groups
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::{Game, GameSpec, Turn};

    /// Seed 004's hold'em with every raise size an action.
    fn full_game() -> std::sync::Arc<dyn Game> {
        super::super::HEADS_UP_NO_LIMIT
            .replace("bettingAbstraction=fchpa", "bettingAbstraction=fullgame")
            .parse::<GameSpec>()
            .unwrap()
            .load()
    }

    fn ranges(groups: &[ActionGroup]) -> Vec<(u16, Action, Action)> {
        groups
            .iter()
            .map(|g| (g.id, g.actions.start, g.actions.end - 1))
            .collect()
    }

    /// Before the flop the small blind (50 in, facing 100) has a pot of
    /// 200 after calling, may raise to 200 through 5,000: worked by hand,
    /// the band tops are 100 + 200·fraction (0.375 pots: 175, below the
    /// smallest raise, so that band is empty).
    #[test]
    fn the_small_blinds_first_decision_in_groups_worked_by_hand() {
        let game = full_game();
        assert_eq!(game.num_action_groups(), Some(13));
        let mut state = game.new_initial_state();
        for card in 0..4 {
            state.apply_action(card);
        }
        assert_eq!(state.turn(), Turn::Player(1));
        assert_eq!(
            ranges(&state.legal_groups()),
            [
                (0, 0, 0),
                (1, 1, 1),
                (2, 200, 200),
                (4, 201, 225),
                (5, 226, 275),
                (6, 276, 350),
                (7, 351, 450),
                (8, 451, 600),
                (9, 601, 900),
                (10, 901, 1700),
                (11, 1701, 4999),
                (12, 5000, 5000),
            ]
        );
        // After a call, the big blind checks for free (no fold) and may
        // raise to 200 through 5,000 with a pot of 200: the same tops.
        state.apply_action(1);
        let groups = state.legal_groups();
        assert_eq!(
            ranges(&groups[..3]),
            [(1, 1, 1), (2, 200, 200), (4, 201, 225)]
        );
        // All-in facing all-in: only fold and call are left.
        state.apply_action(5000);
        assert_eq!(ranges(&state.legal_groups()), [(0, 0, 0), (1, 1, 1)]);
    }

    /// Along random games, the groups are exactly the legal actions in
    /// order, numbered in increasing order below the count, and each band
    /// holds only raises whose pot fraction lies in it.
    #[test]
    fn groups_cover_the_legal_actions_in_order_along_random_games() {
        let game = full_game();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut decisions = 0;
        for _ in 0..300 {
            let mut state = game.new_initial_state();
            while state.turn() != Turn::Terminal {
                if state.turn() == Turn::Chance {
                    let outcomes = state.chance_outcomes();
                    state.apply_action(outcomes[rng.random_range(0..outcomes.len())].0);
                    continue;
                }
                let (legal, groups) = (state.legal_actions(), state.legal_groups());
                let flat: Vec<Action> = groups.iter().flat_map(|g| g.actions.clone()).collect();
                assert_eq!(flat, legal);
                assert!(groups.windows(2).all(|w| w[0].id < w[1].id));
                assert!(groups
                    .iter()
                    .all(|g| usize::from(g.id) < GROUPS && !g.actions.is_empty()));
                let poker = state
                    .as_any()
                    .downcast_ref::<super::super::UniversalPokerState>();
                let spent = poker.unwrap().spent().to_vec();
                let (max_spent, total) = (*spent.iter().max().unwrap(), spent.iter().sum::<i64>());
                let to_call = max_spent - spent[usize::from(state.turn() == Turn::Player(1))];
                let pot = (total + to_call) as f64;
                for g in groups
                    .iter()
                    .filter(|g| (FIRST_BAND..ALL_IN).contains(&g.id))
                {
                    let b = usize::from(g.id - FIRST_BAND);
                    for r in [g.actions.start, g.actions.end - 1] {
                        let fraction = (r as f64 - max_spent as f64) / pot;
                        let low = if b == 0 { 0.0 } else { BANDS[b - 1] };
                        let high = BANDS.get(b).copied().unwrap_or(f64::INFINITY);
                        // Band tops are rounded to whole chips.
                        let slack = 0.5 / pot;
                        assert!(
                            fraction > low - slack && fraction <= high + slack,
                            "raise to {r} is {fraction} pots, in band {b}"
                        );
                    }
                }
                decisions += 1;
                // Mostly calls and small raises, so that games go deep.
                let group = &groups[rng.random_range(0..groups.len())];
                let action = if rng.random_bool(0.6) {
                    1
                } else {
                    rng.random_range(group.actions.clone())
                };
                state.apply_action(action);
            }
        }
        assert!(decisions > 1000, "{decisions}");
    }

    /// Games without groups give each legal action alone.
    #[test]
    fn other_betting_gives_each_action_alone() {
        let game = super::super::HEADS_UP_NO_LIMIT
            .parse::<GameSpec>()
            .unwrap()
            .load();
        assert_eq!(game.num_action_groups(), None);
        let mut state = game.new_initial_state();
        for card in 0..4 {
            state.apply_action(card);
        }
        let alone: Vec<ActionGroup> = state
            .legal_actions()
            .into_iter()
            .map(ActionGroup::alone)
            .collect();
        assert_eq!(state.legal_groups(), alone);
    }
}
