"""The games the table knows: name -> game and custom_id prefix -> game.

The service, the presenter, timers, storage and the boards look a game up here and then use only
the :class:`~bot.games.base.Game` protocol; what each game brings is built from here: its ``/<game>``
commands (:mod:`cogs.games`), its leaderboard buttons (:mod:`bot.ui.boards`), its strings
(:mod:`bot.i18n`), its bench (``python -m bench``). A new game is one folder under ``bot/games/`` and
one line in ``GAMES``; a test adds a game of its own with one call, :func:`register`, for its duration.
"""

from __future__ import annotations

from bot import i18n
from bot.engine.errors import UnknownGameKind
from bot.games.base import Engine, Game, GameRules
from bot.games.skipbo import SKIPBO
from bot.games.skyjo import SKYJO

# The one list of games: a game's line here, its folder, and nothing else (a test holds it so).
GAMES: tuple[Game, ...] = (SKYJO, SKIPBO)
BY_KIND: dict[str, Game] = {g.name: g for g in GAMES}
BY_PREFIX: dict[str, Game] = {g.prefix: g for g in GAMES}
for _game in GAMES:
    if _game.strings is not None:
        i18n.add_folder(_game.strings)
AI_LEVELS = ("easy", "normal", "hard")  # every game has these three


def games() -> tuple[Game, ...]:
    """Every game known now, in order: ``GAMES`` and then those :func:`register` added."""
    return tuple(BY_KIND.values())


def find(kind: str) -> Game | None:
    """The game whose ``kind`` (its name, as stored with every game and lobby) this is, or None."""
    return BY_KIND.get(kind)


def whole(rules: GameRules) -> Game:
    """The whole game (its surfaces and tools too) of the rules a service holds (``Table.game``): the
    ui draws a table with it, the service never needs it."""
    return BY_KIND[rules.name]


def get_engine(kind: str) -> Engine:
    """The engine of a game kind; raises UnknownGameKind for anything else."""
    game = BY_KIND.get(kind) if isinstance(kind, str) else None
    if game is None:
        raise UnknownGameKind(kind=str(kind)[:40])
    return game.engine


def register(game: Game) -> None:
    """Add ``game`` (a test's own game, for example); its name and prefix must be new."""
    if game.name in BY_KIND or game.prefix in BY_PREFIX:
        raise ValueError(f"a game named {game.name!r} or with the prefix {game.prefix!r} exists")
    BY_KIND[game.name] = game
    BY_PREFIX[game.prefix] = game
    if game.strings is not None:
        i18n.add_folder(game.strings)


def unregister(game: Game) -> None:
    BY_KIND.pop(game.name, None)
    BY_PREFIX.pop(game.prefix, None)
    if game.strings is not None:
        i18n.remove_folder(game.strings)
