//! Seed 002's experiment at this machine's scale: in n-player Leduc with R
//! ranks, does a player holding a k-player CFR strategy (k < n), played
//! through the opponent-action abstraction
//! ([`rnad_games::headtohead::reduced`]), beat n − 1
//! players of an n-player CFR strategy, and how does that depend on how
//! long the n-player CFR ran?
//!
//! Vanilla CFR (as the seed) runs for the same wall-clock budget on every
//! player count from 2 to the largest n; the runs that serve as fields keep
//! their average policy at iterations 1, 2, 4, 8, … and at the end. For
//! each n and each such snapshot, each hero — the reduced k-player players
//! for k = 2 … n − 1, and the final n-player CFR policy as the yardstick —
//! sits in every seat in turn with the snapshot in all the others, on the
//! same deals: its mean payoff with a 95% interval over deals, and its
//! exact expected payoff.

use std::time::{Duration, Instant};

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde::Serialize;

use crate::error::EvaluatorError;
use rnad_games::cfr::{CfrSolver, CfrVariant};
use rnad_games::exploitability::nash_conv;
use rnad_games::headtohead::reduced::reduced_policy;
use rnad_games::headtohead::{play_against, Mode};

/// What to run.
#[derive(Clone, Debug)]
pub struct ReductionSpec {
    /// Ranks of the Leduc deck (two suits each).
    pub ranks: i64,
    /// The player counts n whose games are played (each at least 3).
    pub players: Vec<usize>,
    /// CFR's wall-clock budget per player count.
    pub seconds: f64,
    /// Deals per match.
    pub deals: usize,
    /// Seed of the deals.
    pub seed: u64,
}

/// One CFR run.
#[derive(Clone, Debug, Serialize)]
pub struct SolveRecord {
    /// The game.
    pub game: String,
    /// Its players.
    pub players: usize,
    /// Iterations within the budget.
    pub iterations: u64,
    /// Seconds they took.
    pub seconds: f64,
    /// NashConv of the final average policy.
    pub nash_conv: f64,
}

/// One hero against one field.
#[derive(Clone, Debug, Serialize)]
pub struct ReductionRow {
    /// Players of the game played.
    pub players: usize,
    /// `reduced-k` or `cfr-n` (the final n-player policy).
    pub hero: String,
    /// Iterations of the n-player CFR snapshot in the other seats.
    pub field_iterations: u64,
    /// NashConv of that snapshot.
    pub field_nash_conv: f64,
    /// The hero's mean payoff per game (chips), sampled.
    pub mean: f64,
    /// Half-width of its 95% interval over deals.
    pub ci95: f64,
    /// The hero's exact expected payoff per game.
    pub exact: f64,
}

/// Everything the experiment measured.
#[derive(Clone, Debug, Serialize)]
pub struct ReductionReport {
    /// Ranks of the deck.
    pub ranks: i64,
    /// CFR's budget per player count, seconds.
    pub seconds: f64,
    /// Deals per match.
    pub deals: usize,
    /// Seed of the deals.
    pub seed: u64,
    /// Every CFR run.
    pub solves: Vec<SolveRecord>,
    /// Every match.
    pub rows: Vec<ReductionRow>,
}

/// A CFR run's outcome: its final average policy and, for fields, the
/// snapshots (iterations, policy).
struct Solved {
    record: SolveRecord,
    last: TabularPolicy,
    snapshots: Vec<(u64, TabularPolicy)>,
}

/// The Leduc game of `players` players and `ranks` ranks.
pub fn leduc(players: usize, ranks: i64) -> GameSpec {
    format!("leduc_poker(players={players},ranks={ranks})")
        .parse()
        .expect("a valid Leduc spec")
}

/// Runs the experiment; `progress` hears what it is doing.
pub fn run(
    spec: &ReductionSpec,
    progress: &dyn Fn(&str),
) -> Result<ReductionReport, EvaluatorError> {
    let largest = spec.players.iter().copied().max().unwrap_or(0);
    if spec.players.iter().any(|&n| n < 3) {
        return Err(EvaluatorError::Usage(
            "--players: every n must be at least 3 (a reduced player needs fewer players)".into(),
        ));
    }
    let trees = (2..=largest)
        .map(|k| PublicTree::build(leduc(k, spec.ranks).load()))
        .collect::<Result<Vec<_>, _>>()?;
    let tree = |k: usize| &trees[k - 2];
    let solved: Vec<Solved> = (2..=largest)
        .map(|k| {
            let snapshots = spec.players.contains(&k);
            solve(tree(k), spec.seconds, snapshots, progress)
        })
        .collect();
    let mut rows = Vec::new();
    for &n in &spec.players {
        let big = tree(n);
        let mut heroes: Vec<(String, TabularPolicy)> = (2..n)
            .map(|k| {
                progress(&format!("reduced-{k} player for {}", big.spec()));
                (
                    format!("reduced-{k}"),
                    reduced_policy(big, tree(k), &solved[k - 2].last),
                )
            })
            .collect();
        heroes.push((format!("cfr-{n}"), solved[n - 2].last.clone()));
        for (iterations, field) in &solved[n - 2].snapshots {
            let field_nash_conv = nash_conv(big, field).nash_conv;
            for (name, hero) in &heroes {
                let sampled = Mode::Sampled {
                    deals: spec.deals,
                    seed: spec.seed,
                };
                let result = play_against(big, hero, field, sampled);
                let exact = play_against(big, hero, field, Mode::Exact).mean;
                progress(&format!(
                    "{n} players: {name} against CFR after {iterations} iterations: {:+.4} ± {:.4} (exact {exact:+.4})",
                    result.mean, result.ci95
                ));
                rows.push(ReductionRow {
                    players: n,
                    hero: name.clone(),
                    field_iterations: *iterations,
                    field_nash_conv,
                    mean: result.mean,
                    ci95: result.ci95,
                    exact,
                });
            }
        }
    }
    Ok(ReductionReport {
        ranks: spec.ranks,
        seconds: spec.seconds,
        deals: spec.deals,
        seed: spec.seed,
        solves: solved.into_iter().map(|s| s.record).collect(),
        rows,
    })
}

/// Vanilla CFR on `tree` for `seconds`, keeping the average policy at
/// every power of two iterations when `snapshots` is set.
fn solve(tree: &PublicTree, seconds: f64, snapshots: bool, progress: &dyn Fn(&str)) -> Solved {
    progress(&format!("CFR on {} for {seconds} s", tree.spec()));
    let mut solver = CfrSolver::new(tree, CfrVariant::Cfr);
    let budget = Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let mut kept = Vec::new();
    while started.elapsed() < budget {
        solver.iterate();
        let t = solver.iterations();
        if snapshots && t.is_power_of_two() {
            kept.push((t, solver.average_policy()));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let last = solver.average_policy();
    let iterations = solver.iterations();
    if snapshots && kept.last().is_none_or(|(t, _)| *t != iterations) {
        kept.push((iterations, last.clone()));
    }
    let record = SolveRecord {
        game: tree.spec().to_string(),
        players: tree.num_players(),
        iterations,
        seconds,
        nash_conv: nash_conv(tree, &last).nash_conv,
    };
    progress(&format!(
        "CFR on {}: {iterations} iterations in {seconds:.1} s, NashConv {:.4}",
        record.game, record.nash_conv
    ));
    Solved {
        record,
        last,
        snapshots: kept,
    }
}

impl ReductionReport {
    /// The rows as CSV, one line per match.
    pub fn csv(&self) -> String {
        let mut text =
            String::from("players,hero,field_iterations,field_nash_conv,mean,ci95,exact\n");
        for r in &self.rows {
            text.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                r.players, r.hero, r.field_iterations, r.field_nash_conv, r.mean, r.ci95, r.exact
            ));
        }
        text
    }

    /// The results as Markdown: the CFR runs, then per player count a
    /// table of each hero's payoff against each snapshot.
    pub fn markdown(&self) -> String {
        let mut text = format!(
            "Leduc poker with {} ranks x 2 suits. Vanilla CFR for {} s per player count; {} deals per match, seed {}, every seat for the hero.\n\n",
            self.ranks, self.seconds, self.deals, self.seed
        );
        text.push_str(
            "| game | CFR iterations | seconds | NashConv |\n| --- | ---: | ---: | ---: |\n",
        );
        for s in &self.solves {
            text.push_str(&format!(
                "| `{}` | {} | {:.1} | {:.4} |\n",
                s.game, s.iterations, s.seconds, s.nash_conv
            ));
        }
        let mut counts: Vec<usize> = self.rows.iter().map(|r| r.players).collect();
        counts.dedup();
        for n in counts {
            let rows: Vec<&ReductionRow> = self.rows.iter().filter(|r| r.players == n).collect();
            let mut heroes: Vec<&str> = Vec::new();
            for r in &rows {
                if !heroes.contains(&r.hero.as_str()) {
                    heroes.push(&r.hero);
                }
            }
            text.push_str(&format!(
                "\n### {n} players\n\nMean payoff per game (chips) of the hero against {} players of the {n}-player CFR after the given iterations: sampled mean ± 95% interval (exact expectation).\n\n| field iterations | field NashConv |",
                n - 1
            ));
            for h in &heroes {
                text.push_str(&format!(" {h} |"));
            }
            text.push_str("\n| ---: | ---: |");
            text.push_str(&" ---: |".repeat(heroes.len()));
            text.push('\n');
            let mut fields: Vec<(u64, f64)> = rows
                .iter()
                .map(|r| (r.field_iterations, r.field_nash_conv))
                .collect();
            fields.dedup_by_key(|f| f.0);
            for (iterations, nash_conv) in fields {
                text.push_str(&format!("| {iterations} | {nash_conv:.4} |"));
                for h in &heroes {
                    let r = rows
                        .iter()
                        .find(|r| r.field_iterations == iterations && r.hero == *h)
                        .expect("every hero meets every field");
                    text.push_str(&format!(
                        " {:+.4} ± {:.4} ({:+.4}) |",
                        r.mean, r.ci95, r.exact
                    ));
                }
                text.push('\n');
            }
        }
        text
    }
}
