#!/usr/bin/env bash
# One GPU session, two jobs side by side on the same GPU:
#   * R-NaD on seed 004's game with the card torso (configs/holdem-card.toml,
#     ACTORS actor threads) for RUN_SECONDS, ended by SIGTERM (which saves a
#     checkpoint), into OUT/rnad;
#   * seed 004's generation 1: HANDS hands of the heuristic player against
#     itself, then its gain network trained on them for at most
#     TRAIN_SECONDS (STEPS steps of 32), into OUT/gen1.safetensors.
# BIN is where the cuda build's binaries are (.ci/cuda-build.sh);
# DEVICE=cpu runs the same script without a GPU, at small sizes to check it.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
bin=${BIN:-target/cuda/release}
out=${OUT:-docs/results/holdem/card-gpu}
device=${DEVICE:-cuda}
run_seconds=${RUN_SECONDS:-480}
actors=${ACTORS:-12}
hands=${HANDS:-200000}
steps=${STEPS:-44000}
train_seconds=${TRAIN_SECONDS:-360}
scratch=${SCRATCH:-$(mktemp -d)}
mkdir -p "$out"

timeout -k 60 -s TERM "$run_seconds" "$bin/rnad-learner" local --config configs/holdem-card.toml \
    --run-dir "$out/rnad" --device "$device" --set "actors.count=$actors" \
    > "$out/rnad.log" 2>&1 &
rnad=$!

{
    "$bin/rnad-evaluator" match --game holdem --players heuristic,heuristic \
        --deals $((hands / 2)) --seed 41 --log "$scratch/gen1.log" --json > "$out/gen1-hands.json" &&
        "$bin/rnad-evaluator" gain-train --game holdem --log "$scratch/gen1.log" \
            --out "$out/gen1.safetensors" --steps "$steps" --max-seconds "$train_seconds" \
            --generation 1 --seed 1 --device "$device"
} > "$out/gen1.log" 2>&1 &
gen1=$!

wait "$gen1"; echo "generation 1 exited $?"
wait "$rnad"; echo "R-NaD run exited $? (124: ended by its time limit, as planned)"
tail -n 3 "$out/gen1.log" "$out/rnad.log"
