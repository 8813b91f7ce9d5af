"""Vendors Discord's Embedded App SDK for the Activity's page (issue 50), so that running the bot needs
no build step: ``make activity-sdk`` (``python -m devtools.activity_sdk refresh [VERSION]``).

What it does, in a temporary folder, with the npm of the machine (Node 20):

1. ``npm pack @discord/embedded-app-sdk@VERSION --json``: the published tarball, whose integrity npm
   checks against the registry's and reports;
2. ``npm install esbuild@ESBUILD`` (pinned, so that the same version gives the same bytes);
3. bundles the package's published browser ES module tree (``output/index.mjs`` and the ~70 relative
   modules it imports, its dependencies included) into one ES module, not minified, its licence
   comments kept: :data:`ESBUILD_ARGS`;
4. writes ``bot/activity/static/vendor/``: the bundle, the package's ``LICENSE.md`` as ``LICENSE``, and
   ``SOURCE.md`` (the version, the tarball's integrity, the esbuild version and command, the bundle's
   SHA-256, which ``tests/unit/test_activity_sdk.py`` checks).

It imports nothing of the bot and the bot never imports it (a tool of the repository, as ``devtools``
is); only its output ships.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@discord/embedded-app-sdk"
VERSION = "2.5.0"
ESBUILD = "0.28.2"
REPO = Path(__file__).resolve().parents[1]
VENDOR = REPO / "bot" / "activity" / "static" / "vendor"
BUNDLE = "embedded-app-sdk.js"
ENTRY = "package/output/index.mjs"
ESBUILD_ARGS = (
    ENTRY,
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--target=es2020",
    "--legal-comments=inline",
    "--charset=utf8",
    f"--outfile={BUNDLE}",
)
# The packages the published output bundles (output/lib/), from the SDK's package.json: named in
# SOURCE.md with their licences, which the bundle's kept comments and LICENSE cover.
BUNDLED = {
    "zod": "MIT",
    "eventemitter3": "MIT",
    "big-integer": "Unlicense",
    "decimal.js-light": "MIT",
    "lodash.transform": "MIT",
    "uuid": "MIT",
    "tslib": "0BSD",
}


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_md(version: str, integrity: str, digest: str) -> str:
    bundled = ", ".join(f"{name} ({licence})" for name, licence in BUNDLED.items())
    command = " ".join(["node_modules/.bin/esbuild", *ESBUILD_ARGS])
    return f"""# Discord's Embedded App SDK, vendored

`{BUNDLE}` is the npm package `{PACKAGE}` version **{version}** (MIT licence, `LICENSE` beside this
file), bundled into one ES module that a browser loads with `<script type="module">` and no build step.

- Tarball: `npm pack {PACKAGE}@{version}`, integrity `{integrity}` (npm's `dist.integrity`).
- Bundle: the package's published browser ES modules (`output/index.mjs` and the relative modules it
  imports; the package has no bare imports, its dependencies are already in `output/lib/`), joined by
  esbuild {ESBUILD} (`npm install esbuild@{ESBUILD}`), not minified, licence comments kept, run in the
  folder where the tarball was unpacked: `{command}`.
- Bundled with it, as the package publishes them: {bundled}.
- SHA-256 of `{BUNDLE}`: `{digest}` (checked by `tests/unit/test_activity_sdk.py`).
- Refresh: `make activity-sdk` (`python -m devtools.activity_sdk refresh [VERSION]`, in
  `devtools/activity_sdk.py`).

It exports `DiscordSDK`, `DiscordSDKMock`, `Events`, `Common`, `Commands`, `Responses`, `patchUrlMappings`,
`attemptRemap`, `Permissions`, `PermissionUtils`, `PriceUtils`, `Platform`, `Orientation`,
`RPCCloseCodes`, `RPCErrorCodes`.

## The SDK's mock, for the sandbox

`new DiscordSDKMock(clientId, guildId, channelId, locationId)` (the three ids may be `null`) stands in
for Discord's client in a page that Discord does not embed (the official examples choose it when the
page's query has no `frame_id`). Its `ready()` resolves at once; its `instanceId` is the fixed
`'123456789012345678'` and its `platform` `'desktop'`. Every command answers a fixed value: `authorize`
answers `{{code: 'mock_code'}}`, `authenticate` an `access_token` of `'mock_token'` and a user
`'mock_user_id'`. `mock._updateCommandMocks({{authorize: async (args) => ({{code}})}})` replaces commands
(the others keep their mock answers); the sandbox replaces `authorize` with a call to the fake Discord's
`POST /_fake/oauth2/authorize` (a real code for the selected user, which the bot's backend exchanges at
the fake's `/oauth2/token`) and `authenticate` with the token and user the backend read. `instanceId`,
`channelId` and `guildId` are read-only in TypeScript only: a page may assign them (the official
sdk-playground example assigns `channelId`).
"""


def refresh(version: str) -> list[str]:
    """Fetches, bundles and writes the SDK; returns what changed in ``VENDOR``."""
    with tempfile.TemporaryDirectory(prefix="activity-sdk-") as temp:
        work = Path(temp)
        [packed] = json.loads(_run(["npm", "pack", f"{PACKAGE}@{version}", "--json"], work))
        with tarfile.open(work / packed["filename"]) as tarball:
            tarball.extractall(work, filter="data")
        _run(["npm", "install", "--no-save", "--no-audit", "--no-fund", f"esbuild@{ESBUILD}"], work)
        _run([str(work / "node_modules" / ".bin" / "esbuild"), *ESBUILD_ARGS], work)
        bundle = work / BUNDLE
        files = {
            BUNDLE: bundle.read_bytes(),
            "LICENSE": (work / "package" / "LICENSE.md").read_bytes(),
            "SOURCE.md": source_md(packed["version"], packed["integrity"], sha256(bundle)).encode(),
        }
    VENDOR.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, data in files.items():
        target = VENDOR / name
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
            changed.append(name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.activity_sdk", description=__doc__.split("\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fresh = commands.add_parser(
        "refresh", help="fetch the SDK from npm and bundle it into bot/activity/static/vendor"
    )
    fresh.add_argument("version", nargs="?", default=VERSION)
    args = parser.parse_args(argv)
    if shutil.which("npm") is None:
        print("npm is needed (Node 20): apt-get install nodejs npm", file=sys.stderr)
        return 1
    changed = refresh(args.version)
    print(f"{PACKAGE} {args.version}: " + (", ".join(changed) + " changed" if changed else "unchanged"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
