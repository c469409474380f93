# One image for every role: `dojo serve` (web + local workers) or `dojo worker` (Celery grading worker).
FROM python:3.11-slim

# bubblewrap is the grading sandbox; tini reaps sandbox children and forwards signals.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/dojo
# Every package comes from requirements.lock (scripts/lock.sh), each checked against its sha256 there:
# torch 2.13.0+cpu from the PyTorch CPU index's torch page, every other package from PyPI.
# The lock's torch hash is the sha256 of torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl, the
# CPU wheel for this image (CPython 3.11, x86_64), as scripts/lock.sh found it (TORCH_FIND_LINKS, or the
# wheel directory in the lock machine's pip configuration). pip installs the index's file of that name
# only if its sha256 is that one and refuses any other file, a CUDA build included. Should the index's
# bytes differ from the wheel the lock was compiled against, the build stops with a hash mismatch:
# regenerate the lock against the index (TORCH_FIND_LINKS=https://download.pytorch.org/whl/cpu/torch/
# scripts/lock.sh). Another platform (arm64) or Python needs a lock compiled there.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes --find-links "${TORCH_INDEX_URL}/torch/" -r requirements.lock

COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
# The project itself, with nothing resolved beyond the lock, built by the locked setuptools.
RUN pip install --no-cache-dir --no-deps --no-build-isolation -e .

# The service runs as an unprivileged user; sandboxed code runs under bubblewrap's user namespace.
RUN useradd --system --create-home --uid 10001 dojo && mkdir -p /var/lib/dojo && chown dojo /var/lib/dojo
USER dojo
ENV DOJO_DATA_DIR=/var/lib/dojo \
    DOJO_HOST=0.0.0.0 \
    DOJO_PORT=8000 \
    PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)" || exit 1
ENTRYPOINT ["tini", "--", "dojo"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
