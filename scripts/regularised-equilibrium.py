#!/usr/bin/env python3
"""The equilibrium of the game R-NaD actually trains on, for a given θ_reg.

    python3 scripts/regularised-equilibrium.py REG_POLICY.json ETA [ETA ...] \
        [--compare POLICY.json ...] [--beta B] [--game leduc_poker]

Needs `pip install open_spiel==2.0.2` and numpy. REG_POLICY.json is a
policy file (`rnad-evaluator export --kind reg`).

R-NaD's learner does not train the target toward a Nash equilibrium of the
game itself but toward one of a regularised game: v-trace transforms the
rewards so that each player loses η·KL(π(I) ‖ π_reg(I)) at every one of its
own information states the play passes through, and the opponent gains it
(learner/src/vtrace.rs). The game stays zero-sum, and its equilibrium is
unique: at every information state I of player i,

    π(a | I) ∝ π_reg(a | I) · exp(Q_i(I, a) / η),

where Q_i(I, a) is i's expected transformed return after playing a at I,
given that I is reached (the histories of I weighted by chance's and the
opponent's probability of reaching them). NeuRD's fixed point is the same
condition: its advantages vanish there.

This script computes that equilibrium exactly on the game tree by
magnetic mirror descent on those conditional values (at every
information state, log π ← (log π + lr·(Q + η·log π_reg)) / (1 + lr·η),
normalised, both players at once, lr = --lr, 0.01 by default) until the
largest change of an action's probability in an iteration is below 1e-9
(about 10,000 iterations and 15 seconds on Leduc at η = 0.2; `converged`
is false if 100,000 were not enough: smaller η needs a smaller --lr), and
prints one JSON object per η: the equilibrium's NashConv in the game
itself (OpenSpiel's), θ_reg's, the distance between the two, and for
every --compare policy its NashConv and its distances to the equilibrium
and to θ_reg. A distance is the mean over information states of
½·Σ_a |π − π'|, each state weighted by its self-play reach under the
equilibrium, both players together.

With --beta B it also solves the game as NeuRD with the threshold β = B
(`rnad.beta_neurd`) can play it: a centred logit is not pushed further
down once at −β, nor further up once at β, so the learner's actual fixed
point keeps some probability on actions the regularised equilibrium all
but drops. That "held" equilibrium is reported under "held", with the
same distances and its distance to the unheld one; a very large β gives
the unheld equilibrium back.

(The learner's magnet blends θ_reg with the θ_reg before it during the
first half of each regularisation period; θ_reg alone is used here.)

The question it answers: when a run's target stops improving or gets
worse, is it approaching the regularised game's equilibrium, and how good
is that equilibrium in the real game?
"""

import argparse
import json
import math
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import exploitability

from openspiel_policy import load_policy

TOLERANCE = 1e-9
MAX_ITERATIONS = 100000
# Probabilities of θ_reg are floored here before taking logs: an exported
# policy may round a tiny probability to exactly zero.
FLOOR = 1e-12


class Tree:
    """Every history of a two-player game as arrays, with the edges between
    them grouped by depth, so that an iteration's two passes are a few
    numpy operations per depth. Information states are numbered, and their
    legal actions laid out one after another in a flat array (`offset`)."""

    def __init__(self, game):
        self.keys, self.legal, self.key_index = [], [], {}
        kind, depth, player, infostate, utility = [], [], [], [], []
        edges = []  # (parent, child, who: 0, 1 or 2 for chance, chance p, infostate, action slot)

        def walk(state, d):
            h = len(kind)
            kind.append("t" if state.is_terminal() else "c" if state.is_chance_node() else "d")
            depth.append(d)
            player.append(-1)
            infostate.append(-1)
            utility.append(state.returns()[0] if state.is_terminal() else 0.0)
            if state.is_terminal():
                return h
            if state.is_chance_node():
                for a, p in state.chance_outcomes():
                    edges.append((h, walk(state.child(a), d + 1), 2, p, -1, -1))
                return h
            key = state.information_state_string()
            if key not in self.key_index:
                self.key_index[key] = len(self.keys)
                self.keys.append(key)
                self.legal.append(state.legal_actions())
            i = self.key_index[key]
            player[h], infostate[h] = state.current_player(), i
            for slot, a in enumerate(state.legal_actions()):
                edges.append((h, walk(state.child(a), d + 1), player[h], 1.0, i, slot))
            return h

        walk(game.new_initial_state(), 0)
        self.size = len(kind)
        lengths = np.array([len(legal) for legal in self.legal])
        self.offset = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        self.flat_info = np.repeat(np.arange(len(self.keys)), lengths)
        # For every entry of a flat array, its state's number of legal actions.
        self.flat_count = lengths[self.flat_info]
        self.utility = np.array(utility)
        self.decision = np.array([h for h, k in enumerate(kind) if k == "d"])
        self.decision_player = np.array([player[h] for h in self.decision])
        self.decision_info = np.array([infostate[h] for h in self.decision])
        parent, child, who, chance_p, info, slot = (np.array(c) for c in zip(*edges))
        self.edge_child_depth = np.array(depth)[child]
        self.parent, self.child, self.who, self.chance_p = parent, child, who, chance_p
        self.flat = np.where(who < 2, self.offset[np.maximum(info, 0)] + slot, -1)
        self.max_depth = int(self.edge_child_depth.max())
        self.by_depth = [np.nonzero(self.edge_child_depth == d)[0] for d in range(self.max_depth + 1)]
        self.decision_edges = np.nonzero(who < 2)[0]

    def table(self, flat):
        """A flat policy as a policy file's map from information-state
        string to [[action, probability], ...]."""
        rows = np.split(flat, self.offset[1:])
        return {
            key: [[a, float(p)] for a, p in zip(legal, row)]
            for key, legal, row in zip(self.keys, self.legal, rows)
        }


def table_of(tree, policy):
    """The policy's probabilities as one flat array over every information
    state's legal actions."""
    rows = []
    for key, legal in zip(tree.keys, tree.legal):
        row = policy.policy_for_key(key)
        rows.append(np.array([row[a] for a in legal], dtype=np.float64))
    return np.concatenate(rows)


def segment_sum(tree, flat):
    return np.add.reduceat(flat, tree.offset)


def values(tree, pi, log_reg, eta):
    """One pass each way under the profile `pi` (flat): every information
    state's conditional transformed values Q for its owner (flat), and its
    self-play reach."""
    edge_p = np.where(tree.who < 2, pi[np.maximum(tree.flat, 0)], tree.chance_p)
    reach = np.ones((tree.size, 3))  # own reach of player 0, of player 1, chance's
    for d in range(1, tree.max_depth + 1):
        e = tree.by_depth[d]
        reach[tree.child[e]] = reach[tree.parent[e]]
        reach[tree.child[e], tree.who[e]] *= edge_p[e]
    kl = segment_sum(tree, pi * (np.log(np.maximum(pi, FLOOR)) - log_reg))
    sign = np.where(tree.decision_player == 0, 1.0, -1.0)
    node_term = np.zeros(tree.size)
    node_term[tree.decision] = -sign * eta * kl[tree.decision_info]
    worth = tree.utility + node_term  # player 0's transformed return from h on
    for d in range(tree.max_depth, 0, -1):
        e = tree.by_depth[d]
        np.add.at(worth, tree.parent[e], edge_p[e] * worth[tree.child[e]])
    players = tree.decision_player
    counterfactual = reach[tree.decision, 2] * reach[tree.decision, 1 - players]
    weight = np.bincount(tree.decision_info, counterfactual, minlength=len(tree.keys))
    self_play = np.bincount(
        tree.decision_info, counterfactual * reach[tree.decision, players], minlength=len(tree.keys)
    )
    e = tree.decision_edges
    edge_sign = np.where(tree.who[e] == 0, 1.0, -1.0)
    node_of_parent = np.searchsorted(tree.decision, tree.parent[e])
    q_sum = np.bincount(
        tree.flat[e], counterfactual[node_of_parent] * edge_sign * worth[tree.child[e]], minlength=len(pi)
    )
    flat_weight = weight[tree.flat_info]
    q = np.where(flat_weight > 0, q_sum / np.where(flat_weight > 0, flat_weight, 1.0), 0.0)
    return q, self_play


def held_step(tree, pi, log_pi, regularised_q, step, beta):
    """One NeuRD step on the centred logits with the threshold β: see
    `solve`."""
    advantage = regularised_q - segment_sum(tree, pi * regularised_q)[tree.flat_info]
    centred = log_pi - segment_sum(tree, log_pi)[tree.flat_info] / tree.flat_count
    moved = centred + step * advantage
    down = np.where(centred > -beta, np.maximum(moved, -beta), centred)
    up = np.where(centred < beta, np.minimum(moved, beta), centred)
    return np.where(advantage < 0, down, up)


def solve(tree, log_reg, eta, lr, progress, beta=None):
    """The regularised equilibrium for θ_reg's log-probabilities `log_reg`
    (flat), by magnetic mirror descent from θ_reg itself. With `beta`, the
    step is NeuRD's, with its threshold: each centred logit moves by the
    step times its regularised advantage, except that it does not move
    down once at or below −β, nor up once at or above β, nor past either
    in one step. The result is NeuRD's fixed point with that threshold:
    advantages vanish wherever a logit is free, and push outward where it
    is held. (Without the threshold the two steps are the same: mirror
    descent's is the advantage step up to each state's constant.)"""
    pi = np.exp(log_reg)
    pi /= segment_sum(tree, pi)[tree.flat_info]
    change = math.inf
    for iteration in range(1, MAX_ITERATIONS + 1):
        q, _ = values(tree, pi, log_reg, eta)
        log_pi = np.log(np.maximum(pi, FLOOR))
        if beta is None:
            logits = (log_pi + lr * (q + eta * log_reg)) / (1.0 + lr * eta)
        else:
            logits = held_step(tree, pi, log_pi, q + eta * (log_reg - log_pi), lr / (1.0 + lr * eta), beta)
        logits -= np.maximum.reduceat(logits, tree.offset)[tree.flat_info]
        new = np.exp(logits)
        new /= segment_sum(tree, new)[tree.flat_info]
        change = float(np.abs(new - pi).max())
        pi = new
        if iteration % 1000 == 0:
            progress(f"eta {eta}: iteration {iteration}, largest change {change:.2e}")
        if change < TOLERANCE:
            break
    else:
        progress(f"eta {eta}: stopped after {MAX_ITERATIONS} iterations, largest change {change:.2e}")
    return pi, iteration, change


def distance(tree, reach, pi, other):
    """Self-play-reach-weighted mean total-variation distance between two
    flat policies."""
    per_state = 0.5 * segment_sum(tree, np.abs(pi - other))
    return float((reach * per_state).sum() / reach.sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reg_policy")
    parser.add_argument("eta", type=float, nargs="+")
    parser.add_argument("--compare", nargs="*", default=[])
    parser.add_argument("--game", default="leduc_poker")
    parser.add_argument(
        "--beta",
        type=float,
        help="also solve with logits held within the NeuRD threshold β (reported under \"held\")",
    )
    parser.add_argument(
        "--lr", type=float, default=0.01, help="the solver's step on the values, with and without --beta (default 0.01)"
    )
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    if game.num_players() != 2:
        sys.exit(f"{args.game}: the regularised game is solved here for two players only")
    tree = Tree(game)

    def progress(line):
        print(line, file=sys.stderr, flush=True)

    progress(f"{args.game}: {tree.size} histories, {len(tree.keys)} information states")
    with open(args.reg_policy) as f:
        reg_policy = load_policy(game, json.load(f)["policy"])
    reg_table = table_of(tree, reg_policy)
    reg_table = np.maximum(reg_table, FLOOR)
    reg_table /= segment_sum(tree, reg_table)[tree.flat_info]
    log_reg = np.log(reg_table)
    reg_nash_conv = exploitability.nash_conv(game, reg_policy)
    compared = []
    for path in args.compare:
        with open(path) as f:
            policy = load_policy(game, json.load(f)["policy"])
        compared.append((path, exploitability.nash_conv(game, policy), table_of(tree, policy)))
    for eta in args.eta:
        if not (eta > 0 and math.isfinite(eta)):
            sys.exit(f"eta must be positive, got {eta}")
    for eta in args.eta:
        pi, iterations, change = solve(tree, log_reg, eta, args.lr, progress)
        _, reach = values(tree, pi, log_reg, eta)
        report = {"reg_policy": args.reg_policy, "eta": eta, "reg_nash_conv": reg_nash_conv}
        report.update(describe(game, tree, reach, pi, iterations, change, reg_table, compared))
        if args.beta is not None:
            held, iterations, change = solve(tree, log_reg, eta, args.lr, progress, args.beta)
            report["held"] = {"beta": args.beta, "distance_to_equilibrium": distance(tree, reach, pi, held)}
            report["held"].update(describe(game, tree, reach, held, iterations, change, reg_table, compared))
        print(json.dumps(report), flush=True)


def describe(game, tree, reach, pi, iterations, change, reg_table, compared):
    """One equilibrium's report: how it converged, its NashConv, and its
    distances (weighted by `reach`) to θ_reg and to each compared policy."""
    return {
        "iterations": iterations,
        "converged": change < TOLERANCE,
        "largest_change": change,
        "equilibrium_nash_conv": exploitability.nash_conv(game, load_policy(game, tree.table(pi))),
        "equilibrium_distance_to_reg": distance(tree, reach, pi, reg_table),
        "compared": [
            {
                "policy": path,
                "nash_conv": nash_conv,
                "distance_to_equilibrium": distance(tree, reach, pi, table),
                "distance_to_reg": distance(tree, reach, reg_table, table),
            }
            for path, nash_conv, table in compared
        ],
    }


if __name__ == "__main__":
    main()
