"""The words of a tournament's messages (issues 41 and 47), in the locale given, every name escaped: the
sign-up, the standings (public, and whole in private: ``/skybo tournament standings``), the final
message, a table's notices (in its thread and by direct message) and the bracket picture's words.

**Within Discord's limits.** The messages are Components V2 containers, whose text displays hold 4,000
characters in all (``messages.MAX_LAYOUT_TEXT``; Discord's 50035 beyond, as the fake Discord enforces
it). The standings message is three text displays: the head, **the round's tables** (each table's
thread link always shown: a table's names are shortened, then left out, before a link is), then as
many lines of the standings as fit in what is left; the lines that do not fit are counted ("… and 12
more: /skybo tournament standings shows every line"), and that command answers with all of them. The
sign-up counts the names it cannot show the same way, the final message the tables.

**Knockout words.** A knockout's standings say who won, who is still in, and who went out (or was
dropped) in which round; a Swiss tournament's say each player's points and opponents' points. A bye is
said as one (Swiss: 2 points, as a win; knockout: straight on to the next round); with ``computers:
on`` there is none (a player alone plays the computers, and the table says so).

**How a table ended.** A game ended by hand (``/<game> end``, the End vote) counts as it stood when it
was stopped, unrated and not replayable: the standings and the final message say so, and the final
points to ``/<game> replay`` only for games played to their end (``TournamentView.endings``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.games.registry import BY_KIND
from bot.i18n import plural
from bot.i18n import translate as t
from bot.render import messages
from bot.render.bracket import BracketRound, BracketTable, draw_bracket
from bot.render.names import escape_name
from bot.service.tournament_view import BY_HAND, LOST, PLAYED, TournamentView
from bot.storage.tournaments import BYE, CANCELLED, ENDED, FINISHED, PAUSED, PLAYING, SIGNUP, Tournament
from bot.tournament import pairing

# The text a message may hold: Discord's 4,000 characters of text displays, less the heading's "## ".
BUDGET = messages.MAX_LAYOUT_TEXT - len("## ")
# The shortest a name is cut to in the standings' table lines before the names are left out.
NAME_CUTS = (None, 24, 16, 10, 0)


def game_title(kind: str) -> str:
    game = BY_KIND.get(kind)
    return game.title if game is not None else kind


def head(held: Tournament, locale: object) -> str:
    return t(
        "tournament.head",
        locale,
        game=game_title(held.kind),
        format=t(f"tournament.format.{held.format}", locale),
        seats=held.seats,
        rounds=held.rounds,
    )


def _cut(name: str, most: int | None) -> str:
    """A player's name, escaped, at most ``most`` characters of it (None: whole)."""
    if most is not None and len(name) > most:
        name = name[: most - 1].rstrip() + "…"
    return escape_name(name)


def fit(lines: Sequence[str], budget: int, more: Callable[[int], str]) -> list[str]:
    """As many of ``lines`` as fit in ``budget`` characters (joined by newlines), the rest counted by
    the line ``more(count)`` (which fits too)."""
    if sum(len(line) + 1 for line in lines) - 1 <= budget:
        return list(lines)
    room = budget - len(more(len(lines))) - 1
    kept: list[str] = []
    for line in lines:
        if sum(len(k) + 1 for k in kept) + len(line) > room:
            break
        kept.append(line)
    return [*kept, more(len(lines) - len(kept))]


def signup_text(view: TournamentView, locale: object) -> str:
    """The sign-up message: the tournament, its options, its start, who signed up."""
    held = view.tournament
    lines = [
        head(held, locale),
        t("tournament.signup.organiser", locale, organiser=f"<@{held.organiser_id}>"),
    ]
    options = [t("tournament.option.rated" if held.rated else "tournament.option.unrated", locale)]
    if held.computers:
        options.append(t("tournament.option.computers", locale))
    if held.turn_limit is not None:
        limit = t(f"cmd.turn_limit.{held.turn_limit or 'off'}", locale)
        options.append(t("tournament.option.turn_limit", locale, limit=limit))
    lines.append(" · ".join(options))
    if held.status == SIGNUP:
        if held.starts_at is not None:
            lines.append(t("tournament.signup.starts_at", locale, when=f"<t:{held.starts_at // 1000}:R>"))
        else:
            lines.append(t("tournament.signup.starts_by_hand", locale))
    else:
        lines.append(t(f"tournament.signup.closed.{held.status}", locale))
    names = [escape_name(p.name) for p in view.players if not p.dropped]
    most = pairing.capacity(held.format, held.seats, held.rounds)

    def players(shown: Sequence[str]) -> str:
        listed = ", ".join(shown) or t("tournament.signup.nobody", locale)
        if len(shown) < len(names):
            listed += " " + t("tournament.signup.more", locale, count=len(names) - len(shown))
        return t("tournament.signup.players", locale, count=len(names), max=most, names=listed)

    room = BUDGET - sum(len(line) + 1 for line in lines)
    shown = list(names)
    while shown and len(players(shown)) > room:
        shown.pop()
    return "\n".join([*lines, players(shown)])


# ---------------------------------------------------------------------- the standings


def _players(view: TournamentView, players: Sequence[int], locale: object, most: int | None) -> str:
    names = view.names()
    said = ", ".join(_cut(names.get(p, "?"), most) for p in players)
    held = view.tournament
    if held.computers and len(players) < held.seats:  # computers fill the seats (a lone player too)
        said = t("tournament.standings.with_computers", locale, players=said)
    return said


def table_lines(view: TournamentView, locale: object, most: int | None = None) -> list[str]:
    """The round's tables, each with its thread's link: names cut to ``most`` characters (0: the
    players counted instead of named)."""
    held = view.tournament
    names = view.names()
    lines = []
    for row in view.round_tables(held.round):
        if row.status == BYE:
            key = "bye_knockout" if held.format == pairing.KNOCKOUT else "bye"
            name = _cut(names.get(row.players[0], "?"), 10 if most == 0 else most)
            lines.append(t(f"tournament.standings.{key}", locale, name=name))
            continue
        key = "table"
        if row.status == ENDED:
            how = view.endings.get(row.game_id or 0, PLAYED)
            key = {PLAYED: "table_over", BY_HAND: "table_by_hand", LOST: "table_lost"}[how]
        dealt = row.status in (PLAYING, ENDED) and row.channel_id is not None
        where = f"<#{row.channel_id}>" if dealt else t("tournament.standings.dealing", locale)
        if most == 0:
            players = plural("tournament.standings.players", len(row.players), locale)
        else:
            players = _players(view, row.players, locale, most)
        lines.append(
            t(f"tournament.standings.{key}", locale, number=row.table_no, players=players, where=where)
        )
    return lines


def standing_lines(view: TournamentView, locale: object) -> list[str]:
    """Every player's line: Swiss, rank and points; knockout, the winner, who is still in, who went out
    in which round (in that order)."""
    held = view.tournament
    names = view.names()
    dropped = {p.user_id: p.dropped_round for p in view.players if p.dropped}
    if held.format != pairing.KNOCKOUT:
        lines = []
        for line in view.standings:
            name = escape_name(names.get(line.player, "?"))
            text = t(
                "tournament.standings.line", locale, rank=line.rank, name=name, points=line.points,
                opponents=line.opponents_points,
            )  # fmt: skip
            if line.player in dropped:
                text += " " + t("tournament.standings.dropped", locale)
            lines.append(text)
        return lines

    def fate(player: int) -> tuple[int, int, str, dict[str, int]]:
        """(order, minus the round, the words' key, their round): the winner, who is still in, then
        who went out latest first (dropped before being beaten: dropped)."""
        beaten = view.beaten.get(player)
        if player == held.winner_id:
            return 0, 0, "winner", {}
        if player in dropped and (beaten is None or (dropped[player] or 0) <= beaten):
            number = dropped[player] or held.round
            return 2, -number, "dropped", {"round": number}
        if beaten is not None:
            return 2, -beaten, "out", {"round": beaten}
        return 1, 0, "in", {}

    order = sorted(view.standings, key=lambda line: (*fate(line.player)[:2], line.rank))
    lines = []
    for line in order:
        *_, key, params = fate(line.player)
        name = escape_name(names.get(line.player, "?"))
        lines.append(t(f"tournament.knockout.{key}", locale, name=name, **params))
    return lines


def standings_blocks(view: TournamentView, locale: object) -> tuple[str, str, str]:
    """The standings message's three texts within :data:`BUDGET`: the head, the round's tables (every
    link kept: names cut before a link goes), the standings (the lines that do not fit counted)."""
    held = view.tournament
    top = [head(held, locale), t("tournament.standings.round", locale, round=held.round, rounds=held.rounds)]
    if held.status == PAUSED:
        top.append(t("tournament.standings.paused", locale))
    heading = "\n".join(top)
    left = BUDGET - len(heading)
    lines = standing_lines(view, locale)
    whole = sum(len(line) + 1 for line in lines)
    tables = ""
    if held.status not in (FINISHED, CANCELLED):
        for most in NAME_CUTS:
            tables = "\n".join(table_lines(view, locale, most))
            if len(tables) <= max(left // 2, left - whole):
                break
    room = left - len(tables)

    def more(count: int) -> str:
        return t("tournament.standings.more", locale, count=count)

    return heading, tables, "\n".join(fit(lines, room, more))


def standings_text(view: TournamentView, locale: object) -> str:
    """The standings message's text, its blocks one after the other."""
    return "\n".join(block for block in standings_blocks(view, locale) if block)


def private_standings(view: TournamentView, locale: object, reader: int) -> list[str]:
    """Every line of the standings for ``/skybo tournament standings`` (the reader's own in bold), in
    as many texts of :data:`BUDGET` as they need."""
    held = view.tournament
    first = [
        head(held, locale),
        t("tournament.standings.round", locale, round=held.round, rounds=held.rounds),
    ]
    lines = standing_lines(view, locale)
    mine = [i for i, line in enumerate(view.standings) if line.player == reader]
    if held.format != pairing.KNOCKOUT and mine:
        lines[mine[0]] = f"**{lines[mine[0]]}**"
    texts: list[list[str]] = [first]
    for line in lines:
        if sum(len(x) + 1 for x in texts[-1]) + len(line) > BUDGET:
            texts.append([])
        texts[-1].append(line)
    return ["\n".join(text) for text in texts]


# ---------------------------------------------------------------------- the end


def final_text(view: TournamentView, locale: object) -> str:
    """The final message: the winner (and, if their last table was ended by hand, that it counted as it
    stood), how tables ended by hand counted, and each table's game to replay (only those played to
    their end: ``/<game> replay`` shows no other)."""
    held = view.tournament
    names = view.names()
    winner = (
        escape_name(names[held.winner_id])
        if held.winner_id in names
        else t("tournament.final.nobody", locale)
    )
    last = next((row for row in reversed(view.tables) if held.winner_id in row.players and row.game_id), None)
    by_hand = last is not None and view.endings.get(last.game_id or 0) == BY_HAND
    title = "tournament.final.title_by_hand" if by_hand else "tournament.final.title"
    lines = [t(title, locale, game=game_title(held.kind), winner=winner)]
    played = [row for row in view.tables if row.game_id is not None and row.status == ENDED]
    if any(view.endings.get(row.game_id or 0) == BY_HAND for row in played):
        lines.append(t("tournament.final.by_hand", locale))
    if any(view.endings.get(row.game_id or 0, PLAYED) == PLAYED for row in played):
        lines.append(t("tournament.final.replays", locale, command=f"/{held.kind} replay"))
    tables = []
    for row in played:
        how = view.endings.get(row.game_id or 0, PLAYED)
        key = {PLAYED: "table", BY_HAND: "table_by_hand", LOST: "table_lost"}[how]
        players = ", ".join(escape_name(names.get(p, "?")) for p in row.players)
        tables.append(
            t(
                f"tournament.final.{key}",
                locale,
                round=row.round,
                number=row.table_no,
                players=players,
                game=row.game_id,
            )
        )
    room = BUDGET - sum(len(line) + 1 for line in lines)

    def more(count: int) -> str:
        return t("tournament.final.more", locale, count=count)

    return "\n".join([*lines, *fit(tables, room, more)])


# ---------------------------------------------------------------------- a table seated


def welcome_text(seated_round: int, mentions: str, due_ms: int | None, locale: object) -> str:
    """The line in a table's thread that names (and so adds) its players: their round, and when the
    first turn ends."""
    text = t("tournament.room.welcome", locale, mentions=mentions, round=seated_round)
    if due_ms is not None:
        text += "\n" + t("tournament.room.first_turn", locale, deadline=f"<t:{due_ms // 1000}:R>")
    return text


def seated_letter(
    held: Tournament, seated_round: int, table_no: int, link: str, due_ms: int | None, locale: object
) -> str:
    """A seated player's direct message: which tournament, which table, where, by when."""
    text = t(
        "tournament.dm.seated", locale, game=game_title(held.kind), round=seated_round, number=table_no,
        link=link,
    )  # fmt: skip
    if due_ms is not None:
        seconds = due_ms // 1000
        text += "\n" + t(
            "tournament.dm.first_turn", locale, deadline=f"<t:{seconds}:R>", when=f"<t:{seconds}:t>"
        )
    return text


# ---------------------------------------------------------------------- the bracket


def bracket_picture(view: TournamentView, locale: object) -> bytes:
    """A knockout's bracket: every round's tables (those not seated yet as empty boxes), who went on
    (joined to their table of the next round), the byes and the computers said."""
    held = view.tournament
    names = view.names()
    stages = []
    for number in range(1, held.rounds + 1):
        rows = view.round_tables(number)
        after = view.round_tables(number + 1)
        if rows:
            tables = []
            for row in rows:
                out = _dropped(view, number)  # beaten here, or dropped by then (a later loss is later)
                going_on = [p for p in row.players if view.beaten.get(p) != number and p not in out]
                decided = row.status in (ENDED, BYE)
                winner = row.players.index(going_on[0]) if decided and len(going_on) == 1 else None
                if number == held.rounds and held.winner_id is not None:
                    winner = row.players.index(held.winner_id) if held.winner_id in row.players else None
                to = None
                if winner is not None:
                    player = row.players[winner]
                    to = next(
                        (
                            (i, nxt.players.index(player))
                            for i, nxt in enumerate(after)
                            if player in nxt.players
                        ),
                        None,
                    )
                note = None
                if row.status == BYE:
                    note = t("tournament.bracket.bye", locale)
                elif held.computers and len(row.players) < held.seats:
                    note = t("tournament.bracket.computers", locale)
                tables.append(BracketTable([names.get(p, "?") for p in row.players], winner, note, to))
        else:
            tables = [BracketTable(["…"]) for _ in range(held.seats ** (held.rounds - number))]
        key = "tournament.bracket.final" if number == held.rounds else "tournament.bracket.round"
        stages.append(BracketRound(t(key, locale, round=number), tables))
    return draw_bracket(t("tournament.bracket.title", locale, game=game_title(held.kind)), stages)


def _dropped(view: TournamentView, number: int) -> set[int]:
    return {p.user_id for p in view.players if p.dropped_round is not None and p.dropped_round <= number}


__all__ = [
    "BUDGET", "bracket_picture", "final_text", "fit", "game_title", "head", "private_standings",
    "seated_letter", "signup_text", "standing_lines", "standings_blocks", "standings_text", "table_lines",
    "welcome_text",
]  # fmt: skip
