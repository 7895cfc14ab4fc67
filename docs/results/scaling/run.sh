#!/usr/bin/env bash
# The served stack as users scale it: `rnad-learner serve`, N `rnad-actor`
# processes and `rnad-evaluator watch`, on 127.0.0.1, for each game and N.
# Each run lasts RUN_SECONDS; from WARMUP_SECONDS on, every SAMPLE_SECONDS
# the learner's /metrics page (decisions consumed, steps, policy lag, queue
# depth and capacity) and every process's CPU time (/proc/PID/stat) are
# read. Each line of OUT/samples.jsonl is one sample of one run;
# summary.py turns them into OUT/figures.json, the table and the figure.
#
#   bash docs/results/scaling/run.sh            # release binaries in target/release
#   COUNTS="1 2 4 8 16" GAMES="holdem" bash docs/results/scaling/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=${BIN:-target/release}
out=${OUT:-docs/results/scaling}
counts=${COUNTS:-1 2 4 8}
games=${GAMES:-holdem daihinmin}
run_seconds=${RUN_SECONDS:-75}
warmup=${WARMUP_SECONDS:-15}
every=${SAMPLE_SECONDS:-5}
mkdir -p "$out"
: >"$out/samples.jsonl"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# utime + stime of PID, in clock ticks (0 once it is gone).
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}

for game in $games; do
    for n in $counts; do
        echo "$game, $n actor processes" >&2
        work=$(mktemp -d)
        port=$(free_port)
        metrics=$(free_port)
        pids=()
        "$bin/rnad-learner" serve --config "configs/$game.toml" --listen "127.0.0.1:$port" \
            --metrics "127.0.0.1:$metrics" --run-dir "$work/run" --set actors.count="$n" \
            >"$work/learner.log" 2>&1 &
        learner=$!
        for i in $(seq 1 "$n"); do
            "$bin/rnad-actor" --learner "127.0.0.1:$port" --seed "$i" >"$work/actor-$i.log" 2>&1 &
            pids+=($!)
        done
        "$bin/rnad-evaluator" watch --learner "127.0.0.1:$port" --history "$work/history.jsonl" \
            >"$work/watch.log" 2>&1 &
        watcher=$!
        start=$(date +%s.%N)
        sleep "$warmup"
        while python3 -c "import sys,time; sys.exit(time.time() - $start >= $run_seconds)"; do
            page=$(curl -s "http://127.0.0.1:$metrics/metrics" || true)
            actor_ticks=0
            for pid in "${pids[@]}"; do actor_ticks=$((actor_ticks + $(cpu_ticks "$pid"))); done
            printf '%s' "$page" | python3 -c '
import json, sys, time
page, game, n, learner, actors, watcher, start = sys.stdin.read(), *sys.argv[1:]
def metric(name):
    for line in page.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None
print(json.dumps({
    "game": game, "actors": int(n), "seconds": time.time() - float(start),
    "decisions": metric("rnad_learner_decisions_total"),
    "step": metric("rnad_learner_step"),
    "lag_sum": metric("rnad_learner_policy_lag_sum"),
    "lag_count": metric("rnad_learner_policy_lag_count"),
    "queue_depth": metric("rnad_learner_queue_depth"),
    "queue_capacity": metric("rnad_learner_queue_capacity"),
    "dropped": metric("rnad_learner_dropped_trajectories_total"),
    "cpu_ticks": {"learner": int(learner), "actors": int(actors), "watch": int(watcher)},
}))' "$game" "$n" "$(cpu_ticks "$learner")" "$actor_ticks" "$(cpu_ticks "$watcher")" "$start" \
                >>"$out/samples.jsonl"
            sleep "$every"
        done
        kill -INT "$watcher" "${pids[@]}" 2>/dev/null || true
        kill -INT "$learner" 2>/dev/null || true
        wait 2>/dev/null || true
        rm -rf "$work"
    done
done
python3 "$(dirname "$0")/summary.py" "$out"
