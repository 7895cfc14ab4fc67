#!/usr/bin/env bash
# Seed 004's generations of convolutional players and its Table 3.
#
# Generation 1 learns from HANDS hands of the heuristic player against
# itself. Each next generation learns from HANDS hands of the newest
# generation against itself, against every earlier generation and against
# the heuristic player, in equal shares. Then every pair among uniform
# (seed 004's random player), heuristic and the generations plays
# 2 x TABLE_DEALS duplicate hands, and LBR (fcpa) plays LBR_HANDS hands
# against each generation. Everything goes to OUT: the hand logs, the
# networks (genK.safetensors) with their training logs (genK.train.log),
# table.jsonl and lbr.jsonl.
#
# Seed 004's sizes are the defaults; on one CPU core they take days, LBR
# most of them (a training step of 32 decisions costs about a tenth of a
# second, a match game with a network in it about 8 ms, an LBR hand
# against a network about 8 s; the table, about 2 CPU hours). HANDS=2000 STEPS=200
# TABLE_DEALS=200 LBR_HANDS=200 checks the pipeline in minutes.
# GEN1=FILE starts from a generation 1 trained elsewhere (such as
# card-gpu/gen1.safetensors, seed 004's sizes on a GPU) instead of
# training one; LBR_HANDS=0 skips LBR and TABLE_DEALS=0 the table.
# On a machine with many cores and a GPU: BIN=target/cuda/release (the
# cuda build), DEVICE=cuda trains there, JOBS=N plays each generation's
# hands as about N match processes at once (one thread each: the networks
# decide on the CPU, one state at a time), N split evenly among the
# generation's pairings and at least one a pairing, so every pairing plays
# at the same time, and plays the table's pairs in waves of N;
# TRAIN_SECONDS caps each training.
# A generation whose network is already in OUT is kept: a rerun with a
# larger GENERATIONS goes on from the last one (with GEN1 set, it must be
# the generation 1 already there).
set -euo pipefail
cd "$(dirname "$0")/../../.."
hands=${HANDS:-200000}
steps=${STEPS:-44000}
table_deals=${TABLE_DEALS:-50000}
lbr_hands=${LBR_HANDS:-10000}
generations=${GENERATIONS:-3}
processes=${JOBS:-1}
[ "$processes" -ge 1 ] || { echo "JOBS must be 1 or more, not $processes" >&2; exit 2; }
device=${DEVICE:-cpu}
train_limit=()
[ -z "${TRAIN_SECONDS:-}" ] || train_limit=(--max-seconds "$TRAIN_SECONDS")
out=${OUT:-docs/results/holdem/generations}
mkdir -p "$out"
# A copy, so that rebuilding the workspace during the run changes nothing.
evaluator="$out/.rnad-evaluator"
cp "${BIN:-target/release}/rnad-evaluator" "$evaluator"
# Each table pair's report, until the table is whole.
reports_dir=$(mktemp -d)
matches=()
trap 'kill "${matches[@]}" 2> /dev/null || true; rm -rf "$evaluator" "$reports_dir"' EXIT

# Plays `deals` duplicate deals of `players` as `chunks` processes in the
# background, chunk k with seed `seed + 1000 k` into `log.k` (chunk 0 is
# the whole match when chunks is 1; a log left by an earlier run is removed
# first, so that a failed match cannot leave it to be trained on), and adds
# `--log log.k` to `logs`.
logs=()
play() { # log, players, deals, seed, chunks
    local k
    for k in $(seq 0 $(($5 - 1))); do
        rm -f "$1.$k"
        "$evaluator" match --game holdem --players "$2" --deals $((($3 + $5 - 1) / $5)) \
            --seed $(($4 + 1000 * k)) --log "$1.$k" --json > /dev/null &
        matches+=($!)
        logs+=(--log "$1.$k")
    done
}
# Waits for every match started; fails (and the trap stops the others) if
# any failed.
finish_matches() {
    local pid
    for pid in "${matches[@]}"; do wait "$pid"; done
    matches=()
}
train() { # generation; its log also goes to OUT/genG.train.log
    "$evaluator" gain-train --game holdem "${logs[@]}" --out "$out/gen$1.safetensors" \
        --steps "$steps" --generation "$1" --seed "$1" --device "$device" "${train_limit[@]}" \
        2>&1 | tee "$out/gen$1.train.log"
    logs=()
}

if [ -e "$out/gen1.safetensors" ]; then
    [ -z "${GEN1:-}" ] || cmp -s "$GEN1" "$out/gen1.safetensors" || {
        echo "$out/gen1.safetensors is not $GEN1: the generations in $out grew from another" >&2
        exit 2
    }
elif [ -n "${GEN1:-}" ]; then
    cp "$GEN1" "$out/gen1.safetensors"
else
    play "$out/gen1.log" heuristic,heuristic $((hands / 2)) 41 "$processes"
    finish_matches
    train 1
fi
for g in $(seq 2 "$generations"); do
    [ ! -e "$out/gen$g.safetensors" ] || continue
    newest="gain:$out/gen$((g - 1)).safetensors"
    opponents=(heuristic)
    for k in $(seq 1 $((g - 1))); do opponents+=("gain:$out/gen$k.safetensors"); done
    share=$((hands / 2 / ${#opponents[@]}))
    chunks=$((processes / ${#opponents[@]} > 1 ? processes / ${#opponents[@]} : 1))
    for i in "${!opponents[@]}"; do
        play "$out/gen$g-$i.log" "$newest,${opponents[$i]}" "$share" $((40 + g * 10 + i)) "$chunks"
    done
    finish_matches
    train "$g"
done
[ "$table_deals" -gt 0 ] || exit 0

players=(uniform heuristic)
for g in $(seq 1 "$generations"); do players+=("gain:$out/gen$g.safetensors"); done
# Each pair's report goes to its own file, in waves of JOBS pairs, and the
# files are joined in pair order, so the table reads the same however many
# ran at once.
reports=()
for i in "${!players[@]}"; do
    for j in "${!players[@]}"; do
        [ "$i" -lt "$j" ] || continue
        [ "${#matches[@]}" -lt "$processes" ] || finish_matches
        reports+=("$reports_dir/$i-$j.json")
        "$evaluator" match --game holdem --players "${players[$i]},${players[$j]}" \
            --deals "$table_deals" --seed 4 --json > "${reports[-1]}" &
        matches+=($!)
    done
done
finish_matches
cat "${reports[@]}" > "$out/table.jsonl"
[ "$lbr_hands" -gt 0 ] || exit 0
: > "$out/lbr.jsonl.tmp"
for g in $(seq 1 "$generations"); do
    printf '{"generation":%d,"report":' "$g" >> "$out/lbr.jsonl.tmp"
    "$evaluator" lbr --game holdem --player "gain:$out/gen$g.safetensors" --bets fcpa \
        --hands "$lbr_hands" --seed 5 --json | tr -d '\n' >> "$out/lbr.jsonl.tmp"
    printf '}\n' >> "$out/lbr.jsonl.tmp"
done
mv "$out/lbr.jsonl.tmp" "$out/lbr.jsonl"
