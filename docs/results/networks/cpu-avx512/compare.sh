#!/usr/bin/env bash
# The same CPU workloads with two builds, one after the other on the same
# machine: BEFORE and AFTER are folders holding rnad-learner and
# rnad-evaluator built from two commits (`cargo build --release -p
# rnad-learner-cli -p rnad-evaluator` at each, the binaries copied apart).
# Each workload runs REPEATS times (default 2), the builds alternating;
# the figures go to OUT (default this folder) as BUILD-WORKLOAD-N.json or
# .txt, the CPU to cpu.txt, and `summary.py` tabulates them. The binaries
# give each matrix product one thread unless RAYON_NUM_THREADS says
# otherwise.
#   BEFORE=/tmp/before AFTER=/tmp/after bash compare.sh
set -euo pipefail
before=$(realpath "${BEFORE:?folder of the build before}")
after=$(realpath "${AFTER:?folder of the build after}")
out=$(realpath -m "${OUT:-$(dirname "$0")}")
repeats=${REPEATS:-2}
cd "$(dirname "$0")/../../../.."
mkdir -p "$out"
holdem=docs/results/holdem
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
{
    lscpu | grep -E "^Model name|^CPU\(s\)"
    printf 'AVX-512 flags: '
    lscpu | grep -o "avx512[a-z_0-9]*" | sort -u | tr '\n' ' '
    echo
} > "$out/cpu.txt"
# Training data for gain-train: 1,000 duplicate deals (2,000 hands) of
# the heuristic player against itself.
"$after/rnad-evaluator" match --game holdem --players heuristic,heuristic --deals 1000 \
    --seed 3 --log "$scratch/heuristic.log" --json > /dev/null
run() { # build name, binaries folder, repeat number
    local build=$1 binaries=$2 repeat=$3
    "$binaries/rnad-evaluator" lbr --game holdem --player "gain:$holdem/card-gpu/gen1.safetensors" \
        --bets fcpa --hands 4 --seed 5 --json > "$out/$build-lbr-gen1-$repeat.json"
    "$binaries/rnad-evaluator" match --game holdem \
        --players "gain:$holdem/generations-gpu/gen2.safetensors,heuristic" \
        --deals 200 --seed 9 --json > "$out/$build-match-gen2-heuristic-$repeat.json"
    "$binaries/rnad-evaluator" gain-train --game holdem --log "$scratch/heuristic.log" \
        --out "$scratch/$build.safetensors" --steps 60 --batch 32 --seed 1 \
        > "$out/$build-gain-train-$repeat.txt" 2>&1
    "$binaries/rnad-learner" bench --config configs/holdem.toml --seconds 3 \
        --set network.torso=card_conv --set "network.hidden=[32,256,256]" \
        --out "$out/$build-bench-holdem-card_conv-$repeat.json" > /dev/null
    "$binaries/rnad-learner" bench --config configs/leduc-reference.toml --seconds 3 \
        --set network.torso=mlp --set "network.hidden=[256,256]" \
        --out "$out/$build-bench-leduc-mlp-$repeat.json" > /dev/null
    echo "done: $build, run $repeat" >&2
}
for repeat in $(seq 1 "$repeats"); do
    run before "$before" "$repeat"
    run after "$after" "$repeat"
done
