"""OpenSpiel 2.0.2's NFSP (its PyTorch version) on one game for a fixed
training wall time, judged by exact NashConv of its average policy.

The hyper-parameters are those of OpenSpiel's own Leduc example
(`open_spiel/python/examples/nfsp_leduc_pytorch.py`), used unchanged on
every game: one hidden layer of 128, replay 200k, reservoir 2M, learning
from 1,000 transitions, anticipatory 0.1, batch 128, an update every 64
steps, SGD at 0.01 for both networks (MSE for the DQN, cross-entropy for
the average policy), target network every 19,200 steps, ε decaying
exponentially from 0.06 to 0.001 over 20M steps.

The clock counts training only: every EVAL seconds of it, training
pauses while the average policy is written out as a table over every
information state and OpenSpiel's C++ best responses give its NashConv.
Each evaluation is one JSON line: training seconds, episodes, NashConv.
SEED seeds the game's chance, each agent and the exploration; an
evaluation leaves the random state as it found it, so how often one runs
does not change the training.

    python nfsp.py --game leduc_poker --seconds 600 --out nfsp.jsonl
"""

import argparse
import json
import time

import numpy as np
import pyspiel
import torch
from open_spiel.python import policy, rl_environment
from open_spiel.python.algorithms import exploitability
from open_spiel.python.pytorch import nfsp

LEDUC_SETTINGS = dict(
    replay_buffer_capacity=int(2e5),
    reservoir_buffer_capacity=int(2e6),
    min_buffer_size_to_learn=1000,
    anticipatory_param=0.1,
    batch_size=128,
    learn_every=64,
    rl_learning_rate=0.01,
    sl_learning_rate=0.01,
    optimizer_str="sgd",
    loss_str="mse",
    update_target_network_every=19200,
    discount_factor=1.0,
    epsilon_decay_duration=int(20e6),
    epsilon_start=0.06,
    epsilon_end=0.001,
)


def average_policy_table(game, table, agents):
    """The agents' average policies at every information state of `table`."""
    observations = {
        "info_state": [None] * game.num_players(),
        "legal_actions": [None] * game.num_players(),
    }
    for state in table.states:
        player = state.current_player()
        legal = state.legal_actions(player)
        observations["current_player"] = player
        observations["info_state"][player] = state.information_state_tensor(player)
        observations["legal_actions"][player] = legal
        step = rl_environment.TimeStep(
            observations=observations, rewards=None, discounts=None, step_type=None
        )
        with agents[player].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            probs = agents[player].step(step, is_evaluation=True).probs
        row = table.state_index(state)
        table.action_probability_array[row, :] = 0.0
        table.action_probability_array[row, legal] = np.asarray(probs)[legal]
    return table


def play_episode(env, agents):
    time_step = env.reset()
    while not time_step.last():
        player = time_step.observations["current_player"]
        action = agents[player].step(time_step).action
        time_step = env.step([action])
    for agent in agents:
        agent.step(time_step)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, help="an OpenSpiel game string")
    parser.add_argument("--seconds", type=float, required=True, help="training wall time")
    parser.add_argument("--eval", type=float, default=30.0, help="training seconds between evaluations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="JSON lines, one per evaluation")
    args = parser.parse_args()

    game = pyspiel.load_game(args.game)
    env = rl_environment.Environment(game)
    env.seed(args.seed)
    state_size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    # Each agent seeds its networks from its `seed` (and the global
    # generators, which it resets): distinct per player and run seed.
    agents = [
        nfsp.NFSP(player, state_size, actions, [128], seed=1000 * args.seed + 10 * player,
                  **LEDUC_SETTINGS)
        for player in range(game.num_players())
    ]
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    table = policy.TabularPolicy(game)

    trained = 0.0
    episodes = 0
    with open(args.out, "w") as out:
        while True:
            started = time.perf_counter()
            training_random_state = np.random.get_state()
            nash_conv = exploitability.nash_conv(
                game, average_policy_table(game, table, agents), use_cpp_br=True
            )
            np.random.set_state(training_random_state)
            line = dict(
                game=args.game,
                seed=args.seed,
                training_seconds=trained,
                episodes=episodes,
                nash_conv=nash_conv,
                evaluation_seconds=time.perf_counter() - started,
            )
            text = json.dumps(line)
            out.write(text + "\n")
            out.flush()
            print(text, flush=True)
            if trained >= args.seconds:
                break
            started = time.perf_counter()
            while time.perf_counter() - started < min(args.eval, args.seconds - trained):
                for _ in range(10):
                    play_episode(env, agents)
                episodes += 10
            trained += time.perf_counter() - started


if __name__ == "__main__":
    main()
