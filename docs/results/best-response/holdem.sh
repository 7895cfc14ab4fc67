#!/usr/bin/env bash
# Hold'em: local best response in every standard setting (`lbr
# --standard`, HANDS hands, default 1,000) and a learned best response
# started from the policy's own network (`br --from-policy`, BUDGET per
# seat, default 8m, judged over JUDGE games, default 4,000) against an
# R-NaD checkpoint of seed 004's game (CHECKPOINT; trained with
# configs/holdem.toml or configs/holdem-card.toml). Writes NAME-lbr.json
# and NAME-br.json beside this script (NAME default holdem). About 25
# minutes on one core at the defaults for the MLP; the card torso's
# forward pass makes LBR about ten times slower.
#   CHECKPOINT=runs/holdem/checkpoints/checkpoint-000000012000.safetensors bash holdem.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
evaluator=target/release/rnad-evaluator
name=${NAME:-holdem}
"$evaluator" lbr --game holdem --player "checkpoint:$CHECKPOINT" --standard \
    --hands "${HANDS:-1000}" --seed 5 --json > "$here/$name-lbr.json.tmp"
mv "$here/$name-lbr.json.tmp" "$here/$name-lbr.json"
"$evaluator" br --game holdem --policy "checkpoint:$CHECKPOINT" --from-policy --seat all \
    --budget "${BUDGET:-8m}" --judge-episodes "${JUDGE:-4000}" --seed 1 --json > "$here/$name-br.json.tmp"
mv "$here/$name-br.json.tmp" "$here/$name-br.json"
