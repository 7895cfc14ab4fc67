//! A learner checkpoint's policies as tabular policies over its game's
//! public tree: what `eval --checkpoint`, `export` and checkpoint players in
//! matches read. Besides its networks' policies, a checkpoint of a run that
//! keeps an average of its target policy gives that average.

use std::path::Path;

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use rnad_net::{NetShape, ParamSet};
use rnad_run::checkpoint::CheckpointFile;
use rnad_run::config::Config;
use rnad_run::history::PolicyKind;
use rnad_run::ResolvedRun;

use crate::error::EvaluatorError;
use crate::network_player::{NetworkPlayer, NetworkValue};
use crate::neural::{
    network_policy, post_process, NetworkInputs, POLICY_DISCRETIZATION, POLICY_THRESHOLD,
};
use crate::policy_average::PolicyAverage;

/// A checkpoint with the run it was trained in.
#[derive(Debug)]
pub struct CheckpointPolicies {
    file: CheckpointFile,
    run: ResolvedRun,
}

impl CheckpointPolicies {
    /// Reads and checks a checkpoint file.
    pub fn read(path: &Path) -> Result<CheckpointPolicies, EvaluatorError> {
        let file = CheckpointFile::read(path)?;
        let run = ResolvedRun::new(file.config()?)?;
        Ok(CheckpointPolicies { file, run })
    }

    /// The config it was trained under.
    pub fn config(&self) -> &Config {
        self.run.config()
    }

    /// The game it was trained on.
    pub fn game(&self) -> &GameSpec {
        &self.run.config().game
    }

    /// The shape of its networks.
    pub fn shape(&self) -> &NetShape {
        self.run.shape()
    }

    /// The learner step it was written at.
    pub fn step(&self) -> u64 {
        self.file.meta.step
    }

    /// Refuses a tree of another game than the checkpoint's.
    pub fn check_game(&self, tree: &PublicTree) -> Result<(), EvaluatorError> {
        if self.game() == tree.spec() {
            return Ok(());
        }
        Err(EvaluatorError::Usage(format!(
            "{}: the checkpoint is for {}, not {}",
            self.file.path.display(),
            self.game(),
            tree.spec()
        )))
    }

    /// The policy of `kind` at every information state of `tree` (the
    /// checkpoint's game): one batched forward pass over `inputs`, for
    /// `target_postprocessed` the reference post-processing of θ_target, and
    /// for `target_average` the average whose running sums it holds.
    pub fn policy(
        &self,
        tree: &PublicTree,
        inputs: &NetworkInputs,
        kind: PolicyKind,
    ) -> Result<TabularPolicy, EvaluatorError> {
        self.check_game(tree)?;
        let shape = self.run.shape();
        let Some(params) = self.network_params(shape, kind)? else {
            return self.target_average(tree);
        };
        let policy = network_policy(tree, inputs, shape, &params)
            .map_err(|source| EvaluatorError::Network { kind, source })?;
        Ok(if kind == PolicyKind::TargetPostprocessed {
            let choices = inputs.choices(shape);
            post_process(
                tree,
                choices,
                &policy,
                POLICY_THRESHOLD,
                POLICY_DISCRETIZATION,
            )
        } else {
            policy
        })
    }

    /// The network of `kind` as a player that decides state by state, for
    /// `game` (the checkpoint's, or the same game played in another match
    /// setting: a Daihinmin series' network plays single games and
    /// matches) when it is too large for a public tree; `target_average`
    /// needs the tree, and is refused saying so.
    pub fn network_player(
        &self,
        game: &GameSpec,
        kind: PolicyKind,
    ) -> Result<NetworkPlayer, EvaluatorError> {
        if !self.game().plays_as(game) {
            return Err(EvaluatorError::Usage(format!(
                "{}: the checkpoint is for {}, not {game}",
                self.file.path.display(),
                self.game()
            )));
        }
        let shape = self.run.shape();
        let Some(params) = self.network_params(shape, kind)? else {
            return Err(EvaluatorError::Usage(format!(
                "{}: {kind} averages over every information state of a public tree, which {game} \
                 is too large for: play online, target, target_postprocessed, reg or average_network",
                self.file.path.display()
            )));
        };
        NetworkPlayer::new(shape, &params, kind == PolicyKind::TargetPostprocessed)
            .map_err(|source| EvaluatorError::Network { kind, source })
    }

    /// The network of `kind` (any but `target_average`, which is no
    /// network): its shape and parameters, to start another network from.
    pub fn network(&self, kind: PolicyKind) -> Result<(NetShape, ParamSet), EvaluatorError> {
        let shape = self.run.shape();
        match self.network_params(shape, kind)? {
            Some(params) => Ok((shape.clone(), params)),
            None => Err(EvaluatorError::Usage(format!(
                "{}: {kind} is an average over a public tree, not a network",
                self.file.path.display()
            ))),
        }
    }

    /// Whether the run trained an averaged network and the checkpoint
    /// holds it.
    pub fn has_average_network(&self) -> bool {
        self.file.has_params(PolicyKind::AverageNetwork.name())
    }

    /// The parameters of `kind`'s network: a published set, or the
    /// averaged network (refused where the run trained none); none for
    /// `target_average`, which is no network.
    fn network_params(
        &self,
        shape: &NetShape,
        kind: PolicyKind,
    ) -> Result<Option<ParamSet>, EvaluatorError> {
        let name = match (kind, kind.published_set()) {
            (_, Some(set)) => set.name(),
            (PolicyKind::AverageNetwork, None) => {
                if !self.has_average_network() {
                    return Err(EvaluatorError::Usage(format!(
                        "{}: the checkpoint holds no {kind}: its run trained none \
                         (average_network.reservoir_size = 0)",
                        self.file.path.display()
                    )));
                }
                kind.name()
            }
            (_, None) => return Ok(None),
        };
        Ok(Some(self.file.params(shape, name)?))
    }

    /// The value head of the target network, in chips, for `game` (the
    /// checkpoint's): the control variate's value function.
    pub fn network_value(&self, game: &GameSpec) -> Result<NetworkValue, EvaluatorError> {
        let network = self.network_player(game, PolicyKind::Target)?;
        Ok(NetworkValue::new(
            network,
            self.run.config().rnad.reward_scale,
        ))
    }

    /// The `target_average` policy as it was when the checkpoint was
    /// written, from the running sums it holds.
    fn target_average(&self, tree: &PublicTree) -> Result<TabularPolicy, EvaluatorError> {
        let refuse =
            |why: String| EvaluatorError::Usage(format!("{}: {why}", self.file.path.display()));
        let saved = self.file.saved_average()?.ok_or_else(|| {
            refuse(format!(
                "the checkpoint holds no {}: its run kept none (evaluation.average_horizon_steps = 0), \
                 or it was written before checkpoints kept it; the run writes the latest to \
                 RUN_DIR/target_average.json",
                PolicyKind::TargetAverage
            ))
        })?;
        let counters = &saved.counters;
        let mut average = PolicyAverage::new(
            self.run.config().game.clone(),
            counters.horizon_steps,
            counters.beta,
        );
        average
            .restore(tree, saved)
            .map_err(|why| refuse(format!("its target_average is unusable: {why}")))?;
        let (policy, _) = average.current(tree).expect("a restored average has sums");
        Ok(policy)
    }
}
