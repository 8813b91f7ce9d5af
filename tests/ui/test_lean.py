"""What the bot does not read, discord.py does not build (bot.ui.lean), and callbacks ask for no body
they do not need (bot.ui.on_time.wants_body): property tests on the payloads themselves."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.ui.lean import slim_click
from bot.ui.on_time import wants_body

ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789:", min_size=1, max_size=20)


def button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 2, "label": custom_id[:5], "custom_id": custom_id}


rows_of_ids = st.lists(st.lists(ids, min_size=1, max_size=5), min_size=0, max_size=5)


def click(rows: list[list[str]], clicked: str) -> dict[str, Any]:
    return {
        "type": 3,
        "data": {"custom_id": clicked, "component_type": 2},
        "message": {
            "id": "1",
            "flags": 64,
            "content": "a panel",
            "components": [{"type": 1, "components": [button(c) for c in row]} for row in rows],
            "embeds": [{"title": "the table", "fields": [{"name": "a", "value": "b"}]}],
            "attachments": [{"id": "2", "filename": "table.png"}],
        },
    }


def on_message(message: dict[str, Any], custom_id: str) -> bool:
    """What the router's on_message check asks of the parsed message, asked of the raw one."""
    return any(c.get("custom_id") == custom_id for row in message["components"] for c in row["components"])


@given(rows_of_ids, ids)
def test_a_click_keeps_only_the_clicked_component_and_the_same_answer_to_is_it_on_the_message(
    rows: list[list[str]], clicked: str
) -> None:
    data = click(rows, clicked)
    before = copy.deepcopy(data["message"])
    slim_click(data)
    message = data["message"]
    assert on_message(message, clicked) == on_message(before, clicked)
    kept = [c for row in message["components"] for c in row["components"]]
    assert kept == ([button(clicked)] if on_message(before, clicked) else [])
    assert message["embeds"] == [] and message["attachments"] == []
    assert {k: v for k, v in message.items() if k not in ("components", "embeds", "attachments")} == {
        k: v for k, v in before.items() if k not in ("components", "embeds", "attachments")
    }


@given(rows_of_ids, ids, st.sampled_from([1, 2, 4, 5]))
def test_other_interactions_are_left_whole(rows: list[list[str]], clicked: str, kind: int) -> None:
    data = click(rows, clicked)
    data["type"] = kind  # a ping, a slash command, autocomplete, a modal
    before = copy.deepcopy(data)
    slim_click(data)
    assert data == before


@given(st.integers(min_value=1, max_value=9), st.integers(min_value=0, max_value=1 << 16))
def test_only_public_messages_ask_for_the_callback_body(kind: int, flags: int) -> None:
    payload = {"type": kind, "data": {"flags": flags, "content": "x"}}
    wanted = wants_body(payload)
    if kind in (6, 7, 8, 9) or flags & 64:
        assert not wanted
    else:
        assert wanted  # a new public message (the lobby): its id is read from the answer
    assert wants_body(None)
