//! A server that speaks the UECda protocol over the games layer's rules:
//! five clients, a match of G games with ranks carried from each game to
//! the next (reset every 100, as the official server does), the
//! exchange, and every submission checked against the rules (a refused
//! one counts as a pass, as there), seats drawn afresh every 3 games (the
//! official server's default). For testing clients on 127.0.0.1.
//!
//! Its messages are the official server's (`tndhms`): the deal shows the
//! hinmin and daihinmin their hands before they give and every hand
//! size as dealt; an exchange submission reads a 2 anywhere as the
//! joker; the table after a turn shows the last accepted play as its
//! player submitted it, nothing once the table has cleared, and the
//! flags as they stood before a clear that turn made.

use std::io::{ErrorKind, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::bots::uecda_default::weakest_cards;
use rnad_games::daihinmin::{Daihinmin, DaihinminState, PASS, RANK_RESET, SEAT_CHANGE};
use rnad_games::{State, Turn};

use crate::client::{ACCEPTED, ALL_OVER, GAME_OVER, GO_ON, REFUSED};
use crate::table::{players_row, state_row, write_int, Protocol, Table};

/// Players at the table.
pub const PLAYERS: usize = 5;

/// How long a client may stay silent before the server takes it for a
/// 20060 client (the official server waits 2.5 s).
const HELLO_WAIT: Duration = Duration::from_millis(2500);

/// Why the server stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A connection failed, closed or timed out.
    #[error("player {player}: {during}: {source}")]
    Io {
        /// The player id (connection order).
        player: usize,
        /// What the server was doing.
        during: String,
        /// The error.
        source: std::io::Error,
    },
    /// A client that announces a protocol not spoken here.
    #[error("player {player} announced protocol {protocol}, not 20070 or 20060")]
    Protocol {
        /// The player id.
        player: usize,
        /// What it sent.
        protocol: i32,
    },
}

/// What a match came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchReport {
    /// Each player's name.
    pub names: Vec<String>,
    /// Games played.
    pub games: usize,
    /// Each player's points (5 for first … 1 for last, every game).
    pub points: Vec<u64>,
    /// Submissions refused that were not passes (malformed or illegal).
    pub refused_plays: usize,
}

struct Seat {
    stream: TcpStream,
    protocol: Protocol,
}

impl Seat {
    fn send(&mut self, player: usize, table: &Table, during: &str) -> Result<(), ServerError> {
        table
            .write(&mut self.stream, self.protocol)
            .and_then(|()| self.stream.flush())
            .map_err(|source| io(player, during, source))
    }

    fn send_int(&mut self, player: usize, value: i32, during: &str) -> Result<(), ServerError> {
        write_int(&mut self.stream, value, self.protocol)
            .map_err(|source| io(player, during, source))
    }

    fn read(&mut self, player: usize, during: &str) -> Result<Table, ServerError> {
        Table::read(&mut self.stream, self.protocol).map_err(|source| io(player, during, source))
    }
}

fn io(player: usize, during: &str, source: std::io::Error) -> ServerError {
    ServerError::Io {
        player,
        during: during.into(),
        source,
    }
}

/// Accepts five clients on `listener` and plays `games` games, the cards
/// drawn from `seed`; every read waits at most `timeout`.
pub fn serve(
    listener: &TcpListener,
    games: usize,
    seed: u64,
    timeout: Duration,
) -> Result<MatchReport, ServerError> {
    let mut seats = Vec::with_capacity(PLAYERS);
    let mut names = Vec::with_capacity(PLAYERS);
    for player in 0..PLAYERS {
        let (stream, _) = listener
            .accept()
            .map_err(|source| io(player, "accepting", source))?;
        let _ = stream.set_nodelay(true);
        let set_timeout = |stream: &TcpStream, wait: Duration| {
            stream
                .set_read_timeout(Some(wait))
                .map_err(|source| io(player, "setting a timeout", source))
        };
        // As the official server does: a client silent for HELLO_WAIT
        // speaks 20060; one that sends a first table says its version
        // there (read as 20070's), and its name.
        set_timeout(&stream, HELLO_WAIT)?;
        let silent = match stream.peek(&mut [0u8; 1]) {
            Ok(0) => {
                let closed = std::io::Error::from(std::io::ErrorKind::UnexpectedEof);
                return Err(io(player, "reading the protocol and name", closed));
            }
            Ok(_) => false,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => true,
            Err(e) => return Err(io(player, "reading the protocol and name", e)),
        };
        set_timeout(&stream, timeout)?;
        let mut seat = Seat {
            stream,
            protocol: Protocol::V20070,
        };
        let name = if silent {
            seat.protocol = Protocol::V20060;
            format!("player{player}")
        } else {
            let hello = seat.read(player, "reading the protocol and name")?;
            seat.protocol = Protocol::of_number(hello.0[0][0]).ok_or(ServerError::Protocol {
                player,
                protocol: hello.0[0][0],
            })?;
            hello.0[1]
                .iter()
                .take_while(|&&c| c != 0)
                .filter_map(|&c| u8::try_from(c).ok().map(char::from))
                .collect()
        };
        seat.send_int(player, player as i32, "sending the player id")?;
        tracing::info!(player, name, protocol = seat.protocol.number(), "joined");
        names.push(name);
        seats.push(seat);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut report = MatchReport {
        names,
        points: vec![0; PLAYERS],
        ..MatchReport::default()
    };
    // Each player's place in the last game (0 = daifugo), and who sits
    // where.
    let mut ranks: Option<Vec<usize>> = None;
    let mut seating = Seating::drawn(&mut rng);
    for game in 0..games {
        if game % RANK_RESET == 0 {
            ranks = None;
        }
        if game > 0 && game % SEAT_CHANGE == 0 {
            seating = Seating::drawn(&mut rng);
        }
        let mut table = Match {
            conns: &mut seats,
            seating: &seating,
            ranks: ranks.as_deref(),
        };
        let places = table.play_game(&mut rng, game + 1 == games, &mut report)?;
        let mut next = vec![0; PLAYERS];
        for (place, &player) in places.iter().enumerate() {
            report.points[player] += (PLAYERS - place) as u64;
            next[player] = place;
        }
        ranks = Some(next);
        report.games += 1;
    }
    Ok(report)
}

/// Who sits where: the games layer's seats are the table's seats.
struct Seating {
    player_in_seat: [usize; PLAYERS],
    seat_of: [usize; PLAYERS],
}

impl Seating {
    /// A seating drawn at random, as the official server draws it before
    /// games 1, 4, 7 ….
    fn drawn(rng: &mut ChaCha8Rng) -> Seating {
        let mut pool: Vec<usize> = (0..PLAYERS).collect();
        let mut seating = Seating {
            player_in_seat: [0; PLAYERS],
            seat_of: [0; PLAYERS],
        };
        for seat in 0..PLAYERS {
            let player = pool.swap_remove(rng.random_range(0..pool.len()));
            seating.player_in_seat[seat] = player;
            seating.seat_of[player] = seat;
        }
        seating
    }
}

/// One game's table: the connections by player id, the seating, the ranks
/// by player id from the game before.
struct Match<'a> {
    conns: &'a mut [Seat],
    seating: &'a Seating,
    ranks: Option<&'a [usize]>,
}

impl Match<'_> {
    /// Row 5's flags and row 6 for `state`.
    fn fill_rows(&self, table: &mut Table, state: &DaihinminState) {
        table.0[5][state_row::EMPTY] = i32::from(state.table().is_none());
        table.0[5][state_row::REVOLUTION] = i32::from(state.revolution());
        table.0[5][state_row::LOCK] = i32::from(state.locked());
        for player in 0..PLAYERS {
            let seat = self.seating.seat_of[player];
            table.0[6][players_row::SIZES + player] = state.hands()[seat].count_ones() as i32;
            table.0[6][players_row::RANKS + player] = self.ranks.map_or(0, |r| r[player] as i32);
            table.0[6][players_row::SEATS + seat] = player as i32;
        }
    }

    /// One game: the deal, the exchange, the turns; the places by player.
    fn play_game(
        &mut self,
        rng: &mut ChaCha8Rng,
        last: bool,
        report: &mut MatchReport,
    ) -> Result<Vec<usize>, ServerError> {
        let seating = self.seating;
        let by_seat = self
            .ranks
            .map(|r| seating.player_in_seat.map(|player| r[player] as i32 + 1));
        let spec = Daihinmin::spec_with_ranks(by_seat).expect("a valid spec");
        let game = Daihinmin::new(spec);
        let mut state = game.initial_state();
        random_chance(&mut state, rng);
        // The poorest have given their strongest cards already; as the
        // official server does, they see their hands before giving, the
        // richest theirs after receiving, and row 6 the sizes as dealt.
        let dealt: Vec<u64> = (0..PLAYERS)
            .map(|seat| {
                let (received, given) = state.exchanged(seat);
                (state.hands()[seat] | given) & !received
            })
            .collect();
        for player in 0..PLAYERS {
            let seat = seating.seat_of[player];
            let (_, given) = state.exchanged(seat);
            let mut table = Table::of_hand(state.hands()[seat] | given);
            self.fill_rows(&mut table, &state);
            table.0[5][state_row::DEAL] = 1;
            table.0[5][state_row::ON_TURN] = 6;
            table.0[5][state_row::EMPTY] = 0;
            table.0[5][state_row::TO_GIVE] = match self.ranks.map(|r| r[player]) {
                Some(0) => 2,
                Some(1) => 1,
                _ => 0,
            };
            for other in 0..PLAYERS {
                table.0[6][players_row::SIZES + other] =
                    dealt[seating.seat_of[other]].count_ones() as i32;
            }
            self.conns[player].send(player, &table, "sending the deal")?;
        }
        while state.in_exchange() {
            let giver = seating.player_in_seat[state.to_move()];
            let count = if self.ranks.is_some_and(|r| r[giver] == 0) {
                2
            } else {
                1
            };
            let chosen = self.conns[giver]
                .read(giver, "reading the exchange")?
                .gift();
            let hand = state.hands()[state.to_move()];
            let cards = match chosen {
                Ok(cards) if cards & !hand == 0 && cards.count_ones() as usize == count => cards,
                other => {
                    tracing::warn!(
                        player = giver,
                        ?other,
                        "an exchange that is no gift: its strongest cards go"
                    );
                    strongest(hand, count)
                }
            };
            let base = game.rules().give_base();
            for index in (0..53).filter(|&i| cards & (1 << i) != 0) {
                state.apply_action(base + index);
            }
        }
        // The last accepted play as its player sent it (the official
        // server echoes the submission), until the table clears.
        let mut stage = Table::default();
        loop {
            random_chance(&mut state, rng);
            if state.turn() == Turn::Terminal {
                break;
            }
            let mover = seating.player_in_seat[state.to_move()];
            for player in 0..PLAYERS {
                let mut table = Table::of_hand(state.hands()[seating.seat_of[player]]);
                table.0[5][state_row::MY_TURN] = i32::from(player == mover);
                table.0[5][state_row::ON_TURN] = mover as i32;
                self.fill_rows(&mut table, &state);
                self.conns[player].send(player, &table, "sending a turn")?;
            }
            let submission = self.conns[mover].read(mover, "reading a move")?;
            let submitted = submission.play();
            let empty = state.table().is_none();
            let (action, reply) = match submitted {
                Ok(PASS) => (PASS, if empty { ACCEPTED } else { REFUSED }),
                Ok(action) if state.legal_actions().contains(&action) => (action, ACCEPTED),
                other => {
                    tracing::warn!(
                        player = mover,
                        ?other,
                        "a move the rules refuse: counted as a pass"
                    );
                    report.refused_plays += 1;
                    (PASS, REFUSED)
                }
            };
            self.conns[mover].send_int(mover, reply, "answering a move")?;
            let locked = lock_after(&state, action);
            if action != PASS {
                stage = Table::default();
                stage.0[..5].copy_from_slice(&submission.0[..5]);
            }
            state.apply_action(action);
            random_chance(&mut state, rng);
            let over = state.turn() == Turn::Terminal;
            let word = match (over, last) {
                (false, _) => GO_ON,
                (true, false) => GAME_OVER,
                (true, true) => ALL_OVER,
            };
            for player in 0..PLAYERS {
                let mut table = stage;
                self.fill_rows(&mut table, &state);
                table.0[5][state_row::ON_TURN] = mover as i32;
                // The flags as they stood after the move, before a clear.
                table.0[5][state_row::EMPTY] = i32::from(empty && action == PASS);
                table.0[5][state_row::LOCK] = i32::from(locked);
                self.conns[player].send(player, &table, "sending the table")?;
                self.conns[player].send_int(player, word, "sending the end of a turn")?;
            }
            if state.table().is_none() {
                stage = Table::default();
            }
            if over {
                break;
            }
        }
        Ok(state
            .places()
            .iter()
            .map(|&seat| seating.player_in_seat[seat])
            .collect())
    }
}

/// The lock once `action` is made at `state`, before any clear it makes:
/// a lone joker lifts it, a play with the table's suits sets it.
fn lock_after(state: &DaihinminState, action: usize) -> bool {
    let Some(play) = rnad_games::daihinmin::catalogue().play(action) else {
        return state.locked();
    };
    if play.is_lone_joker() {
        return false;
    }
    state.locked()
        || state
            .table()
            .is_some_and(|(table, _)| play.suits != 0 && play.suits == table.suits)
}

fn random_chance(state: &mut DaihinminState, rng: &mut ChaCha8Rng) {
    while state.turn() == Turn::Chance {
        let outcomes = state.chance_outcomes();
        state.apply_action(outcomes[rng.random_range(0..outcomes.len())].0);
    }
}

/// The `count` strongest cards of `hand`: what the server gives for a
/// player whose gift is no gift.
fn strongest(hand: u64, count: usize) -> u64 {
    let total = hand.count_ones() as usize;
    hand & !weakest_cards(hand, total - count.min(total))
}
