//! `rnad-evaluator playthrough` against OpenSpiel itself: 10,000 random
//! games of each universal_poker configuration the hold'em work relies on
//! (and 2,000 of the other games),
//! replayed state by state in pyspiel 2.0.2 by
//! `scripts/replay-playthrough.py`. Set apart because it needs pyspiel
//! (`docker/install-check-tools.sh` installs it into
//! `target/check-tools/openspiel`); the committed fixtures in
//! `fixtures/openspiel/playthroughs/` cover the engine on a fresh machine.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const HEADS_UP: &str = "betting=nolimit,numPlayers=2,numRounds=4,blind=100 50,\
firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,stack=5000 5000";

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Plays `games` random games of `spec` and has pyspiel check every state.
fn agrees_with_openspiel(spec: &str, games: u64, seed: u64) {
    let playthrough = Command::new(env!("CARGO_BIN_EXE_rnad-evaluator"))
        .args(["playthrough", "--game", spec, "--games"])
        .arg(games.to_string())
        .args(["--seed", &seed.to_string()])
        .output()
        .expect("rnad-evaluator runs");
    assert!(playthrough.status.success(), "{spec}: {playthrough:?}");
    let python = workspace().join("target/check-tools/openspiel/bin/python");
    let mut replay = Command::new(&python)
        .arg(workspace().join("scripts/replay-playthrough.py"))
        .arg(spec)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{python:?}: {e} (run docker/install-check-tools.sh)"));
    replay
        .stdin
        .take()
        .expect("stdin")
        .write_all(&playthrough.stdout)
        .expect("the replay reads every line");
    let output = replay.wait_with_output().expect("the replay finishes");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{spec}:\n{report}");
    assert!(report.contains(" 0 failed"), "{spec}:\n{report}");
    eprintln!("{}", report.trim());
}

#[test]
#[ignore = "needs pyspiel: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn ten_thousand_random_games_of_each_configuration_replay_identically_in_pyspiel() {
    agrees_with_openspiel("universal_poker", 10_000, 1);
    agrees_with_openspiel(
        "universal_poker(betting=limit,numRounds=2,blind=10 5,raiseSize=10 20,firstPlayer=2 1,maxRaises=2 2,numSuits=2,numRanks=3)",
        10_000,
        2,
    );
    agrees_with_openspiel(
        &format!("universal_poker({HEADS_UP},bettingAbstraction=fcpa)"),
        10_000,
        3,
    );
    agrees_with_openspiel(
        &format!("universal_poker({HEADS_UP},bettingAbstraction=fchpa)"),
        10_000,
        4,
    );
    agrees_with_openspiel("universal_poker(bettingAbstraction=fullgame)", 10_000, 5);
}

#[test]
#[ignore = "needs pyspiel: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn the_other_games_replay_identically_in_pyspiel_chance_and_terminal_states_included() {
    agrees_with_openspiel("kuhn_poker(players=3)", 2_000, 6);
    agrees_with_openspiel("leduc_poker(players=3)", 2_000, 7);
    agrees_with_openspiel("liars_dice(numdice=2,dice_sides=4)", 2_000, 8);
}
