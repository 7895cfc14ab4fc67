#!/usr/bin/env python3
"""A run's NashConv history as the Markdown tables the Leduc goals ask for.

    python3 scripts/history-summary.py RUN_DIR [--kind KIND] [--threshold T]
                                       [--minutes M] [--from-step S]

Reads RUN_DIR/history.jsonl (one evaluation per line) and RUN_DIR/config.toml
and prints:

* when the played policy (KIND, default target_average) first reached
  T (default 0.1), the highest it went after that, and where that was;
* one row per M minutes of wall time (default 10): the step at the end,
  min / mean / max of KIND, of the target and of θ_reg (reg);
* one row per regularisation period that starts at or after step S
  (default 0, so every period; a 300k-step quiet phase of 25k-step
  periods is --from-step 300000): the target's min / mean / max over the
  evaluations inside the period, θ_reg's NashConv during it, and KIND at
  its end.

Periods come from the config's entropy schedule as the learner reads it:
sizes[k] repeated repeats[k] times, the last size forever. An evaluation at
step s belongs to the period [start, start + size) that holds s.
"""
import argparse
import json
import sys
import tomllib


def load_history(path):
    rows = []
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                sys.exit(f"{path} line {number}: {error}")
    if not rows:
        sys.exit(f"{path}: no evaluations")
    return rows


def period_of(step, sizes, repeats):
    """(start, size) of the schedule's period holding `step`."""
    start = 0
    for size, count in zip(sizes, repeats):
        span = size * count
        if step < start + span:
            return start + (step - start) // size * size, size
        start += span
    size = sizes[-1]
    return start + (step - start) // size * size, size


def stats(values):
    if not values:
        return "–"
    return f"{min(values):.3f} / {sum(values) / len(values):.3f} / {max(values):.3f}"


def series(rows, kind):
    return [r["nash_conv"][kind] for r in rows if kind in r["nash_conv"]]


def first_and_highest(rows, kind, threshold):
    first = next(
        (r for r in rows if r["nash_conv"].get(kind, float("inf")) <= threshold), None
    )
    if first is None:
        return f"{kind} never reached {threshold} in {len(rows)} evaluations"
    after = [r for r in rows if r["learner_step"] >= first["learner_step"]]
    highest = max(after, key=lambda r: r["nash_conv"][kind])
    return (
        f"{kind} first ≤ {threshold} at {first['wall_seconds']:.0f} s "
        f"(step {first['learner_step']}); highest of the {len(after)} evaluations "
        f"from then on: {highest['nash_conv'][kind]:.4f} at step "
        f"{highest['learner_step']} ({highest['wall_seconds']:.0f} s); last: "
        f"{rows[-1]['nash_conv'][kind]:.4f} at step {rows[-1]['learner_step']} "
        f"({rows[-1]['wall_seconds']:.0f} s)"
    )


def by_minutes(rows, kind, minutes):
    out = [
        f"| minutes | step at the end | {kind}: min / mean / max | target | θ_reg |",
        "|---|---|---|---|---|",
    ]
    width = minutes * 60
    bins = {}
    for r in rows:
        bins.setdefault(int(r["wall_seconds"] // width), []).append(r)
    for index in sorted(bins):
        rs = bins[index]
        out.append(
            f"| {index * minutes:g}–{(index + 1) * minutes:g} | {rs[-1]['learner_step']:,} "
            f"| {stats(series(rs, kind))} | {stats(series(rs, 'target'))} "
            f"| {stats(series(rs, 'reg'))} |"
        )
    return out


def by_period(rows, kind, sizes, repeats, from_step):
    out = [
        f"| steps | target: min / mean / max | θ_reg during it | {kind} at the end |",
        "|---|---|---|---|",
    ]
    periods = {}
    for r in rows:
        if r["learner_step"] >= from_step:
            periods.setdefault(period_of(r["learner_step"], sizes, repeats), []).append(r)
    last_period = max(periods, default=None)
    for (start, size) in sorted(periods):
        rs = periods[(start, size)]
        # The history's last period may be cut short by the end of the run.
        end = start + size if (start, size) != last_period else rs[-1]["learner_step"]
        reg = series(rs, "reg")
        reg_text = f"{reg[-1]:.3f}" if reg and min(reg) == max(reg) else stats(reg)
        last = rs[-1]["nash_conv"].get(kind)
        out.append(
            f"| {start:,}–{end:,} | {stats(series(rs, 'target'))} "
            f"| {reg_text} | {'–' if last is None else f'{last:.4f}'} |"
        )
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir")
    parser.add_argument("--kind", default="target_average")
    parser.add_argument("--threshold", type=float, default=0.1)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--from-step", type=int, default=0)
    args = parser.parse_args()
    if args.minutes <= 0:
        sys.exit(f"--minutes must be positive, not {args.minutes}")
    rows = load_history(f"{args.run_dir}/history.jsonl")
    with open(f"{args.run_dir}/config.toml", "rb") as config_file:
        rnad = tomllib.load(config_file)["rnad"]
    sizes, repeats = rnad["entropy_schedule_size"], rnad["entropy_schedule_repeats"]
    print(first_and_highest(rows, args.kind, args.threshold))
    print()
    print("\n".join(by_minutes(rows, args.kind, args.minutes)))
    print()
    print("\n".join(by_period(rows, args.kind, sizes, repeats, args.from_step)))


if __name__ == "__main__":
    main()
