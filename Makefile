# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run sandbox test test-image image-deps lint typecheck pytest browser-deps postgres-deps bench clean discord-spec \
	activity-sdk

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# With DISCORD_TOKEN (environment or .env): the bot on Discord. Without: the local sandbox in a browser.
run: $(STAMP)
	@$(BIN)/python -m bot run --sandbox-without-token

sandbox: $(STAMP)
	@$(BIN)/python -m bot sandbox

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Four workers (pytest-xdist) on this 2-core machine: most tests wait on sockets, subprocesses and
# clocks, not on a core (the tests' summed time is about 3.6 times the wall time; idle, pytest took 600 s
# on three workers and 477 s on four); TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 4
pytest: $(STAMP) browser-deps postgres-deps
	$(BIN)/python -m pytest -q --ignore=tests/image $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS))

# tests/browser drives Debian's Chromium (Playwright never downloads a browser): installed when missing if
# we are root (CI, containers); otherwise those tests are skipped and say how to install it.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			chromium fonts-noto-color-emoji >/dev/null)

# The PostgreSQL tests start their own server from Debian's binaries (devtools/pgserver.py finds them):
# installed when missing if we are root (CI, containers), with the `postgres` account the server runs as
# (PostgreSQL refuses root; the package creates it); otherwise those tests are skipped and say how to
# install it.
postgres-deps: $(STAMP)
	@[ "$$(id -u)" != 0 ] || $(BIN)/python -m devtools.pgserver bindir >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			postgresql >/dev/null)
	@[ "$$(id -u)" != 0 ] || [ -n "$${SKYBO_PG_USER:-}" ] || id -u postgres >/dev/null 2>&1 || \
		useradd --system --user-group --no-create-home --home-dir /var/lib/postgresql \
			--shell /usr/sbin/nologin postgres

# The container image built and run for real (tests/image): the image alone (test_image.py), then
# compose.yaml's stack with podman-compose (test_compose.py: PostgreSQL, the fake Discord, two bots, a
# container killed): about 1.5 minutes with podman's layers cached, 4 minutes from nothing (the Debian
# base, the image and the PostgreSQL image built first); docs/deploy.md has the figures.
# podman, runc, mmdebstrap, podman-compose, catatonit (compose's `init: true`) and the CNI dnsname
# plugin (the services find each other by name) are installed when missing if we are root; otherwise
# the tests are skipped and say why.
test-image: $(STAMP) image-deps
	$(BIN)/python -m pytest -q -s tests/image

image-deps:
	@[ "$$(id -u)" != 0 ] || (command -v podman && command -v runc && command -v mmdebstrap \
		&& command -v podman-compose && [ -x /usr/libexec/podman/catatonit ] && [ -x /usr/lib/cni/dnsname ]) \
		>/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			podman runc mmdebstrap podman-compose uidmap slirp4netns fuse-overlayfs catatonit \
			golang-github-containernetworking-plugin-dnsname >/dev/null)

# Take a newer copy of Discord's OpenAPI description (a folder with openapi.json, LICENSE and SOURCE.md, as
# discord/discord-api-spec's specs/ plus its licence and a SOURCE.md naming the commit) for the fake to judge by.
SPEC ?= ../shared/discord-api-spec
discord-spec: $(STAMP)
	$(BIN)/python -m fakecord.openapi refresh $(SPEC)

# Take Discord's Embedded App SDK from npm (Node 20's npm) and bundle it into one ES module for the Activity's
# page (bot/activity/static/vendor: the bundle, its LICENSE, a SOURCE.md naming the version and its hash);
# SDK_VERSION defaults to the one devtools/activity_sdk.py names.
activity-sdk: $(STAMP)
	$(BIN)/python -m devtools.activity_sdk refresh $(SDK_VERSION)

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
