"""``make run`` without a token (issue 38 item 10c): the sandbox's address is the last line printed once it
has started, where one looks for it, after every start-up line (the migrations, the gateway's, tables
resumed), and nothing follows it while nobody plays."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0  # the machine is shared
IDLE_S = 1.0  # how long the test watches for lines after the Ready line


def test_make_run_prints_the_sandboxs_address_last(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(REPO),  # this checkout's bot, whatever the virtualenv installed
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",  # lines in the order they were written, as a terminal shows them
    }  # no DISCORD_TOKEN, no DATABASE_URL; cwd is the test's folder: no .env of the developer's is read
    command = [sys.executable, "-m", "bot", "run", "--sandbox-without-token", "--port", "0"]
    command += ["--database", str(tmp_path / "sandbox.sqlite3")]
    child = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(line.rstrip("\n") for line in child.stdout or []))
    reader.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not any(line.startswith("Ready: open http://") for line in list(lines)):
            assert time.monotonic() < deadline and child.poll() is None, lines
            time.sleep(0.05)
        time.sleep(IDLE_S)  # nothing more while nobody plays
        printed = list(lines)  # before stopping it: what a terminal shows while it idles
    finally:
        child.terminate()
        child.wait(timeout=30)
        reader.join(timeout=30)
    lines = printed
    assert lines[0].startswith("DISCORD_TOKEN is not set: starting the local sandbox"), lines[0]
    assert any("tables resumed" in line for line in lines), lines  # a start-up line, printed before
    assert lines[-1].startswith("Ready: open http://127.0.0.1:"), lines[-3:]
    assert lines[-1].endswith("(Ctrl+C stops it).")
