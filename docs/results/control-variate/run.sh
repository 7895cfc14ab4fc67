#!/usr/bin/env bash
# The control variate before and after it asked its value function only
# where it can know the values (ControlVariate in
# games/src/headtohead/control_variate.rs): the same duplicate matches,
# the same checkpoint as value function, with OLD (an rnad-evaluator built
# before that change) and NEW. Leduc: an R-NaD checkpoint trained two
# minutes (docs/results/best-response/run.sh), 20,000 deals; hold'em: one
# trained ten minutes with configs/holdem.toml, 5,000 deals. Writes one
# JSON line per match to results.jsonl beside this script.
#   OLD=/path/to/old/rnad-evaluator LEDUC=CKPT HOLDEM=CKPT bash run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/control-variate
new=${NEW:-target/release/rnad-evaluator}
: > "$here/results.jsonl.tmp"
run() { # game checkpoint opponent deals
    for which in old new; do
        bin=$OLD; [ "$which" = new ] && bin=$new
        printf '{"build":"%s","game":"%s","opponent":"%s","report":' "$which" "$1" "${3%%:*}" >> "$here/results.jsonl.tmp"
        "$bin" match --game "$1" --players "checkpoint:$2,$3" --deals "$4" --seed 3 --value-function "$2" --json \
            | tr -d '\n' >> "$here/results.jsonl.tmp"
        printf '}\n' >> "$here/results.jsonl.tmp"
    done
}
for opponent in uniform call "checkpoint:$LEDUC"; do run leduc_poker "$LEDUC" "$opponent" 20000; done
for opponent in heuristic uniform call; do run holdem "$HOLDEM" "$opponent" 5000; done
mv "$here/results.jsonl.tmp" "$here/results.jsonl"
