//! The Slurm scripts (`deploy/slurm`) run for real on one machine, with
//! stand-ins for `srun`, `scontrol` and `sbatch` (`tests/slurm-shim`) that
//! run every step as local processes on 127.0.0.1 (and, like srun, kill a
//! step's tasks when srun gets SIGTERM): a job trains; Slurm's SIGUSR1
//! before the time limit makes the learner checkpoint and the job requeue
//! itself; the requeued job resumes, and a SIGTERM to the whole batch step
//! (preemption, `scancel --batch --signal=TERM`) checkpoints without a
//! requeue; the next start ends at its step budget. A sweep runs as a job
//! array, one run a task, and the last task writes the summary; a task
//! signalled at its time limit checkpoints and requeues itself.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use rnad_testkit::{bin_dir, free_port, history, sample, scrape, scratch, wait_for, workspace};
use rnad_tests::cluster::{self, kuhn_config, newest_checkpoint, LONG, SHORT};

/// `PATH` with the stand-ins first, then the workspace's binaries.
fn shim_path() -> String {
    format!(
        "{}:{}:{}",
        workspace().join("tests/slurm-shim").display(),
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A batch script running as Slurm would start it, its output in a log;
/// killed with everything it started if the test ends first.
struct BatchJob {
    child: Child,
    log: PathBuf,
}

impl BatchJob {
    fn start(script: &str, args: &[&str], env: &[(&str, String)], log: &Path) -> BatchJob {
        let out = std::fs::File::create(log).unwrap();
        let child = Command::new("bash")
            .arg(workspace().join(script))
            .args(args)
            .env("PATH", shim_path())
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .current_dir(workspace())
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            // Its own process group, so that a failed test can end every
            // step it started.
            .process_group(0)
            .spawn()
            .unwrap();
        BatchJob {
            child,
            log: log.to_path_buf(),
        }
    }

    fn output(&self) -> String {
        text_of(&self.log)
    }

    /// Slurm's `--signal=B:USR1@...`: SIGUSR1 to the batch shell alone.
    fn time_limit_is_near(&self) {
        // SAFETY: kill(2) on our own child's pid has no memory effects.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGUSR1) };
    }

    /// `scancel --batch --signal=TERM`, or preemption: SIGTERM to the
    /// batch shell and every process it started.
    fn terminate_the_batch_step(&self) {
        // SAFETY: as above, on the group the child leads.
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGTERM) };
    }

    fn wait(&mut self, timeout: Duration) -> ExitStatus {
        let (child, log) = (&mut self.child, &self.log);
        wait_for(
            "the job to end",
            timeout,
            || child.try_wait().unwrap(),
            || text_of(log),
        )
    }
}

impl Drop for BatchJob {
    fn drop(&mut self) {
        // SAFETY: as above, on the group the child leads.
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The environment of job 42 on two nodes, the first 127.0.0.1.
fn job_env(dir: &Path, config: &Path, port: u16, metrics: [u16; 3]) -> Vec<(&'static str, String)> {
    vec![
        ("SLURM_JOB_ID", "42".into()),
        ("SLURM_JOB_NAME", "rnad".into()),
        ("SLURM_JOB_NODELIST", "127.0.0.1,node2".into()),
        ("SLURM_SUBMIT_DIR", dir.display().to_string()),
        shim_log_env(dir),
        ("RNAD_CONFIG", config.display().to_string()),
        ("RNAD_RUN_DIR", dir.join("run").display().to_string()),
        ("RNAD_PORT", port.to_string()),
        ("RNAD_LISTEN_HOST", "127.0.0.1".into()),
        ("RNAD_METRICS", "1".into()),
        (
            "RNAD_METRICS_PORTS",
            metrics.map(|p| p.to_string()).join(","),
        ),
    ]
}

/// A file's text, empty while it does not exist.
fn text_of(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Where the stand-ins log the steps, submissions and requeues of a
/// test's jobs: `dir/slurm.log`, named by `SLURM_SHIM_LOG`.
fn shim_log_env(dir: &Path) -> (&'static str, String) {
    (
        "SLURM_SHIM_LOG",
        dir.join("slurm.log").display().to_string(),
    )
}

fn slurm_log(dir: &Path) -> String {
    text_of(&dir.join("slurm.log"))
}

#[test]
fn a_job_checkpoints_at_the_time_limit_requeues_resumes_and_ends_at_its_budget() {
    let dir = scratch("slurm-job");
    let config = kuhn_config(&dir);
    let port = free_port();
    let metrics = [free_port(), free_port(), free_port()];
    let env = job_env(&dir, &config, port, metrics);
    let mut job = BatchJob::start(
        "deploy/slurm/rnad.sbatch",
        &[],
        &env,
        &dir.join("job-1.log"),
    );

    // Training, with the actor feeding the learner over the token.
    wait_for(
        "the learner past step 300",
        LONG,
        || {
            scrape(metrics[0])
                .and_then(|t| sample(&t, "rnad_learner_step"))
                .filter(|s| *s > 300.0)
        },
        || job.output(),
    );
    wait_for(
        "an evaluation in the run directory's history",
        LONG,
        || (!history(&dir.join("run/history.jsonl")).is_empty()).then_some(()),
        || job.output(),
    );
    assert!(
        scrape(metrics[1]).is_some_and(|t| t.contains("rnad_actor_")),
        "the actor's metrics"
    );
    assert!(
        scrape(metrics[2]).is_some_and(|t| t.contains("rnad_evaluator_")),
        "the evaluator's metrics"
    );
    let log = slurm_log(&dir);
    assert_eq!(
        log.matches("srun ").count(),
        1,
        "actors alone are an srun step: {log}"
    );
    assert!(
        log.contains("srun 1 x rnad-actor --learner=127.0.0.1:"),
        "{log}"
    );

    let signalled_at = learner_step(metrics[0]);
    job.time_limit_is_near();
    let status = job.wait(SHORT * 2);
    let output = job.output();
    assert!(status.success(), "{status}\n{output}");
    assert!(output.contains("the time limit is near"), "{output}");
    assert!(
        slurm_log(&dir).contains("requeue 42"),
        "{}",
        slurm_log(&dir)
    );
    let saved = newest_checkpoint(&dir.join("run/checkpoints")).expect("a checkpoint");
    assert!(
        saved >= signalled_at,
        "checkpoint {saved}, signalled at {signalled_at}"
    );

    let token = dir.join("run.token");
    let text = std::fs::read_to_string(&token).unwrap();
    assert_eq!(text.len(), 64, "{text}");
    assert!(text.bytes().all(|b| b.is_ascii_hexdigit()));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&token).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let targets: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.targets.json")).unwrap())
            .unwrap();
    let jobs: Vec<(&str, &str)> = targets
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["labels"]["job"].as_str().unwrap(),
                t["targets"][0].as_str().unwrap(),
            )
        })
        .collect();
    let wanted = [
        format!("127.0.0.1:{}", metrics[0]),
        format!("127.0.0.1:{}", metrics[2]),
        format!("node2:{}", metrics[1]),
    ];
    assert_eq!(
        jobs,
        [
            ("learner", &*wanted[0]),
            ("evaluator", &*wanted[1]),
            ("actor", &*wanted[2])
        ]
    );

    // The requeued job resumes; preempted (SIGTERM to the batch step), it
    // saves a checkpoint and is not requeued by the script.
    let mut env = env;
    env.push(("SLURM_RESTART_COUNT", "1".into()));
    let mut job = BatchJob::start(
        "deploy/slurm/rnad.sbatch",
        &[],
        &env,
        &dir.join("job-2.log"),
    );
    wait_for(
        &format!("the resumed learner past step {}", saved + 200),
        LONG,
        || (learner_step(metrics[0]) > saved + 200).then_some(()),
        || job.output(),
    );
    let signalled_at = learner_step(metrics[0]);
    job.terminate_the_batch_step();
    let status = job.wait(SHORT * 2);
    let output = job.output();
    assert!(status.success(), "{status}\n{output}");
    assert!(output.contains("(restart 1)"), "{output}");
    assert!(output.contains("resuming from"), "{output}");
    assert!(output.contains("no requeue from here"), "{output}");
    assert_eq!(
        slurm_log(&dir).matches("requeue").count(),
        1,
        "{}",
        slurm_log(&dir)
    );
    let saved = newest_checkpoint(&dir.join("run/checkpoints")).unwrap();
    assert!(
        saved >= signalled_at,
        "checkpoint {saved}, signalled at {signalled_at}"
    );

    // Started again with a budget 300 steps past the checkpoint, it ends by
    // itself there, not requeued.
    let budget = saved + 300;
    env.push(("RNAD_MAX_STEPS", budget.to_string()));
    let mut job = BatchJob::start(
        "deploy/slurm/rnad.sbatch",
        &[],
        &env,
        &dir.join("job-3.log"),
    );
    let status = job.wait(LONG);
    let output = job.output();
    assert!(status.success(), "{status}\n{output}");
    assert!(output.contains("the learner exited with 0"), "{output}");
    assert_eq!(
        slurm_log(&dir).matches("requeue").count(),
        1,
        "{}",
        slurm_log(&dir)
    );
    assert_eq!(
        newest_checkpoint(&dir.join("run/checkpoints")),
        Some(budget)
    );
    assert_eq!(
        std::fs::read_to_string(&token).unwrap(),
        text,
        "the token is kept"
    );
}

/// The learner's step from its metrics page (0 before it answers).
fn learner_step(port: u16) -> u64 {
    scrape(port)
        .and_then(|t| sample(&t, "rnad_learner_step"))
        .map_or(0, |s| s as u64)
}

/// Kuhn in lockstep, evaluated and checkpointed every 10 steps.
fn sweep_config(dir: &Path) -> PathBuf {
    cluster::kuhn()
        .lockstep()
        .evaluate_every(10)
        .checkpoint_every(10)
        .write(&dir.join("sweep.toml"))
}

#[test]
fn a_sweep_runs_as_a_job_array_and_the_last_task_summarises() {
    let dir = scratch("slurm-sweep");
    let config = sweep_config(&dir);
    let out = dir.join("out");
    let env = [shim_log_env(&dir)];
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--grid",
        "rnad.averaging=none,ema",
        "--seeds",
        "0,1",
        "--max-steps",
        "20",
        "--out",
        out.to_str().unwrap(),
    ];
    let mut submit = BatchJob::start(
        "deploy/slurm/submit-sweep.sh",
        &args,
        &env,
        &dir.join("submit.log"),
    );
    let status = submit.wait(LONG);
    let output = submit.output();
    assert!(status.success(), "{status}\n{output}");
    assert!(
        output.contains("submitting 4 runs as the array 0-3"),
        "{output}"
    );
    assert!(
        slurm_log(&dir).starts_with("sbatch --array=0-3 "),
        "{}",
        slurm_log(&dir)
    );
    assert_eq!(output.matches("sweep task ").count(), 4, "{output}");
    for variant in ["none", "ema"] {
        for seed in [0, 1] {
            let run = out.join(format!("rnad.averaging={variant}/seed-{seed}"));
            assert_eq!(
                newest_checkpoint(&run.join("checkpoints")),
                Some(20),
                "{}",
                run.display()
            );
        }
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| averaging=ema | 2 | 20 |"), "{md}");

    // Outside an array, the task script refuses.
    let mut alone = BatchJob::start(
        "deploy/slurm/sweep.sbatch",
        &args,
        &env,
        &dir.join("alone.log"),
    );
    assert_eq!(alone.wait(SHORT).code(), Some(2));
    assert!(
        alone.output().contains("runs as a job array"),
        "{}",
        alone.output()
    );
}

/// A sweep task near its time limit: the run saves a checkpoint, the
/// task exits 75 (unfinished) and requeues itself.
#[test]
fn a_sweep_task_at_its_time_limit_checkpoints_and_requeues() {
    let dir = scratch("slurm-sweep-limit");
    let config = sweep_config(&dir);
    let out = dir.join("out");
    let env = [
        shim_log_env(&dir),
        ("SLURM_JOB_ID", "9".into()),
        ("SLURM_ARRAY_JOB_ID", "8".into()),
        ("SLURM_ARRAY_TASK_ID", "1".into()),
    ];
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--seeds",
        "0,1",
        "--max-steps",
        "100000000",
        "--out",
        out.to_str().unwrap(),
    ];
    let mut task = BatchJob::start(
        "deploy/slurm/sweep.sbatch",
        &args,
        &env,
        &dir.join("task.log"),
    );
    let run = out.join("seed-1");
    wait_for(
        "the task's run to evaluate",
        LONG,
        || (history(&run.join("history.jsonl")).len() >= 3).then_some(()),
        || task.output(),
    );
    task.time_limit_is_near();
    let status = task.wait(SHORT);
    let output = task.output();
    assert_eq!(status.code(), Some(75), "{output}");
    assert!(output.contains("requeueing 8_1"), "{output}");
    assert_eq!(slurm_log(&dir).trim(), "requeue 8_1");
    assert!(newest_checkpoint(&run.join("checkpoints")).is_some_and(|s| s > 0));
    assert!(!out.join("seed-0").exists(), "task 1 runs seed 1 alone");
}

/// Both scripts ask Slurm for SIGUSR1 to the batch shell before the time
/// limit and for requeueing.
#[test]
fn the_scripts_ask_for_the_signal_and_the_requeue() {
    for script in ["deploy/slurm/rnad.sbatch", "deploy/slurm/sweep.sbatch"] {
        let text = std::fs::read_to_string(workspace().join(script)).unwrap();
        let directives: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("#SBATCH "))
            .collect();
        assert!(
            directives.contains(&"--signal=B:USR1@120"),
            "{script}: {directives:?}"
        );
        assert!(
            directives.contains(&"--requeue"),
            "{script}: {directives:?}"
        );
        assert!(
            directives.contains(&"--open-mode=append"),
            "{script}: {directives:?}"
        );
    }
}
