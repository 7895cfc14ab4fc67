"""One figure per game: NashConv against training wall time of R-NaD
(each run directory's history.jsonl or history.jsonl.gz, the policy kind
named) and of OpenSpiel's NFSP (nfsp.py's JSON lines), log scale; and a
table of both at the times named.

    python figure.py --title "Leduc" --rnad leduc/rnad-seed-0 --nfsp leduc/nfsp-seed-0.jsonl \
        --at 300 600 --out leduc/nash_conv.png
"""

import argparse
import gzip
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def rnad_curve(run, kind):
    for name in ("history.jsonl", "history.jsonl.gz"):
        path = os.path.join(run, name)
        if os.path.exists(path):
            rows = read_lines(path)
            return [r["wall_seconds"] for r in rows], [r["nash_conv"][kind] for r in rows]
    raise SystemExit(f"{run}: no history.jsonl or history.jsonl.gz")


def nfsp_curve(path):
    rows = read_lines(path)
    return [r["training_seconds"] for r in rows], [r["nash_conv"] for r in rows]


def short(path):
    """The last two components of a path: a run's variant and seed."""
    return os.path.join(*os.path.normpath(path).split(os.sep)[-2:])


def value_at(curve, seconds):
    """The last evaluation at or before `seconds` (0.1% late allowed: nfsp.py
    evaluates when its training time has passed a mark, a few
    milliseconds after it)."""
    xs, ys = curve
    before = [y for x, y in zip(xs, ys) if x <= seconds * 1.001]
    return before[-1] if before else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--title", required=True)
    parser.add_argument("--rnad", nargs="+", default=[], help="R-NaD run directories")
    parser.add_argument("--kind", default="target_average", help="R-NaD's policy kind")
    parser.add_argument("--nfsp", nargs="+", default=[], help="nfsp.py outputs")
    parser.add_argument("--at", nargs="+", type=float, default=[], help="seconds for the table")
    parser.add_argument("--out", required=True, help="the figure (.png or .svg)")
    args = parser.parse_args()

    curves = [(f"R-NaD {args.kind} ({short(r)})", rnad_curve(r, args.kind)) for r in args.rnad]
    curves += [(f"NFSP ({short(n)})", nfsp_curve(n)) for n in args.nfsp]
    figure, axes = plt.subplots(figsize=(8, 5))
    for label, (xs, ys) in curves:
        axes.plot(xs, ys, label=label)
    axes.set_yscale("log")
    axes.set_xlabel("training wall time (s)")
    axes.set_ylabel("NashConv")
    axes.set_title(args.title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.out)

    print("| " + args.title + " | " + " | ".join(f"{t:.0f} s" for t in args.at) + " | best |")
    print("|---|" + "---:|" * (len(args.at) + 1))
    for label, curve in curves:
        cells = [f"{value_at(curve, t):.3f}" for t in args.at] + [f"{min(curve[1]):.3f}"]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
