"""Writes OpenSpiel 2.0.2's NashConv of small universal_poker games to
fixtures/openspiel/universal_poker_nash_conv.json, for the uniform policy
and for a "hashed" policy both sides can build without a policy file:
at information state s, action a has weight 1 + (FNV-1a(s + " " + a) mod
1000) / 1000, normalised over the legal actions.

Usage (needs `pip install open_spiel==2.0.2`; about a minute):

    python scripts/universal-poker-nash-conv.py
"""

import json
from pathlib import Path

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability

SPECS = [
    "universal_poker",
    "universal_poker(betting=limit,numRounds=2,blind=10 5,raiseSize=10 20,"
    "firstPlayer=2 1,maxRaises=2 2,numSuits=2,numRanks=3)",
]


def fnv1a(text):
    digest = 0xCBF29CE484222325
    for byte in text.encode():
        digest ^= byte
        digest = (digest * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return digest


def hashed_policy(game):
    policy = policy_lib.TabularPolicy(game)
    for key, index in policy.state_lookup.items():
        legal = policy.legal_actions_mask[index].nonzero()[0]
        weights = {a: 1 + (fnv1a(f"{key} {a}") % 1000) / 1000 for a in legal}
        total = sum(weights.values())
        policy.action_probability_array[index][:] = 0
        for a, w in weights.items():
            policy.action_probability_array[index][a] = w / total
    return policy


def main():
    rows = []
    for spec in SPECS:
        game = pyspiel.load_game(spec)
        hashed = hashed_policy(game)
        rows.append({
            "spec": spec,
            "info_states": len(hashed.state_lookup),
            "uniform_nash_conv": float(exploitability.nash_conv(
                game, policy_lib.UniformRandomPolicy(game))),
            "hashed_nash_conv": float(exploitability.nash_conv(game, hashed)),
        })
        print(rows[-1], flush=True)
    out = Path(__file__).resolve().parent.parent / "fixtures/openspiel/universal_poker_nash_conv.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
