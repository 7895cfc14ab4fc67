#!/usr/bin/env bash
# Seed 003's experiment: the points of `epsilon` as x = cK/N varies over
# 0 … 1 and of `softmax` as r varies over 0 … 5, each seated with four
# UCB1-tuned, four random-sampling and four default players (its figures
# 2 and 3), and the five-player table of majority, epsilon, ucb1-tuned,
# random-sampling and softmax (its figure 4); every Monte-Carlo player at
# N playouts a decision. Writes JSON lines to OUT (default
# docs/results/daihinmin/experiment.jsonl), one per configuration in the
# order below.
# At N = 1500 and 20 deals (100 games) a configuration, about an hour on
# one core; JOBS runs that many configurations at once (N, DEALS, JOBS and
# SEED, the deals' seed, default 3, override the defaults). OPPONENTS, X_VALUES and R_VALUES set the grid,
# TABLE=no leaves out the five-player table, and TABLE_EXTRA adds
# configurations after it (lines of figure, parameter, players).
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=${N:-1500}
deals=${DEALS:-20}
jobs=${JOBS:-1}
seed=${SEED:-3}
out=${OUT:-docs/results/daihinmin/experiment.jsonl}
opponents=${OPPONENTS:-ucb1-tuned:$n random-sampling:$n default}
x_values=${X_VALUES:-0 0.2 0.4 0.6 0.8 1}
r_values=${R_VALUES:-0.01 1 2 3 4 5}
parts=$(mktemp -d)
# A copy, so that rebuilding the workspace during the run changes nothing.
evaluator="$parts/rnad-evaluator"
cp target/release/rnad-evaluator "$evaluator"

# One configuration a line: figure, parameter, players.
configurations() {
    for opponent in $opponents; do
        others="$opponent,$opponent,$opponent,$opponent"
        for x in $x_values; do
            echo "2 x=$x epsilon:$n:$x,$others"
        done
        for r in $r_values; do
            echo "3 r=$r softmax:$n:$r,$others"
        done
    done
    if [ "${TABLE:-yes}" = yes ]; then
        echo "4 - majority:$n,epsilon:$n,ucb1-tuned:$n,random-sampling:$n,softmax:$n"
    fi
    if [ -n "${TABLE_EXTRA:-}" ]; then
        echo "$TABLE_EXTRA"
    fi
}

# Plays configuration number $1 (figure $2, parameter $3, players $4) into its own part.
play() {
    # A fresh shell for each configuration: a failing match must fail it.
    set -euo pipefail
    local part="$parts/$(printf %03d "$1")"
    local parameter=$3
    [ "$parameter" = - ] && parameter=
    printf '{"figure":"%s","parameter":"%s","players":"%s","report":' "$2" "$parameter" "$4" > "$part.tmp"
    "$evaluator" match --game daihinmin --players "$4" --deals "$deals" --seed "$seed" --json | tr -d '\n' >> "$part.tmp"
    printf '}\n' >> "$part.tmp"
    mv "$part.tmp" "$part"
    echo "done: figure $2 $parameter $4" >&2
}
export -f play
export evaluator deals seed parts

# The count of finished parts below decides whether every one succeeded.
configurations | nl -nln -w1 -s' ' | xargs -P "$jobs" -L 1 bash -c 'play "$@"' _ || true
total=$(configurations | wc -l)
if [ "$(find "$parts" -name '[0-9][0-9][0-9]' | wc -l)" -ne "$total" ]; then
    echo "some configurations failed; the finished ones are in $parts" >&2
    exit 1
fi
cat "$parts"/[0-9][0-9][0-9] > "$out"
rm -rf "$parts"
echo "wrote $out ($total configurations)" >&2
