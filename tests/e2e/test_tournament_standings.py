"""A big tournament's standings through the fake Discord (issue 47 item 4): 64 players with 32-character
names, Swiss at tables of 8. The standings message keeps every table's thread link (the tables come
first), uses Components V2's 4,000 characters (the fake refuses one more, as Discord does: a rejection
fails the test), and counts honestly the lines it cannot show, pointing to ``/skybo tournament
standings``, which shows every line privately; in English, then in French once the server's language
is French (the standings are redrawn at the next change: a pause)."""

from __future__ import annotations

import re
from typing import Any

from bot.storage.tournaments import PLAYING
from bot.ui.tournaments import button_id
from fakecord import FakeMessage

from .conftest import private_answer
from .test_tournaments import EDITS, _click, _command

PLAYERS = 64
NAME = 32


def _name(number: int) -> str:
    return f"Player {number:02d} of the great long name"[:NAME]


def _standings(fake: Any, text: str) -> FakeMessage | None:
    return next((m for m in fake.channel_messages(fake.channel("games")) if text in m.text), None)


def _shown_and_counted(text: str, names: list[str], more: str) -> tuple[int, int]:
    """How many players have their standings line in ``text``, and how many the summary counts."""
    shown = sum(bool(re.search(rf"^\d+\. {re.escape(name)} ?:", text, re.M)) for name in names)
    counted = re.search(more, text)
    return shown, int(counted["count"]) if counted else 0


async def test_sixty_four_long_names_keep_every_tables_link_and_count_the_rest(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    users = [fake.user("alice"), fake.user("bob"), fake.user("carol")]
    users += [fake.add_user(f"p{n}", global_name=_name(n)) for n in range(len(users) + 1, PLAYERS + 1)]
    bot = await skybo(edit_interval=EDITS)
    games = fake.channel("games")
    signup = await _command(fake, fake.owner, "new", games, game="skyjo", format="swiss", seats=8, rounds=3)
    (held,) = await bot.service.storage.tournaments.open()
    for user in users[:-1]:  # signed up by the service (fast); the last one clicks Join
        await bot.service.tournament_join(held.id, user.id, user.global_name)
    await _click(fake, users[-1], signup, button_id(held.id, "join"))
    names = [user.global_name for user in users]
    assert all(len(name) == NAME for name in names[3:])
    await fake.wait_until(lambda: f"({PLAYERS}/{PLAYERS})" in signup.text, what="the sign-up full")
    assert all(name in signup.text for name in names)  # 64 long names fit in the V2 budget
    await _click(fake, fake.owner, signup, button_id(held.id, "start"))
    view = await bot.service.tournament_view(held.id)
    tables = view.round_tables(1)
    assert len(tables) == 8 and all(t.status == PLAYING for t in tables)
    await bot.service.tournament_desk.hall.settled()

    english = await fake.wait_until(lambda: _standings(fake, "**Standings**"), what="the standings")
    links = [f"<#{t.channel_id}>" for t in tables]
    assert all(link in english.text for link in links), "every table's thread link is shown"
    shown, counted = _shown_and_counted(
        english.text, names, r"… and (?P<count>\d+) more: /skybo tournament standings shows every line"
    )
    assert shown + counted == PLAYERS and shown >= 30, (shown, counted)
    assert 3500 < len(english.text) <= 4000  # the V2 budget used, not the old 2,000

    # Every line privately, in the reader's language (Carol reads French), her own line in bold.
    carol = fake.user("carol")
    inter = await fake.run_command(carol, "skybo", "tournament standings", channel=games)
    parts = [await private_answer(inter)]
    while sum(len(re.findall(r"^\**\d+\. ", p.text, re.M)) for p in parts) < PLAYERS:
        parts.append(await inter.followup(len(parts) - 1))
    said = "\n".join(p.text for p in parts)
    assert all(p.ephemeral and p.visible_to == carol.id for p in parts)
    assert "**Classement**" in said and all(f"{name} :" in said for name in names)
    assert re.search(rf"^\*\*\d+\. {re.escape(carol.global_name)} :", said, re.M)

    # The server in French: the next redraw (a pause) says it all in French, the links kept.
    await private_answer(await fake.run_command(fake.owner, "skybo", "settings", options={"language": "fr"}))
    paused = await _command(fake, fake.owner, "pause", games)
    assert paused.ephemeral
    await bot.service.tournament_desk.hall.settled()
    french = await fake.wait_until(lambda: _standings(fake, "**Classement**, ronde 1 sur 3"), what="French")
    assert all(link in french.text for link in links) and "manche" not in french.text
    shown, counted = _shown_and_counted(
        french.text,
        names,
        r"… et (?P<count>\d+) de plus : /skybo tournoi classement montre toutes les lignes",
    )
    assert shown + counted == PLAYERS and shown >= 30, (shown, counted)
    fake.assert_clean()
