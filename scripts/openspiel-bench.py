"""OpenSpiel's side of `rnad-evaluator bench --openspiel PYTHON`: the time of
one exact NashConv of the uniform policy and of one CFR and one CFR+
iteration of pyspiel 2.0.2 on one game, as one JSON object on stdout.

    python3 scripts/openspiel-bench.py 'leduc_poker(players=3)'

The bench binary carries this file and runs it with the given Python, so
both systems are timed in the same run on the same machine.
"""
import json
import sys
import time

import pyspiel
from open_spiel.python import policy as policy_lib


def main():
    game = pyspiel.load_game(sys.argv[1])
    uniform = policy_lib.python_policy_to_pyspiel_policy(policy_lib.TabularPolicy(game))
    start = time.perf_counter()
    value = pyspiel.nash_conv(game, uniform)
    figures = {"nash_conv_seconds": time.perf_counter() - start, "nash_conv": value}
    for name, solver in (
        ("cfr_iteration_seconds", pyspiel.CFRSolver(game)),
        ("cfr_plus_iteration_seconds", pyspiel.CFRPlusSolver(game)),
    ):
        solver.evaluate_and_update_policy()  # the first iteration also builds its tables
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        figures[name] = time.perf_counter() - start
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
