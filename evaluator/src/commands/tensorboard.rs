//! `rnad-evaluator tensorboard`: a run directory's `training.jsonl`,
//! `history.jsonl` and `best_response.jsonl` as TensorBoard event files,
//! once or following the run as it goes (`--follow`, until
//! SIGINT/SIGTERM).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use rnad_process::shutdown::Shutdown;

use super::emit;
use crate::error::EvaluatorError;
use crate::tensorboard::EventStream;

/// Arguments of `tensorboard`.
#[derive(Debug, Args)]
pub struct TensorboardArgs {
    /// The run directory (training.jsonl, history.jsonl,
    /// best_response.jsonl).
    pub run: PathBuf,
    /// Where the event files go: OUT/training, OUT/evaluation and
    /// OUT/best_response, three runs to TensorBoard (`tensorboard --logdir
    /// OUT`; the last where the run learns best responses). Default:
    /// RUN/tensorboard. Each conversion writes new event files and removes
    /// the ones it wrote before (`events.out.tfevents.*.rnad`); other files
    /// there are left alone.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep following the files as the run writes them, until SIGINT or
    /// SIGTERM.
    #[arg(long)]
    pub follow: bool,
    /// Seconds between looks at the files when following (0.1 to 3600).
    #[arg(long, default_value_t = 5.0)]
    pub interval: f64,
}

/// Runs `tensorboard`.
pub fn run(args: &TensorboardArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if !(0.1..=3600.0).contains(&args.interval) {
        return Err(EvaluatorError::Usage(format!(
            "--interval {}: must be between 0.1 and 3600 seconds",
            args.interval
        )));
    }
    if !args.run.is_dir() {
        return Err(EvaluatorError::Usage(format!(
            "{}: no such run directory",
            args.run.display()
        )));
    }
    let sources =
        ["training.jsonl", "history.jsonl", "best_response.jsonl"].map(|f| args.run.join(f));
    if !args.follow && !sources[..2].iter().any(|s| s.exists()) {
        return Err(EvaluatorError::Usage(format!(
            "{}: neither training.jsonl nor history.jsonl is there (give --follow to wait for them)",
            args.run.display()
        )));
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| args.run.join("tensorboard"));
    let [training, history, best_responses] = sources;
    let mut streams = [
        EventStream::new(training, &dir.join("training")),
        EventStream::new(history, &dir.join("evaluation")),
        EventStream::new(best_responses, &dir.join("best_response")),
    ];
    let shutdown = Shutdown::on_signals();
    loop {
        for stream in &mut streams {
            let added = stream.convert_new_lines()?;
            if added > 0 && args.follow {
                if let Some(target) = stream.target() {
                    tracing::info!("{added} events added to {}", target.display());
                }
            }
        }
        if !args.follow || shutdown.sleep(Duration::from_secs_f64(args.interval)) {
            break;
        }
    }
    for stream in &streams {
        if let Some(target) = stream.target() {
            emit(
                out,
                &format!("{} events in {}", stream.events(), target.display()),
            )?;
        }
    }
    emit(
        out,
        &format!("view with: tensorboard --logdir {}", dir.display()),
    )
}
