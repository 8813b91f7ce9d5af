"""The compact table beside its picture (issue 40: a 4-player Skyjo table at most half as tall on a
phone as the embed table was), and the full text it never loses: both games, English and French.

Built through each game's ``table_body`` and :func:`bot.render.messages.layout_of`, as the presenter
does (``compact``: the picture is on the message and nobody at the table reads it in words)."""

from __future__ import annotations

import re
from typing import Any

from bench.render import mid_game
from bot.games.skipbo import message as skipbo_message
from bot.games.skipbo.engine import new_game as new_skipbo
from bot.games.skyjo import message as skyjo_message
from bot.games.skyjo.engine import new_game as new_skyjo
from bot.render.messages import TEXT_DISPLAY, layout_of, walk
from bot.render.names import ComputerName

NAMES = ["Alice", ComputerName(1, "normal"), ComputerName(2, "hard"), "Bob"]
# Computer 1 took the -2 from the discard pile for its face-up 12.
EXCHANGE = {"type": "card_exchanged", "seat": 1, "source": "discard", "value": -2, "replaced": 12,
            "replaced_was_face_up": True}  # fmt: skip
DEADLINE = "⏳ <t:9:R>"


def texts(layout: list[dict[str, Any]]) -> list[str]:
    return [c["content"] for c in walk(layout) if c["type"] == TEXT_DISPLAY]


def skyjo(locale: str, *, compact: bool, drawn: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Round 2 of a 4-player game (its score sheet too), Computer 1 to play: it drew a 0 (``drawn``),
    or not yet."""
    view = mid_game(4, seed=106, turns=24, round_number=2).view(None)
    assert view["phase"] == "play" and view["turn"] == 1 and view["drawn"] == 0
    view = view if drawn else {**view, "drawn": None}
    body = skyjo_message.table_body(
        view, NAMES, locale=locale, recent=[(1, [EXCHANGE])], image_url="attachment://skybo-table.png"
    )
    layout = layout_of(
        body, compact=compact, header=["Turn ends <t:9:R>"], brief=[DEADLINE], recent_title="Last moves:"
    )
    return view, texts(layout)


def parts(shown: list[str]) -> tuple[str, str, str]:
    """The head, the players' lines and the last moves (between them: the score sheet)."""
    (moves,) = [text for text in shown if text.startswith("-# • ")]
    return shown[0], shown[1], moves


def test_a_skyjo_table_beside_its_picture_says_each_thing_once_and_short() -> None:
    view, shown = skyjo("en-US", compact=True)
    head, players, moves = parts(shown)
    # The heading, then ONE line: who plays and the deadline; not the piles, not what to do.
    assert head == f"## Skyjo — round 2\nCPU 1 to play · {DEADLINE}"
    assert not any("Discard pile" in text or "draw a card" in text for text in shown)
    _, drawn = skyjo("en-US", compact=True, drawn=True)
    assert drawn[0] == f"## Skyjo — round 2\nCPU 1 drew a 0 · {DEADLINE}"
    lines = players.split("\n")
    assert [line.split(" ")[0] for line in lines] == ["🔵", "🟠", "🟢", "🟣"]
    for seat, line in enumerate(lines):
        shown = sum(c for c in view["grids"][seat] if isinstance(c, int))
        assert line.endswith(f" · {view['totals'][seat]} pts · shows {shown}"), line
        assert len(line) <= 45 and "(normal)" not in line and "(hard)" not in line, line
    assert moves == "-# • CPU 1 took the discard's -2 for their 12."


def test_the_full_text_loses_nothing() -> None:
    view, shown = skyjo("en-US", compact=False)
    text = "\n".join(shown)
    assert "Turn ends <t:9:R>\nCPU 1 to play: draw a card or take the discard." in text
    drawn = "\n".join(skyjo("en-US", compact=False, drawn=True)[1])
    assert "CPU 1 drew a 0 and is deciding where it goes." in drawn
    assert f"Discard pile: {view['discard_pile'][-1]} · Draw pile: {view['draw_pile_size']} cards" in text
    assert text.count("```") == 2 * 5  # a grid per player, and the score sheet
    move = "CPU 1 took the -2 from the discard pile and replaced their 12."
    assert f"Last moves:\n• {move}" in text


def test_the_compact_table_in_french() -> None:
    head, players, moves = parts(skyjo("fr", compact=True)[1])
    assert head == f"## Skyjo — manche 2\nÀ Ordi 1 de jouer · {DEADLINE}"
    assert all(re.search(r" · -?\d+ pts · montre -?\d+$", line) for line in players.split("\n")), players
    assert moves == "-# • Ordi 1 prend le -2 de la défausse pour son 12."


def test_a_skipbo_player_line_is_short_and_hides_the_hand() -> None:
    game = new_skipbo(["Alice", "Computer"], 7)
    view = game.view(None)
    names = ["Alice", ComputerName(1, "normal")]
    for locale in ("en-US", "fr"):
        body = skipbo_message.table_body(view, names, locale=locale, image_url="attachment://t.png")
        head, players = texts(layout_of(body, compact=True, brief=[DEADLINE]))[:2]
        said = "Alice to play" if locale == "en-US" else "À Alice de jouer"
        assert head.split("\n")[1] == f"{said} · {DEADLINE}"
        first, second, legend = players.split("\n")
        assert legend.startswith("-# stock **")  # what the numbers are, in small print
        stock = view["stock_sizes"][0]
        assert re.fullmatch(rf"🔵 ▶ \*\*Alice\*\* · stock \*\*(\d+|SB)\*\* \({stock}\) · ✋5", first), first
        assert second.startswith("🟠 **" + ("CPU 1" if locale == "en-US" else "Ordi 1") + "** · ")


def test_while_everyone_reveals_the_line_says_who_still_turns_cards_up() -> None:
    view = new_skyjo(["a", "b", "c", "d"], 3).view(None)
    assert view["phase"] == "reveal" and view["to_act"] == [0, 1, 2, 3]
    for locale, said in (
        ("en-US", "Alice, CPU 1, CPU 2, Bob to turn up 2 cards"),
        ("fr", "À Alice, Ordi 1, Ordi 2, Bob de retourner 2 cartes"),
    ):
        body = skyjo_message.table_body(view, NAMES, locale=locale, image_url="attachment://t.png")
        head = texts(layout_of(body, compact=True, brief=[DEADLINE]))[0]
        assert head.split("\n")[1] == f"{said} · {DEADLINE}"


def test_the_last_turns_are_said_on_the_line() -> None:
    """Once a player has turned up every card the picture used to say "Last turns!" at its top: the
    line says it now."""
    view = {**mid_game(4, seed=106, turns=24, round_number=2).view(None), "drawn": None, "finisher": 2}
    for locale, said in (
        ("en-US", "CPU 1 to play · last turns!"),
        ("fr", "À Ordi 1 de jouer · derniers tours !"),
    ):
        body = skyjo_message.table_body(view, NAMES, locale=locale, image_url="attachment://t.png")
        assert (
            texts(layout_of(body, compact=True, brief=[DEADLINE]))[0].split("\n")[1] == f"{said} · {DEADLINE}"
        )
