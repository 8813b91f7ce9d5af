"""Discord's OpenAPI description as the judge (fakecord/openapi): routes, request bodies with
their lengths and counts, answers, Discord's error tree, the deviations, and refreshing the copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecord import openapi

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "discord-api-spec"


def row(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(children)}


def button(custom_id: str, label: str = "ok") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def test_the_vendored_copy_is_discords_file_unchanged() -> None:
    doc = json.loads(openapi.SPEC_FILE.read_text(encoding="utf-8"))
    assert doc["info"]["version"] == "10" and doc["openapi"].startswith("3.1")
    assert "74fda0fad044" in openapi.version()
    assert (openapi.HERE / "LICENSE").read_text().startswith("MIT License")
    if SHARED.exists():  # the project's shared copy, where this checkout has it beside it
        for name in openapi.SPEC_FILES:
            assert (SHARED / name).read_bytes() == (openapi.HERE / name).read_bytes(), name


def test_routes_are_found_literal_segments_first_and_unknown_ones_refused() -> None:
    assert openapi.find_operation("GET", "/users/@me").template == "/users/@me"
    assert openapi.find_operation("GET", "/users/42").template == "/users/{user_id}"
    op = openapi.find_operation("PATCH", "/webhooks/1/tok/messages/@original")
    assert op.template.endswith("/messages/@original")
    assert openapi.find_operation("POST", "/interactions/1/tok/callback").operation_id
    with pytest.raises(openapi.UnknownRoute, match="no such route"):
        openapi.find_operation("GET", "/channels/1/nothing-here")
    with pytest.raises(openapi.UnknownRoute, match="method not allowed"):
        openapi.find_operation("PUT", "/gateway/bot")
    # the fake serves POST /users/{user_id}/channels for any id; Discord only has @me
    with pytest.raises(openapi.UnknownRoute):
        openapi.find_operation("POST", "/users/42/channels")


def test_a_valid_table_message_passes_and_snowflakes_may_be_numbers() -> None:
    body = {
        "content": "Skyjo",
        "components": [row(*(button(f"b{r}{i}") for i in range(5))) for r in range(4)],
        "embeds": [{"title": "t", "description": "d", "fields": [{"name": "a", "value": "b"}]}],
        "allowed_mentions": {"parse": [], "users": [123456789012345678]},  # a number, as discord.py sends
    }
    assert openapi.check_request("POST", "/channels/1/messages", body) == []


@pytest.mark.parametrize(
    ("body", "path", "code"),
    [
        pytest.param(
            {"components": [row(button("a", "L" * 81))]},
            ("components", 0, "components", 0, "label"),
            "BASE_TYPE_MAX_LENGTH",
            id="label",
        ),
        pytest.param(
            {"components": [row(*(button(f"b{i}") for i in range(6)))]},
            ("components", 0, "components"),
            "BASE_TYPE_BAD_LENGTH",
            id="sixth-button",
        ),
        pytest.param(
            {"components": [button("a")]}, ("components", 0), "UNION_TYPE_CHOICES", id="button-outside-a-row"
        ),
        pytest.param(
            {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]},
            ("embeds", 0, "fields"),
            "BASE_TYPE_MAX_LENGTH",
            id="26-fields",
        ),
        pytest.param({"content": 5}, ("content",), "BASE_TYPE_INVALID", id="content-type"),
    ],
)
def test_a_broken_body_names_the_field_like_discord(
    body: dict[str, Any], path: tuple[Any, ...], code: str
) -> None:
    violations = openapi.check_request("POST", "/channels/1/messages", body)
    assert (path, code) in [(v.path, v.code) for v in violations]
    tree = openapi.errors_tree(violations)
    node: Any = tree
    for part in path:
        node = node[str(part)]
    assert code in [e["code"] for e in node["_errors"]]


def test_an_over_long_french_description_is_refused_in_a_command_sync() -> None:
    command = {
        "name": "skyjo",
        "description": "Play Skyjo",
        "options": [
            {
                "type": 1,
                "name": "new",
                "description": "Open a table",
                "options": [
                    {
                        "type": 4,
                        "name": "turn_limit",
                        "description": "Time per turn",
                        "description_localizations": {"fr": "é" * 100},
                    }
                ],
            }
        ],
    }
    assert openapi.check_request("PUT", "/applications/1/commands", [command]) == []
    command["options"][0]["options"][0]["description_localizations"]["fr"] = "é" * 101
    [violation] = openapi.check_request("PUT", "/applications/1/commands", [command])
    assert violation.path == (0, "options", 0, "options", 0, "description_localizations", "fr")
    assert violation.code == "BASE_TYPE_BAD_LENGTH" and "100" in violation.message


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=0, max_size=120))
def test_a_label_is_refused_exactly_when_discord_says_so(label: str) -> None:
    violations = openapi.check_request(
        "POST", "/channels/1/messages", {"components": [row(button("a", label))]}
    )
    assert bool(violations) == (len(label) > 80)


def test_answers_are_judged_by_status_and_shape() -> None:
    assert openapi.check_response("GET", "/gateway", 200, {"url": "wss://gateway.discord.gg"}) == []
    assert openapi.check_response("GET", "/gateway", 200, {}) != []  # url is required
    error = {"message": "Invalid Form Body", "code": 50035}
    error["errors"] = {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be..."}]}}
    # field error codes are strings, as Discord's docs show (openapi.DEVIATIONS)
    assert openapi.check_response("POST", "/channels/1/messages", 400, error) == []
    assert openapi.check_response("DELETE", "/channels/1/messages/2", 204, None) == []
    assert openapi.check_response("DELETE", "/channels/1/messages/2", 204, {"x": 1}) != []
    [undescribed] = openapi.check_response("GET", "/gateway", 302, None)
    assert undescribed.code == "UNDESCRIBED_STATUS"


def test_every_deviation_says_why() -> None:
    assert openapi.DEVIATIONS and all(len(why) > 40 for why in openapi.DEVIATIONS.values())


def test_refresh_takes_a_newer_copy_and_reloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "vendored"
    shutil.copytree(openapi.HERE, here, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    newer = tmp_path / "newer"
    newer.mkdir()
    doc = json.loads(openapi.SPEC_FILE.read_text(encoding="utf-8"))
    doc["info"]["version"] = "11"
    (newer / "openapi.json").write_text(json.dumps(doc), encoding="utf-8")
    (newer / "LICENSE").write_bytes((here / "LICENSE").read_bytes())
    (newer / "SOURCE.md").write_text("commit 0123456789abcdef0123", encoding="utf-8")
    monkeypatch.setattr(openapi, "HERE", here)
    monkeypatch.setattr(openapi, "SPEC_FILE", here / "openapi.json")
    try:
        assert openapi.refresh(newer) == ["openapi.json", "SOURCE.md"]
        assert openapi.version() == "Discord HTTP API v11 (discord-api-spec 0123456789ab)"
        assert openapi.refresh(newer) == []
        (newer / "openapi.json").write_text("{}", encoding="utf-8")
        with pytest.raises(ValueError, match="not an OpenAPI description"):
            openapi.refresh(newer)
    finally:
        monkeypatch.undo()
        openapi.refresh(openapi.HERE)  # nothing to copy: clears the caches back to the real file
    assert "v10" in openapi.version()


def test_every_missing_field_is_named() -> None:
    violations = openapi.check_response("GET", "/gateway/bot", 200, {})
    assert {v.path for v in violations} == {("url",), ("shards",), ("session_start_limit",)}
