# syntax=docker/dockerfile:1
# Skybo's image: the bot installed from pyproject.toml into a virtual environment, run as a non-root user,
# its SQLite database on the /data volume. docs/deploy.md says how to run it (one process on SQLite, or a
# fleet on PostgreSQL with compose.yaml); tests/unit/test_containers.py checks this file without docker.
#
# The base is a build argument. Its default is pinned by version tag AND by the digest of its
# multi-architecture index, so a rebuild gets the same Python and Debian. To move to a newer patch
# release, look up the new digest with `docker buildx imagetools inspect python:3.11.X-slim-bookworm`.
# Any Debian bookworm with Python 3.11 as `python3` and its venv module serves: the image test
# (tests/image, `make test-image`) builds on one made here with mmdebstrap, without a registry.
ARG BASE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

# ---- build: the virtual environment, built from pyproject.toml (no test extra) ----------------------------
FROM ${BASE} AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# Every dependency has a manylinux wheel (Pillow bundles its image libraries and FreeType, psycopg[binary]
# its libpq), so no compiler and no apt package are needed here.
# `python3`: the official image has it in /usr/local/bin, Debian's package in /usr/bin. Python 3.11 in
# both, so the venv's site-packages is /opt/venv/lib/python3.11/site-packages (the font goes there).
RUN python3 -m venv /opt/venv
# A CA bundle for pip where the index is reached through an intercepting proxy (the image test passes
# one): a build argument of this stage only, so it is not in the image that runs.
ARG PIP_CERT
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
# The fake Discord that `python -m bot sandbox` plays against, and whose copy of Discord's OpenAPI
# description `python -m bot sync` checks the commands with: a package of its own, shipped with the bot.
COPY fakecord ./fakecord
RUN /opt/venv/bin/pip install --no-cache-dir .
# The venv's own installers go once the bot is in: pip and setuptools (with pkg_resources and
# _distutils_hack, 25 MB) are only needed to install, and nothing installed requires them. Here, in the
# build stage, so they never reach a layer of the image; the base's own Python is left untouched.
# tests/image checks that every command of the bot still runs without them.
RUN /opt/venv/bin/python -m pip uninstall --yes pip setuptools \
    && test ! -e /opt/venv/bin/pip

# ---- the image that runs -----------------------------------------------------------------------------
FROM ${BASE}

# A system user of its own (no login, no home); /data is the only place it writes.
RUN groupadd --system --gid 10001 skybo \
    && useradd --system --uid 10001 --gid skybo --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin skybo \
    && mkdir /data \
    && chown skybo:skybo /data

COPY --from=build /opt/venv /opt/venv
# The table pictures (bot/render) draw with the bundled DejaVu Sans Bold, which bot/render/images.py looks
# for at <the folder that holds the bot package>/data/fonts: for an installed package that is
# site-packages. Without it Pillow's default font would draw other pictures than the tests check.
COPY data/fonts/ /opt/venv/lib/python3.11/site-packages/data/fonts/

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DATABASE_PATH=/data/skybo.sqlite3 \
    SANDBOX_HOST=0.0.0.0

VOLUME ["/data"]
WORKDIR /data
USER skybo:skybo

# SANDBOX_HOST: `python -m bot sandbox` (the page, no token) listens on the container's interface, as a
# published port needs; publish it on the host's loopback only: -p 127.0.0.1:8765:8765 (docs/deploy.md).
# METRICS_PORT (off by default) serves /healthz and /metrics; compose.yaml turns it on at this port.
EXPOSE 9464
# With METRICS_PORT set, healthy means /healthz answers 200 (gateway connected, database reachable,
# shards owned); without it there is nothing to ask, and the check passes (the process being up is all
# that is known).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as r; p = os.environ.get('METRICS_PORT', '').strip(); p in ('', '0') or r.urlopen(f'http://127.0.0.1:{p}/healthz', timeout=4)"]

# SIGTERM asks the bot to stop gracefully (in-flight clicks finished, shard leases released).
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot", "run"]
