# Records the site's CUDA traces with the reference torch on an NVIDIA GPU.
#   docker build -t torch-compile-walkthrough .
#   docker run --rm --gpus all -v "$PWD/docs/_traces:/work/docs/_traces" torch-compile-walkthrough
FROM nvidia/cuda:12.8.1-runtime-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# g++ and the Python headers: Inductor compiles C++ wrappers and Triton compiles its launchers at run time.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev g++ \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv \
    && pip install nox

WORKDIR /work
COPY . .

# The record session installs the reference torch (pinned once, in tracers/env.py) at build time.
RUN nox -s record --install-only

CMD ["nox", "-s", "record", "--reuse-existing-virtualenvs", "--", "--device", "cuda"]
