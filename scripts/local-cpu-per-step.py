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
costs leaves out the time other tenants take, and 2 cores divided by it
bounds the rate.
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
    """CPU seconds (user + system) of each thread, by thread id: (name, seconds)."""
    threads = {}
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
        threads[task] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    return threads


def last_logged_step(run_dir):
    """The newest (learner step, wall seconds) of the run's training log."""
    last = None
    with open(f"{run_dir}/training.jsonl") as log:
        for line in log:
            if line.strip():
                last = json.loads(line)
    if last is None:
        raise RuntimeError(f"{run_dir}/training.jsonl has no line yet")
    return last["learner_step"], last["wall_seconds"]


def measure(command, run_dir, warmup, seconds):
    """Runs `command` and returns its threads' CPU seconds and the learner
    steps per second over the window after `warmup`."""
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(warmup)
        if run.poll() is not None:
            raise RuntimeError(f"{' '.join(command)} ended early with status {run.returncode}")
        started = time.monotonic()
        before, (step0, wall0) = thread_cpu(run.pid), last_logged_step(run_dir)
        time.sleep(seconds)
        after, (step1, wall1) = thread_cpu(run.pid), last_logged_step(run_dir)
        elapsed = time.monotonic() - started
    finally:
        run.send_signal(signal.SIGINT)
        try:
            run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
    if wall1 <= wall0:
        raise RuntimeError(f"the training log did not move in {seconds} s")
    # Threads that ended inside the window are not counted (none of the
    # local run's do); threads that began inside it count in full.
    cpu = {}
    for task, (name, seconds_after) in after.items():
        spent = seconds_after - before.get(task, (name, 0.0))[1]
        cpu[name] = cpu.get(name, 0.0) + spent
    return cpu, (step1 - step0) / (wall1 - wall0), elapsed


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
    try:
        cpu, rate, window = measure(command, run_dir, options.warmup, options.seconds)
    except RuntimeError as error:
        sys.exit(str(error))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result = {
        "label": options.label,
        "args": options.args,
        "steps_per_second": round(rate, 1),
        "cpu_ms_per_step": round(1000 * sum(cpu.values()) / window / rate, 2),
        "threads_cpu_ms_per_step": {
            name: round(1000 * spent / window / rate, 2) for name, spent in sorted(cpu.items()) if spent > 0
        },
        "cores_busy": round(sum(cpu.values()) / window, 2),
    }
    print(json.dumps(result))
    if options.out:
        with open(options.out, "a") as out:
            out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
