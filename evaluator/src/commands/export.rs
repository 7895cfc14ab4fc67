//! `rnad-evaluator export`: a checkpoint's policy as a tabular policy file
//! in OpenSpiel's JSON format, so a trained policy can leave the project
//! (OpenSpiel, other evaluators, `match --players policy:FILE`).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rnad_run::history::PolicyKind;

use super::{build_tree, emit};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::neural::NetworkInputs;
use rnad_games::exploitability::nash_conv;
use rnad_games::policy_file::{policy_file_json, PolicyFileHeader};

use crate::output::write_json;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The learner checkpoint.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Which policy: online (θ), target (θ_target), target_postprocessed
    /// (θ_target after the reference post-processing: what the learner's
    /// policy plays), reg (θ_reg) or target_average (the run's average of
    /// the target policy when the checkpoint was written, where the run
    /// keeps one).
    #[arg(long, default_value = "target_postprocessed")]
    pub kind: PolicyKind,
    /// The policy file to write (JSON): `game`, `description`, `checkpoint`,
    /// `step`, `kind`, `nash_conv` and `policy`, the map from every
    /// information-state string to [[action, probability], ...].
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `export`.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let checkpoint = CheckpointPolicies::read(&args.checkpoint)?;
    let tree = build_tree(checkpoint.game())?;
    let inputs = NetworkInputs::new(&tree);
    let policy = checkpoint.policy(&tree, &inputs, args.kind)?;
    let report = nash_conv(&tree, &policy);
    let header = PolicyFileHeader {
        kind: args.kind.name(),
        step: checkpoint.step(),
        nash_conv: report.nash_conv,
        description: format!(
            "{} policy of rnad checkpoint {} (learner step {})",
            args.kind,
            args.checkpoint.display(),
            checkpoint.step()
        ),
    };
    let mut file = policy_file_json(&tree, &policy, header);
    file["checkpoint"] = args.checkpoint.display().to_string().into();
    write_json(&args.out, &file)?;
    emit(
        out,
        &format!(
            "wrote the {} policy of {} ({} information states, NashConv {}) to {}",
            args.kind,
            tree.spec(),
            tree.num_info_states(),
            report.nash_conv,
            args.out.display()
        ),
    )
}
