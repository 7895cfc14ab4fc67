#!/usr/bin/env bash
# Judges a finished Daihinmin run (RUN_DIR, the first argument): copies its
# config, history and training log to OUT (default
# docs/results/daihinmin/run-60min/), draws its curves against the panel,
# and seats its last checkpoint with four default players (DEALS deals,
# default 100, every seat) and with four MC players (MC, default
# random-sampling:1500; DEALS_MC deals, default 10). A deal is a match of
# MATCH_GAMES games (default 1: first games), as UECda plays them. PLAY=greedy
# plays the checkpoint greedily (checkpoint:FILE:greedy).
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=$1
out=${OUT:-docs/results/daihinmin/run-60min}
games=${MATCH_GAMES:-1}
mc=${MC:-random-sampling:1500}
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
network="checkpoint:$checkpoint${PLAY:+:$PLAY}"
game="daihinmin(games=$games)"
"$evaluator" match --game "$game" --players "$network,default,default,default,default" \
    --deals "${DEALS:-100}" --seed 9 --json > "$out/final-default.json"
"$evaluator" match --game "$game" --players "$network,$mc,$mc,$mc,$mc" \
    --deals "${DEALS_MC:-10}" --seed 9 --json > "$out/final-${mc//:/-}.json"
