"""Writes OpenSpiel 2.0.2's playthroughs of random universal_poker games to
fixtures/openspiel/playthroughs/NAME.jsonl, one line per game, for the test
that replays them through this project's engine.

Each line holds the game's full action history (chance outcomes included),
its returns and a digest of every state on the way: FNV-1a (64 bits) over
one text line per state, `player|legal actions|information-state string of
each player|player 0's information-state tensor as integers`, so that any
difference in any state of any game changes the digest. The first lines
also carry the states in the clear, to read when a digest differs.

Usage (needs `pip install open_spiel==2.0.2`):

    python scripts/universal-poker-playthroughs.py SPEC NAME GAMES SEED
"""

import json
import random
import sys
from pathlib import Path

import pyspiel

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
CLEAR_GAMES = 3


def state_line(state, players):
    player = state.current_player()
    legal = state.legal_actions() if player >= 0 else []
    strings = [state.information_state_string(p) for p in range(players)]
    tensor = [int(v) for v in state.information_state_tensor(0)]
    return "{}|{}|{}|{}\n".format(
        player,
        ",".join(map(str, legal)),
        "|".join(strings),
        ",".join(map(str, tensor)),
    )


def fnv1a(text, digest):
    for byte in text.encode():
        digest ^= byte
        digest = (digest * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return digest


def play(game, rng, clear):
    players = game.num_players()
    state = game.new_initial_state()
    digest = FNV_OFFSET
    lines = []
    while True:
        line = state_line(state, players)
        digest = fnv1a(line, digest)
        if clear:
            lines.append(line.rstrip("\n"))
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    record = {
        "history": state.history(),
        "returns": state.returns(),
        "digest": f"{digest:016x}",
    }
    if clear:
        record["states"] = lines
    return record


def main():
    spec, name, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    game = pyspiel.load_game(spec)
    rng = random.Random(seed)
    out = Path(__file__).resolve().parent.parent / "fixtures/openspiel/playthroughs"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"{name}.jsonl", "w") as f:
        f.write(json.dumps({"spec": spec, "games": games, "seed": seed}) + "\n")
        for i in range(games):
            f.write(json.dumps(play(game, rng, i < CLEAR_GAMES)) + "\n")


if __name__ == "__main__":
    main()
