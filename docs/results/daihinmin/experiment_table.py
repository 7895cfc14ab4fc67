#!/usr/bin/env python3
"""Seed 003's tuning curves from experiment.sh JSON-lines files (the
arguments, default experiment-default.jsonl and, where it exists,
experiment-default-more.jsonl): per configuration the varied player's
points a game with its 95% interval over deals, as Markdown tables. Files
of the same configurations on other deals are pooled: the mean weighted
by games, the interval from each file's standard error weighted the
same way."""
import json
import pathlib
import sys

here = pathlib.Path(__file__).parent
paths = [pathlib.Path(p) for p in sys.argv[1:]] or [
    p for p in (here / "experiment-default.jsonl", here / "experiment-default-more.jsonl") if p.exists()
]
pooled = {}
for path in paths:
    for line in path.open():
        row = json.loads(line)
        key = (row["figure"], row["parameter"], row["players"])
        first = row["report"]["raw"][0]
        games = row["report"]["games"]
        if key not in pooled:
            pooled[key] = {"figure": row["figure"], "name": first["name"], "parts": []}
        pooled[key]["parts"].append((games, first["mean"], first["ci95"] / 1.96))
rows = []
for row in pooled.values():
    games = sum(g for g, _, _ in row["parts"])
    mean = sum(g * m for g, m, _ in row["parts"]) / games
    se = sum((g * s) ** 2 for g, _, s in row["parts"]) ** 0.5 / games
    rows.append({"figure": row["figure"], "name": row["name"], "games": games, "mean": mean, "ci95": 1.96 * se})
titles = {"2": "epsilon:1500:x (x = cK/N)", "3": "softmax:1500:r", "m": "other players"}
for figure in ["2", "3", "m"]:
    chosen = [r for r in rows if r["figure"] == figure]
    if not chosen:
        continue
    print(f"\n{titles[figure]}, with four default players:\n")
    print("| player | games | points/game (95%) |")
    print("|---|---:|---:|")
    for r in chosen:
        # Returns are points less their mean 3.
        print(f"| {r['name']} | {r['games']} | {r['mean'] + 3:.2f} ± {r['ci95']:.2f} |")
