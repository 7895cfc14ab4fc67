//! `rnad-evaluator replay-log`: an ACPC hand-history file replayed hand by
//! hand through the engine, every payoff checked against the engine's, and
//! each player's total and mean per hand reported.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rnad_games::universal_poker::acpc_log::replay_line;
use rnad_games::universal_poker::UniversalPoker;
use rnad_games::{GameSpec, State};

use super::{emit, game_help};
use crate::error::EvaluatorError;

/// Arguments of `replay-log`.
#[derive(Debug, Args)]
pub struct ReplayLogArgs {
    /// The universal_poker game the hands were played in.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// The log (`match --log` writes one).
    #[arg(long)]
    pub log: PathBuf,
}

/// Replays every line of the log.
pub fn run(args: &ReplayLogArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let Some(poker) = UniversalPoker::of(&args.game).filter(|_| args.game.capabilities().acpc_logs)
    else {
        return Err(EvaluatorError::Usage(format!(
            "ACPC logs are universal_poker hands, not {}",
            args.game
        )));
    };
    let text = std::fs::read_to_string(&args.log).map_err(|source| EvaluatorError::Read {
        path: args.log.clone(),
        source,
    })?;
    let at = |line: usize, why: String| {
        EvaluatorError::Usage(format!("{}:{}: {why}", args.log.display(), line + 1))
    };
    let mut totals: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut hands = 0;
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let replayed = replay_line(&poker, line).map_err(|e| at(number, e.0))?;
        let engine = replayed.state.returns();
        if engine != replayed.payoffs {
            return Err(at(
                number,
                format!(
                    "the line pays {:?}, the engine {engine:?}",
                    replayed.payoffs
                ),
            ));
        }
        for (name, payoff) in replayed.players.iter().zip(&engine) {
            let total = totals.entry(name.clone()).or_default();
            total.0 += payoff;
            total.1 += 1;
        }
        hands += 1;
    }
    emit(
        out,
        &format!(
            "{}: {hands} hands, every payoff as the engine pays it",
            args.log.display()
        ),
    )?;
    for (name, (total, count)) in totals {
        emit(
            out,
            &format!(
                "  {name:<24} {total:+.0} chips in {count} hands ({:+.2} per hand)",
                total / count as f64
            ),
        )?;
    }
    Ok(())
}
