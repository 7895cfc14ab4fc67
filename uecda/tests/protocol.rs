//! The UECda client and server as processes on 127.0.0.1: a whole
//! 100-game match of five clients without a refused play (seats redrawn
//! every 3 games, every client's view checked against every message), and
//! clients that
//! stop with a clear error on a malformed message, an unexpected answer or
//! a closed connection; a server that refuses a client of another
//! protocol.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rnad_testkit::{bin_dir, free_port};
use rnad_uecda::table::{write_int, Table, PROTOCOL};

fn spawn(binary: &str, args: &[&str]) -> Child {
    Command::new(bin_dir().join(binary))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {binary}: {e}"))
}

/// Waits for `child` at most `limit`, killing it past that.
fn finish(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!(
                "a process ran past {limit:?}: {:?}",
                child.wait_with_output()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text:?} {output:?}"))
}

/// A running server: the process, its port, and its stderr as it comes.
struct Server {
    child: Child,
    port: String,
    stderr: std::thread::JoinHandle<String>,
}

/// Starts the server for `games` games on a free port and waits until it
/// says it listens.
fn server(games: usize) -> Server {
    let port = free_port().to_string();
    let mut child = spawn(
        "rnad-uecda-server",
        &[
            "--port",
            &port,
            "--games",
            &games.to_string(),
            "--seed",
            "5",
            "--timeout",
            "30",
        ],
    );
    let pipe = child.stderr.take().unwrap();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let stderr = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(pipe)).map_while(Result::ok) {
            if line.contains("waiting for five players") {
                let _ = ready_tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    ready_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the server says it listens");
    Server {
        child,
        port,
        stderr,
    }
}

impl Server {
    /// Its exit status, report and stderr.
    fn finish(self, limit: Duration) -> (Output, String) {
        let output = finish(self.child, limit);
        (output, self.stderr.join().unwrap())
    }
}

#[test]
fn five_default_clients_play_a_hundred_games_without_a_refused_play() {
    let server = server(100);
    let clients: Vec<Child> = (0..5)
        .map(|i| {
            let name = format!("default{i}");
            spawn(
                "rnad-uecda-client",
                &[
                    "--port",
                    &server.port,
                    "--player",
                    "default",
                    "--name",
                    &name,
                ],
            )
        })
        .collect();
    let limit = Duration::from_secs(120);
    for client in clients {
        let output = finish(client, limit);
        assert!(output.status.success(), "{output:?}");
        let played = json(&output);
        assert_eq!(
            (played["games"].as_u64(), played["refused_plays"].as_u64()),
            (Some(100), Some(0))
        );
    }
    let (output, stderr) = server.finish(limit);
    assert!(output.status.success(), "{output:?} {stderr}");
    let report = json(&output);
    assert_eq!(report["games"], 100);
    assert_eq!(report["refused_plays"], 0);
    let points: Vec<u64> = report["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    assert_eq!(points.iter().sum::<u64>(), 100 * 15, "5+4+3+2+1 a game");
    assert!(
        points.iter().all(|&p| (100..=500).contains(&p)),
        "{points:?}"
    );
}

/// A fake server: accepts one client, reads its first table and answers
/// player id 0, then sends `then` and closes.
fn fake_server(then: Vec<u8>) -> (String, std::thread::JoinHandle<Table>) {
    let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let hello = Table::read(&mut stream).unwrap();
        write_int(&mut stream, 0).unwrap();
        stream.write_all(&then).unwrap();
        stream.flush().unwrap();
        // Let the client read everything before the connection closes.
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        hello
    });
    (port, handle)
}

fn bytes(table: &Table) -> Vec<u8> {
    let mut out = Vec::new();
    table.write(&mut out).unwrap();
    out
}

#[test]
fn a_client_stops_with_the_reason_on_malformed_unexpected_or_missing_messages() {
    let limit = Duration::from_secs(30);
    let mut bad_hand = Table::default();
    bad_hand.0[0][5] = 7;
    // A first turn whose hand claims more cards than row 6 says.
    let mut mismatch = Table::of_hand(1 | 1 << 4);
    mismatch.0[6][0] = 5;
    for (then, expected) in [
        (bytes(&bad_hand), "[0][5] holds 7"),
        (Vec::new(), "closed while reading a hand"),
        (
            bytes(&mismatch)[..100].to_vec(),
            "closed while reading a hand",
        ),
        (bytes(&mismatch), "a hand of 2 cards said to hold 5"),
    ] {
        let (port, server) = fake_server(then);
        let client = spawn("rnad-uecda-client", &["--port", &port, "--name", "probe"]);
        let output = finish(client, limit);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
        let hello = server.join().unwrap();
        assert_eq!(hello.0[0][0], PROTOCOL);
        let name: Vec<i32> = hello.0[1][..5].to_vec();
        assert_eq!(name, "probe".bytes().map(i32::from).collect::<Vec<_>>());
    }
}

#[test]
fn the_server_refuses_a_client_of_another_protocol() {
    let server = server(1);
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", server.port.parse::<u16>().unwrap())).unwrap();
    let mut hello = Table::default();
    hello.0[0][0] = 20060;
    hello.write(&mut stream).unwrap();
    let (output, stderr) = server.finish(Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        stderr.contains("player 0 announced protocol 20060, not 20070"),
        "{stderr}"
    );
}
