"""The scaling runs' figures from run.sh's samples: per game and number of
actor processes, the decisions and steps the learner consumed per second
(between the first and the last sample), the mean policy lag of what it
trained on, the mean queue fill, and each process's CPU in cores; written
to OUT/figures.json, printed as a table (OUT/summary.md) and drawn
(OUT/scaling.png).

    python3 docs/results/scaling/summary.py docs/results/scaling
"""

import json
import os
import sys

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def runs(samples):
    grouped = {}
    for sample in samples:
        grouped.setdefault((sample["game"], sample["actors"]), []).append(sample)
    return grouped


def figures(samples):
    first, last = samples[0], samples[-1]
    seconds = last["seconds"] - first["seconds"]

    def rate(key):
        if first[key] is None or last[key] is None or seconds <= 0:
            return None
        return (last[key] - first[key]) / seconds

    def cores(who):
        return (last["cpu_ticks"][who] - first["cpu_ticks"][who]) / TICKS_PER_SECOND / seconds

    lag_count = (last["lag_count"] or 0) - (first["lag_count"] or 0)
    fills = [
        s["queue_depth"] / s["queue_capacity"]
        for s in samples
        if s["queue_depth"] is not None and s["queue_capacity"]
    ]
    actors = first["actors"]
    return {
        "game": first["game"],
        "actors": actors,
        "seconds": seconds,
        "decisions_per_second": rate("decisions"),
        "steps_per_second": rate("step"),
        "mean_policy_lag": (last["lag_sum"] - first["lag_sum"]) / lag_count if lag_count else None,
        "mean_queue_fill": sum(fills) / len(fills) if fills else None,
        "dropped_per_second": rate("dropped"),
        "learner_cores": cores("learner"),
        "actor_cores": cores("actors"),
        "actor_cores_each": cores("actors") / actors,
        "watch_cores": cores("watch"),
    }


def fmt(value, digits=2):
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "samples.jsonl")) as lines:
        samples = [json.loads(line) for line in lines if line.strip()]
    table = [figures(run) for _, run in sorted(runs(samples).items()) if len(run) >= 2]
    with open(os.path.join(out, "figures.json"), "w") as f:
        json.dump(table, f, indent=1)
    rows = [
        "| game | actor processes | learner decisions/s | steps/s | mean policy lag | queue fill | learner cores | actor cores (each) | watch cores |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in table:
        rows.append(
            f"| {r['game']} | {r['actors']} | {fmt(r['decisions_per_second'])} | "
            f"{fmt(r['steps_per_second'])} | {fmt(r['mean_policy_lag'])} | "
            f"{fmt(r['mean_queue_fill'])} | {fmt(r['learner_cores'])} | "
            f"{fmt(r['actor_cores'])} ({fmt(r['actor_cores_each'])}) | {fmt(r['watch_cores'])} |"
        )
    text = "\n".join(rows) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    draw(table, os.path.join(out, "scaling.png"))


def draw(table, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = sorted({r["game"] for r in table})
    fig, axes = plt.subplots(2, len(games), figsize=(5 * len(games), 7), squeeze=False)
    for column, game in enumerate(games):
        rows = [r for r in table if r["game"] == game]
        n = [r["actors"] for r in rows]
        top, bottom = axes[0][column], axes[1][column]
        top.plot(n, [r["decisions_per_second"] for r in rows], "o-", label="learner decisions/s")
        top.set_title(game)
        top.set_xscale("log", base=2)
        top.set_xticks(n, [str(x) for x in n])
        top.set_ylabel("decisions/s consumed")
        top.set_ylim(bottom=0)
        lag = top.twinx()
        lag.plot(n, [r["mean_policy_lag"] or 0 for r in rows], "s--", color="tab:red")
        lag.set_ylabel("mean policy lag (versions)", color="tab:red")
        lag.set_ylim(bottom=0)
        for key, label in [
            ("learner_cores", "learner"),
            ("actor_cores", "all actors"),
            ("watch_cores", "watch"),
        ]:
            bottom.plot(n, [r[key] for r in rows], "o-", label=label)
        bottom.set_xscale("log", base=2)
        bottom.set_xticks(n, [str(x) for x in n])
        bottom.set_xlabel("actor processes")
        bottom.set_ylabel("CPU (cores)")
        bottom.set_ylim(bottom=0)
        bottom.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=80)


if __name__ == "__main__":
    main()
