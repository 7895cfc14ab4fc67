#!/usr/bin/env bash
# The big games' benchmark, before and after a change, in one run on one
# machine: for Leduc (the reference settings), hold'em (`holdem` with the
# MLP and with the card torso, and `fullgame`: every raise size an action,
# scored one by one or, where the later build groups them, in groups)
# and Daihinmin, `rnad-learner bench` (learner steps/s and decisions/s, one
# actor's decisions/s, the whole local run's, wire bytes a decision where
# the build reports them) and the resident memory of a one-minute local
# run (`/usr/bin/time`'s maximum). BEFORE_BIN and AFTER_BIN hold each
# build's rnad-learner, BEFORE_TREE the earlier build's checkout (its
# configs: an older build refuses keys it does not know); each line of
# OUT/figures.jsonl is one case of one build; summary.py prints the table.
set -euo pipefail
cd "$(dirname "$0")/../../.."
before=${BEFORE_BIN:?a directory with the rnad-learner of the earlier build}
before_tree=${BEFORE_TREE:-.}
after=${AFTER_BIN:-target/release}
out=${OUT:-docs/results/big-games}
seconds=${SECONDS_EACH:-10}
local_seconds=${LOCAL_SECONDS:-60}
only=${CASES:-}  # names of the cases to run, space-separated (default: all)
fullgame='universal_poker(betting=nolimit,numPlayers=2,numRounds=4,blind=100 50,firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,stack=5000 5000,bettingAbstraction=fullgame)'
# name, config, extra --set (or nothing), the later build's own extra
# --set (or nothing)
cases=(
    "leduc|configs/leduc-reference.toml||"
    "holdem-mlp|configs/holdem.toml||"
    "holdem-card|configs/holdem-card.toml||"
    "fullgame-mlp|configs/holdem.toml|game=$fullgame|"
    "fullgame-groups|configs/holdem.toml|game=$fullgame|network.action_groups=true"
    "daihinmin|configs/daihinmin.toml||"
)
mkdir -p "$out"
: >"$out/figures.jsonl"
for entry in "${cases[@]}"; do
    IFS='|' read -r name config set after_set <<<"$entry"
    if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
        continue
    fi
    for who in before after; do
        sets=()
        [ -n "$set" ] && sets=(--set "$set")
        bin=$before; tree=$before_tree
        if [ "$who" = after ]; then
            bin=$after; tree=.
            [ -n "$after_set" ] && sets+=(--set "$after_set")
        fi
        echo "$name, $who" >&2
        report=$(mktemp)
        "$bin/rnad-learner" bench --config "$tree/$config" "${sets[@]}" --seconds "$seconds" --out "$report" >/dev/null 2>&1 \
            || { echo "  bench failed" >&2; echo '{}' >"$report"; }
        run=$(mktemp -d)
        rss_file=$(mktemp)
        /usr/bin/time -f '%M' -o "$rss_file" timeout -s INT -k 30 "$local_seconds" \
            "$bin/rnad-learner" local --config "$tree/$config" "${sets[@]}" --run-dir "$run" >/dev/null 2>&1 || true
        rss=$(tail -1 "$rss_file")
        python3 -c 'import json,sys; print(json.dumps({"case": sys.argv[1], "build": sys.argv[2], "bench": json.load(open(sys.argv[3])), "local_max_rss_kb": int(sys.argv[4]) if sys.argv[4].isdigit() else None, "local_seconds": float(sys.argv[5])}))' \
            "$name" "$who" "$report" "$rss" "$local_seconds" >>"$out/figures.jsonl"
        rm -rf "$report" "$run" "$rss_file"
    done
done
python3 "$(dirname "$0")/summary.py" "$out/figures.jsonl"
