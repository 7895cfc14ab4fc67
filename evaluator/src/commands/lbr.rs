//! `rnad-evaluator lbr`: local best response against a player of a
//! heads-up universal_poker game, in mbb/hand with a 95% interval.

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::time::Duration;

use clap::Args;
use rnad_games::algorithms::lbr::{
    local_best_response, LbrOptions, LbrReport, DEFAULT_MAX_BOARDS, STANDARD_SETTINGS,
};
use rnad_games::universal_poker::UniversalPoker;
use rnad_games::GameSpec;
use rnad_process::logging::Throttle;
use serde::Serialize;

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
    /// Hands, LBR alternating seats (each setting's, with --standard).
    #[arg(long, default_value_t = 10_000)]
    pub hands: usize,
    /// The bets LBR considers: fc (none), fcpa (pot and all-in), fchpa
    /// (and half-pot), or action ids separated by commas.
    #[arg(long, default_value = "fcpa", conflicts_with = "standard")]
    pub bets: String,
    /// Only fold or call (by equity) before the turn, the third betting
    /// round.
    #[arg(long, conflicts_with = "standard")]
    pub call_until_turn: bool,
    /// Every standard setting on the same deals (fc, fcpa, fcpa from the
    /// turn, fchpa), each reported, and the best of them.
    #[arg(long)]
    pub standard: bool,
    /// Boards priced for equity: every board to come where there are no
    /// more, this many drawn at random otherwise.
    #[arg(long, default_value_t = DEFAULT_MAX_BOARDS)]
    pub max_boards: usize,
    /// Seed of the cards, the player's actions and the sampled boards.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print JSON instead of lines: one report, or with --standard an
    /// object of every setting's report and the best setting's name.
    #[arg(long)]
    pub json: bool,
}

/// Time between progress lines while LBR plays: against a network with a
/// convolution over the cards a setting of 1,000 hands takes minutes.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

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

/// One setting's report, as `--standard` writes it.
#[derive(Serialize)]
struct SettingReport {
    setting: String,
    report: LbrReport,
}

/// Every setting's report and the best of them.
#[derive(Serialize)]
struct StandardReport {
    settings: Vec<SettingReport>,
    best: String,
}

/// Runs `lbr`.
pub fn run(args: &LbrArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if !args.game.capabilities().local_best_response {
        return Err(EvaluatorError::Usage(format!(
            "local best response plays heads-up universal_poker games, not {}",
            args.game
        )));
    }
    if args.max_boards == 0 {
        return Err(EvaluatorError::Usage(
            "--max-boards 0: LBR needs at least one board to price its equity".into(),
        ));
    }
    let settings: Vec<(String, Vec<usize>, usize)> = if args.standard {
        STANDARD_SETTINGS
            .iter()
            .map(|s| (s.name.to_string(), s.bets.to_vec(), s.call_before_round))
            .collect()
    } else {
        let name = if args.call_until_turn {
            format!("{}-turn", args.bets)
        } else {
            args.bets.clone()
        };
        vec![(
            name,
            bets(&args.bets)?,
            if args.call_until_turn { 2 } else { 0 },
        )]
    };
    let game = UniversalPoker::new(args.game.clone());
    let mut reports = Vec::with_capacity(settings.len());
    for (setting, bets, call_before_round) in settings {
        // A fresh player for each setting: the same deals and the same
        // draws of the player's actions.
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
            bets,
            call_before_round,
            max_boards: args.max_boards,
        };
        // LBR asks whether to stop before every hand: the place to say how
        // far it has got.
        let played = Cell::new(0usize);
        let progress = RefCell::new(Throttle::new(PROGRESS_EVERY));
        // The first line after a whole interval, not at the first hand.
        progress.borrow_mut().ready();
        let report_progress = || {
            if progress.borrow_mut().ready().is_some() {
                tracing::info!(setting = %setting, played = played.get(), hands = args.hands, "LBR");
            }
            played.set(played.get() + 1);
            false
        };
        let report = local_best_response(&game, player.as_mut(), &options, &report_progress)
            .map_err(|e| EvaluatorError::Usage(e.to_string()))?;
        if !args.json {
            emit(
                out,
                &format!(
                    "LBR ({setting}) against {}: {:+.0} ± {:.0} mbb/hand over {} hands ({:.0} hands/s)",
                    args.player,
                    report.mbb_per_hand,
                    report.ci95_mbb,
                    report.hands,
                    report.hands_per_second
                ),
            )?;
        }
        reports.push(SettingReport { setting, report });
    }
    // The first of equals: the simplest setting that does as well.
    let best = reports
        .iter()
        .reduce(|best, r| {
            if r.report.mean > best.report.mean {
                r
            } else {
                best
            }
        })
        .expect("at least one setting");
    if !args.json {
        return if args.standard {
            emit(
                out,
                &format!(
                    "best: {} ({:+.0} ± {:.0} mbb/hand)",
                    best.setting, best.report.mbb_per_hand, best.report.ci95_mbb
                ),
            )
        } else {
            Ok(())
        };
    }
    let json = if args.standard {
        let best = best.setting.clone();
        serde_json::to_string(&StandardReport {
            settings: reports,
            best,
        })
    } else {
        serde_json::to_string(&reports[0].report)
    };
    emit(out, &json.expect("report serialises"))
}
