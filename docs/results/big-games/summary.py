"""The big games' benchmark table (bench.sh): per case, each figure of the
earlier build and the later one and their ratio."""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/big-games/figures.jsonl"
rows = [json.loads(line) for line in open(path)]
FIGURES = [
    ("learner_steps_per_second", "learner steps/s", "{:,.3g}"),
    ("learner_decisions_per_second", "learner decisions/s", "{:,.0f}"),
    ("actor_decisions_per_second", "actor decisions/s", "{:,.0f}"),
    ("end_to_end_decisions_per_second", "local run decisions/s", "{:,.0f}"),
    ("wire_bytes_per_decision", "wire bytes/decision", "{:,.0f}"),
    ("dense_wire_bytes_per_decision", "protocol 7 bytes/decision", "{:,.0f}"),
]
print("| case | figure | before | after | after / before |")
print("|---|---|---:|---:|---:|")
cases = []
for row in rows:
    if row["case"] not in cases:
        cases.append(row["case"])
for case in cases:
    by = {row["build"]: row for row in rows if row["case"] == case}
    lines = [(name, fmt, by.get("before", {}).get("bench", {}).get(key), by.get("after", {}).get("bench", {}).get(key)) for key, name, fmt in FIGURES]
    rss = tuple(by.get(b, {}).get("local_max_rss_kb") for b in ("before", "after"))
    lines.append(("local run resident MB (max)", "{:,.0f}", *(r / 1024 if r else None for r in rss)))
    for name, fmt, b, a in lines:
        if b is None and a is None:
            continue
        show = lambda v: "—" if v is None else fmt.format(v)
        ratio = f"{a / b:.2f}" if a is not None and b else "—"
        print(f"| {case} | {name} | {show(b)} | {show(a)} | {ratio} |")
