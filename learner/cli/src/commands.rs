//! The `rnad-learner` command line: its arguments, and each subcommand
//! wiring the learner library (and, for `local`, `sweep` and `bench`, the
//! actors and the evaluator) together.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::time::Duration;

use crate::error::CliError;
use crate::local::{run_local, LocalOptions};
use crate::sweep::{self, SweepOptions, SweepOutcome};
use candle_core::Device;
use clap::{Args, Parser, Subcommand};
use rnad_learner::resume::{open, OpenOptions};
use rnad_learner::serve::{run_serve, ServeOptions};
use rnad_learner::service::ServiceLimits;
use rnad_learner::training::TrainOptions;
use rnad_net::parse_device;
use rnad_process::listener::Limits;
use rnad_process::logging::LogFormat;
use rnad_process::shutdown::Shutdown;
use rnad_run::config::overrides::{Grid, Override};
use rnad_run::config::Config;
use rnad_run::ResolvedRun;
use rnad_wire::frames::FrameLimits;
use rnad_wire::handshake::Token;

/// The project's default experiment (`configs/leduc.toml`).
const DEFAULT_CONFIG: &str = include_str!("../../../configs/leduc.toml");
/// The reference settings the benchmark runs by default.
const REFERENCE_CONFIG: &str = include_str!("../../../configs/leduc-reference.toml");

/// The rnad learner: R-NaD with two-stage averaging of the regularisation
/// network.
#[derive(Debug, Parser)]
#[command(name = "rnad-learner", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log format: text or json.
    #[arg(long, global = true, env = "RNAD_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Settings given on the command line.
#[derive(Debug, Args)]
struct SetArgs {
    /// Set one config key, dotted as in the TOML file
    /// (`--set rnad.learning_rate=1e-3 --set network.hidden=[64,64]`);
    /// repeatable, applied after the file and checked like it (`rnad-learner
    /// config` lists every key).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<Override>,
}

/// How a run is opened, and where its learner computes.
#[derive(Debug, Args)]
struct RunArgs {
    /// Continue the run even though the config changes the experiment
    /// (another learning rate, say); the change is recorded, with the step
    /// it applies from, in RUN_DIR/config-changes.jsonl. Without it such a
    /// restart is refused, naming every changed key.
    #[arg(long)]
    accept_config_change: bool,
    /// Where the learner computes: cpu, cuda or cuda:N (CUDA needs a build
    /// with --features cuda).
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    device: Device,
}

impl RunArgs {
    fn options(&self) -> OpenOptions {
        OpenOptions {
            accept_config_change: self.accept_config_change,
            device: self.device.clone(),
        }
    }
}

/// What the RPC listener allows its peers.
#[derive(Debug, Args)]
struct ListenerArgs {
    /// File holding a shared token that actors and evaluators must present
    /// before anything else is read (default: the RNAD_TOKEN environment
    /// variable; no token if unset). Never logged.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Connections served at once; more are closed on arrival.
    #[arg(long, default_value_t = 256)]
    max_connections: usize,
    /// Seconds a new connection has to present the protocol version and
    /// token.
    #[arg(long, default_value_t = 10.0)]
    handshake_timeout: f64,
    /// Seconds of silence after which a connection is dropped.
    #[arg(long, default_value_t = 600.0)]
    idle_timeout: f64,
    /// Seconds one request frame may take to arrive once started (and a
    /// response to be read).
    #[arg(long, default_value_t = 60.0)]
    frame_timeout: f64,
}

impl ListenerArgs {
    fn limits(&self) -> Result<ServiceLimits, CliError> {
        let seconds = |name: &str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(CliError::Usage(format!(
                    "--{name} {value}: must be a positive number of seconds"
                )))
            }
        };
        if self.max_connections == 0 {
            return Err(CliError::Usage(
                "--max-connections 0: at least one connection must be allowed".into(),
            ));
        }
        Ok(ServiceLimits {
            connections: Limits {
                max_connections: self.max_connections,
                handshake_timeout: seconds("handshake-timeout", self.handshake_timeout)?,
                idle_timeout: seconds("idle-timeout", self.idle_timeout)?,
                frame_timeout: seconds("frame-timeout", self.frame_timeout)?,
            },
            token: Token::load(self.token_file.as_deref()).map_err(CliError::Usage)?,
        })
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Train in one process: learner, actor threads and exact evaluation.
    /// Ctrl-C or SIGTERM saves a checkpoint and exits 0; running again on
    /// the same run directory resumes.
    Local {
        /// Experiment config (TOML). Default: RUN_DIR/config.toml when
        /// resuming, else the built-in configs/leduc.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Stop when the learner reaches this step (counted across restarts).
        #[arg(long)]
        max_steps: Option<u64>,
        /// Run directory (config.toml, history.jsonl, checkpoints/);
        /// overrides the config's `run_dir`.
        #[arg(long)]
        run_dir: Option<PathBuf>,
        /// Serve the learner's, the actors' and the evaluation's metrics
        /// on this address (/metrics), e.g. 127.0.0.1:9100.
        #[arg(long)]
        metrics: Option<SocketAddr>,
        /// Where the actor threads' forward passes run: cpu, cuda or
        /// cuda:N (the games are played on the CPU either way).
        #[arg(long, default_value = "cpu", value_parser = parse_device)]
        actor_device: Device,
        #[command(flatten)]
        set: SetArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Serve actors and evaluators over tarpc and train. SIGINT/SIGTERM
    /// saves a checkpoint and exits 0; started again on the same run
    /// directory it resumes.
    Serve {
        /// Experiment config (TOML). Default: RUN_DIR/config.toml when
        /// resuming, else the built-in configs/leduc.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Address of the tarpc service, e.g. 0.0.0.0:7000.
        #[arg(long)]
        listen: SocketAddr,
        /// Address of the Prometheus endpoint (/metrics), e.g. 0.0.0.0:9100.
        #[arg(long)]
        metrics: Option<SocketAddr>,
        /// Run directory; overrides the config's `run_dir`.
        #[arg(long)]
        run_dir: Option<PathBuf>,
        /// Stop when the learner reaches this step.
        #[arg(long)]
        max_steps: Option<u64>,
        #[command(flatten)]
        set: SetArgs,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        listener: ListenerArgs,
    },
    /// Run a config for every combination of the grids' values and every
    /// seed, each in OUT/KEY=VALUE,.../seed-SEED, then write OUT/summary.md
    /// and OUT/summary.csv. Interrupted, the same command resumes every run
    /// where it stopped.
    Sweep {
        /// The experiment every run starts from (its seed, run_dir and the
        /// grids' keys are replaced).
        #[arg(long)]
        config: PathBuf,
        /// Seeds, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "0,1,2")]
        seeds: Vec<u64>,
        /// One key and its values (`--grid rnad.averaging=none,ema,am,scheduled`,
        /// `--grid network.hidden=[64,64],[128,128]`); repeatable: the runs
        /// cover the product of the grids.
        #[arg(long = "grid", value_name = "KEY=V1,V2,...")]
        grids: Vec<Grid>,
        #[command(flatten)]
        set: SetArgs,
        /// Learner steps per run.
        #[arg(long)]
        max_steps: u64,
        /// Directory of the runs and the summary.
        #[arg(long)]
        out: PathBuf,
        /// Runs at once. Default: one per core.
        #[arg(long)]
        jobs: Option<usize>,
        /// Run only the run with this index (0-based, in `--list`'s order),
        /// as one task of a scheduler's array (a Kubernetes Indexed Job,
        /// a Slurm job array); once every run has reached the budget, the
        /// task that sees it writes the summary. Stopped by a signal, it
        /// saves a checkpoint and exits 75, so that the scheduler runs the
        /// task again.
        #[arg(long, conflicts_with = "list")]
        index: Option<usize>,
        /// Print every run, one line each (its index, settings and seed, and
        /// run directory), and exit: a scheduler's array has one task per
        /// line.
        #[arg(long)]
        list: bool,
    },
    /// Measure learner steps/s, decisions/s (learner alone, one actor
    /// alone, the whole local run) and one neural-policy NashConv; write
    /// the figures as JSON.
    Bench {
        /// Experiment config. Default: the built-in
        /// configs/leduc-reference.toml (MLP 256x256, batch 256, T = 10).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Where to write the figures. Default: target/bench/learner-GAME.json.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Where the learner computes: cpu, cuda or cuda:N.
        #[arg(long, default_value = "cpu", value_parser = parse_device)]
        device: Device,
        /// Where the actor's forward passes run (the actor alone and the
        /// whole local run's actor threads): cpu, cuda or cuda:N.
        #[arg(long, default_value = "cpu", value_parser = parse_device)]
        actor_device: Device,
        #[command(flatten)]
        set: SetArgs,
    },
    /// Print the resolved config (a file, or the built-in Leduc default,
    /// with --set applied) as TOML with every key's meaning and range.
    Config {
        /// Experiment config (TOML). Default: the built-in configs/leduc.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        #[command(flatten)]
        set: SetArgs,
        /// Print every key's declaration as a Markdown table instead (the
        /// table of docs/configuration.md).
        #[arg(long, conflicts_with_all = ["config", "overrides"])]
        markdown: bool,
    },
}

/// The run's config: the file given, else the run directory's recorded
/// one, else the built-in default; then the overrides and the run
/// directory.
fn resolve_config(
    config: Option<PathBuf>,
    run_dir: Option<PathBuf>,
    overrides: &[Override],
) -> Result<Config, CliError> {
    let recorded = run_dir
        .as_ref()
        .map(|d| d.join("config.toml"))
        .filter(|p| p.exists());
    let mut resolved = match (config, recorded) {
        (Some(path), _) | (None, Some(path)) => Config::load(&path)?,
        (None, None) => Config::from_toml(DEFAULT_CONFIG, "built-in configs/leduc.toml")?,
    }
    .with_overrides(overrides)?;
    if let Some(dir) = run_dir {
        resolved.run_dir = dir;
    }
    Ok(resolved)
}

impl Cli {
    /// Runs the chosen subcommand.
    pub fn run(self) -> Result<(), CliError> {
        match self.command {
            Command::Local {
                config,
                max_steps,
                run_dir,
                metrics,
                actor_device,
                set,
                run,
            } => resolve_config(config, run_dir, &set.overrides).and_then(|config| {
                let options = LocalOptions {
                    max_steps,
                    progress: true,
                    open: run.options(),
                    metrics,
                    actor_device,
                };
                local(config, options)
            }),
            Command::Serve {
                config,
                listen,
                metrics,
                run_dir,
                max_steps,
                set,
                run,
                listener,
            } => listener.limits().and_then(|limits| {
                let options = ServeOptions {
                    listen,
                    metrics,
                    limits,
                    train: TrainOptions {
                        max_steps,
                        progress: true,
                    },
                };
                resolve_config(config, run_dir, &set.overrides)
                    .and_then(|config| serve(config, &run.options(), options))
            }),
            Command::Sweep {
                config,
                seeds,
                grids,
                set,
                max_steps,
                out,
                jobs,
                index,
                list,
            } => sweep::refuse_reserved("--set", set.overrides.iter().map(|o| o.key.as_str()))
                .and_then(|()| Ok(Config::load(&config)?.with_overrides(&set.overrides)?))
                .and_then(|base| {
                    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                    let jobs = jobs.unwrap_or(cores).max(1);
                    let options = SweepOptions {
                        base,
                        seeds,
                        grids,
                        max_steps,
                        out,
                        jobs,
                        program: std::env::current_exe().map_err(|e| CliError::io(&config, e))?,
                    };
                    let only = if list {
                        SweepPart::List
                    } else {
                        index.map_or(SweepPart::All, SweepPart::One)
                    };
                    run_sweep(options, only)
                }),
            Command::Bench {
                config,
                seconds,
                out,
                device,
                actor_device,
                set,
            } => bench(config, &set.overrides, seconds, out, &device, &actor_device),
            Command::Config {
                config,
                set,
                markdown,
            } => {
                if markdown {
                    print!("{}", rnad_run::config::describe::markdown_table());
                    Ok(())
                } else {
                    print_config(config, &set.overrides)
                }
            }
        }
    }
}

fn serve(
    config: Config,
    open_options: &OpenOptions,
    options: ServeOptions,
) -> Result<(), CliError> {
    let shutdown = Shutdown::on_signals();
    let run = ResolvedRun::new(config)?;
    let limits = FrameLimits::for_run(&run);
    let opened = open(run, open_options)?;
    let token = if options.limits.token.is_some() {
        "peers must present the token"
    } else {
        "no token required"
    };
    run_serve(
        opened,
        None,
        options,
        &shutdown,
        |bound, step| {
            let metrics = bound.metrics.map_or_else(
                || "no metrics endpoint".to_string(),
                |a| format!("metrics on http://{a}/metrics"),
            );
            tracing::info!(
                "serving on {} from step {step}, {metrics}, {token}; frames up to {:.2} MB in, {:.2} MB out",
                bound.service,
                limits.request as f64 / 1e6,
                limits.response as f64 / 1e6
            );
        },
        || {},
    )?;
    Ok(())
}

fn local(config: Config, options: LocalOptions) -> Result<(), CliError> {
    let shutdown = Shutdown::on_signals();
    let summary = run_local(ResolvedRun::new(config)?, options, &shutdown)?;
    if let Some(last) = summary.last {
        println!("step {}: {}", last.learner_step, last.describe());
    }
    Ok(())
}

/// What of a sweep one command does.
enum SweepPart {
    /// Every run, then the summary.
    All,
    /// The run of this index, then the summary if every run is done.
    One(usize),
    /// Print the runs.
    List,
}

fn run_sweep(options: SweepOptions, part: SweepPart) -> Result<(), CliError> {
    let shutdown = Shutdown::on_signals();
    let runs = sweep::plan(&options)?;
    match part {
        SweepPart::List => {
            for (index, run) in runs.iter().enumerate() {
                println!("{index}\t{}\t{}", run.name(), run.config.run_dir.display());
            }
            Ok(())
        }
        SweepPart::One(index) => run_sweep_task(&options, &runs, index, &shutdown),
        SweepPart::All => run_every_run(&options, &runs, &shutdown),
    }
}

/// One task of a scheduler's array: the run of `index`, then the summary
/// if every run has reached the budget.
fn run_sweep_task(
    options: &SweepOptions,
    runs: &[sweep::SweepRun],
    index: usize,
    shutdown: &Shutdown,
) -> Result<(), CliError> {
    let Some(run) = runs.get(index) else {
        return Err(CliError::Usage(format!(
            "--index {index}: the sweep has {} runs (0 to {}; --list shows them)",
            runs.len(),
            runs.len().saturating_sub(1)
        )));
    };
    tracing::info!("sweep run {index} of {}: {}", runs.len(), run.name());
    if sweep::run_all(options, std::slice::from_ref(run), shutdown)? == SweepOutcome::Interrupted {
        // Exit 0 would tell a scheduler this task is done.
        return Err(CliError::Unfinished(format!(
            "{} stopped short of its budget with a checkpoint; the same command resumes it",
            run.name()
        )));
    }
    for other in runs {
        let step = sweep::reached_step(other)?;
        if step < options.max_steps {
            tracing::info!(
                "{} is at step {step} of {}: the task that finishes last writes the summary",
                other.name(),
                options.max_steps
            );
            return Ok(());
        }
    }
    write_sweep_summary(options, runs)
}

/// Every run of the sweep, `options.jobs` at a time, then the summary.
fn run_every_run(
    options: &SweepOptions,
    runs: &[sweep::SweepRun],
    shutdown: &Shutdown,
) -> Result<(), CliError> {
    tracing::info!(
        "sweep: {} runs ({} combinations x {} seeds) to step {}, {} at a time, in {}",
        runs.len(),
        runs.len() / options.seeds.len().max(1),
        options.seeds.len(),
        options.max_steps,
        options.jobs,
        options.out.display()
    );
    if sweep::run_all(options, runs, shutdown)? == SweepOutcome::Interrupted {
        return Ok(());
    }
    write_sweep_summary(options, runs)
}

/// Writes the summary of `runs`, prints it and says where it is.
fn write_sweep_summary(options: &SweepOptions, runs: &[sweep::SweepRun]) -> Result<(), CliError> {
    let (md, csv) = sweep::summarise(options, runs)?;
    print!(
        "{}",
        std::fs::read_to_string(&md).map_err(|e| CliError::io(&md, e))?
    );
    tracing::info!(
        "summary written to {} and {}; draw it with: rnad-evaluator plot --runs {} --out {}/nash_conv.png",
        md.display(),
        csv.display(),
        options.out.display(),
        options.out.display()
    );
    Ok(())
}

fn bench(
    config: Option<PathBuf>,
    overrides: &[Override],
    seconds: f64,
    out: Option<PathBuf>,
    device: &Device,
    actor_device: &Device,
) -> Result<(), CliError> {
    let config = match config {
        Some(path) => Config::load(&path)?,
        None => Config::from_toml(REFERENCE_CONFIG, "built-in configs/leduc-reference.toml")?,
    }
    .with_overrides(overrides)?;
    let out =
        out.unwrap_or_else(|| PathBuf::from(format!("target/bench/learner-{}.json", config.game)));
    let scratch = std::env::temp_dir().join(format!("rnad-bench-{}", std::process::id()));
    tracing::info!(
        "benchmarking {} (hidden {:?}, batch {}), {seconds} s per measurement",
        config.game,
        config.network.hidden,
        config.rnad.batch_size
    );
    let report = crate::bench::run(
        &ResolvedRun::new(config)?,
        seconds,
        &scratch,
        device,
        actor_device,
    )?;
    let _ = std::fs::remove_dir_all(&scratch);
    let text = serde_json::to_string_pretty(&report).expect("report serialises");
    rnad_run::files::write_atomically(&out, text.as_bytes()).map_err(|e| CliError::io(&out, e))?;
    println!("{text}");
    tracing::info!("figures written to {}", out.display());
    Ok(())
}

fn print_config(config: Option<PathBuf>, overrides: &[Override]) -> Result<(), CliError> {
    let config = match config {
        Some(path) => Config::load(&path)?,
        None => Config::from_toml(DEFAULT_CONFIG, "built-in configs/leduc.toml")?,
    }
    .with_overrides(overrides)?;
    print!("{}", rnad_run::config::describe::describe(&config));
    Ok(())
}
