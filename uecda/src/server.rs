//! A server that speaks the UECda protocol over the games layer's rules:
//! five clients, a match of G games with ranks carried from each game to
//! the next (reset every 100, as the official server does), the
//! exchange, and every submission checked against the rules (a refused
//! one counts as a pass, as there). For testing clients on 127.0.0.1; it
//! does not redraw seats every few games as the official server does
//! (player ids are seats here).

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::daihinmin::{catalogue, weakest_cards, Daihinmin, DaihinminState, Play, PASS};
use rnad_games::{GameSpec, State, Turn};

use crate::client::{ACCEPTED, ALL_OVER, GAME_OVER, GO_ON, REFUSED};
use crate::table::{players_row, state_row, Table, PROTOCOL};

/// Players at the table.
pub const PLAYERS: usize = 5;
/// Games after which the ranks start afresh.
const RANK_RESET: usize = 100;

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
    /// A client that does not speak protocol 20070.
    #[error("player {player} announced protocol {protocol}, not 20070")]
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
}

impl Seat {
    fn send(&mut self, player: usize, table: &Table, during: &str) -> Result<(), ServerError> {
        table
            .write(&mut self.stream)
            .and_then(|()| self.stream.flush())
            .map_err(|source| io(player, during, source))
    }

    fn send_int(&mut self, player: usize, value: i32, during: &str) -> Result<(), ServerError> {
        self.stream
            .write_all(&value.to_be_bytes())
            .and_then(|()| self.stream.flush())
            .map_err(|source| io(player, during, source))
    }

    fn read(&mut self, player: usize, during: &str) -> Result<Table, ServerError> {
        Table::read(&mut self.stream).map_err(|source| io(player, during, source))
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
        stream
            .set_read_timeout(Some(timeout))
            .map_err(|source| io(player, "setting a timeout", source))?;
        let mut seat = Seat { stream };
        let hello = seat.read(player, "reading the protocol and name")?;
        if hello.0[0][0] != PROTOCOL {
            return Err(ServerError::Protocol {
                player,
                protocol: hello.0[0][0],
            });
        }
        let name: String = hello.0[1]
            .iter()
            .take_while(|&&c| c != 0)
            .filter_map(|&c| u8::try_from(c).ok().map(char::from))
            .collect();
        seat.send_int(player, player as i32, "sending the player id")?;
        tracing::info!(player, name, "joined");
        names.push(name);
        seats.push(seat);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut report = MatchReport {
        names,
        points: vec![0; PLAYERS],
        ..MatchReport::default()
    };
    // Each player's place in the last game (0 = daifugo).
    let mut ranks: Option<Vec<usize>> = None;
    for game in 0..games {
        if game % RANK_RESET == 0 {
            ranks = None;
        }
        let places = play_game(
            &mut seats,
            ranks.as_deref(),
            &mut rng,
            game + 1 == games,
            &mut report,
        )?;
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

/// Row 5 and row 6 of a table for `state`.
fn fill_rows(table: &mut Table, state: &DaihinminState, ranks: Option<&[usize]>) {
    table.0[5][state_row::EMPTY] = i32::from(state.table().is_none());
    table.0[5][state_row::REVOLUTION] = i32::from(state.revolution());
    table.0[5][state_row::LOCK] = i32::from(state.locked());
    for player in 0..PLAYERS {
        table.0[6][players_row::SIZES + player] = state.hands()[player].count_ones() as i32;
        table.0[6][players_row::RANKS + player] = ranks.map_or(0, |r| r[player] as i32);
        table.0[6][players_row::SEATS + player] = player as i32;
    }
}

fn random_chance(state: &mut DaihinminState, rng: &mut ChaCha8Rng) {
    while state.turn() == Turn::Chance {
        let outcomes = state.chance_outcomes();
        state.apply_action(outcomes[rng.random_range(0..outcomes.len())].0);
    }
}

/// One game: the deal, the exchange, the turns; the places by player.
fn play_game(
    seats: &mut [Seat],
    ranks: Option<&[usize]>,
    rng: &mut ChaCha8Rng,
    last: bool,
    report: &mut MatchReport,
) -> Result<Vec<usize>, ServerError> {
    let spec = match ranks {
        None => "daihinmin".to_string(),
        Some(r) => {
            let list: Vec<String> = r.iter().map(|rank| (rank + 1).to_string()).collect();
            format!("daihinmin(ranks={})", list.join(" "))
        }
    };
    let game = Daihinmin::new(spec.parse::<GameSpec>().expect("a valid spec"));
    let mut state = game.initial_state();
    random_chance(&mut state, rng);
    for (player, seat) in seats.iter_mut().enumerate() {
        let mut table = Table::of_hand(state.hands()[player]);
        table.0[5][state_row::DEAL] = 1;
        table.0[5][state_row::ON_TURN] = 6;
        table.0[5][state_row::TO_GIVE] = match ranks.map(|r| r[player]) {
            Some(0) => 2,
            Some(1) => 1,
            _ => 0,
        };
        fill_rows(&mut table, &state, ranks);
        seat.send(player, &table, "sending the deal")?;
    }
    while state.in_exchange() {
        let giver = state.to_move();
        let count = if ranks.is_some_and(|r| r[giver] == 0) {
            2
        } else {
            1
        };
        let chosen = seats[giver].read(giver, "reading the exchange")?.hand();
        let hand = state.hands()[giver];
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
    let mut last_play: Option<Play> = None;
    loop {
        random_chance(&mut state, rng);
        if state.turn() == Turn::Terminal {
            break;
        }
        let mover = state.to_move();
        for (player, seat) in seats.iter_mut().enumerate() {
            let mut table = Table::of_hand(state.hands()[player]);
            table.0[5][state_row::MY_TURN] = i32::from(player == mover);
            table.0[5][state_row::ON_TURN] = mover as i32;
            fill_rows(&mut table, &state, ranks);
            seat.send(player, &table, "sending a turn")?;
        }
        let submitted = seats[mover].read(mover, "reading a move")?.play();
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
        seats[mover].send_int(mover, reply, "answering a move")?;
        if action != PASS {
            last_play = catalogue().play(action).copied();
        }
        state.apply_action(action);
        random_chance(&mut state, rng);
        let over = state.turn() == Turn::Terminal;
        let word = match (over, last) {
            (false, _) => GO_ON,
            (true, false) => GAME_OVER,
            (true, true) => ALL_OVER,
        };
        for (player, seat) in seats.iter_mut().enumerate() {
            let mut table = Table::of_play(last_play.as_ref());
            fill_rows(&mut table, &state, ranks);
            table.0[5][state_row::ON_TURN] = mover as i32;
            seat.send(player, &table, "sending the table")?;
            seat.send_int(player, word, "sending the end of a turn")?;
        }
        if over {
            break;
        }
    }
    Ok(state.places().to_vec())
}

/// The `count` strongest cards of `hand`: what the server gives for a
/// player whose gift is no gift.
fn strongest(hand: u64, count: usize) -> u64 {
    let total = hand.count_ones() as usize;
    hand & !weakest_cards(hand, total - count.min(total))
}
