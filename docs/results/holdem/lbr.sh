#!/usr/bin/env bash
# Local best response in every standard setting (fc, fcpa, fcpa from the
# turn, fchpa: `lbr --standard`, the same deals for each) against every
# baseline on seed 004's game, HANDS hands each (default 2,000), written as
# JSON lines to docs/results/holdem/lbr.jsonl. About 20 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
evaluator=target/release/rnad-evaluator
out=docs/results/holdem/lbr.jsonl
: > "$out.tmp"
for player in uniform heuristic call raise fold; do
    printf '{"player":"%s","lbr":' "$player" >> "$out.tmp"
    "$evaluator" lbr --game holdem --player "$player" --standard --hands "${HANDS:-2000}" --seed 5 --json | tr -d '\n' >> "$out.tmp"
    printf '}\n' >> "$out.tmp"
done
mv "$out.tmp" "$out"
