#!/usr/bin/env python3
"""What changes inside a run as it goes on, read from its kept checkpoints.

    python3 scripts/checkpoint-drift.py CHECKPOINT_DIR EVERY_STEPS > drift.csv

Needs numpy, `pip install open_spiel==2.0.2` (for the game tree) and a
release build (`rnad-evaluator export`). Written to look for what marks
the default Leduc run's late rise: one CSV row for every checkpoint whose
step is a multiple of EVERY_STEPS, with

* `norm_<layer>`: the Frobenius norm of the target network's weight
  matrices. Adam with b1 = 0 moves every weight by about the learning rate
  each step whatever its gradient, so noise makes weights random-walk:
  their norm grows like the square root of the steps.
* `online_to_target`, `reg_to_target`: the Euclidean distance between
  the online and target parameters, and between θ_reg and the target.
* `moved_1k`, `moved_10k`, `moved_50k`: how far the target *policy* moves
  over the next 1,000, 10,000 and 50,000 steps (where those checkpoints
  exist): the total-variation distance between the two policies at each
  information state, averaged with the weights of the first policy's own
  reach of the state (the chance of reaching it if its player plays to
  get there). Empty where the later checkpoint is missing.

Checkpoints are safetensors files (an 8-byte header length, a JSON
header, then the raw little-endian tensors), read here without the
safetensors package.
"""
import importlib.util
import json
import os
import struct
import sys
import tempfile

import numpy as np
import pyspiel

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS = ["torso.0.weight", "torso.1.weight", "policy.weight", "value.weight"]
MOVES = [1000, 10000, 50000]


def load_average_horizons():
    """The game-tree helpers of average-horizons.py (own reach, export)."""
    spec = importlib.util.spec_from_file_location(
        "average_horizons", os.path.join(HERE, "average-horizons.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_tensors(path):
    with open(path, "rb") as file:
        (header_len,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(header_len))
        data = file.read()
    tensors = {}
    for name, entry in header.items():
        # The target_average's running sums (F64) are no parameters.
        if name == "__metadata__" or name.startswith("target_average."):
            continue
        if entry["dtype"] != "F32":
            sys.exit(f"{path}: tensor {name} is {entry['dtype']}, expected F32")
        start, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype=np.float32).reshape(entry["shape"])
    return tensors


def distance(tensors, a, b):
    """Euclidean distance between parameter sets `a.*` and `b.*`."""
    total = 0.0
    for name, value in tensors.items():
        if name.startswith(b + "."):
            other = tensors[a + name[len(b):]]
            total += float(np.sum((other.astype(np.float64) - value) ** 2))
    return total ** 0.5


def target_policy(helpers, path, exported):
    """The checkpoint's target policy, exported once: a checkpoint is
    both a row's own and, 1k / 10k / 50k steps earlier, a later one."""
    if path not in exported:
        with tempfile.TemporaryDirectory() as tmp:
            exported[path] = helpers.export_target(path, os.path.join(tmp, "target.json"))
    return exported[path]


def moved(helpers, parents, before, after):
    reach = helpers.own_reach(parents, before)
    weight = sum(reach.values())
    total = 0.0
    for key, row in before.items():
        total += reach[key] * 0.5 * sum(abs(p - after[key][a]) for a, p in row.items())
    return total / weight


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    directory, every = sys.argv[1], int(sys.argv[2])
    if every <= 0:
        sys.exit(f"EVERY_STEPS must be a positive number of steps, not {every}")
    helpers = load_average_horizons()
    steps = dict(helpers.list_checkpoints(directory))
    if not steps:
        sys.exit(f"{directory}: no checkpoint-*.safetensors")
    first = read_tensors(steps[min(steps)])
    if first["target.torso.0.weight"].shape[1] != 30:
        sys.exit(f"{directory}: only Leduc checkpoints (30 input features) are supported")
    game = pyspiel.load_game("leduc_poker")
    parents = helpers.own_parents(game)
    exported = {}
    print(",".join(["step"] + [f"norm_{layer}" for layer in LAYERS]
                   + ["online_to_target", "reg_to_target"] + [f"moved_{m // 1000}k" for m in MOVES]))
    for step in sorted(s for s in steps if s % every == 0):
        tensors = read_tensors(steps[step])
        row = [str(step)] + ["%.3f" % np.linalg.norm(tensors["target." + layer]) for layer in LAYERS]
        row += ["%.4f" % distance(tensors, "online", "target"), "%.4f" % distance(tensors, "reg", "target")]
        policy = target_policy(helpers, steps[step], exported)
        for move in MOVES:
            later = steps.get(step + move)
            row.append("" if later is None else
                       "%.4f" % moved(helpers, parents, policy, target_policy(helpers, later, exported)))
        print(",".join(row), flush=True)


if __name__ == "__main__":
    main()
