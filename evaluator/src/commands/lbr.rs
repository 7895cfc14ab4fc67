//! `rnad-evaluator lbr`: local best response against a player of a
//! heads-up universal_poker game, in mbb/hand with a 95% interval.

use std::io::Write;

use clap::Args;
use rnad_games::algorithms::lbr::{local_best_response, LbrOptions};
use rnad_games::universal_poker::UniversalPoker;
use rnad_games::GameSpec;

use super::{emit, game_help};
use crate::error::EvaluatorError;
use crate::players::PlayerSpec;

/// Arguments of `lbr`.
#[derive(Debug, Args)]
pub struct LbrArgs {
    /// A heads-up universal_poker game.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// The player to exploit (as for `match`); it must give a policy for
    /// every hand it might hold.
    #[arg(long)]
    pub player: PlayerSpec,
    /// Hands, LBR alternating seats.
    #[arg(long, default_value_t = 10_000)]
    pub hands: usize,
    /// The bets LBR considers: fc (none), fcpa (pot and all-in), fchpa
    /// (and half-pot), or action ids separated by commas.
    #[arg(long, default_value = "fcpa")]
    pub bets: String,
    /// Only check or call before the turn (the third betting round).
    #[arg(long)]
    pub call_until_turn: bool,
    /// Boards sampled for equity when more than one card is to come.
    #[arg(long, default_value_t = 32)]
    pub sampled_boards: usize,
    /// Seed of the cards, the player's actions and the sampled boards.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of a line.
    #[arg(long)]
    pub json: bool,
}

/// The raise actions `--bets` names.
fn bets(text: &str) -> Result<Vec<usize>, EvaluatorError> {
    match text {
        "fc" => Ok(Vec::new()),
        "fcpa" => Ok(vec![2, 3]),
        "fchpa" => Ok(vec![2, 3, 4]),
        ids => ids
            .split(',')
            .map(|id| id.trim().parse::<usize>().ok().filter(|&a| a >= 2))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                EvaluatorError::Usage(format!(
                    "--bets {ids:?}: use fc, fcpa, fchpa or raise action ids (2 and up) separated by commas"
                ))
            }),
    }
}

/// Runs `lbr`.
pub fn run(args: &LbrArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if !args.game.capabilities().local_best_response {
        return Err(EvaluatorError::Usage(format!(
            "local best response plays heads-up universal_poker games, not {}",
            args.game
        )));
    }
    let mut player = args
        .player
        .state_player(&args.game, args.seed)
        .map_err(|e| {
            EvaluatorError::Usage(format!(
                "lbr needs the player's policy for every hand it might hold: {e}"
            ))
        })?;
    let options = LbrOptions {
        hands: args.hands,
        seed: args.seed,
        bets: bets(&args.bets)?,
        call_before_round: if args.call_until_turn { 2 } else { 0 },
        sampled_boards: args.sampled_boards.max(1),
    };
    let game = UniversalPoker::new(args.game.clone());
    let report = local_best_response(&game, player.as_mut(), &options, &|| false)
        .map_err(|e| EvaluatorError::Usage(e.to_string()))?;
    if args.json {
        return emit(
            out,
            &serde_json::to_string(&report).expect("report serialises"),
        );
    }
    emit(
        out,
        &format!(
            "LBR ({}{}) against {}: {:+.0} ± {:.0} mbb/hand over {} hands ({:.0} hands/s)",
            args.bets,
            if args.call_until_turn {
                ", calling until the turn"
            } else {
                ""
            },
            args.player,
            report.mbb_per_hand,
            report.ci95_mbb,
            report.hands,
            report.hands_per_second
        ),
    )
}
