#!/usr/bin/env python3
"""Seed 003's tuning curves from an experiment.sh JSON-lines file (the
first argument, default experiment-default.jsonl): per configuration the
varied player's points a game with its 95% interval over deals, as
Markdown tables."""
import json
import pathlib
import sys

here = pathlib.Path(__file__).parent
path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here / "experiment-default.jsonl"
rows = [json.loads(line) for line in path.open()]
titles = {"2": "epsilon:1500:x (x = cK/N)", "3": "softmax:1500:r", "m": "other players"}
for figure in ["2", "3", "m"]:
    chosen = [r for r in rows if r["figure"] == figure]
    if not chosen:
        continue
    print(f"\n{titles[figure]}, with four default players:\n")
    print("| player | games | points/game (95%) |")
    print("|---|---:|---:|")
    for r in chosen:
        report = r["report"]
        first = report["raw"][0]
        # Returns are points less their mean 3.
        print(f"| {first['name']} | {report['games']} | {first['mean'] + 3:.2f} ± {first['ci95']:.2f} |")
