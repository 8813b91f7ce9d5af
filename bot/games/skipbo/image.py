"""Skip-Bo table images: the building piles, every stock and discard pile, hand sizes and whose turn
it is, drawn from a view only (SB-INFO-1, GAME-INFO-1).

The renderer reads nothing but the JSON view of :meth:`bot.games.skipbo.engine.State.view`. A spectator's
table (:func:`render_table`) uses only what is public: stock sizes and tops, discard piles, building
piles, hand sizes, the draw pile's size. It never looks at ``hand``, even in a seat's view, so a
hidden card cannot reach it. :func:`render_hand` draws one seat's private panel from that seat's own
view and refuses any other. Card faces, backs and text are drawn once and cached (:mod:`.cards`,
:mod:`bot.render.images`); an image is a hundred-odd pastes of those tiles and a fast PNG encoding.

Cards follow the colours of the real deck: 1-4 blue, 5-8 green, 9-12 red, the Skip-Bo (wild) card
orange; the colour-blind cards (``cards="colourblind"``) use Okabe and Ito's colours and add a shape
per group. A Skip-Bo card on a building pile carries a badge with the value it stands for there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from PIL import Image

from bot.games.skipbo.cards import (
    BACK,
    BACK_EDGE,
    BACK_FILL,
    BUILDING_PILES,
    CARD_H,
    CARD_W,
    DISCARD_PILES,
    EMPTY,
    FAN_CARDS,
    FAN_STEP,
    MARGIN,
    NAME_SIZE,
    PANEL_GAP,
    PANEL_HEADER,
    PANEL_PAD,
    PER_ROW,
    PILE_GAP,
    SMALL_SIZE,
    STACK_STEP,
    STOCK_GAP,
    TEAM_COLOURS,
    TEAM_INK,
    TITLE_SIZE,
    TOP_VALUE,
    WHITE,
    WILD,
    card_rgb,
    icon_rgb,
    mini_hand_rgb,
    palette_of,
    pill_rgb,
    tile,
)
from bot.render.images import (
    RGB,
    SEAT_DOT,
    SEAT_LABELS,
    Theme,
    dot_rgb,
    panel_rgb,
    paste_name,
    paste_status,
    paste_text,
)
from bot.render.seats import seat_rgb
from bot.render.table_picture import TablePicture, png_of, seat_names

DEFAULT_LABELS: Final[Mapping[str, str]] = {
    "round": "Round {round}",
    "turn": "{name} to play",
    "round_over": "Round {round} over",
    "game_over": "Game over",
    "won": "{names} won",
    "stalled": "Nobody can play: a draw",
    "draw": "Draw",
    "building": "Building piles",
    "stock": "Stock",
    "hand": "Hand",
    "team": "Team {team}",
    "and": "{first} and {second}",
    **SEAT_LABELS,  # a panel header's numbers, a computer player's name
}

# --------------------------------------------------------------------------------------------------
# Reading the view


def _card(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not WILD <= value <= TOP_VALUE:
        raise ValueError(f"not a Skip-Bo card in {what}: {value!r}")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a count in {what}: {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class _Table:
    """What the renderer needs from a view, checked once. Nothing hidden: no hand."""

    names: list[str]  # on one line, for sentences
    headers: list[tuple[str, str]]  # a panel's name and second line (a computer's level)
    hand_sizes: list[int]
    stock_sizes: list[int]
    stock_tops: list[int | None]
    discards: list[list[list[int]]]  # per seat, 4 piles, bottom -> top
    building_values: list[int]  # value reached per slot, 0 = free
    building_tops: list[int | None]  # the card on top: a value or WILD
    draw_pile_size: int
    turn: int | None
    phase: str
    round: int
    several_rounds: bool
    totals: list[int]
    round_scores: list[int] | None  # the last round's scores, once it is over (several rounds)
    round_winners: list[int]  # the last round's winners, once it is over
    stalled: bool
    winners: list[int]
    teams: list[int] | None


def _read(view: Mapping[str, Any], names: Sequence[str] | None, labels: Mapping[str, str]) -> _Table:
    n = len(view["players"])
    shown, headers = seat_names(view, names, labels)

    def per_seat(key: str) -> list[Any]:
        values = list(view[key])
        if len(values) != n:
            raise ValueError(f"{key}: {len(values)} values for {n} players")
        return values

    hand_sizes = [_count(c, "hand_sizes") for c in per_seat("hand_sizes")]
    stock_sizes = [_count(c, "stock_sizes") for c in per_seat("stock_sizes")]
    stock_tops = [None if c is None else _card(c, "stock_tops") for c in per_seat("stock_tops")]
    for size, top in zip(stock_sizes, stock_tops, strict=True):
        if (size == 0) != (top is None):
            raise ValueError("a stock's top and size disagree")
    discards: list[list[list[int]]] = []
    for piles in per_seat("discard_piles"):
        if len(piles) != DISCARD_PILES:
            raise ValueError(f"{len(piles)} discard piles, not {DISCARD_PILES}")
        discards.append([[_card(c, "discard_piles") for c in pile] for pile in piles])
    values = [_count(v, "building_piles") for v in view["building_piles"]]
    tops = [None if c is None else _card(c, "building_tops") for c in view["building_tops"]]
    if len(values) != BUILDING_PILES or len(tops) != BUILDING_PILES:
        raise ValueError(f"not {BUILDING_PILES} building piles")
    for value, top in zip(values, tops, strict=True):
        if value > TOP_VALUE or (value == 0) != (top is None) or top not in (None, WILD, value):
            raise ValueError(f"building pile at {value} with {top!r} on top")
    teams = view.get("teams")
    if teams is not None:
        teams = [_count(t, "teams") for t in teams]
        if len(teams) != n or n not in (4, 6) or sorted(teams) != sorted(list(range(n // 2)) * 2):
            raise ValueError(f"teams {teams!r} for {n} players")
    phase = str(view["phase"])
    rounds = view.get("rounds") or []
    last = rounds[-1] if phase in ("round_over", "game_over") and rounds else None
    options = view.get("options") or {}
    turn = view.get("turn")
    if turn is not None and not (isinstance(turn, int) and 0 <= turn < n):
        raise ValueError(f"no seat {turn!r} to play")
    return _Table(
        names=shown,
        headers=headers,
        hand_sizes=hand_sizes,
        stock_sizes=stock_sizes,
        stock_tops=stock_tops,
        discards=discards,
        building_values=values,
        building_tops=tops,
        draw_pile_size=_count(view["draw_pile_size"], "draw_pile_size"),
        turn=turn,
        phase=phase,
        round=int(view["round"]),
        several_rounds=bool(options.get("several_rounds", False)),
        totals=[int(t) for t in per_seat("totals")],
        round_scores=[int(s) for s in last["scores"]] if last else None,
        round_winners=[int(s) for s in last["winners"]] if last else [],
        stalled=bool(last["stalled"]) if last else False,
        winners=[int(s) for s in view.get("winners") or []],
        teams=teams,
    )


# --------------------------------------------------------------------------------------------------
# Layout and drawing


def _fan_height() -> int:
    return (FAN_CARDS - 1) * FAN_STEP + CARD_H


def _stock_w() -> int:
    return CARD_W + 2 * STACK_STEP


def panel_size() -> tuple[int, int]:
    """Every player's panel is this size: the stock, then the four discard piles, under a header."""
    width = 2 * PANEL_PAD + _stock_w() + STOCK_GAP + DISCARD_PILES * CARD_W + (DISCARD_PILES - 1) * PILE_GAP
    height = PANEL_PAD + PANEL_HEADER + 2 * STACK_STEP + _fan_height() + 24 + PANEL_PAD // 2
    return width, height


def _highlighted(table: _Table, seat: int) -> bool:
    return table.phase == "play" and table.turn == seat


def _crowned(table: _Table, seat: int) -> bool:
    return seat in table.winners or (table.phase == "round_over" and seat in table.round_winners)


def _stacked(
    canvas: Image.Image, theme: Theme, xy: tuple[int, int], top: int | str, depth: int, bg: RGB
) -> None:
    """A pile of ``depth`` backs peeking out up and right under the ``top`` card."""
    x, y = xy
    under = tile(theme, card_rgb, BACK, bg, 0, theme.cards)
    for k in range(depth, 0, -1):
        canvas.paste(under, (x + k * STACK_STEP, y - k * STACK_STEP))
    canvas.paste(tile(theme, card_rgb, top, bg, 0, theme.cards), (x, y))


def _pill_on(canvas: Image.Image, theme: Theme, x: int, y: int, text: str) -> None:
    """A size in a dark pill, centred on the card at ``x`` with its bottom at ``y``."""
    pill = tile(theme, pill_rgb, text, SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK_FILL)
    canvas.paste(pill, (x + (CARD_W - pill.width) // 2, y - pill.height))


def _draw_panel(
    canvas: Image.Image,
    origin: tuple[int, int],
    table: _Table,
    seat: int,
    theme: Theme,
    labels: Mapping[str, str],
) -> None:
    x0, y0 = origin
    pw, ph = panel_size()
    palette = palette_of(theme)
    highlighted = _highlighted(table, seat)
    crowned = _crowned(table, seat)
    # The player to act: a border in their seat's colour (the table message's accent); a winner: gold.
    border = seat_rgb(seat) if highlighted else None
    canvas.paste(tile(theme, panel_rgb, (pw, ph), theme, highlighted or crowned, border), origin)
    bg = theme.panel

    # Header: (seat's tag) [mark] name .... [team] [hand as card backs] [total]. With teams, a seat has
    # both: its own colour in the tag before the name, its team's colour and number in the pill.
    cy = y0 + PANEL_PAD + PANEL_HEADER // 2 - 5
    x = x0 + PANEL_PAD + 2
    right = x0 + pw - PANEL_PAD
    notes: list[str] = []  # under the name: a computer's level, the last round's score
    if table.headers[seat][1]:
        notes.append(table.headers[seat][1])
    if table.several_rounds:
        total_text = labels["total"].format(total=table.totals[seat])
        total = tile(theme, pill_rgb, total_text, SMALL_SIZE + 1, theme.panel, theme.text, bg)
        right -= total.width
        canvas.paste(total, (right, cy - total.height // 2))
        if table.round_scores is not None:
            notes.append(labels["round_score"].format(score=f"+{table.round_scores[seat]}"))
        right -= 10
    hand = tile(theme, mini_hand_rgb, table.hand_sizes[seat], bg)
    right -= hand.width
    canvas.paste(hand, (right, cy - hand.height // 2))
    right -= 12
    if table.teams is not None:
        team = table.teams[seat]
        text = labels["team"].format(team=team + 1)
        pill = tile(theme, pill_rgb, text, SMALL_SIZE - 1, TEAM_INK, TEAM_COLOURS[team % 3], bg)
        right -= pill.width
        canvas.paste(pill, (right, cy - pill.height // 2))
        right -= 10
    mark = None
    if crowned:
        mark = tile(theme, icon_rgb, "crown", theme.accent_ink, bg, 22)
    elif highlighted:
        mark = tile(theme, icon_rgb, "turn", seat_rgb(seat), bg, 20)
    ink = theme.accent_ink if crowned else theme.text
    lines = (table.headers[seat][0], " · ".join(notes))
    name_y = cy - (8 if lines[1] else 0)
    canvas.paste(tile(theme, dot_rgb, seat_rgb(seat), bg), (x, name_y - SEAT_DOT // 2))
    x += SEAT_DOT + 6
    if mark is not None:
        canvas.paste(mark, (x, name_y - mark.height // 2))
        x += mark.width + 6
    width = max(10, right - x)
    if lines[1]:
        paste_name(
            canvas, palette, (x, cy), lines, (NAME_SIZE - 2, SMALL_SIZE), width, (ink, theme.muted), bg
        )
    else:  # one line, as tall as the panel's header
        paste_name(
            canvas, palette, (x, cy + 8), lines, (NAME_SIZE, SMALL_SIZE), width, (ink, theme.muted), bg
        )

    # The stock: its top card face up on the cards under it, its size in a pill below.
    top_y = y0 + PANEL_PAD + PANEL_HEADER + 2 * STACK_STEP
    sx = x0 + PANEL_PAD
    size = table.stock_sizes[seat]
    stock_top = table.stock_tops[seat]
    _stacked(
        canvas, theme, (sx, top_y), EMPTY if stock_top is None else stock_top, min(2, max(0, size - 1)), bg
    )
    pill = tile(theme, pill_rgb, str(size), SMALL_SIZE + 1, theme.text, theme.panel_edge, bg)
    py = top_y + CARD_H + 6
    canvas.paste(pill, (sx + (CARD_W - pill.width) // 2, py))
    paste_text(
        canvas,
        palette,
        (sx + CARD_W // 2, py + pill.height + 2),
        labels["stock"],
        SMALL_SIZE - 1,
        theme.muted,
        bg,
        anchor="mt",
    )

    # The discard piles: up to three top cards fanned downwards (their corner indices show), the
    # pile's size under it when it holds more than one card.
    dx = sx + _stock_w() + STOCK_GAP
    caption_y = top_y + _fan_height() + 12
    for pile in table.discards[seat]:
        if not pile:
            canvas.paste(tile(theme, card_rgb, EMPTY, bg, 0, theme.cards), (dx, top_y))
        else:
            for k, card in enumerate(pile[-FAN_CARDS:]):
                canvas.paste(tile(theme, card_rgb, card, bg, 0, theme.cards), (dx, top_y + k * FAN_STEP))
        if len(pile) > 1:
            paste_text(
                canvas,
                palette,
                (dx + CARD_W // 2, caption_y),
                f"×{len(pile)}",
                SMALL_SIZE,
                theme.muted,
                bg,
                "mm",
            )
        dx += CARD_W + PILE_GAP


def _building_width() -> int:
    return BUILDING_PILES * CARD_W + (BUILDING_PILES - 1) * PILE_GAP


def _centre_width() -> int:
    """The draw pile and the building piles side by side."""
    return _stock_w() + STOCK_GAP + _building_width()


def _centre_height() -> int:
    return 2 * STACK_STEP + CARD_H + 8 + SMALL_SIZE + 6


def _draw_centre(
    canvas: Image.Image, xy: tuple[int, int], table: _Table, theme: Theme, labels: Mapping[str, str]
) -> None:
    """The draw pile (backs and its size) and the four building piles, with captions under them."""
    palette = palette_of(theme)
    bg = theme.background
    x, y = xy
    y += 2 * STACK_STEP
    caption_y = y + CARD_H + 8 + SMALL_SIZE // 2
    size = table.draw_pile_size
    if size:
        _stacked(canvas, theme, (x, y), BACK, min(2, size - 1), bg)
        _pill_on(canvas, theme, x, y + CARD_H - 6, str(size))
    else:
        canvas.paste(tile(theme, card_rgb, EMPTY, bg, 0, theme.cards), (x, y))
    paste_text(
        canvas, palette, (x + CARD_W // 2, caption_y), labels["draw"], SMALL_SIZE, theme.muted, bg, "mm"
    )
    x += _stock_w() + STOCK_GAP
    for value, top in zip(table.building_values, table.building_tops, strict=True):
        if top is None:
            card = tile(theme, card_rgb, EMPTY, bg, 0, theme.cards)
        elif top == WILD:
            card = tile(theme, card_rgb, WILD, bg, value, theme.cards)
        else:
            card = tile(theme, card_rgb, top, bg, 0, theme.cards)
        canvas.paste(card, (x, y))
        x += CARD_W + PILE_GAP
    middle = xy[0] + _stock_w() + STOCK_GAP + _building_width() // 2
    paste_text(canvas, palette, (middle, caption_y), labels["building"], SMALL_SIZE, theme.muted, bg, "mm")


def _joined(names: Sequence[str], labels: Mapping[str, str]) -> str:
    if len(names) == 1:
        return names[0]
    return labels["and"].format(first=", ".join(names[:-1]), second=names[-1])


def _phase_lines(table: _Table, labels: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """(text, size, colour role) of the status text at the top left."""
    lines: list[tuple[str, int, str]] = []
    winners = table.winners if table.phase == "game_over" else table.round_winners
    if table.phase in ("game_over", "round_over"):
        title = labels["game_over"] if table.phase == "game_over" else labels["round_over"]
        lines.append((title.format(round=table.round), TITLE_SIZE, "text"))
        if table.stalled:
            lines.append((labels["stalled"], SMALL_SIZE + 2, "bad"))
        elif winners:
            names = _joined([table.names[s] for s in winners], labels)
            lines.append((labels["won"].format(names=names), SMALL_SIZE + 2, "accent"))
        if table.several_rounds and table.phase == "game_over":
            lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
    else:
        if table.several_rounds:
            lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
        if table.turn is not None:
            lines.append((labels["turn"].format(name=table.names[table.turn]), TITLE_SIZE, "turn"))
    return lines


STATUS_MIN_W: Final = 200


def _order(table: _Table) -> list[int]:
    """The seats in panel order: seat order, or team by team (partners side by side) with teams."""
    seats = list(range(len(table.names)))
    if table.teams is None:
        return seats
    teams = table.teams
    return sorted(seats, key=lambda s: (teams[s], s))


def _layout(table: _Table) -> tuple[tuple[int, int], dict[int, tuple[int, int]]]:
    """(image size, each seat's panel top-left corner) of a table."""
    players = len(table.names)
    pw, ph = panel_size()
    rows = -(-players // PER_ROW)
    top = MARGIN + _centre_height() + 4
    width = max(
        2 * MARGIN + PER_ROW * pw + (PER_ROW - 1) * PANEL_GAP,
        2 * MARGIN + STATUS_MIN_W + _centre_width(),
    )
    height = top + rows * ph + (rows - 1) * PANEL_GAP + MARGIN
    origins: dict[int, tuple[int, int]] = {}
    for k, seat in enumerate(_order(table)):
        row, col = divmod(k, PER_ROW)
        in_row = min(PER_ROW, players - row * PER_ROW)
        row_w = in_row * pw + (in_row - 1) * PANEL_GAP
        origins[seat] = ((width - row_w) // 2 + col * (pw + PANEL_GAP), top + row * (ph + PANEL_GAP))
    return (width, height), origins


def panel_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """Each seat's panel in :func:`render_table`'s image, as (left, top, right, bottom) pixels."""
    _, origins = _layout(_read(view, None, DEFAULT_LABELS))
    pw, ph = panel_size()
    return [(x, y, x + pw, y + ph) for x, y in (origins[s] for s in sorted(origins))]


def building_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """The four building piles' places in :func:`render_table`'s image, as (left, top, right, bottom)
    pixels (tests read the cards' colours and shapes there)."""
    size, _ = _layout(_read(view, None, DEFAULT_LABELS))
    x = size[0] - MARGIN - _centre_width() + _stock_w() + STOCK_GAP
    y = MARGIN + 2 * STACK_STEP
    step = CARD_W + PILE_GAP
    return [(x + k * step, y, x + k * step + CARD_W, y + CARD_H) for k in range(BUILDING_PILES)]


_PICTURE: Final = TablePicture(DEFAULT_LABELS, _read)


@_PICTURE.table
def table_image(table: _Table, theme: Theme, words: Mapping[str, str]) -> Image.Image:
    """The whole table as a spectator sees it, as a palette image: the draw pile's size and the
    building piles, then a panel per player (stock top and size, the four discard piles fanned, the
    hand's size as card backs, the team and the totals with several rounds), the player to act
    highlighted. Called as ``table_image(view, names=None, theme="dark", labels=None,
    cards="classic")`` (:class:`~bot.render.table_picture.TableImage`).

    ``view`` is a :meth:`Game.view` dict of any viewer (a hand in it is never read); ``names`` are the
    display names by seat (default: the view's players); ``theme`` is ``"dark"`` or ``"light"``;
    ``labels`` overrides the few words drawn (see ``DEFAULT_LABELS``), for i18n; ``cards`` is
    ``"classic"`` or ``"colourblind"`` (:data:`bot.render.images.CARD_THEMES`).
    """
    size, origins = _layout(table)
    palette = palette_of(theme)
    canvas = palette.canvas(size, theme.background)
    centre_x = size[0] - MARGIN - _centre_width()
    turn = None if table.turn is None else seat_rgb(table.turn)
    status = (MARGIN, MARGIN + 2 * STACK_STEP, CARD_H)  # the status text beside the piles, on two lines
    paste_status(canvas, palette, _phase_lines(table, words), theme, centre_x - MARGIN - 16, turn, status)
    _draw_centre(canvas, (centre_x, MARGIN), table, theme, words)
    for seat, origin in origins.items():
        _draw_panel(canvas, origin, table, seat, theme, words)
    return canvas


render_table: Final = png_of(table_image, "render_table")


HAND_GAP: Final = 10


@_PICTURE.private
def hand_image(
    table: _Table, seat: int, theme: Theme, words: Mapping[str, str], view: Mapping[str, Any]
) -> Image.Image:
    """``seat``'s private picture, as a palette image: the draw pile and building piles, the seat's
    hand face up, then its own panel (stock top and size, its discard piles) and in a team game its
    partner's, whose cards it may play too. Called as ``hand_image(view, seat, names=None,
    theme="dark", labels=None, cards="classic")``. ``view`` must be that seat's own view
    (``Game.view(seat)``): any other is refused, so no one else's hand can be drawn."""
    hand = view.get("hand")
    if view.get("viewer") != seat or not isinstance(hand, list):
        raise ValueError(f"not seat {seat}'s own view: its hand is not in it")
    held = sorted(_card(c, "hand") for c in hand)
    if len(held) != table.hand_sizes[seat]:
        raise ValueError("the hand and its size disagree")
    palette = palette_of(theme)
    bg = theme.background
    pw, ph = panel_size()
    slots = max(5, len(held))
    hand_w = slots * CARD_W + (slots - 1) * HAND_GAP
    width = 2 * MARGIN + max(pw, hand_w, _centre_width())
    label_h = SMALL_SIZE + 10
    hand_top = MARGIN + _centre_height() + 6
    panel_top = hand_top + label_h + CARD_H + 14
    partner = view.get("partner")
    if table.teams is not None and isinstance(partner, int) and 0 <= partner < len(table.names):
        seats = [seat, partner]  # SB-VAR-TEAM-1: the partner's stock and discards are playable too
    else:
        seats = [seat]
    height = panel_top + len(seats) * (ph + PANEL_GAP) - PANEL_GAP + MARGIN
    canvas = palette.canvas((width, height), bg)
    _draw_centre(canvas, ((width - _centre_width()) // 2, MARGIN), table, theme, words)
    x = (width - hand_w) // 2
    paste_text(canvas, palette, (x, hand_top), words["hand"], SMALL_SIZE, theme.muted, bg)
    y = hand_top + label_h
    for k in range(slots):
        card = tile(theme, card_rgb, held[k] if k < len(held) else EMPTY, bg, 0, theme.cards)
        canvas.paste(card, (x + k * (CARD_W + HAND_GAP), y))
    for k, shown in enumerate(seats):
        _draw_panel(canvas, ((width - pw) // 2, panel_top + k * (ph + PANEL_GAP)), table, shown, theme, words)
    return canvas


render_hand: Final = png_of(hand_image, "render_hand")
