//! The UECda standard player: the rule-based client that comes with the
//! official UECda development kit, entered in tournaments as "default".
//! It makes the same choices as that client, card for card and quirks
//! included, so that a match against it here is a match against the real
//! one.
//!
//! How it plays (under a revolution everything is mirrored: "lowest"
//! reads "highest", "above" reads "below"):
//!
//! * **Exchange**: its lowest cards, ♠ first within a rank, never the
//!   joker.
//! * **Lead**: its longest sequence (the lowest, ♠ on ties), else its
//!   largest group (the lowest rank), else its lowest single, ♠ first.
//!   Holding the joker it counts it into every sequence and group, so a
//!   lead then always uses it: in a sequence it fills a gap or extends a
//!   run down (below the 3 if need be); in a group it joins the largest,
//!   which makes a pair of the lowest card at worst and a five-card group
//!   of a quad. It leads the joker alone only as its last card.
//! * **Following a single**: the lowest card above the table that is in
//!   no group and no run of three of its hand (of the table's suit under a
//!   lock); else the joker alone, whatever the single; else a pass. It
//!   never answers a lone joker, not even with ♠3.
//! * **Following a group of n**: the lowest rank above the table where it
//!   holds exactly n cards (of the table's suits under a lock), so it
//!   never splits a larger group; else a rank where it holds n - 1 of them
//!   and the joker, standing for the first suit it lacks in ♠♥♦♣ order (a
//!   table suit under a lock).
//! * **Following a sequence of n**: the lowest start above the table from
//!   which its run climbs exactly n cards, so a longer run answers with
//!   its top n; else a run that the joker completes.
//! * Under a revolution ties between sequences go to the last suit (♣),
//!   and of two ways to place the joker in a sequence it takes the one
//!   with the joker lower.
//!
//! The client sometimes hands the server cards that the server refuses,
//! which the server counts as a pass; this player then passes:
//!
//! * Answering a sequence, it treats the table's own top rank as a gap
//!   the joker may fill, and where that is the lowest way to make the
//!   length it puts the joker on that rank.
//! * It reads the table's rank when the play is made, under the
//!   revolution as it was before that play. A sequence that starts or
//!   ends a revolution is therefore read from its wrong end by the next
//!   player, until a pass makes everyone read the table again.
//! * A four of 3s and the joker as a lead: the joker has no row left on
//!   the client's table and falls off, so it leads the four 3s alone.
//!
//! The analysis is done on the client's own table: a row per suit
//! (♠♥♦♣) and a column per rank, 1 for the 3 to 13 for the 2, with column
//! 0 below the 3 and 14 above the 2 that only the joker can fill.

use crate::daihinmin::cards::{
    card, exchange_strength, indices, rank_cards, Cards, JOKER, RANKS, SUITS,
};
use crate::daihinmin::plays::{catalogue, Kind, Play, PASS};
use crate::daihinmin::state::DaihinminState;
use crate::headtohead::sampled::Player;
use crate::{Action, State};

/// The standard player.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultPlayer;

impl Player for DefaultPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        let state = state
            .as_any()
            .downcast_ref::<DaihinminState>()
            .expect("the default player plays Daihinmin");
        let chosen = choose(state, legal);
        legal.iter().map(|&a| f64::from(a == chosen)).collect()
    }
}

/// The `count` weakest cards of `hand` (by rank, then ♣ < ♦ < ♥ < ♠), the
/// joker only when nothing else is left. This is the server's order (what
/// it takes from the poorest players is the strongest by it); the
/// standard player's own gifts break ties the other way ([`choose`]).
pub fn weakest_cards(hand: Cards, count: usize) -> Cards {
    let mut order: Vec<usize> = indices(hand).collect();
    order.sort_by_key(|&i| exchange_strength(i));
    order.iter().take(count).fold(0, |all, &i| all | 1 << i)
}

/// The standard player's move among `legal` at `state`: what the devkit
/// client would hand the server, or a pass where that is no play among
/// `legal` (the server refuses it, which counts as a pass).
pub fn choose(state: &DaihinminState, legal: &[Action]) -> Action {
    let hand = state.hands()[state.to_move()];
    if state.in_exchange() {
        // A gift a move: its lowest card each time, ♠ first, never the
        // joker.
        return indices(hand & !JOKER)
            .next()
            .map(|lowest| state.rules().give_base() + lowest)
            .filter(|a| legal.contains(a))
            .unwrap_or(legal[0]);
    }
    match submission(state).play() {
        None => PASS,
        Some(wanted) => legal
            .iter()
            .copied()
            .find(|&a| catalogue().play(a).is_some_and(|p| wanted.is(p)))
            .unwrap_or(PASS),
    }
}

/// Columns of the client's table: 0 below the 3, rank r at r + 1, 14 above
/// the 2.
const COLUMNS: usize = RANKS + 2;

/// The column of the 3s, where the client's table also records that it
/// holds the joker (in the row after the suits).
const THREES: usize = 1;

/// The row after the suits: the fifth card of a five-card group.
const FIFTH: usize = SUITS;

/// A number for each suit and column: what the client writes on its table
/// as it looks for groups and runs.
type Grid = [[u8; COLUMNS]; SUITS];

/// Whether `cards` hold the card at `suit` and `column` (never at columns
/// 0 and 14).
fn holds(cards: Cards, suit: usize, column: usize) -> bool {
    (1..=RANKS).contains(&column) && cards & card(column - 1, suit) != 0
}

/// Every ♠ card; shifted by a suit, every card of that suit.
const SPADES: Cards = {
    let mut all = 0;
    let mut rank = 0;
    while rank < RANKS {
        all |= card(rank, 0);
        rank += 1;
    }
    all
};

/// The cards of `suits` (a bit per suit) in every rank.
fn of_suits(suits: u8) -> Cards {
    (0..SUITS)
        .filter(|&suit| suits & (1 << suit) != 0)
        .fold(0, |all, suit| all | SPADES << suit)
}

/// What the client hands the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Submission {
    /// No cards: a pass.
    Nothing,
    /// One card, by index.
    Single(usize),
    /// The joker alone.
    LoneJoker,
    /// The held cards of `suits` (a bit per suit) at `column`, and the
    /// joker where it has a row: a suit it stands for, or [`FIFTH`].
    Group {
        column: usize,
        suits: u8,
        joker: Option<usize>,
    },
    /// `length` columns of `suit` from `start`: the held cards `cards`,
    /// and the joker in each column of `missing` (a bit per column).
    Sequence {
        suit: usize,
        start: usize,
        length: usize,
        cards: Cards,
        missing: u16,
    },
}

/// A play by what the server reads of it: kind, cards, lowest rank
/// (which places a sequence's joker) and suits (which place a group's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wanted {
    kind: Kind,
    cards: Cards,
    low: i8,
    suits: u8,
}

impl Wanted {
    fn is(&self, play: &Play) -> bool {
        play.kind == self.kind
            && play.cards == self.cards
            && play.low == self.low
            && play.suits == self.suits
    }
}

impl Submission {
    /// The play the server reads from it; none for a pass, or for a
    /// sequence with more than one gap (which the client never makes).
    fn play(&self) -> Option<Wanted> {
        match *self {
            Submission::Nothing => None,
            Submission::Single(index) => Some(Wanted {
                kind: Kind::Single,
                cards: 1 << index,
                low: (index / SUITS) as i8,
                suits: 1 << (index % SUITS),
            }),
            Submission::LoneJoker => Some(Wanted {
                kind: Kind::Single,
                cards: JOKER,
                low: RANKS as i8,
                suits: 0,
            }),
            Submission::Group {
                column,
                suits,
                joker,
            } => {
                let rank = column - 1;
                let natural = rank_cards(rank) & of_suits(suits);
                let stands_for = match joker {
                    None => 0,
                    Some(FIFTH) => 0b1111,
                    Some(suit) => 1 << suit,
                };
                Some(Wanted {
                    kind: Kind::Group,
                    cards: natural | if joker.is_some() { JOKER } else { 0 },
                    low: rank as i8,
                    suits: suits | stands_for,
                })
            }
            Submission::Sequence {
                suit,
                start,
                cards,
                missing,
                ..
            } => (missing.count_ones() <= 1).then(|| Wanted {
                kind: Kind::Sequence,
                cards: cards | if missing != 0 { JOKER } else { 0 },
                low: start as i8 - 1,
                suits: 1 << suit,
            }),
        }
    }
}

/// The table as the client reads it.
#[derive(Clone, Copy, Debug)]
struct Field {
    /// Cards in the play.
    qty: usize,
    /// The column to beat: a single's or group's rank; a sequence's top
    /// (or, read under a revolution, its bottom).
    ord: usize,
    sequence: bool,
    /// Its suits, a bit per suit.
    suits: u8,
    /// Whether it is a five-card group (the joker in the fifth row).
    fifth: bool,
}

impl Field {
    /// How the client reads `table`, the revolution being `revolution` when
    /// it read it.
    fn read(table: &Play, revolution: bool) -> Field {
        let sequence = table.kind == Kind::Sequence;
        let ord = if sequence && !revolution {
            table.high + 1
        } else {
            table.low + 1
        };
        Field {
            qty: usize::from(table.size),
            ord: ord as usize,
            sequence,
            suits: table.suits,
            fifth: table.kind == Kind::Group && table.size == 5,
        }
    }
}

/// What the client hands the server at `state`, in play.
fn submission(state: &DaihinminState) -> Submission {
    let hand = state.hands()[state.to_move()];
    let joker = hand & JOKER != 0;
    let cards = hand & !JOKER;
    let revolution = state.revolution();
    let Some((table, _)) = state.table() else {
        return lead(cards, joker, revolution);
    };
    if table.is_lone_joker() {
        // It reads a lone joker as the strongest rank there is, so nothing
        // it holds is stronger: not even ♠3.
        return Submission::Nothing;
    }
    // The client read the table when it was played, under the revolution
    // before that play; a pass since makes it read the table again, under
    // the revolution now.
    let read_under = if state.passes_in_a_row() == 0 && table.revolts() {
        !revolution
    } else {
        revolution
    };
    let field = Field::read(&table, read_under);
    follow(cards, joker, &field, revolution, state.locked())
}

/// A lead from `cards` (the joker apart), holding the joker or not.
fn lead(cards: Cards, joker: bool, revolution: bool) -> Submission {
    let (groups, runs) = if joker {
        (group_grid(cards, true), joker_run_grid(cards))
    } else {
        (group_grid(cards, false), run_grid(cards))
    };
    // The longest sequence, trying lengths from 15 down.
    if let Some(grid) = (3..=COLUMNS as u8).rev().find_map(|n| exactly(&runs, n)) {
        return if revolution {
            highest_sequence(&grid, cards)
        } else {
            lowest_sequence(&grid, cards)
        };
    }
    if let Some(grid) = (2..=5).rev().find_map(|n| exactly(&groups, n)) {
        return group(&grid, revolution, cards, joker, None);
    }
    single(cards, joker, revolution)
}

/// An answer to `field` from `cards` (the joker apart), holding the joker
/// or not.
fn follow(cards: Cards, joker: bool, field: &Field, revolution: bool, locked: bool) -> Submission {
    // Cards stronger than the table, of its suits under a lock.
    let usable = |cards: Cards| {
        let ranks = (1..=RANKS)
            .filter(|&column| {
                if revolution {
                    column < field.ord
                } else {
                    column > field.ord
                }
            })
            .fold(0, |all, column| all | rank_cards(column - 1));
        let suits = if locked { of_suits(field.suits) } else { !0 };
        cards & ranks & suits
    };
    if field.qty == 1 {
        // Only cards it does not need for a group or a run.
        return single(usable(cards & !bound(cards)), joker, revolution);
    }
    let usable = usable(cards);
    let lock = locked.then_some((field.suits, field.fifth));
    if field.sequence {
        let grid = exactly(&run_grid(usable), field.qty as u8).or_else(|| {
            joker
                .then(|| exactly(&joker_run_grid(usable), field.qty as u8))
                .flatten()
        });
        return match grid {
            None => Submission::Nothing,
            Some(grid) if revolution => highest_sequence(&grid, cards),
            Some(grid) => lowest_sequence(&grid, cards),
        };
    }
    let grid = exactly(&group_grid(usable, false), field.qty as u8).or_else(|| {
        joker
            .then(|| exactly(&group_grid(usable, true), field.qty as u8))
            .flatten()
    });
    match grid {
        None => Submission::Nothing,
        Some(grid) => group(&grid, revolution, cards, joker, lock),
    }
}

/// The cards of `cards` in a group (two or more of a rank) or a run (three
/// or more consecutive ranks of a suit): what it keeps from singles.
fn bound(cards: Cards) -> Cards {
    let runs = run_grid(cards);
    let mut out = 0;
    for rank in 0..RANKS {
        let of_rank = cards & rank_cards(rank);
        if of_rank.count_ones() >= 2 {
            out |= of_rank;
        }
    }
    for (suit, row) in runs.iter().enumerate() {
        for (column, &length) in row.iter().enumerate() {
            for c in column..column + usize::from(length) {
                out |= card(c - 1, suit);
            }
        }
    }
    out
}

/// For each rank where `cards` hold two or more (one or more counting the
/// joker, where `joker`), that count on each card held.
fn group_grid(cards: Cards, joker: bool) -> Grid {
    let mut grid = [[0; COLUMNS]; SUITS];
    for column in 1..=RANKS {
        let count = (cards & rank_cards(column - 1)).count_ones() as u8 + u8::from(joker);
        if count >= 2 {
            for (suit, row) in grid.iter_mut().enumerate() {
                if holds(cards, suit, column) {
                    row[column] = count;
                }
            }
        }
    }
    grid
}

/// For each suit and column, the length of the run of held cards that
/// starts there and goes up, where it is three or more.
fn run_grid(cards: Cards) -> Grid {
    let mut grid = [[0; COLUMNS]; SUITS];
    for (suit, row) in grid.iter_mut().enumerate() {
        let mut run = 0;
        for column in (1..=RANKS).rev() {
            run = if holds(cards, suit, column) {
                run + 1
            } else {
                0
            };
            if run >= 3 {
                row[column] = run;
            }
        }
    }
    grid
}

/// For each suit and column from 0, the length of the run that starts
/// there and goes up with the joker in its first gap (column 0, or 14
/// above the 2, where nothing else fills it), where it is three or more.
fn joker_run_grid(cards: Cards) -> Grid {
    let mut grid = [[0; COLUMNS]; SUITS];
    for (suit, row) in grid.iter_mut().enumerate() {
        // The run with the joker, and the run of held cards alone; the
        // joker may stand above the 2 to start with.
        let (mut with, mut without) = (1, 0);
        for column in (0..=RANKS).rev() {
            if holds(cards, suit, column) {
                with += 1;
                without += 1;
            } else {
                with = without + 1;
                without = 0;
            }
            if with >= 3 {
                row[column] = with;
            }
        }
    }
    grid
}

/// `grid` with only the entries equal to `n`, if any.
fn exactly(grid: &Grid, n: u8) -> Option<Grid> {
    let mut out = [[0; COLUMNS]; SUITS];
    let mut any = false;
    for (row, out_row) in grid.iter().zip(out.iter_mut()) {
        for (&value, out_value) in row.iter().zip(out_row.iter_mut()) {
            if value == n {
                *out_value = n;
                any = true;
            }
        }
    }
    any.then_some(out)
}

/// The lowest card of `cards` (♠ first), or under a revolution the highest
/// (♠ first too); else the joker alone where `joker`.
fn single(cards: Cards, joker: bool, revolution: bool) -> Submission {
    let found = if revolution {
        (0..RANKS)
            .rev()
            .flat_map(|rank| (0..SUITS).map(move |suit| rank * SUITS + suit))
            .find(|&index| cards & (1 << index) != 0)
    } else {
        indices(cards).next()
    };
    match found {
        Some(index) => Submission::Single(index),
        None if joker => Submission::LoneJoker,
        None => Submission::Nothing,
    }
}

/// The group at the lowest column (the highest under a revolution) that
/// `grid` marks: every card marked there, and the joker where the mark
/// counts one card more. `hand` is every card held, the joker apart;
/// `lock` the table's suits and whether it is a five-card group, where
/// locked.
fn group(
    grid: &Grid,
    revolution: bool,
    hand: Cards,
    joker: bool,
    lock: Option<(u8, bool)>,
) -> Submission {
    let marked = |column: &usize| grid.iter().any(|row| row[*column] > 1);
    let found = if revolution {
        (1..=RANKS).rev().find(marked)
    } else {
        (1..=RANKS).find(marked)
    };
    let Some(column) = found else {
        return Submission::Nothing;
    };
    let suits = (0..SUITS)
        .filter(|&s| grid[s][column] > 1)
        .fold(0u8, |all, s| all | 1 << s);
    let size = grid[(0..SUITS).rfind(|&s| grid[s][column] > 1).unwrap_or(0)][column];
    let stands = (u32::from(size) > suits.count_ones())
        .then(|| joker_row(column, hand, joker, lock))
        .flatten();
    Submission::Group {
        column,
        suits,
        joker: stands,
    }
}

/// The row the client gives the joker in a group at `column`: the first
/// suit, ♠♥♦♣, that the hand lacks there (and the table holds, under a
/// lock), else the fifth card's row. At the 3s, holding the joker, that
/// row is where the client's table records the joker, so the joker goes
/// past the card rows, where the server never looks: none.
fn joker_row(column: usize, hand: Cards, joker: bool, lock: Option<(u8, bool)>) -> Option<usize> {
    let suit = (0..SUITS).find(|&suit| {
        !holds(hand, suit, column) && lock.is_none_or(|(suits, _)| suits & (1 << suit) != 0)
    });
    if suit.is_some() {
        return suit;
    }
    let fifth_free = !(column == THREES && joker);
    (fifth_free && lock.is_none_or(|(_, fifth)| fifth)).then_some(FIFTH)
}

/// The sequence `length` columns of `suit` from `start`, each the card
/// `hand` holds or the joker.
fn sequence(suit: usize, start: usize, length: usize, hand: Cards) -> Submission {
    let mut cards = 0;
    let mut missing = 0u16;
    for column in start..start + length {
        if holds(hand, suit, column) {
            cards |= card(column - 1, suit);
        } else {
            missing |= 1 << column;
        }
    }
    Submission::Sequence {
        suit,
        start,
        length,
        cards,
        missing,
    }
}

/// The sequence at the lowest column that `grid` marks (from column 0, the
/// joker below the 3), of the first suit with the longest mark there.
fn lowest_sequence(grid: &Grid, hand: Cards) -> Submission {
    for column in 0..COLUMNS {
        let mut best: Option<(usize, u8)> = None;
        for (suit, row) in grid.iter().enumerate() {
            if row[column] > best.map_or(0, |(_, length)| length) {
                best = Some((suit, row[column]));
            }
        }
        if let Some((suit, length)) = best {
            return sequence(suit, column, usize::from(length), hand);
        }
    }
    Submission::Nothing
}

/// The sequence at the highest column where `grid` marks a card `hand`
/// holds (a start on the joker does not count there), the last suit
/// winning ties; from that start it steps down while the marks do not
/// fall, and starts at the lowest it reaches: with the joker just below,
/// the joker goes at the bottom.
fn highest_sequence(grid: &Grid, hand: Cards) -> Submission {
    // The length, suit and start found.
    let mut best = (0u8, 0, 0);
    for column in (1..COLUMNS).rev() {
        for (suit, row) in grid.iter().enumerate() {
            if row[column] == 0 || !holds(hand, suit, column) {
                continue;
            }
            // The client starts its walk one column up.
            let mut at = column + 1;
            loop {
                let value = row[at];
                if value >= best.0 {
                    best = (value, suit, at);
                }
                if at == 0 || row[at - 1] < value {
                    break;
                }
                at -= 1;
            }
        }
        if best.0 != 0 {
            break;
        }
    }
    match best {
        (0, _, _) => Submission::Nothing,
        (length, suit, start) => sequence(suit, start, usize::from(length), hand),
    }
}

/// Every answer expected below is the devkit client's own: its routines
/// run on the same hand, table, revolution and lock give the same cards.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::daihinmin::cards::{card_text, DECK};
    use crate::daihinmin::{parse_cards, Daihinmin};
    use crate::GameSpec;

    fn game(spec: &str) -> Daihinmin {
        Daihinmin::new(spec.parse::<GameSpec>().unwrap())
    }

    /// The text of a card at `suit` and `column` that the joker stands for:
    /// `<3S` below the 3, `>2S` above the 2.
    fn stand_in(suit: usize, column: usize) -> String {
        let suit_text = ["S", "H", "D", "C"][suit];
        match column {
            0 => format!("JK(<3{suit_text})"),
            c if c > RANKS => format!("JK(>2{suit_text})"),
            c => format!("JK({})", card_text((c - 1) * SUITS + suit)),
        }
    }

    /// A sequence as text, column by column, the joker's place shown.
    fn sequence_text(suit: usize, start: usize, length: usize, natural: Cards) -> String {
        (start..start + length)
            .map(|column| {
                if holds(natural, suit, column) {
                    card_text((column - 1) * SUITS + suit)
                } else {
                    stand_in(suit, column)
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A group as text, suit by suit, the joker's suit shown (a five-card
    /// group's joker last).
    fn group_text(column: usize, natural: u8, joker: Option<usize>) -> String {
        let mut words: Vec<String> = (0..SUITS)
            .filter_map(|suit| {
                if natural & (1 << suit) != 0 {
                    Some(card_text((column - 1) * SUITS + suit))
                } else {
                    (joker == Some(suit)).then(|| stand_in(suit, column))
                }
            })
            .collect();
        if joker == Some(FIFTH) {
            words.push("JK".into());
        }
        words.join(" ")
    }

    /// A catalogue play as text (`pass` for none).
    fn play_text(action: Action) -> String {
        let Some(play) = catalogue().play(action) else {
            return "pass".into();
        };
        let natural = play.cards & !JOKER;
        match play.kind {
            Kind::Single if play.is_lone_joker() => "JK".into(),
            Kind::Single => card_text(natural.trailing_zeros() as usize),
            Kind::Group => {
                let column = play.low as usize + 1;
                let held = (0..SUITS)
                    .filter(|&s| holds(natural, s, column))
                    .fold(0u8, |all, s| all | 1 << s);
                let joker = (play.cards & JOKER != 0).then(|| {
                    if play.size == 5 {
                        FIFTH
                    } else {
                        (play.suits & !held).trailing_zeros() as usize
                    }
                });
                group_text(column, held, joker)
            }
            Kind::Sequence => sequence_text(
                play.suits.trailing_zeros() as usize,
                (play.low + 1) as usize,
                usize::from(play.size),
                natural,
            ),
        }
    }

    /// What the client hands the server, as text.
    fn submission_text(submission: Submission) -> String {
        match submission {
            Submission::Nothing => "pass".into(),
            Submission::Single(index) => card_text(index),
            Submission::LoneJoker => "JK".into(),
            Submission::Group {
                column,
                suits,
                joker,
            } => group_text(column, suits, joker),
            Submission::Sequence {
                suit,
                start,
                length,
                cards,
                ..
            } => sequence_text(suit, start, length, cards),
        }
    }

    /// The catalogue play that `text` shows (as [`play_text`] writes it).
    fn action_of(text: &str) -> Action {
        catalogue()
            .plays()
            .map(|(id, _)| id)
            .find(|&id| play_text(id) == text)
            .unwrap_or_else(|| panic!("no play reads {text}"))
    }

    /// Other seats' hands: one card each of those left, seat 1 holding
    /// `table` and one more.
    fn deal(hand: &str, table: Cards) -> Vec<Cards> {
        let mine = parse_cards(hand).unwrap();
        let mut rest = indices(DECK & !mine & !table & !JOKER).map(|i| 1 << i);
        let mut hands = vec![mine, table | rest.next().unwrap()];
        hands.extend(rest.take(3));
        hands
    }

    /// Seat 0 to lead with `hand`.
    fn leading(hand: &str, revolution: bool) -> DaihinminState {
        let g = game("daihinmin");
        let mut state = DaihinminState::from_hands(g.rules(), deal(hand, 0), 0);
        state.adopt_turn(0, None, false, revolution);
        state
    }

    /// Seat 0 to answer `table`, which seat 1 played under `revolution`
    /// (the play turning it where it revolts), after `passes` passes.
    fn answering(
        hand: &str,
        table: &str,
        revolution: bool,
        locked: bool,
        passes: usize,
    ) -> DaihinminState {
        let g = game("daihinmin");
        let action = action_of(table);
        let cards = catalogue().play(action).unwrap().cards;
        let mut state = DaihinminState::from_hands(g.rules(), deal(hand, cards), 1);
        state.adopt_turn(1, None, false, revolution);
        state.force_play(1, action);
        assert!(state.table().is_some(), "{table} stays on the table (no 8)");
        for _ in 0..passes {
            state.apply_action(PASS);
        }
        let (now, on_table) = (state.revolution(), state.table());
        state.adopt_turn(0, on_table, locked, now);
        state
    }

    /// What the client hands the server at `state`, and the move made of it.
    fn answer(state: &DaihinminState) -> (String, String) {
        let legal = state.legal_actions();
        let chosen = choose(state, &legal);
        assert!(legal.contains(&chosen));
        (submission_text(submission(state)), play_text(chosen))
    }

    /// The move at `state`, which is what the client hands the server.
    fn plays(state: &DaihinminState) -> String {
        let (submitted, chosen) = answer(state);
        assert_eq!(submitted, chosen, "the server takes it");
        chosen
    }

    /// The gifts the daifugo (seat 2) and fugo (seat 0) make, as the
    /// exchange asks them, from the hands dealt to them; the rest of the
    /// deck goes to seats 3, 4 and 1 in that order. The daihinmin (seat 1)
    /// gives the daifugo its two strongest cards first.
    fn gifts(daifugo: &str, fugo: &str) -> Vec<String> {
        let g = game("daihinmin(ranks=2 5 1 4 3)");
        let mut state = g.initial_state();
        let (rich, second) = (parse_cards(daifugo).unwrap(), parse_cards(fugo).unwrap());
        let rest: Vec<usize> = indices(DECK & !rich & !second).collect();
        let mut dealt: Vec<Vec<usize>> = vec![Vec::new(); 5];
        dealt[2] = indices(rich).collect();
        dealt[0] = indices(second).collect();
        dealt[3] = rest[..11].to_vec();
        dealt[4] = rest[11..22].to_vec();
        dealt[1] = rest[22..].to_vec();
        // Dealt one card a seat in turn from the daifugo.
        for turn in 0..53 {
            let seat = [2, 3, 4, 0, 1][turn % 5];
            state.apply_action(dealt[seat].remove(0));
        }
        let mut out = Vec::new();
        while state.in_exchange() {
            let action = choose(&state, &state.legal_actions());
            out.push(card_text(action - g.rules().give_base()));
            state.apply_action(action);
        }
        out
    }

    #[test]
    fn the_exchange_gives_the_lowest_cards_spades_first_never_the_joker() {
        // The daifugo holds 3S 3H 3D … JK and gets 2S 2H from the
        // daihinmin: it gives 3S and 3H (not 3D, the weakest by the
        // server's order). The fugo gives 4S before 4C.
        assert_eq!(
            gifts(
                "3S 3H 3D 9C TC JC QC KC AC 2C JK",
                "4S 4C 5H 6D 7S 8S 9S TS JS QS"
            ),
            ["3S", "3H", "4S"]
        );
        // The joker stays however strong the rest.
        let mut hand = parse_cards("JK 2S 2H 2D").unwrap();
        for expected in ["2S", "2H", "2D"] {
            let gift = indices(hand & !JOKER).next().unwrap();
            assert_eq!(card_text(gift), expected);
            hand &= !(1 << gift);
        }
        assert_eq!(indices(hand & !JOKER).next(), None);
    }

    #[test]
    fn the_servers_weakest_cards_still_count_spades_strongest() {
        // What the server takes from the poorest (its strongest by this
        // order) and gives back for a client: ♣ is the weakest suit.
        let hand = parse_cards("3S 3H 3D 9C").unwrap();
        assert_eq!(weakest_cards(hand, 2), parse_cards("3H 3D").unwrap());
        assert_eq!(
            weakest_cards(parse_cards("JK 2S").unwrap(), 2),
            parse_cards("JK 2S").unwrap()
        );
    }

    #[test]
    fn a_lead_without_the_joker_is_the_longest_sequence_else_the_largest_group_else_the_lowest_single(
    ) {
        assert_eq!(
            plays(&leading("3S 4S 5S 6S 7D 7H 7C KH", false)),
            "3S 4S 5S 6S"
        );
        assert_eq!(plays(&leading("4S 4H 7D 7H 7C KH", false)), "7H 7D 7C");
        assert_eq!(plays(&leading("4H 5S 9C", false)), "4H");
    }

    #[test]
    fn holding_the_joker_every_lead_uses_it() {
        // The joker in the first gap of a run, or below the 3.
        assert_eq!(plays(&leading("5S 7S 9D JK", false)), "5S JK(6S) 7S");
        assert_eq!(plays(&leading("3S 4S 9H JK", false)), "JK(<3S) 3S 4S");
        // The longest run, the joker below its lowest card.
        assert_eq!(plays(&leading("KS AS 2S 5H JK", false)), "JK(QS) KS AS 2S");
        // No run: the largest group and the joker, standing for the first
        // suit missing (a revolution from a triple), …
        assert_eq!(
            plays(&leading("4S 4H 7D 7H 7C KH JK", false)),
            "JK(7S) 7H 7D 7C"
        );
        assert_eq!(plays(&leading("3S 5H 5D 9C JK", false)), "JK(5S) 5H 5D");
        // … else a pair of its lowest card and the joker.
        assert_eq!(plays(&leading("4S 5H 2C JK", false)), "4S JK(4H)");
        assert_eq!(plays(&leading("5S JK", false)), "5S JK(5H)");
    }

    #[test]
    fn a_quad_and_the_joker_lead_as_a_five_card_group_but_the_joker_falls_off_the_threes() {
        assert_eq!(plays(&leading("KS KH KD KC JK", false)), "KS KH KD KC JK");
        // At the 3s the client's table has no row left for the joker.
        assert_eq!(plays(&leading("3S 3H 3D 3C JK 9S", false)), "3S 3H 3D 3C");
    }

    #[test]
    fn the_lone_joker_leads_only_as_the_last_card() {
        assert_eq!(plays(&leading("JK", false)), "JK");
        assert_eq!(plays(&leading("JK", true)), "JK");
    }

    #[test]
    fn a_single_is_followed_with_the_lowest_loose_card_else_the_lone_joker() {
        // The fives are a pair: kept.
        assert_eq!(
            plays(&answering("5H 5D 7C 9H", "6S", false, false, 0)),
            "7C"
        );
        // A run of three is kept too.
        assert_eq!(
            plays(&answering("5S 6S 7S 9D", "4S", false, false, 0)),
            "9D"
        );
        // Under a lock only the table's suit.
        assert_eq!(plays(&answering("6S 7H 8H 8D", "5H", false, true, 0)), "7H");
        // Nothing loose beats it: the joker alone, on a 4 as on a 2; a
        // pair of 2s is never broken.
        assert_eq!(
            plays(&answering("5H 5D 2S 2H JK", "4S", false, false, 0)),
            "JK"
        );
        assert_eq!(
            plays(&answering("7S 8S 9S 2H JK", "2D", false, false, 0)),
            "JK"
        );
    }

    #[test]
    fn a_lone_joker_is_never_answered_not_even_with_spade_three() {
        let state = answering("3S 6S 6H", "JK", false, false, 0);
        assert!(state.legal_actions().contains(&action_of("3S")));
        assert_eq!(plays(&state), "pass");
    }

    #[test]
    fn a_group_is_answered_only_with_exactly_as_many_cards() {
        // The pair of 10s, not two of the three 9s.
        assert_eq!(
            plays(&answering("9S 9H 9D TC TD", "5S 5H", false, false, 0)),
            "TD TC"
        );
        // Four 6s do not answer three 5s.
        assert_eq!(
            plays(&answering("6S 6H 6D 6C 9S", "5S 5H 5D", false, false, 0)),
            "pass"
        );
    }

    #[test]
    fn else_a_group_is_answered_with_one_card_fewer_and_the_joker_in_the_first_suit_missing() {
        assert_eq!(
            plays(&answering("9S 9H 9D TC JK", "5S 5H", false, false, 0)),
            "JK(TS) TC"
        );
        // A triple and the joker make no pair: a pass.
        assert_eq!(
            plays(&answering("9S 9H 9D JK 3C", "5S 5H", false, false, 0)),
            "pass"
        );
        // Under a lock of ♠♥ the joker stands for the ♠ it lacks.
        assert_eq!(
            plays(&answering("7H 7D 9S JK", "5S 5H", false, true, 0)),
            "JK(7S) 7H"
        );
    }

    #[test]
    fn a_sequence_is_answered_with_a_run_of_exactly_its_length_to_the_top_then_with_the_joker() {
        // The top three of a run of four.
        assert_eq!(
            plays(&answering("7S 8S 9S TS", "3D 4D 5D", false, false, 0)),
            "8S 9S TS"
        );
        // The joker below (an 8: it cuts) …
        assert_eq!(
            plays(&answering("9S TS JK 4C", "5H 6H 7H", false, false, 0)),
            "JK(8S) 9S TS"
        );
        assert_eq!(
            plays(&answering("AS 2S JK", "9H TH JH", false, false, 0)),
            "JK(KS) AS 2S"
        );
    }

    #[test]
    fn a_joker_on_the_tables_top_rank_is_refused_and_counts_as_a_pass() {
        // QS KS JK(AS) would do; it hands in JK(JS) QS KS.
        let state = answering("QS KS JK 4C", "9H TH JH", false, false, 0);
        assert!(state.legal_actions().contains(&action_of("QS KS JK(AS)")));
        assert_eq!(answer(&state), ("JK(JS) QS KS".into(), "pass".into()));
        let locked = answering("8H 9H JK", "5H 6H 7H", false, true, 0);
        assert_eq!(answer(&locked), ("JK(7H) 8H 9H".into(), "pass".into()));
        // Holding the table's top card, it hands that card in instead.
        let holding = answering("JS QS KS JK", "9H TH JH", false, false, 0);
        assert_eq!(answer(&holding), ("JS QS KS".into(), "pass".into()));
    }

    #[test]
    fn under_a_revolution_a_lead_takes_the_highest_clubs_winning_ties_and_the_joker_going_low() {
        assert_eq!(plays(&leading("5S 6S 7S 5C 6C 7C", true)), "5C 6C 7C");
        assert_eq!(
            plays(&leading("9S TS JS 4H 5H 6H JK", true)),
            "JK(8S) 9S TS JS"
        );
        assert_eq!(plays(&leading("6D 9H QC JK", true)), "JK(QS) QC");
        assert_eq!(plays(&leading("5H KD", true)), "KD");
    }

    #[test]
    fn under_a_revolution_answers_are_mirrored() {
        // Singles: the highest loose card below the table, else the joker.
        assert_eq!(
            plays(&answering("3C 5D 7S 7H KD", "9H", true, false, 0)),
            "5D"
        );
        assert_eq!(
            plays(&answering("3C 3D 4S 9H JK", "3H", true, false, 0)),
            "JK"
        );
        // Groups: the highest exact one.
        assert_eq!(
            plays(&answering("5S 5H 7D 7C 8S", "9S 9H", true, false, 0)),
            "7D 7C"
        );
        // Sequences: the bottom of a longer run; the joker below.
        assert_eq!(
            plays(&answering("4S 5S 6S 7S", "TH JH QH", true, false, 0)),
            "5S 6S 7S"
        );
        assert_eq!(
            plays(&answering("5S 6S 5C 6C JK", "9H TH JH", true, false, 0)),
            "JK(4C) 5C 6C"
        );
    }

    #[test]
    fn right_after_a_sequence_turns_the_revolution_it_is_read_from_the_wrong_end() {
        // 9S-KS starts a revolution. The next player still reads it as
        // ending at the K, keeps everything below, and hands in 5H-9H,
        // which does not go under the 9: a pass.
        let state = answering("4H 5H 6H 7H 8H 9H", "9S TS JS QS KS", false, false, 0);
        assert!(state.revolution());
        assert_eq!(answer(&state), ("5H 6H 7H 8H 9H".into(), "pass".into()));
        // After a pass it reads it again, from the 9.
        let later = answering("4H 5H 6H 7H 8H 9H", "9S TS JS QS KS", false, false, 1);
        assert_eq!(plays(&later), "4H 5H 6H 7H 8H");
    }

    #[test]
    fn whole_games_of_default_players_end_with_every_move_legal() {
        let g = game("daihinmin");
        for first in 0..5 {
            let mut state = g.initial_state();
            let mut player = DefaultPlayer;
            let mut moves = 0;
            while state.turn() != crate::Turn::Terminal {
                let action = match state.turn() {
                    crate::Turn::Chance => {
                        let outcomes = state.chance_outcomes();
                        outcomes[(first * 7 + moves) % outcomes.len()].0
                    }
                    _ => {
                        let legal = state.legal_actions();
                        let policy = player.policy(&state, &legal);
                        assert_eq!(policy.iter().sum::<f64>(), 1.0);
                        legal[policy.iter().position(|&p| p == 1.0).unwrap()]
                    }
                };
                state.apply_action(action);
                moves += 1;
                assert!(moves < 2000);
            }
        }
    }
}
