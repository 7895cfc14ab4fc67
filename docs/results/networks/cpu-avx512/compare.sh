#!/usr/bin/env bash
# The same CPU workloads with two builds, one after the other on the same
# machine: BEFORE and AFTER are folders holding rnad-learner and
# rnad-evaluator built from two commits (`cargo build --release -p
# rnad-learner-cli -p rnad-evaluator` at each, the binaries copied apart).
# Each workload runs REPEATS times (default 2), the builds alternating;
# the figures go to OUT (default this folder) as BUILD-WORKLOAD-N.json or
# .txt, and `summary.py` tabulates them.
#   BEFORE=/tmp/before AFTER=/tmp/after bash compare.sh
set -euo pipefail
cd "$(dirname "$0")/../../../.."
before=${BEFORE:?folder of the build before}
after=${AFTER:?folder of the build after}
out=${OUT:-docs/results/networks/cpu-avx512}
repeats=${REPEATS:-2}
holdem=docs/results/holdem
log=$(mktemp -d)/heuristic.log
# Training data for gain-train: 1,000 duplicate deals (2,000 hands) of
# the heuristic player against itself.
"$after/rnad-evaluator" match --game holdem --players heuristic,heuristic --deals 1000 \
    --seed 3 --log "$log" --json > /dev/null
run() { # build-name, binaries, repeat
    local b=$2 tag="$1" n=$3
    # One thread a product, as the binaries give an actor or the evaluator.
    export RAYON_NUM_THREADS=1
    "$b/rnad-evaluator" lbr --game holdem --player "gain:$holdem/card-gpu/gen1.safetensors" \
        --bets fcpa --hands 4 --seed 5 --json > "$out/$tag-lbr-gen1-$n.json"
    "$b/rnad-evaluator" match --game holdem \
        --players "gain:$holdem/generations-gpu/gen2.safetensors,heuristic" \
        --deals 200 --seed 9 --json > "$out/$tag-match-gen2-heuristic-$n.json"
    "$b/rnad-evaluator" gain-train --game holdem --log "$log" --out "$(dirname "$log")/$tag.safetensors" \
        --steps 60 --batch 32 --seed 1 > "$out/$tag-gain-train-$n.txt" 2>&1
    unset RAYON_NUM_THREADS
    "$b/rnad-learner" bench --config configs/holdem.toml --seconds 3 \
        --set network.torso=card_conv --set "network.hidden=[32,256,256]" \
        --out "$out/$tag-bench-holdem-card_conv-$n.json" > /dev/null
    "$b/rnad-learner" bench --config configs/leduc-reference.toml --seconds 3 \
        --set network.torso=mlp --set "network.hidden=[256,256]" \
        --out "$out/$tag-bench-leduc-mlp-$n.json" > /dev/null
    echo "done: $tag, run $n" >&2
}
for n in $(seq 1 "$repeats"); do
    run before "$before" "$n"
    run after "$after" "$n"
done
