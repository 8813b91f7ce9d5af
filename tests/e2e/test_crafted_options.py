"""Crafted command payloads (issue 23, item 3): the bot checks every option of every command itself.

Discord checks a user's options against the synced commands; a modified client or a replayed payload
is not checked, and discord.py passes most values through as they are (see
:mod:`bot.ui.command_options`). Each case below sends, through the fake Discord, a payload Discord
would not let through (the fake's ``run_command`` refuses to build them, so :func:`crafted` builds the
interaction's data by hand, as ``forged_new`` in test_option_ranges does for ``/<game> new``), and
checks what a player must read: a private reason in their language (English for Alice, French for
Carol), never the "internal error" apology, no ERROR log (the autouse ``discord_error_log``), and
nothing stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from bot.i18n import translate as t
from bot.ui.boards import MAX_PAGE
from fakecord import FakeDiscord, FakeInteraction, FakeUser

STRING, INTEGER, BOOLEAN, USER, ROLE = 3, 4, 5, 6, 8
MISSING = object()
ALICE_ID, UNKNOWN_ID = "<alice>", "<unknown>"  # stand-ins for snowflakes known when the test runs


def declared_type(fake: FakeDiscord, path: Sequence[str], name: str) -> int:
    """The type the bot declared for option ``name`` of command ``path`` (a crafted option keeps it
    unless the case says otherwise, so that only the one crafted thing is wrong)."""
    command = fake.registered_command(path[0], fake.guild.id)
    assert command is not None
    options = command.get("options", [])
    for part in path[1:]:
        options = next(o for o in options if o["name"] == part).get("options", [])
    declared = next((o for o in options if o["name"] == name), None)
    return int(declared["type"]) if declared else INTEGER


def option(
    fake: FakeDiscord, path: Sequence[str], name: str, value: Any, otype: int | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "type": otype or declared_type(fake, path, name)}
    if value is not MISSING:
        entry["value"] = value
    return entry


async def crafted(
    fake: FakeDiscord,
    user: FakeUser,
    path: Sequence[str],
    options: list[dict[str, Any]],
    *,
    resolved: dict[str, Any] | None = None,
    data_type: int = 1,
) -> FakeInteraction:
    """``/path[0] path[1:]`` with exactly ``options`` (any names, types and values), as a modified
    client would send it: the interaction data is built by hand, not checked against the schema."""
    name, subcommands = path[0], list(path[1:])
    command = fake.registered_command(name, fake.guild.id)
    tree = options
    for part in reversed(subcommands):
        tree = [{"name": part, "type": 1, "options": tree}]
    data: dict[str, Any] = {
        "id": command["id"] if command else str(fake.new_id()),
        "name": name,
        "type": data_type,
        "options": tree,
    }
    if command is not None and command.get("guild_id"):
        data["guild_id"] = command["guild_id"]
    if resolved is not None:
        data["resolved"] = resolved
    inter = FakeInteraction(
        fake, type=2, user=user, channel=fake.channel("general"), data=data, command_name=name
    )
    sent: FakeInteraction = await fake._send_interaction(inter)
    return sent


def user_resolved(fake: FakeDiscord, user: FakeUser) -> dict[str, Any]:
    member = fake.guild.members[user.id].payload()
    member.pop("user")
    return {"users": {str(user.id): user.payload()}, "members": {str(user.id): member}}


SKYJO_NEW, SKIPBO_NEW = ("skyjo", "new"), ("skipbo", "new")
WHOLE_NUMBER = ("The option '{}' must be a whole number.", "L'option « {} » doit être un nombre entier.")
TRUE_FALSE = ("The option '{}' must be True or False.", "L'option « {} » doit être Vrai ou Faux.")
TEXT = ("The option '{}' must be text.", "L'option « {} » doit être du texte.")
MEMBER = ("The option 'player' must be a member of this server.", "L'option « joueur » doit être un membre")
UNKNOWN_COMMAND = ("This command is not one this bot has.", "Ce bot n'a pas cette commande.")


def both(template: tuple[str, str], english: str, french: str) -> tuple[str, str]:
    return template[0].format(english), template[1].format(french)


def case(
    what: str,
    path: tuple[str, ...],
    options: list[tuple[str, Any, int | None]],
    resolved: str | None,
    reasons: tuple[str, str],
) -> Any:
    """One crafted command: ``options`` as (name, value, type or None for the declared type), what
    ``resolved`` holds (None: nothing), and the reasons Alice and Carol read."""
    return pytest.param(path, options, resolved, reasons, id=what)


CASES = [
    # /skyjo new and /skipbo new: types here, values by the table service (its reasons, as before).
    case(
        "string for an integer",
        SKYJO_NEW,
        [("score_limit", "100", None)],
        None,
        both(WHOLE_NUMBER, "score_limit", "score_limite"),
    ),
    case(
        "float for an integer",
        SKYJO_NEW,
        [("score_limit", 100.5, None)],
        None,
        both(WHOLE_NUMBER, "score_limit", "score_limite"),
    ),
    case(
        "boolean for an integer",
        SKYJO_NEW,
        [("finisher_multiplier", True, None)],
        None,
        both(WHOLE_NUMBER, "finisher_multiplier", "multiplicateur"),
    ),
    case(
        "null for an integer",
        SKYJO_NEW,
        [("turn_limit", None, None)],
        None,
        both(WHOLE_NUMBER, "turn_limit", "temps_par_tour"),
    ),
    case(
        "string for a choice integer",
        SKYJO_NEW,
        [("turn_limit", "120", None)],
        None,
        both(WHOLE_NUMBER, "turn_limit", "temps_par_tour"),
    ),
    case(
        "no value",
        SKYJO_NEW,
        [("computers", MISSING, None)],
        None,
        both(WHOLE_NUMBER, "computers", "ordinateurs"),
    ),
    case(
        "integer for a boolean",
        SKYJO_NEW,
        [("row_clearing", 1, None)],
        None,
        both(TRUE_FALSE, "row_clearing", "lignes_retirées"),
    ),
    case(
        "string for a boolean",
        SKYJO_NEW,
        [("previous_finisher_starts", "true", None)],
        None,
        both(TRUE_FALSE, "previous_finisher_starts", "finisseur_commence"),
    ),
    case("integer for a string choice", SKYJO_NEW, [("level", 2, None)], None, both(TEXT, "level", "niveau")),
    case(
        "a type that is not the declared one",
        SKYJO_NEW,
        [("score_limit", 100, STRING)],
        None,
        both(WHOLE_NUMBER, "score_limit", "score_limite"),
    ),
    case(
        "unknown option",
        SKYJO_NEW,
        [("jokers", 3, INTEGER)],
        None,
        ("This command has no option 'jokers'.", "Cette commande n'a pas d'option « jokers »."),
    ),
    case(
        "an option twice",
        SKYJO_NEW,
        [("score_limit", 100, None), ("score_limit", 200, None)],
        None,
        (
            "The option 'score_limit' is given more than once.",
            "L'option « score_limite » est donnée plus d'une fois.",
        ),
    ),
    case(
        "unknown choice string",
        SKYJO_NEW,
        [("level", "expert", None)],
        None,
        ("That computer level does not exist.", "Ce niveau de joueur ordinateur n'existe pas."),
    ),
    case(
        "huge integer",
        SKYJO_NEW,
        [("score_limit", 10**20, None)],
        None,
        ("'score_limit' must be between 10 and 1000", "doit être entre 10 et 1000"),
    ),
    case(
        "negative computers",
        SKYJO_NEW,
        [("computers", -1, None)],
        None,
        ("A table needs 2 to 8 players", "2 à 8"),
    ),
    case(
        "string for a Skip-Bo integer",
        SKIPBO_NEW,
        [("stock_size", "5", None)],
        None,
        both(WHOLE_NUMBER, "stock_size", "taille_stock"),
    ),
    case(
        "integer for a Skip-Bo boolean",
        SKIPBO_NEW,
        [("teams", 0, None)],
        None,
        both(TRUE_FALSE, "teams", "équipes"),
    ),
    case(
        "float computers",
        SKIPBO_NEW,
        [("computers", 2.0, None)],
        None,
        both(WHOLE_NUMBER, "computers", "ordinateurs"),
    ),
    # The command path itself.
    case("a group without its subcommand", ("skyjo",), [], None, UNKNOWN_COMMAND),
    case("unknown subcommand", ("skyjo", "play"), [], None, UNKNOWN_COMMAND),
    case("unknown command", ("poker",), [], None, UNKNOWN_COMMAND),
    case(
        "an option where a subcommand goes", ("skipbo",), [("computers", 1, INTEGER)], None, UNKNOWN_COMMAND
    ),
    case(
        "an option of a command without options",
        ("skyjo", "rules"),
        [("page", 2, INTEGER)],
        None,
        ("This command has no option 'page'.", "Cette commande n'a pas d'option « page »."),
    ),
    # /<game> kick's player: a user of the server that Discord resolved.
    case(
        "missing required user",
        ("skyjo", "kick"),
        [],
        None,
        ("The option 'player' is required.", "L'option « joueur » est obligatoire."),
    ),
    case("a user that is not a snowflake", ("skyjo", "kick"), [("player", "abc", None)], None, MEMBER),
    case("an integer for a user", ("skipbo", "kick"), [("player", ALICE_ID, None)], "int", MEMBER),
    case("a user Discord did not resolve", ("skyjo", "kick"), [("player", UNKNOWN_ID, None)], None, MEMBER),
    case("a role for a user", ("skyjo", "kick"), [("player", "<role>", ROLE)], "role", MEMBER),
    # /leaderboard and /stats: choices and the page range, checked here.
    case(
        "unknown game",
        ("leaderboard",),
        [("game", "chess", None)],
        None,
        (
            "The option 'game' must be one of: Skyjo, Skip-Bo.",
            "L'option « jeu » doit être l'une de ces valeurs : Skyjo, Skip-Bo.",
        ),
    ),
    case(
        "unknown scope",
        ("leaderboard",),
        [("scope", "galaxy", None)],
        None,
        (
            "The option 'scope' must be one of: this server, global (every server).",
            "L'option « portée » doit être l'une de ces valeurs : ce serveur, global (tous les serveurs).",
        ),
    ),
    case(
        "page below the range",
        ("leaderboard",),
        [("page", 0, None)],
        None,
        (
            f"The setting 'page' must be between 1 and {MAX_PAGE}.",
            f"Le réglage « page » doit être entre 1 et {MAX_PAGE}.",
        ),
    ),
    case(
        "page above the range",
        ("leaderboard",),
        [("page", MAX_PAGE + 1, None)],
        None,
        (f"between 1 and {MAX_PAGE}", f"entre 1 et {MAX_PAGE}"),
    ),
    case("string page", ("leaderboard",), [("page", "2", None)], None, both(WHOLE_NUMBER, "page", "page")),
    case(
        "unknown computers choice",
        ("leaderboard",),
        [("computers", "maybe", None)],
        None,
        (
            "The option 'computers' must be one of: show, hide.",
            "L'option « ordinateurs » doit être l'une de ces valeurs : afficher, masquer.",
        ),
    ),
    case(
        "unknown stats scope",
        ("stats",),
        [("scope", "everywhere", None)],
        None,
        (
            "The option 'scope' must be one of: this server",
            "L'option « portée » doit être l'une de ces valeurs : ce serveur",
        ),
    ),
    case(
        "an integer for the stats user",
        ("stats",),
        [("user", 5, None)],
        None,
        (
            "The option 'user' must be a member of this server.",
            "L'option « joueur » doit être un membre de ce serveur.",
        ),
    ),
]


@pytest.mark.parametrize(("path", "options", "resolved", "reasons"), CASES)
async def test_a_crafted_option_is_refused_privately_in_the_users_language(
    fake_discord: Any,
    skybo: Any,
    path: tuple[str, ...],
    options: list[tuple[str, Any, int | None]],
    resolved: str | None,
    reasons: tuple[str, str],
) -> None:
    fake = fake_discord
    bot = await skybo()
    what = "/" + " ".join(path)
    alice, carol = fake.user("alice"), fake.user("carol")
    role = fake.guild.roles[0]
    stand_ins = {ALICE_ID: str(alice.id), UNKNOWN_ID: str(fake.new_id()), "<role>": str(role.id)}
    for user, reason in ((alice, reasons[0]), (carol, reasons[1])):
        sent = []
        for name, value, otype in options:
            value = stand_ins.get(value, value) if isinstance(value, str) else value
            sent.append(option(fake, path, name, value, otype))
        extra: dict[str, Any] | None = None
        if resolved == "int":  # the right user, resolved, but its id as a JSON integer
            sent[0]["value"] = int(sent[0]["value"])
            extra = user_resolved(fake, alice)
        elif resolved == "role":
            extra = {"roles": {str(role.id): role.payload()}}
        answer = await (await crafted(fake, user, path, sent, resolved=extra)).original()
        assert answer.ephemeral and answer.visible_to == user.id, f"{what}: {answer.text!r}"
        assert reason in answer.text, f"{what} ({user.locale}): {answer.text!r}"
        assert answer.text != t("table.error.internal", user.locale)
    channel = fake.channel("general").id
    assert await bot.service.lobbies.open_in_channel(channel) is None and not bot.service.tables


async def test_a_crafted_context_menu_and_autocomplete_get_no_error(fake_discord: Any, skybo: Any) -> None:
    """The bot declares no context menu and no autocomplete: a user command named like a slash command
    is refused like an unknown command; an autocomplete request gets an empty list of suggestions."""
    fake = fake_discord
    await skybo()
    alice = fake.user("alice")
    answer = await (await crafted(fake, alice, ("skyjo",), [], data_type=2)).original()
    assert answer.ephemeral and UNKNOWN_COMMAND[0] in answer.text
    record = await (await fake.autocomplete(alice, "skyjo", "new", focused="score_limit")).response()
    assert record.type == 8 and record.data == {"choices": []}


async def test_every_declared_option_still_goes_through(fake_discord: Any, skybo: Any) -> None:
    """The check refuses nothing Discord lets through: every command with every option, as the fake
    (which checks options against the synced schema, like Discord) sends it."""
    fake = fake_discord
    await skybo()
    alice, bob = fake.user("alice"), fake.user("bob")

    async def run(*path: str, **options: Any) -> str:
        inter = await fake.run_command(alice, path[0], " ".join(path[1:]) or None, options=options)
        text: str = (await inter.original()).text
        refused = "The option '" in text or "has no option" in text or UNKNOWN_COMMAND[0] in text
        assert not refused, f"/{' '.join(path)} {options}: {text!r}"
        assert text != t("table.error.internal", alice.locale)
        return text

    await run("leaderboard", game="skipbo", scope="global", page=MAX_PAGE, computers="show")
    await run("stats", user=bob, scope="global")
    await run("skyjo", "rules")
    text = await run(
        "skyjo", "new", score_limit=1000, finisher_multiplier=1, row_clearing=True,
        previous_finisher_starts=True, computers=7, level="hard", turn_limit=0,
    )  # fmt: skip
    assert "Skyjo" in text
    assert "There is no table in this channel." in await run("skyjo", "kick", player=bob)
    await run("skyjo", "end")
