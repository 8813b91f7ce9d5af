"""The private Skip-Bo panel ("My hand") as button specifications: the player's cards and the moves legal now.

Pure data (no discord import), like :mod:`bot.games.skyjo.panel`, so every layout can be checked
against Discord's limits (5 rows of 5 buttons, labels of 80 characters, custom_ids of 100) in tests.
The rows, top to bottom (an empty row is left out, so there are at most five):

1. the player's hand, one button per card (only in its owner's panel: ``view["viewer"] == seat``);
2. the player's stock top and their 4 discard piles' tops;
3. in a team game, the partner's stock top and discard piles' tops (SB-VAR-TEAM-1);
4. the 4 building piles;
5. actions: End turn / Cancel / Next round / Refresh, or, once a hand card is chosen, the 4 discard
   piles it may go on (to end the turn) and Cancel.

**Two clicks per move.** The first click picks a *source* (a hand card, a stock top, a discard top):
it only switches the panel's *mode*, carried by the button's custom_id (``md:<mode>``), never kept
in memory. The second click picks where it goes: a building pile (a :class:`~bot.games.skipbo.engine.Play`;
only the piles that accept the card are enabled, a Skip-Bo card fits every pile and takes the value
the pile needs next) or, for a hand card, one of the player's discard piles (a
:class:`~bot.games.skipbo.engine.Discard`, which ends the turn). "End turn" in the main mode is a
shortcut that only explains the discard: it leads to the same hand-card modes.

**Modes** (the ``arg`` of an ``md`` click, validated against :data:`MODES`):

- ``0`` main; ``1`` "End turn" (pick the hand card to discard);
- ``100 + 20 * copy + card``: a hand card (``card`` 0..12, ``0`` the Skip-Bo card; ``copy`` 0..4
  tells apart equal cards of the hand, so that every button keeps a distinct custom_id);
- ``200``: the player's stock top; ``210 + i``: the top of their discard pile ``i`` (0..3);
- ``300``: the partner's stock top; ``310 + i``: the top of the partner's discard pile ``i``.

A mode that no longer makes sense (the card is gone, the turn has passed) shows the main panel.

**Game acts** (everything :func:`action_for` needs is in the act and its arg, so it never trusts
anything else; the service still validates the action with the engine):

- ``ph`` / ``ps`` / ``pd`` / ``qs`` / ``qd``: a Play from the hand / stock / discard pile / partner's
  stock / partner's discard pile, ``arg = index * 1000 + pile * 100 + x`` where ``index`` is the
  discard pile (0 for the other sources), ``pile`` the building slot and ``x`` the value for a
  number card (1..12) or ``20 + value`` for a Skip-Bo card played as ``value`` (21..32);
- ``dc``: a Discard, ``arg = discard pile * 100 + card``;
- ``et``: End the turn with an empty hand (arg 0); ``nx``: Next round (arg 0).

``md`` (mode), ``rf`` (refresh; disabled buttons carry a distinct refresh arg), ``op`` (open the
panel), ``ru`` (rules) and ``lv`` (leave) are the same acts as Skyjo's, so the shared Discord layer
treats both games alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.games.base import ButtonSpec
from bot.games.buttons import encode
from bot.games.skipbo import engine as skipbo
from bot.games.skipbo.cards import SHAPES, group
from bot.games.skipbo.faces import face
from bot.i18n import translate as t
from bot.render.images import SHAPE_MARKS
from bot.render.names import shown_names

__all__ = [
    "DISCARD",
    "END_TURN",
    "GAME_ACTS",
    "HINT",
    "LEAVE",
    "MODE",
    "MODES",
    "NEXT_ROUND",
    "OPEN_PANEL",
    "PREFIX",
    "REFRESH",
    "RULES",
    "ButtonSpec",
    "action_for",
    "band",
    "card_label",
    "card_words",
    "discard_arg",
    "moves",
    "panel_hint",
    "panel_rows",
    "panel_title",
    "play_arg",
    "suggestion",
]

PREFIX: Final = "sb"

# Acts carried by custom_ids.
PLAY_HAND, PLAY_STOCK, PLAY_DISCARD = "ph", "ps", "pd"
PLAY_PARTNER_STOCK, PLAY_PARTNER_DISCARD = "qs", "qd"
DISCARD, END_TURN = "dc", "et"
MODE, REFRESH, NEXT_ROUND, HINT = "md", "rf", "nx", "hn"
OPEN_PANEL, RULES, LEAVE = "op", "ru", "lv"
PLAY_ACTS: Final[dict[str, str]] = {
    PLAY_HAND: skipbo.HAND,
    PLAY_STOCK: skipbo.STOCK,
    PLAY_DISCARD: skipbo.DISCARD,
    PLAY_PARTNER_STOCK: skipbo.PARTNER_STOCK,
    PLAY_PARTNER_DISCARD: skipbo.PARTNER_DISCARD,
}
ACT_OF_SOURCE: Final[dict[str, str]] = {source: act for act, source in PLAY_ACTS.items()}
GAME_ACTS: Final = frozenset({*PLAY_ACTS, DISCARD, END_TURN, NEXT_ROUND})

# Modes (see the module docstring).
MODE_MAIN: Final = 0
MODE_END: Final = 1
MODE_HAND: Final = 100  # + 20 * copy + card
HAND_COPY_STEP: Final = 20
MODE_STOCK: Final = 200
MODE_DISCARD: Final = 210  # + pile
MODE_PARTNER_STOCK: Final = 300
MODE_PARTNER_DISCARD: Final = 310  # + pile
MODES: Final[frozenset[int]] = frozenset(
    {MODE_MAIN, MODE_END, MODE_STOCK, MODE_PARTNER_STOCK}
    | {
        MODE_HAND + HAND_COPY_STEP * copy + card
        for copy in range(skipbo.HAND_SIZE)
        for card in range(skipbo.TOP_VALUE + 1)
    }
    | {MODE_DISCARD + i for i in range(skipbo.DISCARD_PILES)}
    | {MODE_PARTNER_DISCARD + i for i in range(skipbo.DISCARD_PILES)}
)

WILD_OFFSET: Final = 20  # x = 20 + value for a Skip-Bo card in a play's arg

# Refresh args of disabled buttons (each button of a message needs its own custom_id).
_RF_PANEL = -1
_RF_HAND = 10  # + slot
_RF_STOCK = 20
_RF_DISCARD = 21  # + pile
_RF_PARTNER_STOCK = 30
_RF_PARTNER_DISCARD = 31  # + pile
_RF_BUILDING = 40  # + slot

WILD_EMOJI: Final = "🃏"


# --------------------------------------------------------------------------------------------------
# Cards


def band(card: int) -> tuple[str, str]:
    """(button style, emoji) of a card's colour band: 1-4 blue, 5-8 green, 9-12 red, Skip-Bo grey."""
    if card == skipbo.WILD:
        return "secondary", WILD_EMOJI
    if card <= 4:
        return "primary", "🟦"
    if card <= 8:
        return "success", "🟩"
    return "danger", "🟥"


def shape_mark(card: int) -> str:
    """The shape of a card's group on the colour-blind cards (:mod:`bot.games.skipbo.cards`), as text:
    what a colour-blind player's panel shows instead of the coloured square (or 🃏)."""
    return SHAPE_MARKS[SHAPES[group(card)]]


def card_label(card: int | None) -> str:
    """A card on a button or in a table: its number, ``SB`` for a Skip-Bo card, ``—`` for none."""
    if card is None:
        return "—"
    return "SB" if card == skipbo.WILD else str(card)


def card_words(card: int, locale: object = None) -> str:
    """A card in a sentence: its number, or "Skip-Bo" for the wild card."""
    return t("skipbo.card.wild", locale) if card == skipbo.WILD else str(card)


# --------------------------------------------------------------------------------------------------
# Encoding of the game acts' args


def play_arg(index: int, pile: int, card: int, value: int) -> int:
    """The arg of a play button: ``index * 1000 + pile * 100 + x`` (see the module docstring)."""
    x = WILD_OFFSET + value if card == skipbo.WILD else value
    return index * 1000 + pile * 100 + x


def discard_arg(pile: int, card: int) -> int:
    return pile * 100 + card


def action_for(act: str, arg: int) -> skipbo.Action | None:
    """The engine action a game-changing click stands for; None for a panel-only or forged click.

    Only ``act`` and ``arg`` are read; anything out of the encoding's ranges is None. Whether the
    action is legal now is the engine's business.
    """
    if type(arg) is not int or type(act) is not str:
        return None
    if act == END_TURN:
        return skipbo.EndTurn() if arg == 0 else None
    if act == NEXT_ROUND:
        return skipbo.NextRound() if arg == 0 else None
    if act == DISCARD:
        pile, card = divmod(arg, 100)
        if arg < 0 or not 0 <= pile < skipbo.DISCARD_PILES or card > skipbo.TOP_VALUE:
            return None
        return skipbo.Discard(card, pile)
    source = PLAY_ACTS.get(act)
    if source is None or arg < 0:
        return None
    index, rest = divmod(arg, 1000)
    pile, x = divmod(rest, 100)
    max_index = skipbo.DISCARD_PILES - 1 if source in (skipbo.DISCARD, skipbo.PARTNER_DISCARD) else 0
    if index > max_index or pile >= skipbo.BUILDING_PILES:
        return None
    if 1 <= x <= skipbo.TOP_VALUE:
        return skipbo.Play(source, index, x, pile, x)
    if WILD_OFFSET + 1 <= x <= WILD_OFFSET + skipbo.TOP_VALUE:
        return skipbo.Play(source, index, skipbo.WILD, pile, x - WILD_OFFSET)
    return None


# --------------------------------------------------------------------------------------------------
# Reading the view


@dataclass(frozen=True, slots=True)
class Selection:
    """The source a mode stands for, checked against the view: the card on it is really there."""

    mode: int
    source: str
    index: int
    card: int


def partner_of(view: dict[str, Any], seat: int) -> int | None:
    """SB-VAR-TEAM-1: the partner sits half a table away (the engine's rule), None without teams."""
    if not view.get("teams"):
        return None
    n = len(view["players"])
    return (seat + n // 2) % n


def own_hand(view: dict[str, Any], seat: int) -> list[int]:
    """The seat's hand, only when the view is that seat's own (SB-INFO-1); else nothing."""
    if view.get("viewer") != seat or view.get("hand") is None:
        return []
    return list(view["hand"])


def _hand_modes(hand: Sequence[int]) -> list[int]:
    """The mode of each hand card (equal cards get successive copies)."""
    seen: dict[int, int] = {}
    modes = []
    for card in hand:
        copy = seen.get(card, 0)
        seen[card] = copy + 1
        modes.append(MODE_HAND + HAND_COPY_STEP * copy + card)
    return modes


def _top(pile: Sequence[int]) -> int | None:
    return pile[-1] if pile else None


def selection(view: dict[str, Any], seat: int, mode: int) -> Selection | None:
    """The source chosen by ``mode`` if it is still there on the seat's turn; None otherwise."""
    if mode not in MODES or mode in (MODE_MAIN, MODE_END):
        return None
    if view["phase"] != skipbo.PLAY or view["turn"] != seat:
        return None
    if MODE_HAND <= mode < MODE_STOCK:
        hand = own_hand(view, seat)
        if mode not in _hand_modes(hand):
            return None
        return Selection(mode, skipbo.HAND, 0, (mode - MODE_HAND) % HAND_COPY_STEP)
    owner: int | None = seat
    if mode >= MODE_PARTNER_STOCK:
        owner = partner_of(view, seat)
        if owner is None:
            return None
    partner = mode >= MODE_PARTNER_STOCK
    if mode in (MODE_STOCK, MODE_PARTNER_STOCK):
        card = view["stock_tops"][owner] if view["stock_sizes"][owner] else None
        source, index = (skipbo.PARTNER_STOCK if partner else skipbo.STOCK), 0
    else:
        index = mode - (MODE_PARTNER_DISCARD if partner else MODE_DISCARD)
        card = _top(view["discard_piles"][owner][index])
        source = skipbo.PARTNER_DISCARD if partner else skipbo.DISCARD
    if card is None:
        return None
    return Selection(mode, source, index, card)


def _nexts(view: dict[str, Any]) -> list[int]:
    return [v + 1 for v in view["building_piles"]]


def _fits(card: int | None, nexts: Sequence[int]) -> bool:
    return card is not None and (card == skipbo.WILD or card in nexts)


# --------------------------------------------------------------------------------------------------
# The panel


def panel_rows(
    view: dict[str, Any],
    seat: int,
    game_id: int,
    version: int,
    mode: int = MODE_MAIN,
    locale: object = None,
) -> list[list[ButtonSpec]]:
    """The panel's buttons for ``seat`` in ``mode``: at most 5 rows of at most 5 buttons."""
    phase = view["phase"]
    my_turn = phase == skipbo.PLAY and view["turn"] == seat
    hand = own_hand(view, seat)
    mate = partner_of(view, seat)
    nexts = _nexts(view)
    chosen = selection(view, seat, mode)
    ending = my_turn and chosen is None and mode == MODE_END and bool(hand)

    def cid(act: str, arg: int = 0) -> str:
        return encode(PREFIX, game_id, version, act, arg)

    def card_button(card: int, label: str, custom_id: str, enabled: bool, picked: bool = False) -> ButtonSpec:
        style, emoji = band(card)
        if picked:
            label, style = f"▶ {label}", "success"
        return ButtonSpec(custom_id, label, style, not enabled, emoji, shape_mark(card), face(card))

    out: list[list[ButtonSpec]] = []

    # 1. The hand (its owner's panel only).
    row: list[ButtonSpec] = []
    for slot, (card, card_mode) in enumerate(zip(hand, _hand_modes(hand), strict=True)):
        if my_turn:
            picked = chosen is not None and chosen.mode == card_mode
            row.append(card_button(card, card_label(card), cid(MODE, card_mode), True, picked))
        else:
            row.append(card_button(card, card_label(card), cid(REFRESH, _RF_HAND + slot), False))
    if row:
        out.append(row)

    # 2. and 3. The stock and discard piles: the player's own, then the partner's.
    def source_row(owner: int, partner: bool) -> list[ButtonSpec]:
        line: list[ButtonSpec] = []
        size = view["stock_sizes"][owner]
        top = view["stock_tops"][owner] if size else None
        stock_mode = MODE_PARTNER_STOCK if partner else MODE_STOCK
        key = "skipbo.panel.partner_stock" if partner else "skipbo.panel.stock"
        empty_key = "skipbo.panel.partner_stock_empty" if partner else "skipbo.panel.stock_empty"
        if top is None:
            refresh = _RF_PARTNER_STOCK if partner else _RF_STOCK
            line.append(ButtonSpec(cid(REFRESH, refresh), t(empty_key, locale), "secondary", True))
        else:
            label = t(key, locale, value=card_label(top), left=size)
            enabled = my_turn and not ending and _fits(top, nexts)
            picked = chosen is not None and chosen.mode == stock_mode
            refresh = _RF_PARTNER_STOCK if partner else _RF_STOCK
            custom_id = cid(MODE, stock_mode) if enabled else cid(REFRESH, refresh)
            line.append(card_button(top, label, custom_id, enabled, picked))
        for i, pile in enumerate(view["discard_piles"][owner]):
            pile_mode = (MODE_PARTNER_DISCARD if partner else MODE_DISCARD) + i
            refresh = (_RF_PARTNER_DISCARD if partner else _RF_DISCARD) + i
            if not pile:
                key_empty = "skipbo.panel.partner_discard_empty" if partner else "skipbo.panel.discard_empty"
                line.append(
                    ButtonSpec(cid(REFRESH, refresh), t(key_empty, locale, number=i + 1), "secondary", True)
                )
                continue
            top = pile[-1]
            key_pile = "skipbo.panel.partner_discard" if partner else "skipbo.panel.discard"
            label = t(key_pile, locale, number=i + 1, value=card_label(top), depth=len(pile))
            enabled = my_turn and not ending and _fits(top, nexts)
            picked = chosen is not None and chosen.mode == pile_mode
            custom_id = cid(MODE, pile_mode) if enabled else cid(REFRESH, refresh)
            line.append(card_button(top, label, custom_id, enabled, picked))
        return line

    out.append(source_row(seat, False))
    if mate is not None:
        out.append(source_row(mate, True))

    # 4. The building piles: targets once a source is chosen, else just shown.
    row = []
    for slot, reached in enumerate(view["building_piles"]):
        shown = card_label(reached) if reached else "—"
        needed = reached + 1
        if chosen is not None and _fits(chosen.card, [needed]):
            act = ACT_OF_SOURCE[chosen.source]
            arg = play_arg(chosen.index, slot, chosen.card, needed)
            label = t("skipbo.panel.pile_target", locale, number=slot + 1, top=shown, value=needed)
            style, emoji = band(needed)
            row.append(
                ButtonSpec(cid(act, arg), label, style, False, emoji, shape_mark(needed), face(needed))
            )
        else:
            label = t("skipbo.panel.pile", locale, number=slot + 1, top=shown)
            shown_emoji = band(reached)[1] if reached else None
            mark = shape_mark(reached) if reached else None
            shown_face = face(reached) if reached else None
            row.append(
                ButtonSpec(
                    cid(REFRESH, _RF_BUILDING + slot), label, "secondary", True, shown_emoji, mark, shown_face
                )
            )
    out.append(row)

    # 5. Actions.
    actions: list[ButtonSpec] = []
    cancel = ButtonSpec(cid(MODE, MODE_MAIN), t("ui.panel.cancel", locale))
    refresh_button = ButtonSpec(cid(REFRESH, _RF_PANEL), t("ui.panel.refresh", locale))
    if chosen is not None and chosen.source == skipbo.HAND:
        for i, pile in enumerate(view["discard_piles"][seat]):
            label = t("skipbo.panel.discard_on", locale, number=i + 1, top=card_label(_top(pile)))
            actions.append(ButtonSpec(cid(DISCARD, discard_arg(i, chosen.card)), label, "secondary"))
        actions.append(cancel)
    elif chosen is not None or ending:
        actions.extend([cancel, refresh_button])
    elif my_turn:
        if hand:
            actions.append(ButtonSpec(cid(MODE, MODE_END), t("skipbo.panel.end_turn", locale), "danger"))
        else:
            actions.append(ButtonSpec(cid(END_TURN), t("skipbo.panel.end_turn", locale), "danger"))
        actions.append(refresh_button)
        if mode == MODE_MAIN:
            actions.append(ButtonSpec(cid(HINT), t("hints.button", locale)))
    elif phase == skipbo.ROUND_OVER:
        actions.extend(
            [ButtonSpec(cid(NEXT_ROUND), t("ui.panel.next_round", locale), "success"), refresh_button]
        )
    else:
        actions.append(refresh_button)
    out.append(actions)
    return out


_HINT_SOURCES: Final[dict[str, str]] = {
    skipbo.HAND: "hints.skipbo.hand",
    skipbo.STOCK: "hints.skipbo.stock",
    skipbo.DISCARD: "hints.skipbo.discard_pile",
    skipbo.PARTNER_STOCK: "hints.skipbo.partner_stock",
    skipbo.PARTNER_DISCARD: "hints.skipbo.partner_discard_pile",
}


def suggestion(view: dict[str, Any], seat: int, action: Any) -> tuple[str, dict[str, Any]] | None:
    """The computer player's move for ``seat`` as a one-line notice (message key, params), described
    from the action's fields only (the seat's view is enough); None for a move the panel does not
    suggest."""
    if isinstance(action, skipbo.Play):
        key = _HINT_SOURCES.get(action.source)
        if key is None:
            return None
        params = {"pile": action.pile + 1, "number": action.index + 1, "value": action.value}
        if action.card == skipbo.WILD:
            return f"{key}_wild", params
        return key, {**params, "card": action.card}
    if isinstance(action, skipbo.Discard):
        params = {"number": action.pile + 1}
        if action.card == skipbo.WILD:
            return "hints.skipbo.discard_wild", params
        return "hints.skipbo.discard", {**params, "card": action.card}
    if isinstance(action, skipbo.EndTurn):
        return "hints.skipbo.end_turn", {}
    return None


def panel_title(view: dict[str, Any], locale: object = None) -> str:
    """The first line of the panel message."""
    if view["options"].get("several_rounds"):
        return t("skipbo.panel.title_round", locale, round=view["round"])
    return t("skipbo.panel.title", locale)


def panel_hint(
    view: dict[str, Any], seat: int, names: Sequence[str], mode: int = MODE_MAIN, locale: object = None
) -> str:
    """What to do now, in words (or whom the player is waiting for); names as written."""
    phase = view["phase"]
    names = shown_names(names, locale)
    if phase == skipbo.PLAY:
        turn = view["turn"]
        if turn != seat:
            player = names[turn] if turn is not None and 0 <= turn < len(names) else "?"
            if turn == partner_of(view, seat):
                return t("skipbo.panel.hint.waiting_partner", locale, player=player)
            return t("skipbo.panel.hint.waiting", locale, player=player)
        hand = own_hand(view, seat)
        chosen = selection(view, seat, mode)
        nexts = _nexts(view)
        if chosen is None:
            if not hand:
                return t("skipbo.panel.hint.empty_hand", locale)
            if mode == MODE_END:
                return t("skipbo.panel.hint.end", locale)
            return t("skipbo.panel.hint.turn", locale)
        card = card_words(chosen.card, locale)
        if chosen.source == skipbo.HAND:
            if _fits(chosen.card, nexts):
                return t("skipbo.panel.hint.hand_card", locale, card=card)
            return t("skipbo.panel.hint.hand_card_stuck", locale, card=card)
        if chosen.card == skipbo.WILD:
            return t("skipbo.panel.hint.wild", locale)
        return t("skipbo.panel.hint.card", locale, card=card)
    if phase == skipbo.ROUND_OVER:
        return t("skipbo.panel.hint.round_over", locale, round=view["round"])
    return t("ui.panel.hint.game_over", locale)


def moves(view: dict[str, Any], seat: int | None) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, read from its own view (its hand is only in its own), as the
    panel's buttons encode them, in the order of the engine's ``legal_actions``: a play is ``{"act",
    "arg", "source", "index", "card", "pile", "value"}`` (the :class:`~bot.games.skipbo.engine.Play`
    it stands for), a discard ``{"act", "arg", "card", "pile"}``, End turn and Next round ``{"act",
    "arg": 0}``. The Activity's page offers exactly these; the service still validates each one.
    None, a spectator: no move."""
    if seat is None or not 0 <= seat < len(view["players"]):
        return []
    if view["phase"] == skipbo.ROUND_OVER:
        return [{"act": NEXT_ROUND, "arg": 0}]
    if view["phase"] != skipbo.PLAY or view["turn"] != seat:
        return []
    nexts = _nexts(view)
    hand = sorted(set(own_hand(view, seat)))
    sources = [(skipbo.HAND, 0, card) for card in hand]
    owners = [(seat, skipbo.STOCK, skipbo.DISCARD)]
    mate = partner_of(view, seat)
    if mate is not None:
        owners.append((mate, skipbo.PARTNER_STOCK, skipbo.PARTNER_DISCARD))
    for owner, stock, discard in owners:
        if view["stock_sizes"][owner]:
            sources.append((stock, 0, view["stock_tops"][owner]))
        sources.extend((discard, i, pile[-1]) for i, pile in enumerate(view["discard_piles"][owner]) if pile)
    out: list[dict[str, Any]] = []
    for source, index, card in sources:
        for pile, needed in enumerate(nexts):
            if card == skipbo.WILD or card == needed:
                out.append(
                    {
                        "act": ACT_OF_SOURCE[source],
                        "arg": play_arg(index, pile, card, needed),
                        "source": source,
                        "index": index,
                        "card": card,
                        "pile": pile,
                        "value": needed,
                    }
                )
    for card in hand:
        out.extend(
            {"act": DISCARD, "arg": discard_arg(pile, card), "card": card, "pile": pile}
            for pile in range(skipbo.DISCARD_PILES)
        )
    if not hand:
        out.append({"act": END_TURN, "arg": 0})
    return out
