//! OpenSpiel's `universal_poker`: poker games described by ACPC game
//! definitions (limit or no-limit, 2–10 players, 1–4 betting rounds, any
//! blinds, stacks, deck and board), played as OpenSpiel 2.0.2 plays them so
//! that action ids, chance outcomes, information-state strings and tensors
//! and returns are byte-identical with pyspiel's.
//!
//! What OpenSpiel adds to the ACPC rules, and this module reproduces:
//!
//! * Cards are dealt by chance nodes one at a time: every hole card first,
//!   player 0's then player 1's and so on, then each round's board cards
//!   once its betting has closed. The deck is the lowest `numRanks` ranks in
//!   the first `numSuits` suits (`c`, `d`, `h`, `s`); chance outcome
//!   `rank·numSuits + suit` deals that card.
//! * Player actions are an abstraction of ACPC's bets (see `betting.rs`): fold
//!   0, check/call 1, and under `fcpa`/`fchpa` a pot-sized bet 2, all-in 3
//!   and (`fchpa`) half-pot 4; under `fullgame`, action `n ≥ 2` raises to
//!   `n` chips in all.
//! * Parameters that are lists (`blind=100 50`) are space-separated, and
//!   `firstPlayer` counts seats from 1.
//!
//! Where OpenSpiel would crash (a stack below a blind, too few board-card
//! counts: its ACPC parser returns nothing and the process segfaults) or
//! plays something broken (limit betting with `fullgame` lists action 0
//! twice and no raise), the spec is refused with the reason instead.

pub mod acpc_log;
pub(crate) mod betting;
mod groups;
mod params;
pub mod ranking;
mod state;

use std::sync::Arc;

use crate::{Action, CardLayout, Game, GameSpec, Hands, State};

use params::Rules;
pub(crate) use params::INFO;
pub use params::{Abstraction, HEADS_UP_NO_LIMIT};
pub use state::UniversalPokerState;

/// A `universal_poker` game.
#[derive(Clone, Debug)]
pub struct UniversalPoker {
    spec: GameSpec,
    rules: Arc<Rules>,
}

impl UniversalPoker {
    /// The game of `spec`, if `spec` names this game (what code outside
    /// the games layer asks instead of comparing names).
    pub fn of(spec: &GameSpec) -> Option<UniversalPoker> {
        (spec.name() == INFO.name).then(|| UniversalPoker::new(spec.clone()))
    }

    /// The game a checked spec describes.
    pub fn new(spec: GameSpec) -> UniversalPoker {
        let rules = Arc::new(Rules::from_spec(&spec));
        UniversalPoker { spec, rules }
    }

    /// The betting abstraction the players choose their actions in.
    pub fn abstraction(&self) -> Abstraction {
        self.rules.abstraction
    }

    /// The initial state, typed.
    pub fn initial_state(&self) -> UniversalPokerState {
        UniversalPokerState::new(self.rules.clone())
    }
}

impl Game for UniversalPoker {
    fn spec(&self) -> &GameSpec {
        &self.spec
    }

    fn num_players(&self) -> usize {
        self.rules.players
    }

    fn num_distinct_actions(&self) -> usize {
        self.rules.num_distinct_actions
    }

    fn information_state_tensor_size(&self) -> usize {
        let r = &self.rules;
        r.players + 2 * r.deck_size() + 3 * r.max_game_length
    }

    fn max_game_length(&self) -> usize {
        self.rules.max_game_length
    }

    fn utility_range(&self) -> (f64, f64) {
        self.rules.utility_range()
    }

    /// The hole cards after the player's one-hot seat, then the board.
    fn card_layout(&self) -> Option<CardLayout> {
        let (players, deck) = (self.rules.players, self.rules.deck_size());
        Some(CardLayout {
            suits: self.rules.suits,
            ranks: self.rules.ranks,
            blocks: vec![players, players + deck],
        })
    }

    fn is_zero_sum(&self) -> bool {
        true
    }

    /// No-limit betting under `fullgame` groups its raises
    /// (`groups.rs`): thousands of amounts in a dozen groups.
    fn num_action_groups(&self) -> Option<usize> {
        self.rules
            .every_amount_an_action()
            .then_some(groups::GROUPS)
    }

    /// One card a player when each holds one hole card and every stack is
    /// the same (so that every showdown is a single pot); exact evaluation
    /// over hands is out of reach otherwise.
    fn hands(&self) -> Option<Hands> {
        let r = &self.rules;
        let equal_stacks = r.stacks[..r.players].iter().all(|&s| s == r.stacks[0]);
        (r.hole_cards == 1 && equal_stacks).then(|| Hands::Cards {
            cards: r.deck_size(),
        })
    }

    fn deal(&self, hands: &[usize]) -> Vec<Action> {
        hands.to_vec()
    }

    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(self.initial_state())
    }
}
