//! What one evaluation during training computes, in the mode the run's
//! config names (`evaluation.mode`): exact NashConv of every policy kind,
//! or the post-processed target policy against the head-to-head panel
//! (tabulated over the public tree where the game has one, state by state
//! with local best responses where it is too large: hold'em); and, every
//! `evaluation.br_interval_evaluations` (every version, in mode
//! `best_response`), a learned best response in a thread beside it.
//! The local run and `rnad-evaluator watch` both evaluate through this, so
//! their history lines mean the same.

use std::path::Path;
use std::sync::Arc;

use rnad_games::public_tree::PublicTree;
use rnad_games::{Game, GameSpec};
use rnad_run::best_response_log::BestResponseLine;
use rnad_run::checkpoint::SavedAverage;
use rnad_run::config::EvaluationMode;
use rnad_run::history::{HeadToHead, HistoryEntry, LocalBestResponse, PolicyKind};
use rnad_run::ResolvedRun;

use crate::best_response::service::{BestResponseService, Version};
use crate::error::EvaluatorError;
use crate::kinds::{KindEvaluator, KindReports};
use crate::panel::Panel;
use crate::policy_average::{PolicyAverage, SavedSums};
use crate::sampled_panel::SampledPanel;
use rnad_games::policy_file::{policy_file_json, PolicyFileHeader};
use rnad_net::{ParamSet, PublishedSets};
use serde_json::Value;

/// The evaluator of one run.
pub struct RunEvaluator {
    game: Arc<dyn Game>,
    judge: Judge,
    /// Exact mode's average of the target policy, where the config keeps
    /// one.
    average: Option<PolicyAverage>,
    /// The best-response service, where the config or the mode asks for
    /// one.
    best_response: Option<BestResponseService>,
}

/// How a run's versions are judged.
enum Judge {
    /// Exact NashConv of every kind over the public tree.
    Exact(KindEvaluator),
    /// The target, tabulated over the public tree, against the panel.
    TreePanel(KindEvaluator, Panel),
    /// The target, state by state, against the panel (and LBR).
    Sampled(SampledPanel),
    /// Nothing but the best-response service.
    Nothing,
}

impl Judge {
    /// The game's public tree, where it has one.
    fn tree(&self) -> Option<&PublicTree> {
        match self {
            Judge::Exact(kinds) | Judge::TreePanel(kinds, _) => Some(kinds.tree()),
            Judge::Sampled(_) | Judge::Nothing => None,
        }
    }
}

/// One evaluation's results.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// Exact mode: every kind's report.
    pub exact: Option<KindReports>,
    /// Head-to-head mode: the result against each opponent of the panel.
    pub head_to_head: Vec<HeadToHead>,
    /// Head-to-head mode on heads-up hold'em, every few evaluations: the
    /// local best response.
    pub lbr: Option<LocalBestResponse>,
}

impl RunEvaluator {
    /// The evaluator `run`'s config asks for, judging in `mode` (the
    /// config's `evaluation.mode`, or what a watcher was told instead);
    /// `panel_policy` joins the head-to-head panel.
    pub fn new(
        run: &ResolvedRun,
        mode: EvaluationMode,
        panel_policy: Option<&Path>,
    ) -> Result<RunEvaluator, EvaluatorError> {
        let (config, game) = (run.config(), run.game().clone());
        let every = match mode {
            EvaluationMode::BestResponse => 1,
            _ => config.evaluation.br_interval_evaluations,
        };
        let best_response = match every {
            0 => None,
            every => Some(BestResponseService::start(run, every)?),
        };
        let mut average = None;
        let judge = if mode == EvaluationMode::BestResponse {
            if panel_policy.is_some() {
                return Err(EvaluatorError::Usage(
                    "a policy file joins the head-to-head panel, which evaluation mode \
                     best_response does not play"
                        .into(),
                ));
            }
            Judge::Nothing
        } else if game.hands().is_none() {
            Self::sampled_judge(run, mode, panel_policy)?
        } else {
            let judge = Self::tree_judge(run, mode, panel_policy)?;
            let horizon = config.evaluation.average_horizon_steps;
            average = (horizon > 0)
                .then(|| PolicyAverage::new(config.game.clone(), horizon, config.rnad.beta_neurd));
            judge
        };
        Ok(RunEvaluator {
            game,
            judge,
            average,
            best_response,
        })
    }

    /// The judge of a game too large for a public tree: the panel, played
    /// state by state.
    fn sampled_judge(
        run: &ResolvedRun,
        mode: EvaluationMode,
        panel_policy: Option<&Path>,
    ) -> Result<Judge, EvaluatorError> {
        let config = run.config();
        if mode == EvaluationMode::Exact {
            return Err(EvaluatorError::Usage(format!(
                "evaluation.mode = \"exact\" walks the public tree, which {} is too \
                 large for: use \"head_to_head\"",
                config.game
            )));
        }
        if panel_policy.is_some() {
            return Err(EvaluatorError::Usage(format!(
                "a policy file joins the panel of games with a public tree, which {} is too \
                 large for",
                config.game
            )));
        }
        Ok(Judge::Sampled(SampledPanel::new(run)?))
    }

    /// The judge of a game with a public tree: exact, or the panel
    /// tabulated over the tree.
    fn tree_judge(
        run: &ResolvedRun,
        mode: EvaluationMode,
        panel_policy: Option<&Path>,
    ) -> Result<Judge, EvaluatorError> {
        let (config, game) = (run.config(), run.game().clone());
        if config.evaluation.panel_match_games > 1 {
            return Err(EvaluatorError::Usage(format!(
                "evaluation.panel_match_games plays Daihinmin's panel as matches, not {}'s: set it to 1",
                config.game
            )));
        }
        if !config.evaluation.panel_extra.is_empty() {
            return Err(EvaluatorError::Usage(format!(
                "evaluation.panel_extra joins the panel of games too large for a public tree \
                 (hold'em, Daihinmin), not {}: leave it empty",
                config.game
            )));
        }
        let kinds = KindEvaluator::new(game, run.shape().clone())?;
        Ok(match mode {
            EvaluationMode::HeadToHead => {
                let panel = Panel::new(
                    kinds.tree(),
                    panel_policy,
                    config.evaluation.deals,
                    config.seed,
                )?;
                Judge::TreePanel(kinds, panel)
            }
            EvaluationMode::Exact | EvaluationMode::BestResponse => Judge::Exact(kinds),
        })
    }

    /// The game.
    pub fn game(&self) -> &dyn Game {
        self.game.as_ref()
    }

    /// The game a sampled panel plays (the run's, or Daihinmin's matches
    /// of `evaluation.panel_match_games`); none for a judge on a public
    /// tree.
    pub fn panel_game(&self) -> Option<&GameSpec> {
        match &self.judge {
            Judge::Sampled(panel) => Some(panel.game()),
            _ => None,
        }
    }

    /// Evaluates the parameters of `version` (and the averaged network,
    /// where the run trains one and the judge is exact), and offers them
    /// to the best-response service. A sampled panel asks `stop` between
    /// games and gives up with [`EvaluatorError::Stopped`] once it says
    /// so; the exact judges and the panel on a public tree take seconds
    /// and finish.
    pub fn evaluate(
        &mut self,
        params: PublishedSets,
        average_network: Option<&ParamSet>,
        version: Version,
        stop: &dyn Fn() -> bool,
    ) -> Result<Evaluation, EvaluatorError> {
        let evaluation = self.judge(params, average_network, version.step, stop)?;
        if let Some(service) = &mut self.best_response {
            service.offer(version, params.target);
        }
        Ok(evaluation)
    }

    /// The best responses finished since the last call (none where the
    /// run learns none).
    pub fn finished_best_responses(&self) -> Vec<BestResponseLine> {
        self.best_response
            .as_ref()
            .map_or_else(Vec::new, BestResponseService::finished)
    }

    /// The judge's evaluation of `params` at learner step `step`.
    fn judge(
        &mut self,
        params: PublishedSets,
        average_network: Option<&ParamSet>,
        step: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Evaluation, EvaluatorError> {
        Ok(match &mut self.judge {
            Judge::Exact(kinds) => Evaluation {
                exact: Some(kinds.evaluate(
                    params,
                    self.average.as_mut().map(|a| (a, step)),
                    average_network,
                )?),
                head_to_head: Vec::new(),
                lbr: None,
            },
            Judge::TreePanel(kinds, panel) => {
                let policy = kinds.target_postprocessed(params.target)?;
                Evaluation {
                    exact: None,
                    head_to_head: panel.play(kinds.tree(), policy, step),
                    lbr: None,
                }
            }
            Judge::Sampled(panel) => {
                let (head_to_head, lbr) = panel.play(params.target, step, stop)?;
                Evaluation {
                    exact: None,
                    head_to_head,
                    lbr,
                }
            }
            Judge::Nothing => Evaluation {
                exact: None,
                head_to_head: Vec::new(),
                lbr: None,
            },
        })
    }

    /// Continues `previous`, the average of an earlier evaluator of this
    /// run (`watch` makes a new evaluator at every reconnect), where it
    /// was kept with the same game and settings.
    pub fn carry_over_average(&mut self, previous: Option<PolicyAverage>) {
        if let (Some(mine), Some(previous)) = (&self.average, previous) {
            if previous.same_settings(mine) {
                self.average = Some(previous);
            }
        }
    }

    /// Keeps the average's sums at the learner's last checkpoint steps,
    /// for a learner that goes back to one
    /// ([`PolicyAverage::keep_sums_at_checkpoints`]).
    pub fn keep_sums_at_checkpoints(&mut self, interval: u64) {
        if let Some(average) = &mut self.average {
            average.keep_sums_at_checkpoints(interval);
        }
    }

    /// A new learner process went on from its checkpoint at `step`: the
    /// average goes back with it ([`PolicyAverage::learner_went_back_to`]).
    pub fn learner_went_back_to(&mut self, step: u64) {
        if let Some(average) = &mut self.average {
            average.learner_went_back_to(step);
        }
    }

    /// Goes on from the average the checkpoint of learner step `step` that
    /// this run resumed from stored; where it holds none, or one that does
    /// not fit this run's settings, says so and starts afresh.
    pub fn resume_average(&mut self, saved: Option<SavedAverage>, step: u64) {
        match saved {
            Some(newest) => self.restore_average(
                SavedSums {
                    newest,
                    earlier: Vec::new(),
                },
                &format!("the checkpoint of step {step}"),
            ),
            None if self.average.is_some() && step > 0 => tracing::info!(
                "the checkpoint of step {step} holds no target_average (written before checkpoints kept it, or by a run that kept none): it starts afresh"
            ),
            None => {}
        }
    }

    /// Goes on from `saved`, the average's sums as `source` kept them,
    /// where this run keeps an average; sums that do not fit its settings
    /// are not used (it says so, and the average starts afresh). Earlier
    /// sums that are refused leave the newest standing: a learner that
    /// goes back then starts it afresh.
    pub fn restore_average(&mut self, saved: SavedSums, source: &str) {
        let (Some(tree), Some(average)) = (self.judge.tree(), self.average.as_mut()) else {
            return;
        };
        let step = saved.newest.counters.step;
        if let Err(why) = average.restore(tree, saved.newest) {
            tracing::warn!("{source}'s target_average is not used ({why}); it starts afresh");
            return;
        }
        let restored = format!("target_average goes on from {source} (newest policy: step {step}");
        if saved.earlier.is_empty() {
            tracing::info!("{restored})");
            return;
        }
        let earlier: Vec<u64> = saved.earlier.iter().map(|s| s.counters.step).collect();
        match average.restore_earlier(tree, saved.earlier) {
            Ok(()) => tracing::info!(
                "{restored}; sums kept for a learner that goes back: steps {earlier:?})"
            ),
            Err(why) => tracing::warn!(
                "{restored}), without the sums it kept for a learner that goes back ({why})"
            ),
        }
    }

    /// The average's sums, for a checkpoint.
    pub fn saved_average(&self) -> Option<SavedAverage> {
        self.average.as_ref().and_then(PolicyAverage::saved)
    }

    /// The average's sums with the earlier ones it keeps, for `watch`'s
    /// sums file.
    pub fn saved_sums(&self) -> Option<SavedSums> {
        self.average
            .as_ref()
            .and_then(PolicyAverage::saved_with_earlier)
    }

    /// The average, for a later evaluator of the run to continue.
    pub fn take_average(&mut self) -> Option<PolicyAverage> {
        self.average.take()
    }

    /// The average of the target policy (the `target_average` kind) as a
    /// policy file, with its NashConv from `evaluation`; none where the run
    /// keeps no average or nothing was evaluated.
    pub fn target_average_file(&self, evaluation: &Evaluation) -> Option<Value> {
        let tree = self.judge.tree()?;
        let report = evaluation
            .exact
            .as_ref()
            .and_then(|r| r.target_average.as_ref());
        let (report, average) = (report?, self.average.as_ref()?);
        let (policy, step) = average.current(tree)?;
        let header = PolicyFileHeader {
            kind: PolicyKind::TargetAverage.name(),
            step,
            nash_conv: report.nash_conv,
            description: format!(
                "target policy averaged over the evaluations of the last min({}, s/2) \
                 learner steps (exponentially; s: the steps averaged so far), actions held \
                 at the NeuRD threshold dropped (learner step {step})",
                average.horizon_steps()
            ),
        };
        Some(policy_file_json(tree, &policy, header))
    }
}

impl Evaluation {
    /// Whether it judged nothing (mode `best_response`): no history line.
    pub fn is_empty(&self) -> bool {
        self.exact.is_none() && self.head_to_head.is_empty() && self.lbr.is_none()
    }

    /// The history line of this evaluation.
    pub fn entry(&self, learner_step: u64, wall_seconds: f64, decisions: u64) -> HistoryEntry {
        HistoryEntry {
            learner_step,
            wall_seconds,
            decisions,
            nash_conv: self.exact.as_ref().map(KindReports::nash_convs),
            head_to_head: self.head_to_head.clone(),
            lbr: self.lbr.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Extra panel players are checked when the evaluator is made: specs
    /// that do not parse or load, and games whose panel is not played
    /// state by state, are refused naming the key.
    #[test]
    fn extra_panel_players_are_refused_where_they_cannot_play() {
        let holdem = rnad_testkit::TestConfig::file("holdem").build();
        for (spec, said) in [
            ("nonsense:1", "evaluation.panel_extra: \"nonsense:1\""),
            (
                "gain:/nonexistent/gen1.safetensors",
                "/nonexistent/gen1.safetensors",
            ),
        ] {
            let mut config = holdem.clone();
            config.evaluation.panel_extra = vec![spec.into()];
            let run = ResolvedRun::new(config).unwrap();
            let error = RunEvaluator::new(&run, run.config().evaluation.mode, None)
                .err()
                .unwrap()
                .to_string();
            assert!(error.contains(said), "{spec}: {error}");
        }
        let mut leduc = rnad_testkit::TestConfig::file("leduc").build();
        leduc.evaluation.panel_extra = vec!["uniform".into()];
        let run = ResolvedRun::new(leduc).unwrap();
        let error = RunEvaluator::new(&run, run.config().evaluation.mode, None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("evaluation.panel_extra joins the panel"),
            "{error}"
        );
    }

    /// The evaluator of `config`'s run, and an untrained network for it.
    fn untrained(config: rnad_run::config::Config) -> (RunEvaluator, ParamSet) {
        let run = ResolvedRun::new(config).unwrap();
        let params = ParamSet::init(run.shape(), 3).unwrap();
        let evaluator = RunEvaluator::new(&run, run.config().evaluation.mode, None).unwrap();
        (evaluator, params)
    }

    /// A version at learner step `step`.
    fn at_step(step: u64) -> Version {
        Version {
            step,
            wall_seconds: step as f64,
            decisions: 100 * step,
        }
    }

    /// `params` as every published set.
    fn published(params: &ParamSet) -> PublishedSets<'_> {
        PublishedSets {
            online: params,
            target: params,
            reg: params,
        }
    }

    /// A Daihinmin panel of matches reports points per game (a 3-game
    /// match's points divided by 3: within a game's -2..=2 of the mean),
    /// and other games refuse panel matches naming the key.
    #[test]
    fn a_daihinmin_panel_plays_matches_and_reports_per_game() {
        let mut daihinmin = rnad_testkit::TestConfig::file("daihinmin").build();
        daihinmin.network.hidden = vec![8];
        daihinmin.evaluation.deals = 2;
        daihinmin.evaluation.panel_match_games = 3;
        let (mut evaluator, params) = untrained(daihinmin);
        assert_eq!(
            evaluator.panel_game().map(ToString::to_string),
            Some("daihinmin(games=3)".to_string())
        );
        let played = evaluator
            .evaluate(published(&params), None, at_step(1), &|| false)
            .unwrap();
        assert!(!played.head_to_head.is_empty());
        for result in &played.head_to_head {
            assert!((-2.0..=2.0).contains(&result.mean), "{result:?}");
        }
        // An untrained network loses to the default player: a per-game
        // loss, not three games' worth.
        assert!(
            played.head_to_head[0].mean < 0.0,
            "{:?}",
            played.head_to_head
        );
        for name in ["holdem", "leduc"] {
            let mut config = rnad_testkit::TestConfig::file(name).build();
            config.evaluation.panel_match_games = 2;
            let run = ResolvedRun::new(config).unwrap();
            let error = RunEvaluator::new(&run, run.config().evaluation.mode, None)
                .err()
                .unwrap()
                .to_string();
            assert!(
                error.contains("evaluation.panel_match_games"),
                "{name}: {error}"
            );
        }
    }

    /// A sampled panel asks its stop check after every game and gives up
    /// where it says so, leaving the panel as it was: the next evaluation
    /// has no earlier version to play, as if the stopped one never began.
    #[test]
    fn a_stopped_panel_gives_up_between_games_and_keeps_no_version() {
        let mut holdem = rnad_testkit::TestConfig::file("holdem").build();
        holdem.network.hidden = vec![8];
        holdem.evaluation.deals = 20;
        holdem.evaluation.lbr_interval_evaluations = 0;
        let (mut evaluator, params) = untrained(holdem);
        let sets = published(&params);
        let asked = std::cell::Cell::new(0);
        let after_seven_games = || {
            asked.set(asked.get() + 1);
            asked.get() >= 7
        };
        match evaluator.evaluate(sets, None, at_step(100), &after_seven_games) {
            // The first opponent's match: 20 deals in two seatings.
            Err(EvaluatorError::Stopped(stopped)) => {
                assert_eq!((stopped.finished, stopped.planned), (7, 40))
            }
            other => panic!("not stopped: {:?}", other.err()),
        }
        let played = evaluator
            .evaluate(sets, None, at_step(200), &|| false)
            .unwrap();
        let opponents: Vec<&str> = played
            .head_to_head
            .iter()
            .map(|h| h.opponent.as_str())
            .collect();
        assert_eq!(opponents, ["heuristic", "uniform"]);
        let again = evaluator
            .evaluate(sets, None, at_step(300), &|| false)
            .unwrap();
        assert_eq!(again.head_to_head.last().unwrap().opponent_step, Some(200));
    }

    /// The best responses finished by now, waiting up to a minute for
    /// `count` of them.
    fn wait_for_best_responses(evaluator: &RunEvaluator, count: usize) -> Vec<BestResponseLine> {
        let mut lines = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while lines.len() < count && std::time::Instant::now() < deadline {
            lines.extend(evaluator.finished_best_responses());
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert_eq!(
            lines.len(),
            count,
            "best responses finished within a minute"
        );
        lines
    }

    /// Beside exact evaluation on Leduc, the service takes the first
    /// version offered, learns in both seats while the evaluator goes on,
    /// and its line carries that version's step, time and decisions and
    /// the exact NashConv the exact judge found for the same policy; the
    /// learned gains stay below the exact ones and reach most of them
    /// (an untrained network is nearly uniform, the easiest to exploit).
    #[test]
    fn a_best_response_learned_beside_exact_evaluation_is_checked_against_it() {
        let mut leduc = rnad_testkit::TestConfig::file("leduc").build();
        leduc.network.hidden = vec![16];
        leduc.evaluation.br_interval_evaluations = 3;
        leduc.evaluation.br_budget_steps = 300;
        let (mut evaluator, params) = untrained(leduc);
        let first = evaluator
            .evaluate(published(&params), None, at_step(10), &|| false)
            .unwrap();
        let exact = first.exact.as_ref().unwrap().target_postprocessed.nash_conv;
        for step in [20, 30] {
            // Not their turn: every third evaluation.
            evaluator
                .evaluate(published(&params), None, at_step(step), &|| false)
                .unwrap();
        }
        let lines = wait_for_best_responses(&evaluator, 1);
        let line = &lines[0];
        assert_eq!(
            (line.learner_step, line.wall_seconds, line.decisions),
            (10, 10.0, 1000)
        );
        let r = &line.best_response;
        assert_eq!(
            (r.unit.as_str(), r.budget_steps, r.seats.len()),
            ("payoff", 300, 2)
        );
        assert!(
            (r.exact_gain.unwrap() - exact).abs() < 1e-9,
            "{r:?} vs {exact}"
        );
        for seat in &r.seats {
            let best = seat.exact_gain.unwrap();
            assert!(seat.gain <= best + 1e-9, "{seat:?}");
            assert!(seat.gain >= 0.8 * best, "{seat:?}");
            assert_eq!(seat.ci95, 0.0);
        }
        assert!((r.gain - r.seats.iter().map(|s| s.gain).sum::<f64>()).abs() < 1e-12);
        // Nothing else was taken: the next offer is the fourth evaluation.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(evaluator.finished_best_responses().is_empty());
    }

    /// In mode best_response on hold'em the evaluator judges nothing
    /// itself (no history line) and the service learns against every
    /// version it is free for, judged over sampled hands in mbb/hand.
    #[test]
    fn best_response_mode_judges_only_by_learned_best_responses() {
        let mut holdem = rnad_testkit::TestConfig::file("holdem").build();
        holdem.network.hidden = vec![8];
        holdem.evaluation.br_budget_steps = 2;
        holdem.evaluation.br_judge_episodes = 100;
        let run = ResolvedRun::new(holdem).unwrap();
        let params = ParamSet::init(run.shape(), 3).unwrap();
        let mut evaluator = RunEvaluator::new(&run, EvaluationMode::BestResponse, None).unwrap();
        let evaluation = evaluator
            .evaluate(published(&params), None, at_step(7), &|| false)
            .unwrap();
        assert!(evaluation.is_empty());
        let line = &wait_for_best_responses(&evaluator, 1)[0];
        assert_eq!(line.learner_step, 7);
        let r = &line.best_response;
        assert_eq!((r.unit.as_str(), r.seats.len()), ("mbb/hand", 2));
        assert_eq!(r.exact_gain, None);
        for seat in &r.seats {
            assert!(seat.gain.is_finite() && seat.ci95 > 0.0, "{seat:?}");
        }
        let error = RunEvaluator::new(
            &run,
            EvaluationMode::BestResponse,
            Some(Path::new("policy.json")),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(error.contains("best_response does not play"), "{error}");
    }
}
