"""The Activity's frames (bot/activity/frames.py, docs/activity.md): a table frame is built from its own
seat's view only, carries that seat's moves and the last moves in words, and a page's frames are read
strictly (anything else is refused, whatever it holds)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.activity import frames
from bot.games.registry import find
from bot.render.names import ComputerName


def _skipbo() -> tuple[Any, Any]:
    spec = find("skipbo")
    assert spec is not None
    state = spec.engine.State.new(["u1", "u2", "u3", "u4"], 8, spec.engine.Options(teams=True, stock_size=5))
    return spec, state


def test_a_table_frame_is_its_seats_view_and_moves() -> None:
    spec, state = _skipbo()
    seat = state.turn
    names = ["Alice", "\u202eEvil\nname", ComputerName(1, "easy"), "Dana"]
    frame = frames.table(
        spec,
        state.view(seat),
        version=3,
        seat=seat,
        names=names,
        locale="fr",
        recent=[(0, [spec.opening_event(state)])],
        computers=[2],
        turn_ends_in=-2.0,
        key="abcdefgh",
    )
    assert frame["view"] == state.view(seat) and frame["view"]["hand"] == sorted(state.hands[seat])
    assert frame["moves"] == spec.panel.moves(state.view(seat), seat) and frame["moves"]
    assert frame["names"] == [
        "Alice",
        "Evil name",
        "Ordi 1",
        "Dana",
    ]  # no bidi or line break; a computer in French
    assert frame["to_act"] == [seat] and frame["scores"] == [0, 0, 0, 0]
    assert frame["turn_ends_in"] == 0.0 and frame["key"] == "abcdefgh"
    assert frame["recent"] and all(isinstance(line, str) for line in frame["recent"])
    text = frames.encode(frame)
    assert json.loads(text) == frame
    for other in range(4):  # no other hand in the frame: the others' are sizes
        if other != seat:
            assert "hands" not in text and frame["view"]["hand_sizes"][other] == len(state.hands[other])


def test_a_frame_from_another_seats_view_is_refused() -> None:
    spec, state = _skipbo()
    with pytest.raises(ValueError):
        frames.table(spec, state.view(1), version=0, seat=0, names=["a"] * 4, locale="en")
    with pytest.raises(ValueError):  # a spectator gets the spectator's view, never a player's
        frames.table(spec, state.view(0), version=0, seat=None, names=["a"] * 4, locale="en")
    watching = frames.table(spec, state.view(None), version=0, seat=None, names=["a"] * 4, locale="en")
    assert watching["moves"] == [] and watching["view"]["hand"] is None


def test_the_other_frames() -> None:
    hello = frames.hello(
        user_id=12,
        user_name="Bob\u200f",
        seat=None,
        language="fr",
        cards="colourblind",
        kind="skyjo",
        table_id=4,
    )
    assert hello == {
        "type": "hello",
        "protocol": frames.PROTOCOL,
        "user": {"id": "12", "name": "Bob"},
        "seat": None,
        "language": "fr",
        "cards": "colourblind",
        "kind": "skyjo",
        "table": "4",
    }
    assert frames.refused("Non.", key=None) == {"type": "refused", "reason": "Non.", "key": None}
    assert frames.ended({"over": True}, how="finished")["results"] == {"over": True}
    assert frames.sleep("restart") == {"type": "sleep", "reason": "restart"}
    assert frames.bye("gone") == {"type": "bye", "reason": "gone"}
    for bad in (
        lambda: frames.hello(
            user_id=1, user_name="a", seat=0, language="de", cards="classic", kind="k", table_id=1
        ),
        lambda: frames.ended({}, how="whatever"),
        lambda: frames.sleep("nap"),
        lambda: frames.bye("later"),
    ):
        with pytest.raises(ValueError):
            bad()


def test_a_pages_frames_are_read() -> None:
    move = frames.read('{"type":"move","act":"tk","arg":5,"version":17,"key":"m0123456789abcdef"}')
    assert move == frames.Move("tk", 5, 17, "m0123456789abcdef")
    assert frames.read('{"type":"hint","version":3}') == frames.HintAsk(3)
    assert frames.read('{"type":"ping"}') == frames.Ping()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "null",
        "[]",
        '{"type":"move","act":"tk","arg":5,"version":17}',  # no key
        '{"type":"move","act":"tk","arg":5,"version":17,"key":"short"}',
        '{"type":"move","act":"TK","arg":5,"version":17,"key":"m0123456789"}',
        '{"type":"move","act":"tk","arg":5.0,"version":17,"key":"m0123456789"}',
        '{"type":"move","act":"tk","arg":true,"version":17,"key":"m0123456789"}',
        '{"type":"move","act":"tk","arg":10000,"version":17,"key":"m0123456789"}',
        '{"type":"move","act":"tk","arg":5,"version":-1,"key":"m0123456789"}',
        '{"type":"move","act":"tk","arg":5,"version":1,"key":"m0123456789","seat":2}',  # no seat from a page
        '{"type":"ping","x":1}',
        '{"type":"hello"}',
        '{"type":"move","act":"tk","arg":5,"version":1,"key":"' + "k" * 600 + '"}',
    ],
)
def test_a_bad_frame_is_refused(text: str) -> None:
    with pytest.raises(frames.BadFrame):
        frames.read(text)


@given(
    st.one_of(
        st.text(max_size=200), st.binary(max_size=200), st.dictionaries(st.text(max_size=8), st.integers())
    )
)
def test_reading_anything_raises_only_bad_frame(data: Any) -> None:
    text = json.dumps(data) if isinstance(data, dict) else data
    with contextlib.suppress(frames.BadFrame):
        frames.read(text)


def test_a_moves_service_key_is_the_users_own() -> None:
    key = frames.service_key(1, "m0123456789")
    assert key == frames.service_key(1, "m0123456789") and 0 < key < 2**63
    assert key != frames.service_key(2, "m0123456789") and key != frames.service_key(1, "m0123456780")
