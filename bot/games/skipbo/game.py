"""Skip-Bo as the shared table machinery sees it (the :class:`bot.games.base.Game` protocol)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games.base import JSON, Panel, Picture, Policy, Rules, TableText
from bot.games.skipbo import ai, engine

STOCK_LEFT = "stock_left"  # the rated stats' counter: the cards left in a seat's stock, summed over rounds


class SkipBo:
    name = engine.KIND
    title = "Skip-Bo"
    prefix = "sb"
    engine = engine
    levels: Mapping[str, Policy] = ai.LEVELS
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS
    default_options: Mapping[str, Any] | None = None
    # Omitted, stock_size is the official size (SB-SETUP-1); given, 5 to 30 (SB-VAR-FAST-1).
    option_ranges: Mapping[str, tuple[int, int]] = {"stock_size": (5, 30)}
    panel_button = "table.button.my_hand"
    lower_score_wins = False
    # A Skip-Bo game is most often one round, scored 0 for everybody (points exist only with several
    # rounds): "best 0, mean 0.0" would say nothing, so its card shows the stock cards left instead.
    scored = False

    # The Discord-facing parts are imported on first use: the engine-only tools never load them.
    @property
    def panel(self) -> Panel:
        from bot.games.skipbo import panel

        return panel

    @property
    def table(self) -> TableText:
        from bot.games.skipbo import table

        return table

    @property
    def rules(self) -> Rules:
        from bot.games.skipbo import rules

        return rules

    @property
    def image(self) -> Picture:
        from bot.games.skipbo import image

        return image

    def stale_key(self, game: Any) -> tuple[Any, ...]:
        """The phase, round and turn (a play by the player whose turn it is changes only their own
        panel, which their own click marks stale anyway)."""
        return (game.phase, game.round, game.turn, None)

    def opening_event(self, game: Any) -> JSON:
        return {"kind": "round_started", "round": game.round}

    def stats_lines(self, stats: Mapping[str, float], rounds: int, locale: object) -> list[str]:
        """The stock cards left at the end of a round, on average (a Skip-Bo game is most often one
        round, scored 0 for everybody, so its scores say nothing)."""
        if STOCK_LEFT not in stats or not rounds:
            return []
        from bot.i18n import translate as t
        from bot.render.numbers import number

        return [t("stats.skipbo.stock_left", locale, mean=number(int(stats[STOCK_LEFT]) / rounds, locale))]

    def sides(self, options: Mapping[str, Any], players: int) -> list[int] | None:
        """SB-VAR-TEAM-1: with the teams option, partners are one side (a team wins or loses whole)."""
        return engine.team_numbers(bool(options.get("teams")), players)

    def play(self, args: list[str]) -> int:
        from bot.games.skipbo import play

        return int(play.main(args) or 0)

    def simulate(self, args: list[str]) -> int:
        from bot.games.skipbo import sim

        return int(sim.main(args) or 0)


SKIPBO = SkipBo()
