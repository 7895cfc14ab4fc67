#!/usr/bin/env bash
# The best-response service in a local Leduc run: configs/leduc.toml for
# MINUTES (default 6) with a best response learned against every third
# evaluated version (3,000 steps a seat), beside the exact NashConv of the
# same policy that the exact judge computes. Keeps the run's
# best_response.jsonl as service-leduc.jsonl and draws its curve.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
run=${RUN:-target/best-response-service-leduc}
rm -rf "$run"
timeout --signal=INT "$(( ${MINUTES:-6} * 60 ))" target/release/rnad-learner local \
    --config configs/leduc.toml --run-dir "$run" \
    --set evaluation.br_interval_evaluations=3 --set evaluation.br_budget_steps=3000 \
    > "$run.log" 2>&1 || [ $? -eq 124 ]
cp "$run/best_response.jsonl" "$here/service-leduc.jsonl"
target/release/rnad-evaluator plot --runs "$run" --metric best_response.gain \
    --title "Leduc: learned best response against the post-processed target (3,000 steps a seat)" \
    --out "$here/service-leduc.svg"
python3 - "$here/service-leduc.jsonl" <<'PY'
import json, sys
print("| learner step | learned gain (sum) | exact NashConv | fraction | seconds |")
print("|---:|---:|---:|---:|---:|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    b = r["best_response"]
    print(f"| {r['learner_step']} | {b['gain']:.4f} | {b['exact_gain']:.4f} | {100 * b['gain'] / b['exact_gain']:.0f}% | {b['seconds']:.0f} |")
PY
