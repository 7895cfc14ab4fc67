//! What a week of unattended running throws at the distributed processes,
//! each case against real processes on 127.0.0.1: floods of idle
//! connections under a descriptor limit, oversized and trickled frames, a
//! peer without the token, a checkpoint write that fails, and actors that
//! were given no seed. Every loop is bounded in count and time.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use rnad_testkit::{
    free_port, labelled, open_files, raise_open_file_limit, resident_bytes, sample, scrape,
    scratch, wait_for, Launch,
};
use rnad_tests::cluster::{
    newest_checkpoint, start_actor, start_actor_with, start_learner, start_learner_with,
    wait_for_steps, wait_for_submits, Learner, LONG, SHORT,
};
use rnad_wire::handshake::{self, Token};
use rnad_wire::PROTOCOL_VERSION;

/// Opens up to `count` TCP connections to `port` and keeps them open
/// without sending a byte.
fn idle_connections(port: u16, count: usize) -> Vec<TcpStream> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    (0..count)
        .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok())
        .collect()
}

/// The learner's `rnad_learner_refused_connections_total{reason}`.
fn refused(learner: &Learner, reason: &str) -> f64 {
    scrape(learner.metrics)
        .and_then(|t| {
            labelled(
                &t,
                "rnad_learner_refused_connections_total",
                &format!("reason=\"{reason}\""),
            )
        })
        .unwrap_or(0.0)
}

/// Under `ulimit -n 1024`, 1,100 idle connections to each listener do not
/// stop the learner: it keeps stepping and checkpointing, a new actor joins
/// and submits, a fresh scrape answers, and once the flood is gone the
/// learner holds no more descriptors than before it.
#[test]
fn floods_of_idle_connections_under_ulimit_1024_leave_the_learner_serving() {
    let limit = raise_open_file_limit(4096);
    assert!(
        limit >= 2400,
        "this test opens 2,200 connections and needs a descriptor limit of at least 2,400 (hard limit: {limit})"
    );
    let dir = scratch("operations_idle_flood");
    let launch = Launch {
        max_open_files: Some(1024),
        ..Launch::default()
    };
    let learner = start_learner_with(
        &dir,
        free_port(),
        free_port(),
        "learner.log",
        &["--handshake-timeout", "2"],
        &launch,
    );
    let (_first, _) = start_actor(&dir, learner.port, 1);
    let before = wait_for_steps(&learner, 5.0, "the learner to step");
    let baseline = open_files(learner.process.pid());

    let flood_metrics = idle_connections(learner.metrics, 1100);
    let flood_rpc = idle_connections(learner.port, 1100);
    assert!(
        flood_metrics.len() >= 1000 && flood_rpc.len() >= 1000,
        "{} and {} connections opened",
        flood_metrics.len(),
        flood_rpc.len()
    );
    let during = open_files(learner.process.pid());
    assert!(during < 1024, "{during} descriptors open during the flood");

    let after_flood = wait_for_steps(&learner, before + 100.0, "steps during the flood");
    let (second, second_metrics) = start_actor(&dir, learner.port, 2);
    wait_for_submits(second_metrics, &second);
    let checkpoints = dir.join("run/checkpoints");
    wait_for(
        "a checkpoint written during the flood",
        LONG,
        || newest_checkpoint(&checkpoints).filter(|&s| s as f64 > after_flood),
        || learner.process.stderr(),
    );
    let page = scrape(learner.metrics).expect("a fresh scrape answers during the flood");
    assert!(sample(&page, "rnad_learner_step").is_some());
    assert!(refused(&learner, "busy") >= 1.0, "{page}");
    assert_eq!(
        labelled(
            &page,
            "rnad_learner_write_failures_total",
            "file=\"checkpoint\""
        ),
        Some(0.0)
    );

    drop(flood_metrics);
    drop(flood_rpc);
    drop(second);
    let settled = wait_for(
        "the learner's descriptors to return to where they were",
        SHORT,
        || {
            let now = open_files(learner.process.pid());
            (now <= baseline).then_some(now)
        },
        || {
            format!(
                "{} descriptors, {baseline} before the flood",
                open_files(learner.process.pid())
            )
        },
    );
    assert!(settled <= baseline);
}

/// Sends a handshake on a fresh connection and returns the connection and
/// the learner's largest request frame; `None` when the learner closed it
/// (at its connection cap).
async fn shaken(port: u16, token: Option<&Token>) -> Option<(tokio::net::TcpStream, usize)> {
    let mut stream = tokio::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port))
        .await
        .ok()?;
    let limits = handshake::offer(&mut stream, PROTOCOL_VERSION, token)
        .await
        .ok()?;
    Some((stream, limits.request))
}

/// A peer announcing a frame longer than any legal request is cut off at
/// its length prefix.
async fn oversized_frame(port: u16) {
    use tokio::io::AsyncWriteExt;
    let Some((mut stream, _)) = shaken(port, None).await else {
        return;
    };
    let _ = stream
        .write_all(&(64u32 * 1024 * 1024 - 1).to_be_bytes())
        .await;
    let chunk = vec![0u8; 1024 * 1024];
    for _ in 0..30 {
        if stream.write_all(&chunk).await.is_err() {
            break;
        }
    }
}

/// A peer sends most of a legal-sized frame at once and the rest a byte
/// at a time; returns how long the learner kept the connection.
async fn trickled_frame(port: u16) -> Duration {
    use tokio::io::AsyncWriteExt;
    let started = Instant::now();
    let Some((mut stream, limit)) = shaken(port, None).await else {
        return started.elapsed();
    };
    let length = limit as u32 - 1;
    if stream.write_all(&length.to_be_bytes()).await.is_err() {
        return started.elapsed();
    }
    let bulk = vec![0u8; length as usize - 1024];
    if stream.write_all(&bulk).await.is_err() {
        return started.elapsed();
    }
    for _ in 0..100 {
        if stream.write_all(&[0]).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    started.elapsed()
}

/// 100 connections announcing 64 MiB frames and 100 trickling legal-sized
/// ones leave the learner's resident memory within its bound: at most
/// `--max-connections` (64) frames of the largest legal request, plus
/// slack for the allocator. Trickling connections are dropped after the
/// frame timeout, and training goes on.
#[test]
fn oversized_and_trickled_frames_keep_resident_memory_bounded() {
    let dir = scratch("operations_frames");
    let learner = start_learner_with(
        &dir,
        free_port(),
        free_port(),
        "learner.log",
        &["--max-connections", "64", "--frame-timeout", "3"],
        &Launch::default(),
    );
    let (_actor, _) = start_actor(&dir, learner.port, 1);
    let before = wait_for_steps(&learner, 20.0, "the learner to step");
    let pid = learner.process.pid();
    let baseline = resident_bytes(pid);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let port = learner.port;
    let request_limit = runtime.block_on(async { shaken(port, None).await.unwrap().1 });
    let attack = runtime.spawn(async move {
        let mut tasks = Vec::new();
        for _ in 0..100 {
            tasks.push(tokio::spawn(async move {
                oversized_frame(port).await;
                Duration::ZERO
            }));
            tasks.push(tokio::spawn(trickled_frame(port)));
        }
        let mut held = Vec::new();
        for task in tasks {
            held.push(task.await.unwrap());
        }
        held
    });
    let mut peak = baseline;
    let deadline = Instant::now() + LONG;
    while !attack.is_finished() {
        assert!(Instant::now() < deadline, "the attack never ended");
        peak = peak.max(resident_bytes(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
    let held = runtime.block_on(attack).unwrap();
    let longest = held.iter().max().unwrap();
    assert!(
        *longest < Duration::from_secs(20),
        "a trickling peer was kept {longest:?} (frame timeout 3 s)"
    );

    let bound = baseline + 64 * request_limit as u64 + 64 * 1024 * 1024;
    assert!(
        peak <= bound,
        "resident memory peaked at {} MiB: baseline {} MiB, bound {} MiB ({} connections x {} KiB frames + 64 MiB)",
        peak >> 20,
        baseline >> 20,
        bound >> 20,
        64,
        request_limit >> 10
    );
    eprintln!(
        "resident memory: baseline {} MiB, peak {} MiB, bound {} MiB",
        baseline >> 20,
        peak >> 20,
        bound >> 20
    );
    assert!(
        learner.process.stderr().len() < 1_000_000,
        "the log stayed small"
    );
    wait_for_steps(&learner, before + 50.0, "training after the attack");
    let open = wait_for(
        "the attackers' connections to be gone",
        SHORT,
        || {
            scrape(learner.metrics)
                .and_then(|t| sample(&t, "rnad_learner_connections"))
                .filter(|&n| n <= 1.0)
        },
        || learner.process.stderr(),
    );
    assert!(open <= 1.0);
}

/// With a token set, a peer without it (or with a wrong one) is refused
/// before anything else is read and says why; an actor with the token
/// plays; the token appears in no log.
#[test]
fn peers_without_the_token_are_refused() {
    const SECRET: &str = "correct-horse-battery";
    let dir = scratch("operations_token");
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{SECRET}\n")).unwrap();
    let learner = start_learner_with(
        &dir,
        free_port(),
        free_port(),
        "learner.log",
        &[],
        &Launch {
            env: vec![("RNAD_TOKEN", SECRET)],
            ..Launch::default()
        },
    );
    let (stranger, _) = start_actor_with(&dir, learner.port, "stranger", &[], &Launch::default());
    let (guesser, _) = start_actor_with(
        &dir,
        learner.port,
        "guesser",
        &[],
        &Launch {
            env: vec![("RNAD_TOKEN", "wrong")],
            ..Launch::default()
        },
    );
    let (member, member_metrics) = start_actor_with(
        &dir,
        learner.port,
        "member",
        &["--token-file", token_file.to_str().unwrap()],
        &Launch::default(),
    );
    wait_for_submits(member_metrics, &member);
    for actor in [&stranger, &guesser] {
        wait_for(
            "the refused actor to say why",
            SHORT,
            || {
                actor
                    .stderr()
                    .contains("refused this process's token")
                    .then_some(())
            },
            || actor.stderr(),
        );
    }
    assert!(refused(&learner, "token") >= 2.0);
    wait_for_steps(&learner, 10.0, "training fed by the actor with the token");
    for log in [
        learner.process.stderr(),
        member.stderr(),
        stranger.stderr(),
        guesser.stderr(),
    ] {
        assert!(!log.contains(SECRET), "the token was logged:\n{log}");
    }
}

/// A checkpoint that cannot be written is logged and counted, and the
/// learner trains on and writes the next one.
#[test]
fn a_failed_checkpoint_write_is_counted_and_training_goes_on() {
    let dir = scratch("operations_checkpoint_failure");
    let checkpoints = dir.join("run/checkpoints");
    // A directory where the checkpoint of step 200 would be written first.
    std::fs::create_dir_all(checkpoints.join("checkpoint-000000000200.safetensors.tmp")).unwrap();
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (_actor, _) = start_actor(&dir, learner.port, 1);
    wait_for(
        "the checkpoint after the failed one",
        LONG,
        || newest_checkpoint(&checkpoints).filter(|&s| s >= 300),
        || learner.process.stderr(),
    );
    let page = scrape(learner.metrics).unwrap();
    assert_eq!(
        labelled(
            &page,
            "rnad_learner_write_failures_total",
            "file=\"checkpoint\""
        ),
        Some(1.0),
        "{page}"
    );
    let log = learner.process.stderr();
    assert!(
        log.contains("write failed") && log.contains("checkpoint-000000000200"),
        "{log}"
    );
    assert!(!checkpoints
        .join("checkpoint-000000000200.safetensors")
        .exists());
}

/// The seed an actor's log says it drew from the OS.
fn drawn_seed(log: &str) -> Option<u64> {
    let line = log
        .lines()
        .find(|l| l.contains("seed drawn from OS entropy"))?;
    let (_, rest) = line.split_once("seed=")?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Two actors started without `--seed` draw different seeds from the OS
/// and log them; one given a seed logs that seed.
#[test]
fn actors_without_a_seed_draw_different_ones_and_log_them() {
    let dir = scratch("operations_seeds");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let (a, _) = start_actor_with(&dir, learner.port, "a", &[], &Launch::default());
    let (b, _) = start_actor_with(&dir, learner.port, "b", &[], &Launch::default());
    let (c, _) = start_actor(&dir, learner.port, 42);
    let seeds: Vec<u64> = [&a, &b]
        .iter()
        .map(|actor| {
            wait_for(
                "the actor's seed line",
                SHORT,
                || drawn_seed(&actor.stderr()),
                || actor.stderr(),
            )
        })
        .collect();
    assert_ne!(seeds[0], seeds[1], "{seeds:?}");
    wait_for(
        "the seeded actor's line",
        SHORT,
        || c.stderr().contains("seed=42").then_some(()),
        || c.stderr(),
    );
}

/// An actor plays as many games at once as the run's
/// `actors.games_per_actor` says (64 in configs/kuhn.toml) unless `--games`
/// says otherwise, and submits that many at a time.
#[test]
fn actors_take_the_runs_games_per_actor_unless_told_otherwise() {
    let dir = scratch("operations_games_per_actor");
    let learner = start_learner(&dir, free_port(), free_port(), "learner.log");
    let address = rnad_testkit::local(learner.port);
    let defaulted = rnad_testkit::Process::start(
        "rnad-actor",
        &["--learner", &address],
        &dir.join("actor-defaulted.log"),
    );
    let (told, _) = start_actor(&dir, learner.port, 7);
    for (actor, expected) in [
        (&defaulted, "games=64 submit_every=64"),
        (&told, "games=32 submit_every=32"),
    ] {
        wait_for(
            "the actor's playing line",
            SHORT,
            || actor.stderr().contains(expected).then_some(()),
            || actor.stderr(),
        );
    }
}
