"""Replays `rnad-evaluator playthrough` output in OpenSpiel and checks every
state: the acting player, the legal actions, every player's
information-state string and, at the end, the returns. Prints one summary
line, `N passed, M failed`; exits 1 on the first differences (up to five
shown).

Usage (needs `pip install open_spiel==2.0.2`):

    rnad-evaluator playthrough --game SPEC --games N --seed S |
        python scripts/replay-playthrough.py SPEC
"""

import json
import sys

import pyspiel


def main():
    spec = sys.argv[1]
    game = pyspiel.load_game(spec)
    players = game.num_players()
    state, number = None, None
    passed, failures = 0, []
    for line in sys.stdin:
        record = json.loads(line)
        if record["game"] != number:
            state, number = game.new_initial_state(), record["game"]
        history = record["history"]
        if history:
            state.apply_action(history[-1])
        if state.history() != history:
            failures.append(f"game {number}: history {state.history()} != {history}")
            break
        theirs = {
            "player": state.current_player(),
            "legal_actions": state.legal_actions() if state.current_player() >= 0 else [],
            "information_states": [state.information_state_string(p) for p in range(players)],
        }
        if state.is_terminal():
            theirs["returns"] = state.returns()
        ours = {k: record.get(k) for k in theirs}
        if ours == theirs:
            passed += 1
        else:
            failures.append(f"game {number} history {history}:\n  ours   {ours}\n  pyspiel {theirs}")
            if len(failures) >= 5:
                break
    print("\n".join(failures))
    print(f"{spec}: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
