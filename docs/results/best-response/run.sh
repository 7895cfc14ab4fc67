#!/usr/bin/env bash
# The learned best response (`rnad-evaluator br`) against the exact one on
# every game with a public tree: Kuhn, Leduc, 3-player Leduc, Liar's Dice
# and OpenSpiel's default universal_poker, each against the uniform
# player, a rule-based player (the game's `rules`, or seed 004's
# `heuristic` in universal_poker) and an R-NaD policy trained for
# TRAIN_SECONDS (default 120) with the game's config, at budgets of 300,
# 1,000 and 3,000 steps of 128 episodes. Writes br.jsonl (one line per
# game, policy and budget) beside this script; `python3 table.py` prints
# the tables. About 25 minutes on one core.
#
# BUDGETS, EPISODES (a step), GAMES (a regular expression on the game)
# and OUT (the file) change what it runs: the larger budget of the
# README's second table is
#   BUDGETS=10000 EPISODES=512 GAMES='^(leduc_poker|liars_dice)$' OUT=br-large.jsonl bash run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
learner=target/release/rnad-learner
evaluator=target/release/rnad-evaluator
runs=${RUNS:-target/best-response-runs}
mkdir -p "$runs"
train_seconds=${TRAIN_SECONDS:-120}
budgets=${BUDGETS:-300 1000 3000}
episodes=${EPISODES:-128}
only=${GAMES:-.}
out="$here/${OUT:-br.jsonl}"

# game, its config (universal_poker borrows Leduc's, game replaced), its rule-based player
games=(
    "kuhn_poker|configs/kuhn.toml|rules"
    "leduc_poker|configs/leduc.toml|rules"
    "leduc_poker(players=3)|configs/leduc-3p.toml|rules"
    "liars_dice|configs/liars_dice.toml|rules"
    "universal_poker|configs/leduc.toml|heuristic"
)
: > "$out.tmp"
for entry in "${games[@]}"; do
    IFS='|' read -r game config rules <<< "$entry"
    [[ "$game" =~ $only ]] || continue
    name=$(echo "$game" | tr -c 'a-z0-9\n' '-')
    run="$runs/$name"
    if ! ls "$run"/checkpoints/*.safetensors > /dev/null 2>&1; then
        rm -rf "$run"
        mkdir -p "$run"
        sed "s/^game = .*/game = \"$game\"/" "$config" > "$run.toml"
        timeout --signal=INT "$train_seconds" "$learner" local --config "$run.toml" --run-dir "$run" \
            > "$run.log" 2>&1 || [ $? -eq 124 ]
    fi
    checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
    for policy in uniform "$rules" "checkpoint:$checkpoint"; do
        for budget in $budgets; do
            echo "$game against $policy, $budget steps of $episodes episodes" >&2
            printf '{"game":"%s","policy":"%s","budget":%s,"episodes_per_step":%s,"report":' \
                "$game" "${policy%%:*}" "$budget" "$episodes" >> "$out.tmp"
            "$evaluator" br --game "$game" --policy "$policy" --budget "$budget" \
                --episodes-per-step "$episodes" --json | tr -d '\n' >> "$out.tmp"
            printf '}\n' >> "$out.tmp"
        done
    done
done
mv "$out.tmp" "$out"
