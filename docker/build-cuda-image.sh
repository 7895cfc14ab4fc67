#!/usr/bin/env bash
# Builds the image for the processes that run on an NVIDIA GPU
# (docker/cuda.Dockerfile, tagged rnad-cuda:latest unless TAG is given): the
# rnad image (RNAD_IMAGE, default rnad:latest, built first with
# `docker build -f docker/Dockerfile -t rnad:latest .`) with rnad-learner,
# rnad-actor and rnad-evaluator built with the cuda feature (the learner's
# steps, actors' forward passes, seed 004's network's training on the GPU
# with `--device cuda`) and the CUDA runtime libraries they link (cudart,
# cuBLAS, cuBLASLt, cuRAND, from NVIDIA's PyPI wheels through
# .ci/cuda-env.sh). The driver's libcuda.so.1 is not in it: the node's
# container runtime, set up with the NVIDIA container toolkit, mounts the
# host's (`docker run --gpus all`; on Kubernetes, GPU nodes with NVIDIA's
# device plugin or GPU Operator). A CUDA build does not start without a
# driver, so processes on nodes without a GPU keep the rnad image.
#
#   bash docker/build-cuda-image.sh [TAG]
#
# Needs a Docker engine (DOCKER_HOST is honoured), Python 3 with venv,
# objcopy and a C compiler; no GPU. Env: CUDA_COMPUTE_CAP (default 90 for
# H100/H200; 80 for A100, 89 for L4/L40S). The binaries (without debug
# information) and the libraries are staged in target/docker-cuda, the
# image's build context.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-rnad-cuda:latest}
base=${RNAD_IMAGE:-rnad:latest}
stage=target/docker-cuda

docker image inspect "$base" >/dev/null 2>&1 || {
    echo "no image $base to build on: build it first (docker build -f docker/Dockerfile -t $base .) or name another with RNAD_IMAGE" >&2
    exit 2
}
# shellcheck source=.ci/cuda-env.sh
source .ci/cuda-env.sh
binaries=(rnad-learner rnad-actor rnad-evaluator)
echo "== rnad-cuda: ${binaries[*]} with the cuda feature (compute capability $CUDA_COMPUTE_CAP)"
cargo build --release --locked --quiet --features cuda -p rnad-learner-cli -p rnad-actor -p rnad-evaluator
rm -rf "$stage"
mkdir -p "$stage/lib" "$stage/bin"
for binary in "${binaries[@]}"; do
    # Every library the binary links from the wheels, by ldd (cuBLAS pulls
    # in cuBLASLt); the driver stub is left out on purpose.
    LD_LIBRARY_PATH="$CUDA_HOME/lib" ldd "target/cuda/release/$binary" \
        | awk -v lib="$CUDA_HOME/lib/" 'index($3, lib) == 1 { print $3 }' \
        | while read -r library; do cp -L "$library" "$stage/lib/"; done
    objcopy --strip-debug "target/cuda/release/$binary" "$stage/bin/$binary"
done
[ -f "$stage/lib/libcudart.so.13" ] || { echo "libcudart.so.13 was not among the binaries' libraries" >&2; exit 1; }
echo "   libraries: $(cd "$stage/lib" && echo *) ($(du -sm "$stage/lib" | cut -f1) MB)"

echo "== rnad-cuda: docker build on $base -t $tag"
docker build --quiet -f docker/cuda.Dockerfile --build-arg "RNAD_IMAGE=$base" -t "$tag" "$stage" >/dev/null
echo "   built $tag"
