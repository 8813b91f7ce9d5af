"""bot/render/messages.py ``layout_of``: a message body as one Components V2 container (issue 40)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.render import messages
from bot.render.messages import MAX_LAYOUT_COMPONENTS, MAX_LAYOUT_TEXT, MessageBody, layout_of


def body(fields: list[tuple[str, str, bool]], **embed: object) -> MessageBody:
    return MessageBody(
        embed={"title": "Skyjo — round 3", "description": "Alice to play.", **embed,
               "fields": [{"name": n, "value": v, "inline": i} for n, v, i in fields]},
        players=["▶ **Alice** — 12 points", "**Bob** — 30 points"],
        recent=["Alice drew a 5.", "Bob discarded a 12."],
    )  # fmt: skip


def test_the_parts_in_order_inside_one_container() -> None:
    row = [{"type": 2, "style": 1, "label": "My grid", "custom_id": "sk:1:0:op:0"}]
    made = body(
        [("Alice — 12", "grid", True), ("Bob — 30", "grid", True), ("Score sheet", "sheet", False)],
        image={"url": "attachment://skybo-table.png"},
        footer={"text": "Game #7"},
    )
    (box,) = layout_of(
        made, [row], accent=0x3498DB, compact=True, header=["Turn ends <t:9:R>"], recent_title="Last"
    )
    assert box["type"] == messages.CONTAINER and box["accent_color"] == 0x3498DB
    kinds = [c["type"] for c in box["components"]]
    assert kinds == [10, 12, 10, 10, 10, 14, 10, 1]
    texts = [c["content"] for c in box["components"] if c["type"] == 10]
    assert texts[0] == "## Skyjo — round 3\nTurn ends <t:9:R>\nAlice to play."
    assert texts[1] == "▶ **Alice** — 12 points\n**Bob** — 30 points"  # the players, not the grids
    assert texts[2] == "**Score sheet**\nsheet"
    assert texts[3] == "Last\n• Alice drew a 5.\n• Bob discarded a 12."
    assert texts[4] == "-# Game #7"
    # In words (no picture): each player's field, and no accent given means no accent.
    (box,) = layout_of(made, [row], compact=False)
    assert "accent_color" not in box
    assert [c["content"] for c in box["components"] if c["type"] == 10][1:3] == [
        "**Alice — 12**\ngrid",
        "**Bob — 30**\ngrid",
    ]


@given(
    sheets=st.lists(st.integers(min_value=1, max_value=1500), min_size=1, max_size=12),
    description=st.integers(min_value=0, max_value=5000),
)
def test_never_over_discords_limits_and_the_last_wide_field_stays(
    sheets: list[int], description: int
) -> None:
    fields = [(f"Score sheet {i}", "x" * size, False) for i, size in enumerate(sheets)]
    fields.append(("Rating changes", "Alice: +16", False))
    made = body(fields, description="d" * description, footer={"text": "Game #7"})
    for compact in (True, False):
        layout = layout_of(made, compact=compact)
        assert messages.layout_text_size(layout) <= MAX_LAYOUT_TEXT
        assert sum(1 for _ in messages.walk(layout)) <= MAX_LAYOUT_COMPONENTS
        texts = [c["content"] for c in messages.walk(layout) if c["type"] == messages.TEXT_DISPLAY]
        if description < 3000:  # room for it: the rating changes and the footer are never dropped
            assert "**Rating changes**\nAlice: +16" in texts and "-# Game #7" in texts
        # The earliest sheets go first: what is kept of them is their latest ones.
        kept = [int(t.split("\n")[0].removeprefix("**Score sheet ").removesuffix("**")) for t in texts
                if t.startswith("**Score sheet ")]  # fmt: skip
        assert kept == list(range(len(sheets) - len(kept), len(sheets)))
