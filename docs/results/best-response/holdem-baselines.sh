#!/usr/bin/env bash
# Hold'em: a learned best response (a fresh MLP, BUDGET per seat, default
# 2m, judged over JUDGE duplicate deals, default 10,000) against each of
# seed 004's baselines, beside LBR's values against them
# (../holdem/lbr.jsonl). Writes holdem-baselines.jsonl beside this script.
# About 15 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
evaluator=target/release/rnad-evaluator
: > "$here/holdem-baselines.jsonl.tmp"
for player in ${PLAYERS:-uniform heuristic call}; do
    printf '{"player":"%s","br":' "$player" >> "$here/holdem-baselines.jsonl.tmp"
    "$evaluator" br --game holdem --policy "$player" --seat all --budget "${BUDGET:-2m}" \
        --judge-episodes "${JUDGE:-10000}" --seed 1 --json | tr -d '\n' >> "$here/holdem-baselines.jsonl.tmp"
    printf '}\n' >> "$here/holdem-baselines.jsonl.tmp"
done
mv "$here/holdem-baselines.jsonl.tmp" "$here/holdem-baselines.jsonl"
