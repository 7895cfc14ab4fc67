#!/usr/bin/env bash
# Judges a finished hold'em run (RUN_DIR, the first argument): copies its
# config, history and training log to docs/results/holdem/run-30min/,
# draws its curves against the panel and of LBR, and plays its last
# checkpoint against every baseline over 20,000 duplicate deals (raw,
# all-in-equity and, against the heuristic, control-variate estimates) and
# against LBR (fcpa) over 5,000 hands. About 10 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=$1
out=docs/results/holdem/run-30min
evaluator=target/release/rnad-evaluator
mkdir -p "$out"
cp "$run/config.toml" "$out/"
gzip -9nc "$run/history.jsonl" > "$out/history.jsonl.gz"
gzip -9nc "$run/training.jsonl" > "$out/training.jsonl.gz"
for opponent in heuristic uniform previous; do
    "$evaluator" plot --runs "$run" --metric "head_to_head.$opponent.mean" --x wall \
        --title "holdem: chips per game against $opponent (all-in equity, 100 chips = 1 bb)" \
        --out "$out/vs-$opponent.svg"
done
"$evaluator" plot --runs "$run" --metric lbr.mbb_per_hand --x wall \
    --title "holdem: local best response (fcpa), mbb per hand" --out "$out/lbr.svg"
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
: > "$out/final.jsonl"
for opponent in heuristic uniform call raise; do
    value=()
    if [ "$opponent" = heuristic ]; then value=(--value-function "$checkpoint"); fi
    "$evaluator" match --game holdem --players "checkpoint:$checkpoint,$opponent" \
        --deals 20000 --seed 9 "${value[@]}" --json >> "$out/final.jsonl"
done
"$evaluator" lbr --game holdem --player "checkpoint:$checkpoint" --hands 5000 --seed 9 --json \
    > "$out/final-lbr.json"
