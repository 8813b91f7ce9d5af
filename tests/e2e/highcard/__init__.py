"""A third game, test-only ("highest card wins"): a new game needs only its folder and a command.
``HIGHCARD`` implements :class:`bot.games.base.Game`; ``HighCardCog`` is its ``/highcard new``."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games.base import Game, Panel, Picture, Policy, Rules, TableText
from cogs import tables

from . import engine, parts

if TYPE_CHECKING:
    from bot.client import SkyboBot


def _show(view: dict[str, Any], rng: random.Random) -> Any:
    return engine.Show()


class HighCard:
    name, title, prefix = engine.KIND, "Highest card", "hc"
    engine = engine
    levels: Mapping[str, Policy] = {"easy": _show, "normal": _show, "hard": _show}
    min_players, max_players = engine.MIN_PLAYERS, engine.MAX_PLAYERS
    default_options: Mapping[str, Any] | None = None
    option_ranges: Mapping[str, tuple[int, int]] = {}
    panel_button = "table.button.my_hand"
    lower_score_wins, scored = False, False
    panel: Panel = parts
    table: TableText = parts
    rules: Rules = parts
    image: Picture | None = None

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        return (game.phase, game.turn)

    def opening_event(self, game: Any) -> dict[str, Any]:
        return {"kind": "round_started", "round": 1}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        return []

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        return None

    def play(self, args: list[str]) -> int:
        return 2  # no terminal game: a table is all this test needs

    def simulate(self, args: list[str]) -> int:
        return 2


HIGHCARD: Game = HighCard()


class HighCardCog(commands.Cog):
    highcard = app_commands.Group(name="highcard", description="Highest card wins")

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @highcard.command(name="new", description="Open a table")
    async def new(self, interaction: discord.Interaction[Any], computers: int = 0) -> None:
        await tables.open_table(
            self.bot, interaction, engine.KIND, {}, computers=computers, level="normal", turn_limit=0
        )
