//! Hand histories in the ACPC server's log format, one finished hand a
//! line: `STATE:<hand>:<betting>:<cards>:<payoffs>:<players>`, e.g.
//! `STATE:3:r300c/cr600f:9s8h|Kc5s/8c6h4d:600|-600:alice|bob`.
//!
//! Betting rounds are separated by `/` (`f`, `c`, `r<raise-to>`, `r` alone
//! in limit games); the cards are each seat's hole cards in dealing order
//! separated by `|`, then each reached round's board cards after a `/`;
//! payoffs and players are in seat order. Every card is shown, as in the
//! dealer's log. A line replays through the engine: its moves are applied
//! as the game's actions, and the payoffs must come out the same.

use super::state::UniversalPokerState;
use super::UniversalPoker;
use crate::{Action, Game, State, Turn};

/// Why a log line cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LogLineError(pub String);

fn refuse<T>(why: String) -> Result<T, LogLineError> {
    Err(LogLineError(why))
}

/// The log line of the finished hand `history` (every action, chance
/// included), hand number `hand`, with `players[seat]` in each seat (a
/// name's `:` and `|`, the format's separators, written as `_`).
pub fn log_line(
    game: &UniversalPoker,
    history: &[Action],
    hand: u64,
    players: &[String],
) -> String {
    let mut state = game.initial_state();
    for &action in history {
        state.apply_action(action);
    }
    let rules = state.rules();
    let mut betting = String::new();
    for round in 0..=state.round() {
        if round > 0 {
            betting.push('/');
        }
        state.betting_text(round, &mut betting);
    }
    let holes: Vec<String> = (0..rules.players)
        .map(|p| {
            state
                .hole_cards(p)
                .iter()
                .map(|&c| state.card_text(c))
                .collect()
        })
        .collect();
    let mut cards = holes.join("|");
    for round in 0..=state.round() {
        if round > 0 {
            cards.push('/');
        }
        let from = if round == 0 {
            0
        } else {
            rules.board_cards_by(round - 1)
        };
        for &c in &state.board_cards()[from..rules.board_cards_by(round)] {
            cards.push_str(&state.card_text(c));
        }
    }
    let payoffs: Vec<String> = state.returns().iter().map(f64::to_string).collect();
    let players: Vec<String> = players.iter().map(|p| p.replace([':', '|'], "_")).collect();
    format!(
        "STATE:{hand}:{betting}:{cards}:{}:{}",
        payoffs.join("|"),
        players.join("|")
    )
}

/// A replayed log line: the finished state, every decision on the way,
/// the payoffs and players the line names.
#[derive(Debug)]
pub struct Replayed {
    /// The hand as the engine plays it.
    pub state: UniversalPokerState,
    /// Each player decision in order: the state before it, who acted and
    /// the action.
    pub decisions: Vec<(UniversalPokerState, usize, Action)>,
    /// The payoffs the line says.
    pub payoffs: Vec<f64>,
    /// The players the line names.
    pub players: Vec<String>,
}

/// Replays `line` through `game`'s engine.
pub fn replay_line(game: &UniversalPoker, line: &str) -> Result<Replayed, LogLineError> {
    let fields: Vec<&str> = line.trim_end().split(':').collect();
    let [tag, _hand, betting, cards, payoffs, players] = fields[..] else {
        return refuse(format!(
            "expected STATE:<hand>:<betting>:<cards>:<payoffs>:<players>, found {} fields",
            fields.len()
        ));
    };
    if tag != "STATE" {
        return refuse(format!("a line starts with STATE, not {tag:?}"));
    }
    let mut state = game.initial_state();
    let n = game.num_players();
    let parse_cards = |text: &str| -> Result<Vec<Action>, LogLineError> {
        let chars: Vec<char> = text.chars().collect();
        if !chars.len().is_multiple_of(2) {
            return refuse(format!("{text:?} is not a list of two-character cards"));
        }
        chars
            .chunks(2)
            .map(|c| {
                state.card_id(c[0], c[1]).ok_or_else(|| {
                    LogLineError(format!("{}{} is not a card of this deck", c[0], c[1]))
                })
            })
            .collect()
    };
    let (holes, boards) = cards.split_once('/').unwrap_or((cards, ""));
    let holes: Vec<&str> = holes.split('|').collect();
    if holes.len() != n {
        return refuse(format!("{} hands of hole cards for {n} seats", holes.len()));
    }
    let mut deal: Vec<Action> = Vec::new();
    for hole in holes {
        deal.extend(parse_cards(hole)?);
    }
    for board in boards.split('/').filter(|b| !b.is_empty()) {
        deal.extend(parse_cards(board)?);
    }
    let mut moves = betting.split('/').flat_map(|round| {
        let mut tokens = Vec::new();
        let mut chars = round.chars().peekable();
        while let Some(c) = chars.next() {
            let mut size = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                size.push(*d);
                chars.next();
            }
            tokens.push((c, size));
        }
        tokens
    });
    let mut deal = deal.into_iter();
    let mut decisions = Vec::new();
    loop {
        match state.turn() {
            Turn::Terminal => break,
            Turn::Chance => {
                let Some(card) = deal.next() else {
                    return refuse("the cards end before the hand does".into());
                };
                if !state.chance_outcomes().iter().any(|o| o.0 == card) {
                    return refuse(format!(
                        "card {} is dealt twice",
                        state.card_text(card as u8)
                    ));
                }
                state.apply_action(card);
            }
            Turn::Player(player) => {
                let Some((letter, size)) = moves.next() else {
                    return refuse("the betting ends before the hand does".into());
                };
                let action = state.action_for(letter, &size).ok_or_else(|| {
                    LogLineError(format!(
                        "{letter}{size} is not a move the game offers here (legal: {:?})",
                        state.legal_actions()
                    ))
                })?;
                decisions.push((state.clone(), player, action));
                state.apply_action(action);
            }
        }
    }
    if moves.next().is_some() || deal.next().is_some() {
        return refuse("the hand ends before the line's betting or cards do".into());
    }
    let payoffs: Vec<f64> = payoffs
        .split('|')
        .map(|p| {
            p.parse::<f64>()
                .map_err(|_| LogLineError(format!("payoff {p:?} is not a number")))
        })
        .collect::<Result<_, _>>()?;
    let players: Vec<String> = players.split('|').map(str::to_string).collect();
    if payoffs.len() != n || players.len() != n {
        return refuse(format!(
            "{} payoffs and {} players for {n} seats",
            payoffs.len(),
            players.len()
        ));
    }
    Ok(Replayed {
        state,
        decisions,
        payoffs,
        players,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameSpec;

    fn game(spec: &str) -> UniversalPoker {
        UniversalPoker::new(spec.parse::<GameSpec>().unwrap())
    }

    /// Random hands written and read back give the same hand and payoffs.
    #[test]
    fn random_hands_round_trip_through_their_log_lines() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut below = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for spec in [
            "holdem",
            "universal_poker(betting=limit,numRounds=2,blind=10 5,raiseSize=10 20,firstPlayer=2 1,numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3)",
            "universal_poker(numPlayers=3,blind=1 2 0,stack=10 20 10,firstPlayer=3 1,numRanks=4,numSuits=2,bettingAbstraction=fullgame)",
        ] {
            let poker = game(spec);
            let names: Vec<String> = (0..poker.num_players()).map(|p| format!("p{p}")).collect();
            for hand in 0..500 {
                let mut state = poker.initial_state();
                let mut history = Vec::new();
                let mut decisions = Vec::new();
                while state.turn() != Turn::Terminal {
                    let moves = state.moves();
                    let action = moves[below(moves.len())];
                    if let Turn::Player(p) = state.turn() {
                        decisions.push((state.information_state_string(p), p, action));
                    }
                    state.apply_action(action);
                    history.push(action);
                }
                let line = log_line(&poker, &history, hand, &names);
                let replayed = replay_line(&poker, &line).unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(replayed.payoffs, state.returns(), "{line}");
                assert_eq!(replayed.state.returns(), state.returns(), "{line}");
                assert_eq!(
                    replayed.state.information_state_string(0),
                    state.information_state_string(0),
                    "{line}"
                );
                assert_eq!(replayed.players, names);
                let replayed_decisions: Vec<_> = replayed
                    .decisions
                    .iter()
                    .map(|(s, p, a)| (s.information_state_string(*p), *p, *a))
                    .collect();
                assert_eq!(replayed_decisions, decisions, "{line}");
            }
        }
    }

    #[test]
    fn malformed_lines_are_refused_saying_what_is_wrong() {
        let poker = game("holdem");
        let mut state = poker.initial_state();
        let mut history = Vec::new();
        while state.turn() != Turn::Terminal {
            let action = match state.turn() {
                Turn::Chance => state.chance_outcomes()[0].0,
                _ => state.legal_actions()[0],
            };
            state.apply_action(action);
            history.push(action);
        }
        let names = ["gain:a/b.safetensors".to_string(), "x|y".to_string()];
        let line = log_line(&poker, &history, 0, &names);
        assert!(line.ends_with(":gain_a/b.safetensors|x_y"), "{line}");
        assert_eq!(
            replay_line(&poker, &line).unwrap().players,
            ["gain_a/b.safetensors", "x_y"]
        );
        for (line, expected) in [
            ("STATE:0:r5000c///:Js5s|2d9s/8c3d4c/Qd", "found 4 fields"),
            ("HAND:0:f:Js5s|2d9s:50|-50:a|b", "starts with STATE"),
            (
                "STATE:0:f:Js5s|2d9s|3c3d:50|-50:a|b",
                "3 hands of hole cards for 2 seats",
            ),
            ("STATE:0:f:Js5x|2d9s:50|-50:a|b", "5x is not a card"),
            ("STATE:0:f:JsJs|2d9s:50|-50:a|b", "dealt twice"),
            (
                "STATE:0:r123c///:Js5s|2d9s:50|-50:a|b",
                "r123 is not a move the game offers",
            ),
            ("STATE:0:ff:Js5s|2d9s:50|-50:a|b", "the hand ends before"),
            ("STATE:0:c:Js5s|2d9s:50|-50:a|b", "the betting ends before"),
            ("STATE:0:f:Js5s|2d9s:fifty|-50:a|b", "payoff \"fifty\""),
        ] {
            let error = replay_line(&poker, line).unwrap_err().to_string();
            assert!(error.contains(expected), "{line}: {error}");
        }
    }
}
