#!/usr/bin/env python3
"""CPU time per learner step of a local run, thread by thread (Linux).

    python3 scripts/local-cpu-per-step.py [--binary PATH] [--label NAME]
        [--warmup S] [--seconds S] [--out FILE] [-- ARGS...]

Starts `rnad-learner local` (PATH, default target/release/rnad-learner)
in a fresh scratch run directory with ARGS (e.g. `--set
actors.games_per_actor=64`) and evaluation off, waits WARMUP seconds
(default 12), reads every thread's CPU time from /proc/PID/task/*/stat,
waits SECONDS more (default 12), reads them again, and stops the run. It
prints, and appends to FILE as a JSON line: the learner steps per second
over that window (from the run's training log) and each thread's CPU
milliseconds per learner step, with their total.

Why CPU per step and not only steps per second: on a 2-core machine the
local run is CPU-bound (about 1.8 cores busy), and the machine's speed
drifts by 10-20 % from minute to minute (other tenants; `st` in vmstat),
which hides a change of that size in steps per second. The CPU a step
costs drifts far less, and 2 cores divided by it bounds the rate.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TICKS = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid):
    """CPU seconds (user + system) per thread name, summed over threads."""
    totals = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended between listing and reading
        # utime and stime are fields 14 and 15 of stat; after the command
        # name's closing parenthesis they are the 12th and 13th.
        seconds = (int(fields[11]) + int(fields[12])) / TICKS
        totals[name] = totals.get(name, 0.0) + seconds
    return totals


def step_rate(run_dir, start, end):
    """Learner steps per second between wall times start and end."""
    rows = []
    with open(f"{run_dir}/training.jsonl") as log:
        for line in log:
            row = json.loads(line)
            if start <= row["wall_seconds"] <= end:
                rows.append(row)
    if len(rows) < 2:
        sys.exit(f"{run_dir}/training.jsonl has under two lines between {start} s and {end} s")
    first, last = rows[0], rows[-1]
    return (last["learner_step"] - first["learner_step"]) / (
        last["wall_seconds"] - first["wall_seconds"]
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/rnad-learner")
    parser.add_argument("--label", default="")
    parser.add_argument("--warmup", type=float, default=12.0)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--out")
    parser.add_argument("args", nargs="*")
    options = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="rnad-cpu-per-step-")
    run_dir = f"{scratch}/run"
    command = [options.binary, "local", "--run-dir", run_dir]
    command += ["--set", "evaluation.interval_seconds=1000000", *options.args]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(options.warmup)
        if run.poll() is not None:
            sys.exit(f"{' '.join(command)} ended early with status {run.returncode}")
        started, before = time.monotonic(), thread_cpu(run.pid)
        time.sleep(options.seconds)
        after, elapsed = thread_cpu(run.pid), time.monotonic() - started
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
    rate = step_rate(run_dir, options.warmup + 0.5, options.warmup + elapsed)
    shutil.rmtree(scratch)
    threads = {
        name: round(1000 * (after[name] - before.get(name, 0.0)) / elapsed / rate, 2)
        for name in sorted(after)
        if after[name] - before.get(name, 0.0) > 0.005 * elapsed
    }
    result = {
        "label": options.label,
        "args": options.args,
        "steps_per_second": round(rate, 1),
        "cpu_ms_per_step": round(sum(threads.values()), 2),
        "threads_cpu_ms_per_step": threads,
        "cores_busy": round((sum(after.values()) - sum(before.values())) / elapsed, 2),
    }
    print(json.dumps(result))
    if options.out:
        with open(options.out, "a") as out:
            out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
