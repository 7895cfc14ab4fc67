#!/usr/bin/env bash
# Local best response (fc and fcpa) against every baseline on seed 004's
# game, 5,000 hands each, written as JSON lines to
# docs/results/holdem/lbr.jsonl. A few minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
evaluator=target/release/rnad-evaluator
out=docs/results/holdem/lbr.jsonl
: > "$out.tmp"
for player in uniform heuristic call raise; do
    for bets in fc fcpa; do
        printf '{"player":"%s","bets":"%s","report":' "$player" "$bets" >> "$out.tmp"
        "$evaluator" lbr --game holdem --player "$player" --bets "$bets" --hands 5000 --seed 5 --json | tr -d '\n' >> "$out.tmp"
        printf '}\n' >> "$out.tmp"
    done
done
mv "$out.tmp" "$out"
