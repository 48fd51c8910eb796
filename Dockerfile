# Facedown's game server as an image: `docker build -t facedown .` (docs/deploy.md).
# Stage 1 builds the web client (web/ -> facedown/web_dist/); stage 2 installs the Python
# packages from the hashed lock and runs `facedown serve` as an unprivileged user.

# The base images are build arguments (defaults: the official images) so that scripts/image.sh
# can build this file where Docker Hub is out of reach, on local Debian-made stand-ins.
ARG NODE_IMAGE=node:20-bookworm-slim
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${NODE_IMAGE} AS web
WORKDIR /src
COPY web/package.json web/package-lock.json web/
RUN cd web && npm ci --no-audit --no-fund
COPY web/ web/
COPY facedown/ facedown/
RUN cd web && npm run build

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements/run.txt requirements/run.txt
RUN python -m pip install --require-hashes -r requirements/run.txt
COPY pyproject.toml README.md ./
COPY facedown/ facedown/
COPY --from=web /src/facedown/web_dist/ facedown/web_dist/
RUN python -m pip install --no-build-isolation --no-deps . \
    && useradd --system --uid 10001 --home-dir /data --create-home facedown
USER facedown
WORKDIR /data
EXPOSE 8000
# One process on SQLite in /data by default; compose.yaml runs three on PostgreSQL and Redis.
# FACEDOWN_SECRET, FACEDOWN_DATABASE_URL and FACEDOWN_REDIS_URL come from the environment.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/ready', timeout=2)"
ENTRYPOINT ["facedown", "serve", "--host", "0.0.0.0", "--port", "8000", "--data", "/data"]
CMD ["--behind-proxy", "--log-format", "json"]
