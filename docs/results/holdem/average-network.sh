#!/usr/bin/env bash
# The averaged network on hold'em: configs/holdem.toml for SECONDS (default
# 600) with the averaged network on (a reservoir of 200,000 states, horizon
# 5,000 steps, own-reach clip OWN_REACH_CLIP, default 0), then the last
# checkpoint's averaged network against the heuristic player and against
# the run's own played policy (θ_target post-processed), and that policy
# against the heuristic, DEALS duplicate deals each (default 5,000). Writes the run's history, training log and
# config and the matches to OUT (default docs/results/holdem/average-network).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-docs/results/holdem/average-network}
seconds=${SECONDS_OF_TRAINING:-600}
deals=${DEALS:-5000}
own_reach_clip=${OWN_REACH_CLIP:-0}
bin=$(mktemp -d)
cp target/release/rnad-learner target/release/rnad-evaluator "$bin/"
run=$(mktemp -d)
trap 'rm -rf "$bin" "$run"' EXIT
timeout -s TERM "$seconds" "$bin/rnad-learner" local --config configs/holdem.toml --run-dir "$run" \
    --set average_network.reservoir_size=200000 --set average_network.horizon_steps=5000 \
    --set "average_network.own_reach_clip=$own_reach_clip" \
    > "$run/progress.log" 2>&1 || [ $? -eq 124 ]
mkdir -p "$out"
cp "$run/config.toml" "$out/"
gzip -9nc "$run/history.jsonl" > "$out/history.jsonl.gz"
gzip -9nc "$run/training.jsonl" > "$out/training.jsonl.gz"
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
average="checkpoint:$checkpoint:average_network"
played="checkpoint:$checkpoint:target_postprocessed"
for pair in "$average,heuristic" "$average,$played" "$played,heuristic"; do
    "$bin/rnad-evaluator" match --game holdem --players "$pair" --deals "$deals" --seed 9 --json
done > "$out/final.jsonl"
