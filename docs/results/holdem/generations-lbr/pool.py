#!/usr/bin/env python3
"""LBR (fcpa) of each generation pooled over every run of it: lbr.jsonl's
200-hand runs and chunks.jsonl's chunks (extend.sh). Each run gives its
hands n, mean m and 95% half-width c = 1.96 s / sqrt(n) (s the sample
standard deviation), so its sum of squared deviations is
(n - 1) s^2 = (n - 1) n (c / 1.96)^2; the pooled mean and interval are
then exactly those of all the hands taken as one run. Prints a Markdown
table, mbb/hand."""
import json
import math
import pathlib
from collections import defaultdict

here = pathlib.Path(__file__).parent
runs = defaultdict(list)
for name in ("lbr.jsonl", "chunks.jsonl"):
    path = here / name
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                report = record["report"]
                runs[record["player"]].append(
                    (report["hands"], report["mbb_per_hand"], report["ci95_mbb"])
                )

print("| player | runs | hands | LBR fcpa (mbb/hand) | ±95% |")
print("|---|---:|---:|---:|---:|")
for player in sorted(runs):
    parts = runs[player]
    total = sum(n for n, _, _ in parts)
    mean = sum(n * m for n, m, _ in parts) / total
    squares = sum(
        (n - 1) * n * (c / 1.96) ** 2 + n * (m - mean) ** 2 for n, m, c in parts
    )
    half_width = 1.96 * math.sqrt(squares / (total - 1) / total)
    name = player.removeprefix("gain:docs/results/holdem/")
    print(f"| {name} | {len(parts)} | {total:,} | {mean:+,.0f} | {half_width:,.0f} |")
