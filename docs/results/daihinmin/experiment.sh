#!/usr/bin/env bash
# Seed 003's experiment: the points of `epsilon` as x = cK/N varies over
# 0 … 1 and of `softmax` as r varies over 0 … 5, each seated with four
# UCB1-tuned, four random-sampling and four default players (its figures
# 2 and 3), and the five-player table of majority, epsilon, ucb1-tuned,
# random-sampling and softmax (its figure 4); every Monte-Carlo player at
# N playouts a move. Writes JSON lines to docs/results/daihinmin/experiment.jsonl.
# At N = 1500 and 20 deals (100 games) a configuration, one to two hours on
# one core: run it in the background (N and DEALS override).
set -euo pipefail
cd "$(dirname "$0")/../../.."
evaluator=target/release/rnad-evaluator
n=${N:-1500}
deals=${DEALS:-20}
out=docs/results/daihinmin/experiment.jsonl
: > "$out.tmp"
run() { # figure, parameter, players
    printf '{"figure":"%s","parameter":"%s","players":"%s","report":' "$1" "$2" "$3" >> "$out.tmp"
    "$evaluator" match --game daihinmin --players "$3" --deals "$deals" --seed 3 --json | tr -d '\n' >> "$out.tmp"
    printf '}\n' >> "$out.tmp"
}
for opponent in "ucb1-tuned:$n" "random-sampling:$n" default; do
    others="$opponent,$opponent,$opponent,$opponent"
    for x in 0 0.2 0.4 0.6 0.8 1; do
        run 2 "x=$x" "epsilon:$n:$x,$others"
    done
    for r in 0.01 1 2 3 4 5; do
        run 3 "r=$r" "softmax:$n:$r,$others"
    done
done
run 4 "" "majority:$n,epsilon:$n,ucb1-tuned:$n,random-sampling:$n,softmax:$n"
mv "$out.tmp" "$out"
