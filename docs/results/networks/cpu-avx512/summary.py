#!/usr/bin/env python3
"""Tabulates compare.sh's figures (in OUT, default this folder): each
workload's figure for the build before and after, every repeat, and the
ratio of their means, as a Markdown table. Every figure is a rate: higher
is faster."""
import json
import os
import pathlib
import re
import statistics

HERE = pathlib.Path(os.environ.get("OUT", pathlib.Path(__file__).parent))


def read_result(path):
    """A JSON report as a dict, or gain-train's log as its last
    samples_per_second."""
    text = path.read_text()
    if path.suffix == ".txt":
        return float(re.findall(r"samples_per_second=([0-9.]+)", text)[-1])
    return json.loads(text)


WORKLOADS = [
    ("LBR (fcpa) against generation 1, 4 hands, seed 5: hands/s", "lbr-gen1",
     lambda r: r["hands_per_second"]),
    ("generation 2 against the heuristic player, 200 duplicate deals: games/s",
     "match-gen2-heuristic", lambda r: r["games_per_second"]),
    ("`gain-train`, 60 steps of 32 on 2,000 heuristic hands: samples/s", "gain-train",
     lambda r: r),
]

# Each `rnad-learner bench` report gives the same three figures.
BENCH_FIGURES = [
    ("learner steps/s", "learner_steps_per_second"),
    ("one actor thread's decisions/s", "actor_decisions_per_second"),
    ("whole local run, steps/s", "end_to_end_steps_per_second"),
]
for title, stem in [
    ("card torso on hold'em `[32,256,256]`", "bench-holdem-card_conv"),
    ("MLP on Leduc `[256,256]`", "bench-leduc-mlp"),
]:
    for index, (figure, field) in enumerate(BENCH_FIGURES):
        name = f"{title}: {figure}" if index == 0 else f"the same: {figure}"
        WORKLOADS.append((name, stem, lambda r, field=field: r[field]))


def repeat(path):
    """The repeat number a file's name ends with."""
    return int(path.stem.rsplit("-", 1)[1])


def values(build, stem, pick):
    files = sorted(HERE.glob(f"{build}-{stem}-[0-9]*.*"), key=repeat)
    return [pick(read_result(f)) for f in files]


def show(xs):
    return ", ".join(f"{x:,.0f}" if x >= 100 else f"{x:#.3g}" for x in xs)


print("| what | before | after | ratio of means |")
print("|---|---:|---:|---:|")
for name, stem, pick in WORKLOADS:
    before, after = values("before", stem, pick), values("after", stem, pick)
    ratio = statistics.mean(after) / statistics.mean(before)
    print(f"| {name} | {show(before)} | {show(after)} | {ratio:.2f} |")
