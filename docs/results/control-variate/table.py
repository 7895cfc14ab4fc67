"""Prints results.jsonl (run.sh's output) as a markdown table: for each
game and opponent of the checkpoint, in big blinds a game, the 95%
half-widths of the raw,
all-in-equity and control-variate estimates (before and after the change,
on the same games), the narrowing against the raw one, and the speed."""
import json
import pathlib

here = pathlib.Path(__file__).parent
rows = [json.loads(line) for line in (here / "results.jsonl").open()]
print("| game | opponent | deals | checkpoint's result (bb/g) | raw ± | all-in equity ± | control variate ± before | after | narrowing before → after | games/s before → after |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for old, new in zip(rows[0::2], rows[1::2]):
    assert (old["build"], new["build"]) == ("old", "new")
    o, n = old["report"], new["report"]
    bb = n["big_blind"]
    raw = n["raw"][0]["ci95"] / bb
    before = o["control_variate"][0]["ci95"] / bb
    after = n["control_variate"][0]["ci95"] / bb
    print(
        f"| {new['game']} | {new['opponent']} | {n['deals']} | {n['control_variate'][0]['mean'] / bb:+.3f} "
        f"| {raw:.3f} | {n['all_in_equity'][0]['ci95'] / bb:.3f} | {before:.3f} | {after:.3f} "
        f"| {100 * (1 - before / raw):+.0f}% → {100 * (1 - after / raw):+.0f}% "
        f"| {o['games_per_second']:.0f} → {n['games_per_second']:.0f} |"
    )
