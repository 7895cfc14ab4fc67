#!/usr/bin/env bash
# More LBR (fcpa) hands against seed 004's generations 1-3: rounds of
# CHUNK hands (default 50) each, generation 3, 1, 2 in turn, each chunk
# with the next seed from SEED (default 6), one line per chunk appended to
# docs/results/holdem/generations-lbr/chunks.jsonl, until stopped or ROUNDS
# rounds (default: no end). Run several side by side with far-apart SEEDs
# (the committed chunks: 6 and 1000); pool.py pools them with lbr.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
evaluator=${EVALUATOR:-target/release/rnad-evaluator}
out=docs/results/holdem/generations-lbr/chunks.jsonl
seed=${SEED:-6}
hands=${CHUNK:-50}
rounds=${ROUNDS:-0}
round=0
while [ "$rounds" -eq 0 ] || [ "$round" -lt "$rounds" ]; do
    for g in generations-gpu/gen3 card-gpu/gen1 generations-gpu/gen2; do
        player=docs/results/holdem/$g.safetensors
        report=$(RAYON_NUM_THREADS=1 "$evaluator" lbr --game holdem --player "gain:$player" \
            --bets fcpa --hands "$hands" --seed "$seed" --json | tr -d '\n')
        # One write a line, so side-by-side runs do not interleave.
        printf '{"player":"gain:%s","bets":"fcpa","seed":%d,"report":%s}\n' "$player" "$seed" "$report" >> "$out"
        seed=$((seed + 1))
    done
    round=$((round + 1))
done
