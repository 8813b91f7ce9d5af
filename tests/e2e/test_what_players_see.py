"""Issue 47 item 10, through the fake Discord: what the table message shows.

- A game stopped by hand (``/skyjo end``) keeps its picture and its players' lines (not the text grids
  of ``##`` backs), with nobody marked to play.
- A computer player has one name everywhere: "CPU 1" ("Ordi 1" in French) in the picture, the players'
  lines, the last moves, the full text and the panel; its level is a word of its own where a seat is
  presented (the lobby, the picture's line under the name).
- The table's usual row (My grid, Rules, Leave, in words) is the same in every phase; between two
  rounds Next round has a row of its own above it.
- Skip-Bo's players' lines ("stock **7** (5) · ✋3") have a one-line legend under them.
"""

from __future__ import annotations

import random
import re
from typing import Any

from bot.games.skipbo.message import table_body as skipbo_body
from bot.games.skyjo import image as skyjo_image
from bot.games.skyjo.message import table_body as skyjo_body
from bot.games.skyjo.panel import panel_hint
from bot.render.images import picture_labels, picture_name
from bot.render.messages import layout_of
from bot.ui.views import TABLE_IMAGE, table_rows

from .conftest import act_of, button, open_lobby, play_turns, private_answer, reveal_own_cards, start_table
from .reading import displays_of, gallery_urls, legend_of, players_of, text_of
from .skipbo_helpers import start_skipbo

# A computer's name as any text could say it: the one name, or an older one (with its level, long).
COMPUTER = re.compile(
    r"\b(?:Computer|CPU|Ordinateur|Ordi) \d+(?: \((?:easy|normal|hard|facile|difficile)\))?"
)


async def test_a_table_stopped_by_hand_keeps_its_picture_and_lines(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")
    table_message_, game_id = await start_table(fake, bot, alice, [bob], turn_limit=0)
    table = bot.service.tables[game_id]
    for user in (alice, bob):
        await reveal_own_cards(fake, user, table_message_, table)
    await fake.wait_until(lambda: table.state.phase == "play", what="the first turn")
    question = await private_answer(await fake.run_command(alice, "skyjo", "end"))
    await (await fake.click(alice, question, button(question, "ey"))).answer()
    await fake.wait_until(lambda: not table_message_.custom_ids, what="the table without buttons")
    await fake.wait_until(lambda: "ended by" in table_message_.text, what="the stopped table")

    # The picture, as during the game, and one line per player beside it: no grid of "##" backs.
    [url] = gallery_urls(table_message_)
    assert url.endswith(f"/{TABLE_IMAGE}")
    assert [a.filename for a in table_message_.attachments] == [TABLE_IMAGE]
    text = text_of(table_message_)
    assert "```" not in text and "##  " not in text and "## ##" not in text, text
    lines = players_of(table_message_)
    assert len(lines) == 2 and all(" pts · shows " in line for line in lines), lines
    assert not any("▶" in line for line in lines)  # nobody plays any more
    assert f"ended by {alice.mention}" in displays_of(table_message_)[0]


async def test_a_computer_has_one_name_everywhere(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice = fake.user("alice")
    lobby = await open_lobby(fake, alice, computers=1)
    assert "2. CPU 1 🤖 · normal" in lobby.text  # the lobby presents it: its level after its name
    await (await fake.click(alice, lobby, next(c for c in lobby.custom_ids if c.endswith(":st")))).response()
    game_id = await fake.wait_until(lambda: next(iter(bot.service.tables), None), what="the game")
    table = bot.service.tables[game_id]
    await fake.wait_until(lambda: any(act_of(c) == "op" for c in lobby.custom_ids), what="the table")
    panel = await reveal_own_cards(fake, alice, lobby, table)
    await fake.wait_until(lambda: table.state.phase == "play", what="the first turn")
    await play_turns(fake, bot, game_id, lobby, [alice], random.Random(4), until=lambda: table.turns >= 3)
    await bot.presenter.flush()
    computer = table.names()[1]
    for locale, name in (("en-US", "CPU 1"), ("fr", "Ordi 1")):
        view = table.state.view(None)
        body = skyjo_body(view, table.names(), locale=locale, recent=table.recent, image_url="attachment://t")
        compact = "\n".join(displays_of({"components": layout_of(body, compact=True)}))
        full = "\n".join(displays_of({"components": layout_of(body)}))
        said = set(COMPUTER.findall(f"{compact}\n{full}"))
        assert said == {name}, said  # the lines, the moves, the grids' headings, the status
        assert any(name in move for move in body.recent), body.recent  # its moves say it
        labels = picture_labels("skyjo", skyjo_image.DEFAULT_LABELS, locale)
        assert picture_name(computer, labels) == (name, "normal")  # the picture: its level under it
        alice_view = {**table.state.view(0), "phase": "play", "turn": 1}
        assert set(COMPUTER.findall(panel_hint(alice_view, 0, table.names(), locale=locale))) == {name}
    # What the channel shows: the same name.
    assert set(COMPUTER.findall(text_of(lobby))) == {"CPU 1"}
    # its line: its colour, the turn's marker when it is playing (its move may be on its way), its name
    assert re.match(r"🟠 (▶ )?\*\*CPU 1\*\* · ", players_of(lobby)[1]), players_of(lobby)[1]
    assert set(COMPUTER.findall(text_of(panel))) <= {"CPU 1"}


async def test_the_usual_row_is_the_same_in_every_phase(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    alice = fake.user("alice")
    table_message_, game_id = await start_table(
        fake, bot, alice, [], computers=1, columns=2, rows=2, initial_reveals=3, turn_limit=0
    )
    table = bot.service.tables[game_id]

    def rows() -> list[list[tuple[str | None, str]]]:
        return [
            [(act_of(b["custom_id"]), b.get("label", "")) for b in row["components"]]
            for container in table_message_.payload()["components"]
            for row in container["components"]
            if row.get("type") == 1
        ]

    usual = [("op", "My grid"), ("ru", "Rules"), ("lv", "Leave")]
    assert rows() == [usual]
    await play_turns(
        fake, bot, game_id, table_message_, [alice], random.Random(3),
        until=lambda: table.state.phase == "round_over",
    )  # fmt: skip
    await fake.wait_until(lambda: len(rows()) == 2, what="the table between rounds")
    assert rows() == [[("nx", "Next round")], usual]
    # The same rows in French, from the same code.
    french = [[b["label"] for b in row] for row in table_rows(table, "fr")]
    assert french == [["Manche suivante"], ["Ma grille", "Règles", "Quitter"]]


async def test_skipbo_lines_say_what_their_numbers_are(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    table_message_, game_id = await start_skipbo(fake, bot, fake.user("alice"), [], computers=1, turn_limit=0)
    await bot.presenter.flush()
    lines = players_of(table_message_)
    assert len(lines) == 2
    assert re.fullmatch(r"🔵 (▶ )?\*\*Alice\*\* · stock \*\*\w+\*\* \(\d+\) · ✋\d+", lines[0]), lines
    assert legend_of(table_message_) == ["stock **top card** (cards left) · ✋ hand"]
    table = bot.service.tables[game_id]
    body = skipbo_body(table.state.view(None), table.names(), locale="fr", image_url="attachment://t")
    assert legend_of({"components": layout_of(body, compact=True)}) == [
        "stock **carte du dessus** (reste) · ✋ main"
    ]
    assert legend_of({"components": layout_of(body, compact=False)}) == []  # the full text says it in words
