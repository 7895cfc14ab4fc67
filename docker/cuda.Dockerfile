# The processes on an NVIDIA GPU: the rnad image (RNAD_IMAGE) with
# rnad-learner, rnad-actor and rnad-evaluator built with the cuda feature
# and the CUDA runtime libraries they link. docker/build-cuda-image.sh
# stages both in target/docker-cuda, this file's whole build context, and
# builds it as rnad-cuda. The driver's libcuda.so.1 is the node's: the
# container runtime, set up with the NVIDIA container toolkit, mounts it
# where the loader finds it. Without it these binaries do not start, so
# processes on nodes without a GPU use the rnad image.

ARG RNAD_IMAGE=rnad:latest

FROM ${RNAD_IMAGE}
COPY lib /usr/local/lib/rnad-cuda
COPY bin/ /usr/local/bin/
# The toolkit mounts the driver's compute libraries for these
# capabilities (its default too, stated so the image does not depend on it).
ENV LD_LIBRARY_PATH=/usr/local/lib/rnad-cuda \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility
