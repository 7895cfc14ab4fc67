//! UECda's message: an 8 × 15 table of 32-bit integers, big-endian in
//! protocol 20070, in the machine's own order (little-endian on the x86
//! machines UECda runs on) in the older 20060.
//!
//! Rows 0–3 are the suits ♠ ♥ ♦ ♣ and columns 1–13 the ranks 3 … A, 2 (the
//! games layer's suit order, and its rank plus one). A held card is a 1 in
//! its cell and the held joker a 2 at row 4, column 1. In a play the joker
//! is a 2 in the cell of the card it stands for: column 0 or 14 at a
//! sequence's end below the 3 or above the 2, row 4 as a five-card group's
//! fifth card; a lone joker is a 2 anywhere in rows 0–3. A pass is all
//! zeros. Rows 5 and 6 carry the game's state ([`state_row`], [`players_row`]).

use std::io::{Read, Write};

use rnad_games::daihinmin::{catalogue, Cards, Kind, Play, JOKER, PASS};

/// Rows of a table.
pub const ROWS: usize = 8;
/// Columns of a table.
pub const COLS: usize = 15;
/// Bytes of a table on the wire.
pub const BYTES: usize = ROWS * COLS * 4;
/// The protocol versions spoken here, as the official server takes them:
/// a client announces 20070 in its first table, with its name; a client
/// that sends nothing first speaks 20060.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Integers little-endian, no first table.
    V20060,
    /// Integers big-endian, a first table with the version and the name.
    V20070,
}

impl Protocol {
    /// Its version number.
    pub fn number(self) -> i32 {
        match self {
            Protocol::V20060 => 20060,
            Protocol::V20070 => 20070,
        }
    }

    /// The protocol of version `number`, if spoken here.
    pub fn of_number(number: i32) -> Option<Protocol> {
        [Protocol::V20060, Protocol::V20070]
            .into_iter()
            .find(|p| p.number() == number)
    }

    fn decode(self, bytes: [u8; 4]) -> i32 {
        match self {
            Protocol::V20060 => i32::from_le_bytes(bytes),
            Protocol::V20070 => i32::from_be_bytes(bytes),
        }
    }

    fn encode(self, value: i32) -> [u8; 4] {
        match self {
            Protocol::V20060 => value.to_le_bytes(),
            Protocol::V20070 => value.to_be_bytes(),
        }
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Protocol, String> {
        s.parse::<i32>()
            .ok()
            .and_then(Protocol::of_number)
            .ok_or_else(|| format!("protocol {s:?}: 20060 or 20070"))
    }
}

const JOKER_INDEX: usize = 52;

/// Row 5's fields.
pub mod state_row {
    /// The deal message (the exchange comes next for some).
    pub const DEAL: usize = 0;
    /// Cards this player must give in the exchange (2, 1 or 0).
    pub const TO_GIVE: usize = 1;
    /// It is this player's turn.
    pub const MY_TURN: usize = 2;
    /// The player on turn (who just acted, in the table after a turn).
    pub const ON_TURN: usize = 3;
    /// The table is empty.
    pub const EMPTY: usize = 4;
    /// Revolution.
    pub const REVOLUTION: usize = 6;
    /// Lock.
    pub const LOCK: usize = 7;
}

/// Row 6's fields: hand sizes by player (0–4), ranks by player (5–9, 0 =
/// daifugo), the player in each seat (10–14).
pub mod players_row {
    /// First hand size.
    pub const SIZES: usize = 0;
    /// First rank.
    pub const RANKS: usize = 5;
    /// First seat.
    pub const SEATS: usize = 10;
}

/// Reads one of the protocol's plain integers (the player id, the answer
/// to a move, the end of a turn): 32 bits.
pub fn read_int(from: &mut impl Read, protocol: Protocol) -> std::io::Result<i32> {
    let mut bytes = [0u8; 4];
    from.read_exact(&mut bytes)?;
    Ok(protocol.decode(bytes))
}

/// Writes one of the protocol's plain integers and flushes.
pub fn write_int(to: &mut impl Write, value: i32, protocol: Protocol) -> std::io::Result<()> {
    to.write_all(&protocol.encode(value))?;
    to.flush()
}

/// A malformed table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A cell outside the card area holds a card, or a value other than 0,
    /// 1 or 2.
    #[error("cell [{row}][{col}] holds {value}, which no card is")]
    BadCell {
        /// Row.
        row: usize,
        /// Column.
        col: usize,
        /// What it held.
        value: i32,
    },
    /// The cards make no play the rules allow.
    #[error("the cards {0} are no play (not a single, group or sequence)")]
    NoPlay(String),
}

/// One table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table(pub [[i32; COLS]; ROWS]);

impl Default for Table {
    fn default() -> Self {
        Table([[0; COLS]; ROWS])
    }
}

fn cell(index: usize) -> (usize, usize) {
    (index % 4, index / 4 + 1)
}

impl Table {
    /// Reads one table (480 bytes).
    pub fn read(from: &mut impl Read, protocol: Protocol) -> std::io::Result<Table> {
        let mut bytes = [0u8; BYTES];
        from.read_exact(&mut bytes)?;
        let mut table = Table::default();
        for (i, chunk) in bytes.chunks_exact(4).enumerate() {
            table.0[i / COLS][i % COLS] = protocol.decode([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Ok(table)
    }

    /// Writes it (480 bytes, in one write: the official server reads a
    /// table with one read).
    pub fn write(&self, to: &mut impl Write, protocol: Protocol) -> std::io::Result<()> {
        let bytes: Vec<u8> = self
            .0
            .iter()
            .flatten()
            .flat_map(|&v| protocol.encode(v))
            .collect();
        to.write_all(&bytes)
    }

    /// A hand: its cards, the joker at `[4][1]`.
    pub fn of_hand(cards: Cards) -> Table {
        let mut table = Table::default();
        for index in (0..JOKER_INDEX).filter(|&i| cards & (1 << i) != 0) {
            let (row, col) = cell(index);
            table.0[row][col] = 1;
        }
        if cards & JOKER != 0 {
            table.0[4][1] = 2;
        }
        table
    }

    /// The hand a table shows (rows 0–4 only).
    pub fn hand(&self) -> Result<Cards, TableError> {
        self.cards(false)
    }

    /// The cards an exchange submission gives, read as the official
    /// server reads them: a 1 in rows 0–3, columns 1–13 is that card, a 2
    /// in any cell of rows 0–4 is the joker (once).
    pub fn gift(&self) -> Result<Cards, TableError> {
        self.cards(true)
    }

    /// The cards of rows 0–4: a 1 in rows 0–3, columns 1–13 is that card;
    /// the joker is a 2 at `[4][1]`, or in any cell (once) where
    /// `joker_anywhere`.
    fn cards(&self, joker_anywhere: bool) -> Result<Cards, TableError> {
        let mut cards = 0;
        for row in 0..5 {
            for col in 0..COLS {
                let value = self.0[row][col];
                let joker_here = joker_anywhere || (row, col) == (4, 1);
                match (row, col, value) {
                    (_, _, 0) => {}
                    (_, _, 2) if joker_here && cards & JOKER == 0 => cards |= JOKER,
                    (0..=3, 1..=13, 1) => cards |= 1 << ((col - 1) * 4 + row),
                    _ => return Err(TableError::BadCell { row, col, value }),
                }
            }
        }
        Ok(cards)
    }

    /// A play as a submission (the pass as all zeros).
    pub fn of_play(play: Option<&Play>) -> Table {
        let mut table = Table::default();
        let Some(play) = play else {
            return table;
        };
        if play.is_lone_joker() {
            table.0[0][14] = 2;
            return table;
        }
        let natural = play.cards & !JOKER;
        for index in (0..JOKER_INDEX).filter(|&i| natural & (1 << i) != 0) {
            let (row, col) = cell(index);
            table.0[row][col] = 1;
        }
        if play.cards & JOKER != 0 {
            let (row, col) = match play.kind {
                Kind::Group if play.size == 5 => (4, play.low as usize + 1),
                Kind::Group => {
                    let natural_suits = (0..4)
                        .filter(|&s| (natural >> (play.low as usize * 4 + s)) & 1 != 0)
                        .fold(0u8, |m, s| m | 1 << s);
                    let joker_suit = (play.suits & !natural_suits).trailing_zeros() as usize;
                    (joker_suit, play.low as usize + 1)
                }
                Kind::Sequence | Kind::Single => {
                    let suit = play.suits.trailing_zeros() as usize;
                    let col = (play.low..=play.high)
                        .map(|r| (r + 1) as usize)
                        .find(|&c| table.0[suit][c] == 0)
                        .expect("the joker fills a place");
                    (suit, col)
                }
            };
            table.0[row][col] = 2;
        }
        table
    }

    /// The action a submission plays: the pass (all zeros in the card
    /// area) or a play of the catalogue.
    pub fn play(&self) -> Result<usize, TableError> {
        let mut ones = 0usize;
        let mut twos = Vec::new();
        for row in 0..5 {
            for col in 0..COLS {
                match self.0[row][col] {
                    0 => {}
                    1 if row < 4 && (1..=13).contains(&col) => ones += 1,
                    2 => twos.push((row, col)),
                    value => return Err(TableError::BadCell { row, col, value }),
                }
            }
        }
        if ones == 0 && twos.is_empty() {
            return Ok(PASS);
        }
        if ones == 0 && twos.len() == 1 && twos[0].0 < 4 {
            let lone = catalogue()
                .plays()
                .find(|(_, p)| p.is_lone_joker())
                .expect("the lone joker");
            return Ok(lone.0);
        }
        let mut cards = *self;
        for row in 5..ROWS {
            cards.0[row] = [0; COLS];
        }
        catalogue()
            .plays()
            .find(|(_, p)| !p.is_lone_joker() && Table::of_play(Some(p)) == cards)
            .map(|(id, _)| id)
            .ok_or_else(|| TableError::NoPlay(describe(&cards)))
    }
}

/// The cells holding something, as `row,col=value`.
fn describe(table: &Table) -> String {
    let mut cells = Vec::new();
    for (row, values) in table.0.iter().enumerate() {
        for (col, &v) in values.iter().enumerate().filter(|(_, &v)| v != 0) {
            cells.push(format!("[{row}][{col}]={v}"));
        }
    }
    cells.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_games::daihinmin::parse_cards;

    #[test]
    fn every_play_goes_through_a_table_and_back() {
        for (id, play) in catalogue().plays() {
            let table = Table::of_play(Some(play));
            assert_eq!(table.play(), Ok(id), "{play:?}");
            let mut bytes = Vec::new();
            table.write(&mut bytes, Protocol::V20070).unwrap();
            assert_eq!(bytes.len(), BYTES);
            assert_eq!(
                Table::read(&mut bytes.as_slice(), Protocol::V20070).unwrap(),
                table
            );
        }
        assert_eq!(Table::default().play(), Ok(PASS));
    }

    #[test]
    fn protocol_20070_is_big_endian_and_20060_little_endian() {
        let mut bytes = Vec::new();
        write_int(&mut bytes, 9, Protocol::V20070).unwrap();
        write_int(&mut bytes, 9, Protocol::V20060).unwrap();
        assert_eq!(bytes, [0, 0, 0, 9, 9, 0, 0, 0]);
        assert_eq!(read_int(&mut &bytes[4..], Protocol::V20060).unwrap(), 9);
        let mut table = Table::default();
        table.0[0][1] = 1;
        let mut bytes = Vec::new();
        table.write(&mut bytes, Protocol::V20060).unwrap();
        assert_eq!(&bytes[4..8], [1, 0, 0, 0], "cell [0][1]");
        assert_eq!(
            Table::read(&mut bytes.as_slice(), Protocol::V20060).unwrap(),
            table
        );
        assert_eq!("20060".parse(), Ok(Protocol::V20060));
        assert!("20140".parse::<Protocol>().is_err());
    }

    #[test]
    fn a_gift_reads_a_two_anywhere_as_the_joker_once() {
        let mut gift = Table::default();
        gift.0[0][1] = 1; // 3♠
        gift.0[2][7] = 2; // the joker, in the 9♦ cell
        assert_eq!(gift.gift(), Ok(parse_cards("3S JK").unwrap()));
        // A hand holds the joker at [4][1] only.
        assert!(gift.hand().is_err());
        gift.0[1][3] = 2;
        assert!(gift.gift().is_err(), "a second joker");
    }

    #[test]
    fn cells_are_where_the_protocol_puts_them() {
        // ♦3 is row 2, column 1; 2♣ row 3, column 13; the held joker [4][1].
        let hand = Table::of_hand(parse_cards("3D 2C JK").unwrap());
        assert_eq!((hand.0[2][1], hand.0[3][13], hand.0[4][1]), (1, 1, 2));
        assert_eq!(hand.hand(), Ok(parse_cards("3D 2C JK").unwrap()));
        // A sequence with the joker above the 2: 2 at column 14.
        let seq = catalogue()
            .plays()
            .find(|(_, p)| {
                p.kind == Kind::Sequence
                    && p.cards == parse_cards("KS AS 2S JK").unwrap()
                    && p.high == 13
            })
            .unwrap()
            .1;
        assert_eq!(Table::of_play(Some(seq)).0[0][14], 2);
        // A lone joker anywhere in rows 0–3 reads as the lone joker.
        let mut lone = Table::default();
        lone.0[3][7] = 2;
        let id = lone.play().unwrap();
        assert!(catalogue().play(id).unwrap().is_lone_joker());
        // Garbage is refused with the cell.
        let mut bad = Table::default();
        bad.0[1][0] = 1;
        assert!(matches!(
            bad.play(),
            Err(TableError::BadCell {
                row: 1,
                col: 0,
                value: 1
            })
        ));
        let mut gap = Table::default();
        gap.0[0][1] = 1;
        gap.0[0][3] = 1;
        assert!(matches!(gap.play(), Err(TableError::NoPlay(_))));
    }
}
