//! A UECda client: connects, announces protocol 20070 and its name (or,
//! speaking the older 20060, says nothing first), and plays every game
//! the server deals with one rnad player.
//!
//! It follows each game in a Daihinmin state of its own (its own hand, the
//! others' hands guessed consistently with their sizes, with what it gave
//! in the exchange, and corrected as their plays are seen), so its player
//! sees what the games layer's players see, the previous ranks and its
//! exchange included; each move it sends is one of that state's legal
//! actions. Where the server's rules differ from the games layer's (a
//! turn the rules give another player, a play they would refuse), the
//! client adopts the server's word, logs the first such case, counts them
//! all and plays on. A malformed message, a hand that is not the one the
//! game says, or a closed connection ends the client with an error that
//! says what arrived. In the exchange its player chooses the cards it
//! gives back, in a state built from the deal message.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::daihinmin::{catalogue, draw, Cards, Daihinmin, DaihinminState, Play, Rules, PASS};
use rnad_games::headtohead::sampled::Player;
use rnad_games::{State, Turn};

use crate::table::{players_row, read_int, state_row, Protocol, Table, TableError};

/// The server's word after a turn: the game goes on.
pub const GO_ON: i32 = 0;
/// The game is over.
pub const GAME_OVER: i32 = 1;
/// Every game is over.
pub const ALL_OVER: i32 = 2;
/// A submission accepted.
pub const ACCEPTED: i32 = 9;
/// A submission refused (counted as a pass).
pub const REFUSED: i32 = 8;

/// Why the client stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The connection failed or closed.
    #[error("the connection {during}: {source}")]
    Io {
        /// What the client was doing.
        during: String,
        /// The error.
        source: std::io::Error,
    },
    /// A table that is no hand or play.
    #[error("{during}: {source}")]
    Table {
        /// What the client was reading.
        during: String,
        /// What was wrong.
        source: TableError,
    },
    /// A message the game does not explain.
    #[error("unexpected message {during}: {what}")]
    Unexpected {
        /// What the client was reading.
        during: String,
        /// What arrived, and what was expected.
        what: String,
    },
}

/// What a match came to, for this client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Played {
    /// The player id the server gave.
    pub id: usize,
    /// Games played to their end.
    pub games: usize,
    /// Submissions the server refused that were not passes.
    pub refused_plays: usize,
    /// Times the client adopted the server's state where its own rules
    /// disagreed.
    pub resynchronised: usize,
}

/// What the deal message showed this client: its hand (before giving,
/// for the hinmin and daihinmin; after receiving, for the daifugo and
/// fugo) and what it gave back, if anything.
#[derive(Clone, Copy, Debug, Default)]
struct Dealt {
    hand: Cards,
    gave: Cards,
}

/// Reads and writes the protocol's messages.
struct Wire<S> {
    stream: S,
    protocol: Protocol,
}

impl<S: Read + Write> Wire<S> {
    fn table(&mut self, during: &str) -> Result<Table, ClientError> {
        Table::read(&mut self.stream, self.protocol).map_err(|source| ClientError::Io {
            during: format!("closed while reading {during}"),
            source,
        })
    }

    fn int(&mut self, during: &str) -> Result<i32, ClientError> {
        read_int(&mut self.stream, self.protocol).map_err(|source| ClientError::Io {
            during: format!("closed while reading {during}"),
            source,
        })
    }

    fn send(&mut self, table: &Table, during: &str) -> Result<(), ClientError> {
        table
            .write(&mut self.stream, self.protocol)
            .and_then(|()| self.stream.flush())
            .map_err(|source| ClientError::Io {
                during: format!("failed while sending {during}"),
                source,
            })
    }
}

/// One game as this client follows it.
struct Followed {
    state: DaihinminState,
    /// Seat of each player id.
    seat_of: [usize; 5],
    me: usize,
    /// The last play the server accepted and its seat: what its table
    /// holds while not empty, whatever the rules here say.
    last_play: Option<(Play, usize)>,
}

/// The exchange partner of the player of `rank` (0 = daifugo … 4 =
/// daihinmin): daifugo and daihinmin, fugo and hinmin.
fn partner(rank: i32) -> Option<i32> {
    match rank {
        0 => Some(4),
        1 => Some(3),
        3 => Some(1),
        4 => Some(0),
        _ => None,
    }
}

fn unexpected(during: &str, what: String) -> ClientError {
    ClientError::Unexpected {
        during: during.into(),
        what,
    }
}

/// The seats of the player ids, from row 6 (the identity where it is
/// empty).
fn seats(table: &Table) -> Result<[usize; 5], ClientError> {
    let row = &table.0[6][players_row::SEATS..players_row::SEATS + 5];
    if row.iter().all(|&v| v == 0) {
        return Ok([0, 1, 2, 3, 4]);
    }
    let mut seat_of = [usize::MAX; 5];
    for (seat, &id) in row.iter().enumerate() {
        let id = usize::try_from(id)
            .ok()
            .filter(|&i| i < 5 && seat_of[i] == usize::MAX)
            .ok_or_else(|| {
                unexpected("row 6", format!("seats {row:?} are not the player ids 0-4"))
            })?;
        seat_of[id] = seat;
    }
    Ok(seat_of)
}

impl Followed {
    /// The game as the first turn's table shows it: this client's hand, the
    /// others' sizes, the player on turn (a fresh, empty table).
    fn start(
        me: usize,
        table: &Table,
        dealt: Dealt,
        rng: &mut ChaCha8Rng,
    ) -> Result<Followed, ClientError> {
        let during = "the first turn of a game";
        let seat_of = seats(table)?;
        let mine = table.hand().map_err(|source| ClientError::Table {
            during: during.into(),
            source,
        })?;
        // The exchange as this client saw it: what it gave (the daifugo
        // and fugo chose; the poorest saw theirs leave), and for the
        // poorest what came back, by their hands before and after.
        let ranks = &table.0[6][players_row::RANKS..players_row::RANKS + 5];
        let in_exchange = ranks.iter().any(|&r| r != 0);
        let partner_id = partner(ranks[me])
            .filter(|_| in_exchange)
            .and_then(|rank| ranks.iter().position(|&r| r == rank));
        if partner_id.is_some() && dealt.hand == 0 {
            return Err(unexpected(
                during,
                "a game with an exchange whose deal message never came".into(),
            ));
        }
        // Net of any card the partner handed straight back, which the
        // default gifts never do.
        let (gave, got) = match partner_id {
            Some(_) if ranks[me] <= 1 => (dealt.gave, 0),
            Some(_) => (dealt.hand & !mine, mine & !dealt.hand),
            None => (0, 0),
        };
        let sizes = &table.0[6][players_row::SIZES..players_row::SIZES + 5];
        let hands = guess_hands(me, mine, sizes, &seat_of, (partner_id, gave), rng)
            .map_err(|what| unexpected(during, what))?;
        let on_turn = player_id(table.0[5][state_row::ON_TURN], during)?;
        let rules = rules_of(table)?;
        let mut state = DaihinminState::from_hands(rules, hands, seat_of[on_turn]);
        if let Some(partner) = partner_id {
            state = state
                .with_gift(seat_of[me], seat_of[partner], gave)
                .with_gift(seat_of[partner], seat_of[me], got);
        }
        Ok(Followed {
            state,
            seat_of,
            me,
            last_play: None,
        })
    }

    /// Checks a turn's table against the followed state, adopting the
    /// server's word on whose turn it is and what the table holds (empty
    /// or the last play it accepted, lock, revolution) where the rules
    /// disagree; says what disagreed.
    fn check_turn(&mut self, table: &Table) -> Result<(usize, Option<String>), ClientError> {
        let during = "a turn's table";
        let on_turn = player_id(table.0[5][state_row::ON_TURN], during)?;
        if !matches!(self.state.turn(), Turn::Player(_)) {
            return Err(unexpected(
                during,
                format!(
                    "player {on_turn} to move, where the game is {:?}",
                    self.state.turn()
                ),
            ));
        }
        let row = &table.0[5];
        let on_table = if row[state_row::EMPTY] == 1 {
            None
        } else {
            self.last_play
        };
        let (locked, revolution) = (row[state_row::LOCK] == 1, row[state_row::REVOLUTION] == 1);
        let disagreement = if self.seat_of[on_turn] != self.state.to_move() {
            Some(format!(
                "player {on_turn} on turn where the rules say seat {}",
                self.state.to_move()
            ))
        } else if on_table.is_none() != self.state.table().is_none()
            || locked != self.state.locked()
            || revolution != self.state.revolution()
        {
            let says = |empty: bool| if empty { "empty" } else { "in play" };
            Some(format!(
                "a table {} (lock {locked}, revolution {revolution}) where the rules say {} \
                 (lock {}, revolution {})",
                says(on_table.is_none()),
                says(self.state.table().is_none()),
                self.state.locked(),
                self.state.revolution()
            ))
        } else {
            None
        };
        if disagreement.is_some() {
            self.state
                .adopt_turn(self.seat_of[on_turn], on_table, locked, revolution);
        }
        let hand = table.hand().map_err(|source| ClientError::Table {
            during: during.into(),
            source,
        })?;
        if hand != self.state.hands()[self.seat_of[self.me]] {
            return Err(unexpected(
                during,
                format!(
                    "hand {} where the game says {}",
                    rnad_games::daihinmin::cards_text(hand),
                    rnad_games::daihinmin::cards_text(self.state.hands()[self.seat_of[self.me]])
                ),
            ));
        }
        Ok((on_turn, disagreement))
    }

    /// Applies what player `id` did, as the table after the turn shows it
    /// (`own`: what this client did, when it was its turn); a play the
    /// rules would have refused there is put on the table all the same,
    /// as the server accepted it, and said.
    fn observe(
        &mut self,
        id: usize,
        after: &Table,
        own: Option<usize>,
    ) -> Result<Option<String>, ClientError> {
        let during = "the table after a turn";
        let seat = self.seat_of[id];
        let action = match own {
            Some(action) => action,
            None => {
                let size = after.0[6][players_row::SIZES + id];
                let before = self.state.hands()[seat].count_ones() as i32;
                if size == before {
                    PASS
                } else {
                    let action = after.play().map_err(|source| ClientError::Table {
                        during: during.into(),
                        source,
                    })?;
                    let play = catalogue()
                        .play(action)
                        .ok_or_else(|| unexpected(during, "a pass that took cards".into()))?;
                    if before - size != play.size as i32 {
                        return Err(unexpected(
                            during,
                            format!(
                                "player {id} went from {before} to {size} cards playing {}",
                                play.size
                            ),
                        ));
                    }
                    let observer = self.seat_of[self.me];
                    self.state
                        .reveal(seat, play.cards, observer)
                        .map_err(|why| unexpected(during, why))?;
                    action
                }
            }
        };
        if let Some(play) = catalogue().play(action) {
            self.last_play = Some((*play, seat));
        }
        if action != PASS && !self.state.legal_actions().contains(&action) {
            self.state.force_play(seat, action);
            let cards = catalogue().play(action).map_or(0, |p| p.cards);
            return Ok(Some(format!(
                "player {id} played {}, which the rules refuse there",
                rnad_games::daihinmin::cards_text(cards)
            )));
        }
        self.state.apply_action(action);
        // The server's random places after 20 passes end the game; the
        // following state waits for its word.
        Ok(None)
    }
}

/// Every seat's hand: `mine` for player `me`, the others drawn at random
/// from the cards unseen, as many as `sizes` (by player id) says, where
/// `known` (a player id and cards) puts cards this client gave in that
/// player's hand.
fn guess_hands(
    me: usize,
    mine: Cards,
    sizes: &[i32],
    seat_of: &[usize; 5],
    known: (Option<usize>, Cards),
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Cards>, String> {
    let (holder, given) = known;
    let mut unseen = ((1u64 << 53) - 1) & !mine & !given;
    let mut hands = vec![0; 5];
    for id in 0..5 {
        let size = usize::try_from(sizes[id])
            .ok()
            .filter(|&s| s <= 53)
            .ok_or_else(|| format!("hand sizes {sizes:?}"))?;
        hands[seat_of[id]] = if id == me {
            if mine.count_ones() as usize != size {
                return Err(format!(
                    "a hand of {} cards said to hold {size}",
                    mine.count_ones()
                ));
            }
            mine
        } else {
            let known = if Some(id) == holder { given } else { 0 };
            let size = size
                .checked_sub(known.count_ones() as usize)
                .ok_or_else(|| format!("hand sizes {sizes:?} under the cards given"))?;
            if (unseen.count_ones() as usize) < size {
                return Err(format!("hand sizes {sizes:?} exceed the deck"));
            }
            let drawn = draw(unseen, size, rng);
            unseen &= !drawn;
            drawn | known
        };
    }
    Ok(hands)
}

/// The cards this client (player `me`, to give `count`) gives back in the
/// exchange, as `player` chooses them in the state the deal message
/// shows: its hand after the poorest's gifts, the others' guessed at their
/// sizes after the automatic gifts, the previous ranks.
fn choose_gift(
    me: usize,
    deal: &Table,
    count: usize,
    player: &mut dyn Player,
    rng: &mut ChaCha8Rng,
) -> Result<Cards, ClientError> {
    let during = "the deal";
    let seat_of = seats(deal)?;
    let mine = deal.hand().map_err(|source| ClientError::Table {
        during: during.into(),
        source,
    })?;
    let ranks = &deal.0[6][players_row::RANKS..players_row::RANKS + 5];
    let partner_id = partner(ranks[me])
        .and_then(|rank| ranks.iter().position(|&r| r == rank))
        .filter(|_| ranks[me] <= 1)
        .ok_or_else(|| {
            unexpected(
                during,
                format!("{count} cards to give with ranks {ranks:?}: no poorer partner"),
            )
        })?;
    // The sizes are as dealt: the poorest have given since, the richest
    // received.
    let sizes: Vec<i32> = (0..5)
        .map(|id| {
            let moved = [2, 1, 0, -1, -2][ranks[id].clamp(0, 4) as usize];
            deal.0[6][players_row::SIZES + id] + moved
        })
        .collect();
    let hands = guess_hands(me, mine, &sizes, &seat_of, (None, 0), rng)
        .map_err(|what| unexpected(during, what))?;
    let rules = rules_of(deal)?;
    let mut state =
        DaihinminState::at_exchange(rules, hands, seat_of[me], seat_of[partner_id], count);
    let give_base = state.rules().give_base();
    let mut gift = 0;
    for _ in 0..count {
        let legal = state.legal_actions();
        let probs = player.policy(&state, &legal);
        let action = sample(&legal, &probs, rng);
        gift |= 1u64 << (action - give_base);
        state.apply_action(action);
    }
    Ok(gift)
}

fn player_id(value: i32, during: &str) -> Result<usize, ClientError> {
    usize::try_from(value)
        .ok()
        .filter(|&v| v < 5)
        .ok_or_else(|| unexpected(during, format!("player {value} (ids are 0-4)")))
}

/// The rules of a game whose table row 6 holds the ranks (all 0 in a first
/// game).
fn rules_of(table: &Table) -> Result<Arc<Rules>, ClientError> {
    let ranks = &table.0[6][players_row::RANKS..players_row::RANKS + 5];
    let by_seat = if ranks.iter().all(|&r| r == 0) {
        None
    } else {
        // Ranks by player id, 0 = daifugo; the games layer's by seat from 1.
        let seat_of = seats(table)?;
        let mut by_seat = [0i32; 5];
        for (id, &rank) in ranks.iter().enumerate() {
            by_seat[seat_of[id]] = rank + 1;
        }
        Some(by_seat)
    };
    let spec = Daihinmin::spec_with_ranks(by_seat)
        .map_err(|e| unexpected("row 6", format!("ranks {ranks:?}: {e}")))?;
    Ok(Daihinmin::new(spec).rules())
}

/// Plays a whole match on `stream` as `name` in `protocol` (a 20060
/// client announces nothing: the server takes its silence for 20060)
/// with `player`; `seed` feeds the guesses of the others' hands and the
/// sampling of a stochastic player.
pub fn play_match<S: Read + Write>(
    stream: S,
    (name, protocol): (&str, Protocol),
    player: &mut dyn Player,
    seed: u64,
) -> Result<Played, ClientError> {
    let mut wire = Wire { stream, protocol };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if protocol == Protocol::V20070 {
        let mut hello = Table::default();
        hello.0[0][0] = protocol.number();
        for (i, byte) in name.bytes().take(14).enumerate() {
            hello.0[1][i] = i32::from(byte);
        }
        wire.send(&hello, "the protocol and name")?;
    }
    let id = player_id(wire.int("the player id")?, "the player id")?;
    let mut played = Played {
        id,
        ..Played::default()
    };
    tracing::info!(id, "joined");
    let mut game: Option<Followed> = None;
    let mut dealt = Dealt::default();
    let note_resync = |played: &mut Played, what: String| {
        if played.resynchronised == 0 {
            tracing::warn!(
                "the server's rules differ from the games layer's here ({what}): the client \
                 adopts the server's state and plays on (counted; reported at the end)"
            );
        } else {
            tracing::debug!("adopted the server's state: {what}");
        }
        played.resynchronised += 1;
    };
    loop {
        let table = wire.table("a hand")?;
        if table.0[5][state_row::DEAL] == 1 {
            // A deal: give cards if asked, then the turns begin.
            game = None;
            let hand = table.hand().map_err(|source| ClientError::Table {
                during: "the deal".into(),
                source,
            })?;
            let count = usize::try_from(table.0[5][state_row::TO_GIVE])
                .unwrap_or(0)
                .min(2);
            dealt = Dealt { hand, gave: 0 };
            if count > 0 {
                dealt.gave = choose_gift(id, &table, count, player, &mut rng)?;
                wire.send(&Table::of_hand(dealt.gave), "the exchange")?;
            }
            continue;
        }
        let followed = match &mut game {
            Some(f) => f,
            None => game.insert(Followed::start(
                id,
                &table,
                std::mem::take(&mut dealt),
                &mut rng,
            )?),
        };
        let (on_turn, disagreement) = followed.check_turn(&table)?;
        if let Some(what) = disagreement {
            note_resync(&mut played, what);
        }
        let mine = if table.0[5][state_row::MY_TURN] == 1 {
            if on_turn != id {
                return Err(unexpected(
                    "a turn's table",
                    format!("my turn, with player {on_turn} on turn"),
                ));
            }
            let legal = followed.state.legal_actions();
            let probs = player.policy(&followed.state, &legal);
            let action = sample(&legal, &probs, &mut rng);
            let play = catalogue().play(action);
            wire.send(&Table::of_play(play), "a move")?;
            let reply = wire.int("the answer to a move")?;
            let accepted = match reply {
                ACCEPTED => true,
                REFUSED => {
                    if action != PASS {
                        played.refused_plays += 1;
                        tracing::warn!(
                            action,
                            "the server refused a legal play: counted as a pass"
                        );
                    }
                    false
                }
                other => {
                    return Err(unexpected(
                        "the answer to a move",
                        format!("{other} (8 or 9)"),
                    ))
                }
            };
            Some(if accepted { action } else { PASS })
        } else {
            None
        };
        let after = wire.table("the table after a turn")?;
        if let Some(what) = followed.observe(on_turn, &after, mine)? {
            note_resync(&mut played, what);
        }
        match wire.int("the end of a turn")? {
            GO_ON => {}
            GAME_OVER => {
                played.games += 1;
                game = None;
            }
            ALL_OVER => {
                played.games += 1;
                return Ok(played);
            }
            other => {
                return Err(unexpected(
                    "the end of a turn",
                    format!("{other} (0, 1 or 2)"),
                ))
            }
        }
    }
}

/// An action drawn from `probs` over `legal`.
fn sample(legal: &[usize], probs: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let mut u = rng.random::<f64>() * probs.iter().sum::<f64>();
    for (&a, &p) in legal.iter().zip(probs) {
        if u < p {
            return a;
        }
        u -= p;
    }
    *legal.last().expect("a legal action")
}

/// Connects to `address` and plays a match.
pub fn connect_and_play(
    address: &str,
    (name, protocol): (&str, Protocol),
    player: &mut dyn Player,
    seed: u64,
) -> Result<Played, ClientError> {
    let stream = TcpStream::connect(address).map_err(|source| ClientError::Io {
        during: format!("to {address} failed"),
        source,
    })?;
    let _ = stream.set_nodelay(true);
    play_match(stream, (name, protocol), player, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_games::daihinmin::parse_cards;

    /// The first turn's table of player `me` holding `hand`, with row 6's
    /// sizes and ranks (by player id, 0 = daifugo), seats in id order.
    fn first_turn(hand: &str, sizes: [i32; 5], ranks: [i32; 5]) -> Table {
        let mut table = Table::of_hand(parse_cards(hand).unwrap());
        table.0[5][state_row::ON_TURN] = 0;
        table.0[5][state_row::EMPTY] = 1;
        table.0[6][players_row::SIZES..players_row::SIZES + 5].copy_from_slice(&sizes);
        table.0[6][players_row::RANKS..players_row::RANKS + 5].copy_from_slice(&ranks);
        table
    }

    #[test]
    fn the_daihinmin_knows_what_it_gave_and_got_and_its_gift_sits_with_the_daifugo() {
        // Player 2 is the daihinmin (rank 4), player 3 the daifugo: it was
        // dealt 2S 2H 5C …, gave 2S 2H, got 3S 4S.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let dealt = Dealt {
            hand: parse_cards("2S 2H 5C 6C 7C 8C 9C TC JC QC").unwrap(),
            gave: 0,
        };
        let now = "3S 4S 5C 6C 7C 8C 9C TC JC QC";
        let table = first_turn(now, [11, 11, 10, 11, 10], [1, 2, 4, 0, 3]);
        let followed = Followed::start(2, &table, dealt, &mut rng).unwrap();
        let state = &followed.state;
        assert_eq!(state.ranks(), Some(&[2, 3, 5, 1, 4][..]));
        let (got, gave) = state.exchanged(2);
        assert_eq!(gave, parse_cards("2S 2H").unwrap());
        assert_eq!(got, parse_cards("3S 4S").unwrap());
        assert_eq!(state.seen_exchange(2), (got, gave));
        let daifugo = state.hands()[3];
        assert_eq!(daifugo & gave, gave, "the daifugo holds what it got");
        assert_eq!(daifugo.count_ones(), 11);
        let all = state.hands().iter().fold(0u64, |a, &h| a | h);
        assert_eq!(all.count_ones(), 53, "every card in one hand");
    }

    #[test]
    fn the_daifugo_knows_what_it_gave_back_but_not_what_it_got() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let dealt = Dealt {
            hand: parse_cards("3S 3H 2S 2H AS AH KS KH QS QH JS JH TS").unwrap(),
            gave: parse_cards("3S 3H").unwrap(),
        };
        let now = "2S 2H AS AH KS KH QS QH JS JH TS";
        let table = first_turn(now, [11, 11, 11, 10, 10], [0, 2, 1, 3, 4]);
        let followed = Followed::start(0, &table, dealt, &mut rng).unwrap();
        let state = &followed.state;
        assert_eq!(state.seen_exchange(0), (0, parse_cards("3S 3H").unwrap()));
        // Its gift is in the daihinmin's (player 4's) guessed hand.
        let gift = parse_cards("3S 3H").unwrap();
        assert_eq!(state.hands()[4] & gift, gift);
        assert_eq!(state.hands()[4].count_ones(), 10);
    }
}
