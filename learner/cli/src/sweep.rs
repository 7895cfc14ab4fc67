//! `rnad-learner sweep`: one experiment config run for every combination
//! of the grids' values (`--grid KEY=V1,V2`, any config key; several grids
//! give their product) and every seed, each in its own run directory named
//! by its settings, as many at once as asked, then summarised.
//!
//! Every run is a `rnad-learner local` child process on its run directory
//! (its output in `log.txt` there), so a crash stays inside one run and an
//! interrupted sweep resumes each run from its newest checkpoint when the
//! same command is given again. Runs that already reached the step budget
//! are not started again.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rnad_evaluator::experiments::group::group;
use rnad_evaluator::experiments::runs::load_run;
use rnad_evaluator::experiments::summary::write_summary;
use rnad_process::shutdown::Shutdown;
use rnad_run::config::overrides::{display_value, Grid, Override};
use rnad_run::config::Config;
use rnad_run::history::HistoryEntry;

use rnad_learner::checkpoint;

use crate::error::CliError;

/// How often the sweep looks at its children.
const POLL: Duration = Duration::from_millis(200);
/// How often it prints where the running runs are.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(30);

/// What to sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// The experiment every run starts from.
    pub base: Config,
    /// Seeds, each run once per combination of the grids.
    pub seeds: Vec<u64>,
    /// Keys and the values each takes.
    pub grids: Vec<Grid>,
    /// Learner steps per run.
    pub max_steps: u64,
    /// Where the run directories and the summary go.
    pub out: PathBuf,
    /// Runs at once.
    pub jobs: usize,
    /// The `rnad-learner` binary that runs each `local` child.
    pub program: PathBuf,
}

/// One run of a sweep: a combination of the grids' values and a seed.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// The grid values it takes, one per grid.
    pub settings: Vec<Override>,
    /// Its seed.
    pub seed: u64,
    /// Its config (run directory included).
    pub config: Config,
}

impl SweepRun {
    /// A short name: `rnad.averaging=ema seed 1`.
    pub fn name(&self) -> String {
        let mut parts: Vec<String> = self.settings.iter().map(Override::to_string).collect();
        parts.push(format!("seed {}", self.seed));
        parts.join(" ")
    }

    fn dir(&self) -> &Path {
        &self.config.run_dir
    }
}

/// Keys the sweep sets itself, refused in `--grid` and `--set`.
const RESERVED: [(&str, &str); 2] = [
    ("seed", "give seeds with --seeds"),
    (
        "run_dir",
        "the sweep names run directories after their settings",
    ),
];

/// Refuses the first of `keys`, given with `flag` (`--grid`, `--set`), that
/// the sweep sets itself, saying how to give it instead.
pub fn refuse_reserved<'a>(
    flag: &str,
    keys: impl IntoIterator<Item = &'a str>,
) -> Result<(), CliError> {
    for key in keys {
        if let Some((_, why)) = RESERVED.iter().find(|(reserved, _)| *reserved == key) {
            return Err(CliError::Usage(format!("{flag} {key}: {why}")));
        }
    }
    Ok(())
}

/// The directory of one combination under OUT: its settings joined by
/// commas (`rnad.averaging=ema,rnad.eta=0.1`), a `/` in a value written as
/// `_`; OUT itself without grids.
fn combination_dir(out: &Path, settings: &[Override]) -> PathBuf {
    if settings.is_empty() {
        return out.to_path_buf();
    }
    let name: Vec<String> = settings
        .iter()
        .map(|o| format!("{}={}", o.key, display_value(&o.value).replace('/', "_")))
        .collect();
    out.join(name.join(","))
}

/// Every combination of one value per grid, in the grids' order.
fn combinations(grids: &[Grid]) -> Vec<Vec<Override>> {
    grids.iter().fold(vec![Vec::new()], |done, grid| {
        done.iter()
            .flat_map(|prefix| {
                grid.overrides().into_iter().map(move |o| {
                    let mut next = prefix.clone();
                    next.push(o);
                    next
                })
            })
            .collect()
    })
}

/// Every run of the sweep, in `OUT/SETTINGS/seed-SEED`. A grid over a key
/// the config lacks, a value it refuses, or a directory that already holds
/// a run of a different config is an error naming the key or the first
/// setting that differs (nothing is overwritten).
pub fn plan(options: &SweepOptions) -> Result<Vec<SweepRun>, CliError> {
    refuse_reserved("--grid", options.grids.iter().map(|g| g.key.as_str()))?;
    for (index, grid) in options.grids.iter().enumerate() {
        if options.grids[..index].iter().any(|g| g.key == grid.key) {
            return Err(CliError::Usage(format!(
                "--grid {}: given twice; list all its values in one --grid",
                grid.key
            )));
        }
    }
    let mut seeds = options.seeds.clone();
    seeds.sort_unstable();
    if seeds.windows(2).any(|w| w[0] == w[1]) {
        return Err(CliError::Usage(format!(
            "--seeds {:?}: a seed is given twice",
            options.seeds
        )));
    }
    let mut runs: Vec<SweepRun> = Vec::new();
    for settings in combinations(&options.grids) {
        for &seed in &options.seeds {
            let mut config = options.base.with_overrides(&settings)?;
            config.seed = seed;
            config.run_dir = combination_dir(&options.out, &settings).join(format!("seed-{seed}"));
            config.validate()?;
            check_recorded(&config)?;
            // Two values that read the same (`0.1` and `1e-1`) would make
            // two runs share one directory.
            if let Some(twin) = runs.iter().find(|r| r.config.run_dir == config.run_dir) {
                return Err(CliError::Usage(format!(
                    "--grid: {} and {} are the same setting (one run directory, {})",
                    twin.name(),
                    settings
                        .iter()
                        .map(|o| format!("{}={}", o.key, o.raw))
                        .collect::<Vec<_>>()
                        .join(" "),
                    config.run_dir.display()
                )));
            }
            runs.push(SweepRun {
                settings: settings.clone(),
                seed,
                config,
            });
        }
    }
    Ok(runs)
}

/// Refuses a run directory whose recorded config is another experiment.
fn check_recorded(config: &Config) -> Result<(), CliError> {
    let path = config.run_dir.join("config.toml");
    if !path.exists() {
        return Ok(());
    }
    let recorded = Config::load(&path)?.settings();
    let wanted = config.settings();
    let differs = wanted
        .iter()
        .filter(|(key, _)| key.as_str() != "run_dir")
        .find(|(key, value)| recorded.get(*key) != Some(value));
    match differs {
        None => Ok(()),
        Some((key, value)) => Err(CliError::Sweep(format!(
            "{} already holds a run with {key} = {}, this sweep wants {value}; \
             choose another --out or move the directory away",
            path.display(),
            recorded.get(key).map_or("(missing)", String::as_str),
        ))),
    }
}

/// The step a run's newest checkpoint holds (0 when it has none).
pub fn reached_step(run: &SweepRun) -> Result<u64, CliError> {
    let checkpoints = checkpoint::list(&run.dir().join("checkpoints"))?;
    Ok(checkpoints
        .last()
        .and_then(|p| checkpoint::step_of(p))
        .unwrap_or(0))
}

/// How a sweep ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepOutcome {
    /// Every run reached the step budget.
    Complete,
    /// A stop was requested; the runs saved checkpoints.
    Interrupted,
}

/// Runs every run that has not reached the budget, `options.jobs` at a
/// time. A failed run, or one stopped from outside before the budget, does
/// not stop the others; it is reported at the end (with its log).
pub fn run_all(
    options: &SweepOptions,
    runs: &[SweepRun],
    shutdown: &Shutdown,
) -> Result<SweepOutcome, CliError> {
    let mut waiting = VecDeque::new();
    for run in runs {
        let step = reached_step(run)?;
        if step >= options.max_steps {
            tracing::info!("{}: done already (step {step})", run.name());
        } else {
            waiting.push_back(run);
        }
    }
    let total = waiting.len();
    let mut running: Vec<Running> = Vec::new();
    let mut unfinished = Vec::new();
    let mut last_progress = Instant::now();
    while !(waiting.is_empty() && running.is_empty()) {
        if shutdown.is_cancelled() {
            for child in &running {
                child.terminate();
            }
            for mut child in running.drain(..) {
                let _ = child.process.wait();
            }
            tracing::info!("sweep interrupted: give the same command again to resume");
            return Ok(SweepOutcome::Interrupted);
        }
        while running.len() < options.jobs {
            let Some(run) = waiting.pop_front() else {
                break;
            };
            tracing::info!(
                "[{}/{total}] starting {} in {}",
                total - waiting.len(),
                run.name(),
                run.dir().display()
            );
            running.push(Running::start(options, run)?);
        }
        // Children are looked at every POLL; a shutdown cuts the wait short.
        shutdown.sleep(POLL);
        let mut still = Vec::new();
        for mut child in running.drain(..) {
            match child.process.try_wait() {
                Ok(None) => still.push(child),
                Ok(Some(status)) if status.success() && !shutdown.is_cancelled() => {
                    // A child stopped by a signal from outside the sweep
                    // also exits 0, with a checkpoint short of the budget.
                    match reached_step(child.run) {
                        Ok(step) if step >= options.max_steps => tracing::info!(
                            "finished {} in {:.0} s",
                            child.run.name(),
                            child.started.elapsed().as_secs_f64()
                        ),
                        Ok(step) => unfinished.push(format!(
                            "{} (exited 0 at step {step} of {}, short of the budget: stopped \
                             from outside the sweep? give the same command again to resume it; \
                             see {})",
                            child.run.name(),
                            options.max_steps,
                            child.log.display()
                        )),
                        Err(error) => unfinished.push(format!(
                            "{} (exited 0, but its checkpoints cannot be read: {error})",
                            child.run.name()
                        )),
                    }
                }
                Ok(Some(_)) if shutdown.is_cancelled() => {}
                Ok(Some(status)) => unfinished.push(format!(
                    "{} ({status}; see {})",
                    child.run.name(),
                    child.log.display()
                )),
                Err(e) => return Err(CliError::io(&child.log, e)),
            }
        }
        running = still;
        if last_progress.elapsed() >= PROGRESS_INTERVAL && !running.is_empty() {
            for child in &running {
                tracing::info!("{}", child.progress(options.max_steps));
            }
            last_progress = Instant::now();
        }
    }
    if unfinished.is_empty() {
        Ok(SweepOutcome::Complete)
    } else {
        Err(CliError::Sweep(format!(
            "runs did not finish: {}",
            unfinished.join(", ")
        )))
    }
}

/// Writes `OUT/summary.md` and `OUT/summary.csv` over the sweep's runs;
/// returns their paths.
pub fn summarise(
    options: &SweepOptions,
    runs: &[SweepRun],
) -> Result<(PathBuf, PathBuf), CliError> {
    let loaded = runs
        .iter()
        .map(|run| load_run(run.dir()))
        .collect::<Result<Vec<_>, _>>()?;
    let seeds: Vec<String> = options.seeds.iter().map(u64::to_string).collect();
    let heading = format!(
        "Sweep on {}: seeds {}, {} learner steps per run",
        options.base.game,
        seeds.join(", "),
        options.max_steps
    );
    Ok(write_summary(&options.out, &group(loaded), &heading)?)
}

/// A run's child process.
struct Running<'a> {
    run: &'a SweepRun,
    process: Child,
    log: PathBuf,
    started: Instant,
}

impl<'a> Running<'a> {
    fn start(options: &SweepOptions, run: &'a SweepRun) -> Result<Running<'a>, CliError> {
        let dir = run.dir();
        std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, e))?;
        let config = dir.join("config.toml");
        std::fs::write(&config, run.config.to_toml()).map_err(|e| CliError::io(&config, e))?;
        let log = dir.join("log.txt");
        let file = File::options()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(|e| CliError::io(&log, e))?;
        let err = file.try_clone().map_err(|e| CliError::io(&log, e))?;
        let process = Command::new(&options.program)
            .arg("local")
            .arg("--run-dir")
            .arg(dir)
            .arg("--max-steps")
            .arg(options.max_steps.to_string())
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| CliError::io(&options.program, e))?;
        Ok(Running {
            run,
            process,
            log,
            started: Instant::now(),
        })
    }

    /// Asks the child to save a checkpoint and exit.
    fn terminate(&self) {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        unsafe {
            libc::kill(self.process.id() as libc::pid_t, libc::SIGTERM);
        }
    }

    /// `ema seed 1: step 12000 of 50000, NashConv target 0.41 reg 0.52`.
    fn progress(&self, max_steps: u64) -> String {
        let history = self.run.dir().join("history.jsonl");
        let last = std::fs::read_to_string(history).ok().and_then(|text| {
            text.lines()
                .rev()
                .find_map(|l| serde_json::from_str::<HistoryEntry>(l).ok())
        });
        match last {
            Some(HistoryEntry {
                learner_step,
                nash_conv: Some(n),
                ..
            }) => format!(
                "{}: evaluated at step {learner_step} of {max_steps}: NashConv target {:.4} reg {:.4}",
                self.run.name(),
                n.target,
                n.reg
            ),
            Some(e) => format!(
                "{}: evaluated head to head at step {} of {max_steps}",
                self.run.name(),
                e.learner_step
            ),
            None => format!("{}: not evaluated yet", self.run.name()),
        }
    }
}
