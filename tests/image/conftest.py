"""What the image tests share (``make test-image``; not part of ``make test``): podman as this machine
needs it, the Debian base made once with mmdebstrap, and the bot's image built from the ``Dockerfile``
on it (once per run, for tests/image/test_image.py and tests/image/test_compose.py).

Without the tools the tests are skipped with the reason, or fail under ``SKYBO_REQUIRE_IMAGE=1``
(``.ci/run``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASE = os.environ.get("SKYBO_IMAGE_BASE", "localhost/debian-py:bookworm")
IMAGE = "localhost/skybo:image-test"
# This machine's hybrid cgroups: crun refuses them, runc with cgroupfs runs; raising rlimits is refused.
PODMAN_GLOBAL = ["--runtime", "runc", "--cgroup-manager=cgroupfs"]
PODMAN = ["podman", *PODMAN_GLOBAL]
LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000"]
CERTS = "/etc/ssl/certs"


def podman(*args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def require(*tools: str, files: tuple[str, ...] = ()) -> None:
    """Skips (or fails under ``SKYBO_REQUIRE_IMAGE=1``) when one of ``tools`` is not on the PATH or one
    of ``files`` is missing."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    missing += [file for file in files if not Path(file).exists()]
    if missing:
        why = f"{', '.join(missing)} missing (make test-image installs them as root: make image-deps)"
        if os.environ.get("SKYBO_REQUIRE_IMAGE") == "1":
            pytest.fail(f"the image test is required (SKYBO_REQUIRE_IMAGE=1): {why}", pytrace=False)
        pytest.skip(why)


def build(tag: str, context: Path, *, pip_cert: bool = False, **args: str) -> None:
    """``podman build`` of ``context`` on the Debian base as this machine needs it (the host's network;
    with ``pip_cert``, the host's CA bundle for pip through the proxy: read-only, so not for a build whose
    packages write /etc/ssl/certs), printing how long it took."""
    began = time.monotonic()
    settings = {"BASE": BASE, **args}
    certs = (
        ["-v", f"{CERTS}:{CERTS}:ro", "--build-arg", f"PIP_CERT={CERTS}/ca-certificates.crt"]
        if pip_cert
        else []
    )
    build_args = [a for name, value in settings.items() for a in ("--build-arg", f"{name}={value}")]
    podman(
        "build", "--format", "docker", "--network=host", *certs, *LIMITS, *build_args,
        "-t", tag, str(context), timeout=1200,
    )  # fmt: skip
    print(f"\nimage {tag} built in {time.monotonic() - began:.0f} s")


@pytest.fixture(scope="session")
def image() -> Iterator[str]:
    require("podman", "runc", "mmdebstrap")
    if podman("image", "exists", BASE, check=False).returncode != 0:
        began = time.monotonic()
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            tar = Path(tmp) / "base.tar"
            subprocess.run(
                ["mmdebstrap", "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
                 "bookworm", str(tar)],
                check=True, capture_output=True, timeout=900,
            )  # fmt: skip
            podman("import", str(tar), BASE)
        print(f"\nbase {BASE} built in {time.monotonic() - began:.0f} s (kept in podman's store)")
    build(IMAGE, REPO, pip_cert=True)
    yield IMAGE
