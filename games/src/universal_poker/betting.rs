//! The ACPC server's betting rules: who acts, which bets are valid, when a
//! round and the hand end, and what each player wins. Seats are 0-based;
//! chips are whole numbers; a no-limit raise names the player's total
//! commitment after it ("raise to").

use super::params::{Rules, MAX_PLAYERS};

/// A bet as ACPC records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bet {
    Fold,
    Call,
    /// Raise to this many chips in all (no-limit); 0 in limit games, where
    /// the size is fixed by the round.
    Raise(i64),
}

#[derive(Clone, Copy, Debug)]
struct Record {
    round: u8,
    actor: u8,
    bet: Bet,
    /// Chips the actor put in with it.
    added: i64,
}

/// ACPC's most actions in a round, less a player each: past it raising
/// stops.
const MAX_ACTIONS_IN_ROUND: usize = 64;

/// The betting so far.
#[derive(Clone, Debug)]
pub(crate) struct Betting {
    pub spent: [i64; MAX_PLAYERS],
    pub max_spent: i64,
    min_raise_to: i64,
    pub folded: [bool; MAX_PLAYERS],
    pub round: usize,
    pub finished: bool,
    history: Vec<Record>,
}

impl Betting {
    /// Blinds posted, nobody has acted.
    pub fn new(rules: &Rules) -> Betting {
        let mut spent = [0; MAX_PLAYERS];
        spent[..rules.players].copy_from_slice(&rules.blinds[..rules.players]);
        let max_spent = spent.iter().copied().max().unwrap_or(0);
        let min_raise_to = match (rules.limit, max_spent) {
            (true, _) => 0,
            (false, 0) => 1,
            (false, blind) => 2 * blind,
        };
        Betting {
            spent,
            max_spent,
            min_raise_to,
            folded: [false; MAX_PLAYERS],
            round: 0,
            finished: false,
            history: Vec::with_capacity(16),
        }
    }

    fn this_round(&self) -> impl DoubleEndedIterator<Item = &Record> {
        let round = self.round as u8;
        self.history.iter().filter(move |r| r.round == round)
    }

    /// Bets of `round`, in order, each with its actor and the chips it put
    /// in.
    pub fn actions_in(&self, round: usize) -> impl Iterator<Item = (usize, Bet, i64)> + '_ {
        self.history
            .iter()
            .filter(move |r| r.round as usize == round)
            .map(|r| (r.actor as usize, r.bet, r.added))
    }

    fn all_in(&self, rules: &Rules, p: usize) -> bool {
        self.spent[p] >= rules.stacks[p]
    }

    pub fn num_folded(&self, rules: &Rules) -> usize {
        self.folded[..rules.players].iter().filter(|&&f| f).count()
    }

    /// Players who can still bet: not folded, not all in.
    fn num_acting(&self, rules: &Rules) -> usize {
        (0..rules.players)
            .filter(|&p| !self.folded[p] && !self.all_in(rules, p))
            .count()
    }

    /// The next seat after `seat` that can still bet.
    fn next_player(&self, rules: &Rules, seat: usize) -> usize {
        let mut p = seat;
        for _ in 0..rules.players {
            p = (p + 1) % rules.players;
            if !self.folded[p] && !self.all_in(rules, p) {
                return p;
            }
        }
        p
    }

    /// Whose turn it is (meaningful while the hand is not finished).
    pub fn current_player(&self, rules: &Rules) -> usize {
        match self.this_round().next_back() {
            Some(last) => self.next_player(rules, last.actor as usize),
            None => self.next_player(rules, rules.first_player[self.round] + rules.players - 1),
        }
    }

    /// Whether the player to act may fold: not when checking is free or it
    /// is all in.
    pub fn can_fold(&self, rules: &Rules) -> bool {
        let p = self.current_player(rules);
        self.spent[p] != self.max_spent && self.spent[p] != rules.stacks[p]
    }

    /// The smallest and largest raise-to amounts the player to act may bet,
    /// if it may raise (`(0, 0)` in limit games, whose raises are fixed).
    pub fn raise_range(&self, rules: &Rules) -> Option<(i64, i64)> {
        let raises = self
            .this_round()
            .filter(|r| matches!(r.bet, Bet::Raise(_)))
            .count();
        let actions = self.this_round().count();
        if raises >= rules.max_raises[self.round]
            || actions + rules.players > MAX_ACTIONS_IN_ROUND
            || self.num_acting(rules) <= 1
        {
            return None;
        }
        if rules.limit {
            return Some((0, 0));
        }
        let p = self.current_player(rules);
        let stack = rules.stacks[p];
        if self.min_raise_to > stack {
            if self.max_spent >= stack {
                return None;
            }
            return Some((stack, stack));
        }
        Some((self.min_raise_to, stack))
    }

    /// The raise-to amount of a bet of `fraction` of the pot after calling
    /// (OpenSpiel's `PotSize`, rounded half away from zero).
    pub fn pot_raise_to(&self, rules: &Rules, fraction: f64) -> i64 {
        let p = self.current_player(rules);
        let total: i64 = self.spent[..rules.players].iter().sum();
        let to_call = self.max_spent - self.spent[p];
        (self.max_spent as f64 + fraction * (total + to_call) as f64).round() as i64
    }

    /// Applies a valid bet of the player to act and closes the round or the
    /// hand when the betting says so.
    pub fn apply(&mut self, rules: &Rules, bet: Bet) {
        let p = self.current_player(rules);
        let (round, before) = (self.round as u8, self.spent[p]);
        match bet {
            Bet::Fold => self.folded[p] = true,
            Bet::Call => self.spent[p] = self.max_spent.min(rules.stacks[p]),
            Bet::Raise(size) => {
                if rules.limit {
                    self.max_spent =
                        (self.max_spent + rules.raise_sizes[self.round]).min(rules.stacks[p]);
                } else {
                    // An incomplete all-in raise does not lower the minimum.
                    self.min_raise_to = self.min_raise_to.max(2 * size - self.max_spent);
                    self.max_spent = size;
                }
                self.spent[p] = self.max_spent;
            }
        }
        self.history.push(Record {
            round,
            actor: p as u8,
            bet,
            added: self.spent[p] - before,
        });
        if self.num_folded(rules) + 1 >= rules.players {
            self.finished = true;
        } else if self.num_called(rules) >= self.num_acting(rules) {
            if self.num_acting(rules) > 1 {
                if self.round + 1 < rules.rounds {
                    self.round += 1;
                    self.min_raise_to = rules.big_blind.max(1) + self.max_spent;
                } else {
                    self.finished = true;
                }
            } else {
                // Nobody can bet any more: the board is run out.
                self.finished = true;
                self.round = rules.rounds - 1;
            }
        }
    }

    /// ACPC's count of players who have matched the current bet this round:
    /// calls since the last raise and the raiser, all-in players excluded.
    fn num_called(&self, rules: &Rules) -> usize {
        let mut called = 0;
        for record in self.this_round().rev() {
            let still_acting = !self.all_in(rules, record.actor as usize) as usize;
            match record.bet {
                Bet::Raise(_) => return called + still_acting,
                Bet::Call => called += still_acting,
                Bet::Fold => {}
            }
        }
        called
    }

    /// Player `player`'s winnings in chips at the end of the hand, given
    /// every player's hand strength: side pots layer by layer, ties split,
    /// as ACPC's `valueOfState`.
    pub fn value(&self, rules: &Rules, player: usize, strength: impl Fn(usize) -> i64) -> f64 {
        let n = rules.players;
        if self.folded[player] {
            return -(self.spent[player] as f64);
        }
        if self.num_folded(rules) + 1 >= n {
            return (0..n)
                .filter(|&q| q != player)
                .map(|q| self.spent[q] as f64)
                .sum();
        }
        if self.spent[player] == 0 {
            // Nothing in any pot (a seat without a blind that checked
            // throughout): nothing to win or lose.
            return 0.0;
        }
        let mut listed: Vec<(i64, i64, usize)> = (0..n)
            .filter(|&q| self.spent[q] > 0)
            .map(|q| {
                let rank = if self.folded[q] { -1 } else { strength(q) };
                (self.spent[q], rank, q)
            })
            .collect();
        let mut value = 0.0;
        while !listed.is_empty() {
            let size = listed.iter().map(|l| l.0).min().expect("listed");
            let best = listed.iter().map(|l| l.1).max().expect("listed").max(0);
            let winners = listed.iter().filter(|l| l.1 == best).count();
            let mine = listed
                .iter()
                .find(|l| l.2 == player)
                .expect("player listed");
            if mine.1 == best {
                value += (size * (listed.len() - winners) as i64) as f64 / winners as f64;
            } else {
                value -= size as f64;
            }
            for l in listed.iter_mut() {
                l.0 -= size;
            }
            if listed.iter().any(|l| l.2 == player && l.0 == 0) {
                break;
            }
            listed.retain(|l| l.0 > 0);
        }
        value
    }
}
