//! Head-to-head evaluation during training for games too large for a
//! public tree (hold'em, Daihinmin): the evaluated network plays, state by
//! state, a panel (seed 004's heuristic and the uniform player in poker,
//! the default player and random-sampling Monte-Carlo at 20 playouts in
//! Daihinmin, uniform elsewhere, and any `evaluation.panel_extra`) and the
//! version evaluated before, in one
//! seat with the opponent in all the others, on the same duplicate deals
//! at every evaluation; and every `evaluation.lbr_interval_evaluations` evaluations
//! (heads-up universal_poker) a local best response measures how much a
//! simple exploiter wins from it.
//!
//! Results are the all-in-equity estimates (run-outs of all-in hands
//! averaged rather than dealt once): the same expectation as the raw
//! payoffs with a narrower interval.

use std::ops::ControlFlow;
use std::sync::Arc;

use rnad_games::algorithms::lbr::{
    local_best_response, LbrError, LbrOptions, LbrSetting, DEFAULT_MAX_BOARDS, STANDARD_SETTINGS,
};
use rnad_games::algorithms::monte_carlo::{Allocation, MonteCarloSpec};
use rnad_games::bots::poker_baselines::Baseline;
use rnad_games::daihinmin::Daihinmin;
use rnad_games::headtohead::sampled::{play_duplicate, Player};
use rnad_games::universal_poker::UniversalPoker;
use rnad_games::{Game, GameSpec};
use rnad_net::{NetShape, ParamSet};
use rnad_run::history::{HeadToHead, LocalBestResponse};
use rnad_run::ResolvedRun;

use crate::error::EvaluatorError;
use crate::network_player::NetworkPlayer;
use crate::players::PlayerSpec;
use rnad_run::history::PolicyKind;

/// LBR's setting in training: fold, call, pot and all-in.
const LBR_SETTING: LbrSetting = STANDARD_SETTINGS[1];

/// Playouts a decision of the Monte-Carlo player on Daihinmin's panel: few,
/// so that an evaluation stays short.
const PANEL_PLAYOUTS: usize = 20;

/// The fixed opponents for `game`, each with its name in the history, by
/// what the game offers: seed 004's heuristic and uniform where the poker
/// baselines play (poker), the rule-based player that decides state by
/// state and random-sampling Monte-Carlo where those play (Daihinmin),
/// uniform elsewhere.
fn fixed_opponents(game: &GameSpec) -> Vec<(String, PlayerSpec)> {
    let named = |name: &str, spec: PlayerSpec| (name.to_string(), spec);
    let offers = game.capabilities();
    if offers.poker_baselines {
        return vec![
            named("heuristic", PlayerSpec::Baseline(Baseline::Heuristic)),
            named("uniform", PlayerSpec::Uniform),
        ];
    }
    let mut panel = Vec::new();
    if offers.rules.is_some_and(|bot| !bot.is_tabular()) {
        panel.push(named("default", PlayerSpec::Rules));
    }
    if offers.monte_carlo {
        let sampling = MonteCarloSpec {
            allocation: Allocation::RandomSampling,
            playouts: PANEL_PLAYOUTS,
        };
        panel.push((sampling.to_string(), PlayerSpec::MonteCarlo(sampling)));
    }
    if panel.is_empty() {
        panel.push(named("uniform", PlayerSpec::Uniform));
    }
    panel
}

/// When LBR runs, and how long.
struct LbrSchedule {
    every: u64,
    hands: usize,
    game: UniversalPoker,
}

/// The panel and the deals every evaluated version meets.
pub struct SampledPanel {
    game: Arc<dyn Game>,
    shape: NetShape,
    fixed: Vec<(String, PlayerSpec)>,
    /// The version evaluated last, and its learner step.
    previous: Option<(u64, ParamSet)>,
    deals: usize,
    /// Games in each deal (a Daihinmin match), by which its results are
    /// divided to stay per game.
    games_per_deal: f64,
    seed: u64,
    big_blind: f64,
    lbr: Option<LbrSchedule>,
    evaluations: u64,
}

impl SampledPanel {
    /// The panel `run`'s config asks for. LBR asked of a game other than
    /// heads-up universal_poker is refused.
    pub fn new(run: &ResolvedRun) -> Result<SampledPanel, EvaluatorError> {
        let (config, mut game) = (run.config(), run.game().clone());
        let big_blind = config.game.capabilities().units.big_blind();
        let e = &config.evaluation;
        if e.panel_match_games > 1 {
            let spec = Daihinmin::match_spec(&config.game, e.panel_match_games)
                .ok_or_else(|| {
                    EvaluatorError::Usage(format!(
                        "evaluation.panel_match_games plays Daihinmin's panel as matches, not \
                         {}'s: set it to 1",
                        config.game
                    ))
                })?
                .map_err(|e| EvaluatorError::Usage(format!("evaluation.panel_match_games: {e}")))?;
            game = spec.load();
        }
        let lbr = match e.lbr_interval_evaluations {
            0 => None,
            every if config.game.capabilities().local_best_response => Some(LbrSchedule {
                every,
                hands: e.lbr_hands,
                game: UniversalPoker::of(&config.game).expect("local best response plays poker"),
            }),
            _ => {
                return Err(EvaluatorError::Usage(format!(
                    "evaluation.lbr_interval_evaluations: local best response plays heads-up \
                     universal_poker games, not {}; set it to 0",
                    config.game
                )))
            }
        };
        let mut fixed = fixed_opponents(&config.game);
        for spec in &e.panel_extra {
            let player: PlayerSpec = spec.parse().map_err(|e| {
                EvaluatorError::Usage(format!("evaluation.panel_extra: {spec:?}: {e}"))
            })?;
            // Made once here so that a file that does not load stops the
            // run at its start, not at its first evaluation.
            player.state_player(&config.game, config.seed)?;
            fixed.push((spec.clone(), player));
        }
        Ok(SampledPanel {
            fixed,
            game,
            shape: run.shape().clone(),
            previous: None,
            deals: e.deals,
            games_per_deal: e.panel_match_games as f64,
            seed: config.seed,
            big_blind: big_blind.unwrap_or(1.0),
            lbr,
            evaluations: 0,
        })
    }

    /// The game it plays.
    pub fn game(&self) -> &GameSpec {
        self.game.spec()
    }

    fn network(&self, params: &ParamSet) -> Result<NetworkPlayer, EvaluatorError> {
        NetworkPlayer::new(&self.shape, params, true).map_err(|source| EvaluatorError::Network {
            kind: PolicyKind::TargetPostprocessed,
            source,
        })
    }

    /// Plays the post-processed policy of `target` (learner step `step`)
    /// against every opponent, and on every LBR evaluation LBR against it;
    /// then keeps it as the next version's `previous`. `stop` is asked
    /// after every game and before every LBR hand: a panel of thousands of
    /// deals, or LBR against a network, takes minutes to hours.
    pub fn play(
        &mut self,
        target: &ParamSet,
        step: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<(Vec<HeadToHead>, Option<LocalBestResponse>), EvaluatorError> {
        let mut opponents: Vec<(String, Option<u64>)> = self
            .fixed
            .iter()
            .map(|(name, _)| (name.clone(), None))
            .collect();
        if let Some((previous_step, _)) = &self.previous {
            opponents.push(("previous".into(), Some(*previous_step)));
        }
        let seats = self.game.num_players();
        let mut results = Vec::with_capacity(opponents.len());
        for (i, (name, opponent_step)) in opponents.into_iter().enumerate() {
            // The evaluated policy in one seat, the opponent in all others.
            let mut names = vec!["evaluated".to_string()];
            let mut players: Vec<Box<dyn Player>> = vec![Box::new(self.network(target)?)];
            for seat in 1..seats {
                names.push(name.clone());
                players.push(match self.fixed.get(i) {
                    Some((_, opponent)) => {
                        opponent.state_player(self.game.spec(), self.seed ^ seat as u64)?
                    }
                    None => {
                        let (_, previous) = self.previous.as_ref().expect("a previous version");
                        Box::new(self.network(previous)?)
                    }
                });
            }
            let report = play_duplicate(
                self.game.as_ref(),
                &names,
                &mut players,
                (self.deals, self.seed),
                self.big_blind,
                None,
                &mut |_, _, _, _| {
                    if stop() {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            )?;
            let evaluated = &report.all_in_equity[0];
            results.push(HeadToHead {
                opponent: name,
                opponent_step,
                mean: evaluated.mean / self.games_per_deal,
                ci95: evaluated.ci95 / self.games_per_deal,
                deals: self.deals,
            });
        }
        let lbr = match &self.lbr {
            Some(schedule) if self.evaluations.is_multiple_of(schedule.every) => {
                let options = LbrOptions {
                    hands: schedule.hands,
                    seed: self.seed,
                    bets: LBR_SETTING.bets.to_vec(),
                    call_before_round: LBR_SETTING.call_before_round,
                    max_boards: DEFAULT_MAX_BOARDS,
                };
                let mut player = self.network(target)?;
                let report = local_best_response(&schedule.game, &mut player, &options, stop)
                    .map_err(|e| match e {
                        LbrError::Stopped(stopped) => EvaluatorError::Stopped(stopped),
                        other => EvaluatorError::Usage(other.to_string()),
                    })?;
                Some(LocalBestResponse {
                    bets: LBR_SETTING.name.into(),
                    hands: report.hands,
                    mbb_per_hand: report.mbb_per_hand,
                    ci95_mbb: report.ci95_mbb,
                })
            }
            _ => None,
        };
        self.evaluations += 1;
        self.previous = Some((step, target.clone()));
        Ok((results, lbr))
    }
}
