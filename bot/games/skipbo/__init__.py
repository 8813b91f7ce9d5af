"""Skip-Bo: its rules engine, computer players, private panel, table text, picture, rules summary,
terminal game, simulator and bench, and ``SKIPBO``, the one object the shared table machinery knows it by."""

from bot.games.skipbo.game import SKIPBO

__all__ = ["SKIPBO"]
