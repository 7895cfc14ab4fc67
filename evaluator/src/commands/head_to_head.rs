//! `rnad-evaluator match` and `league`: players against each other in
//! duplicate format.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clap::Args;
use rnad_games::policy::TabularPolicy;
use rnad_games::{Game, GameSpec};
use rnad_run::history::PolicyKind;
use serde_json::json;

use super::{build_tree, emit, game_help};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::output::write_atomically;
use crate::players::{PlayerSpec, Tabulator};
use rnad_games::capabilities::Units;
use rnad_games::headtohead::sampled::{play_duplicate, DuplicateReport, ValueFunction};
use rnad_games::headtohead::stats::PlayerResult;
use rnad_games::headtohead::{play_match, MatchReport, Mode};
use rnad_games::universal_poker::acpc_log::log_line;
use rnad_games::universal_poker::UniversalPoker;

/// Arguments of `match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The game.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// One player per seat, comma-separated: uniform, heuristic, call,
    /// raise (seed 004's poker baselines, played state by state), rules, policy:FILE,
    /// `checkpoint:FILE[:KIND][:greedy]` (KIND online, target,
    /// target_postprocessed or reg; default target_postprocessed; greedy:
    /// always its most probable action), reduced:FILE (a Leduc policy for
    /// fewer players, through seed 002's opponent-action abstraction),
    /// gain:FILE (seed 004's network, as gain-train writes it).
    #[arg(long, value_delimiter = ',', required = true)]
    pub players: Vec<PlayerSpec>,
    /// Deals, each played by every seating (all permutations up to four
    /// players, the rotations beyond).
    #[arg(long, default_value_t = 1000)]
    pub deals: usize,
    /// Seed of the deals and of the players' sampled actions.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Each seating's expected payoffs by walking the game tree instead of
    /// sampling (no interval: the values are exact).
    #[arg(long)]
    pub exact: bool,
    /// Print exactly one JSON object (game, deals, seatings, players with
    /// name, mean, ci95, per_seat) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every hand to FILE in the ACPC log format
    /// (`STATE:<hand>:<betting>:<cards>:<payoffs>:<players>`;
    /// universal_poker games).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// A checkpoint of this game whose target network's value head is the
    /// value function of a control variate (AIVAT): a third estimate, with
    /// the luck of every card and every action corrected by how far it
    /// moved each seat's value; played state by state.
    #[arg(long, value_name = "CHECKPOINT")]
    pub value_function: Option<PathBuf>,
}

/// Runs `match`.
pub fn run_match(args: &MatchArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let game = args.game.load();
    if args.players.len() != game.num_players() {
        return Err(EvaluatorError::Usage(format!(
            "--players lists {} players; {} has {} seats: give one player per seat",
            args.players.len(),
            args.game,
            game.num_players()
        )));
    }
    let state_by_state = game.hands().is_none()
        || args.value_function.is_some()
        || args
            .players
            .iter()
            .any(|p| matches!(p, PlayerSpec::Baseline(_)));
    if state_by_state {
        return run_duplicate(args, game.as_ref(), out);
    }
    let tree = build_tree(&args.game)?;
    if !args.exact && args.deals == 0 {
        return Err(EvaluatorError::Usage("--deals must be at least 1".into()));
    }
    let mut tabulator = Tabulator::new(&tree);
    let policies = args
        .players
        .iter()
        .map(|p| tabulator.policy(p))
        .collect::<Result<Vec<TabularPolicy>, _>>()?;
    let names: Vec<String> = args.players.iter().map(ToString::to_string).collect();
    let mode = if args.exact {
        Mode::Exact
    } else {
        Mode::Sampled {
            deals: args.deals,
            seed: args.seed,
        }
    };
    let report = play_match(&tree, &names, &policies, mode);
    if args.json {
        emit(
            out,
            &serde_json::to_string(&report).expect("report serialises"),
        )
    } else {
        emit(out, &describe(&report))
    }
}

/// `match` played state by state: games too large for a public tree, and
/// the poker baselines.
fn run_duplicate(
    args: &MatchArgs,
    game: &dyn Game,
    out: &mut dyn Write,
) -> Result<(), EvaluatorError> {
    if args.exact {
        return Err(EvaluatorError::Usage(format!(
            "--exact walks the public tree; {} is played state by state: leave --exact out",
            args.game
        )));
    }
    if args.deals == 0 {
        return Err(EvaluatorError::Usage("--deals must be at least 1".into()));
    }
    let mut players = args
        .players
        .iter()
        .enumerate()
        .map(|(i, player)| player.state_player(&args.game, args.seed ^ (i as u64 + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = args.players.iter().map(ToString::to_string).collect();
    let offers = args.game.capabilities();
    let big_blind = offers.units.big_blind().unwrap_or(1.0);
    let poker = match &args.log {
        None => None,
        Some(_) => match UniversalPoker::of(&args.game).filter(|_| offers.acpc_logs) {
            Some(poker) => Some(poker),
            None => {
                return Err(EvaluatorError::Usage(format!(
                "--log writes ACPC hand histories, which only universal_poker games have, not {}",
                args.game
            )))
            }
        },
    };
    let mut lines = Vec::new();
    let mut record = |_deal: usize, seating: &[usize], history: &[usize], _returns: &[f64]| {
        if let Some(poker) = &poker {
            let seated: Vec<String> = seating.iter().map(|&p| names[p].clone()).collect();
            lines.push(log_line(poker, history, lines.len() as u64, &seated));
        }
        ControlFlow::Continue(())
    };
    let mut value = match &args.value_function {
        Some(path) => Some(CheckpointPolicies::read(path)?.network_value(&args.game)?),
        None => None,
    };
    let report = play_duplicate(
        game,
        &names,
        &mut players,
        (args.deals, args.seed),
        big_blind,
        value.as_mut().map(|v| v as &mut dyn ValueFunction),
        &mut record,
    )
    .expect("the record never stops the match");
    if let Some(path) = &args.log {
        lines.push(String::new());
        write_atomically(path, lines.join("\n").as_bytes())?;
    }
    if args.json {
        emit(
            out,
            &serde_json::to_string(&report).expect("report serialises"),
        )
    } else {
        emit(out, &describe_duplicate(&report, game))
    }
}

/// A state-by-state match report as a table: poker in big blinds per
/// game, Daihinmin in points per game (its returns are a deal's points
/// less their mean, over all the games of a deal), other games in their
/// returns.
fn describe_duplicate(report: &DuplicateReport, game: &dyn Game) -> String {
    let spec = game.spec();
    let units = spec.capabilities().units;
    let (scale, offset, unit, about) = match units {
        Units::Chips { big_blind } => {
            let about = format!("big blinds per game (big blind {big_blind} chips)");
            (big_blind, 0.0, "bb/g", about)
        }
        // A deal is a match of `games` games: per game, the points.
        Units::Points { games, mean_points } => (
            games as f64,
            mean_points,
            "points/g",
            "points per game".to_string(),
        ),
        Units::Returns => (1.0, 0.0, "/g", "payoff per game".to_string()),
    };
    // A deal of a game counted in points may be a match of several games.
    let (played, rate) = if matches!(units, Units::Points { games, .. } if games > 1) {
        ("matches of the games", "matches/s")
    } else {
        ("games", "games/s")
    };
    let mut lines = vec![format!(
        "{}: {} deals x {} seatings = {} {played}, {:.0} {rate}; {about} with 95% interval over deals",
        report.game, report.deals, report.seatings, report.games, report.games_per_second
    )];
    let shown = |r: &PlayerResult| (r.mean / scale + offset, r.ci95 / scale);
    let poker = units.big_blind().is_some();
    for (p, (raw, equity)) in report.raw.iter().zip(&report.all_in_equity).enumerate() {
        let (m, c) = shown(raw);
        let mut line = format!("  {:<24} {m:+.3} ± {c:.3} {unit}", raw.name);
        if poker {
            let (em, ec) = shown(equity);
            line += &format!("   all-in equity: {em:+.3} ± {ec:.3} {unit}");
        }
        if let Some(corrected) = &report.control_variate {
            let (vm, vc) = shown(&corrected[p]);
            line += &format!("   control variate: {vm:+.3} ± {vc:.3} {unit}");
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// A match report as a table.
fn describe(report: &MatchReport) -> String {
    let mut lines = vec![if report.exact {
        format!(
            "{}: exact expected payoffs over {} seatings",
            report.game, report.seatings
        )
    } else {
        format!(
            "{}: {} deals x {} seatings = {} games, {:.0} games/s; mean payoff per game with 95% interval over deals",
            report.game, report.deals, report.seatings, report.games, report.games_per_second
        )
    }];
    for p in &report.players {
        let mbb = match (p.mbb_per_game, p.ci95_mbb) {
            (Some(m), Some(c)) => format!(" ({m:+.0} ± {c:.0} mbb/g)"),
            _ => String::new(),
        };
        let seats: Vec<String> = p.per_seat.iter().map(|v| format!("{v:+.4}")).collect();
        lines.push(format!(
            "  {:<40} {:+.4} ± {:.4}{mbb}   by seat: {}",
            p.name,
            p.mean,
            p.ci95,
            seats.join(" ")
        ));
    }
    lines.join("\n")
}

/// Arguments of `league`.
#[derive(Debug, Args)]
pub struct LeagueArgs {
    /// The game.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// The players, comma-separated (as for `match`); every combination of
    /// as many as the game has seats plays a match.
    #[arg(long, value_delimiter = ',')]
    pub players: Vec<PlayerSpec>,
    /// Also every checkpoint of this run directory, as players `gen-STEP`
    /// (seed 004's generations).
    #[arg(long)]
    pub checkpoints: Option<PathBuf>,
    /// With --checkpoints, only every K-th checkpoint (the newest always).
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// The policy kind the generations play.
    #[arg(long, default_value_t = PolicyKind::TargetPostprocessed)]
    pub kind: PolicyKind,
    /// Deals per match.
    #[arg(long, default_value_t = 1000)]
    pub deals: usize,
    /// Seed of the deals (the same deals in every match).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Exact expected payoffs instead of sampled games.
    #[arg(long)]
    pub exact: bool,
    /// Directory for league.md, league.csv and league.json.
    #[arg(long)]
    pub out: PathBuf,
}

/// One match of a league: who played and how each fared.
#[derive(Debug, serde::Serialize)]
struct LeagueMatch {
    players: Vec<usize>,
    results: Vec<PlayerResult>,
}

/// Runs `league`.
pub fn run_league(args: &LeagueArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let tree = build_tree(&args.game)?;
    let seats = tree.num_players();
    let mut entrants: Vec<(String, PlayerSpec)> = args
        .players
        .iter()
        .map(|p| (p.to_string(), p.clone()))
        .collect();
    if let Some(dir) = &args.checkpoints {
        entrants.extend(generations(dir, args.every, args.kind)?);
    }
    if entrants.len() < seats {
        return Err(EvaluatorError::Usage(format!(
            "a league of {} needs at least {seats} players, got {}",
            args.game,
            entrants.len()
        )));
    }
    let mut tabulator = Tabulator::new(&tree);
    let policies = entrants
        .iter()
        .map(|(_, p)| tabulator.policy(p))
        .collect::<Result<Vec<TabularPolicy>, _>>()?;
    let mode = if args.exact {
        Mode::Exact
    } else {
        Mode::Sampled {
            deals: args.deals,
            seed: args.seed,
        }
    };
    let mut matches = Vec::new();
    for group in combinations(entrants.len(), seats) {
        let names: Vec<String> = group.iter().map(|&i| entrants[i].0.clone()).collect();
        let chosen: Vec<TabularPolicy> = group.iter().map(|&i| policies[i].clone()).collect();
        tracing::info!("match: {}", names.join(" vs "));
        let report = play_match(&tree, &names, &chosen, mode);
        matches.push(LeagueMatch {
            players: group,
            results: report.players,
        });
    }
    let names: Vec<&str> = entrants.iter().map(|(n, _)| n.as_str()).collect();
    let (markdown, csv) = tables(&names, &matches, seats);
    std::fs::create_dir_all(&args.out).map_err(|source| EvaluatorError::Write {
        path: args.out.clone(),
        source,
    })?;
    write_atomically(&args.out.join("league.md"), markdown.as_bytes())?;
    write_atomically(&args.out.join("league.csv"), csv.as_bytes())?;
    let json = json!({"game": args.game.to_string(), "players": names, "matches": matches});
    write_atomically(
        &args.out.join("league.json"),
        serde_json::to_string_pretty(&json)
            .expect("serialises")
            .as_bytes(),
    )?;
    emit(out, &markdown)
}

/// The checkpoints of a run directory as players `gen-STEP`, every
/// `every`-th (and the newest).
fn generations(
    dir: &Path,
    every: usize,
    kind: PolicyKind,
) -> Result<Vec<(String, PlayerSpec)>, EvaluatorError> {
    let checkpoints = rnad_run::checkpoint::list(&dir.join("checkpoints")).map_err(|source| {
        EvaluatorError::Read {
            path: dir.to_path_buf(),
            source,
        }
    })?;
    if checkpoints.is_empty() {
        return Err(EvaluatorError::Usage(format!(
            "{} has no checkpoints (looked in its checkpoints/)",
            dir.display()
        )));
    }
    let last = checkpoints.len() - 1;
    Ok(checkpoints
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every.max(1) == 0 || *i == last)
        .map(|(_, path)| {
            let step = rnad_run::checkpoint::step_of(&path).unwrap_or(0);
            (
                format!("gen-{step}"),
                PlayerSpec::Checkpoint {
                    path,
                    kind,
                    greedy: false,
                },
            )
        })
        .collect())
}

/// Every `k`-subset of `0..n`, in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(k);
    fn extend(
        start: usize,
        n: usize,
        k: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if current.len() == k {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            extend(i + 1, n, k, current, out);
            current.pop();
        }
    }
    extend(0, n, k, &mut current, &mut out);
    out
}

/// The league's tables: for two-player games a cross table (row player's
/// mean ± interval against the column player), for more players one row
/// per match; then a ranking by mean payoff over every match played.
fn tables(names: &[&str], matches: &[LeagueMatch], seats: usize) -> (String, String) {
    let mut markdown = String::new();
    let mut csv = String::from("player,opponents,mean,ci95\n");
    let mut totals = vec![(0.0, 0usize); names.len()];
    for m in matches {
        for (&p, r) in m.players.iter().zip(&m.results) {
            totals[p].0 += r.mean;
            totals[p].1 += 1;
            let others: Vec<&str> = m
                .players
                .iter()
                .filter(|&&q| q != p)
                .map(|&q| names[q])
                .collect();
            csv.push_str(&format!(
                "{},{},{},{}\n",
                names[p],
                others.join(" "),
                r.mean,
                r.ci95
            ));
        }
    }
    if seats == 2 {
        markdown.push_str(&format!("| row vs column | {} |\n", names.join(" | ")));
        markdown.push_str(&format!("|---|{}\n", "---|".repeat(names.len())));
        for (i, name) in names.iter().enumerate() {
            let cells: Vec<String> = (0..names.len())
                .map(|j| {
                    matches
                        .iter()
                        .find(|m| m.players == [i.min(j), i.max(j)] && i != j)
                        .map_or_else(
                            || "".to_string(),
                            |m| {
                                let r = &m.results[usize::from(i > j)];
                                format!("{:+.3} ± {:.3}", r.mean, r.ci95)
                            },
                        )
                })
                .collect();
            markdown.push_str(&format!("| {name} | {} |\n", cells.join(" | ")));
        }
    } else {
        markdown.push_str("| match | results (mean ± 95% interval) |\n|---|---|\n");
        for m in matches {
            let cells: Vec<String> = m
                .players
                .iter()
                .zip(&m.results)
                .map(|(&p, r)| format!("{} {:+.3} ± {:.3}", names[p], r.mean, r.ci95))
                .collect();
            let who: Vec<&str> = m.players.iter().map(|&p| names[p]).collect();
            markdown.push_str(&format!("| {} | {} |\n", who.join(", "), cells.join("; ")));
        }
    }
    let mut ranking: Vec<(usize, f64)> = totals
        .iter()
        .enumerate()
        .map(|(p, (sum, n))| (p, sum / (*n).max(1) as f64))
        .collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    markdown.push_str("\nRanking by mean payoff per game over every match played:\n\n| rank | player | mean |\n|---|---|---|\n");
    for (rank, (p, mean)) in ranking.iter().enumerate() {
        markdown.push_str(&format!("| {} | {} | {mean:+.4} |\n", rank + 1, names[*p]));
    }
    (markdown, csv)
}
