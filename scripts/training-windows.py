#!/usr/bin/env python3
"""Means of a run's training log over windows of learner steps, as CSV.

    python3 scripts/training-windows.py RUN_DIR [WINDOW_STEPS] > windows.csv

One row per window of WINDOW_STEPS learner steps (default 50000), named by
the step it ends at, with the mean of every numeric column of
RUN_DIR/training.jsonl or training.jsonl.gz (pinned_logits, loss_value,
learning_rate, ...)
over the lines that have it; a column no line of a window has is left
empty. Small enough to commit where the log itself is not.
"""
import csv
import gzip
import json
import os
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run_dir = sys.argv[1]
    window = int(sys.argv[2]) if len(sys.argv) == 3 else 50000
    if window <= 0:
        sys.exit(f"WINDOW_STEPS must be a positive number of steps, not {window}")
    sums, counts, columns = {}, {}, []
    path = f"{run_dir}/training.jsonl"
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as log:
        for number, line in enumerate(log, 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path} line {number}: {error}")
            end = -(-row["learner_step"] // window) * window
            bucket = sums.setdefault(end, {})
            seen = counts.setdefault(end, {})
            for key, value in row.items():
                if key == "learner_step" or not isinstance(value, (int, float)):
                    continue
                if key not in columns:
                    columns.append(key)
                bucket[key] = bucket.get(key, 0.0) + value
                seen[key] = seen.get(key, 0) + 1
    out = csv.writer(sys.stdout)
    out.writerow(["window_end_step"] + columns)
    for end in sorted(sums):
        means = [repr(sums[end][c] / counts[end][c]) if c in counts[end] else "" for c in columns]
        out.writerow([end] + means)


if __name__ == "__main__":
    main()
