//! Exact NashConv of the learner's policy kinds (θ, θ_target, θ_target
//! post-processed, θ_reg, and the average of θ_target's policy), shared by
//! the local run and `rnad-evaluator watch`.

use std::sync::Arc;

use rnad_common::history::{NashConvs, PolicyKind};
use rnad_common::net::{NetShape, ParamSet, PublishedSets};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::{PublicTree, PublicTreeError};
use rnad_games::Game;

use crate::neural::{
    network_policy, post_process, NetworkInputs, POLICY_DISCRETIZATION, POLICY_THRESHOLD,
};
use crate::policy_average::PolicyAverage;
use rnad_games::exploitability::{nash_conv, NashConvReport};

/// Full reports per policy kind.
#[derive(Clone, Debug)]
pub struct KindReports {
    /// θ.
    pub online: NashConvReport,
    /// θ_target.
    pub target: NashConvReport,
    /// θ_target after the reference post-processing.
    pub target_postprocessed: NashConvReport,
    /// θ_reg.
    pub reg: NashConvReport,
    /// The moving average of θ_target's policy, where the run keeps one.
    pub target_average: Option<NashConvReport>,
}

impl KindReports {
    /// Each kind with its name as history files and metric labels write it.
    pub fn named(&self) -> Vec<(&'static str, &NashConvReport)> {
        let mut named = vec![
            (PolicyKind::Online.name(), &self.online),
            (PolicyKind::Target.name(), &self.target),
            (
                PolicyKind::TargetPostprocessed.name(),
                &self.target_postprocessed,
            ),
            (PolicyKind::Reg.name(), &self.reg),
        ];
        if let Some(average) = &self.target_average {
            named.push((PolicyKind::TargetAverage.name(), average));
        }
        named
    }

    /// Just the NashConv values.
    pub fn nash_convs(&self) -> NashConvs {
        NashConvs {
            online: self.online.nash_conv,
            target: self.target.nash_conv,
            target_postprocessed: self.target_postprocessed.nash_conv,
            reg: self.reg.nash_conv,
            target_average: self.target_average.as_ref().map(|r| r.nash_conv),
        }
    }
}

/// Exact evaluation of a game's neural policies: the public tree and the
/// network inputs of its information states, made once.
#[derive(Debug)]
pub struct KindEvaluator {
    tree: PublicTree,
    inputs: NetworkInputs,
    shape: NetShape,
}

impl KindEvaluator {
    /// An evaluator for networks of `shape` on `game`.
    pub fn new(game: Arc<dyn Game>, shape: NetShape) -> Result<KindEvaluator, PublicTreeError> {
        let tree = PublicTree::build(game)?;
        let inputs = NetworkInputs::new(&tree);
        Ok(KindEvaluator {
            tree,
            inputs,
            shape,
        })
    }

    /// The public tree.
    pub fn tree(&self) -> &PublicTree {
        &self.tree
    }

    /// The tabular policy of one parameter set.
    pub fn policy(&self, params: &ParamSet) -> candle_core::Result<TabularPolicy> {
        network_policy(&self.tree, &self.inputs, &self.shape, params)
    }

    /// The post-processed policy of the target parameters: what the
    /// learner's policy plays (see [`post_process`]).
    pub fn target_postprocessed(&self, target: &ParamSet) -> candle_core::Result<TabularPolicy> {
        Ok(self.post_processed(&self.policy(target)?))
    }

    fn post_processed(&self, policy: &TabularPolicy) -> TabularPolicy {
        post_process(&self.tree, policy, POLICY_THRESHOLD, POLICY_DISCRETIZATION)
    }

    /// Evaluates every policy kind exactly: one batched forward pass per
    /// parameter set, then the best responses. With `average` (the run's
    /// average and the learner step evaluated), the target policy joins
    /// the average and the average is evaluated too.
    pub fn evaluate(
        &self,
        kinds: PublishedSets,
        average: Option<(&mut PolicyAverage, u64)>,
    ) -> candle_core::Result<KindReports> {
        let tree = &self.tree;
        let target_policy = self.policy(kinds.target)?;
        let online_policy = self.policy(kinds.online)?;
        let reg_policy = self.policy(kinds.reg)?;
        let processed = self.post_processed(&target_policy);
        // Folded in last, once nothing can fail: an evaluation that is not
        // recorded leaves the average as it was.
        let target_average = average
            .map(|(average, step)| nash_conv(tree, &average.add(tree, step, &target_policy)));
        Ok(KindReports {
            online: nash_conv(tree, &online_policy),
            target: nash_conv(tree, &target_policy),
            target_postprocessed: nash_conv(tree, &processed),
            reg: nash_conv(tree, &reg_policy),
            target_average,
        })
    }
}
