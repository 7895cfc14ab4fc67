#!/usr/bin/env bash
# Builds the `cuda` feature on a machine with no GPU and no CUDA toolkit, from
# NVIDIA's PyPI wheels (CUDA 13.0 Update 2, the toolkit and driver 580 of the
# lent H100/H200 machines). Usage:
#   bash .ci/cuda-build.sh                     # -p rnad-learner-cli
#   bash .ci/cuda-build.sh --workspace         # any cargo build selection
# Env: CUDA_WHEELS_DIR (cache, ~1.2 GiB installed), CUDA_COMPUTE_CAP (default 90).
# The binaries are dynamically linked: at run time they need libcuda.so.1
# (driver), libcudart.so.13, libcublas(Lt).so.13 and libcurand.so.10 on the
# loader path (system CUDA 13 or LD_LIBRARY_PATH=<cache>/.../nvidia/cu13/lib;
# docker/build-cuda-image.sh puts the learner and them in an image).
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=.ci/cuda-env.sh
source .ci/cuda-env.sh

if [[ $# -eq 0 ]]; then set -- -p rnad-learner-cli; fi
exec cargo build --release --locked --features cuda "$@"
