#!/usr/bin/env bash
# Seed 004's generations of convolutional players and its Table 3.
#
# Generation 1 learns from HANDS hands of the heuristic player against
# itself. Each next generation learns from HANDS hands of the newest
# generation against itself, against every earlier generation and against
# the heuristic player, in equal shares. Then every pair among uniform
# (seed 004's random player), heuristic and the generations plays
# 2 x TABLE_DEALS duplicate hands, and LBR (fcpa) plays LBR_HANDS hands
# against each generation. Everything goes to OUT: the logs, the networks
# (genK.safetensors), table.jsonl and lbr.jsonl.
#
# Seed 004's sizes are the defaults; on one CPU core they take days (a
# training step of 32 decisions costs about half a second, a match
# decision of a network about 10 ms). HANDS=2000 STEPS=200
# TABLE_DEALS=200 LBR_HANDS=200 checks the pipeline in minutes.
# GEN1=FILE starts from a generation 1 trained elsewhere (such as
# card-gpu/gen1.safetensors, seed 004's sizes on a GPU) instead of
# training one; LBR_HANDS=0 skips LBR (about 10 s a decision against a
# network on a core).
set -euo pipefail
cd "$(dirname "$0")/../../.."
hands=${HANDS:-200000}
steps=${STEPS:-44000}
table_deals=${TABLE_DEALS:-50000}
lbr_hands=${LBR_HANDS:-10000}
generations=${GENERATIONS:-3}
out=${OUT:-docs/results/holdem/generations}
mkdir -p "$out"
# A copy, so that rebuilding the workspace during the run changes nothing.
evaluator="$out/.rnad-evaluator"
cp target/release/rnad-evaluator "$evaluator"
trap 'rm -f "$evaluator"' EXIT

play() { # log, players, deals, seed
    "$evaluator" match --game holdem --players "$2" --deals "$3" --seed "$4" --log "$1" --json > /dev/null
}

if [ -n "${GEN1:-}" ]; then
    cp "$GEN1" "$out/gen1.safetensors"
else
    play "$out/gen1.log" heuristic,heuristic $((hands / 2)) 41
    "$evaluator" gain-train --game holdem --log "$out/gen1.log" --out "$out/gen1.safetensors" \
        --steps "$steps" --generation 1 --seed 1
fi
for g in $(seq 2 "$generations"); do
    newest="gain:$out/gen$((g - 1)).safetensors"
    opponents=(heuristic)
    for k in $(seq 1 $((g - 1))); do opponents+=("gain:$out/gen$k.safetensors"); done
    share=$((hands / 2 / ${#opponents[@]}))
    logs=()
    for i in "${!opponents[@]}"; do
        log="$out/gen$g-$i.log"
        play "$log" "$newest,${opponents[$i]}" "$share" $((40 + g * 10 + i))
        logs+=(--log "$log")
    done
    "$evaluator" gain-train --game holdem "${logs[@]}" --out "$out/gen$g.safetensors" \
        --steps "$steps" --generation "$g" --seed "$g"
done

players=(uniform heuristic)
for g in $(seq 1 "$generations"); do players+=("gain:$out/gen$g.safetensors"); done
: > "$out/table.jsonl.tmp"
for i in "${!players[@]}"; do
    for j in "${!players[@]}"; do
        [ "$i" -lt "$j" ] || continue
        "$evaluator" match --game holdem --players "${players[$i]},${players[$j]}" \
            --deals "$table_deals" --seed 4 --json >> "$out/table.jsonl.tmp"
    done
done
mv "$out/table.jsonl.tmp" "$out/table.jsonl"
[ "$lbr_hands" -gt 0 ] || exit 0
: > "$out/lbr.jsonl.tmp"
for g in $(seq 1 "$generations"); do
    printf '{"generation":%d,"report":' "$g" >> "$out/lbr.jsonl.tmp"
    "$evaluator" lbr --game holdem --player "gain:$out/gen$g.safetensors" --bets fcpa \
        --hands "$lbr_hands" --seed 5 --json | tr -d '\n' >> "$out/lbr.jsonl.tmp"
    printf '}\n' >> "$out/lbr.jsonl.tmp"
done
mv "$out/lbr.jsonl.tmp" "$out/lbr.jsonl"
