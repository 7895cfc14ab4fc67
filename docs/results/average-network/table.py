"""Prints, for each seed's history in FOLDER, the exact NashConv of
θ_target, its post-processed policy, the tabular target_average and the
averaged network at evaluations near every MINUTES minutes of training, as
a markdown table, then the ratio of the two averages from minute 4 on and
their means from minute 8 on. Given several folders (runs of one setting),
it prints each folder's tables, then the ratio over all their runs.
Usage: python3 table.py [MINUTES [FOLDER...]] (each FOLDER holds
seed-N/history.jsonl.gz; default this folder)."""
import gzip
import json
import pathlib
import statistics
import sys

every = 60 * float(sys.argv[1] if len(sys.argv) > 1 else 2)
folders = [pathlib.Path(f) for f in sys.argv[2:]] or [pathlib.Path(__file__).parent]


def ratios_from_minute_4(entries):
    """The averaged network's NashConv over the table's at every evaluation
    from minute 4 on (both averages of the same run at the same step)."""
    return [
        e["nash_conv"]["average_network"] / e["nash_conv"]["target_average"]
        for e in entries
        if e["wall_seconds"] >= 240
    ]


def print_folder(runs):
    print("| seed | minute | step | target | target_postprocessed | target_average (table) | average_network |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for seed, entries in runs:
        mark = 0.0
        for i, e in enumerate(entries):
            last = i == len(entries) - 1
            if e["wall_seconds"] + 1e-9 < mark and not last:
                continue
            mark = e["wall_seconds"] - e["wall_seconds"] % every + every
            n = e["nash_conv"]
            print(
                f"| {seed} | {e['wall_seconds'] / 60:.1f} | {e['learner_step']:,} | {n['target']:.3f} "
                f"| {n['target_postprocessed']:.3f} | {n['target_average']:.3f} | {n['average_network']:.3f} |"
            )
    print()
    print(
        "| seed | evaluations from minute 4 | network / table: mean | min | max | at the last "
        "| from minute 8: network | table |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for seed, entries in runs:
        ratios = ratios_from_minute_4(entries)
        late = [e["nash_conv"] for e in entries if e["wall_seconds"] >= 480]
        network, table = (sum(n[kind] for n in late) / len(late) for kind in ("average_network", "target_average"))
        print(
            f"| {seed} | {len(ratios)} | {sum(ratios) / len(ratios):.2f} | {min(ratios):.2f} "
            f"| {max(ratios):.2f} | {ratios[-1]:.2f} | {network:.3f} | {table:.3f} |"
        )


all_runs = []
for folder in folders:
    runs = [
        (history.parent.name.split("-")[1], [json.loads(line) for line in gzip.open(history, "rt").read().splitlines()])
        for history in sorted(folder.glob("seed-*/history.jsonl.gz"))
    ]
    if len(folders) > 1:
        print(f"\n{folder}\n")
    print_folder(runs)
    all_runs += runs

if len(folders) > 1:
    per_run = [ratios_from_minute_4(entries) for _, entries in all_runs]
    pooled = [r for ratios in per_run for r in ratios]
    means = [statistics.mean(ratios) for ratios in per_run]
    print(
        f"\nall {len(per_run)} runs: network / table from minute 4, mean of the runs' means "
        f"{statistics.mean(means):.2f} (sd {statistics.stdev(means):.2f}), median of all "
        f"{len(pooled)} evaluations {statistics.median(pooled):.2f}, share over 1.5 "
        f"{sum(r > 1.5 for r in pooled) / len(pooled):.3f}, over 2 {sum(r > 2 for r in pooled) / len(pooled):.3f}"
    )
