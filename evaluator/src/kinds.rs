//! Exact NashConv of the learner's policy kinds (θ, θ_target, θ_target
//! post-processed, θ_reg), shared by the local run and `rnad-evaluator
//! watch`.

use rnad_common::history::NashConvs;
use rnad_common::net::{NetShape, ParamSet};
use rnad_common::tree::GameTree;

use crate::exploitability::{BestResponse, NashConvReport};
use crate::neural::{network_policy, post_process, POLICY_DISCRETIZATION, POLICY_THRESHOLD};

/// The parameter sets evaluated during training.
#[derive(Clone, Copy, Debug)]
pub struct PolicyKinds<'a> {
    /// θ.
    pub online: &'a ParamSet,
    /// θ_target.
    pub target: &'a ParamSet,
    /// θ_reg.
    pub reg: &'a ParamSet,
}

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
}

impl KindReports {
    /// Each kind with its name as history files and metric labels write it.
    pub fn named(&self) -> [(&'static str, &NashConvReport); 4] {
        [
            ("online", &self.online),
            ("target", &self.target),
            ("target_postprocessed", &self.target_postprocessed),
            ("reg", &self.reg),
        ]
    }

    /// Just the NashConv values.
    pub fn nash_convs(&self) -> NashConvs {
        NashConvs {
            online: self.online.nash_conv,
            target: self.target.nash_conv,
            target_postprocessed: self.target_postprocessed.nash_conv,
            reg: self.reg.nash_conv,
        }
    }
}

/// Evaluates every policy kind exactly: one batched forward pass per
/// parameter set, then the best responses.
pub fn evaluate(
    tree: &GameTree,
    shape: &NetShape,
    kinds: PolicyKinds,
) -> candle_core::Result<KindReports> {
    let mut best_response = BestResponse::new(tree);
    let target_policy = network_policy(tree, shape, kinds.target)?;
    let processed = post_process(
        tree,
        &target_policy,
        POLICY_THRESHOLD,
        POLICY_DISCRETIZATION,
    );
    Ok(KindReports {
        online: best_response.nash_conv(&network_policy(tree, shape, kinds.online)?),
        target: best_response.nash_conv(&target_policy),
        target_postprocessed: best_response.nash_conv(&processed),
        reg: best_response.nash_conv(&network_policy(tree, shape, kinds.reg)?),
    })
}
