"""The host's set-up form, the service's side (issue 49): a lobby's options changed through the table
service, checked exactly as ``/<game> new`` checks a new table (the same reasons), stored and published
as one ``LobbyChanged`` (cause ``options``); a change that changes nothing publishes nothing, and
anyone but the host is refused."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import Game
from bot.games.new_table import TableOption
from bot.games.registry import GAMES
from bot.service import Refused
from bot.service.events import LobbyChanged
from bot.service.lobby_options import check_lobby, lobby_table_options, set_up
from bot.storage.lobbies import HELD_UNTIL, INVITED, Lobby, LobbySeat

from .conftest import ANN, BOB, CHANNEL, GUILD, Services


def any_value(option: TableOption) -> st.SearchStrategy[Any]:
    """A value a client might send for ``option``: a declared one mostly, else one out of bounds,
    of the wrong type, or not among the choices (a forged interaction, a text in a number's box)."""
    if option.choices:
        declared: st.SearchStrategy[Any] = st.sampled_from([c.value for c in option.choices])
    elif option.bounds is not None:
        declared = st.integers(*option.bounds)
    else:
        declared = st.booleans()
    wrong = st.integers(-5, 2000) | st.sampled_from(["abc", "", "expert", "12"])
    return st.one_of(declared, declared, declared, wrong)


def host_only(game: Game) -> Lobby:
    """A lobby as ``/<game> new`` with no option opens it: its host alone, the official rules."""
    options = {**game.engine.Options().to_dict(), "turn_limit": 120}
    return Lobby(1, GUILD, CHANNEL, game.name, ANN, None, options, [LobbySeat("Ann", ANN)], "open", None, 1)


def refusal(call: Any) -> tuple[str, dict[str, Any]] | None:
    try:
        call()
    except Refused as refused:
        return refused.key, refused.params
    return None


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_the_form_is_checked_as_the_slash_options_are(game: Game, data: st.DataObject) -> None:
    """Whatever the form sends, a lobby that holds only its host takes it exactly when ``/<game> new``
    would open a table with it, and refuses it with the same reason; taken, it holds what that table
    would hold."""
    wanted = data.draw(st.fixed_dictionaries({}, optional={o.name: any_value(o) for o in game.new.declared}))
    lobby = host_only(game)
    current = game.new.given(lobby_table_options(lobby))
    asked = game.new.table_options({**current, **wanted})

    def slash() -> Any:  # open_lobby's checks, in its order: the thread's type, then check_lobby
        if asked.thread is not None and type(asked.thread) is not bool:
            raise Refused("table.error.forged")
        turn_limit = asked.turn_limit if asked.turn_limit is not None else 120
        return check_lobby(
            game.name, asked.options, computers=asked.computers, level=asked.level, turn_limit=turn_limit
        )

    form = refusal(lambda: set_up(lobby, wanted, 0, lambda n, level: f"CPU {n}"))
    assert form == refusal(slash)
    if form is None:
        seats, options = set_up(lobby, wanted, 0, lambda n, level: f"CPU {n}")
        engine = slash().to_dict()
        assert {k: v for k, v in options.items() if k not in ("turn_limit", "thread")} == engine
        assert [s.ai_level for s in seats] == [None] + [asked.level] * asked.computers


def test_held_seats_are_not_given_to_more_computers() -> None:
    """A rematch's held seats (bot.service.lobbies) refuse a computer added by the form as by the
    button, naming who they wait for; fewer computers are fine."""
    voyage = next(g for g in GAMES if g.name == "skyjo")
    lobby = host_only(voyage)
    lobby.options |= {"edition": "voyage", INVITED: [{"user_id": BOB, "name": "Bob"}], HELD_UNTIL: 10_000}
    lobby.seats.append(LobbySeat("CPU 1", ai_level="normal"))
    with pytest.raises(Refused) as refused:
        set_up(lobby, {"computers": 3}, 0, lambda n, level: f"CPU {n}")
    assert refused.value.key == "table.error.seat_held_computer.one"
    assert refused.value.params["players"] == "Bob"
    seats, options = set_up(lobby, {"computers": 0}, 0, lambda n, level: f"CPU {n}")
    assert seats == [LobbySeat("Ann", ANN)] and options[INVITED] and options[HELD_UNTIL] == 10_000


async def test_a_change_is_stored_and_published_once_and_only_for_the_host(services: Services) -> None:
    service = await services.start()
    heard = services.heard[service]
    lobby = await service.open_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=ANN, host_name="Ann", options={}, kind="skipbo"
    )
    await service.lobby_join(lobby.id, CHANNEL, BOB, "Bob")
    before = len(heard.of(LobbyChanged))

    with pytest.raises(Refused, match="host_only"):
        await service.lobby_set_options(lobby.id, CHANNEL, BOB, {"teams": True}, "en-US")
    with pytest.raises(Refused, match="host_only"):
        await service.lobby_setup(lobby.id, BOB)
    assert len(heard.of(LobbyChanged)) == before

    changed = await service.lobby_set_options(
        lobby.id, CHANNEL, ANN, {"teams": True, "computers": 2, "level": "hard", "turn_limit": 60}, "en-US"
    )
    events = heard.of(LobbyChanged)[before:]
    assert [(e.cause, e.lobby.version) for e in events] == [("options", changed.version)]
    stored = await service.lobbies.get(lobby.id)
    assert stored.options["teams"] is True and stored.options["turn_limit"] == 60
    assert [(s.user_id, s.ai_level) for s in stored.seats] == [
        (ANN, None),
        (BOB, None),
        (None, "hard"),
        (None, "hard"),
    ]
    assert events[0].lobby.options == stored.options  # the event carries the lobby as stored
    _, shown = await service.lobby_setup(lobby.id, ANN)
    assert (shown.computers, shown.level, shown.turn_limit, shown.thread) == (2, "hard", 60, False)

    # The same values again: nothing written, nothing published.
    again = await service.lobby_set_options(lobby.id, CHANNEL, ANN, {"teams": True, "computers": 2}, "en-US")
    assert again.version == stored.version and len(heard.of(LobbyChanged)) == before + 1
    # A refusal changes nothing either (teams and stocks of 30 for 5 and more: more cards than the deck).
    with pytest.raises(Refused):
        await service.lobby_set_options(lobby.id, CHANNEL, ANN, {"stock_size": 30, "computers": 4}, "en-US")
    assert (await service.lobbies.get(lobby.id)).version == stored.version
    assert len(heard.of(LobbyChanged)) == before + 1
