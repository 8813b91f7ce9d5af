"""A lobby's options and who fits at its table: the checks every way a lobby gets its options shares,
``/<game> new`` (:meth:`bot.service.lobbies.LobbyPart.open_lobby`) and the host's set-up form (issue 49,
:meth:`~bot.service.lobbies.LobbyPart.lobby_set_options`; the form itself: ``bot/ui/setup_form.py``),
so one value is refused with one reason whichever way it came. Pure: no storage, no clock, no part.

The set-up form's change (:func:`set_up`) is checked exactly as a new table (:func:`check_lobby`), and
then against who sits: everyone seated and the computer players asked for must fit at the table the
options make (a smaller edition, a larger grid: the engine's reason), and a rematch's held seats
(:func:`held_seats`) are not given to more computers. The computer players are the lobby's seats: the
form's count keeps the first ones and takes or adds the last ones, and its level is every computer's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.engine.errors import GameError
from bot.games.base import GameRules, seat_limit
from bot.games.new_table import TableOptions
from bot.games.registry import AI_LEVELS, BY_KIND
from bot.render.names import escape_name
from bot.service.types import DEFAULT_TURN_LIMIT, TURN_LIMITS, Refused, _counted
from bot.storage.lobbies import HELD_UNTIL, INVITED, THREAD, TURN_LIMIT, Lobby, LobbySeat, engine_options

# A computer player's stored name: (its number at the table, its level) -> the name.
ComputerNamer = Callable[[int, str], str]


def game_rules(kind: str) -> GameRules:
    """The rules of the game ``kind``; a kind no game has is a forged request."""
    game = BY_KIND.get(kind)
    if game is None:
        raise Refused("table.error.forged")
    return game


def check_lobby(kind: str, options: Mapping[str, Any], *, computers: int, level: str, turn_limit: int) -> Any:
    """The engine options of a lobby, or Refused: the settings of ``/<game> new`` (or of the set-up
    form), checked against exactly what the command declares (whatever a client sends) and then by
    the engine; the host and ``computers`` computer players must fit at the table."""
    spec = game_rules(kind)
    if level not in AI_LEVELS:
        raise Refused("table.error.bad_level")
    if type(turn_limit) is not int or turn_limit not in TURN_LIMITS:
        raise Refused("table.error.bad_turn_limit")
    for name, (low, high) in spec.option_ranges.items():
        value = options.get(name)
        if name in options and (type(value) is not int or not low <= value <= high):
            raise Refused("table.error.option_range", option=name, min=low, max=high)
    try:
        opts = spec.engine.Options.from_dict(dict(options))
    except GameError as error:
        raise Refused(error.key, **error.params) from None
    # Settings valid for some table size (teams of two need 4 or 6); the deal checks the real one.
    problems: list[GameError] = []
    for players in range(spec.min_players, spec.max_players + 1):
        try:
            opts.validate(players)
            break
        except GameError as error:
            problems.append(error)
    else:
        raise Refused(problems[0].key, **problems[0].params)
    if type(computers) is not int or not 0 <= computers < spec.max_players:
        raise Refused("error.player_count", min=spec.min_players, max=spec.max_players)
    check_fit(spec, opts.to_dict(), 1 + computers)
    return opts


def check_fit(spec: GameRules, options: Mapping[str, Any], seats: int) -> None:
    """Refused when ``seats`` players do not fit at a table with these engine ``options``: the
    reason the options give (a smaller edition, a large grid), else the game's own limit."""
    limit, why = seat_limit(spec, options)
    if seats <= limit:
        return
    if why is not None:
        raise Refused(why.key, **why.params)
    raise Refused("table.error.lobby_full", max=limit)


def held_seats(lobby: Lobby, now_ms: int) -> list[dict[str, Any]]:
    """The invited players of a rematch whose seats are held at ``now_ms`` (``bot.service.lobbies``):
    not seated yet, while the lobby's ``held_until`` is ahead."""
    until = lobby.options.get(HELD_UNTIL)
    if not isinstance(until, int) or now_ms >= until:
        return []
    seated = {s.user_id for s in lobby.seats if s.user_id is not None}
    return [p for p in lobby.options.get(INVITED) or [] if p.get("user_id") not in seated]


def held_refusal(held: Sequence[Mapping[str, Any]], until_ms: int, *, computer: bool) -> Refused:
    """The refusal of a seat that only a rematch's held seats could give (``held``: the invited
    players waited for, until ``until_ms``): to a person joining, or to a computer player added."""
    names = ", ".join(escape_name(str(p.get("name") or "")) for p in held)
    key = "table.error.seat_held_computer" if computer else "table.error.seat_held"
    return Refused(_counted(key, len(held)), players=names, until=f"<t:{until_ms // 1000}:R>")


def lobby_table_options(lobby: Lobby) -> TableOptions:
    """What the lobby holds, as a new table's options: its engine options, its computer players (their
    count, and the last one's level), its turn limit and whether its game goes to a thread."""
    levels = [seat.ai_level for seat in lobby.seats if seat.ai_level is not None]
    return TableOptions(
        options=engine_options(lobby.options),
        computers=len(levels),
        level=levels[-1] if levels else "normal",
        turn_limit=lobby.options.get(TURN_LIMIT, DEFAULT_TURN_LIMIT),
        thread=bool(lobby.options.get(THREAD)),
    )


def set_up(
    lobby: Lobby, given: Mapping[str, Any], now_ms: int, name: ComputerNamer
) -> tuple[list[LobbySeat], dict[str, Any]]:
    """The seats and options of ``lobby`` set up with what the host ``given`` (option name -> value, as
    to ``/<game> new``; an option left out keeps the lobby's value), or Refused (see the module
    docstring)."""
    now = lobby_table_options(lobby)
    new = game_rules(lobby.kind).new
    asked = new.table_options({**new.given(now), **given})
    turn_limit = next(
        limit for limit in (asked.turn_limit, now.turn_limit, DEFAULT_TURN_LIMIT) if limit is not None
    )
    thread = now.thread if asked.thread is None else asked.thread
    if type(thread) is not bool:
        raise Refused("table.error.forged")
    opts = check_lobby(
        lobby.kind, asked.options, computers=asked.computers, level=asked.level, turn_limit=turn_limit
    )
    engine = opts.to_dict()
    seats = _with_computers(lobby.seats, asked.computers, asked.level, name)
    spec = game_rules(lobby.kind)
    check_fit(spec, engine, len(seats))  # everyone seated, and the computers asked for
    held = held_seats(lobby, now_ms)
    if held and asked.computers > now.computers and len(seats) + len(held) > seat_limit(spec, engine)[0]:
        raise held_refusal(held, int(lobby.options[HELD_UNTIL]), computer=True)
    kept = {key: lobby.options[key] for key in (INVITED, HELD_UNTIL) if key in lobby.options}
    return seats, {**engine, TURN_LIMIT: turn_limit, **({THREAD: True} if thread else {}), **kept}


def _with_computers(
    seats: Sequence[LobbySeat], computers: int, level: str, name: ComputerNamer
) -> list[LobbySeat]:
    """``seats`` with ``computers`` computer players of ``level``: the people where they sit, the first
    computers kept (renamed if their level changes), the last ones taken or more added at the end."""
    kept: list[LobbySeat] = []
    number = 0
    for seat in seats:
        if seat.ai_level is None:
            kept.append(seat)
        elif number < computers:
            number += 1
            kept.append(seat if seat.ai_level == level else LobbySeat(name(number, level), ai_level=level))
    kept += [LobbySeat(name(more, level), ai_level=level) for more in range(number + 1, computers + 1)]
    return kept
