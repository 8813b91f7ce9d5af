"""What a tournament says of how it went (issue 47 item 6), through the fake Discord, in English and in
French (the server's language):

- a knockout's standings say who won, who went out in which round, and label the bye (no Swiss
  points); its bracket picture joins each table's player who went on to their next table; a finished
  tournament table has no Rematch (the tournament seats its next round), and a forged one is refused;
- with ``computers: on`` nobody has a bye: the player it would go to plays the computers, as the
  sign-up says;
- a final ended by hand says that its table counted as its game stood then, and the final message
  points to ``/<game> replay`` only for games played to their end (none here: it does not).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image

from bot.clock import ManualClock
from bot.render.bracket import COLUMN_WIDTH, GAP, GOLD, MARGIN
from bot.service import Refused
from bot.storage.tournaments import BYE, FINISHED, PLAYING
from bot.ui import ids
from bot.ui.tournaments import button_id

from .conftest import button, private_answer
from .test_tournaments import EDITS, _click, _new_and_sign_up, _play_until

WORDS = {
    "en": {
        "bye": "Bye this round: {name} goes on to the next round without playing",
        "winner": "🏆 {name}: winner",
        "out": "{name}: out in round {round}",
        "computers": "{name} and computer players, in <#{room}>",
        "fills": "computer players fill the empty seats",
        "title": "Winner: **{name}**; their last table was ended by hand and counts as its game stood then.",
        "table": "Round 1, table 1: {players}, ended by hand (counted as it stood, no replay)",
        "replay": "/skyjo replay",
    },
    "fr": {
        "bye": "Au repos cette ronde : {name} passe à la ronde suivante sans jouer",
        "winner": "🏆 {name} : remporte le tournoi",
        "out": "{name} : hors course à la ronde {round}",
        "computers": "{name} et des ordinateurs, dans <#{room}>",
        "fills": "des ordinateurs complètent les tables",
        "title": "Victoire : **{name}** ; sa dernière table a été arrêtée à la main et compte telle qu'était"
        " sa partie à l'arrêt.",
        "table": "Ronde 1, table 1 : {players}, arrêtée à la main"
        " (comptée telle qu'elle était, pas de revoir)",
        "replay": "/skyjo replay",
    },
}
LANGUAGES = pytest.mark.parametrize("language", ["en", "fr"])


async def _bot_in(fake: Any, skybo: Any, language: str, **tuning: Any) -> Any:
    """The bot, its server's public messages in ``language``."""
    bot = await skybo(edit_interval=EDITS, **tuning)
    if language == "fr":
        command = await fake.run_command(fake.owner, "skybo", "settings", options={"language": "fr"})
        await private_answer(command)
    return bot


def _standings(fake: Any) -> Any:
    games = fake.channel("games")
    return next(
        (m for m in fake.channel_messages(games) if "**Standings**" in m.text or "**Classement**" in m.text),
        None,
    )


def _gold_between_rounds(png: bytes) -> int:
    """Gold pixels in the gap between the first two columns of the bracket: the connectors."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    left = MARGIN + COLUMN_WIDTH + 1
    return sum(
        image.getpixel((x, y)) == GOLD for x in range(left, left + GAP - 2) for y in range(image.height)
    )


@LANGUAGES
async def test_a_knockout_says_who_went_out_labels_the_bye_and_joins_its_bracket(
    fake_discord: Any, skybo: Any, language: str
) -> None:
    fake = fake_discord
    words = WORDS[language]
    clock = ManualClock()
    bot = await _bot_in(fake, skybo, language, clock=clock)
    users = [fake.user("alice"), fake.user("bob"), fake.user("carol")]
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="knockout", seats=2, rounds=2)
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    await bot.service.tournament_desk.hall.settled()
    view = await bot.service.tournament_view(tournament_id)
    names = view.names()
    (bye,) = [t for t in view.round_tables(1) if t.status == BYE]  # three players, two tables: one bye
    standings = await fake.wait_until(lambda: _standings(fake), what="the standings")
    assert words["bye"].format(name=names[bye.players[0]]) in standings.text
    assert " pts" not in standings.text  # no Swiss points in a knockout

    view = await _play_until(bot, clock, tournament_id, lambda v: v.tournament.status == FINISHED, 120)
    await bot.service.tournament_desk.hall.settled()
    winner = view.tournament.winner_id
    assert winner is not None
    (played,) = [t for t in view.round_tables(1) if t.status != BYE]
    (final,) = view.round_tables(2)
    beaten = {p: 1 for p in played.players if p not in final.players} | {
        p: 2 for p in final.players if p != winner
    }
    assert view.beaten == beaten
    text = standings.text
    assert words["winner"].format(name=names[winner]) in text and " pts" not in text
    for player, number in beaten.items():
        assert words["out"].format(name=names[player], round=number) in text
    (picture,) = standings.attachments
    assert picture.filename == "bracket.png" and _gold_between_rounds(picture.data) > 20  # the connectors

    # No Rematch on a tournament's table (the tournament seats its next round); forged: refused.
    for row in (played, final):
        stored = await bot.service.ledger.get_game(row.game_id)
        message = fake.messages[stored.message_id]
        assert not any((p := ids.decode(c)) and p.act == "rm" for c in message.custom_ids)
        with pytest.raises(Refused) as refused:
            await bot.service.rematch(row.game_id, row.players[0])
        assert refused.value.key == "tournament.error.rematch"
    fake.assert_clean()


@LANGUAGES
async def test_with_computers_on_nobody_has_a_bye(fake_discord: Any, skybo: Any, language: str) -> None:
    fake = fake_discord
    words = WORDS[language]
    bot = await _bot_in(fake, skybo, language)
    users = [fake.user("alice"), fake.user("bob"), fake.user("carol")]
    tournament_id, signup = await _new_and_sign_up(
        fake, bot, users, format="swiss", seats=2, rounds=1, computers="on"
    )
    assert words["fills"] in signup.text
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    await bot.service.tournament_desk.hall.settled()
    view = await bot.service.tournament_view(tournament_id)
    tables = view.round_tables(1)
    assert [t.status for t in tables] == [PLAYING, PLAYING]  # no bye
    (alone,) = [t for t in tables if len(t.players) == 1]
    seats = (await bot.service.ledger.get_game(alone.game_id)).seats
    assert [s.user_id for s in seats] == [alone.players[0], None] and seats[1].ai_level == "normal"
    standings = await fake.wait_until(lambda: _standings(fake), what="the standings")
    name = view.names()[alone.players[0]]
    assert words["computers"].format(name=name, room=alone.channel_id) in standings.text
    fake.assert_clean()


@LANGUAGES
async def test_a_final_ended_by_hand_says_how_it_counted_and_offers_no_replay(
    fake_discord: Any, skybo: Any, language: str
) -> None:
    fake = fake_discord
    words = WORDS[language]
    bot = await _bot_in(fake, skybo, language)
    users = [fake.user("alice"), fake.user("bob")]
    tournament_id, signup = await _new_and_sign_up(fake, bot, users, format="knockout", seats=2, rounds=1)
    await _click(fake, fake.owner, signup, button_id(tournament_id, "start"))
    (row,) = (await bot.service.tournament_view(tournament_id)).round_tables(1)
    thread = fake.channels[row.channel_id]
    question = await private_answer(await fake.run_command(fake.owner, "skyjo", "end", channel=thread))
    await (await fake.click(fake.owner, question, button(question, "ey"))).response()
    games = fake.channel("games")
    final = await fake.wait_until(
        lambda: next((m for m in fake.channel_messages(games) if "🏆" in m.text and "**" in m.text
                      and ("Winner" in m.text or "Victoire" in m.text)), None),
        what="the final message",
    )  # fmt: skip
    view = await bot.service.tournament_view(tournament_id)
    names = view.names()
    assert view.tournament.status == FINISHED and view.tournament.winner_id is not None
    assert words["title"].format(name=names[view.tournament.winner_id]) in final.text
    players = ", ".join(names[p] for p in row.players)
    assert words["table"].format(players=players) in final.text
    assert words["replay"] not in final.text and f"#{row.game_id}" not in final.text  # nothing to replay
    fake.assert_clean()


async def test_french_commands_say_rondes_and_who_organises(fake_discord: Any, skybo: Any) -> None:
    """``/skybo tournoi`` as Discord holds it: a tournament's rounds are "rondes" (a Skyjo round is a
    "manche"), and the organiser's subcommands say "réservé à qui l'organise", not "son organisation"."""
    fake = fake_discord
    await skybo()
    (skybo_command,) = [c for c in fake.global_commands.values() if c["name"] == "skybo"]
    (group,) = [o for o in skybo_command["options"] if o["name"] == "tournament"]
    subs = {o["name"]: o for o in group["options"]}
    said = json.dumps(group, ensure_ascii=False)
    assert "manche" not in said and "son organisation" not in said
    assert "rondes" in said
    for name in ("drop", "pause", "resume", "cancel"):
        assert subs[name]["description_localizations"]["fr"].endswith("(réservé à qui l'organise)")
    assert subs["standings"]["name_localizations"]["fr"] == "classement"
