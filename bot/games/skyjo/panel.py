"""The private Skyjo panel as button specifications: the player's grid and the moves legal now.

The layout is pure data (no discord import) so it can be checked against Discord's limits in tests;
the Discord layer turns each :class:`ButtonSpec` into a button. The grid is shown as it lies on the
table: one button row per grid row, one button per column (at most 4 x 5), and one last row of
actions, so every grid size fits Discord's 5 rows of 5.

A move that needs a place (take the discard, or discard the drawn card and turn a card) is two
clicks: the first switches the panel's *mode*, the second picks the place. Only the second click
changes the game; the mode lives in the buttons' custom_ids, not in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.base import ButtonSpec
from bot.games.buttons import encode
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.cards import SHAPES, group
from bot.games.skyjo.faces import BACK, face
from bot.i18n import a_card, plural
from bot.i18n import translate as t
from bot.render.images import SHAPE_MARKS
from bot.render.names import shown_names

PREFIX = "sk"
MODE_MAIN, MODE_TAKE, MODE_DISCARD = 0, 1, 2
MODES = frozenset({MODE_MAIN, MODE_TAKE, MODE_DISCARD})  # the panel modes a custom_id may carry

# Acts carried by custom_ids.
REVEAL, DRAW, TAKE, REPLACE, DISCARD_REVEAL = "rv", "dr", "tk", "rp", "dv"
MODE, REFRESH, NEXT_ROUND, HINT = "md", "rf", "nx", "hn"
OPEN_PANEL, RULES, LEAVE = "op", "ru", "lv"
GAME_ACTS = {REVEAL, DRAW, TAKE, REPLACE, DISCARD_REVEAL, NEXT_ROUND}


def band(value: int) -> tuple[str, str]:
    """(button style, emoji) of a card value's colour band: blue, green, yellow, red."""
    if value <= 0:
        return "primary", "🟦"
    if value <= 4:
        return "success", "🟩"
    if value <= 8:
        return "secondary", "🟨"
    return "danger", "🟥"


def shape_mark(value: int) -> str:
    """The shape of a card value's group on the colour-blind cards (:mod:`bot.games.skyjo.cards`), as
    text: what a colour-blind player's panel shows instead of the coloured square."""
    return SHAPE_MARKS[SHAPES[group(value)]]


def _cell_button(cell: int | str, custom_id: str, enabled: bool) -> ButtonSpec:
    """A place of the grid: ONE thing on each button (``ButtonSpec.alone``), so that the grid's columns
    line up on every screen (issue 47 item 7). With the card emojis synced, a card's emoji alone (its
    face, or the card back); without them, a label alone: the value on its colour band's button, ``?``
    for a face-down card. A cleared place is a disabled ``·``. Neither the coloured square nor the
    colour-blind shape mark goes on a grid button (each would widen it): the card emoji's face carries
    both, and the value says what they say."""
    if cell == "gone":
        return ButtonSpec(custom_id, "·", "secondary", True)
    if cell == "down":
        return ButtonSpec(custom_id, "?", "secondary", not enabled, face=BACK, alone=True)
    assert isinstance(cell, int)
    style, _ = band(cell)
    return ButtonSpec(custom_id, str(cell), style, not enabled, face=face(cell), alone=True)


def panel_title(view: dict[str, Any], locale: object = None) -> str:
    """The first line of the panel message."""
    return t("table.panel.title", locale, round=view["round"])


def panel_rows(
    view: dict[str, Any], seat: int, game_id: int, version: int, mode: int = MODE_MAIN, locale: object = None
) -> list[list[ButtonSpec]]:
    """The panel's buttons for ``seat``: grid rows, then one row of actions."""
    rows, columns = view["rows"], view["columns"]
    grid = view["grids"][seat]
    phase = view["phase"]
    my_turn = phase == "play" and view["turn"] == seat
    drawn = view["drawn"] if my_turn else None

    def cid(act: str, arg: int = 0) -> str:
        return encode(PREFIX, game_id, version, act, arg)

    # Which act a grid click means now, and which cells accept it.
    act: str | None = None
    accepts: set[str] = set()
    if phase == "reveal" and view["reveals_left"][seat] > 0:
        act, accepts = REVEAL, {"down"}
    elif my_turn and drawn is None and mode == MODE_TAKE:
        act, accepts = TAKE, {"down", "value"}
    elif my_turn and drawn is not None and mode == MODE_DISCARD:
        act, accepts = DISCARD_REVEAL, {"down"}
    elif my_turn and drawn is not None:
        act, accepts = REPLACE, {"down", "value"}

    out: list[list[ButtonSpec]] = []
    for r in range(rows):
        line = []
        for c in range(columns):
            pos = c * rows + r
            cell = grid[pos]
            kind = "value" if isinstance(cell, int) else cell
            # Disabled buttons still need distinct ids: they carry the place as a refresh.
            custom_id = cid(act, pos) if act and kind in accepts else cid(REFRESH, pos)
            line.append(_cell_button(cell, custom_id, bool(act) and kind in accepts))
        out.append(line)

    actions: list[ButtonSpec] = []
    if my_turn and drawn is None:
        top = view["discard_pile"][-1] if view["discard_pile"] else None
        if mode == MODE_TAKE:
            actions.append(ButtonSpec(cid(MODE, MODE_MAIN), t("ui.panel.cancel", locale)))
        else:
            actions.append(
                ButtonSpec(cid(DRAW), t("ui.panel.draw", locale), "primary", view["draw_pile_size"] == 0)
            )
            if top is not None:
                style, emoji = band(top)
                actions.append(
                    ButtonSpec(
                        cid(MODE, MODE_TAKE),
                        t("ui.panel.take", locale, value=top),
                        style,
                        False,
                        emoji,
                        shape_mark(top),
                        face(top),
                    )
                )
    elif my_turn and drawn is not None:
        if mode == MODE_DISCARD:
            actions.append(ButtonSpec(cid(MODE, MODE_MAIN), t("ui.panel.cancel", locale)))
        else:
            style, emoji = band(drawn)
            actions.append(
                ButtonSpec(
                    cid(MODE, MODE_DISCARD),
                    t("ui.panel.discard", locale, value=drawn),
                    style,
                    False,
                    emoji,
                    shape_mark(drawn),
                    face(drawn),
                )
            )
    elif phase == "round_over":
        actions.append(ButtonSpec(cid(NEXT_ROUND), t("ui.panel.next_round", locale), "success"))
    actions.append(ButtonSpec(cid(REFRESH, -1), t("ui.panel.refresh", locale)))
    if my_turn and mode == MODE_MAIN:
        actions.append(ButtonSpec(cid(HINT), t("hints.button", locale)))
    out.append(actions)
    return out


def suggestion(view: dict[str, Any], seat: int, action: Any) -> tuple[str, dict[str, Any]] | None:
    """The computer player's move for ``seat`` as a one-line notice (message key, params), described
    from the action and the seat's own view only; None for a move the panel does not suggest."""
    rows = view["rows"]
    grid = view["grids"][seat]

    def place(pos: int) -> dict[str, Any]:
        column, row = divmod(pos, rows)
        cell = grid[pos] if 0 <= pos < len(grid) else "down"
        return {"column": column + 1, "row": row + 1, "old": cell}

    def about(pos: int, key: str, **params: Any) -> tuple[str, dict[str, Any]]:
        where = place(pos)
        face_down = not isinstance(where["old"], int)
        return (f"{key}_down" if face_down else key), {**where, **params}

    if isinstance(action, skyjo.Draw):
        return "hints.skyjo.draw", {}
    if isinstance(action, skyjo.TakeDiscard):
        top = view["discard_pile"][-1] if view["discard_pile"] else None
        return about(action.pos, "hints.skyjo.take", value=top)
    if isinstance(action, skyjo.Replace):
        return about(action.pos, "hints.skyjo.replace", value=view["drawn"])
    if isinstance(action, skyjo.DiscardAndReveal):
        return "hints.skyjo.discard", {**place(action.pos), "value": view["drawn"]}
    return None


def panel_hint(
    view: dict[str, Any], seat: int, names: Sequence[str], mode: int = MODE_MAIN, locale: object = None
) -> str:
    """One line telling the player what to do now (or whom they are waiting for); names as written."""
    phase = view["phase"]
    names = shown_names(names, locale)
    if phase == "reveal":
        left = view["reveals_left"][seat]
        if left > 0:
            return plural("ui.panel.hint.reveal", left, locale)
        waiting = ", ".join(names[s] for s in view["to_act"])
        return t("ui.panel.hint.waiting_reveals", locale, players=waiting)
    if phase == "play":
        if view["turn"] != seat:
            return t("ui.panel.hint.waiting", locale, player=names[view["turn"]])
        drawn = view["drawn"]
        top = view["discard_pile"][-1] if view["discard_pile"] else None
        if drawn is None:
            if mode == MODE_TAKE:
                return t("ui.panel.hint.take", locale, value=top)
            return t("ui.panel.hint.turn", locale, value=top)
        if mode == MODE_DISCARD:
            return t("ui.panel.hint.discard", locale, value=drawn)
        return t("ui.panel.hint.drawn", locale, value=drawn, card=a_card(drawn, locale))
    if phase == "round_over":
        return t("ui.panel.hint.round_over", locale, round=view["round"])
    return t("ui.panel.hint.game_over", locale)


def action_for(act: str, arg: int) -> Any:
    """The engine action a game-changing click stands for, or None for a panel-only click."""
    if act == DRAW:
        return skyjo.Draw()
    if act == NEXT_ROUND:
        return skyjo.NextRound()
    by_place = {
        REVEAL: skyjo.Reveal,
        TAKE: skyjo.TakeDiscard,
        REPLACE: skyjo.Replace,
        DISCARD_REVEAL: skyjo.DiscardAndReveal,
    }
    cls = by_place.get(act)
    return cls(arg) if cls is not None else None


def moves(view: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, read from its own view, as the panel's buttons encode them:
    ``{"act", "arg"}`` with ``arg`` the grid position for a place's move (0 otherwise), in the order
    of the engine's ``legal_actions`` (the Activity's page offers exactly these; the service still
    validates each one). None, a spectator: no move."""
    if seat is None or not 0 <= seat < len(view["players"]):
        return []
    phase, grid = view["phase"], view["grids"][seat]
    down = [p for p, cell in enumerate(grid) if cell == "down"]
    occupied = [p for p, cell in enumerate(grid) if cell != "gone"]
    if phase == "reveal":
        return [{"act": REVEAL, "arg": p} for p in down] if view["reveals_left"][seat] > 0 else []
    if phase == "round_over":
        return [{"act": NEXT_ROUND, "arg": 0}]
    if phase != "play" or view["turn"] != seat:
        return []
    if view["drawn"] is None:
        out = [{"act": DRAW, "arg": 0}] if view["draw_pile_size"] else []
        if view["discard_pile"]:
            out.extend({"act": TAKE, "arg": p} for p in occupied)
        return out
    return [{"act": REPLACE, "arg": p} for p in occupied] + [{"act": DISCARD_REVEAL, "arg": p} for p in down]
