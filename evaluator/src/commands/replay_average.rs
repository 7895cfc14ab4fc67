//! `rnad-evaluator replay-average`: a run's `target_average` replayed from
//! its checkpoints under other horizon rules, to see whether averaging over
//! more (or less) of the run would have played better. Each checkpoint's
//! target policy joins one average per rule exactly as the run's evaluator
//! averages ([`crate::policy_average`]); every `--every` steps each
//! average's NashConv is printed as a CSV line.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rnad_games::exploitability::nash_conv;
use rnad_run::history::PolicyKind;

use super::{build_tree, emit};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::neural::NetworkInputs;
use crate::policy_average::{BadHorizonRule, HorizonRule, PolicyAverage};

/// Arguments of `replay-average`.
#[derive(Debug, Args)]
pub struct ReplayAverageArgs {
    /// A directory of one run's `checkpoint-STEP.safetensors` (a run keeps
    /// only its last few: copy them out while it runs, or raise
    /// checkpoint.keep).
    #[arg(long)]
    pub checkpoints: PathBuf,
    /// Print each average's NashConv at every multiple of this many steps.
    #[arg(long)]
    pub every: u64,
    /// NeuRD's threshold whose held actions are dropped. Default: the
    /// run's rnad.beta_neurd.
    #[arg(long)]
    pub beta: Option<f64>,
    /// Horizon rules: H (min(H, s/2), the run's own rule), H/Q (min(H,
    /// s/Q)) or half (s/2), where s is the steps averaged so far.
    #[arg(default_values_t = ["20000".to_string(), "50000".into(), "100000".into(), "half".into()])]
    pub rules: Vec<String>,
}

/// Runs `replay-average`.
pub fn run(args: &ReplayAverageArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if args.every == 0 {
        return Err(EvaluatorError::Usage("--every 0: must be positive".into()));
    }
    let rules: Vec<HorizonRule> = args
        .rules
        .iter()
        .map(|r| {
            r.parse()
                .map_err(|e: BadHorizonRule| EvaluatorError::Usage(e.to_string()))
        })
        .collect::<Result<_, _>>()?;
    let files =
        rnad_run::checkpoint::list(&args.checkpoints).map_err(|source| EvaluatorError::Read {
            path: args.checkpoints.clone(),
            source,
        })?;
    let Some(first) = files.first() else {
        return Err(EvaluatorError::Usage(format!(
            "{}: no checkpoint-STEP.safetensors files",
            args.checkpoints.display()
        )));
    };
    let first = CheckpointPolicies::read(first)?;
    let game = first.game().clone();
    let beta = args.beta.unwrap_or(first.config().rnad.beta_neurd);
    let tree = build_tree(&game)?;
    let inputs = NetworkInputs::new(&tree);
    let mut averages: Vec<PolicyAverage> = rules
        .iter()
        .map(|&rule| PolicyAverage::with_rule(game.clone(), rule, beta))
        .collect();
    let header: Vec<String> = args.rules.iter().map(|r| format!("h={r}")).collect();
    emit(out, &format!("step,{}", header.join(",")))?;
    for path in &files {
        let checkpoint = CheckpointPolicies::read(path)?;
        let step = checkpoint.step();
        let target = checkpoint.policy(&tree, &inputs, PolicyKind::Target)?;
        for average in &mut averages {
            average.add(&tree, step, &target);
        }
        if step % args.every == 0 {
            let values: Vec<String> = averages
                .iter()
                .map(|a| {
                    let (policy, _) = a.current(&tree).expect("a policy was added");
                    format!("{:.4}", nash_conv(&tree, &policy).nash_conv)
                })
                .collect();
            emit(out, &format!("{step},{}", values.join(",")))?;
        }
    }
    Ok(())
}
