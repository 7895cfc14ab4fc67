#!/usr/bin/env bash
# Builds the image for the learner on an NVIDIA GPU (docker/Dockerfile's
# target `cuda-prebuilt`, tagged rnad-cuda:latest unless TAG is given): the
# rnad image with an rnad-learner built with the cuda feature and the CUDA
# runtime libraries that binary links (cudart, cuBLAS, cuBLASLt, cuRAND,
# from NVIDIA's PyPI wheels through .ci/cuda-env.sh). rnad-actor and
# rnad-evaluator are the CPU builds, so the same image also runs on nodes
# without a GPU. The driver's libcuda.so.1 is not in it: the NVIDIA
# container toolkit mounts the host's (`docker run --gpus all`, or the
# NVIDIA device plugin on Kubernetes).
#
#   bash docker/build-cuda-image.sh [TAG]
#
# Needs a Docker engine (DOCKER_HOST is honoured), Python 3 with venv,
# objcopy and a C compiler; no GPU. Env: CUDA_COMPUTE_CAP (default 90 for
# H100/H200; 80 for A100, 89 for L4/L40S). The binaries are staged,
# without debug information, in target/docker-cuda.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-rnad-cuda:latest}
stage=target/docker-cuda

echo "== rnad-cuda: the CPU rnad-actor and rnad-evaluator"
cargo build --release --locked --quiet -p rnad-actor -p rnad-evaluator
(
    # shellcheck source=../.ci/cuda-env.sh
    source .ci/cuda-env.sh
    echo "== rnad-cuda: rnad-learner with the cuda feature (compute capability $CUDA_COMPUTE_CAP)"
    cargo build --release --locked --quiet --features cuda -p rnad-learner-cli
    rm -rf "$stage"
    mkdir -p "$stage/lib"
    # Every library the learner links from the wheels, by ldd (cuBLAS pulls
    # in cuBLASLt); the driver stub is left out on purpose.
    LD_LIBRARY_PATH="$CUDA_HOME/lib" ldd target/cuda/release/rnad-learner \
        | awk -v lib="$CUDA_HOME/lib/" 'index($3, lib) == 1 { print $3 }' \
        | while read -r library; do cp -L "$library" "$stage/lib/"; done
    objcopy --strip-debug target/cuda/release/rnad-learner "$stage/rnad-learner"
)
for binary in rnad-actor rnad-evaluator; do
    objcopy --strip-debug "target/release/$binary" "$stage/$binary"
done
echo "   libraries: $(cd "$stage/lib" && echo *) ($(du -sm "$stage/lib" | cut -f1) MB)"
[ -f "$stage/lib/libcudart.so.13" ] || { echo "libcudart.so.13 was not among the learner's libraries" >&2; exit 1; }

echo "== rnad-cuda: docker build --target cuda-prebuilt -t $tag"
docker build --quiet -f docker/Dockerfile --target cuda-prebuilt -t "$tag" . >/dev/null
echo "   built $tag"
