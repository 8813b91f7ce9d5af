"""The vendored Embedded App SDK (bot/activity/static/vendor, ``make activity-sdk``) is what its SOURCE.md
says: the bundle's SHA-256 is the one recorded, the licence is beside it, the package and version named
are the refresh script's, and (with Node on the machine) the file is one self-contained ES module that
exports the SDK and its mock."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import shutil
import subprocess
import tomllib

import pytest

from devtools import activity_sdk

VENDOR = activity_sdk.VENDOR
REPO = activity_sdk.REPO


def recorded_digest() -> str:
    source = (VENDOR / "SOURCE.md").read_text(encoding="utf-8")
    found = re.search(r"SHA-256 of `[^`]+`: `([0-9a-f]{64})`", source)
    assert found, "SOURCE.md records no SHA-256"
    return found.group(1)


def test_the_bundle_is_the_one_source_md_records() -> None:
    bundle = VENDOR / activity_sdk.BUNDLE
    assert hashlib.sha256(bundle.read_bytes()).hexdigest() == recorded_digest()
    source = (VENDOR / "SOURCE.md").read_text(encoding="utf-8")
    assert f"`{activity_sdk.PACKAGE}` version **{activity_sdk.VERSION}**" in source
    assert re.search(r"integrity `sha512-[A-Za-z0-9+/=]{88}`", source)
    assert f"esbuild {activity_sdk.ESBUILD}" in source


def test_the_licence_is_vendored_with_it() -> None:
    licence = (VENDOR / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Discord Inc." in licence
    assert "Permission is hereby granted, free of charge" in licence


def test_a_changed_bundle_is_caught() -> None:
    """The check can fail: one byte more and the digest is not the recorded one."""
    data = (VENDOR / activity_sdk.BUNDLE).read_bytes() + b"\n"
    assert hashlib.sha256(data).hexdigest() != recorded_digest()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_the_bundle_is_one_es_module_with_the_sdk_and_its_mock() -> None:
    """Node imports the file alone (no bare import left to resolve); the mock's ``authorize`` can be
    replaced, as the sandbox will replace it with a real code from the fake Discord."""
    script = (
        f"const sdk = await import({str((VENDOR / activity_sdk.BUNDLE).as_uri())!r});\n"
        "const mock = new sdk.DiscordSDKMock('1234', null, '5678', null);\n"
        "const before = await mock.commands.authorize({client_id: '1234', scope: ['identify']});\n"
        "mock._updateCommandMocks({authorize: async () => ({code: 'real'})});\n"
        "const after = await mock.commands.authorize({client_id: '1234', scope: ['identify']});\n"
        "console.log(JSON.stringify({names: Object.keys(sdk).sort(), before, after,"
        " instance: mock.instanceId, channel: mock.channelId}));\n"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"DiscordSDK", "DiscordSDKMock", "Events", "patchUrlMappings"} <= set(result["names"])
    assert result["before"] == {"code": "mock_code"} and result["after"] == {"code": "real"}
    assert (result["instance"], result["channel"]) == ("123456789012345678", "5678")


def test_the_vendored_files_ship_with_the_package() -> None:
    """The bot serves them from its installed package (the image installs it): each file matches a
    ``package-data`` pattern of ``bot.activity`` (setuptools globs it from the package's folder)."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    patterns = setuptools["package-data"]["bot.activity"]
    package = REPO / "bot" / "activity"
    files = [p.relative_to(package).as_posix() for p in sorted(VENDOR.iterdir()) if p.is_file()]
    assert len(files) == 3
    assert [f for f in files if not any(fnmatch.fnmatchcase(f, p) for p in patterns)] == []
