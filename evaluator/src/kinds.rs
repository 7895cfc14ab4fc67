//! Exact NashConv of the learner's policy kinds (θ, θ_target, θ_target
//! post-processed, θ_reg, the average of θ_target's policy and the averaged
//! network), shared by
//! the local run and `rnad-evaluator watch`.

use std::sync::Arc;

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::{PublicTree, PublicTreeError};
use rnad_games::Game;
use rnad_net::{NetShape, ParamSet, PublishedSets};
use rnad_run::history::{NashConvs, PolicyKind};

use crate::error::EvaluatorError;
use crate::neural::{
    network_policy, post_process, NetworkError, NetworkInputs, POLICY_DISCRETIZATION,
    POLICY_THRESHOLD,
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
    /// The averaged network, where the run trains one.
    pub average_network: Option<NashConvReport>,
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
        if let Some(average) = &self.average_network {
            named.push((PolicyKind::AverageNetwork.name(), average));
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
            average_network: self.average_network.as_ref().map(|r| r.nash_conv),
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
    pub fn policy(&self, params: &ParamSet) -> Result<TabularPolicy, NetworkError> {
        network_policy(&self.tree, &self.inputs, &self.shape, params)
    }

    /// The post-processed policy of the target parameters: what the
    /// learner's policy plays (see [`post_process`]).
    pub fn target_postprocessed(&self, target: &ParamSet) -> Result<TabularPolicy, EvaluatorError> {
        let policy = self
            .policy(target)
            .map_err(|source| EvaluatorError::Network {
                kind: PolicyKind::Target,
                source,
            })?;
        Ok(self.post_processed(&policy))
    }

    fn post_processed(&self, policy: &TabularPolicy) -> TabularPolicy {
        let choices = self.inputs.choices(&self.shape);
        post_process(
            &self.tree,
            choices,
            policy,
            POLICY_THRESHOLD,
            POLICY_DISCRETIZATION,
        )
    }

    /// Evaluates every policy kind exactly: one batched forward pass per
    /// parameter set, then the best responses. With `average` (the run's
    /// average and the learner step evaluated), the target policy joins
    /// the average and the average is evaluated too; with
    /// `average_network`, so is that network.
    pub fn evaluate(
        &self,
        kinds: PublishedSets,
        average: Option<(&mut PolicyAverage, u64)>,
        average_network: Option<&ParamSet>,
    ) -> Result<KindReports, EvaluatorError> {
        let tree = &self.tree;
        let policy = |kind: PolicyKind, params: &ParamSet| {
            self.policy(params)
                .map_err(|source| EvaluatorError::Network { kind, source })
        };
        let target_policy = policy(PolicyKind::Target, kinds.target)?;
        let online_policy = policy(PolicyKind::Online, kinds.online)?;
        let reg_policy = policy(PolicyKind::Reg, kinds.reg)?;
        let processed = self.post_processed(&target_policy);
        let average_network = average_network
            .map(|params| policy(PolicyKind::AverageNetwork, params))
            .transpose()?;
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
            average_network: average_network.map(|p| nash_conv(tree, &p)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_with_non_finite_parameters_or_outputs_is_refused_naming_its_kind() {
        let run = rnad_testkit::TestConfig::file("kuhn").resolve();
        let shape = run.shape().clone();
        let evaluator = KindEvaluator::new(run.game().clone(), shape.clone()).unwrap();
        let good = ParamSet::init(&shape, 0).unwrap();
        let mut tensors = good.tensors().to_vec();
        tensors[0] = (tensors[0].ones_like().unwrap() * f64::NAN).unwrap();
        let diverged = ParamSet::from_tensors(tensors);
        let sets = PublishedSets {
            online: &diverged,
            target: &good,
            reg: &good,
        };
        // A NaN first-layer weight: the ReLU after it hides the NaN from
        // the outputs (this network plays uniformly), so only the check of
        // the parameters sees it.
        let error = evaluator
            .evaluate(sets, None, None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "policy online: the network's parameter torso.0.weight is not finite: its parameters diverged"
        );
        // Weights large enough to overflow the outputs are finite
        // themselves: the check of the policy sees them.
        let huge: Vec<_> = good.tensors().iter().map(|t| (t * 1e30).unwrap()).collect();
        let overflowing = ParamSet::from_tensors(huge);
        let sets = PublishedSets {
            online: &good,
            target: &good,
            reg: &overflowing,
        };
        let error = evaluator
            .evaluate(sets, None, None)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("policy reg: the network's policy is not finite at "),
            "{error}"
        );
        let fine = PublishedSets {
            online: &good,
            target: &good,
            reg: &good,
        };
        assert!(evaluator.evaluate(fine, None, None).is_ok());
    }
}
