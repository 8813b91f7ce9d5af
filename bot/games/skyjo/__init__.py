"""Skyjo: its rules engine, computer players, private panel, table text, picture, rules summary, terminal
game, simulator and bench, and ``SKYJO``, the one object the shared table machinery knows it by."""

from bot.games.skyjo.game import SKYJO

__all__ = ["SKYJO"]
