"""NashConv of a tabular policy file (rnad's `export` or `solve` output, or
any JSON map from information-state string to [[action, probability], ...])
computed by OpenSpiel 2.0.2: the independent check of `rnad-evaluator eval`.

Usage (needs `pip install open_spiel==2.0.2`):

    python scripts/openspiel-nash-conv.py POLICY.json [GAME]

GAME defaults to the file's `game` field. Prints one JSON object: game,
nash_conv, info_states.
"""

import json
import sys

import pyspiel
from open_spiel.python.algorithms import exploitability

from openspiel_policy import load_policy


def main():
    data = json.load(open(sys.argv[1]))
    table = data.get("policy", data)
    game_spec = sys.argv[2] if len(sys.argv) > 2 else data["game"]
    game = pyspiel.load_game(game_spec)
    policy = load_policy(game, table)
    print(json.dumps({
        "game": str(game),
        "nash_conv": float(exploitability.nash_conv(game, policy)),
        "info_states": len(table),
    }))


if __name__ == "__main__":
    main()
