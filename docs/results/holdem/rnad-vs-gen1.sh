#!/usr/bin/env bash
# R-NaD (CONFIG, default configs/holdem.toml: the MLP) for
# SECONDS_OF_TRAINING (default 600), with one of seed 004's generations
# joining the panel (PANEL_GEN, default card-gpu/gen1.safetensors, trained
# on an H200 at the seed's sizes) and SETS (space-separated `--set`
# overrides, say "actors.count=1", each KEY=VALUE without spaces; given
# last, so they also override the panel settings below); then its last
# checkpoint against each of OPPONENTS (players as `match` takes them;
# default that generation and the heuristic player) over DEALS duplicate
# deals each (default 5,000), and, if LBR_HANDS is above 0, LBR (fcpa)
# against it over that many hands. Writes the run's history, training log
# and config, the matches (final.jsonl) and LBR (final-lbr.json) to OUT
# (default docs/results/holdem/rnad-vs-gen1).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-docs/results/holdem/rnad-vs-gen1}
seconds=${SECONDS_OF_TRAINING:-600}
deals=${DEALS:-5000}
config=${CONFIG:-configs/holdem.toml}
lbr_hands=${LBR_HANDS:-0}
read -r -a sets <<< "${SETS:-}"
overrides=()
for set in "${sets[@]}"; do overrides+=(--set "$set"); done
panel_gen=${PANEL_GEN:-docs/results/holdem/card-gpu/gen1.safetensors}
[ -f "$panel_gen" ] || { echo "PANEL_GEN: no file $panel_gen" >&2; exit 2; }
read -r -a opponents <<< "${OPPONENTS:-gain:$panel_gen heuristic}"
bin=$(mktemp -d)
cp target/release/rnad-learner target/release/rnad-evaluator "$bin/"
run=$(mktemp -d)
trap 'rm -rf "$bin" "$run"' EXIT
# The run reads its own copy, so the file may change while it trains.
cp "$config" "$run/given.toml"
# 500 deals a panel opponent: seed 004's network decides in about 10 ms on
# one core, and a local run's evaluation holds its learner.
timeout -s TERM "$seconds" "$bin/rnad-learner" local --config "$run/given.toml" --run-dir "$run" \
    --set "evaluation.panel_extra=[\"gain:$panel_gen\"]" --set evaluation.deals=500 \
    --set evaluation.interval_seconds=120 "${overrides[@]}" > "$run/progress.log" 2>&1 || status=$?
# 124: stopped by the timeout, as planned.
if [ "${status:-0}" -ne 0 ] && [ "$status" -ne 124 ]; then
    tail -5 "$run/progress.log" >&2
    echo "the run failed (exit $status): nothing written" >&2
    exit 1
fi
if [ ! -s "$run/history.jsonl" ]; then
    tail -5 "$run/progress.log" >&2
    echo "no evaluation finished within $seconds s of training (the first, at step 0, takes about 15 s): nothing written" >&2
    exit 1
fi
mkdir -p "$out"
cp "$run/config.toml" "$out/"
gzip -9nc "$run/history.jsonl" > "$out/history.jsonl.gz"
gzip -9nc "$run/training.jsonl" > "$out/training.jsonl.gz"
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
for opponent in "${opponents[@]}"; do
    "$bin/rnad-evaluator" match --game holdem --players "checkpoint:$checkpoint,$opponent" \
        --deals "$deals" --seed 9 --json
done > "$out/final.jsonl"
if [ "$lbr_hands" -gt 0 ]; then
    "$bin/rnad-evaluator" lbr --game holdem --player "checkpoint:$checkpoint" --bets fcpa \
        --hands "$lbr_hands" --seed 9 --json > "$out/final-lbr.json"
fi
