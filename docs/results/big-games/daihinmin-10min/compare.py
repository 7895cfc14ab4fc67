"""A Daihinmin run's head-to-head curve against another's at equal
learner steps: for each evaluation of the first run, its mean points a
game against each opponent beside the second run's at the same step
(linear between the second run's evaluations; none past its last).

    python3 compare.py daihinmin-10min/history.jsonl.gz ../../daihinmin/run-60min/history.jsonl.gz
"""

import gzip
import json
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def curve(history, opponent):
    points = []
    for row in history:
        for h in row["head_to_head"]:
            if h["opponent"] == opponent:
                points.append((row["learner_step"], row["wall_seconds"], h["mean"], h["ci95"]))
    return points


def at_step(points, step):
    for (s0, _, m0, c0), (s1, _, m1, c1) in zip(points, points[1:]):
        if s0 <= step <= s1:
            f = (step - s0) / (s1 - s0) if s1 > s0 else 0.0
            return m0 + f * (m1 - m0), c0 + f * (c1 - c0)
    return None


def main():
    new, old = read(sys.argv[1]), read(sys.argv[2])
    for opponent in ("default", "random-sampling:20"):
        print(f"\nvs {opponent}: mean points a game less the equal share (95% interval)\n")
        print("| step | wall s | this run | the other run at this step |")
        print("|---:|---:|---:|---:|")
        old_points = curve(old, opponent)
        for step, wall, mean, ci in curve(new, opponent):
            other = at_step(old_points, step)
            other_text = "—" if other is None else f"{other[0]:+.3f} ± {other[1]:.3f}"
            print(f"| {step} | {wall:.0f} | {mean:+.3f} ± {ci:.3f} | {other_text} |")


if __name__ == "__main__":
    main()
