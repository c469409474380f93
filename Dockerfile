# One image for every role: `dojo serve` (web + local workers) or `dojo worker` (Celery grading worker).
FROM python:3.11-slim

# bubblewrap is the grading sandbox; tini reaps sandbox children and forwards signals.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap tini \
 && rm -rf /var/lib/apt/lists/*

# The CPU build of torch comes first so the pinned requirement never pulls a CUDA build.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
RUN pip install --no-cache-dir torch==2.13.0 --index-url "${TORCH_INDEX_URL}"

WORKDIR /srv/dojo
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
RUN pip install --no-cache-dir -e .

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
