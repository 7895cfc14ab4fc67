//! The UECda client and server as processes on 127.0.0.1: whole 100-game
//! matches of five clients without a refused play (seats redrawn every 3
//! games, every client's view checked against every message), the default
//! player's and the uniform and Monte-Carlo players'; a client that adopts
//! a server whose rules differ and plays on; clients that stop with a
//! clear error on a malformed message, an unexpected answer or a closed
//! connection; a server that refuses a client of another protocol.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rnad_testkit::{bin_dir, free_port};
use rnad_uecda::table::{players_row, state_row, write_int, Protocol, Table};

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
    // One speaks the older protocol 20060: silent at first, little-endian.
    hundred_games(["default", "default@20060", "default", "default", "default"]);
}

#[test]
fn uniform_and_monte_carlo_clients_play_a_hundred_games_without_a_refused_play() {
    hundred_games([
        "uniform",
        "random-sampling:8",
        "epsilon:8",
        "softmax:8",
        "majority:10",
    ]);
    hundred_games([
        "ucb1-tuned:8",
        "majority-full:4",
        "default",
        "uniform",
        "epsilon:8:0.3",
    ]);
}

/// A 100-game match of five clients playing `players` (`PLAYER@20060`
/// speaking protocol 20060): whole, with no refused play and nothing to
/// resynchronise (the server plays the same rules).
fn hundred_games(players: [&str; 5]) {
    let server = server(100);
    let clients: Vec<Child> = players
        .iter()
        .enumerate()
        .map(|(i, player)| {
            let name = format!("p{i}");
            let (player, protocol) = player.split_once('@').unwrap_or((player, "20070"));
            // Connected in order: the server waits on each client's first
            // table (or its silence) before it accepts the next.
            std::thread::sleep(Duration::from_millis(100));
            spawn(
                "rnad-uecda-client",
                &[
                    "--port",
                    &server.port,
                    "--player",
                    player,
                    "--name",
                    &name,
                    "--seed",
                    &i.to_string(),
                    "--protocol",
                    protocol,
                ],
            )
        })
        .collect();
    let limit = Duration::from_secs(300);
    for (client, player) in clients.into_iter().zip(players) {
        let output = finish(client, limit);
        assert!(output.status.success(), "{player}: {output:?}");
        let played = json(&output);
        assert_eq!(
            (
                played["games"].as_u64(),
                played["refused_plays"].as_u64(),
                played["resynchronised"].as_u64()
            ),
            (Some(100), Some(0), Some(0)),
            "{player}"
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
        let hello = Table::read(&mut stream, Protocol::V20070).unwrap();
        write_int(&mut stream, 0, Protocol::V20070).unwrap();
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
    table.write(&mut out, Protocol::V20070).unwrap();
    out
}

/// A turn's table as a server sends it: `hand` held by this client,
/// `on_turn` to move, row 6's sizes.
fn turn(hand: &str, on_turn: i32, empty: bool, sizes: [i32; 5]) -> Table {
    let mut table = Table::of_hand(rnad_games::daihinmin::parse_cards(hand).unwrap());
    table.0[5][state_row::ON_TURN] = on_turn;
    table.0[5][state_row::EMPTY] = i32::from(empty);
    table.0[6][players_row::SIZES..players_row::SIZES + 5].copy_from_slice(&sizes);
    table
}

/// The table after a turn: `cards` played (none: a pass) by `by`.
fn after(cards: &str, by: i32, sizes: [i32; 5]) -> Table {
    let mut table = Table::default();
    if !cards.is_empty() {
        let cards = rnad_games::daihinmin::parse_cards(cards).unwrap();
        let play = rnad_games::daihinmin::catalogue()
            .plays()
            .find(|(_, p)| p.cards == cards && p.kind == rnad_games::daihinmin::Kind::Single)
            .map(|(_, p)| *p)
            .unwrap();
        table = Table::of_play(Some(&play));
    }
    table.0[5][state_row::ON_TURN] = by;
    table.0[6][players_row::SIZES..players_row::SIZES + 5].copy_from_slice(&sizes);
    table
}

#[test]
fn a_client_adopts_a_server_whose_rules_differ_and_plays_on() {
    // Player 1 leads K♠; by the rules player 2 answers, but the server
    // gives the turn to player 3, who plays 4♥ (below the king: the rules
    // refuse it). The client takes both and finishes the match.
    let sizes = [1, 13, 13, 13, 13];
    let after_king = [1, 12, 13, 13, 13];
    let after_four = [1, 12, 13, 12, 13];
    let mut then = Vec::new();
    for table in [turn("3S", 1, true, sizes), after("KS", 1, after_king)] {
        then.extend(bytes(&table));
    }
    write_int(&mut then, 0, Protocol::V20070).unwrap();
    for table in [turn("3S", 3, false, after_king), after("4H", 3, after_four)] {
        then.extend(bytes(&table));
    }
    write_int(&mut then, 2, Protocol::V20070).unwrap();
    let (port, server) = fake_server(then);
    let client = spawn("rnad-uecda-client", &["--port", &port, "--name", "adopt"]);
    let output = finish(client, Duration::from_secs(30));
    assert!(output.status.success(), "{output:?}");
    let played = json(&output);
    assert_eq!(played["games"], 1);
    assert_eq!(played["resynchronised"], 2, "{played}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("the server's rules differ").count(),
        1,
        "logged once: {stderr}"
    );
    server.join().unwrap();
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
        assert_eq!(hello.0[0][0], 20070);
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
    hello.0[0][0] = 20140;
    hello.write(&mut stream, Protocol::V20070).unwrap();
    let (output, stderr) = server.finish(Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        stderr.contains("player 0 announced protocol 20140, not 20070 or 20060"),
        "{stderr}"
    );
}
