#!/usr/bin/env bash
# The 1-hour R-NaD run of run-60min/ again, from its archived config (first
# games, the dense head; local: learner, one actor thread and the
# head-to-head panel in one process), then judge.sh on it. Today's
# config trains on series: series.sh.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/daihinmin-60min}
rm -rf "$run"
timeout --signal=TERM 3600 target/release/rnad-learner local --config docs/results/daihinmin/run-60min/config.toml --run-dir "$run" || [ $? -eq 124 ]
bash docs/results/daihinmin/judge.sh "$run"
