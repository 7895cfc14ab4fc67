#!/usr/bin/env bash
# Hold'em: local best response in every standard setting (`lbr
# --standard`, HANDS hands, default 1,000) and a learned best response
# started from the policy's own network (`br --from-policy`, BUDGET per
# seat, default 8m, judged over JUDGE games, default 4,000) against an
# R-NaD checkpoint of seed 004's game (CHECKPOINT; trained with
# configs/holdem.toml). Writes holdem-lbr.json and holdem-br.json beside
# this script. About 25 minutes on one core at the defaults.
#   CHECKPOINT=runs/holdem/checkpoints/checkpoint-000000012000.safetensors bash holdem.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
evaluator=target/release/rnad-evaluator
"$evaluator" lbr --game holdem --player "checkpoint:$CHECKPOINT" --standard \
    --hands "${HANDS:-1000}" --seed 5 --json > "$here/holdem-lbr.json.tmp"
mv "$here/holdem-lbr.json.tmp" "$here/holdem-lbr.json"
"$evaluator" br --game holdem --policy "checkpoint:$CHECKPOINT" --from-policy --seat all \
    --budget "${BUDGET:-8m}" --judge-episodes "${JUDGE:-4000}" --seed 1 --json > "$here/holdem-br.json.tmp"
mv "$here/holdem-br.json.tmp" "$here/holdem-br.json"
