//! Imperfect-information games with OpenSpiel's rules, named by OpenSpiel
//! specs ([`GameSpec`]) through one [`registry`].
//!
//! The traits mirror OpenSpiel's `Game` and `State` closely enough that
//! policies keyed by information-state string can be exchanged with it: every
//! game here produces OpenSpiel's information-state strings and tensors byte
//! for byte (checked against the fixtures in `fixtures/openspiel/`).
//!
//! Beyond OpenSpiel's interface, a game says how its private information is
//! dealt ([`Hands`], [`Game::deal`]) and, at a terminal state, how its
//! returns depend on the private hands ([`State::payoff`]). In every game
//! here all moves after the deal are public, so these two are what exact
//! evaluation over public states ([`crate::public_tree`]) needs.

use std::fmt;

use crate::GameSpec;

/// An action id, as OpenSpiel numbers them (`0..num_distinct_actions` for
/// players, outcome ids for chance).
pub type Action = usize;

/// Whose turn it is in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Nature moves: sample from [`State::chance_outcomes`].
    Chance,
    /// The given player (0-based) acts.
    Player(usize),
    /// The game is over: read [`State::returns`].
    Terminal,
}

/// How a game deals each player's private information.
#[derive(Clone, Debug, PartialEq)]
pub enum Hands {
    /// Each player gets one card of a deck of `cards` (hand `c` is card
    /// `c`), dealt without replacement and uniformly; public chance moves
    /// later draw cards uniformly from the rest (outcome `c` is card `c`).
    Cards {
        /// Cards in the deck.
        cards: usize,
    },
    /// Each player's hand is drawn independently, hand `h` with
    /// probability `probabilities[h]`; there are no public chance moves.
    Independent {
        /// Probability of each hand.
        probabilities: Vec<f64>,
    },
}

impl Hands {
    /// Number of distinct hands a player can hold.
    pub fn count(&self) -> usize {
        match self {
            Hands::Cards { cards } => *cards,
            Hands::Independent { probabilities } => probabilities.len(),
        }
    }
}

/// How the returns of a finished game depend on the players' private hands,
/// read from public information only.
#[derive(Clone, Debug, PartialEq)]
pub enum Payoff {
    /// Each player's return, whatever the hands.
    Fixed(Vec<f64>),
    /// The pot goes to the strongest hands among `contenders` (split evenly
    /// on a tie); each player's return is its share minus its contribution.
    Showdown {
        /// Chips in the pot.
        pot: f64,
        /// What each player put in.
        contributions: Vec<f64>,
        /// The players still in the hand.
        contenders: Vec<usize>,
        /// The strength of each hand (higher wins).
        strength: Vec<u32>,
    },
    /// Two players: player 0's return for each (hand of player 0, hand of
    /// player 1); player 1 gets the opposite.
    Table {
        /// Hands per player (the table is `hands x hands`).
        hands: usize,
        /// Player 0's returns, row-major by player 0's hand.
        player0: Vec<f64>,
    },
}

impl Payoff {
    /// Every player's return when the players hold `hands`.
    pub fn returns(&self, hands: &[usize]) -> Vec<f64> {
        match self {
            Payoff::Fixed(returns) => returns.clone(),
            Payoff::Showdown {
                pot,
                contributions,
                contenders,
                strength,
            } => {
                let best = contenders.iter().map(|&p| strength[hands[p]]).max();
                let winners: Vec<usize> = contenders
                    .iter()
                    .copied()
                    .filter(|&p| Some(strength[hands[p]]) == best)
                    .collect();
                let share = pot / winners.len() as f64;
                contributions
                    .iter()
                    .enumerate()
                    .map(|(p, c)| if winners.contains(&p) { share - c } else { -c })
                    .collect()
            }
            Payoff::Table {
                hands: width,
                player0,
            } => {
                let value = player0[hands[0] * width + hands[1]];
                vec![value, -value]
            }
        }
    }
}

/// A game: its dimensions and its initial state.
pub trait Game: Send + Sync + fmt::Debug {
    /// Which game this is, with its parameters.
    fn spec(&self) -> &GameSpec;
    /// Number of players.
    fn num_players(&self) -> usize;
    /// Number of distinct player actions; action ids are `0..this`.
    fn num_distinct_actions(&self) -> usize;
    /// Length of [`State::information_state_tensor`].
    fn information_state_tensor_size(&self) -> usize;
    /// Most player actions any game can take (chance moves not counted).
    fn max_game_length(&self) -> usize;
    /// The lowest and highest return any player can get.
    fn utility_range(&self) -> (f64, f64);
    /// Whether the returns of every finished game sum to zero.
    fn is_zero_sum(&self) -> bool;
    /// How private information is dealt, where hands can be enumerated for
    /// exact evaluation (`None` for games whose hands are too many or whose
    /// showdowns are not a single pot).
    fn hands(&self) -> Option<Hands>;
    /// The chance outcomes that deal hand `hands[p]` to each player `p`,
    /// in the order the initial state asks for them.
    fn deal(&self, hands: &[usize]) -> Vec<Action>;
    /// The state before the first chance move.
    fn new_initial_state(&self) -> Box<dyn State>;
    /// Where [`State::network_input`] holds cards, for networks that see
    /// them as grids (`None`: nowhere, or not as one-hot blocks).
    fn card_layout(&self) -> Option<CardLayout> {
        None
    }
    /// How many action groups [`State::legal_groups`] numbers, where the
    /// game groups its actions for policies that score groups instead of
    /// actions (`None`: it does not; every action is its own group).
    fn num_action_groups(&self) -> Option<usize> {
        None
    }
}

/// Consecutive legal actions that a grouped policy scores as one: it gives
/// the group a probability and shares it evenly among the group's actions.
/// Where a state has thousands of legal actions that differ in degree (a
/// no-limit bet of every size), a policy over a dozen groups costs what a
/// dozen actions cost and still plays every action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionGroup {
    /// The group's number, below [`Game::num_action_groups`].
    pub id: u16,
    /// Its legal actions.
    pub actions: std::ops::Range<Action>,
}

impl ActionGroup {
    /// The probability of each of `legal` (in increasing order, every one
    /// in one of `groups`) under a policy that gives group `id`
    /// probability `of_group(id)` and shares it evenly among the group's
    /// actions.
    pub fn spread(
        groups: &[ActionGroup],
        legal: &[Action],
        of_group: impl Fn(u16) -> f64,
    ) -> Vec<f64> {
        let mut groups = groups.iter().peekable();
        legal
            .iter()
            .map(|&a| {
                while groups.next_if(|g| g.actions.end <= a).is_some() {}
                let g = groups
                    .peek()
                    .filter(|g| g.actions.contains(&a))
                    .unwrap_or_else(|| panic!("action {a} is in none of the groups"));
                of_group(g.id) / g.actions.len() as f64
            })
            .collect()
    }

    /// `action` as a group of its own, numbered by itself.
    pub fn alone(action: Action) -> ActionGroup {
        ActionGroup {
            id: u16::try_from(action).expect("the registry's games have under 65,536 actions"),
            actions: action..action + 1,
        }
    }
}

/// Cards in a network input: blocks of one-hot entries, one per card of
/// the deck, card `rank · suits + suit` at entry `block + rank · suits +
/// suit`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CardLayout {
    /// Suits of the deck.
    pub suits: usize,
    /// Ranks of the deck.
    pub ranks: usize,
    /// Where each block starts (the player's cards, the board, …).
    pub blocks: Vec<usize>,
}

/// A position in a game. Cheap to clone; applying an action mutates it.
pub trait State: Send + fmt::Debug {
    /// Whose turn it is.
    fn turn(&self) -> Turn;
    /// Legal player actions in increasing order (empty at chance and terminal
    /// states).
    fn legal_actions(&self) -> Vec<Action>;
    /// The legal actions as [`ActionGroup`]s in increasing order (of ids
    /// and of actions; together exactly [`State::legal_actions`]), where
    /// the game groups its actions ([`Game::num_action_groups`]); elsewhere
    /// each legal action alone, numbered by itself.
    fn legal_groups(&self) -> Vec<ActionGroup> {
        self.legal_actions()
            .into_iter()
            .map(ActionGroup::alone)
            .collect()
    }
    /// Chance outcomes with their probabilities (empty unless [`Turn::Chance`]).
    fn chance_outcomes(&self) -> Vec<(Action, f64)>;
    /// Every move that can come next: the chance outcomes (without their
    /// probabilities) at a chance node, the legal actions at a decision,
    /// none at the end.
    fn moves(&self) -> Vec<Action> {
        match self.turn() {
            Turn::Chance => self.chance_outcomes().into_iter().map(|(a, _)| a).collect(),
            _ => self.legal_actions(),
        }
    }
    /// Applies a legal player action or a possible chance outcome.
    ///
    /// # Panics
    /// On an illegal action: callers choose among `legal_actions` or
    /// `chance_outcomes`.
    fn apply_action(&mut self, action: Action);
    /// Each player's total reward; all zero before the end.
    fn returns(&self) -> Vec<f64>;
    /// At a terminal state, how the returns depend on the private hands
    /// (from public information only).
    fn payoff(&self) -> Payoff;
    /// OpenSpiel's information-state string for `player`.
    fn information_state_string(&self, player: usize) -> String;
    /// OpenSpiel's information-state tensor for `player`, written into `out`
    /// (length [`Game::information_state_tensor_size`]).
    fn information_state_tensor(&self, player: usize, out: &mut [f32]);
    /// What a policy-value network reads for `player` (same length as the
    /// tensor): OpenSpiel's tensor with any amounts (chips) given as
    /// fractions of the most a player can put in, so that every entry lies
    /// in [0, 1] and no input dwarfs the others. The tensor itself in every
    /// game whose tensor holds no amounts.
    fn network_input(&self, player: usize, out: &mut [f32]) {
        self.information_state_tensor(player, out);
    }
    /// A boxed copy of this state.
    fn clone_box(&self) -> Box<dyn State>;
    /// This state as its own type, for players written for one game
    /// (Daihinmin's rule-based and Monte-Carlo players read its cards).
    fn as_any(&self) -> &dyn std::any::Any;
    /// Where this finished state is one game of a series that self-play
    /// plays as separate episodes (Daihinmin's games of a UECda match),
    /// the state the next episode starts from; none where the next
    /// episode is a fresh initial state.
    fn next_episode(&self) -> Option<Box<dyn State>> {
        None
    }
}

impl Clone for Box<dyn State> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: groups {0}, {2, 3, 4} and {7, 8} at probabilities
    /// 0.4, 0.3 and 0.3; legal actions asked in part.
    #[test]
    fn a_groups_probability_is_shared_evenly_among_its_actions() {
        let groups = [
            ActionGroup {
                id: 0,
                actions: 0..1,
            },
            ActionGroup {
                id: 1,
                actions: 2..5,
            },
            ActionGroup {
                id: 5,
                actions: 7..9,
            },
        ];
        let of_group = |id: u16| match id {
            0 => 0.4,
            1 => 0.3,
            _ => 0.3,
        };
        let close = |got: Vec<f64>, want: &[f64]| {
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-12, "{got:?} against {want:?}");
            }
        };
        close(
            ActionGroup::spread(&groups, &[0, 2, 3, 4, 7, 8], of_group),
            &[0.4, 0.1, 0.1, 0.1, 0.15, 0.15],
        );
        close(
            ActionGroup::spread(&groups, &[3, 8], of_group),
            &[0.1, 0.15],
        );
    }

    #[test]
    fn showdown_payoffs_split_the_pot_among_the_strongest_contenders() {
        let payoff = Payoff::Showdown {
            pot: 9.0,
            contributions: vec![3.0, 3.0, 3.0],
            contenders: vec![0, 2],
            strength: vec![1, 5, 5, 0],
        };
        // Player 1 folded with the strongest card: it does not count.
        assert_eq!(payoff.returns(&[2, 1, 0]), vec![6.0, -3.0, -3.0]);
        // A tie among contenders splits the pot.
        assert_eq!(payoff.returns(&[1, 0, 2]), vec![1.5, -3.0, 1.5]);
        let table = Payoff::Table {
            hands: 2,
            player0: vec![1.0, -1.0, 0.5, 2.0],
        };
        assert_eq!(table.returns(&[1, 0]), vec![0.5, -0.5]);
    }
}
