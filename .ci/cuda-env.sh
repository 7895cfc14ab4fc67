# shellcheck shell=bash
# Sourced by .ci/cuda-build.sh and docker/build-cuda-image.sh: installs
# the CUDA 13 toolkit from NVIDIA's PyPI wheels (once, cached) and exports
# what the cuda feature's build needs: NVCC, PATH, CUDA_HOME (its lib/ holds
# the runtime libraries the binaries link), CUDA_COMPUTE_CAP and
# CARGO_TARGET_DIR=target/cuda. Run from the repository root.
# Env: CUDA_WHEELS_DIR (cache, ~1.2 GiB installed), CUDA_COMPUTE_CAP (default 90).

CUDA_WHEELS_DIR="${CUDA_WHEELS_DIR:-$HOME/.cache/rnad-cuda}"
VENV="$CUDA_WHEELS_DIR/venv-cuda-13.0.88"
# Pinned and verified together; all install into site-packages/nvidia/cu13.
WHEELS=(
  nvidia-cuda-nvcc==13.0.88     # nvcc, ptxas, fatbinary, nvlink
  nvidia-cuda-crt==13.0.88      # crt/ headers nvcc needs (split out in 13.x)
  nvidia-nvvm==13.0.88          # cicc + libdevice (split out in 13.x)
  nvidia-cuda-runtime==13.0.96  # cuda_runtime.h, cuda.h, libcudart.so.13
  nvidia-cuda-cccl==13.0.85     # include/cccl (cub/thrust/libcu++)
  nvidia-cuda-nvrtc==13.0.88    # libnvrtc.so.13 (cudarc links it)
  nvidia-curand==10.4.0.35      # libcurand.so.10 (cudarc links it)
  nvidia-cublas==13.1.0.3       # libcublas(Lt).so.13 (cudarc links it)
)

if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -m pip show -q nvidia-cublas >/dev/null 2>&1; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "${WHEELS[@]}"
fi
CU="$("$VENV/bin/python" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')"
[[ -x "$CU/bin/nvcc" ]] || { echo "nvcc missing under $CU" >&2; exit 1; }

# The wheels ship only versioned sonames; `-lcublas` etc. need the bare .so names.
for so in cudart.so.13 cublas.so.13 cublasLt.so.13 curand.so.10 nvrtc.so.13; do
  ln -sfn "lib$so" "$CU/lib/lib${so%.so.*}.so"
done

# No wheel ships the driver (libcuda.so): cudarc links `-lcuda`, so build a stub
# with soname libcuda.so.1 that exports every cu* symbol cudarc binds; the real
# driver is loaded in its place at run time (like the toolkit's lib/stubs).
if [[ ! -f "$CU/lib/stubs/libcuda.so" ]]; then
  CUDARC_SRC="$(cargo metadata --locked --format-version 1 --all-features \
    | python3 -c 'import json,sys,os; print(next(os.path.dirname(p["manifest_path"]) for p in json.load(sys.stdin)["packages"] if p["name"]=="cudarc"))')"
  mkdir -p "$CU/lib/stubs"
  grep -ohE '^pub unsafe fn cu[A-Za-z0-9_]+' "$CUDARC_SRC/src/driver/sys/mod.rs" \
    | awk '{print $4}' | sort -u | sed 's/.*/int &(void) { return 999; }/' > "$CU/lib/stubs/cuda_stub.c"
  cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$CU/lib/stubs/libcuda.so" "$CU/lib/stubs/cuda_stub.c"
fi

# cudaforge (candle-kernels) takes nvcc from $NVCC first; it derives include/ from it.
export NVCC="$CU/bin/nvcc"
# cudarc's build.rs runs plain `nvcc --version` (PATH) to pick its CUDA 13.0 bindings.
export PATH="$CU/bin:$PATH"
# cudarc adds $CUDA_HOME/{lib,lib/stubs} to the link search path (cublas, stub libcuda, cudart...).
export CUDA_HOME="$CU"
# No GPU to query with nvidia-smi: 90 = H100/H200 (cudaforge turns it into sm_90a); 80 = A100.
export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-90}"
# Keep the CUDA build apart from the normal target/ (different features, different artifacts).
export CARGO_TARGET_DIR=target/cuda

