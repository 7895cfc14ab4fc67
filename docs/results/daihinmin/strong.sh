#!/usr/bin/env bash
# The Daihinmin player of series-60min/resumed-greedy/ from scratch:
# configs/daihinmin.toml trained to 29,000 learner steps (about two hours
# on the 2-core machine; the run there took 2 h 5 min in three sittings),
# then judged playing greedily (checkpoint:FILE:greedy) in 10-game matches
# as UECda plays them: 500 games against four default players and 500
# against four epsilon:1500 players (judge.sh), and 2,000 more against four
# default players. Threads and timing make the weights differ from run to
# run; the recipe is the same.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/daihinmin-29k}
out=${OUT:-docs/results/daihinmin/strong}
target/release/rnad-learner local --config configs/daihinmin.toml --run-dir "$run" --max-steps 29000
OUT=$out MATCH_GAMES=10 DEALS=10 MC=epsilon:1500 DEALS_MC=10 PLAY=greedy \
    bash docs/results/daihinmin/judge.sh "$run"
checkpoint=$(ls "$run"/checkpoints/*.safetensors | tail -1)
target/release/rnad-evaluator match --game "daihinmin(games=10)" \
    --players "checkpoint:$checkpoint:greedy,default,default,default,default" \
    --deals 40 --seed 11 --json > "$out/default-2000-games-greedy.json"
