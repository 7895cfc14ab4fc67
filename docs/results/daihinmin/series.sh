#!/usr/bin/env bash
# A 1-hour R-NaD run of configs/daihinmin.toml as it is now (100-game
# series: the exchange, ranks carried, seats drawn every 3 games; the
# panel plays 4-game matches), then judge.sh on it in 10-game matches:
# 500 games against four default players and 500 against four
# epsilon:1500 players (about half an hour on one core).
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/daihinmin-series-60min}
rm -rf "$run"
timeout --signal=INT 3600 target/release/rnad-learner local --config configs/daihinmin.toml --run-dir "$run" || [ $? -eq 124 ]
OUT=docs/results/daihinmin/series-60min MATCH_GAMES=10 DEALS=10 MC=epsilon:1500 DEALS_MC=10 \
    bash docs/results/daihinmin/judge.sh "$run"
