#!/usr/bin/env bash
# Issue 39's first step: the Leduc recipe (configs/leduc.toml: one actor
# thread, 256 games an actor, target_average, the quiet phase from 300k
# steps) on the other two games, 20 minutes each (RUN_SECONDS), seed SEED
# (default 0), one run at a time on the whole machine. Each run's config,
# history and every tenth line of its training log (gzipped) go to
# OUT/NAME/seed-SEED.
# RUNS="leduc-3p liars_dice" runs only the runs named (default: all).
set -euo pipefail
cd "$(dirname "$0")/../../.."
seed=${SEED:-0}
out=${OUT:-docs/results/leduc-recipe-elsewhere}
scratch=${SCRATCH:-$(mktemp -d)}
mkdir -p "$scratch"
learner="$scratch/rnad-learner"
cp target/release/rnad-learner "$learner"

known=()
listing=
run() { # run NAME SETTINGS...
    local name=$1 dir="$scratch/$1-seed-$seed"
    shift
    if [ -n "$listing" ]; then known+=("$name"); return 0; fi
    [ -z "${RUNS:-}" ] || [[ " $RUNS " == *" $name "* ]] || return 0
    local sets=()
    for setting in "$@"; do sets+=(--set "$setting"); done
    timeout -s TERM "${RUN_SECONDS:-1200}" "$learner" local --config configs/leduc.toml --set "seed=$seed" \
        "${sets[@]}" --run-dir "$dir" > "$dir.log" 2>&1 || [ $? -eq 124 ]
    mkdir -p "$out/$name/seed-$seed"
    cp "$dir/config.toml" "$out/$name/seed-$seed/"
    gzip -9 < "$dir/history.jsonl" > "$out/$name/seed-$seed/history.jsonl.gz"
    awk 'NR % 10 == 1' "$dir/training.jsonl" | gzip -9 > "$out/$name/seed-$seed/training.jsonl.gz"
}

all_runs() {
    # The quiet phase switched off by a start step no run reaches, and
    # θ_reg rolled every 500 steps throughout: with η 0.02 (and β 4, the
    # -beta4 run), the settings configs/liars_dice.toml held before its η
    # became 0.2 / 13 (the -eta0.0154 run).
    # Every η set below is in reward units, as these runs recorded it
    # (configs/leduc.toml now gives η per unit of stake).
    local reward_units=rnad.eta_unit=reward
    local quiet_off=(rnad.late_batch_start_step=1000000000 rnad.learning_rate_decay_start_step=1000000000)
    local noquiet=(game=liars_dice rnad.eta=0.02 $reward_units 'rnad.entropy_schedule_size=[500]'
        'rnad.entropy_schedule_repeats=[1]' "${quiet_off[@]}")
    run leduc-3p 'game=leduc_poker(players=3)'
    # The quiet phase from 120k steps (about 10 minutes) instead of 300k.
    run leduc-3p-quiet120k 'game=leduc_poker(players=3)' rnad.late_batch_start_step=120000 \
        rnad.learning_rate_decay_start_step=120000 'rnad.entropy_schedule_repeats=[240, 1]'
    run liars_dice game=liars_dice rnad.eta=0.2 $reward_units
    run liars_dice-eta0.02 game=liars_dice rnad.eta=0.02 $reward_units
    run liars_dice-eta0.02-noquiet "${noquiet[@]}"
    run liars_dice-eta0.02-noquiet-wide "${noquiet[@]}" 'network.hidden=[256, 256]'
    run liars_dice-eta0.02-noquiet-beta4 "${noquiet[@]}" rnad.beta_neurd=4.0
    run liars_dice-eta0.02-noquiet-beta4-lr7.5e-4 "${noquiet[@]}" rnad.beta_neurd=4.0 rnad.learning_rate=7.5e-4
    # The -beta4 run's settings with a smaller and a larger η.
    run liars_dice-eta0.005-noquiet-beta4 "${noquiet[@]}" rnad.beta_neurd=4.0 rnad.eta=0.005
    run liars_dice-eta0.05-noquiet-beta4 "${noquiet[@]}" rnad.beta_neurd=4.0 rnad.eta=0.05
    # configs/liars_dice.toml's settings of the time (η 0.02, no quiet phase, β 4) on
    # Leduc: one recipe for both?
    run leduc-liars_dice-settings rnad.eta=0.02 $reward_units 'rnad.entropy_schedule_size=[500]' \
        'rnad.entropy_schedule_repeats=[1]' "${quiet_off[@]}" rnad.beta_neurd=4.0
    # Leduc's recipe with its returns divided by 13 (its largest win) and
    # η by the same: R-NaD's regularised reward r - η log(π/π_reg) scaled
    # by 1/13 throughout, which Adam's step sees only in the value loss's
    # weight (squared, it shrinks by 1/169 against the policy loss's 1/13).
    run leduc-returns-over-13 rnad.reward_scale=0.07692307692307693 rnad.eta=0.015384615384615385 $reward_units
    # Leduc's η over 13 on Liar's Dice, whose returns are already ±1
    # (now configs/liars_dice.toml's η).
    run liars_dice-eta0.0154-noquiet-beta4 "${noquiet[@]}" rnad.beta_neurd=4.0 rnad.eta=0.015384615384615385
    run liars_dice-eta0.02-period5000 game=liars_dice rnad.eta=0.02 $reward_units 'rnad.entropy_schedule_size=[5000]' \
        'rnad.entropy_schedule_repeats=[1]' "${quiet_off[@]}"
    # configs/leduc.toml as it is (η per unit of stake: 0.0154 here, the
    # quiet phase from 300k steps) with Liar's Dice's β 4: does Liar's Dice
    # need to be without the quiet phase? (No: now configs/liars_dice.toml.)
    run liars_dice-recipe-beta4 game=liars_dice rnad.beta_neurd=4.0
    # The same with half the queue (2,048 trajectories, the quiet phase's
    # batch and the least it may hold): a learner-bound run's queue sits
    # full, so its data are about 8 versions old; here about 4.
    run liars_dice-recipe-beta4-queue2048 game=liars_dice rnad.beta_neurd=4.0 actors.queue_capacity=2048
    # The same as the recipe with v-trace's value-target importance weights
    # clipped at 1 (the reference leaves them unclipped): with data 8
    # versions old, weights of 10^3-10^4 spiked the value loss to 10^4.
    run liars_dice-recipe-beta4-rho1 game=liars_dice rnad.beta_neurd=4.0 rnad.rho_vtrace=1
    # The same as the recipe with θ_reg the arithmetic mean of every target
    # so far (rnad.averaging = am) instead of moving half way to the last
    # one: the target and θ_reg stay at about 0.6 while the target's
    # average falls to about 0.3; does a magnet at the long mean pull the
    # target nearer?
    run liars_dice-recipe-beta4-am game=liars_dice rnad.beta_neurd=4.0 rnad.averaging=am
}

# Names in RUNS are checked before anything runs.
listing=1 all_runs
for name in ${RUNS:-}; do
    [[ " ${known[*]} " == *" $name "* ]] || { echo "RUNS: no run is called $name (runs: ${known[*]})" >&2; exit 2; }
done
all_runs
