# Records the site's CUDA traces with the reference torch on an NVIDIA GPU.
#   docker build -t torch-compile-walkthrough .
#   docker run --rm --gpus all -v "$PWD/docs/_traces:/walkthrough/docs/_traces" torch-compile-walkthrough
FROM nvidia/cuda:12.8.1-runtime-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# g++ and the Python headers: Inductor compiles C++ wrappers and Triton compiles its launchers at run time.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev g++ \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv

WORKDIR /walkthrough
COPY . .

# The reference torch (pinned once, in tracers/capture/env.py, which needs nothing but Python to read),
# then the project with its deep-mode and HTML-page extras. docs/_traces/cuda/INSTALL-CHECK.md records
# these steps run on a GPU machine. (DL3013: "." is this project; its extras' bounds live in pyproject.toml.)
# hadolint ignore=DL3013
RUN pip install "torch==$(python3 -m tracers.vocabulary.releases)" \
    && pip install ".[deep,page]"

CMD ["python", "-m", "tracers", "record", "--device", "cuda", "--lines"]
