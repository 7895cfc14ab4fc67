#!/usr/bin/env python3
"""Prints a table.jsonl of generations.sh as a markdown table: bb/game for
the first-named player of each pair, all-in equity with the raw result in
brackets, 95% intervals; gain:DIR/genK.safetensors is shown as gen K.

    python3 docs/results/holdem/table.py OUT/table.jsonl
"""
import json
import re
import sys


def short(name):
    found = re.search(r"gen(\d+)\.safetensors$", name)
    return f"gen {found.group(1)}" if found else name


def cell(report, kind):
    first = report[kind][0]
    big_blind = report["big_blind"]
    mean = f"{first['mean'] / big_blind:+.2f}".replace("-", "\u2212")
    return f"{mean} ± {first['ci95'] / big_blind:.2f}"


def main(path):
    with open(path) as lines:
        reports = [json.loads(line) for line in lines if line.strip()]
    results, order = {}, []
    for report in reports:
        first, second = (short(p["name"]) for p in report["raw"])
        for name in (first, second):
            if name not in order:
                order.append(name)
        results[first, second] = (
            f"{cell(report, 'all_in_equity')} ({cell(report, 'raw')})"
        )
    deals = {report["deals"] for report in reports}
    print(f"deals a pair: {', '.join(map(str, sorted(deals)))}")
    print()
    print("| first \\ second | " + " | ".join(order[1:]) + " |")
    print("|---" * len(order) + "|")
    for first in order[:-1]:
        row = [results.get((first, second), "") for second in order[1:]]
        print(f"| {first} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
