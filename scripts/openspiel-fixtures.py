"""Writes OpenSpiel 2.0.2's view of a game to fixtures/openspiel/: every
information state (string, acting player, legal actions, tensor) and the
uniform policy's NashConv, in the format the fixture tests read.

Usage (needs `pip install open_spiel==2.0.2`):

    python scripts/openspiel-fixtures.py 'liars_dice(numdice=2,dice_sides=2)' NAME

writes fixtures/openspiel/NAME_info_states.json.
"""

import json
import sys
from pathlib import Path

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability


def information_states(game):
    """Every information state reachable in the game, by a walk over all
    histories, in the order the walk first meets them."""
    seen = {}

    def walk(state):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for action, _ in state.chance_outcomes():
                walk(state.child(action))
            return
        player = state.current_player()
        key = state.information_state_string(player)
        if key not in seen:
            seen[key] = {
                "info_state": key,
                "player": player,
                "legal_actions": state.legal_actions(),
                "tensor": state.information_state_tensor(player),
            }
        for action in state.legal_actions():
            walk(state.child(action))

    walk(game.new_initial_state())
    return list(seen.values())


def main():
    spec, name = sys.argv[1], sys.argv[2]
    game = pyspiel.load_game(spec)
    states = information_states(game)
    uniform = policy_lib.UniformRandomPolicy(game)
    fixture = {
        "game": str(game),
        "num_players": game.num_players(),
        "num_info_states": len(states),
        "uniform_nash_conv": float(exploitability.nash_conv(game, uniform)),
        "info_states": states,
    }
    out = Path(__file__).resolve().parent.parent / "fixtures/openspiel" / f"{name}_info_states.json"
    out.write_text(json.dumps(fixture))
    print(f"{out}: {len(states)} information states, uniform NashConv {fixture['uniform_nash_conv']!r}")


if __name__ == "__main__":
    main()
