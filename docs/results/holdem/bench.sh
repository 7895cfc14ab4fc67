#!/usr/bin/env bash
# Hold'em speed in one run (benches/holdem.rs): hand evaluations per second
# beside rs_poker, poker_eval and poker from crates.io, self-play hands per
# second of one actor thread with configs/holdem.toml's MLP, match and LBR
# hands per second. Writes docs/results/holdem/bench.json; about a minute.
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo bench -p rnad-learner-cli --bench holdem -- --seconds 3 --out "$PWD/docs/results/holdem/bench.json"
