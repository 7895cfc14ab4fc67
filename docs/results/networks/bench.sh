#!/usr/bin/env bash
# Throughput of each torso: `rnad-learner bench` (learner steps/s on
# pre-played batches, one actor thread's decisions/s, the whole local run)
# on hold'em (configs/holdem.toml) for the MLP, the residual MLP and the
# card torso, and on Leduc (configs/leduc-reference.toml) for the MLP, on
# every device in DEVICES, the learner and the actor's forward passes
# both (cuda needs a binary built with --features cuda, .ci/cuda-build.sh).
# Writes bench-GAME-TORSO-DEVICE.json to OUT.
#   BIN (default target/release/rnad-learner), OUT (default this folder),
#   DEVICES (default cpu), BENCH_SECONDS (per measurement, default 5).
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=${BIN:-target/release/rnad-learner}
out=${OUT:-docs/results/networks}
devices=${DEVICES:-cpu}
seconds=${BENCH_SECONDS:-5}
mkdir -p "$out"
bench() { # name, config, torso, hidden, device
    "$bin" bench --config "$2" --seconds "$seconds" --device "$5" --actor-device "$5" \
        --set "network.torso=$3" --set "network.hidden=$4" \
        --out "$out/bench-$1-$3-$5.json" > /dev/null
    echo "done: $1 $3 $4 on $5" >&2
}
for device in $devices; do
    bench leduc configs/leduc-reference.toml mlp "[256,256]" "$device"
    bench holdem configs/holdem.toml mlp "[256,256]" "$device"
    bench holdem configs/holdem.toml residual_mlp "[256,256]" "$device"
    bench holdem configs/holdem.toml card_conv "[32,256,256]" "$device"
done
