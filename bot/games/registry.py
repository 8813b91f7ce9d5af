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
from bot.games.base import Engine, Game
from bot.games.skipbo import SKIPBO
from bot.games.skyjo import SKYJO

# The one list of games: a game's line here, its folder, and nothing else (a test holds it so).
GAMES: tuple[Game, ...] = (SKYJO, SKIPBO)
KINDS: dict[str, Game] = {g.name: g for g in GAMES}
BY_PREFIX: dict[str, Game] = {g.prefix: g for g in GAMES}
for _game in GAMES:
    if _game.strings is not None:
        i18n.add_folder(_game.strings)
AI_LEVELS = ("easy", "normal", "hard")  # every game has these three
GameKind = Game  # the name the shared code has used for a game


def games() -> tuple[Game, ...]:
    """Every game known now, in order: ``GAMES`` and then those :func:`register` added."""
    return tuple(KINDS.values())


def get_kind(name: str) -> Game | None:
    return KINDS.get(name)


def get_engine(kind: str) -> Engine:
    """The engine of a game kind; raises UnknownGameKind for anything else."""
    game = KINDS.get(kind) if isinstance(kind, str) else None
    if game is None:
        raise UnknownGameKind(kind=str(kind)[:40])
    return game.engine


def register(game: Game) -> None:
    """Add ``game`` (a test's own game, for example); its name and prefix must be new."""
    if game.name in KINDS or game.prefix in BY_PREFIX:
        raise ValueError(f"a game named {game.name!r} or with the prefix {game.prefix!r} exists")
    KINDS[game.name] = game
    BY_PREFIX[game.prefix] = game
    if game.strings is not None:
        i18n.add_folder(game.strings)


def unregister(game: Game) -> None:
    KINDS.pop(game.name, None)
    BY_PREFIX.pop(game.prefix, None)
    if game.strings is not None:
        i18n.remove_folder(game.strings)
