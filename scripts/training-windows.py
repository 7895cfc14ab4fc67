#!/usr/bin/env python3
"""Means of a run's training log over windows of learner steps, as CSV.

    python3 scripts/training-windows.py RUN_DIR [WINDOW_STEPS] > windows.csv

One row per window: its last step and the mean of every numeric column of
RUN_DIR/training.jsonl (pinned_logits, loss_value, learning_rate, ...)
over the lines in it. Small enough to commit where the log itself is not.
"""
import csv
import json
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run_dir = sys.argv[1]
    window = int(sys.argv[2]) if len(sys.argv) == 3 else 50000
    sums, counts, columns = {}, {}, []
    with open(f"{run_dir}/training.jsonl") as log:
        for number, line in enumerate(log, 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{run_dir}/training.jsonl line {number}: {error}")
            end = -(-row["learner_step"] // window) * window
            bucket = sums.setdefault(end, {})
            counts[end] = counts.get(end, 0) + 1
            for key, value in row.items():
                if key == "learner_step" or not isinstance(value, (int, float)):
                    continue
                if key not in columns:
                    columns.append(key)
                bucket[key] = bucket.get(key, 0.0) + value
    out = csv.writer(sys.stdout)
    out.writerow(["window_end_step"] + columns)
    for end in sorted(sums):
        out.writerow([end] + [repr(sums[end].get(c, 0.0) / counts[end]) for c in columns])


if __name__ == "__main__":
    main()
