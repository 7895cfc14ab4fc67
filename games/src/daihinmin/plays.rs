//! Every play Daihinmin allows, each with a fixed action id, and which
//! plays beat which.
//!
//! Action 0 is the pass. Then, in this order: the 52 single cards and the
//! lone joker; for each rank, every group of two to four of its suits,
//! natural or with the joker standing for one of those suits (a distinct
//! action per suit the joker stands for, since suits decide locks), and
//! the five-card group of four and the joker; for each suit, every
//! sequence of three or more consecutive ranks, natural or with the joker
//! standing for one of its ranks, including a rank below the 3 or above
//! the 2 that only the joker can fill. The list is built once
//! ([`catalogue`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::cards::{card, rank_cards, Cards, EIGHT, JOKER, RANKS, SPADE_THREE, SUITS};

/// What kind of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One card.
    Single,
    /// Cards of one rank.
    Group,
    /// Consecutive ranks of one suit.
    Sequence,
}

/// One play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Play {
    /// Its kind.
    pub kind: Kind,
    /// The cards played, the joker among them where used.
    pub cards: Cards,
    /// The lowest rank it counts as (a sequence's joker may count as -1,
    /// below the 3).
    pub low: i8,
    /// The highest rank it counts as (a sequence's joker may count as 13,
    /// above the 2).
    pub high: i8,
    /// Cards in it.
    pub size: u8,
    /// The suits it counts as, the joker's stand-in included (all four
    /// for the five-card group, none for the lone joker).
    pub suits: u8,
    /// Whether it counts as holding an 8 (the joker standing for one
    /// included): it clears the table.
    pub eight: bool,
}

impl Play {
    /// The joker alone.
    pub fn is_lone_joker(&self) -> bool {
        self.cards == JOKER
    }

    /// ♠3 alone.
    pub fn is_spade_three(&self) -> bool {
        self.kind == Kind::Single && self.cards == SPADE_THREE
    }

    /// Whether it reverses the order: a group of four or more, a sequence
    /// of five or more.
    pub fn revolts(&self) -> bool {
        match self.kind {
            Kind::Single => false,
            Kind::Group => self.size >= 4,
            Kind::Sequence => self.size >= 5,
        }
    }

    /// Whether it beats `table`, under a revolution or not, with the
    /// table's suits locked or not. Same kind and size, strictly stronger
    /// (a sequence's lowest rank above the table's highest, or under a
    /// revolution its highest below the table's lowest), the same suits
    /// under a lock; a lone joker beats any other single, and only ♠3
    /// beats a lone joker, each whatever the lock.
    pub fn beats(&self, table: &Play, revolution: bool, locked: bool) -> bool {
        if self.kind != table.kind || self.size != table.size {
            return false;
        }
        if table.is_lone_joker() {
            return self.is_spade_three();
        }
        if self.is_lone_joker() {
            return true;
        }
        if locked && self.suits != table.suits {
            return false;
        }
        if revolution {
            self.high < table.low
        } else {
            self.low > table.high
        }
    }
}

/// Every play and its action id.
pub struct Catalogue {
    /// By action id; id 0 (the pass) holds no play.
    plays: Vec<Option<Play>>,
    ids: HashMap<Play, usize>,
    /// The ids of each kind and size ([`shape`]): all a play on the table
    /// can be answered with.
    by_shape: Vec<Vec<usize>>,
    /// The ids of the plays whose lowest card is each card (the lone
    /// joker's is the joker): a hand can lead only plays keyed by its
    /// cards.
    by_lowest_card: Vec<Vec<usize>>,
}

impl Catalogue {
    /// The play of action `id` (none for the pass or an id beyond).
    pub fn play(&self, id: usize) -> Option<&Play> {
        self.plays.get(id).and_then(Option::as_ref)
    }

    /// The action id of `play`.
    pub fn id(&self, play: &Play) -> Option<usize> {
        self.ids.get(play).copied()
    }

    /// Action ids: the pass and every play.
    pub fn actions(&self) -> usize {
        self.plays.len()
    }

    /// The plays of `kind` and `size`, with their ids.
    pub fn shaped(&self, kind: Kind, size: u8) -> impl Iterator<Item = (usize, &Play)> {
        self.by_shape[shape(kind, size)]
            .iter()
            .map(|&id| (id, self.plays[id].as_ref().expect("a play")))
    }

    /// The plays whose lowest card is among `cards`, with their ids (in
    /// no particular order).
    pub fn keyed_by(&self, cards: Cards) -> impl Iterator<Item = (usize, &Play)> {
        (0..self.by_lowest_card.len())
            .filter(move |&c| cards & (1 << c) != 0)
            .flat_map(move |c| self.by_lowest_card[c].iter())
            .map(|&id| (id, self.plays[id].as_ref().expect("a play")))
    }

    /// Every play with its id.
    pub fn plays(&self) -> impl Iterator<Item = (usize, &Play)> {
        self.plays
            .iter()
            .enumerate()
            .filter_map(|(id, p)| p.as_ref().map(|p| (id, p)))
    }
}

/// The most cards in a play (a sequence of 14 with the joker).
const MAX_SIZE: u8 = 15;

/// A kind and size as an index.
fn shape(kind: Kind, size: u8) -> usize {
    let kind = match kind {
        Kind::Single => 0,
        Kind::Group => 1,
        Kind::Sequence => 2,
    };
    kind * (usize::from(MAX_SIZE) + 1) + usize::from(size.min(MAX_SIZE))
}

/// The pass's action id.
pub const PASS: usize = 0;

/// The catalogue, built on first use.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut plays = vec![None];
        plays.extend(singles().into_iter().map(Some));
        plays.extend(groups().into_iter().map(Some));
        plays.extend(sequences().into_iter().map(Some));
        let ids = plays
            .iter()
            .enumerate()
            .filter_map(|(id, p)| p.map(|p| (p, id)))
            .collect();
        let mut by_shape = vec![Vec::new(); shape(Kind::Sequence, MAX_SIZE) + 1];
        let mut by_lowest_card = vec![Vec::new(); RANKS * SUITS + 1];
        for (id, play) in plays.iter().enumerate() {
            if let Some(p) = play {
                by_shape[shape(p.kind, p.size)].push(id);
                by_lowest_card[p.cards.trailing_zeros() as usize].push(id);
            }
        }
        Catalogue {
            plays,
            ids,
            by_shape,
            by_lowest_card,
        }
    })
}

fn singles() -> Vec<Play> {
    let mut out: Vec<Play> = (0..RANKS * SUITS)
        .map(|index| {
            let (rank, suit) = (index / SUITS, index % SUITS);
            Play {
                kind: Kind::Single,
                cards: card(rank, suit),
                low: rank as i8,
                high: rank as i8,
                size: 1,
                suits: 1 << suit,
                eight: rank == EIGHT,
            }
        })
        .collect();
    // The lone joker: stronger than any single, under a revolution too
    // (`beats` treats it apart; its ranks only keep it out of the way).
    out.push(Play {
        kind: Kind::Single,
        cards: JOKER,
        low: RANKS as i8,
        high: RANKS as i8,
        size: 1,
        suits: 0,
        eight: false,
    });
    out
}

fn groups() -> Vec<Play> {
    let mut out = Vec::new();
    for rank in 0..RANKS {
        let group = |cards: Cards, suits: u8| Play {
            kind: Kind::Group,
            cards,
            low: rank as i8,
            high: rank as i8,
            size: cards.count_ones() as u8,
            suits,
            eight: rank == EIGHT,
        };
        let of_suits = |suits: u8| -> Cards {
            (0..SUITS)
                .filter(|s| suits & (1 << s) != 0)
                .map(|s| card(rank, s))
                .sum()
        };
        for suits in 1u8..16 {
            if suits.count_ones() < 2 {
                continue;
            }
            out.push(group(of_suits(suits), suits));
            for joker_suit in (0..SUITS).filter(|s| suits & (1 << s) != 0) {
                let natural = suits & !(1 << joker_suit);
                out.push(group(of_suits(natural) | JOKER, suits));
            }
        }
        out.push(group(rank_cards(rank) | JOKER, 0b1111));
    }
    out
}

fn sequences() -> Vec<Play> {
    // Positions 0..=14: position p counts as rank p - 1, so 0 is below the
    // 3 and 14 above the 2, places only the joker can fill.
    const POSITIONS: usize = RANKS + 2;
    let mut out = Vec::new();
    for suit in 0..SUITS {
        for length in 3..=POSITIONS {
            for start in 0..=POSITIONS - length {
                let end = start + length - 1;
                let jokers: Vec<Option<usize>> = match (start == 0, end == POSITIONS - 1) {
                    (true, true) => continue,
                    (true, false) => vec![Some(start)],
                    (false, true) => vec![Some(end)],
                    (false, false) => std::iter::once(None)
                        .chain((start..=end).map(Some))
                        .collect(),
                };
                for joker in jokers {
                    let cards = (start..=end)
                        .filter(|&p| Some(p) != joker)
                        .map(|p| card(p - 1, suit))
                        .sum::<Cards>()
                        | if joker.is_some() { JOKER } else { 0 };
                    out.push(Play {
                        kind: Kind::Sequence,
                        cards,
                        low: start as i8 - 1,
                        high: end as i8 - 1,
                        size: length as u8,
                        suits: 1 << suit,
                        eight: (start..=end).contains(&(EIGHT + 1)),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::cards::parse_cards;
    use super::*;

    fn find(kind: Kind, cards: &str, suits: u8) -> Play {
        find_at(kind, cards, suits, None)
    }

    /// The play of `kind` with these cards (and suits, and lowest rank,
    /// where given: a sequence's joker may stand at either end).
    fn find_at(kind: Kind, cards: &str, suits: u8, low: Option<i8>) -> Play {
        let cards = parse_cards(cards).unwrap();
        *catalogue()
            .plays()
            .map(|(_, p)| p)
            .find(|p| {
                p.kind == kind
                    && p.cards == cards
                    && (suits == 0 || p.suits == suits)
                    && low.is_none_or(|low| p.low == low)
            })
            .unwrap_or_else(|| panic!("no {kind:?} {cards:x}"))
    }

    #[test]
    fn the_catalogue_counts_every_play_once() {
        let c = catalogue();
        // 53 singles; 13 ranks x (11 natural groups + 28 with the joker + 1
        // five-card group); sequences counted by hand per suit: lengths 3
        // to 14 over 15 positions, ends joker-only.
        let interior: usize = (3..=13).map(|l| (15 - l - 1) * (l + 1)).sum::<usize>();
        let at_an_end: usize = (3..=14).map(|_| 2).sum::<usize>();
        let sequences = 4 * (interior + at_an_end);
        assert_eq!(c.actions(), 1 + 53 + 13 * 40 + sequences);
        assert_eq!(c.ids.len(), c.actions() - 1, "no play twice");
        for (id, play) in c.plays() {
            assert_eq!(c.id(play), Some(id));
            assert_eq!(u32::from(play.size), play.cards.count_ones());
        }
    }

    #[test]
    fn sequences_may_use_the_joker_at_either_end_or_inside() {
        // Joker below the 3: JK 3S 4S counts as ranks -1..1.
        let low = find_at(Kind::Sequence, "JK 3S 4S", 1, Some(-1));
        assert_eq!((low.low, low.high), (-1, 1));
        // or for 5S: ranks 0..2.
        let five = find_at(Kind::Sequence, "JK 3S 4S", 1, Some(0));
        assert_eq!(five.high, 2);
        // Joker above the 2: KS AS 2S JK counts as ranks 10..13.
        let high = find_at(Kind::Sequence, "KS AS 2S JK", 1, Some(10));
        assert_eq!((high.low, high.high), (10, 13));
        // Inside: 6H JK 8H stands for 7H, and 7H JK 9H for 8H: an 8-cut.
        let inside = find(Kind::Sequence, "6H JK 8H", 0b10);
        assert!(inside.eight);
        let joker_eight = find(Kind::Sequence, "7H JK 9H", 0b10);
        assert!(joker_eight.eight && !find(Kind::Sequence, "3H 4H 5H", 0b10).eight);
    }

    #[test]
    fn plays_beat_by_kind_size_strength_lock_and_revolution() {
        let single = |c: &str| find(Kind::Single, c, 0);
        assert!(single("5S").beats(&single("4H"), false, false));
        assert!(!single("4S").beats(&single("4H"), false, false));
        assert!(single("4S").beats(&single("5H"), true, false));
        // A lock asks for the same suit.
        assert!(!single("6S").beats(&single("4H"), false, true));
        assert!(single("6H").beats(&single("4H"), false, true));
        // The lone joker beats any single, revolution or lock; only ♠3
        // beats it, lock or not.
        let joker = single("JK");
        assert!(joker.beats(&single("2S"), false, true));
        assert!(joker.beats(&single("3C"), true, false));
        assert!(single("3S").beats(&joker, false, true));
        assert!(!single("3H").beats(&joker, false, false));
        assert!(!single("2S").beats(&joker, false, false));
        // Groups: same size; the joker counts as the rank it joins.
        let pair = find(Kind::Group, "7S 7D", 0);
        let with_joker = find(Kind::Group, "9C JK", 0b1001);
        assert!(with_joker.beats(&pair, false, false));
        assert!(!with_joker.beats(&pair, false, true), "suits ♠♣ against ♠♦");
        let locked_fit = find(Kind::Group, "9S JK", 0b0101);
        assert!(
            locked_fit.beats(&pair, false, true),
            "the joker stands for ♦"
        );
        assert!(!find(Kind::Group, "9S 9H 9D", 0).beats(&pair, false, false));
        // Sequences: the lowest above the table's highest.
        let seq = find(Kind::Sequence, "3S 4S 5S", 0);
        assert!(find(Kind::Sequence, "6D 7D 8D", 0).beats(&seq, false, false));
        assert!(!find(Kind::Sequence, "5D 6D 7D", 0).beats(&seq, false, false));
        let below_three = find_at(Kind::Sequence, "JK 3D 4D", 0, Some(-1));
        assert!(below_three.beats(&find(Kind::Sequence, "5D 6D 7D", 0), true, false));
        assert!(!below_three.beats(&find(Kind::Sequence, "5D 6D 7D", 0), false, false));
        assert!(find(Kind::Group, "4S 4H 4D 4C", 0).revolts());
        assert!(find(Kind::Group, "4S 4H 4D JK", 0b1111).revolts());
        assert!(find(Kind::Sequence, "3C 4C 5C 6C JK", 0).revolts());
        assert!(!find(Kind::Sequence, "3C 4C 5C 6C", 0).revolts());
    }
}
