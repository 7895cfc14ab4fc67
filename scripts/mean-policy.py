#!/usr/bin/env python3
"""The probability-wise mean of several policy files of one game.

    python3 scripts/mean-policy.py OUT.json POLICY.json [POLICY.json ...]

Each information state's action probabilities are averaged over the files
(all must list the same states and actions, as `rnad-evaluator export`
writes them for one game). The mean is where a wandering policy is
centred: comparing it with an equilibrium separates how far the policy
jitters from how far its centre is. It is not the policy of any one
network, and its NashConv is not the mean of theirs.
"""

import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    out_path, paths = sys.argv[1], sys.argv[2:]
    files = []
    for path in paths:
        with open(path) as f:
            files.append(json.load(f))
    first = files[0]["policy"]
    for path, file in zip(paths, files):
        if file["policy"].keys() != first.keys():
            sys.exit(f"{path}: its information states differ from {paths[0]}'s")
    mean = {}
    for key, row in first.items():
        rows = [file["policy"][key] for file in files]
        for path, other in zip(paths, rows):
            if [a for a, _ in other] != [a for a, _ in row]:
                sys.exit(f"{path}: the actions of {key!r} differ from {paths[0]}'s")
        mean[key] = [[action, sum(r[i][1] for r in rows) / len(rows)] for i, (action, _) in enumerate(row)]
    result = {key: value for key, value in files[0].items() if key not in ("policy", "nash_conv")}
    result["description"] = "probability-wise mean of " + " ".join(paths)
    result["policy"] = mean
    with open(out_path, "w") as f:
        json.dump(result, f)
    print(f"{out_path}: mean of {len(paths)} policies, {len(mean)} information states")


if __name__ == "__main__":
    main()
