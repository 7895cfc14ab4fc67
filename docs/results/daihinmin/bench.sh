#!/usr/bin/env bash
# Daihinmin speed in one run (benches/daihinmin.rs): random playouts per
# second, one epsilon:1500 Monte-Carlo decision, match games per second,
# self-play decisions per second of one actor thread with
# configs/daihinmin.toml's MLP, and one unbatched network decision.
# Writes docs/results/daihinmin/bench.json; about half a minute.
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo bench -p rnad-learner-cli --bench daihinmin -- --seconds 3 --out "$PWD/docs/results/daihinmin/bench.json"
