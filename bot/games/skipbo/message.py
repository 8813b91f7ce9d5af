"""The public Skip-Bo table message (and the lobby's settings lines) as plain data, every word localized.

The Skip-Bo twin of :mod:`bot.games.skyjo.message` (same :class:`MessageBody`, same signatures, no
discord import). Only the public view (``Game.view(None)``) and events are read: hands appear as
sizes only (SB-INFO-1, GAME-INFO-1); stocks' sizes and tops, discard piles and building piles are
public. Even given a player's own view, nothing here reads ``view["hand"]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bot.games.places import places
from bot.games.skipbo import engine as skipbo
from bot.games.skipbo.panel import card_label, card_words, partner_of
from bot.i18n import a_card, plural
from bot.i18n import translate as t
from bot.render.messages import (
    COLOUR_OVER,
    COLOUR_PAUSE,
    COLOUR_PLAYING,
    MAX_DESCRIPTION,
    MAX_FIELD,
    NBSP,
    RECENT_MOVES,
    MessageBody,
    _clip,
    phrased,
    shown_seat_names,
)
from bot.render.messages import recent_lines as _recent_lines
from bot.render.score_sheet import add_sheet
from bot.render.seats import seat_mark

__all__ = [
    "MessageBody",
    "describe_events",
    "option_lines",
    "recent_lines",
    "round_summary",
    "standings_lines",
    "status_line",
    "table_body",
    "turn_mention",
]

JSON = dict[str, Any]
MAX_TITLE = 256
RECENT_LIMIT = RECENT_MOVES

# Event sentences by source (literal keys, so the catalogue test sees each of them).
_PLAYED = {
    skipbo.HAND: "skipbo.event.played_hand",
    skipbo.STOCK: "skipbo.event.played_stock",
    skipbo.DISCARD: "skipbo.event.played_discard",
    skipbo.PARTNER_STOCK: "skipbo.event.played_partner_stock",
    skipbo.PARTNER_DISCARD: "skipbo.event.played_partner_discard",
}


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(names):
        return "?"
    return names[seat]


def _played_card(card: int, value: int, locale: object) -> str:
    if card == skipbo.WILD:
        return t("skipbo.event.card_wild", locale, value=value)
    return a_card(value, locale)


def _discarded_card(card: int, locale: object) -> str:
    if card == skipbo.WILD:
        return t("skipbo.event.card_skipbo", locale)
    return a_card(card, locale)


def _joined(names: Sequence[str], seats: Iterable[int]) -> str:
    return ", ".join(_name(names, s) for s in seats)


# --------------------------------------------------------------------------------------------------
# Events in words


def describe_events(events: Sequence[JSON], names: Sequence[str], locale: object = None) -> list[str]:
    """One sentence per move; a stock play and the stock card it uncovers make one sentence."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        nxt = events[i + 1] if i + 1 < len(events) else None
        if (
            event["type"] == "card_played"
            and nxt is not None
            and nxt["type"] == "stock_revealed"
            and event["source"] in (skipbo.STOCK, skipbo.PARTNER_STOCK)
        ):
            line = _single(event, names, locale)
            assert line is not None
            lines.append(
                line
                + " "
                + t(
                    "skipbo.event.stock_next", locale, value=card_words(nxt["card"], locale), left=nxt["left"]
                )
            )
            i += 2
            continue
        line = _single(event, names, locale)
        if line:
            lines.append(line)
        i += 1
    return lines


def _single(event: JSON, names: Sequence[str], locale: object) -> str | None:
    kind = event["type"]
    player = _name(names, event.get("seat"))
    if kind == "round_started":
        first = event.get("first")
        if first is None:
            return t("skipbo.event.round_started", locale, round=event.get("round", 1))
        return t(
            "skipbo.event.round_started_first",
            locale,
            round=event.get("round", 1),
            player=_name(names, first),
        )
    if kind == "cards_drawn":
        if event.get("why") == "empty_hand":
            return t("skipbo.event.drew_again", locale, player=player, count=event["count"])
        return None  # the start of every turn: the table shows the hand sizes
    if kind == "draw_pile_refilled":
        if event.get("source") == "building":
            return t("skipbo.event.refilled_building", locale, size=event["size"])
        return t("skipbo.event.refilled", locale, size=event["size"])
    if kind == "card_played":
        key = _PLAYED.get(event["source"], "skipbo.event.played_hand")
        return t(
            key,
            locale,
            player=player,
            card=_played_card(event["card"], event["value"], locale),
            owner=_name(names, event.get("owner")),
            index=event["index"] + 1,
            pile=event["pile"] + 1,
        )
    if kind == "stock_revealed":
        return t(
            "skipbo.event.stock_revealed",
            locale,
            player=player,
            value=card_words(event["card"], locale),
            left=event["left"],
        )
    if kind == "pile_completed":
        return t("skipbo.event.pile_completed", locale, pile=event["pile"] + 1)
    if kind == "card_discarded":
        return t(
            "skipbo.event.discarded",
            locale,
            player=player,
            card=_discarded_card(event["card"], locale),
            pile=event["pile"] + 1,
        )
    if kind == "turn_ended":
        return t("skipbo.event.turn_ended", locale, player=player)
    if kind == "round_ended":
        winners = list(event.get("winners", ()))
        if event.get("stalled") or not winners:
            return t("skipbo.event.round_stalled", locale, round=event["round"])
        who = _joined(names, winners)
        score = event["scores"][winners[0]] if event.get("scores") else 0
        if score:
            key = (
                "skipbo.event.round_won_points" if len(winners) == 1 else "skipbo.event.round_won_team_points"
            )
            return t(key, locale, round=event["round"], winners=who, score=score)
        key = "skipbo.event.round_won" if len(winners) == 1 else "skipbo.event.round_won_team"
        return t(key, locale, round=event["round"], winners=who)
    if kind == "game_ended":
        winners = list(event.get("winners", ()))
        if event.get("draw") or not winners:
            return t("skipbo.event.game_drawn", locale)
        key = "skipbo.event.game_ended_one" if len(winners) == 1 else "skipbo.event.game_ended_many"
        return t(key, locale, winners=_joined(names, winners))
    return None  # turn_started: the table shows whose turn it is


def recent_lines(
    recent: Iterable[tuple[int, list[JSON]]], names: Sequence[str], locale: object, limit: int = RECENT_LIMIT
) -> list[str]:
    """The last moves, one line per move (see :func:`bot.render.messages.recent_lines`)."""
    return _recent_lines(recent, names, locale, describe_events, limit)


# --------------------------------------------------------------------------------------------------
# The table


def status_line(view: JSON, names: Sequence[str], locale: object = None) -> str:
    """Whose move it is (and, in teams, with whom), or how the game ended."""
    phase = view["phase"]
    if phase == skipbo.PLAY:
        turn = view["turn"]
        mate = partner_of(view, turn) if turn is not None else None
        if mate is not None:
            return t("skipbo.status.turn_team", locale, player=_name(names, turn), partner=_name(names, mate))
        return t("skipbo.status.turn", locale, player=_name(names, turn))
    if phase == skipbo.ROUND_OVER:
        return t("skipbo.status.round_over", locale, round=view["round"])
    if view.get("draw") or not view["winners"]:
        return t("skipbo.status.draw", locale)
    return t("skipbo.status.game_over", locale, winners=_joined(names, view["winners"]))


def team_line(view: JSON, names: Sequence[str], locale: object) -> str | None:
    """SB-VAR-TEAM-1: who plays with whom."""
    if not view.get("teams"):
        return None
    n = len(names)
    pairs = [t("skipbo.table.team", locale, first=names[s], second=names[s + n // 2]) for s in range(n // 2)]
    return t("skipbo.table.teams", locale, teams=" · ".join(pairs))


def _piles_line(view: JSON, locale: object) -> str:
    piles = " · ".join(card_label(v) if v else "—" for v in view["building_piles"])
    return t("skipbo.table.building", locale, piles=piles)


def _player_field(view: JSON, seat: int, name: str, locale: object) -> JSON:
    phase = view["phase"]
    several = bool(view["options"].get("several_rounds"))
    marker = "▶ " if view["turn"] == seat and phase == skipbo.PLAY else ""
    header = f"{marker}{name}"
    if view.get("teams"):
        header += " " + t("skipbo.table.team_tag", locale, team=view["teams"][seat] + 1)
    if several:
        header += " — " + t("skipbo.table.total", locale, total=view["totals"][seat])
    size = view["stock_sizes"][seat]
    if size:
        stock = t("skipbo.table.stock", locale, value=card_label(view["stock_tops"][seat]), left=size)
    else:
        stock = t("skipbo.table.stock_empty", locale)
    piles = " · ".join(
        plural("skipbo.table.discard_pile", len(p), locale, value=card_label(p[-1])) if p else "—"
        for p in view["discard_piles"][seat]
    )
    lines = [
        stock,
        plural("skipbo.table.hand", view["hand_sizes"][seat], locale),
        t("skipbo.table.discards", locale, piles=piles),
    ]
    # A narrow inline field: its lines wrap between phrases only (messages.phrased).
    return {
        "name": _clip(marker + phrased(header[len(marker) :]), MAX_TITLE),
        "value": _clip("\n".join(phrased(line) for line in lines), MAX_FIELD),
        "inline": True,
    }


def table_body(
    view: JSON,
    names: Sequence[str],
    *,
    locale: object,
    recent: Iterable[tuple[int, list[JSON]]] = (),
    replaced: Iterable[int] = (),
    waiting_round: Sequence[int] = (),
    resumed: bool = False,
    ended_by: int | None = None,
    image_url: str | None = None,
) -> MessageBody:
    """The table everyone sees: building piles, stocks, discard piles, hand sizes, whose turn, the
    last moves; the round summary and the final standings when they come."""
    phase = view["phase"]
    shown = shown_seat_names(names, replaced, locale)
    lines: list[str] = []
    if ended_by is not None:
        lines.append(t("table.ended", locale, user=f"<@{ended_by}>"))
    elif phase == skipbo.GAME_OVER:
        lines.append(status_line(view, shown, locale))
        if view["options"].get("several_rounds") and view["rounds"]:
            lines.append(round_summary(view, shown, locale))
        lines.extend(standings_lines(view, shown, locale))
    elif phase == skipbo.ROUND_OVER:
        lines.append(round_summary(view, shown, locale))
        if waiting_round:
            lines.append(t("table.round.next_waiting", locale, players=_joined(shown, waiting_round)))
    else:
        lines.append(status_line(view, shown, locale))
    if resumed and ended_by is None and phase != skipbo.GAME_OVER:
        lines.append(t("table.live_again", locale))
    teams = team_line(view, shown, locale)
    if teams:
        lines.append(teams)
    if phase == skipbo.PLAY and ended_by is None:
        lines.append(_piles_line(view, locale))
        lines.append(
            t("skipbo.table.draw_pile", locale, size=view["draw_pile_size"], aside=view["set_aside_size"])
        )
    fields = [_player_field(view, seat, name, locale) for seat, name in enumerate(shown)]
    colour = {skipbo.PLAY: COLOUR_PLAYING, skipbo.ROUND_OVER: COLOUR_PAUSE}.get(phase, COLOUR_OVER)
    if view["options"].get("several_rounds"):
        title = t("skipbo.table.header_round", locale, round=view["round"])
    else:
        title = t("skipbo.table.header", locale)
    embed: JSON = {
        "title": _clip(title, MAX_TITLE),
        "description": _clip("\n".join(lines), MAX_DESCRIPTION),
        "color": COLOUR_OVER if ended_by is not None else colour,
        "fields": fields[:25],
    }
    if view["options"].get("several_rounds"):  # one round scores nothing: no sheet
        add_sheet(embed, view, names, shown, locale, over=phase == skipbo.GAME_OVER and ended_by is None)
    if image_url:
        embed["image"] = {"url": image_url}
    head: list[str] = []
    if phase == skipbo.PLAY and ended_by is None:
        turn = view["turn"]
        if view.get("teams") or turn is None:
            head.append(status_line(view, shown, locale))
        else:
            head.append(t("skipbo.status.turn_short", locale, player=shown[turn]))
        if resumed:
            head.append(t("table.live_again", locale))
    return MessageBody(
        embed=embed,
        players=[_player_line(view, seat, name, locale) for seat, name in enumerate(shown)],
        recent=recent_lines(recent, shown, locale),
        head=head,
        legend=t("skipbo.table.legend", locale),  # what "stock **7** (5) · ✋3" says
    )


def _player_line(view: JSON, seat: int, name: str, locale: object) -> str:
    """One line per player for the table beside its picture, after the seat's coloured mark (its
    colour in the picture, :mod:`bot.render.seats`): the stock's top card and count, and the hand's
    size (never its cards); the team and the total when the game has them. Short enough for one line
    on a phone (390 px) with usual names (``name``: :func:`bot.render.messages.shown_seat_names`)."""
    field = _player_field(view, seat, f"**{name}**", locale)
    size = view["stock_sizes"][seat]
    if size:
        top = card_label(view["stock_tops"][seat])
        stock = t("skipbo.table.stock_short", locale, value=top, left=size)
    else:
        stock = t("skipbo.table.stock_short_empty", locale)
    hand = t("skipbo.table.hand_short", locale, count=view["hand_sizes"][seat])
    line = " · ".join([field["name"], stock, hand]).replace(NBSP, " ")
    return f"{seat_mark(seat)} {line}"


def round_summary(view: JSON, names: Sequence[str], locale: object) -> str:
    """The last round: who emptied their stock, the points scored, the stocks left and the totals."""
    if not view["rounds"]:
        return status_line(view, names, locale)
    last = view["rounds"][-1]
    number = len(view["rounds"])
    lines = [t("skipbo.table.round_over", locale, round=number)]
    winners = list(last["winners"])
    if last["stalled"] or not winners:
        lines.append(t("skipbo.table.round_stalled", locale))
    else:
        key = "skipbo.table.round_winner" if len(winners) == 1 else "skipbo.table.round_winners"
        lines.append(t(key, locale, winners=_joined(names, winners)))
    several = bool(view["options"].get("several_rounds"))
    for seat, name in enumerate(names):
        left = last["stock_left"][seat]
        if several:
            lines.append(
                t(
                    "skipbo.table.round_line_points",
                    locale,
                    player=name,
                    score=last["scores"][seat],
                    left=left,
                    total=view["totals"][seat],
                )
            )
        else:
            lines.append(plural("skipbo.table.round_line", left, locale, player=name))
    return "\n".join(lines)


def standings_lines(view: JSON, names: Sequence[str], locale: object) -> list[str]:
    """Final standings: by totals with several rounds, else the winners first then by stock left
    (a team's stocks together); a stalled game has everyone first.

    The places are :func:`bot.games.places.places` (the rule ``/history`` and ``/stats`` use): in a
    team game the standings list **teams**, both partners on one line with their team's place ("2.
    Alice & Chloé — 4 cards left in their stocks"), never a partner alone, so a player who emptied
    their own stock while their partner did not is not listed as if they alone had lost
    (SB-VAR-TEAM-1: a team wins when both partners' stocks are empty)."""
    n = len(names)
    if not view["rounds"]:
        return []
    last = view["rounds"][-1]
    several = bool(view["options"].get("several_rounds"))
    stalled = bool(last["stalled"])
    totals = view["totals"]
    if several and not stalled:
        keys = [-total for total in totals]
    else:
        left = [sum(last["stock_left"][s] for s in _team(view, seat)) for seat in range(n)]
        keys = [0 if stalled else (-1 if seat in last["winners"] else left[seat]) for seat in range(n)]
    shown = places(skipbo.competition_ranks(keys), view.get("teams"))
    # One line per side (a seat, or a team of two listed at its first seat), best place first.
    sides = sorted({_team(view, seat) for seat in range(n)}, key=lambda side: (shown[side[0]].place, side))
    lines = [t("table.standings", locale)]
    for side in sides:
        first = side[0]
        rank = shown[first].place
        if len(side) > 1:
            who = t("skipbo.table.team", locale, first=names[side[0]], second=names[side[1]])
        else:
            who = names[first]
        if several:
            lines.append(t("table.standing", locale, rank=rank, player=who, total=totals[first]))
        elif first in last["winners"]:
            key = "skipbo.table.standing_team_winner" if len(side) > 1 else "skipbo.table.standing_winner"
            lines.append(t(key, locale, rank=rank, player=who))
        else:
            count = sum(last["stock_left"][s] for s in side)
            key = "skipbo.table.standing_team_stock" if len(side) > 1 else "skipbo.table.standing_stock"
            lines.append(plural(key, count, locale, rank=rank, player=who))
    return lines


def _team(view: JSON, seat: int) -> tuple[int, ...]:
    mate = partner_of(view, seat)
    return (seat,) if mate is None else tuple(sorted((seat, mate)))


# --------------------------------------------------------------------------------------------------
# Lobby lines and notices


def option_lines(options: JSON, locale: object) -> list[str]:
    """The Skip-Bo settings of a lobby or table, one line each (``options`` is Options.to_dict());
    the shared lobby message (``messages.lobby_body(lines=...)``) shows them."""
    lines = []
    stock = options.get("stock_size") or 0
    if stock:
        lines.append(t("skipbo.table.options.stock", locale, size=stock))
    else:
        lines.append(t("skipbo.table.options.stock_official", locale))
    if options.get("several_rounds"):
        lines.append(t("skipbo.table.options.rounds", locale, limit=options.get("score_limit", 500)))
    else:
        lines.append(t("skipbo.table.options.single", locale))
    if options.get("teams"):
        lines.append(t("skipbo.table.options.teams", locale))
    return lines


def turn_mention(user_id: int, locale: object) -> str:
    return t("skipbo.table.your_turn", locale, user=f"<@{user_id}>")
