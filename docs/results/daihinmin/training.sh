#!/usr/bin/env bash
# A 1-hour R-NaD run of configs/daihinmin.toml (local: learner, one actor
# thread and the head-to-head panel in one process), then judge.sh on it.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/daihinmin-60min}
rm -rf "$run"
timeout --signal=TERM 3600 target/release/rnad-learner local --config configs/daihinmin.toml --run-dir "$run" || [ $? -eq 124 ]
bash docs/results/daihinmin/judge.sh "$run"
