"""What ``/<game> new`` declares to Discord is exactly what the table accepts, option by option.

Discord shows a range or a list of choices and checks the user's value against it; the bot must then
accept every value Discord lets through (no "1 to 29 are shown but refused"), and still refuse, with a
private localized reason, anything outside it that a modified client sends.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.clock import ManualClock
from bot.config import Limits
from bot.games.registry import AI_LEVELS, BY_KIND
from bot.service import TURN_LIMITS, Refused, TableService
from fakecord import FakeInteraction

GAMES = ("skyjo", "skipbo")
INTEGER, BOOLEAN, STRING = 4, 5, 3
SEPARATE = ("computers", "level", "turn_limit")  # open_lobby's own arguments; the rest are game options


def new_options(fake: Any, game: str) -> list[dict[str, Any]]:
    """The options of ``/<game> new`` as the bot synced them to Discord."""
    command = fake.registered_command(game, fake.guild.id)
    assert command is not None, f"/{game} was not synced"
    new = next(o for o in command["options"] if o["name"] == "new" and o["type"] == 1)
    options: list[dict[str, Any]] = new["options"]
    return options


def check(game: str, name: str, value: Any) -> None:
    """The service's check of a new lobby with ``name`` set to ``value`` (the rest omitted)."""
    if name == "thread":  # the table's place, not a setting of the game: open_lobby takes it (bool)
        return
    settings: dict[str, Any] = {"computers": 0, "level": "normal", "turn_limit": 120}
    options: dict[str, Any] = {}
    (settings if name in SEPARATE else options)[name] = value
    TableService.check_lobby(game, options, **settings)


def declared_values(option: dict[str, Any]) -> list[int]:
    if option.get("choices"):
        return [c["value"] for c in option["choices"]]
    assert "min_value" in option and "max_value" in option, f"{option['name']} has no declared range"
    return list(range(option["min_value"], option["max_value"] + 1))


def outside(option: dict[str, Any]) -> list[int]:
    """Values just outside what is declared: either side of the range, or between and around choices."""
    if option.get("choices"):
        values = sorted(c["value"] for c in option["choices"])
        gaps = [v + 1 for v in values if v + 1 not in values] + [v - 1 for v in values if v - 1 not in values]
        return sorted(set(gaps))
    return [option["min_value"] - 1, option["max_value"] + 1]


@pytest.mark.parametrize("game", GAMES)
async def test_every_declared_value_is_accepted_and_nothing_else(
    fake_discord: Any, skybo: Any, game: str
) -> None:
    fake = fake_discord
    await skybo()
    options = new_options(fake, game)
    integers = [o for o in options if o["type"] == INTEGER]
    assert {o["name"] for o in integers} >= {"computers", "turn_limit"}
    for option in integers:
        declared = declared_values(option)
        assert declared, option["name"]
        for value in declared:
            check(game, option["name"], value)  # raises Refused if the table refuses it
        for value in outside(option):
            with pytest.raises(Refused):
                check(game, option["name"], value)
    by_name = {o["name"]: o for o in options}
    # The turn limit is offered as the service's list, no more, no less.
    assert declared_values(by_name["turn_limit"]) == list(TURN_LIMITS)
    # Computers: from none to a full table with the host.
    assert declared_values(by_name["computers"]) == list(range(BY_KIND[game].max_players))
    # Levels: the three the computer players have, each accepted; anything else refused.
    assert by_name["level"]["type"] == STRING
    assert [c["value"] for c in by_name["level"]["choices"]] == list(AI_LEVELS)
    with pytest.raises(Refused):
        check(game, "level", "expert")
    for option in options:
        if option["type"] == BOOLEAN:
            check(game, option["name"], True)
            check(game, option["name"], False)


async def test_choice_names_are_localized(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    await skybo()
    for game in GAMES:
        turn_limit = next(o for o in new_options(fake, game) if o["name"] == "turn_limit")
        names = {c["value"]: c for c in turn_limit["choices"]}
        assert names[0]["name"] == "no limit" and names[0]["name_localizations"]["fr"] == "sans limite"
        assert names[120]["name"] == "2 min (default)"
        assert names[120]["name_localizations"]["fr"] == "2 min (par défaut)"
        assert (
            "0:" not in turn_limit["description"]
            and "0 :" not in turn_limit["description_localizations"]["fr"]
        )
    stock = next(o for o in new_options(fake, "skipbo") if o["name"] == "stock_size")
    assert not stock.get("required") and "0:" not in stock["description"]


async def forged_new(fake: Any, user: Any, game: str, options: dict[str, Any]) -> FakeInteraction:
    """``/<game> new`` as a modified client sends it: option values Discord itself would not let through."""
    command = fake.registered_command(game, fake.guild.id)
    data = {
        "id": command["id"],
        "name": game,
        "type": 1,
        "options": [
            {
                "name": "new",
                "type": 1,
                "options": [{"name": k, "type": INTEGER, "value": v} for k, v in options.items()],
            }
        ],
    }
    if command.get("guild_id"):
        data["guild_id"] = command["guild_id"]
    inter = FakeInteraction(
        fake, type=2, user=user, channel=fake.channel("general"), data=data, command_name=game
    )
    sent: FakeInteraction = await fake._send_interaction(inter)
    return sent


@pytest.mark.parametrize(
    ("game", "options", "english", "french"),
    [
        ("skyjo", {"turn_limit": 29}, "Pick the turn limit from the list", "Choisis le temps par tour"),
        (
            "skyjo",
            {"score_limit": 9},
            "'score_limit' must be between 10 and 1000",
            "doit être entre 10 et 1000",
        ),
        ("skyjo", {"finisher_multiplier": 6}, "between 1 and 5", "entre 1 et 5"),
        ("skyjo", {"computers": 8}, "A table needs 2 to 8 players", "2 à 8"),
        ("skipbo", {"stock_size": 0}, "'stock_size' must be between 5 and 30", "entre 5 et 30"),
        ("skipbo", {"stock_size": 4}, "between 5 and 30", "entre 5 et 30"),
        ("skipbo", {"computers": 6}, "A table needs 2 to 6 players", "2 à 6"),
    ],
)
async def test_a_forged_value_is_refused_privately_in_the_users_language(
    fake_discord: Any, skybo: Any, game: str, options: dict[str, Any], english: str, french: str
) -> None:
    fake = fake_discord
    bot = await skybo()
    for user, text in ((fake.user("alice"), english), (fake.user("carol"), french)):
        answer = await (await forged_new(fake, user, game, options)).original()
        assert answer.ephemeral and answer.visible_to == user.id
        assert text in answer.text
    assert await bot.service.lobbies.open_in_channel(fake.channel("general").id) is None


@pytest.mark.parametrize("game", GAMES)
async def test_the_declared_bounds_open_a_lobby_through_discord(
    fake_discord: Any, skybo: Any, game: str
) -> None:
    """The extremes of every declared range, sent through the fake's own checks, open a lobby."""
    fake = fake_discord
    clock = ManualClock()  # Alice opens lobby after lobby: each waits out the cool-down between two
    await skybo(clock=clock)
    alice = fake.user("alice")
    for option in new_options(fake, game):
        if option["type"] != INTEGER:
            continue
        values = declared_values(option)
        for value in {values[0], values[-1]}:
            clock.advance(Limits().cooldown_seconds)
            lobby = await (
                await fake.run_command(alice, game, "new", options={option["name"]: value})
            ).original()
            assert not lobby.ephemeral, f"{option['name']}={value} refused: {lobby.text}"
            closed = await (await fake.run_command(alice, game, "end")).original()
            assert not closed.ephemeral
