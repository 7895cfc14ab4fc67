#!/usr/bin/env bash
# A 30-minute R-NaD run of configs/holdem.toml (local: learner, one actor
# thread, the head-to-head panel with LBR, in one process), then
# judge.sh on it. About 45 minutes on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run=${RUN_DIR:-target/holdem-30min}
rm -rf "$run"
timeout --signal=TERM 1800 target/release/rnad-learner local --config configs/holdem.toml --run-dir "$run" || [ $? -eq 124 ]
bash docs/results/holdem/judge.sh "$run"
