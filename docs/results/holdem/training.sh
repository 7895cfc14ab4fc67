#!/usr/bin/env bash
# A 30-minute R-NaD run of configs/holdem.toml (local: learner, one actor
# thread and the head-to-head panel with LBR in one process), then its
# curves and a longer look at its last checkpoint: 20,000 duplicate deals
# against each baseline with the all-in-equity and control-variate
# estimates, and LBR (fcpa) over 5,000 hands. Writes into
# docs/results/holdem/run-30min/. About 40 minutes on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/holdem-30min}
out=docs/results/holdem/run-30min
learner=target/release/rnad-learner
evaluator=target/release/rnad-evaluator
rm -rf "$run"
timeout --signal=TERM 1800 "$learner" local --config configs/holdem.toml --run-dir "$run" || [ $? -eq 124 ]
mkdir -p "$out"
cp "$run/config.toml" "$run/history.jsonl" "$run/training.jsonl" "$out/"
for opponent in heuristic uniform previous; do
    "$evaluator" plot --runs "$run" --metric "head_to_head.$opponent.mean" --x wall \
        --title "holdem: chips per game against $opponent (all-in equity)" --out "$out/vs-$opponent.svg"
done
"$evaluator" plot --runs "$run" --metric lbr.mbb_per_hand --x wall \
    --title "holdem: local best response (fcpa), mbb per hand" --out "$out/lbr.svg"
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
: > "$out/final.jsonl"
for opponent in heuristic uniform call raise; do
    "$evaluator" match --game holdem --players "checkpoint:$checkpoint,$opponent" --deals 20000 --seed 9 \
        --value-function "$checkpoint" --json >> "$out/final.jsonl"
done
"$evaluator" lbr --game holdem --player "checkpoint:$checkpoint" --hands 5000 --seed 9 --json > "$out/final-lbr.json"
