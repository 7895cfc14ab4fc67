"""The before/after table of the rooms issue's comparison (compare.sh):
the bench's figures per repeat and their means, and each Leduc run's
steps, decisions and NashConv at its end."""
import gzip
import json
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
FIELDS = [
    ("learner_steps_per_second", "learner steps/s"),
    ("learner_decisions_per_second", "learner decisions/s"),
    ("actor_decisions_per_second", "actor decisions/s"),
    ("end_to_end_decisions_per_second", "local run decisions/s"),
    ("neural_nash_conv_seconds", "neural NashConv s"),
]
print("| figure | before (each repeat) | after (each repeat) | after / before (means) |")
print("|---|---|---|---:|")
for key, name in FIELDS:
    cells, means = [], []
    for who in ("before", "after"):
        values = [
            json.loads(path.read_text())[key]
            for path in sorted((out / "bench").glob(f"{who}-*.json"))
        ]
        cells.append(" / ".join(f"{v:,.4g}" for v in values))
        means.append(statistics.mean(values))
    print(f"| {name} | {cells[0]} | {cells[1]} | {means[1] / means[0]:.3f} |")

print()
print("| Leduc run | wall s | learner steps | decisions | NashConv (target_average) | NashConv (target) |")
print("|---|---:|---:|---:|---:|---:|")
for who in ("before", "after"):
    path = out / f"leduc-{who}" / "history.jsonl.gz"
    if not path.exists():
        continue
    last = [json.loads(line) for line in gzip.open(path, "rt")][-1]
    nc = last.get("nash_conv") or {}
    average = nc.get("target_average")
    print(
        f"| {who} | {last['wall_seconds']:.0f} | {last['learner_step']:,} | {last['decisions']:,} "
        f"| {average if average is None else f'{average:.4f}'} | {nc.get('target', float('nan')):.4f} |"
    )
