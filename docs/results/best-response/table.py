"""Prints br.jsonl (run.sh's output) as one markdown table per game: for
each frozen policy and budget, the learned best response's gain as a
fraction of the exact one's in every seat, the NashConv both give, and
the training time."""
import json
import pathlib

rows = [json.loads(line) for line in (pathlib.Path(__file__).parent / "br.jsonl").open()]
for game in dict.fromkeys(r["game"] for r in rows):
    print(f"\n{game}:\n")
    print("| policy | steps | learned / exact gain, each seat | learned NashConv | exact NashConv | seconds |")
    print("|---|---:|---|---:|---:|---:|")
    for r in (r for r in rows if r["game"] == game):
        report = r["report"]
        seats = ", ".join(
            "—" if s["fraction"] is None else f"{100 * s['fraction']:.1f}%" for s in report["seats"]
        )
        seconds = sum(s["seconds"] for s in report["seats"])
        print(
            f"| {r['policy']} | {r['budget']} | {seats} | {report['learned_nash_conv']:.4f} "
            f"| {report['exact_nash_conv']:.4f} | {seconds:.0f} |"
        )
