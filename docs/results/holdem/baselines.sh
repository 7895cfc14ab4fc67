#!/usr/bin/env bash
# Seed 004's baseline rows: every pair of baselines on seed 004's game,
# 100,000 duplicate deals each (both seatings), written as JSON lines to
# docs/results/holdem/baselines.jsonl. About 10 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
evaluator=target/release/rnad-evaluator
out=docs/results/holdem/baselines.jsonl
: > "$out.tmp"
for pair in heuristic,uniform heuristic,call heuristic,raise uniform,call uniform,raise call,raise; do
    "$evaluator" match --game holdem --players "$pair" --deals 100000 --seed 4 --json >> "$out.tmp"
done
mv "$out.tmp" "$out"
