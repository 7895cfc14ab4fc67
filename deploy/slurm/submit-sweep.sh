#!/usr/bin/env bash
# Submits a sweep as a Slurm job array of one task per run: the runs are
# counted by `rnad-learner sweep ARGUMENTS --list`, and sweep.sbatch runs
# one each. Extra sbatch flags go in SBATCH_OPTIONS (such as
# "--partition=cpu --account=mylab"), the array's concurrency in
# RNAD_PARALLEL (default: as many at once as Slurm allows).
#
#   deploy/slurm/submit-sweep.sh --config configs/leduc.toml \
#       --grid rnad.eta=0.01,0.02,0.04 --seeds 0,1,2 --max-steps 200000 --out sweeps/eta
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$(rnad-learner sweep "$@" --list | wc -l)
if [ "$runs" -eq 0 ]; then
    echo "the sweep has no runs" >&2
    exit 2
fi
array="0-$((runs - 1))"
if [ -n "${RNAD_PARALLEL:-}" ]; then
    array="$array%$RNAD_PARALLEL"
fi
echo "submitting $runs runs as the array $array"
# shellcheck disable=SC2086 # SBATCH_OPTIONS is a list of flags
sbatch --array="$array" ${SBATCH_OPTIONS:-} "$here/sweep.sbatch" "$@"
