#!/usr/bin/env bash
# Judges a finished Daihinmin run (RUN_DIR, the first argument): copies its
# config, history and training log to docs/results/daihinmin/run-60min/,
# draws its curves against the panel, and seats its last checkpoint with
# four default players (100 deals, every seat) and with four
# random-sampling:1500 players (DEALS_MC deals, default 10).
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=$1
out=docs/results/daihinmin/run-60min
evaluator=target/release/rnad-evaluator
mkdir -p "$out"
cp "$run/config.toml" "$out/"
gzip -9nc "$run/history.jsonl" > "$out/history.jsonl.gz"
gzip -9nc "$run/training.jsonl" > "$out/training.jsonl.gz"
for opponent in default random-sampling:20 previous; do
    "$evaluator" plot --runs "$run" --metric "head_to_head.$opponent.mean" --x wall \
        --title "daihinmin: points per game less 3 against four $opponent players" \
        --out "$out/vs-${opponent%%:*}.svg"
done
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
network="checkpoint:$checkpoint"
"$evaluator" match --game daihinmin --players "$network,default,default,default,default" \
    --deals 100 --seed 9 --json > "$out/final-default.json"
mc=random-sampling:1500
"$evaluator" match --game daihinmin --players "$network,$mc,$mc,$mc,$mc" \
    --deals "${DEALS_MC:-10}" --seed 9 --json > "$out/final-random-sampling-1500.json"
