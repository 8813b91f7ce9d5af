"""What the shared table machinery needs from a game: the :class:`Game` protocol and its parts.

The service, the presenter, timers, storage, the boards, the simulator and the bench are written once
and know a game only through this protocol; each game folder (``bot/games/<game>/``) exports one object
implementing it, and :mod:`bot.games.registry` maps names and custom_id prefixes to those objects.

The parts a Discord table needs (panel, table message, rules, picture, words) are
:class:`Part` attributes that import the game's modules on first use, so the engine-only tools
(simulator, terminal games) never load them. Nothing here imports discord. Everything a game has of
its own is reached through this protocol (no ``getattr`` for an optional part: it is typed, None when
the game has none), and no module outside the game's folder names a game (``tests/unit/test_games_named.py``).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast, overload

from bot.games.new_table import NewTable

if TYPE_CHECKING:
    from bot.render.messages import MessageBody

JSON = dict[str, Any]
# A computer player: ``decide(view, rng) -> action`` for the seat named by ``view["viewer"]``.
Policy = Callable[[JSON, random.Random], Any]
# The whole table in plain words from one seat's view: ``words(view, names, locale, brief)``, names
# already made safe; ``brief`` when the full text is too long (bot.ui.in_words fits and cuts it).
Words = Callable[[JSON, Sequence[str], object, bool], str]
# The hint button's notice: ``suggestion(view, seat, action) -> (message key, params)`` describing the
# normal computer player's move for the seat, or None for a move the panel does not suggest.
Suggestion = Callable[[JSON, int, Any], "tuple[str, JSON] | None"]
# What some events did, one line each: ``describe(events, names, locale)`` (a replay's caption).
DescribeEvents = Callable[[Sequence[JSON], Sequence[str], object], list[str]]
# The card faces as application emojis: ``card_faces(look) -> {face: 128 px PNG}`` for each look of
# the cards (bot.render.images.CARD_THEMES); a face's key is short ``[a-z0-9]`` (``ButtonSpec.face``).
CardFaces = Callable[[str], Mapping[str, bytes]]


@dataclass(frozen=True, slots=True)
class ButtonSpec:
    """One button of a private panel, as data: the Discord layer turns it into a button."""

    custom_id: str
    label: str
    style: str = "secondary"  # primary, secondary, success, danger
    disabled: bool = False
    emoji: str | None = None
    # A card's shape (bot.render.images.SHAPE_MARKS) for a player who chose the colour-blind cards:
    # their panel shows it before the label instead of the colour ``emoji`` (bot/ui/display.py).
    mark: str | None = None
    # The card the button shows (a key of the game's ``card_faces``): with the card emojis synced, the
    # button shows that face's emoji in its reader's look (bot/ui/card_emojis.py). A face-down card
    # names the game's card back, the same for every face-down card: never its value.
    face: str | None = None
    # A card of a grid that must line up in columns: it shows ONE thing, its card emoji alone
    # when the application has it (no label), else its short label alone (no emoji), so that every
    # button of the grid is Discord's narrowest (60 px, its content under 28 px) whatever it shows.
    alone: bool = False


class Engine(Protocol):
    """A rules engine module (pure: no discord, no asyncio, no I/O; see :mod:`bot.engine`)."""

    @property
    def KIND(self) -> str: ...  # the game's name, stored with each game and lobby
    @property
    def MIN_PLAYERS(self) -> int: ...
    @property
    def MAX_PLAYERS(self) -> int: ...
    @property
    def Options(self) -> type[Any]: ...  # frozen dataclass: to_dict(), from_dict(), validate(players)
    @property
    def State(self) -> type[Any]: ...  # State.new(players, seed, options), State.from_dict(d)
    @property
    def NextRound(self) -> type[Any]: ...  # the action that deals the next round
    @property
    def __file__(self) -> str | None: ...  # its source: a change makes storage verify snapshots

    def action_from_dict(self, data: Any, /) -> Any: ...

    def replay(self, players: Sequence[str], seed: int, options: Any, actions: Any, /) -> Any: ...


class Moves(Protocol):
    """What a click or a page's move means to the rules: the acts a game's buttons carry and the
    action each stands for. The service decodes every click with it, and the Activity's page offers
    exactly its moves; it is read from the panel module, pure data (no Discord)."""

    @property
    def MODES(self) -> frozenset[int]: ...  # the panel modes a custom_id may carry
    @property
    def GAME_ACTS(self) -> Iterable[str]: ...  # the acts that change the game (the rest: panel-only)

    def action_for(self, act: str, arg: int, /) -> Any: ...  # None for a panel-only click

    # The moves ``seat`` (None: a spectator) may make now, read from its own view, each as the panel's
    # buttons encode it (``{"act", "arg", ...}``, ``action_for`` reads it back): the Activity's page
    # offers exactly these (docs/activity.md).
    def moves(self, view: JSON, seat: int | None, /) -> list[JSON]: ...


class Panel(Moves, Protocol):
    """A game's private panel as button specifications (pure data), over its :class:`Moves`."""

    def panel_rows(
        self, view: JSON, seat: int, game_id: int, version: int, mode: int = ..., locale: object = ..., /
    ) -> list[list[ButtonSpec]]: ...

    def panel_title(self, view: JSON, locale: object = ..., /) -> str: ...

    def panel_hint(
        self, view: JSON, seat: int, names: Sequence[str], mode: int = ..., locale: object = ..., /
    ) -> str: ...


class TableMessage(Protocol):
    """A game's public table message and lobby settings in words (see :mod:`bot.render.messages`)."""

    def table_body(
        self,
        view: JSON,
        names: Sequence[str],
        *,
        locale: object,
        recent: Iterable[tuple[int, list[JSON]]] = ...,
        replaced: Iterable[int] = ...,
        waiting_round: Sequence[int] = ...,
        resumed: bool = ...,
        ended_by: int | None = ...,
        image_url: str | None = ...,
    ) -> MessageBody: ...

    def option_lines(self, options: JSON, locale: object, /) -> list[str]: ...

    def turn_mention(self, user_id: int, locale: object, /) -> str: ...


class Rules(Protocol):
    def rules_text(self, options: Any, locale: object = ..., /) -> str: ...


class Picture(Protocol):
    """The table as a PNG; its few drawn words come from ``table.image.<game>.<key>`` messages."""

    @property
    def DEFAULT_LABELS(self) -> Mapping[str, str]: ...

    def render_table(
        self,
        view: Mapping[str, Any],
        names: Sequence[str] | None = ...,
        theme: str = ...,
        labels: Mapping[str, str] | None = ...,
        cards: str = ...,  # "classic" or "colourblind" (bot.render.images.CARD_THEMES)
        /,
    ) -> bytes: ...


T = TypeVar("T")


class Part(Generic[T]):
    """A part of a game, imported on first use: ``panel: Part[Panel] = Part(f"{__package__}.panel")``
    is the game's ``panel`` module, ``Part(f"{__package__}.words", "words")`` that module's ``words``.
    The engine-only tools (simulator, terminal games, engine benches) so never load the Discord side."""

    def __init__(self, module: str, name: str | None = None) -> None:
        self.module, self.name = module, name

    @overload
    def __get__(self, game: None, owner: type) -> Part[T]: ...
    @overload
    def __get__(self, game: object, owner: type) -> T: ...
    def __get__(self, game: object | None, owner: type) -> Part[T] | T:
        if game is None:
            return self
        module = importlib.import_module(self.module)
        return cast(T, module if self.name is None else getattr(module, self.name))


class GameRules(Protocol):
    """A game as its rules: what the service, storage's side and tournaments need (its engine, its
    options, its computer players, its moves, its standing). No surface, no tool: a game seen by the
    service alone needs nothing else. ``suggestion`` is None for a game without a hint button."""

    @property
    def name(self) -> str: ...  # the engine's KIND, stored with each game and lobby
    @property
    def title(self) -> str: ...  # the game's name as players write it (the same in every language)
    @property
    def engine(self) -> Engine: ...
    @property
    def levels(self) -> Mapping[str, Policy]: ...  # computer player level -> policy
    @property
    def min_players(self) -> int: ...
    @property
    def max_players(self) -> int: ...
    @property
    def option_ranges(self) -> Mapping[str, tuple[int, int]]: ...  # its ``new``'s integer bounds
    @property
    def new(self) -> NewTable: ...  # its ``/<game> new`` as data (cogs.games builds the command)
    @property
    def lower_score_wins(self) -> bool: ...  # a round's best score is the lowest (boards, stats)
    @property
    def scored(self) -> bool: ...  # round scores and final totals mean something on a stats card
    @property
    def moves(self) -> Moves: ...  # what a click means (read from the panel module)
    @property
    def suggestion(self) -> Suggestion | None: ...

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """What, when it changes, makes every open panel of this game out of date."""
        ...

    def opening_event(self, game: Any) -> JSON:
        """The first line of a new table's recent events."""
        ...

    def standing(self, game: Any) -> list[int]:
        """Each seat's rank (1 = best, ties equal) in the engine's state ``game`` as it stands: what
        a game stopped before its end comes to (a tournament's table ended by hand), the final ranks
        once it is over. Pure, and decided by nothing hidden from the players."""
        ...

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        """The side (team number) of each seat of a game with these stored ``options``, or None when
        every player plays for themself: a place is a side's place (:func:`bot.games.places.places`)."""
        ...


class GameSurfaces(Protocol):
    """A game as players see it: its panel, public message, picture, words, rules summary, strings
    and card faces (each imported on first use, :class:`Part`). The optional ones are None for a game
    without them: ``image`` (no picture), ``words`` (no table in words: the panel says so),
    ``describe_events`` (a replay's caption names no move), ``strings`` (every word in the shared
    catalogues), ``card_faces`` (no card emojis: its panel's buttons keep their coloured squares)."""

    @property
    def prefix(self) -> str: ...  # the custom_id prefix of its in-game buttons (two letters)
    @property
    def panel_button(self) -> str: ...  # message key of the table's "open my panel" button
    @property
    def panel(self) -> Panel: ...
    @property
    def message(self) -> TableMessage: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def image(self) -> Picture | None: ...
    @property
    def strings(self) -> Path | None: ...  # its own catalogues, ``<language>/*.json`` (bot.i18n)
    @property
    def words(self) -> Words | None: ...
    @property
    def describe_events(self) -> DescribeEvents | None: ...
    @property
    def card_faces(self) -> CardFaces | None: ...  # ``python -m bot sync``: its cards as emojis

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        """The game's own lines on a player's stats card (beyond games, wins and rating)."""
        ...


class GameTools(Protocol):
    """A game's tools beside the bot: its terminal game, its simulator and its engine bench (None: a
    game with nothing for ``python -m bench``)."""

    @property
    def bench(self) -> Callable[[], None] | None: ...  # ``python -m bench <game>``: its engine bench

    def play(self, args: list[str]) -> int:
        """``python -m bot play <game> ARGS``: the game in the terminal."""
        ...

    def simulate(self, args: list[str]) -> int:
        """``python -m bot simulate <game> ARGS``: computer players against each other."""
        ...


class Game(GameRules, GameSurfaces, GameTools, Protocol):
    """One game as the whole bot sees it: its rules, its surfaces and its tools, three small protocols
    (the models we follow keep the rules apart from the board and the tools). Code that needs only one
    of them names that one: the service holds a :class:`GameRules`."""


def seat_limit(game: GameRules, options: Mapping[str, Any]) -> tuple[int, Any]:
    """The most players a table of ``game`` with these stored ``options`` seats, and the engine's
    reason (a :class:`bot.engine.errors.GameError`) one more is refused, or None when the limit is the
    game's own. Options may narrow the table (a smaller edition, a large grid) and only the
    engine knows how, so this asks it: the largest count its ``validate`` accepts."""
    from bot.engine.errors import GameError

    settings = {k: v for k, v in options.items() if k != "turn_limit"}
    try:
        opts = game.engine.Options.from_dict(settings)
    except (GameError, TypeError):
        return game.max_players, None
    refused: Any = None  # why one player more than ``players`` is refused
    for players in range(game.max_players, game.min_players - 1, -1):
        try:
            opts.validate(players)
        except GameError as error:
            refused = error
            continue
        return players, refused
    return game.max_players, None


def seat_counts(game: GameRules, options: Mapping[str, Any]) -> list[int]:
    """Every number of players a table of ``game`` with these engine ``options`` can be dealt for, from
    the engine's ``validate``: a lobby says them when they are not a plain range (teams of two: 4
    or 6), and Start refuses another count with the engine's reason."""
    from bot.engine.errors import GameError

    try:
        opts = game.engine.Options.from_dict(dict(options))
    except (GameError, TypeError):
        return list(range(game.min_players, game.max_players + 1))
    counts = []
    for players in range(game.min_players, game.max_players + 1):
        try:
            opts.validate(players)
        except GameError:
            continue
        counts.append(players)
    return counts
