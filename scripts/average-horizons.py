"""Replays a run's target_average offline under other horizon rules, from
its checkpoints, to see whether averaging over more of the run would have
played better.

Usage (needs `pip install open_spiel==2.0.2` and a release build):

    python scripts/average-horizons.py CHECKPOINT_DIR EVERY_STEPS BETA [RULE ...]

CHECKPOINT_DIR holds a run's `checkpoint-*.safetensors` (a run keeps only
the last few, so copy them out while it runs). Every checkpoint's target
policy is exported with `rnad-evaluator export`, its actions held at the
NeuRD threshold BETA are dropped, and it joins one exponential average per
RULE, weighted by own reach, exactly as `evaluator/src/policy_average.rs`
does: a policy Δ steps after the previous one gets weight
1 - exp(-Δ / h(s)), s the steps averaged so far (from the first
checkpoint in the directory). A RULE is `H` for h(s) = min(H, s/2) (the
run's own rule, `evaluation.average_horizon_steps = H`), `H/Q` for
h(s) = min(H, s/Q) (a young average reaching back less far), or `half`
for h(s) = s/2. Default rules: 20000 50000 100000 half.

Every EVERY_STEPS steps each average's NashConv is computed with
`rnad-evaluator eval`. Prints one CSV line per evaluation: step, then the
NashConv of each rule's average.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

import pyspiel

EVALUATOR = os.path.join(os.path.dirname(__file__), "..", "target", "release", "rnad-evaluator")
HELD_MARGIN = 0.05


def own_parents(game):
    """For every information state: the player's previous information
    state and the action taken there (None at the player's first)."""
    parents = {}

    def walk(state, last):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action), last)
            return
        player = state.current_player()
        key = state.information_state_string()
        parents[key] = last[player]
        for action in state.legal_actions():
            nxt = list(last)
            nxt[player] = (key, action)
            walk(state.child(action), nxt)

    walk(game.new_initial_state(), [None] * game.num_players())
    return parents


def drop_held(row, beta):
    logs = {a: math.log(max(p, 1e-300)) for a, p in row.items()}
    mean = sum(logs.values()) / len(logs)
    kept = {a: p for a, p in row.items() if logs[a] - mean > -beta + HELD_MARGIN}
    total = sum(kept.values())
    if total <= 0.0:
        return row
    return {a: kept.get(a, 0.0) / total for a in row}


def own_reach(parents, policy):
    reach = {}

    def of(key):
        if key not in reach:
            parent = parents[key]
            reach[key] = 1.0 if parent is None else of(parent[0]) * policy[parent[0]][parent[1]]
        return reach[key]

    for key in parents:
        of(key)
    return reach


def export_target(checkpoint, out):
    subprocess.run([EVALUATOR, "export", "--checkpoint", checkpoint, "--kind", "target",
                    "--out", out], check=True, capture_output=True)
    table = json.load(open(out))["policy"]
    return {key: {a: p for a, p in pairs} for key, pairs in table.items()}


def nash_conv(game_name, policy, path):
    json.dump({"game": game_name,
               "policy": {k: [[a, p] for a, p in row.items()] for k, row in policy.items()}},
              open(path, "w"))
    out = subprocess.run([EVALUATOR, "eval", "--game", game_name, "--policy", path, "--json"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["nash_conv"]


class Average:
    def __init__(self, rule):
        self.rule = rule
        self.first_step = None
        self.step = None
        self.reach = {}
        self.probs = {}

    def horizon(self, seen):
        if self.rule == "half":
            return max(seen / 2.0, 1.0)
        cap, _, divisor = self.rule.partition("/")
        return min(float(cap), max(seen / float(divisor or 2), 1.0))

    def add(self, step, policy, reach):
        if self.step is None:
            self.first_step, w = step, 1.0
        else:
            w = 1.0 - math.exp(-(step - self.step) / self.horizon(step - self.first_step))
        self.step = step
        for key, row in policy.items():
            r = reach[key]
            self.reach[key] = self.reach.get(key, 0.0) + w * (r - self.reach.get(key, 0.0))
            probs = self.probs.setdefault(key, {a: 0.0 for a in row})
            for a, p in row.items():
                probs[a] += w * (r * p - probs[a])

    def policy(self):
        out = {}
        for key, probs in self.probs.items():
            r = self.reach[key]
            out[key] = ({a: v / r for a, v in probs.items()} if r > 0
                        else {a: 1.0 / len(probs) for a in probs})
        return out


def list_checkpoints(directory):
    """The run's checkpoint files as (step, path), by step."""
    return sorted(
        (int(m.group(1)), os.path.join(directory, name))
        for name in os.listdir(directory)
        if (m := re.match(r"checkpoint-(\d+)\.safetensors$", name)))


def main():
    directory, every, beta = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rules = sys.argv[4:] or ["20000", "50000", "100000", "half"]
    game_name = "leduc_poker"
    parents = own_parents(pyspiel.load_game(game_name))
    checkpoints = list_checkpoints(directory)
    averages = [Average(rule) for rule in rules]
    print("step," + ",".join(f"h={rule}" for rule in rules), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        target_path, average_path = os.path.join(tmp, "t.json"), os.path.join(tmp, "a.json")
        for step, path in checkpoints:
            policy = export_target(path, target_path)
            policy = {key: drop_held(row, beta) for key, row in policy.items()}
            reach = own_reach(parents, policy)
            for average in averages:
                average.add(step, policy, reach)
            if step % every == 0:
                values = [nash_conv(game_name, a.policy(), average_path) for a in averages]
                print(f"{step}," + ",".join(f"{v:.4f}" for v in values), flush=True)


if __name__ == "__main__":
    main()
