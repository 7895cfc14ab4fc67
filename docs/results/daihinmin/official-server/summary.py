#!/usr/bin/env python3
"""Summarises results.jsonl (run.sh): every match's clients and points,
and rnad's default player (seat 0) against four of the devkit's own
clients, in points a game with a 95% interval over matches."""
import json
import math
import pathlib

lines = [json.loads(l) for l in (pathlib.Path(__file__).parent / "results.jsonl").open()]
matches = [l for l in lines if "server_points" in l]
clients = [l for l in lines if "client" in l]
print("| players (connection order) | points by player (100 games) | rnad clients with a whole match, no refusal, no resynchronisation |")
print("|---|---|---|")
at = 0
for m in matches:
    seats = m["players"].split()
    mine = [c["client"] for c in clients[at:at + len(seats)] if c["client"] is not None]
    at += len(seats)
    clean = sum(
        1 for c in mine
        if c["games"] == 100 and c["refused_plays"] == 0 and c["resynchronised"] == 0
    )
    names = " ".join(s.split("/")[-1] for s in seats)
    points = " ".join(map(str, m["server_points"]))
    print(f"| {names} | {points} | {clean} of {len(mine)} |")
against = [m["server_points"][0] / 100 for m in matches if m["players"].startswith("default devkit")]
if len(against) > 1:
    mean = sum(against) / len(against)
    sd = math.sqrt(sum((x - mean) ** 2 for x in against) / (len(against) - 1))
    half = 1.96 * sd / math.sqrt(len(against))
    print(f"\nrnad `default` among four devkit clients: {mean:.2f} ± {half:.2f} points a game "
          f"over {len(against)} matches ({100 * len(against)} games; 3.00 is an equal share)")
