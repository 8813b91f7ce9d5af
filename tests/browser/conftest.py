"""Browser tests: the sandbox (real bot + fake Discord + page) driven by Playwright in Debian's Chromium.

Playwright never downloads a browser here: it launches ``/usr/bin/chromium`` (``apt-get install
chromium``; ``.ci/run`` installs it when missing). Without it the tests are skipped, unless
``SKYBO_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("SKYBO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing() -> str | None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    missing = _missing()
    if missing:
        if os.environ.get("SKYBO_REQUIRE_BROWSER") == "1":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            await chromium.close()


DOCS = Path(__file__).resolve().parents[2] / "docs"


async def docs_screenshot(page: Any, name: str) -> Path | None:
    """``docs/<name>``, a picture of ``page`` for the documentation, taken only with ``UPDATE_DOCS=1``
    (``UPDATE_DOCS=1 .venv/bin/python -m pytest tests/browser``): a test run never rewrites a tracked
    file. Returns the path written, if any."""
    if os.environ.get("UPDATE_DOCS") != "1":
        return None
    path = DOCS / name
    await page.mouse.move(640, 24)  # no hover highlight in the picture
    await page.screenshot(path=str(path))
    return path


async def screenshot(page: Any, name: str, tmp_dir: Path, *, element: Any = None) -> Path:
    """A picture of ``page`` (or of one ``element`` of it): ``docs/<name>`` with ``UPDATE_DOCS=1``,
    else ``tmp_dir/<name>`` (a test's ``tmp_path``: look at it after a run, nothing tracked changes).
    Returns the path written."""
    path = DOCS / name if os.environ.get("UPDATE_DOCS") == "1" else tmp_dir / name
    viewport = page.viewport_size or {"width": 640}
    await page.mouse.move(viewport["width"] - 1, 1)  # no hover highlight in the picture
    await (element or page).screenshot(path=str(path))
    return path
