//! Local best response (Lisý & Bowling, 2017, as PokerRL implements it): a
//! lower bound on how much a heads-up poker player can be exploited, for
//! games far too large for an exact best response.
//!
//! LBR plays one seat against the player. It keeps the player's range, a
//! weight for every hole-card combination the player may hold given what
//! LBR sees (its own cards and the board, never the player's cards),
//! updated by Bayes' rule at each of the player's actions with the
//! probability the player's policy gives that action holding each
//! combination. At its own decisions LBR looks one step ahead assuming the
//! hand then goes to a showdown:
//!
//! * checking or calling is worth its equity against the range times what
//!   it would win, less what it would lose;
//! * a bet is worth the range's probability of folding to it times the
//!   opponent's chips in the pot, plus the rest times the showdown value
//!   after a call, with the equity against the hands that call (the range
//!   re-weighted by each hand's probability of not folding: a player who
//!   folds its weak hands calls with its strong ones);
//! * folding loses what LBR has put in.
//!
//! It takes the best. Before `call_before_round` it only folds or calls,
//! by the same values (the published settings check and call to the turn).
//! Equity is the share of the range LBR's hand beats (ties half) over every
//! board to come where there are at most `max_boards` of them (the turn and
//! river, and hold'em's flop: 990 boards), and over `max_boards` boards
//! drawn at random otherwise; every value at one decision is priced on the
//! same boards, so noise in the equity does not favour one action.

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::headtohead::sampled::{Player, Stopped};
use crate::headtohead::stats::mean_and_ci95;
use crate::sampling::inverse_cdf;
use crate::universal_poker::{UniversalPoker, UniversalPokerState};
use crate::{Action, Game, State, Turn};

const FOLD: Action = 0;
const CALL: Action = 1;

/// Boards priced for equity unless told otherwise: in hold'em every
/// board from the flop on (990 at most), a thousand drawn preflop. A
/// hand's equity against a range varies from board to board by about 0.3,
/// so an all-in's value, (2·equity − 1) times the stack, varies by about
/// 2% of the stack over a thousand boards, where 32 let it vary by 10%.
pub const DEFAULT_MAX_BOARDS: usize = 1000;

/// One of LBR's standard settings: the raises it considers, and the round
/// before which it only folds or calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LbrSetting {
    /// Its name (the bets, and `-turn` where it bets from the turn on).
    pub name: &'static str,
    /// Raise action ids (`universal_poker`'s pot 2, all-in 3, half-pot 4).
    pub bets: &'static [Action],
    /// The first round it bets in.
    pub call_before_round: usize,
}

/// The settings LBR is reported at: fold or call only; fold, call, pot and
/// all-in from the first round; the same from the turn, folding or calling
/// before it (the setting published for no-limit hold'em); and half-pot
/// besides. The best over them is the estimate to quote (each is a lower
/// bound; the best is the tightest, though its noise is the largest of
/// theirs).
pub const STANDARD_SETTINGS: [LbrSetting; 4] = [
    LbrSetting {
        name: "fc",
        bets: &[],
        call_before_round: 0,
    },
    LbrSetting {
        name: "fcpa",
        bets: &[2, 3],
        call_before_round: 0,
    },
    LbrSetting {
        name: "fcpa-turn",
        bets: &[2, 3],
        call_before_round: 2,
    },
    LbrSetting {
        name: "fchpa",
        bets: &[2, 3, 4],
        call_before_round: 0,
    },
];

/// How LBR plays.
#[derive(Clone, Debug)]
pub struct LbrOptions {
    /// Hands to play, LBR alternating seats.
    pub hands: usize,
    /// Seed of the cards, the player's sampled actions and the sampled
    /// boards.
    pub seed: u64,
    /// The raise actions LBR considers (none: it only folds, checks and
    /// calls).
    pub bets: Vec<Action>,
    /// LBR only folds, checks or calls before this betting round (the
    /// published "call to the turn" is round 2).
    pub call_before_round: usize,
    /// Boards priced for equity: all of them where there are no more, a
    /// uniform sample of this many otherwise.
    pub max_boards: usize,
}

/// What LBR won.
#[derive(Clone, Debug, Serialize)]
pub struct LbrReport {
    /// The game.
    pub game: String,
    /// Hands played.
    pub hands: usize,
    /// LBR's mean winnings per hand, in chips.
    pub mean: f64,
    /// Half-width of the 95% interval of `mean`.
    pub ci95: f64,
    /// `mean` in milli-big-blinds per hand.
    pub mbb_per_hand: f64,
    /// `ci95` in milli-big-blinds.
    pub ci95_mbb: f64,
    /// Hands per second.
    pub hands_per_second: f64,
}

/// Why LBR gave no report.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LbrError {
    /// LBR cannot play this game (the message says why).
    #[error("{0}")]
    Unsupported(String),
    /// The player's range lost every hand: it took actions its own
    /// policy gives no chance with any hand LBR thought it might hold, so
    /// its policy is not a fixed function of what it sees (it is random in
    /// itself, or changed during the hand) and Bayes' rule has nothing
    /// left to update.
    #[error(
        "in hand {hand} the player's actions had probability 0 under its own policy with every \
         hand it may hold: LBR needs a player whose policy is a fixed function of its \
         information state"
    )]
    EmptyRange {
        /// The hand (from 0).
        hand: usize,
    },
    /// Its caller stopped it between hands.
    #[error(transparent)]
    Stopped(#[from] Stopped),
}

/// Every combination of `k` cards of the deck's `cards` cards.
fn combinations(cards: usize, k: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut pick = Vec::with_capacity(k);
    fn walk(start: usize, cards: usize, k: usize, pick: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if pick.len() == k {
            out.push(pick.clone());
            return;
        }
        for c in start..cards {
            pick.push(c as u8);
            walk(c + 1, cards, k, pick, out);
            pick.pop();
        }
    }
    walk(0, cards, k, &mut pick, &mut out);
    out
}

fn mask(cards: &[u8]) -> u64 {
    cards.iter().fold(0, |m, &c| m | (1 << c))
}

/// The opponent's range: every hole-card combination with its weight.
struct Range {
    combos: Vec<Vec<u8>>,
    masks: Vec<u64>,
    weights: Vec<f64>,
}

impl Range {
    fn new(combos: &[Vec<u8>]) -> Range {
        Range {
            masks: combos.iter().map(|c| mask(c)).collect(),
            combos: combos.to_vec(),
            weights: vec![1.0; combos.len()],
        }
    }

    /// Drops the combinations holding any of `seen`.
    fn exclude(&mut self, seen: u64) {
        for (w, m) in self.weights.iter_mut().zip(&self.masks) {
            if m & seen != 0 {
                *w = 0.0;
            }
        }
    }

    /// The player's policy at `state`, where it sits in `seat` with each
    /// live combination of the range in its hand: one call to
    /// [`Player::policies`] over them all.
    fn policies(
        &self,
        player: &mut dyn Player,
        state: &UniversalPokerState,
        seat: usize,
        legal: &[Action],
    ) -> RangePolicies {
        let live: Vec<usize> = (0..self.combos.len())
            .filter(|&i| self.weights[i] != 0.0)
            .collect();
        let views: Vec<UniversalPokerState> = live
            .iter()
            .map(|&i| state.with_hole_cards(seat, &self.combos[i]))
            .collect();
        let refs: Vec<&dyn State> = views.iter().map(|v| v as &dyn State).collect();
        let policies = player.policies(&refs, legal);
        RangePolicies { live, policies }
    }

    /// The range's probability of choosing the `k`th legal action under
    /// `policies`, summed with the weights (Bayes' numerator).
    fn action_weight(&self, policies: &RangePolicies, k: usize) -> f64 {
        policies
            .live
            .iter()
            .zip(&policies.policies)
            .map(|(&i, policy)| self.weights[i] * policy[k])
            .sum()
    }

    /// Bayes' update for the player choosing the `k`th legal action, the
    /// weights then scaled to sum to one (a long hand of small
    /// probabilities would otherwise underflow); false where no weight is
    /// left.
    fn update(&mut self, policies: &RangePolicies, k: usize) -> bool {
        self.weights = self.weights_times(policies, |policy| policy[k]);
        let total = self.total();
        if total > 0.0 {
            self.weights.iter_mut().for_each(|w| *w /= total);
        }
        total > 0.0
    }

    fn total(&self) -> f64 {
        self.weights.iter().sum()
    }

    /// The weights, each live combination's times `factor` of its policy
    /// under `policies` (the dead stay 0).
    fn weights_times(&self, policies: &RangePolicies, factor: impl Fn(&[f64]) -> f64) -> Vec<f64> {
        let mut weights = self.weights.clone();
        for (&i, policy) in policies.live.iter().zip(&policies.policies) {
            weights[i] *= factor(policy);
        }
        weights
    }
}

/// The player's policy at one state for each live combination of its range
/// (`policies[j]` holding `live[j]`). A policy depends on the state alone, so
/// what LBR computed to price a bet serves again when the player answers it:
/// at a network that is the larger part of LBR's time.
struct RangePolicies {
    live: Vec<usize>,
    policies: Vec<Vec<f64>>,
}

/// LBR's showdowns with `hole` against each combination of the range over
/// the boards to come: for each, the boards it can meet (those not holding
/// its cards) and LBR's share of them (1 a win, ½ a tie). Any weighting of
/// the range then prices its equity in one pass over the combinations.
struct Showdowns {
    met: Vec<f64>,
    won: Vec<f64>,
}

impl Showdowns {
    /// The showdowns at `state`, the boards drawn from `free` (the cards
    /// LBR has not seen: never the player's real hole cards, which LBR
    /// does not know), against every combination of `combos` that `free`
    /// holds whatever its weight (so that they serve again whatever the
    /// range).
    fn new(
        state: &UniversalPokerState,
        hole: &[u8],
        combos: &Range,
        free: u64,
        max_boards: usize,
        rng: &mut ChaCha8Rng,
    ) -> Showdowns {
        let free_cards: Vec<u8> = (0..64u8).filter(|&c| free & (1 << c) != 0).collect();
        let boards = boards(&free_cards, state.board_cards_to_come(), max_boards, rng);
        let possible: Vec<usize> = (0..combos.combos.len())
            .filter(|&i| combos.masks[i] & !free == 0)
            .collect();
        let (mut met, mut won) = (
            vec![0.0; combos.combos.len()],
            vec![0.0; combos.combos.len()],
        );
        for board in &boards {
            let board_mask = mask(board);
            let mine = state.strength_with_board(hole, board);
            for &i in &possible {
                if combos.masks[i] & board_mask != 0 {
                    continue;
                }
                let theirs = state.strength_with_board(&combos.combos[i], board);
                met[i] += 1.0;
                won[i] += match mine.cmp(&theirs) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
            }
        }
        Showdowns { met, won }
    }

    /// LBR's equity against the range weighted `weight(i)` for its `i`th
    /// combination; none where no combination it can meet has weight.
    fn equity(&self, weight: impl Fn(usize) -> f64) -> Option<f64> {
        let (mut won, mut met) = (0.0, 0.0);
        for i in 0..self.met.len() {
            let w = weight(i);
            if w != 0.0 {
                won += w * self.won[i];
                met += w * self.met[i];
            }
        }
        (met > 0.0).then(|| won / met)
    }
}

/// The boards of `to_come` cards from `free`: every one where there are at
/// most `max_boards`, else `max_boards` drawn uniformly.
fn boards(free: &[u8], to_come: usize, max_boards: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<u8>> {
    let count = (0..to_come).fold(1.0f64, |c, k| c * (free.len() - k) as f64 / (k + 1) as f64);
    if count <= max_boards as f64 {
        return combinations(free.len(), to_come)
            .into_iter()
            .map(|picks| picks.iter().map(|&k| free[k as usize]).collect())
            .collect();
    }
    (0..max_boards)
        .map(|_| {
            let mut pool = free.to_vec();
            (0..to_come)
                .map(|_| pool.swap_remove(rng.random_range(0..pool.len())))
                .collect()
        })
        .collect()
}

/// Showdowns before any board card, by LBR's hole cards: they depend on
/// nothing else, and a run of thousands of hands meets each hand of the
/// deck several times (in hold'em this is most of LBR's time).
type PreflopShowdowns = std::collections::HashMap<u64, Showdowns>;

/// LBR's choice at `state`, where it sits in `seat` and has not seen the
/// cards `free`, and, when that is a bet, the player's policies over its
/// range in answer to it; none where the range is empty.
#[allow(clippy::too_many_arguments)]
fn choose(
    state: &UniversalPokerState,
    seat: usize,
    free: u64,
    player: &mut dyn Player,
    range: &Range,
    options: &LbrOptions,
    preflop: &mut PreflopShowdowns,
    rng: &mut ChaCha8Rng,
) -> Option<(Action, Option<RangePolicies>)> {
    let legal = state.legal_actions();
    let opp = 1 - seat;
    let hole = state.hole_cards(seat).to_vec();
    let computed;
    let showdowns = if state.board_cards().is_empty() {
        preflop
            .entry(mask(&hole))
            .or_insert_with(|| Showdowns::new(state, &hole, range, free, options.max_boards, rng))
    } else {
        computed = Showdowns::new(state, &hole, range, free, options.max_boards, rng);
        &computed
    };
    let wp = showdowns.equity(|i| range.weights[i])?;
    let spent = state.spent();
    let showdown = |wp: f64, mine: f64, theirs: f64| wp * theirs.min(mine) - (1.0 - wp) * mine;
    let called = spent[opp].max(spent[seat]) as f64;
    let mut best = (CALL, showdown(wp, called, spent[opp] as f64), None);
    if legal.contains(&FOLD) && -(spent[seat] as f64) > best.1 {
        best = (FOLD, -(spent[seat] as f64), None);
    }
    if state.round() < options.call_before_round {
        return Some((best.0, None));
    }
    for &bet in legal.iter().filter(|a| options.bets.contains(a)) {
        let mut after = state.clone();
        after.apply_action(bet);
        let Turn::Player(_) = after.turn() else {
            continue;
        };
        let answers = after.legal_actions();
        let mine = after.spent()[seat] as f64;
        let (value, answered) = match answers.iter().position(|&a| a == FOLD) {
            Some(k) => {
                let policies = range.policies(player, &after, opp, &answers);
                let fold_p = range.action_weight(&policies, k) / range.total();
                let calling = range.weights_times(&policies, |policy| 1.0 - policy[k]);
                // Where every hand folds there is no showdown to price.
                let called = showdowns
                    .equity(|i| calling[i])
                    .map_or(0.0, |wp| showdown(wp, mine, mine));
                (
                    fold_p * spent[opp] as f64 + (1.0 - fold_p) * called,
                    Some(policies),
                )
            }
            None => (showdown(wp, mine, mine), None),
        };
        if value > best.1 {
            best = (bet, value, answered);
        }
    }
    Some((best.0, best.2))
}

/// Plays `options.hands` hands of LBR against `player`, asking `stop`
/// before each: against a network a hand can take seconds, and a run of
/// thousands of hands hours.
pub fn local_best_response(
    game: &UniversalPoker,
    player: &mut dyn Player,
    options: &LbrOptions,
    stop: &dyn Fn() -> bool,
) -> Result<LbrReport, LbrError> {
    if game.num_players() != 2 {
        return Err(LbrError::Unsupported(format!(
            "local best response plays heads-up games; {} has {} players",
            game.spec(),
            game.num_players()
        )));
    }
    let started = Instant::now();
    let first = game.initial_state();
    let deck = first.undealt();
    let combos = combinations(deck.count_ones() as usize, first.hole_cards_per_player());
    let mut winnings = Vec::with_capacity(options.hands);
    let mut preflop = PreflopShowdowns::new();
    for hand in 0..options.hands {
        if stop() {
            return Err(Stopped {
                finished: hand,
                planned: options.hands,
            }
            .into());
        }
        let seat = hand % 2;
        // Separate streams for the cards, the player's actions and LBR's
        // boards: every setting of LBR meets the same deals.
        let stream = |k: u64| {
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
            rng.set_stream(3 * hand as u64 + k);
            rng
        };
        let (mut cards, mut actions, mut boards) = (stream(0), stream(1), stream(2));
        let mut state = game.initial_state();
        let mut range = Range::new(&combos);
        // The player's policies at this state, when LBR's last choice
        // computed them.
        let mut answered: Option<RangePolicies> = None;
        while state.turn() != Turn::Terminal {
            let known = answered.take();
            let seen = mask(state.hole_cards(seat)) | mask(state.board_cards());
            let action = match state.turn() {
                Turn::Chance => inverse_cdf(cards.random::<f64>(), state.chance_outcomes()),
                Turn::Player(p) if p == seat => {
                    range.exclude(seen);
                    let (action, policies) = choose(
                        &state,
                        seat,
                        deck & !seen,
                        player,
                        &range,
                        options,
                        &mut preflop,
                        &mut boards,
                    )
                    .ok_or(LbrError::EmptyRange { hand })?;
                    answered = policies;
                    action
                }
                Turn::Player(p) => {
                    let legal = state.legal_actions();
                    let probs = player.policy(&state, &legal);
                    let action = inverse_cdf(
                        actions.random::<f64>(),
                        legal.iter().copied().zip(probs.iter().copied()),
                    );
                    let k = legal.iter().position(|&a| a == action).expect("legal");
                    range.exclude(seen);
                    let policies = match known {
                        Some(policies) => policies,
                        None => range.policies(player, &state, p, &legal),
                    };
                    if !range.update(&policies, k) {
                        return Err(LbrError::EmptyRange { hand });
                    }
                    action
                }
                Turn::Terminal => unreachable!("the loop stops at the end"),
            };
            state.apply_action(action);
        }
        winnings.push(state.returns()[seat]);
    }
    let (mean, ci95) = mean_and_ci95(&winnings);
    let big_blind = game.spec().capabilities().units.big_blind().unwrap_or(1.0);
    Ok(LbrReport {
        game: game.spec().to_string(),
        hands: options.hands,
        mean,
        ci95,
        mbb_per_hand: 1000.0 * mean / big_blind,
        ci95_mbb: 1000.0 * ci95 / big_blind,
        hands_per_second: options.hands as f64 / started.elapsed().as_secs_f64().max(1e-9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::poker_baselines::Baseline;
    use crate::exploitability::nash_conv;
    use crate::policy::TabularPolicy;
    use crate::public_tree::PublicTree;
    use crate::GameSpec;

    /// The tests' LBR: `hands` hands, bets 2 and 3, 16 sampled boards.
    fn test_options(hands: usize) -> LbrOptions {
        LbrOptions {
            hands,
            seed: 1,
            bets: vec![2, 3],
            call_before_round: 0,
            max_boards: 16,
        }
    }

    /// LBR in `setting`.
    fn setting_options(setting: &LbrSetting, hands: usize) -> LbrOptions {
        LbrOptions {
            bets: setting.bets.to_vec(),
            call_before_round: setting.call_before_round,
            ..test_options(hands)
        }
    }

    /// Seed 004's game dealt `cards` (seat 0's hole cards, seat 1's, then
    /// the board) with `actions` played between the deals as the rules
    /// ask for them.
    fn holdem_after(cards: &[&str], actions: &[Action]) -> UniversalPokerState {
        let game = UniversalPoker::new("holdem".parse().unwrap());
        let mut state = game.initial_state();
        let index = |text: &str| {
            (0..52)
                .find(|&c| state.card_text(c as u8) == text)
                .unwrap_or_else(|| panic!("no card {text}"))
        };
        let cards: Vec<Action> = cards.iter().map(|c| index(c)).collect();
        let (mut cards, mut actions) = (cards.into_iter(), actions.iter());
        loop {
            let next = match state.turn() {
                Turn::Chance => cards.next(),
                Turn::Player(_) => actions.next().copied(),
                Turn::Terminal => None,
            };
            match next {
                Some(action) => state.apply_action(action),
                None => return state,
            }
        }
    }

    /// A player whose hand is worse than `threshold` folds to any bet, and
    /// who otherwise calls it; it checks when not facing one.
    struct FoldsWeakHands {
        threshold: u32,
    }

    impl Player for FoldsWeakHands {
        fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
            let Turn::Player(p) = state.turn() else {
                panic!("asked where no player acts")
            };
            let poker = state
                .as_any()
                .downcast_ref::<UniversalPokerState>()
                .expect("poker");
            let strength = poker.strength_with_board(poker.hole_cards(p), &[]);
            let chosen = if legal.contains(&FOLD) && strength < self.threshold {
                FOLD
            } else {
                CALL
            };
            legal
                .iter()
                .map(|&a| f64::from(u8::from(a == chosen)))
                .collect()
        }
    }

    /// A player who calls a bet with exactly the hands that beat or tie
    /// LBR's makes every bet that is not a pure bluff lose: LBR, seeing
    /// that through the calling range's equity, checks a middling river
    /// hand (valued against the whole range, as before, a pot bet looks
    /// better than checking for equities from about 0.45 to 0.75).
    #[test]
    fn a_bet_is_priced_against_the_hands_that_call_it() {
        // Both check every round to the river; seat 0 acts first there.
        let checks = [CALL; 6];
        let board = ["2c", "7d", "9h", "Js", "4c"];
        let mut checked = 0;
        for lbr in [
            ["Td", "Th"],
            ["9c", "8c"],
            ["Jh", "3d"],
            ["Ac", "Kd"],
            ["7c", "5s"],
        ] {
            let cards: Vec<&str> = lbr
                .iter()
                .copied()
                .chain(["Qs", "Qc"])
                .chain(board)
                .collect();
            let state = holdem_after(&cards, &checks);
            assert_eq!((state.round(), state.turn()), (3, Turn::Player(0)));
            let mine = state.strength_with_board(state.hole_cards(0), &[]);
            let mut range = Range::new(&combinations(52, 2));
            let seen = mask(state.hole_cards(0)) | mask(state.board_cards());
            range.exclude(seen);
            // The equity against the range, counted here by hand.
            let (mut won, mut met) = (0.0, 0.0);
            for (combo, &w) in range.combos.iter().zip(&range.weights) {
                if w > 0.0 {
                    let theirs = state.strength_with_board(combo, &[]);
                    won += match mine.cmp(&theirs) {
                        std::cmp::Ordering::Greater => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Less => 0.0,
                    };
                    met += 1.0;
                }
            }
            let equity = won / met;
            if !(0.45..=0.75).contains(&equity) {
                continue;
            }
            let mut player = FoldsWeakHands { threshold: mine };
            let deck = (1u64 << 52) - 1;
            let mut rng = ChaCha8Rng::seed_from_u64(0);
            let (action, _) = choose(
                &state,
                0,
                deck & !seen,
                &mut player,
                &range,
                &test_options(1),
                &mut PreflopShowdowns::new(),
                &mut rng,
            )
            .unwrap();
            assert_eq!(action, CALL, "{lbr:?} with equity {equity:.3} bets");
            checked += 1;
        }
        assert!(checked >= 2, "only {checked} middling hands");
    }

    /// LBR prices its equity on the cards it has not seen, not on the
    /// cards still in the deck: the player's real hole cards change
    /// nothing it computes.
    #[test]
    fn lbr_never_looks_at_the_players_cards() {
        let checks = [CALL; 4];
        let board = ["2c", "7d", "9h", "Js"];
        let equities: Vec<f64> = [["Qs", "Qc"], ["7h", "7s"], ["Ad", "3s"]]
            .iter()
            .map(|theirs| {
                let cards: Vec<&str> = ["Td", "8h"]
                    .into_iter()
                    .chain(*theirs)
                    .chain(board)
                    .collect();
                let state = holdem_after(&cards, &checks);
                assert_eq!(state.board_cards_to_come(), 1);
                let seen = mask(state.hole_cards(0)) | mask(state.board_cards());
                let mut range = Range::new(&combinations(52, 2));
                range.exclude(seen);
                let mut rng = ChaCha8Rng::seed_from_u64(0);
                let deck = (1u64 << 52) - 1;
                Showdowns::new(
                    &state,
                    state.hole_cards(0),
                    &range,
                    deck & !seen,
                    1000,
                    &mut rng,
                )
                .equity(|i| range.weights[i])
                .unwrap()
            })
            .collect();
        assert!(equities.windows(2).all(|w| w[0] == w[1]), "{equities:?}");
        assert!(
            equities[0] > 0.5,
            "an open-ended straight draw and ten-high: {equities:?}"
        );
    }

    /// Against a player who always folds, LBR wins exactly the blinds in
    /// every setting that bets: the big blind (100) in the small blind's
    /// seat, the small blind (50) in the big blind's: +750 mbb/hand.
    #[test]
    fn lbr_wins_exactly_the_blinds_from_a_player_who_always_folds() {
        let game = UniversalPoker::new("holdem".parse().unwrap());
        for setting in STANDARD_SETTINGS.iter().filter(|s| !s.bets.is_empty()) {
            // Preflop equity from the default 1,000 boards: from 16, a
            // middling hand's can read below the 25% that makes folding
            // the small blind better than calling.
            let options = LbrOptions {
                max_boards: DEFAULT_MAX_BOARDS,
                ..setting_options(setting, 20)
            };
            let report =
                local_best_response(&game, &mut Baseline::Fold, &options, &|| false).unwrap();
            assert_eq!(report.mbb_per_hand, 750.0, "{}: {report:?}", setting.name);
        }
    }

    /// A player whose sampled action its own policy rules out with every
    /// hand it may hold (here: one that says it never calls, yet calls)
    /// is refused, not priced as if nothing were known.
    #[test]
    fn a_player_inconsistent_with_its_policy_is_refused() {
        /// Calls, while its policy over the range says it never calls.
        struct SaysNeverCalls;
        impl Player for SaysNeverCalls {
            fn policy(&mut self, _: &dyn State, legal: &[Action]) -> Vec<f64> {
                legal
                    .iter()
                    .map(|&a| f64::from(u8::from(a == CALL)))
                    .collect()
            }
            fn policies(&mut self, states: &[&dyn State], legal: &[Action]) -> Vec<Vec<f64>> {
                let others = (legal.len() - 1) as f64;
                let claim = legal
                    .iter()
                    .map(|&a| if a == CALL { 0.0 } else { 1.0 / others });
                vec![claim.collect(); states.len()]
            }
        }
        let game = UniversalPoker::new("holdem".parse().unwrap());
        let error = local_best_response(&game, &mut SaysNeverCalls, &test_options(2), &|| false)
            .unwrap_err();
        assert!(
            matches!(error, LbrError::EmptyRange { hand: 0 }),
            "{error:?}"
        );
        assert!(error
            .to_string()
            .contains("fixed function of its information state"));
    }

    /// Against a CFR policy of OpenSpiel's default game, in every standard
    /// setting, LBR stays at or below the exact best response (and wins
    /// less than from the uniform player).
    #[test]
    fn lbr_against_a_cfr_policy_stays_below_the_exact_best_response() {
        let spec: GameSpec = "universal_poker".parse().unwrap();
        let tree = PublicTree::build(spec.load()).unwrap();
        let mut solver = crate::cfr::CfrSolver::new(&tree, crate::cfr::CfrVariant::CfrPlus);
        for _ in 0..100 {
            solver.iterate();
        }
        let policy = solver.average_policy();
        let report = nash_conv(&tree, &policy);
        let best_response = report.best_response_values.iter().sum::<f64>() / 2.0;
        let game = UniversalPoker::new(spec);
        let mut player = crate::headtohead::tabular_player::TabularPlayer::new(&tree, &policy);
        for setting in &STANDARD_SETTINGS {
            let options = setting_options(setting, 4_000);
            let lbr = local_best_response(&game, &mut player, &options, &|| false).unwrap();
            assert!(
                lbr.mean - lbr.ci95 <= best_response,
                "{}: LBR {} ± {} above the best response {best_response}",
                setting.name,
                lbr.mean,
                lbr.ci95
            );
        }
    }

    /// On OpenSpiel's default game, whose exact best response exists, LBR
    /// wins against the uniform player but never more than the exact best
    /// response does.
    #[test]
    fn lbr_never_beats_the_exact_best_response() {
        let spec: GameSpec = "universal_poker".parse().unwrap();
        let tree = PublicTree::build(spec.load()).unwrap();
        let report = nash_conv(&tree, &TabularPolicy::uniform(&tree));
        // LBR sits in each seat half the time.
        let best_response = report.best_response_values.iter().sum::<f64>() / 2.0;
        let game = UniversalPoker::new(spec);
        let options = test_options(4_000);
        let never = || false;
        let lbr = local_best_response(&game, &mut Baseline::Uniform, &options, &never).unwrap();
        assert!(lbr.mean > 0.0, "LBR beats the uniform player: {lbr:?}");
        assert!(
            lbr.mean - lbr.ci95 <= best_response,
            "LBR {} ± {} above the best response {best_response}",
            lbr.mean,
            lbr.ci95
        );
        let three = UniversalPoker::new(
            "universal_poker(numPlayers=3,stack=1200 1200 1200,blind=100 100 100)"
                .parse()
                .unwrap(),
        );
        assert!(matches!(
            local_best_response(&three, &mut Baseline::Uniform, &options, &never),
            Err(LbrError::Unsupported(_))
        ));
    }

    /// A run asked to stop ends before its next hand, saying how far it got.
    #[test]
    fn lbr_stops_between_hands_when_asked() {
        let game = UniversalPoker::new("universal_poker".parse().unwrap());
        let options = test_options(1_000);
        let asked = std::cell::Cell::new(0);
        let after_three = || {
            asked.set(asked.get() + 1);
            asked.get() > 3
        };
        let stopped = local_best_response(&game, &mut Baseline::Uniform, &options, &after_three);
        assert_eq!(
            stopped.unwrap_err(),
            LbrError::Stopped(Stopped {
                finished: 3,
                planned: 1_000
            })
        );
        assert_eq!(asked.get(), 4);
    }

    /// Notes, over one hand, the states at which LBR asks for the range's
    /// policies, by LBR's view of them (its cards, the board, the actions).
    struct Asked {
        lbr_seat: usize,
        ranges: std::collections::HashSet<String>,
        asked_twice: usize,
        answers_priced: usize,
    }

    impl Player for Asked {
        fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
            if self
                .ranges
                .contains(&state.information_state_string(self.lbr_seat))
            {
                self.answers_priced += 1;
            }
            Baseline::Uniform.policy(state, legal)
        }

        fn policies(&mut self, states: &[&dyn State], legal: &[Action]) -> Vec<Vec<f64>> {
            if let Some(first) = states.first() {
                if !self
                    .ranges
                    .insert(first.information_state_string(self.lbr_seat))
                {
                    self.asked_twice += 1;
                }
            }
            Baseline::Uniform.policies(states, legal)
        }
    }

    /// When the player answers a bet LBR priced, its range's policies there
    /// are the ones LBR computed to price it: no state's are asked twice.
    #[test]
    fn the_range_is_asked_once_a_state() {
        let game = UniversalPoker::new("universal_poker".parse().unwrap());
        let mut answers_priced = 0;
        for seed in 0..40 {
            let options = LbrOptions {
                seed,
                ..test_options(1)
            };
            let mut player = Asked {
                lbr_seat: 0,
                ranges: Default::default(),
                asked_twice: 0,
                answers_priced: 0,
            };
            local_best_response(&game, &mut player, &options, &|| false).unwrap();
            assert_eq!(player.asked_twice, 0, "seed {seed}");
            answers_priced += player.answers_priced;
        }
        assert!(
            answers_priced >= 20,
            "the player answered {answers_priced} bets"
        );
    }
}
