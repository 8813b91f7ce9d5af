"""Issue 38 item 2: one place for one fact. In a team game a player's place is their team's place, and
``/history``, ``/stats``, the final standings and each player's private end message (issue 47 item
10: it said "place 3 of 4") say the same, in English and in French.

Alice and Bob play two team Skip-Bo games (seeded, five-card stocks) against two computer players,
clicking their panels; the second table is in French (the server's language). Then each asks
``/history`` and ``/stats`` in English, and Carol asks the same about both of them in French.
"""

from __future__ import annotations

import random
import re
from typing import Any

from bot.games.skipbo import engine as skipbo
from bot.service.ledger import GameLedger
from fakecord import FakeMessage, FakeUser

from .conftest import act_of
from .skipbo_helpers import Clicker, start_skipbo

MEDALS = {"🥇": 1, "🥈": 2, "🥉": 3}
HISTORY_EN = re.compile(r"^\*\*#(\d+)\*\* · .* · Skip-Bo · (\d+)(?:st|nd|rd|th) of (\d+) teams$")
HISTORY_FR = re.compile(r"^\*\*#(\d+)\*\* · .* · Skip-Bo · (\d+)(?:re|er|e) sur (\d+) équipes$")
STANDING_EN = re.compile(
    r"^(\d+)\. (?:Alice & Bob|Bob & Alice) — (both stocks emptied|\d+ cards? left in their stocks)$"
)
STANDING_FR = re.compile(
    r"^(\d+)\. (?:Alice et Bob|Bob et Alice) — (les deux stocks vidés|\d+ cartes? dans leurs stocks)$"
)


async def command(fake: Any, who: FakeUser, name: str, **options: Any) -> FakeMessage:
    message: FakeMessage = await (await fake.run_command(who, name, options=options)).original()
    assert message.ephemeral and message.visible_to == who.id
    return message


async def team_game(fake: Any, bot: Any, host: FakeUser, guest: FakeUser, seed: int) -> tuple[int, int, str]:
    """A whole team game, Alice & Bob (seats 0 and 2: partners) against two computers; its id, the
    team's place by the engine's result (1: both stocks emptied first) and the final table's text.
    Each human's private panel, which follows the game, ends on the team's place."""
    table_message, game_id = await start_skipbo(
        fake,
        bot,
        host,
        [guest],
        add_computers=1,
        seed=seed,
        stock_size=5,
        teams=True,
        computers=1,
        turn_limit=0,
    )
    assert sorted(bot.service.tables[game_id].names()[:3:2]) == ["Alice", "Bob"]
    clicker = Clicker(fake, bot, game_id, table_message, [host, guest], random.Random(seed))
    await clicker.play(max_moves=1500)
    await fake.wait_until(lambda: any(act_of(c) == "rm" for c in table_message.custom_ids), what="Rematch")
    await bot.presenter.flush()
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    game: skipbo.State = stored.state
    assert game.winners() in ([0, 2], [1, 3])
    place = 1 if 0 in game.winners() else 2
    for user in (host, guest):  # both speak English; their panels follow the game to its end
        panel = clicker.panels[user.id]
        await fake.wait_until(lambda p=panel: "the game is over" in p.text, what="the panel's end")
        said = "You won!" if place == 1 else "You finished 2nd of 2 teams."
        assert said in panel.text.splitlines(), panel.text
    return game_id, place, table_message.text


def standing_place(text: str, pattern: re.Pattern[str]) -> int:
    """The place the final standings give Alice & Bob (one line for the team, never one each)."""
    lines = [line for line in text.splitlines() if pattern.match(line)]
    assert len(lines) == 1, f"the standings list the team once: {text}"
    assert not any(re.match(r"^\d+\. (Alice|Bob) — ", line) for line in text.splitlines()), text
    match = pattern.match(lines[0])
    assert match is not None
    return int(match[1])


def history_places(message: FakeMessage, pattern: re.Pattern[str]) -> dict[int, int]:
    places: dict[int, int] = {}
    for line in message.embeds[0]["description"].splitlines():
        match = pattern.match(line)
        assert match, f"a team game's place in /history: {line!r}"
        assert int(match[3]) == 2, line  # of 2 teams, not "3rd of 4"
        places[int(match[1])] = int(match[2])
    return places


def stats_places(message: FakeMessage, label: str) -> list[int]:
    """The medals of "Latest places" on the Skip-Bo card, newest first."""
    (field,) = [f for f in message.embeds[0]["fields"] if f["name"] == "Skip-Bo"]
    line = next(line for line in field["value"].splitlines() if line.startswith(label))
    return [MEDALS[medal] for medal in line.removeprefix(label).split()]


async def test_a_team_game_gives_each_partner_the_team_place_everywhere(
    fake_discord: Any, skybo: Any
) -> None:
    fake = fake_discord
    bot = await skybo(images=False)
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    assert carol.locale == "fr"

    first, first_place, english_table = await team_game(fake, bot, alice, bob, seed=11)
    assert standing_place(english_table, STANDING_EN) == first_place
    # The second table speaks French (the server's fixed public language).
    await (await fake.run_command(fake.owner, "skybo", "settings", options={"language": "fr"})).original()
    second, second_place, french_table = await team_game(fake, bot, bob, alice, seed=12)  # Bob hosts
    assert standing_place(french_table, STANDING_FR) == second_place
    expected = {first: first_place, second: second_place}

    for player in (alice, bob):
        # English, the player asking about themself; French, Carol asking about them.
        assert history_places(await command(fake, player, "history"), HISTORY_EN) == expected
        assert history_places(await command(fake, carol, "history", user=player), HISTORY_FR) == expected
        newest_first = [second_place, first_place]
        assert stats_places(await command(fake, player, "stats"), "Latest places: ") == newest_first
        french = await command(fake, carol, "stats", user=player)
        assert stats_places(french, "Dernières places : ") == newest_first
