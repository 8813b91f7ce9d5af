"""Replays (issue 28 item 5): a finished game shown step by step from its stored action log.

``/<game> replay game:<id>`` answers privately (ephemeral) in the
asker's language. Step ``n`` is the game rebuilt by the engine from its seed, options and seats with
the first ``n`` actions of its log (step 0: the deal), shown as the table picture of the spectator's
view (``game.view(None)``: a face-down card stays hidden exactly as it was then) and a caption: step
n/N, the round, and what the n-th action did (the engine's events, told as the live table tells them:
events carry nothing hidden).

Seven buttons edit that private message in place, in two rows (Discord takes 5 buttons a row): by
steps, Start, Previous, Next, End of game; by rounds, Previous round, End of round, Next round.
Rounds are cut where the engine cuts them (issue 38):

- round r **starts** at its deal: step 0 for the first round, else the step whose action (Next round)
  dealt it, where the game's round number becomes r;
- round r **ends** at the step whose action scored it: the game enters its ``round_over`` phase, or is
  over (the last round); a game ended early (``/<game> end``) ends its last round at its last step.

*End of round* goes to the end of the round shown (off when the step shown is that end), *Next round*
to the start of the next round (off in the last round: it never runs past a round's end without
showing it, since the end of a round comes before the next deal), *End of game* to the last step.
*Start* goes to step 0 (the deal), *Previous round* to the start (the deal) of the round before the
one shown (off in the first round), the mirror of *Next round* (issue 47 item 10).
The caption counts the steps ("step 12 of 189", step 0 being the deal).

Each button's custom_id (``rpl:<game id>:<step>:<letter>``, the letter only keeps the ids of a message
distinct when two buttons lead to the same step: ``p`` Previous, ``n`` Next, ``e`` End of round, ``r``
Next round, ``g`` End of game, and since issue 47 ``s`` Start and ``b`` Previous round; the forgery
check takes these seven letters, so the buttons of replays posted before still work) carries all a
click needs, nothing is kept in memory: they work after a restart. Each click reads the game
again and checks it as the command does: only a finished game of the clicker's server is shown
(another server's, or an unknown id, gets the same refusal, so ids of other servers are not revealed).
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.games import registry
from bot.i18n import translate as t
from bot.render import messages
from bot.render.images import picture_labels
from bot.render.names import ComputerName, computer_name, shown_names
from bot.service.ledger import GameLedger
from bot.storage import GameNotFound, GameQuarantined, StoredAction, StoredGame
from bot.ui import display
from bot.ui.views import ButtonsView, LayoutPayload

# The bot (bot.client.SkyboBot) is typed Any: bot/ui never imports bot/client.py (see bot/ui/host.py).

log = logging.getLogger(__name__)

PREFIX = "rpl:"
IMAGE = "replay.png"
# The letters of the buttons (see the module docstring); a posted replay's ids keep working, so a letter
# is only ever added, never taken back or reused.
LETTERS = "pnergsb"
BUTTON_ID = re.compile(rf"rpl:(\d{{1,19}}):(\d{{1,7}}):([{LETTERS}])")
_GAME = re.compile(r"\s*#?\s*(\d{1,19})\s*")
FINISHED = "finished"
ROUND_OVER = "round_over"  # the phase of every game's engine between a round's scoring and the next deal


@dataclass(frozen=True)
class Frame:
    """The game at one step of its log: what the replay message shows."""

    step: int  # actions applied (0: the deal)
    total: int  # actions in the log
    round: int
    view: dict[str, Any]  # the spectator's view at that step
    events: list[dict[str, Any]]  # what the step's action did (step 0: the opening)
    round_end: int  # the step where the round shown ends (see the module docstring)
    next_round: int | None  # the step where the next round starts (its deal); None in the last round
    previous_round: int | None = None  # where the round before starts (its deal); None in the first


def parse_game_id(text: str) -> int | None:
    """The game id of ``12`` or ``#12`` (as the footer and /history write it), else None."""
    match = _GAME.fullmatch(text)
    return int(match.group(1)) if match else None


def parse_button(custom_id: str) -> tuple[int, int] | None:
    """(game id, step) of a replay button, or None when malformed."""
    match = BUTTON_ID.fullmatch(custom_id)
    return (int(match.group(1)), int(match.group(2))) if match else None


def button_id(game_id: int, step: int, which: str) -> str:
    return f"{PREFIX}{game_id}:{step}:{which}"


def frame_at(stored: StoredGame, actions: Sequence[StoredAction], step: int) -> Frame:
    """Rebuild the game at ``step`` (clamped to 0..N) by the engine, as storage's replay does."""
    game = registry.BY_KIND[stored.kind]
    engine = game.engine
    options = engine.Options.from_dict(stored.options)
    state = engine.State.new([s.engine_name for s in stored.seats], stored.seed, options)
    total = len(actions)
    step = max(0, min(step, total))
    view: dict[str, Any] = state.view(None)
    events: list[dict[str, Any]] = [game.opening_event(state)]
    shown_round = int(getattr(state, "round", 1))
    starts = {shown_round: 0}  # each round's first step (its deal), up to the step shown
    round_end: int | None = None
    next_round: int | None = None
    for n, action in enumerate(actions, start=1):
        applied = state.apply(action.seat, engine.action_from_dict(action.action))
        if n <= step:
            starts.setdefault(int(getattr(state, "round", 1)), n)
        if n == step:
            view = state.view(None)
            events = [e.to_dict() for e in applied]
            shown_round = int(getattr(state, "round", 1))
        if n < step:
            continue
        if int(getattr(state, "round", 1)) > shown_round:
            next_round = n
            break
        if round_end is None and (state.is_over or getattr(state, "phase", None) == ROUND_OVER):
            round_end = n
    return Frame(
        step,
        total,
        shown_round,
        view,
        events,
        total if round_end is None else round_end,
        next_round,
        starts.get(shown_round - 1),
    )


def seat_names(stored: StoredGame, locale: object) -> list[str]:
    """Seat names as the table says them: a computer's in ``locale`` (not yet escaped)."""
    names: list[str] = []
    computers = 0
    for seat in stored.seats:
        if seat.ai_level is None:
            names.append(seat.display_name)
        else:
            computers += 1
            # A ComputerName, so that the picture draws its level on a second line, as the table's.
            names.append(
                ComputerName(computers, seat.ai_level, computer_name(computers, seat.ai_level, locale))
            )
    return names


def caption(stored: StoredGame, frame: Frame, names: Sequence[str], locale: object) -> str:
    """Step n/N, the round, and what that step did, in ``locale``."""
    game = registry.BY_KIND[stored.kind]
    describe = game.describe_events
    lines = describe(frame.events, shown_names(names, locale), locale) if describe else []
    head = t(
        "replay.caption",
        locale,
        game=game.title,
        id=stored.id,
        step=frame.step,
        total=frame.total,
        round=frame.round,
    )
    if frame.step == 0 and not lines:  # the opening event tells the deal itself
        lines = [t("replay.deal", locale)]
    elif frame.step == frame.total:
        lines = [*lines, t("replay.end", locale)]
    turn = frame.view.get("turn")
    if frame.view.get("phase") == "play" and isinstance(turn, int) and 0 <= turn < len(names):
        # The picture has no header strip (the table's text says the round and who plays): said here.
        lines.append(t("replay.turn", locale, player=shown_names(names, locale)[turn]))
    return "\n".join([head, *lines])[:2000]


def buttons(stored: StoredGame, frame: Frame, locale: object) -> ButtonsView:
    def spec(label: str, step: int, which: str, disabled: bool) -> dict[str, Any]:
        return {
            "type": 2,
            "style": 2,
            "label": t(label, locale),
            "custom_id": button_id(stored.id, step, which),
            "disabled": disabled,
        }

    first, last = frame.step == 0, frame.step >= frame.total
    next_round, previous_round = frame.next_round, frame.previous_round
    steps = [
        spec("replay.start", 0, "s", first),
        spec("replay.previous", max(frame.step - 1, 0), "p", first),
        spec("replay.next", min(frame.step + 1, frame.total), "n", last),
        spec("replay.game_end", frame.total, "g", last),
    ]
    rounds = [
        spec("replay.previous_round", previous_round or 0, "b", previous_round is None),
        spec("replay.round_end", frame.round_end, "e", frame.round_end <= frame.step),
        spec("replay.next_round", frame.step if next_round is None else next_round, "r", next_round is None),
    ]
    return ButtonsView([steps, rounds])


async def _finished_game(bot: Any, interaction: discord.Interaction[Any], game_id: int) -> StoredGame | str:
    """The game if the asker may replay it, else the message key of the refusal."""
    storage = bot.storage
    assert storage is not None, "storage opens in setup_hook"
    try:
        stored: StoredGame = await GameLedger(storage).get_game(game_id)
    except (GameNotFound, GameQuarantined):
        return "replay.error.not_found"
    if interaction.guild_id is None or stored.guild_id != interaction.guild_id:
        return "replay.error.not_found"
    if stored.status == "active":
        return "replay.error.running"
    if stored.status != FINISHED or stored.kind not in registry.BY_KIND:
        return "replay.error.not_found"
    return stored


async def _picture(
    bot: Any, stored: StoredGame, frame: Frame, names: Sequence[str], locale: object, cards: str
) -> discord.File | None:
    """The spectator's table at that step, drawn off the event loop in the asker's ``cards`` look, or
    None (no picture, or it failed)."""
    image = registry.BY_KIND[stored.kind].image
    presenter = bot.presenter
    if image is None or not presenter.images:
        return None
    labels = picture_labels(stored.kind, image.DEFAULT_LABELS, locale)
    # A computer's name stays a ComputerName: the picture draws its level on a line of its own, as
    # on the live table.
    try:
        png = await presenter.pictures.draw(image.render_table, frame.view, names, "dark", labels, cards)
    except Exception:
        log.exception("replay picture failed", extra={"game_id": stored.id})
        return None
    return discord.File(io.BytesIO(png), filename=IMAGE)


async def _frame_message(
    bot: Any, stored: StoredGame, step: int, locale: object, user_id: int
) -> tuple[LayoutPayload, discord.File | None]:
    """Step ``step`` for ``user_id``: in their cards' look, and in words too if they chose the table
    as text (bot/ui/display.py)."""
    storage = bot.storage
    assert storage is not None, "storage opens in setup_hook"
    actions = await storage.games.actions(stored.id)
    frame = frame_at(stored, actions, step)
    names = seat_names(stored, locale)
    text = caption(stored, frame, names, locale)
    prefs = await display.own_prefs(bot.service, user_id)
    if prefs.table == display.TEXT:
        text = display.with_words(text, stored.kind, frame.view, names, locale)
    picture = await _picture(bot, stored, frame, names, locale, prefs.cards)
    return layout(text, buttons(stored, frame, locale), picture), picture


def layout(text: str, view: ButtonsView, picture: discord.File | None) -> LayoutPayload:
    """A step in the table's Components V2 look (issue 40): one container, the caption, the picture
    in a media gallery (uploaded with the message), the buttons."""
    children = [messages.text_display(text)]
    if picture is not None:
        children.append(messages.media_gallery(f"attachment://{IMAGE}"))
    children += view.to_components()
    return LayoutPayload([messages.container(children)])


async def refuse(interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
    """A private refusal in the asker's language; nothing changes."""
    text = t(key, interaction.locale, **params)
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


async def start(bot: Any, interaction: discord.Interaction[Any], kind: str, game: str) -> None:
    """``/<game> replay game:<id>``: step 0 of a finished game of this server, privately."""
    game_id = parse_game_id(game)
    if game_id is None:
        await refuse(interaction, "replay.error.malformed")
        return
    stored = await _finished_game(bot, interaction, game_id)
    if isinstance(stored, str):
        await refuse(interaction, stored)
        return
    if stored.kind != kind:  # a game of this server, of the other game: say which command shows it
        other = registry.BY_KIND[stored.kind]
        await refuse(interaction, "replay.error.other_game", id=game_id, game=other.title, kind=other.name)
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    view, picture = await _frame_message(bot, stored, 0, interaction.locale, interaction.user.id)
    await interaction.edit_original_response(
        content=None,
        view=view,
        attachments=[picture] if picture is not None else [],
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def click(bot: Any, interaction: discord.Interaction[Any], custom_id: str) -> None:
    """A replay button: that step, edited in place; a bad id gets a private refusal."""
    parsed = parse_button(custom_id)
    if parsed is None:
        await refuse(interaction, "replay.error.malformed")
        return
    stored = await _finished_game(bot, interaction, parsed[0])
    if isinstance(stored, str):
        await refuse(interaction, stored)
        return
    await interaction.response.defer()
    view, picture = await _frame_message(bot, stored, parsed[1], interaction.locale, interaction.user.id)
    await interaction.edit_original_response(
        content=None,
        view=view,
        attachments=[picture] if picture is not None else [],
        allowed_mentions=discord.AllowedMentions.none(),
    )


__all__ = [
    "BUTTON_ID",
    "IMAGE",
    "LETTERS",
    "PREFIX",
    "Frame",
    "button_id",
    "caption",
    "click",
    "frame_at",
    "parse_button",
    "parse_game_id",
    "seat_names",
    "start",
]
