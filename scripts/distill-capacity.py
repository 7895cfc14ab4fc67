#!/usr/bin/env python3
"""Can the learner's network hold a good policy at all? Fits an MLP of the
learner's shape to a tabular policy by supervised learning and writes the
fitted network's policy back as a table.

    python3 scripts/distill-capacity.py POLICY.json OUT.json \
        [--game liars_dice] [--hidden 128 128] [--steps 20000] [--seed 0]

Needs `pip install open_spiel==2.0.2` and numpy. POLICY.json is a policy
file (`rnad-evaluator solve --out`, `rnad-evaluator export --out`).

The network is the learner's policy head on its MLP torso: the game's
information-state tensor (OpenSpiel's, which rnad's games reproduce bit for
bit) through Linear+ReLU layers of the given widths to one logit per
distinct action, softmaxed over the legal ones. It is trained by Adam
(rate 1e-3, minibatches of 4,096 information states drawn uniformly) to
minimise the cross-entropy from POLICY's action probabilities, every
information state weighted alike. OUT.json holds the network's
probabilities at every information state, in the same format, for
`rnad-evaluator eval --policy OUT.json` to judge exactly.

The question it answers: where a run's policies stop improving, is the
network too small to represent a better one? If a network of the
learner's size, fitted to an equilibrium with all the information states
in hand and no noise, is itself far from the equilibrium, no learner with
that network can do better than it.
"""

import argparse
import json
import sys

import numpy as np
import pyspiel

RATE = 1e-3
BATCH = 4096
BETAS = (0.9, 0.999)
EPSILON = 1e-8


def information_states(game):
    """Every information state's key, tensor and legal actions, in the
    order a depth-first walk of the game tree first meets them."""
    seen = {}

    def walk(state):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action))
            return
        key = state.information_state_string()
        if key not in seen:
            seen[key] = (state.information_state_tensor(), state.legal_actions())
        for action in state.legal_actions():
            walk(state.child(action))

    walk(game.new_initial_state())
    keys = list(seen)
    tensors = np.array([seen[k][0] for k in keys], dtype=np.float64)
    legal = [seen[k][1] for k in keys]
    return keys, tensors, legal


class Mlp:
    """Linear+ReLU layers then a linear head, initialised as candle-nn's
    `linear` is (uniform within ±1/√fan_in), with Adam's moments."""

    def __init__(self, sizes, rng):
        self.params = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            bound = 1.0 / np.sqrt(fan_in)
            self.params.append(rng.uniform(-bound, bound, (fan_in, fan_out)))
            self.params.append(rng.uniform(-bound, bound, fan_out))
        self.moments = [(np.zeros_like(p), np.zeros_like(p)) for p in self.params]
        self.steps = 0

    def forward(self, x):
        activations = [x]
        layers = len(self.params) // 2
        for i in range(layers):
            x = x @ self.params[2 * i] + self.params[2 * i + 1]
            if i < layers - 1:
                x = np.maximum(x, 0.0)
            activations.append(x)
        return activations

    def backward(self, activations, grad):
        grads = [None] * len(self.params)
        for i in reversed(range(len(self.params) // 2)):
            grads[2 * i] = activations[i].T @ grad
            grads[2 * i + 1] = grad.sum(axis=0)
            if i > 0:
                grad = (grad @ self.params[2 * i].T) * (activations[i] > 0)
        return grads

    def adam(self, grads):
        self.steps += 1
        b1, b2 = BETAS
        for p, g, (m, v) in zip(self.params, grads, self.moments):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            m_hat = m / (1 - b1**self.steps)
            v_hat = v / (1 - b2**self.steps)
            p -= RATE * m_hat / (np.sqrt(v_hat) + EPSILON)


def masked_softmax(logits, mask):
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy")
    parser.add_argument("out")
    parser.add_argument("--game", default="liars_dice")
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    keys, tensors, legal = information_states(game)
    actions = game.num_distinct_actions()
    with open(args.policy) as f:
        table = json.load(f)["policy"]
    missing = [k for k in keys if k not in table]
    if missing:
        sys.exit(f"{args.policy}: no probabilities for {len(missing)} information states, e.g. {missing[0]!r}")
    mask = np.zeros((len(keys), actions), dtype=bool)
    target = np.zeros((len(keys), actions))
    for row, (key, actions_here) in enumerate(zip(keys, legal)):
        mask[row, actions_here] = True
        for action, probability in table[key]:
            target[row, action] = probability
    print(f"{args.game}: {len(keys)} information states, tensor {tensors.shape[1]}", file=sys.stderr)

    rng = np.random.default_rng(args.seed)
    net = Mlp([tensors.shape[1], *args.hidden, actions], rng)
    for step in range(1, args.steps + 1):
        rows = rng.integers(0, len(keys), BATCH)
        activations = net.forward(tensors[rows])
        pi = masked_softmax(activations[-1], mask[rows])
        # Cross-entropy's gradient in the logits: π − target, zero off the
        # legal actions.
        net.adam(net.backward(activations, (pi - target[rows]) / BATCH))
        if step % 2000 == 0 or step == args.steps:
            all_pi = masked_softmax(net.forward(tensors)[-1], mask)
            kl = np.where(target > 0, target * (np.log(np.maximum(target, 1e-300)) - np.log(np.maximum(all_pi, 1e-300))), 0.0)
            tv = 0.5 * np.abs(all_pi - target).sum(axis=1)
            print(
                f"step {step}: mean KL {kl.sum(axis=1).mean():.5f}, mean TV {tv.mean():.5f}, largest TV {tv.max():.4f}",
                file=sys.stderr,
                flush=True,
            )

    all_pi = masked_softmax(net.forward(tensors)[-1], mask)
    policy = {key: [[a, float(all_pi[row, a])] for a in legal[row]] for row, key in enumerate(keys)}
    params = sum(p.size for p in net.params)
    out = {
        "game": args.game,
        "description": f"MLP {args.hidden} ({params} parameters) fitted to {args.policy} in {args.steps} Adam steps",
        "policy": policy,
    }
    with open(args.out, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
