#!/usr/bin/env bash
# The averaged network beside the tabular target_average on Leduc: one
# `rnad-learner local` run of the default config (configs/leduc.toml) per
# seed in SEEDS (default 0), SECONDS each (default 600), with the averaged
# network on (a reservoir of RESERVOIR states, horizon HORIZON steps,
# own-reach clip OWN_REACH_CLIP, default 0: states weighed by visits;
# learning rate LEARNING_RATE, default 1e-3).
# Both averages are judged by exact NashConv at every evaluation of the
# same run, so they are compared at equal learner steps. Writes
# seed-N/history.jsonl.gz and seed-N/config.toml to OUT (default this folder).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-docs/results/average-network}
seconds=${SECONDS_PER_RUN:-600}
reservoir=${RESERVOIR:-1000000}
horizon=${HORIZON:-50000}
own_reach_clip=${OWN_REACH_CLIP:-0}
learning_rate=${LEARNING_RATE:-1e-3}
# A copy, so that rebuilding the workspace during the runs changes nothing.
learner=$(mktemp)
cp target/release/rnad-learner "$learner"
chmod +x "$learner"
trap 'rm -f "$learner"' EXIT
for seed in ${SEEDS:-0}; do
    run=$(mktemp -d)
    timeout -s TERM "$seconds" "$learner" local --run-dir "$run" --set "seed=$seed" \
        --set "average_network.reservoir_size=$reservoir" \
        --set "average_network.horizon_steps=$horizon" \
        --set "average_network.own_reach_clip=$own_reach_clip" \
        --set "average_network.learning_rate=$learning_rate" > "$run/progress.log" 2>&1 || [ $? -eq 124 ]
    mkdir -p "$out/seed-$seed"
    cp "$run/config.toml" "$out/seed-$seed/"
    gzip -9nc "$run/history.jsonl" > "$out/seed-$seed/history.jsonl.gz"
    rm -rf "$run"
    echo "seed $seed: $(tail -1 "$run/history.jsonl" | cut -c1-300)" >&2
done
