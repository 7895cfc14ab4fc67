#!/usr/bin/env bash
# Hold'em: seed 004's three gain-network generations (restored by
# docs/results/holdem/networks.sh) judged by local best response in its
# standard setting (fcpa, calling until the turn; HANDS hands, default
# 200) and by a learned best response in both seats (BUDGET per seat,
# default 4m, judged over JUDGE duplicate deals, default 4,000). PART=lbr
# or PART=br runs one half (the two halves in parallel take about 35
# minutes on two cores; LBR plays about 0.3 hands a second against these
# networks, whose every decision is a convolution per hand and action).
# Appends one JSON line a generation to generations-lbr.jsonl or
# generations-br.jsonl beside this script.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/results/best-response
holdem=docs/results/holdem
evaluator=target/release/rnad-evaluator
networks=(card-gpu/gen1 generations-gpu/gen2 generations-gpu/gen3)
for network in "${networks[@]}"; do
    player="gain:$holdem/$network.safetensors"
    case "${PART:?PART=lbr or PART=br}" in
        lbr)
            "$evaluator" lbr --game holdem --player "$player" --bets fcpa --call-until-turn \
                --hands "${HANDS:-200}" --seed 5 --json >>"$here/generations-lbr.jsonl"
            ;;
        br)
            "$evaluator" br --game holdem --policy "$player" --seat all \
                --budget "${BUDGET:-4m}" --judge-episodes "${JUDGE:-4000}" --seed 1 --json \
                >>"$here/generations-br.jsonl"
            ;;
        *) echo "PART=lbr or PART=br" >&2; exit 2 ;;
    esac
done
