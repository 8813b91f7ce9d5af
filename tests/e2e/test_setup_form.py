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
from bot.games.registry import BY_KIND
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
    """The host starts the lobby; the id of its game once dealt (in the channel, or a thread)."""
    lobby_id = (await stored_lobby(bot, lobby)).id
    await (await fake.click(host, lobby, lobby_button(lobby, "st"))).response()
    game_id: int = await fake.wait_until(
        lambda: next(
            (g.id for g in bot.service.tables.values() if g.stored.meta.get("lobby_id") == lobby_id), None
        ),
        what="the game",
    )
    return game_id


async def dealt_with(bot: SkyboBot, game_id: int) -> tuple[Any, ...]:
    """What a dealt game holds of its options: the engine's, the turn limit, the seats' levels."""
    stored = await GameLedger(bot.service.storage).get_game(game_id)
    thread = stored.meta.get("thread_parent") is not None  # dealt in a thread of its own
    return (stored.options, stored.meta.get("turn_limit"), [s.ai_level for s in stored.seats], thread)


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
    # The form's pages hold every option of /<game> new, none dropped.
    shown = set().union(*(form_options(modal) for _, modal in fake.modals))
    assert shown == {option.name for option in BY_KIND[game].new.declared}
    # The lobby's message says the chosen options as the slash command's lobby did (public words:
    # the server's language, the same for both hosts).
    assert option_lines(by_form.text, carol) == option_lines(slash_lobby, alice)
    form_game = await start(fake, bot, carol, by_form)

    dealt = await dealt_with(bot, slash_game)
    assert dealt[-1] is bool(options.get("thread")), "the thread option was dealt as asked"
    assert await dealt_with(bot, form_game) == dealt


def option_lines(text: str, host: FakeUser) -> list[str]:
    """A lobby's lines but those naming its host."""
    return [line for line in text.splitlines() if host.global_name not in line and str(host.id) not in line]


# (game, a combination /<game> new refuses, which the form is then set to)
BAD = [
    ("skyjo", {"edition": "voyage", "computers": 5}),  # page 1: a Voyage table seats 4
    ("skyjo", {"columns": 2, "rows": 2, "initial_reveals": 5}),  # page 2: a 2 x 2 grid lets 3 up
    ("skipbo", {"stock_size": 30, "computers": 5}),  # stocks of 30 for 6: more cards than the deck
]


@pytest.mark.parametrize("username", ["alice", "carol"])
async def test_a_bad_combination_is_refused_by_the_form_with_the_slash_commands_reason(
    fake_discord: Any, formbot: Any, username: str
) -> None:
    fake = fake_discord
    elsewhere = fake.add_channel("elsewhere")  # where the slash command is refused (no table there)
    bot = await formbot()
    host = fake.user(username)
    lobbies = {
        "skyjo": await new(fake, host, "skyjo"),
        "skipbo": await new(fake, host, "skipbo", fake.channel("games")),
    }
    for game, options in BAD:
        refused = await new(fake, host, game, elsewhere, **options)
        assert refused.ephemeral and refused.visible_to == host.id, refused.text
        lobby = lobbies[game]
        stored = await stored_lobby(bot, lobby)
        refusals = await set_up(fake, host, lobby, options)
        assert [r.text for r in refusals] == [refused.text], f"{game} {options}"
        if game == "skyjo" and "edition" in options:  # the engine's own reason, in the host's language
            assert refused.text == t("skyjo.error.edition_players.voyage", host.locale, min=2, max=4)
        after = await stored_lobby(bot, lobby)
        assert (after.options, after.seats, after.version) == (stored.options, stored.seats, stored.version)
    assert await bot.service.lobbies.open_in_channel(elsewhere.id) is None


async def stored_lobby(bot: SkyboBot, lobby: FakeMessage) -> Lobby:
    found = await bot.service.lobbies.open_in_channel(lobby.channel_id)
    assert found is not None, "the lobby is open"
    return found


async def test_only_the_host_opens_the_form(fake_discord: Any, formbot: Any) -> None:
    """Anyone else's click on Set up… or More options… is refused privately, in their language, and
    opens nothing; the lobby stays as it was."""
    fake = fake_discord
    bot = await formbot()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    lobby = await new(fake, alice, "skyjo")
    await (await fake.click(bob, lobby, lobby_button(lobby, "jn"))).response()
    await fake.wait_until(lambda: "Bob" in lobby.text, what="Bob seated")
    stored, before = await stored_lobby(bot, lobby), lobby.text
    for user in (bob, carol):  # seated or not
        for act in ("su", "mo"):
            refused = await (await fake.click(user, lobby, lobby_button(lobby, act))).answer()
            assert refused.ephemeral and refused.visible_to == user.id
            assert refused.text == t("table.error.host_only", user.locale)
    assert fake.modals == [] and lobby.text == before
    assert (await stored_lobby(bot, lobby)).version == stored.version


async def test_the_form_keeps_the_seated_and_refuses_a_table_too_small_for_them(
    fake_discord: Any, formbot: Any
) -> None:
    """People seated keep their seats when the form adds computers; options that seat fewer than sit
    already are refused with the engine's reason (as a fifth Voyage seat is), and change nothing."""
    fake = fake_discord
    bot = await formbot()
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    lobby = await new(fake, alice, "skyjo", computers=1)
    for guest in (bob, carol):
        await (await fake.click(guest, lobby, lobby_button(lobby, "jn"))).response()
        await fake.wait_until(lambda g=guest: g.global_name in lobby.text, what="the guest seated")
    assert await set_up(fake, alice, lobby, {"computers": 2, "level": "hard"}) == []
    seats = (await stored_lobby(bot, lobby)).seats
    assert [(s.user_id, s.ai_level) for s in seats] == [
        (alice.id, None),
        (None, "hard"),
        (bob.id, None),
        (carol.id, None),
        (None, "hard"),
    ]
    refusals = await set_up(fake, alice, lobby, {"edition": "voyage"})
    assert [r.text for r in refusals] == [t("skyjo.error.edition_players.voyage", "en-US", min=2, max=4)]
    assert (await stored_lobby(bot, lobby)).seats == seats
