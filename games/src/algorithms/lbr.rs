//! Local best response (Lisý & Bowling, 2017, as PokerRL implements it): a
//! lower bound on how much a heads-up poker player can be exploited, for
//! games far too large for an exact best response.
//!
//! LBR plays one seat against the player. It keeps the player's range, a
//! weight for every hole-card combination the player may hold, updated by
//! Bayes' rule at each of the player's actions with the probability the
//! player's policy gives that action holding each combination. At its own
//! decisions LBR looks one step ahead assuming the hand then goes to a
//! showdown: checking or calling is worth its equity against the range
//! times what it would win, less what it would lose; a bet is worth the
//! range's probability of folding to it times the opponent's chips in the
//! pot, plus the rest times the showdown value after a call; folding loses
//! what LBR has put in. It takes the best. Equity is the share of the range
//! LBR's hand beats (ties half) over every board to come when one card is
//! missing or none, and over sampled boards otherwise.

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
    /// LBR only checks or calls before this betting round (PokerRL's
    /// "check to the turn" is round 2).
    pub call_before_round: usize,
    /// Boards sampled for equity when more than one card is to come.
    pub sampled_boards: usize,
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

    /// Bayes' update for the player choosing the `k`th legal action.
    fn update(&mut self, policies: &RangePolicies, k: usize) {
        for (&i, policy) in policies.live.iter().zip(&policies.policies) {
            self.weights[i] *= policy[k];
        }
    }

    fn total(&self) -> f64 {
        self.weights.iter().sum()
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

/// LBR's equity with `hole` against the range at `state`.
fn equity(
    state: &UniversalPokerState,
    hole: &[u8],
    range: &Range,
    sampled: usize,
    rng: &mut ChaCha8Rng,
) -> f64 {
    let to_come = state.board_cards_to_come();
    let free: Vec<u8> = (0..64u8)
        .filter(|&c| state.undealt() & (1 << c) != 0 && !hole.contains(&c))
        .collect();
    let boards: Vec<Vec<u8>> = match to_come {
        0 => vec![Vec::new()],
        1 => free.iter().map(|&c| vec![c]).collect(),
        _ => (0..sampled)
            .map(|_| {
                let mut pool = free.clone();
                (0..to_come)
                    .map(|_| pool.swap_remove(rng.random_range(0..pool.len())))
                    .collect()
            })
            .collect(),
    };
    let (mut won, mut total) = (0.0, 0.0);
    for board in &boards {
        let board_mask = mask(board);
        let mine = state.strength_with_board(hole, board);
        for i in 0..range.combos.len() {
            let w = range.weights[i];
            if w == 0.0 || range.masks[i] & board_mask != 0 {
                continue;
            }
            let theirs = state.strength_with_board(&range.combos[i], board);
            won += w * match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
            total += w;
        }
    }
    if total > 0.0 {
        won / total
    } else {
        0.5
    }
}

/// LBR's choice at `state`, where it sits in `seat`, and, when that is a
/// bet, the player's policies over its range in answer to it.
fn choose(
    state: &UniversalPokerState,
    seat: usize,
    player: &mut dyn Player,
    range: &Range,
    options: &LbrOptions,
    rng: &mut ChaCha8Rng,
) -> (Action, Option<RangePolicies>) {
    let legal = state.legal_actions();
    if state.round() < options.call_before_round {
        return (CALL, None);
    }
    let opp = 1 - seat;
    let hole = state.hole_cards(seat).to_vec();
    let wp = equity(state, &hole, range, options.sampled_boards, rng);
    let spent = state.spent();
    let showdown = |mine: f64, theirs: f64| wp * theirs.min(mine) - (1.0 - wp) * mine;
    let called = spent[opp].max(spent[seat]) as f64;
    let mut best = (CALL, showdown(called, spent[opp] as f64), None);
    if legal.contains(&FOLD) && -(spent[seat] as f64) > best.1 {
        best = (FOLD, -(spent[seat] as f64), None);
    }
    for &bet in legal.iter().filter(|a| options.bets.contains(a)) {
        let mut after = state.clone();
        after.apply_action(bet);
        let Turn::Player(_) = after.turn() else {
            continue;
        };
        let answers = after.legal_actions();
        let total = range.total();
        let mut answered = None;
        let fold_p = match answers.iter().position(|&a| a == FOLD) {
            Some(k) if total > 0.0 => {
                let policies = range.policies(player, &after, opp, &answers);
                let fold_p = range.action_weight(&policies, k) / total;
                answered = Some(policies);
                fold_p
            }
            _ => 0.0,
        };
        let mine = after.spent()[seat] as f64;
        let value = fold_p * spent[opp] as f64 + (1.0 - fold_p) * showdown(mine, mine);
        if value > best.1 {
            best = (bet, value, answered);
        }
    }
    (best.0, best.2)
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
    let combos = combinations(
        first.undealt().count_ones() as usize,
        first.hole_cards_per_player(),
    );
    let mut winnings = Vec::with_capacity(options.hands);
    for hand in 0..options.hands {
        if stop() {
            return Err(Stopped {
                finished: hand,
                planned: options.hands,
            }
            .into());
        }
        let seat = hand % 2;
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        rng.set_stream(hand as u64);
        let mut state = game.initial_state();
        let mut range = Range::new(&combos);
        // The player's policies at this state, when LBR's last choice
        // computed them.
        let mut answered: Option<RangePolicies> = None;
        while state.turn() != Turn::Terminal {
            let known = answered.take();
            let action = match state.turn() {
                Turn::Chance => inverse_cdf(rng.random::<f64>(), state.chance_outcomes()),
                Turn::Player(p) if p == seat => {
                    range.exclude(mask(state.hole_cards(seat)) | mask(state.board_cards()));
                    let (action, policies) =
                        choose(&state, seat, player, &range, options, &mut rng);
                    answered = policies;
                    action
                }
                Turn::Player(p) => {
                    let legal = state.legal_actions();
                    let probs = player.policy(&state, &legal);
                    let action = inverse_cdf(
                        rng.random::<f64>(),
                        legal.iter().copied().zip(probs.iter().copied()),
                    );
                    let k = legal.iter().position(|&a| a == action).expect("legal");
                    range.exclude(mask(state.board_cards()) | mask(state.hole_cards(seat)));
                    let policies = match known {
                        Some(policies) => policies,
                        None => range.policies(player, &state, p, &legal),
                    };
                    range.update(&policies, k);
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
            sampled_boards: 16,
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
