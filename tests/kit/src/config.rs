//! The one builder of the configs tests run: a committed config file with
//! the few settings a test changes, so that no test writes its own copy of
//! "Kuhn in lockstep, evaluated every N steps".

use std::path::{Path, PathBuf};

use rnad_run::config::Config;
use rnad_run::ResolvedRun;

use crate::workspace;

/// A no-limit game small enough for a public tree whose every raise amount
/// is an action (`fullgame`), so that its raises fall into action groups
/// of one and of several amounts: one hole card each from six cards, a
/// board card, blinds 2/1 (the small blind first), stacks of 10 chips.
pub const SMALL_FULL_GAME: &str = "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,\
blind=2 1,firstPlayer=2 1,numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=10 10,\
bettingAbstraction=fullgame)";

/// A config under construction for a test.
#[derive(Clone, Debug)]
pub struct TestConfig {
    config: Config,
}

impl TestConfig {
    /// `configs/NAME.toml` as committed.
    pub fn file(name: &str) -> TestConfig {
        let path = workspace().join("configs").join(format!("{name}.toml"));
        let config =
            Config::load(&path).unwrap_or_else(|e| panic!("the committed {name}.toml: {e}"));
        TestConfig { config }
    }

    /// Kuhn poker in lockstep: one actor, played by the learner itself
    /// batch by batch with the current parameters, so that a run (and a
    /// resumed run) is reproducible bit for bit; evaluated exactly by steps
    /// only, every `evaluate_every` steps.
    pub fn kuhn_lockstep(evaluate_every: u64) -> TestConfig {
        TestConfig::file("kuhn")
            .lockstep()
            .evaluate_every(evaluate_every)
    }

    /// One actor, in lockstep with the learner.
    pub fn lockstep(mut self) -> TestConfig {
        self.config.actors.count = 1;
        self.config.actors.lockstep = true;
        self
    }

    /// Evaluated every `steps` learner steps, never by time.
    pub fn evaluate_every(mut self, steps: u64) -> TestConfig {
        self.config.evaluation.interval_seconds = 0.0;
        self.config.evaluation.interval_steps = steps;
        self
    }

    /// A checkpoint every `steps` learner steps.
    pub fn checkpoint_every(mut self, steps: u64) -> TestConfig {
        self.config.checkpoint.interval_steps = steps;
        self
    }

    /// Any other change.
    pub fn with(mut self, edit: impl FnOnce(&mut Config)) -> TestConfig {
        edit(&mut self.config);
        self
    }

    /// The config, checked as a user's would be.
    pub fn build(self) -> Config {
        self.config
            .validate()
            .unwrap_or_else(|e| panic!("a test config that does not validate: {e}"));
        self.config
    }

    /// The config, running in `run_dir`.
    pub fn in_run_dir(self, run_dir: &Path) -> Config {
        self.with(|c| c.run_dir = run_dir.to_path_buf()).build()
    }

    /// The config, resolved (its game loaded, its network's shape): what
    /// a learner, actor or evaluator is made from.
    pub fn resolve(self) -> ResolvedRun {
        ResolvedRun::new(self.build())
            .unwrap_or_else(|e| panic!("a test config that does not resolve: {e}"))
    }

    /// The config written to `path` as TOML (what `--config` reads).
    pub fn write(self, path: &Path) -> PathBuf {
        std::fs::write(path, self.build().to_toml())
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kuhn_in_lockstep_is_the_committed_kuhn_with_the_changes_named() {
        let committed = Config::load(&workspace().join("configs/kuhn.toml")).unwrap();
        let config = TestConfig::kuhn_lockstep(20).checkpoint_every(50).build();
        let mut changed: Vec<String> = config
            .changes_from(&committed)
            .into_iter()
            .map(|c| c.key)
            .collect();
        changed.sort();
        assert_eq!(
            changed,
            [
                "actors.count",
                "actors.lockstep",
                "checkpoint.interval_steps",
                "evaluation.interval_seconds",
                "evaluation.interval_steps"
            ]
        );
        assert_eq!((config.actors.count, config.actors.lockstep), (1, true));
        assert_eq!(config.evaluation.interval_seconds, 0.0);
        assert_eq!(config.evaluation.interval_steps, 20);
        assert_eq!(config.checkpoint.interval_steps, 50);
    }

    #[test]
    #[should_panic(expected = "does not validate")]
    fn a_config_that_does_not_validate_is_refused() {
        TestConfig::file("kuhn")
            .lockstep()
            .with(|c| c.actors.count = 2)
            .build();
    }
}
