#!/usr/bin/env bash
# The rooms issue changed where code lives, not what it computes: this
# runs the binaries from before it (BEFORE_BIN, built from 290256c) and
# after it (AFTER_BIN) alternately on the same machine, REPEATS times
# `rnad-learner bench` (the Leduc reference settings, SECONDS a
# measurement) and once each the default Leduc run for RUN_SECONDS
# (`rnad-learner local`, stopped by SIGINT, which checkpoints), then
# prints the table summary.py makes of OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
before=${BEFORE_BIN:?the binaries of 290256c (git worktree add /tmp/before 290256c; cargo build --release there)}
after=${AFTER_BIN:-target/release}
out=${OUT:-docs/results/rooms}
repeats=${REPEATS:-3}
seconds=${SECONDS_EACH:-10}
run_seconds=${RUN_SECONDS:-600}
mkdir -p "$out/bench"
for r in $(seq 1 "$repeats"); do
    for who in before after; do
        bin=$before; [ "$who" = after ] && bin=$after
        echo "bench $who, repeat $r" >&2
        "$bin/rnad-learner" bench --seconds "$seconds" --out "$out/bench/$who-$r.json" 2>/dev/null
    done
done
for who in before after; do
    bin=$before; [ "$who" = after ] && bin=$after
    run=$(mktemp -d)
    echo "Leduc, $run_seconds s, $who" >&2
    timeout -s INT -k 60 "$run_seconds" "$bin/rnad-learner" local --run-dir "$run" 2>"$run.log" || tail -n 5 "$run.log" >&2
    mkdir -p "$out/leduc-$who"
    cp "$run/config.toml" "$out/leduc-$who/"
    gzip -9nc "$run/history.jsonl" >"$out/leduc-$who/history.jsonl.gz"
    awk 'NR % 10 == 1 { print; last = ""; next } { last = $0 } END { if (last != "") print last }' "$run/training.jsonl" | gzip -9n >"$out/leduc-$who/training.jsonl.gz"
    rm -rf "$run" "$run.log"
done
python3 "$(dirname "$0")/summary.py" "$out"
