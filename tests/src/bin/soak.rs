//! `rnad-soak`: the distributed stack left running, with actors killed and
//! replaced every few minutes, sampled for what grows.
//!
//! Starts `rnad-learner serve` on the given config, `rnad-evaluator watch`
//! (its history in the learner's run directory) and `--actors` actors
//! without seeds; every `--kill-every` seconds it kills one actor with
//! SIGKILL and starts a new one. Every `--sample-every` seconds it records
//! the learner's and evaluator's resident memory and open descriptors, the
//! run directory's size (checkpoints apart from the rest), the learner's
//! step, queue depth and open connections into a CSV file. At the end it
//! stops everything with SIGTERM and prints a summary comparing the end of
//! the warm-up with the rest of the run, which it also writes as JSON next
//! to the CSV.
//!
//! ```sh
//! cargo build --release --workspace
//! target/release/rnad-soak --minutes 30 --out target/soak
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rnad_testkit::{
    free_port, local, open_files, resident_bytes, sample, scrape, send_signal, workspace, Launch,
    Process,
};

/// What one run of the soak does.
struct Options {
    minutes: f64,
    warmup_minutes: f64,
    actors: usize,
    kill_every: Duration,
    sample_every: Duration,
    config: PathBuf,
    out: PathBuf,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        minutes: 30.0,
        warmup_minutes: 5.0,
        actors: 4,
        kill_every: Duration::from_secs(180),
        sample_every: Duration::from_secs(10),
        config: workspace().join("configs/leduc.toml"),
        out: workspace().join("target/soak"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("{flag} {text}: expected a positive number"))
        };
        match flag.as_str() {
            "--minutes" => options.minutes = number(value()?)?,
            "--warmup-minutes" => options.warmup_minutes = number(value()?)?,
            "--actors" => options.actors = number(value()?)? as usize,
            "--kill-every" => options.kill_every = Duration::from_secs_f64(number(value()?)?),
            "--sample-every" => options.sample_every = Duration::from_secs_f64(number(value()?)?),
            "--config" => options.config = PathBuf::from(value()?),
            "--out" => options.out = PathBuf::from(value()?),
            "--help" | "-h" => {
                return Err("usage: rnad-soak [--minutes 30] [--warmup-minutes 5] [--actors 4] \
                    [--kill-every 180] [--sample-every 10] [--config configs/leduc.toml] [--out target/soak]"
                    .into())
            }
            other => return Err(format!("unknown argument {other}; see --help")),
        }
    }
    if options.actors == 0 || options.warmup_minutes >= options.minutes {
        return Err("--actors must be at least 1 and --warmup-minutes below --minutes".into());
    }
    Ok(options)
}

/// Bytes of every file under `dir`, and of those under `dir/checkpoints`.
fn dir_size(dir: &Path) -> (u64, u64) {
    fn walk(dir: &Path, total: &mut u64) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.metadata() {
                Ok(m) if m.is_dir() => walk(&path, total),
                Ok(m) => *total += m.len(),
                Err(_) => {}
            }
        }
    }
    let (mut all, mut checkpoints) = (0, 0);
    walk(dir, &mut all);
    walk(&dir.join("checkpoints"), &mut checkpoints);
    (all, checkpoints)
}

/// One row of the CSV.
struct Row {
    seconds: f64,
    learner_rss: u64,
    learner_fds: usize,
    evaluator_rss: u64,
    evaluator_fds: usize,
    run_dir_bytes: u64,
    checkpoint_bytes: u64,
    step: f64,
    queue_depth: f64,
    connections: f64,
    actor_kills: usize,
}

const HEADER: &str = "seconds,learner_rss_bytes,learner_fds,evaluator_rss_bytes,evaluator_fds,run_dir_bytes,checkpoint_bytes,other_bytes,learner_step,queue_depth,connections,actor_kills";

impl Row {
    fn csv(&self) -> String {
        format!(
            "{:.1},{},{},{},{},{},{},{},{},{},{},{}",
            self.seconds,
            self.learner_rss,
            self.learner_fds,
            self.evaluator_rss,
            self.evaluator_fds,
            self.run_dir_bytes,
            self.checkpoint_bytes,
            self.run_dir_bytes - self.checkpoint_bytes,
            self.step,
            self.queue_depth,
            self.connections,
            self.actor_kills
        )
    }
}

fn start_actor(dir: &Path, port: u16, index: usize) -> Process {
    Process::launch(
        "rnad-actor",
        &["--learner", &local(port), "--games", "64"],
        &dir.join(format!("actor-{index}.log")),
        &Launch::default(),
    )
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("rnad-soak: {message}");
            std::process::exit(2);
        }
    };
    rnad_process::logging::init(rnad_process::logging::LogFormat::Text);
    let dir = options.out.clone();
    let run = dir.join("run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (port, metrics) = (free_port(), free_port());
    let mut learner = Process::start(
        "rnad-learner",
        &[
            "serve",
            "--config",
            options.config.to_str().unwrap(),
            "--listen",
            &local(port),
            "--metrics",
            &local(metrics),
            "--run-dir",
            run.to_str().unwrap(),
        ],
        &dir.join("learner.log"),
    );
    let mut evaluator = Process::start(
        "rnad-evaluator",
        &[
            "watch",
            "--learner",
            &local(port),
            "--history",
            run.join("history.jsonl").to_str().unwrap(),
        ],
        &dir.join("evaluator.log"),
    );
    let mut actors: Vec<Process> = (0..options.actors)
        .map(|i| start_actor(&dir, port, i))
        .collect();
    let mut started_actors = options.actors;
    let mut kills = 0;
    let csv_path = dir.join("soak.csv");
    let mut csv = std::fs::File::create(&csv_path).unwrap();
    writeln!(csv, "{HEADER}").unwrap();
    tracing::info!(
        "soak: {} minutes, {} actors (one replaced every {:?}), samples every {:?} into {}",
        options.minutes,
        options.actors,
        options.kill_every,
        options.sample_every,
        csv_path.display()
    );
    let started = Instant::now();
    let end = Duration::from_secs_f64(options.minutes * 60.0);
    let mut next_kill = options.kill_every;
    let mut rows = Vec::new();
    while started.elapsed() < end {
        std::thread::sleep(options.sample_every);
        // No replacement in the last interval: a process signalled before
        // it installs its handlers dies of the signal, which says nothing.
        if started.elapsed() >= next_kill && started.elapsed() + options.kill_every < end {
            let victim = kills % actors.len();
            actors[victim].signal(libc::SIGKILL);
            actors[victim] = start_actor(&dir, port, started_actors);
            started_actors += 1;
            kills += 1;
            next_kill += options.kill_every;
        }
        let page = scrape(metrics).unwrap_or_default();
        let (run_dir_bytes, checkpoint_bytes) = dir_size(&run);
        let row = Row {
            seconds: started.elapsed().as_secs_f64(),
            learner_rss: resident_bytes(learner.pid()),
            learner_fds: open_files(learner.pid()),
            evaluator_rss: resident_bytes(evaluator.pid()),
            evaluator_fds: open_files(evaluator.pid()),
            run_dir_bytes,
            checkpoint_bytes,
            step: sample(&page, "rnad_learner_step").unwrap_or(f64::NAN),
            queue_depth: sample(&page, "rnad_learner_queue_depth").unwrap_or(f64::NAN),
            connections: sample(&page, "rnad_learner_connections").unwrap_or(f64::NAN),
            actor_kills: kills,
        };
        writeln!(csv, "{}", row.csv()).unwrap();
        csv.flush().unwrap();
        tracing::info!("{}", row.csv());
        rows.push(row);
    }
    for process in actors.iter().chain([&evaluator, &learner]) {
        send_signal(process.pid(), libc::SIGTERM);
    }
    for process in actors.iter_mut().chain([&mut evaluator, &mut learner]) {
        let status = process.wait(Duration::from_secs(120));
        if !status.success() {
            tracing::warn!(
                "a process exited with {status} on SIGTERM: see its log in {}",
                dir.display()
            );
        }
    }
    let summary = summarise(&rows, options.warmup_minutes * 60.0);
    let summary_path = dir.join("summary.json");
    std::fs::write(&summary_path, &summary).unwrap();
    println!("{summary}");
    tracing::info!("summary written to {}", summary_path.display());
}

/// How a summarised quantity is read off a row.
type Column = fn(&Row) -> f64;

/// For each quantity: its value at the end of the warm-up, its largest
/// after it, and its last; as JSON.
fn summarise(rows: &[Row], warmup_seconds: f64) -> String {
    let after: Vec<&Row> = rows
        .iter()
        .filter(|r| r.seconds >= warmup_seconds)
        .collect();
    let Some(first) = after.first() else {
        return "{\"error\": \"no samples after the warm-up\"}".into();
    };
    let last = after.last().unwrap();
    let columns: [(&str, Column); 8] = [
        ("learner_rss_bytes", |r| r.learner_rss as f64),
        ("learner_fds", |r| r.learner_fds as f64),
        ("evaluator_rss_bytes", |r| r.evaluator_rss as f64),
        ("evaluator_fds", |r| r.evaluator_fds as f64),
        ("checkpoint_bytes", |r| r.checkpoint_bytes as f64),
        ("other_run_dir_bytes", |r| {
            (r.run_dir_bytes - r.checkpoint_bytes) as f64
        }),
        ("queue_depth", |r| r.queue_depth),
        ("connections", |r| r.connections),
    ];
    let mut fields = vec![
        format!("\"samples\": {}", rows.len()),
        format!("\"seconds\": {:.0}", last.seconds),
        format!("\"warmup_seconds\": {warmup_seconds:.0}"),
        format!("\"actor_kills\": {}", last.actor_kills),
        format!("\"learner_steps\": {}", last.step),
    ];
    for (name, get) in columns {
        let max = after
            .iter()
            .map(|r| get(r))
            .fold(f64::NEG_INFINITY, f64::max);
        fields.push(format!(
            "\"{name}\": {{\"after_warmup\": {}, \"max_after_warmup\": {max}, \"last\": {}}}",
            get(first),
            get(last)
        ));
    }
    format!("{{\n  {}\n}}", fields.join(",\n  "))
}
