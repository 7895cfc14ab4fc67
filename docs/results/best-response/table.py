"""Prints br.jsonl (run.sh's output) and every br-large*.jsonl (run.sh at
a larger budget) as one markdown table per game: for each
frozen policy and budget (steps x episodes a step), the learned best
response's gain as a fraction of the exact one's in every seat, the
NashConv both give, and the training time."""
import json
import pathlib

here = pathlib.Path(__file__).parent
rows = [
    json.loads(line)
    for path in [here / "br.jsonl", *sorted(here.glob("br-large*.jsonl"))]
    for line in path.open()
]
for game in dict.fromkeys(r["game"] for r in rows):
    print(f"\n{game}:\n")
    print("| policy | steps × episodes | learned / exact gain, each seat | learned NashConv | exact NashConv | seconds |")
    print("|---|---:|---|---:|---:|---:|")
    for r in (r for r in rows if r["game"] == game):
        report = r["report"]
        seats = ", ".join(
            "—" if s["fraction"] is None else f"{100 * s['fraction']:.1f}%" for s in report["seats"]
        )
        seconds = sum(s["seconds"] for s in report["seats"])
        print(
            f"| {r['policy']} | {r['budget']} × {r.get('episodes_per_step', 128)} | {seats} "
            f"| {report['learned_nash_conv']:.4f} | {report['exact_nash_conv']:.4f} | {seconds:.0f} |"
        )
