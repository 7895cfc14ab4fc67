#!/usr/bin/env bash
# Seed 003's tuning curves against four default players (the devkit's
# standard client) at N = 1500, with enough games to resolve 0.1 points:
# x = cK/N over 0, 0.1, … 1 and r over 0.1 … 5, 70 deals (350 games) a
# configuration, and majority (N in all) and majority-full (5N) beside
# epsilon. About 40 minutes on one core (JOBS=2: 20 on two). The 200 more
# games of experiment-default-more.jsonl, on other deals:
#   DEALS=40 SEED=5 OUT=docs/results/daihinmin/experiment-default-more.jsonl JOBS=2 bash docs/results/daihinmin/experiment-default.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=${N:-1500}
d=default,default,default,default
OUT=${OUT:-docs/results/daihinmin/experiment-default.jsonl} OPPONENTS=default \
    X_VALUES="0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1" \
    R_VALUES="0.1 0.25 0.5 0.75 1 1.5 2 3 4 5" DEALS=${DEALS:-70} TABLE=no \
    TABLE_EXTRA="m - majority:$n,$d
m - majority-full:$n,$d
m - random-sampling:$n,$d" \
    bash docs/results/daihinmin/experiment.sh
