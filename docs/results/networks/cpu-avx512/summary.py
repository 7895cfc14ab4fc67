#!/usr/bin/env python3
"""Tabulates compare.sh's figures: each workload's figure for the build
before and after, every repeat, and the ratio of their means, as a
Markdown table."""
import json
import pathlib
import re
import statistics

HERE = pathlib.Path(__file__).parent


def figure(path):
    """The figure a file holds: higher is faster for every one."""
    text = path.read_text()
    if path.suffix == ".txt":
        # gain-train logs samples_per_second at its last step.
        return float(re.findall(r"samples_per_second=([0-9.]+)", text)[-1])
    report = json.loads(text)
    return report


WORKLOADS = [
    ("LBR (fcpa) against generation 1, 4 hands, seed 5: hands/s", "lbr-gen1",
     lambda r: r["hands_per_second"]),
    ("generation 2 against the heuristic player, 200 duplicate deals: games/s",
     "match-gen2-heuristic", lambda r: r["games_per_second"]),
    ("`gain-train`, 60 steps of 32 on 2,000 heuristic hands: samples/s", "gain-train",
     lambda r: r),
    ("card torso on hold'em `[32,256,256]`: learner steps/s", "bench-holdem-card_conv",
     lambda r: r["learner_steps_per_second"]),
    ("the same: one actor thread's decisions/s", "bench-holdem-card_conv",
     lambda r: r["actor_decisions_per_second"]),
    ("the same: whole local run, steps/s", "bench-holdem-card_conv",
     lambda r: r["end_to_end_steps_per_second"]),
    ("MLP on Leduc `[256,256]`: learner steps/s", "bench-leduc-mlp",
     lambda r: r["learner_steps_per_second"]),
    ("the same: one actor thread's decisions/s", "bench-leduc-mlp",
     lambda r: r["actor_decisions_per_second"]),
    ("the same: whole local run, steps/s", "bench-leduc-mlp",
     lambda r: r["end_to_end_steps_per_second"]),
]


def values(build, stem, pick):
    files = sorted(HERE.glob(f"{build}-{stem}-*.*"))
    return [pick(figure(f)) for f in files]


def show(xs):
    return ", ".join(f"{x:,.0f}" if x >= 100 else f"{x:.3g}" for x in xs)


print("| what | before | after | ratio of means |")
print("|---|---:|---:|---:|")
for name, stem, pick in WORKLOADS:
    before, after = values("before", stem, pick), values("after", stem, pick)
    ratio = statistics.mean(after) / statistics.mean(before)
    print(f"| {name} | {show(before)} | {show(after)} | {ratio:.2f} |")
