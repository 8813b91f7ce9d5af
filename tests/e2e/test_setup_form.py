"""Issue 49, "a form to set up a table": the lobby's Set up… (and More options…) form, through the fake
Discord with the real bot, in English (Alice) and French (Carol).

A table opened with ``/<game> new <options>`` and one opened with ``/<game> new`` and set to the same
values by the form are dealt with the same stored options; a bad combination is refused by the form
with the same reason text as by the slash command, privately, and the lobby is unchanged; a click by
anyone but the host is refused privately and opens nothing; every modal the bot sends passes the fake's
checks (Discord's description and its docs' modal rules: a modal it would refuse fails the click).
The test answers each modal as a user would, reading the components the bot sent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.client import SkyboBot, create_bot
from bot.config import Limits
from bot.i18n import translate as t
from bot.service.ledger import GameLedger
from bot.storage.lobbies import Lobby
from fakecord import FakeChannel, FakeInteraction, FakeMessage, FakeUser

from .conftest import FAST

CHECKBOX_GROUP, CHECKBOX, TEXT_INPUT, STRING_SELECT, RADIO_GROUP = 22, 23, 4, 3, 21

# (game, the options given to /<game> new, which are also set by the form)
OPTION_SETS = [
    ("skyjo", {"edition": "voyage", "score_limit": 50, "computers": 2, "level": "hard", "turn_limit": 60}),
    (
        "skyjo",
        {
            "finisher_multiplier": 3,
            "row_clearing": True,
            "previous_finisher_starts": True,
            "columns": 3,
            "rows": 2,
            "initial_reveals": 1,
            "computers": 1,
            "level": "easy",
            "turn_limit": 0,
        },
    ),
    (
        "skipbo",
        {"stock_size": 10, "several_rounds": True, "computers": 3, "level": "easy", "turn_limit": 300},
    ),
    ("skipbo", {"teams": True, "computers": 3, "turn_limit": 30}),
]


@pytest.fixture
async def formbot(
    connect_bot: Callable[..., Awaitable[Any]], tmp_path: Path
) -> Callable[[], Awaitable[SkyboBot]]:
    """The real bot without the fair-use cool-down (one host opens a table after another here)."""

    async def start() -> SkyboBot:
        bot = create_bot(database_path=tmp_path / "skybo.sqlite3", tuning=FAST, limits=Limits.none())
        started: SkyboBot = await connect_bot(bot, sync_commands=True)
        return started

    return start


def lobby_button(lobby: FakeMessage, act: str) -> str:
    return next(c for c in lobby.custom_ids if c.endswith(f":{act}"))


async def new(
    fake: Any, user: FakeUser, game: str, channel: FakeChannel | None = None, **options: Any
) -> FakeMessage:
    inter = await fake.run_command(user, game, "new", options=options, channel=channel)
    message: FakeMessage = await inter.original()
    return message


def modal_of(fake: Any, opened: FakeInteraction) -> dict[str, Any]:
    modal: dict[str, Any] = next(m for i, m in fake.modals if i is opened)
    return modal


def answer(modal: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """What a user enters in ``modal`` to set ``wanted`` (option name -> value), reading each component
    the bot sent: a text input's digits, a select's or radio group's option, a checkbox, the boxes of
    a group (those not wanted keep what the form shows)."""
    values: dict[str, Any] = {}
    for label in modal["components"]:
        comp = label["component"]
        custom_id, kind = comp["custom_id"], comp["type"]
        if kind == CHECKBOX_GROUP:
            boxes = [o["value"] for o in comp["options"]]
            if any(box in wanted for box in boxes):
                shown = {o["value"]: bool(o.get("default")) for o in comp["options"]}
                values[custom_id] = [box for box in boxes if wanted.get(box, shown[box])]
        elif custom_id in wanted:
            value = wanted[custom_id]
            values[custom_id] = {
                TEXT_INPUT: str(value),
                STRING_SELECT: [str(value)],
                RADIO_GROUP: str(value),
                CHECKBOX: bool(value),
            }[kind]
    return values


def form_options(modal: dict[str, Any]) -> set[str]:
    """The options a modal holds: each input's custom id, each box of a group."""
    names: set[str] = set()
    for label in modal["components"]:
        comp = label["component"]
        if comp["type"] == CHECKBOX_GROUP:
            names |= {o["value"] for o in comp["options"]}
        else:
            names.add(comp["custom_id"])
    return names


async def open_form(fake: Any, user: FakeUser, lobby: FakeMessage, act: str) -> FakeInteraction:
    opened: FakeInteraction = await fake.click(user, lobby, lobby_button(lobby, act))
    record = await opened.response()
    assert record.type == 9, f"the form is the click's answer (a modal), not {record.type}"
    return opened


async def set_up(fake: Any, host: FakeUser, lobby: FakeMessage, wanted: dict[str, Any]) -> list[FakeMessage]:
    """The host sets ``wanted`` with the lobby's form, page by page (Set up…, then More options… when
    the lobby has it), each page submitted when something wanted is on it. Returns the refusals
    (private answers to a submit); a submit that is not refused has changed the lobby's message."""
    refusals = []
    pages = ["su"] + [act for act in ("mo",) if any(c.endswith(":mo") for c in lobby.custom_ids)]
    for act in pages:
        opened = await open_form(fake, host, lobby, act)
        values = answer(modal_of(fake, opened), wanted)
        if not values:
            continue
        before = lobby.text
        submit = await fake.submit_modal(host, opened, values)
        assert (await submit.response()).type == 6, "a submit is acknowledged without a message"
        await fake.wait_until(
            lambda s=submit, b=before: s.webhook_writes or lobby.text != b, what="the change, or a refusal"
        )
        if submit.webhook_writes:
            refusal = submit.webhook_writes[0]
            assert refusal.ephemeral and refusal.visible_to == host.id, "a refusal is for the host alone"
            assert lobby.text == before, "a refused form changes nothing"
            refusals.append(refusal)
    return refusals


async def start(fake: Any, bot: SkyboBot, host: FakeUser, lobby: FakeMessage) -> int:
    """The host starts the lobby; the id of its game once dealt."""
    await (await fake.click(host, lobby, lobby_button(lobby, "st"))).response()
    game_id: int = await fake.wait_until(
        lambda: next(
            (
                g.id
                for g in bot.service.tables.values()
                if g.stored.meta.get("lobby_id") is not None and g.stored.channel_id == lobby.channel_id
            ),
            None,
        ),
        what="the game",
    )
    return game_id


async def dealt_with(bot: SkyboBot, game_id: int) -> tuple[Any, ...]:
    """What a dealt game holds of its options: the engine's, the turn limit, the seats' levels."""
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    return (stored.options, stored.meta.get("turn_limit"), [s.ai_level for s in stored.seats])


@pytest.mark.parametrize(("game", "options"), OPTION_SETS, ids=lambda v: v if isinstance(v, str) else "")
async def test_the_form_deals_the_table_the_slash_command_would(
    fake_discord: Any, formbot: Any, game: str, options: dict[str, Any]
) -> None:
    fake = fake_discord
    slash_channel, form_channel = fake.channel("general"), fake.channel("games")
    bot = await formbot()
    alice, carol = fake.user("alice"), fake.user("carol")  # English, French

    by_slash = await new(fake, alice, game, slash_channel, **options)
    assert not by_slash.ephemeral, by_slash.text
    slash_lobby = by_slash.text
    slash_game = await start(fake, bot, alice, by_slash)

    by_form = await new(fake, carol, game, form_channel)
    assert not by_form.ephemeral, by_form.text
    assert await set_up(fake, carol, by_form, options) == []
    # The lobby's message says the chosen options as the slash command's lobby did (public words:
    # the server's language, the same for both hosts).
    assert option_lines(by_form.text, carol) == option_lines(slash_lobby, alice)
    form_game = await start(fake, bot, carol, by_form)

    assert await dealt_with(bot, form_game) == await dealt_with(bot, slash_game)


def option_lines(text: str, host: FakeUser) -> list[str]:
    """A lobby's lines but those naming its host."""
    return [line for line in text.splitlines() if host.global_name not in line and str(host.id) not in line]
