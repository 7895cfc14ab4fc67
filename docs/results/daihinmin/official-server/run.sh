#!/usr/bin/env bash
# rnad-uecda-client against the official UECda server: builds tndhms from
# the UECda development kit (tndhm_devkit_c-20180826, as committed in
# github.com/honohonopi/UECda at 4c56e29; SRC names an unpacked copy, else
# it is downloaded), without its X display, and plays 100-game matches of
# five clients on 127.0.0.1 with its shipped settings (exchange, seats
# drawn every 3 games, 8-cut, lock, revolution). CHECKPOINT (a Daihinmin
# checkpoint) sits in the second match. Then the kit's own C client
# (its standard "default" player) takes four seats against rnad's
# `default` in DEVKIT_MATCHES matches (default 10), to compare the two. Writes results.jsonl here: one line a
# client (its final line) and one a match (the server's totals).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
client="$root/target/release/rnad-uecda-client"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
commit=4c56e29fcb7ec2fd5d634c0c8307eca5ab91f301
if [ -z "${SRC:-}" ]; then
    curl -sSL "https://codeload.github.com/honohonopi/UECda/tar.gz/$commit" | tar -xz -C "$work"
    SRC="$work/UECda-$commit/tndhm_devkit_c-20180826"
fi
server_src="$SRC/server/src"
(cd "$SRC/client" && gcc -O1 -w -fcommon -o "$work/devkit-client" client.c connection.c daihinmin.c)
(cd "$server_src" && gcc -O1 -w -DX_DISPLAY_MISSING -o "$work/tndhms" daihu.c external.c \
    xdaihu.c tn_protocol.c mt19937ar.c logger.c conv_table_to_20140.c -lm)
cp "$server_src/tndhms.cfg" "$work/"
# Its logger writes under logs/ (and crashes where there is none).
mkdir -p "$work/logs"
out="$here/results.jsonl"
: > "$out"
port=${PORT:-42710}

# One match: the five players (PLAYER or PLAYER@20060) in connection order.
match() {
    port=$((port + 1))
    (cd "$work" && ./tndhms -p "$port" > "$work/server.log" 2>&1) &
    local server=$! pids=() specs=("$@") i=0
    sleep 0.5
    for spec in "$@"; do
        local player=${spec%@*} protocol=20070
        [ "$spec" != "$player" ] && protocol=${spec#*@}
        if [ "$player" = devkit ]; then
            "$work/devkit-client" -p "$port" > /dev/null 2> "$work/c$i.err" &
            echo null > "$work/c$i.out"
        else
            "$client" --port "$port" --player "$player" --name "c$i" --seed "$i" \
                --protocol "$protocol" > "$work/c$i.out" 2> "$work/c$i.err" &
        fi
        pids+=($!)
        # The server waits 2.5 s on a silent (20060) client.
        if [ "$protocol" = 20060 ]; then sleep 3; else sleep 0.3; fi
        i=$((i + 1))
    done
    local failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    wait "$server" || true
    for j in $(seq 0 $((i - 1))); do
        printf '{"player":"%s","client":%s}\n' "${specs[$j]}" "$(cat "$work/c$j.out" || echo null)" >> "$out"
    done
    local totals
    totals=$(grep -A1 "total point" "$work/server.log" | tail -1 | tr -s ' ' ',' | sed 's/^,//; s/,$//')
    printf '{"players":"%s","server_points":[%s],"clients_failed":%s}\n' "$*" "$totals" "$failed" >> "$out"
    echo "match $*: points $totals, failed $failed" >&2
    [ "$failed" = 0 ] || { tail -3 "$work"/c*.err >&2; return 1; }
}

match default default default default default
match "checkpoint:${CHECKPOINT:?give CHECKPOINT=FILE (a Daihinmin checkpoint)}" uniform epsilon:100 \
    majority:100 softmax:100
match random-sampling:100 ucb1-tuned:100 majority-full:40 epsilon:100:0.3 default
match default default default@20060 default default
for _ in $(seq "${DEVKIT_MATCHES:-10}"); do
    match default devkit devkit devkit devkit
done
echo "wrote $out" >&2
