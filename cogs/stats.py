"""``/leaderboard`` and ``/stats``: the rating boards and a player's card, read from storage.

- ``/leaderboard [game] [scope] [page] [computers]`` answers **publicly**, in the server's language
  (``interaction.guild_locale``): a board is something to show the channel. ``computers`` (``show`` /
  ``hide``) lists the computer players or leaves them out, people then ranked among people; by default
  the global board hides them (they play on every server and would crowd people out) and a server's
  board shows them. Its *Previous* / *Next* buttons (custom_id ``lb:<kind>:<server|global>:<page>``,
  plus ``:h`` for people only, see :mod:`bot.ui.boards`) are taken by this cog's route of the
  one router (:mod:`bot.ui.router`, which refuses forged ids), and page the board in place
  (``edit_message``) for whoever clicks. A page past the end shows the last page, under a line saying
  how many pages there are (never the last page silently in place of the one asked for). A malformed
  or forged id, or a ``server`` board clicked outside a server, gets a private refusal in the
  clicker's language.
- ``/stats [user] [scope]`` answers **privately** (ephemeral), in the asker's language
  (``interaction.locale``): it is a look-up, and the channel need not read everyone's numbers.
- Both default to this server's boards; outside a server (a DM) they show the global ones.
- Seasons (issue 41, :mod:`bot.service.seasons`): on a server whose season runs, ``/leaderboard`` shows
  that season's board; ``season:<name>`` an earlier one (the names are offered as you type),
  ``season:all`` the server's all-time board; the global board is all time only (a season named with
  it is refused). A season board's buttons carry ``s<season id>`` for the scope. ``/stats`` on a
  server adds the player's place and rating in each of its seasons.
- The rating they show is the shown rating of :mod:`bot.storage.ratings` (a win never lowers it, any
  other place never raises it); both cards' footers say so in the reader's language.

Every string comes from the catalogues (``lb.*``, ``stats.*``; command and option names from
``cmd.lb.*`` / ``cmd.stats.*``, translated by the tree's ``CatalogueTranslator``).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.games import registry
from bot.service import Refused
from bot.service.seasons import ALL_TIME
from bot.storage import Season
from bot.storage.ratings import user_key
from bot.storage.stats import StatsRepository
from bot.ui import boards, installs
from bot.ui import seasons as seasons_ui
from bot.ui.router import Route
from bot.ui.views import ButtonsView

if TYPE_CHECKING:
    from bot.client import SkyboBot

log = logging.getLogger(__name__)

BOARD_PREFIX = "lb:"  # the paging buttons' custom_id prefix (their format: bot.ui.boards.BOARD_ID)

# Every registered game (its name is the same in every language; a catalogue may still give one).
GAME_CHOICES = [
    app_commands.Choice(name=_(game.title, key=f"cmd.lb.choice.{game.name}"), value=game.name)
    for game in registry.GAMES
]
SCOPE_CHOICES = [
    app_commands.Choice(name=_("this server", key="cmd.lb.choice.server"), value="server"),
    app_commands.Choice(name=_("global (every server)", key="cmd.lb.choice.global"), value="global"),
]
COMPUTER_CHOICES = [
    app_commands.Choice(name=_("show", key="cmd.lb.choice.show"), value="show"),
    app_commands.Choice(name=_("hide", key="cmd.lb.choice.hide"), value="hide"),
]


def _computers(choice: str | None, scope: str) -> bool:
    """Whether the board lists computer players: as chosen, else hidden on the global board only."""
    if choice is None:
        return scope != "global"
    return choice != "hide"


def _scope(interaction: discord.Interaction[Any], scope: str) -> tuple[str, int | None]:
    """The scope actually shown and its guild id (None: global). Outside a server, always global."""
    if scope == "server" and interaction.guild_id is not None:
        return "server", interaction.guild_id
    return "global", None


def _public_locale(bot: SkyboBot, interaction: discord.Interaction[Any]) -> object:
    """The server's fixed public language (``/skybo settings``), else its own, else the asker's."""
    locale = interaction.guild_locale or interaction.locale
    return bot.service.public_locale(interaction.guild_id, locale)


def _board_here(interaction: discord.Interaction[Any], match: re.Match[str]) -> bool:
    """A server's board (or a season's) pages only inside a server (the router refuses it elsewhere
    as forged)."""
    return match["scope"] == "global" or interaction.guild_id is not None


def _view(buttons: list[dict[str, Any]]) -> ButtonsView:
    return ButtonsView([buttons] if buttons else [])


class StatsCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @property
    def stats(self) -> StatsRepository:
        storage = self.bot.storage
        assert storage is not None, "storage opens in setup_hook"
        return storage.stats

    async def _board(
        self,
        kind: str,
        scope: str,
        guild_id: int | None,
        page: int,
        locale: object,
        *,
        computers: bool,
        season: Season | None = None,
    ) -> Any:
        """The body of page ``page`` (from 1; past the end: the last page, saying so) of a board, with
        or without its computer players; ``season``: that season's board of the server."""
        storage = self.bot.storage
        assert storage is not None, "storage opens in setup_hook"
        ratings = storage.ratings
        size = boards.PER_PAGE
        where = None if season is None else season.scope
        if season is not None:
            scope = boards.season_board_scope(season.id)
        board = await ratings.leaderboard(
            kind, guild_id, page=page - 1, per_page=size, computers=computers, scope=where
        )
        past_end = not board.rows and board.total > 0
        if past_end:
            board = await ratings.leaderboard(
                kind, guild_id, page=board.pages - 1, per_page=size, computers=computers, scope=where
            )
        return boards.leaderboard_body(
            board,
            scope,
            locale,
            computers=computers,
            past_end=past_end,
            where=None if season is None else seasons_ui.season_where(season, locale),
        )

    # ------------------------------------------------------------------ /leaderboard

    @app_commands.command(
        name=_("leaderboard", key="cmd.lb.name"),
        description=_("Show a game's rating leaderboard", key="cmd.lb.description"),
    )
    @installs.anywhere
    @app_commands.rename(
        game=_("game", key="cmd.lb.opt.game"),
        scope=_("scope", key="cmd.lb.opt.scope"),
        page=_("page", key="cmd.lb.opt.page"),
        computers=_("computers", key="cmd.lb.opt.computers"),
        season=_("season", key="cmd.lb.opt.season"),
    )
    @app_commands.describe(
        game=_("Which game (the first of the list)", key="cmd.lb.opt.game.description"),
        scope=_("This server's board or the global one (this server)", key="cmd.lb.opt.scope.description"),
        page=_("The page to show (1)", key="cmd.lb.opt.page.description"),
        computers=_(
            "List computer players (global board: hide; this server: show)",
            key="cmd.lb.opt.computers.description",
        ),
        season=_(
            "A season by name, or all (this server's running season)", key="cmd.lb.opt.season.description"
        ),
    )
    @app_commands.choices(game=GAME_CHOICES, scope=SCOPE_CHOICES, computers=COMPUTER_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: str = registry.GAMES[0].name,
        scope: str = "server",
        page: app_commands.Range[int, 1, boards.MAX_PAGE] = 1,
        computers: str | None = None,
        season: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        shown, guild_id = _scope(interaction, scope)
        listed = _computers(computers, shown)
        if shown == "global" and season is not None and season.strip().casefold() != ALL_TIME:
            raise Refused("season.error.global", word=ALL_TIME)
        chosen = await self.bot.service.board_season(guild_id, season) if shown == "server" else None
        body = await self._board(
            game,
            shown,
            guild_id,
            page,
            _public_locale(self.bot, interaction),
            computers=listed,
            season=chosen,
        )
        await interaction.response.send_message(
            embed=discord.Embed.from_dict(body.embed or {}),
            view=_view(body.extra["buttons"]),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @leaderboard.autocomplete("season")
    async def _season_names(self, interaction: discord.Interaction[Any], current: str) -> list[Any]:
        seasons = await self.bot.service.seasons_of(interaction.guild_id)
        names = seasons_ui.matching_names(seasons, current)[:24]
        if ALL_TIME.startswith(current.casefold().strip()):
            names.append(ALL_TIME)
        return [app_commands.Choice(name=n, value=n) for n in names]

    # ------------------------------------------------------------------ the paging buttons

    async def cog_load(self) -> None:
        self.bot.router.add(
            Route(
                BOARD_PREFIX,
                boards.BOARD_ID,
                self.on_board_click,
                forged_key="lb.error.forged",
                accepts=_board_here,
            )
        )

    async def cog_unload(self) -> None:
        self.bot.router.remove(BOARD_PREFIX)

    async def on_board_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """Previous / Next on a board (checked by the router): show that page in place."""
        parsed = boards.parse_board_id(custom_id)
        assert parsed is not None, "the router checked the id against boards.BOARD_ID"
        guild_id = interaction.guild_id if parsed.scope != "global" else None
        season = None
        if parsed.scope.startswith("s") and parsed.scope != "server":  # a season's board: this server's
            season = await self.bot.service.season_by_id(guild_id, int(parsed.scope[1:]))
            if season is None:
                raise Refused("lb.error.forged")
        body = await self._board(
            parsed.kind,
            parsed.scope,
            guild_id,
            parsed.page,
            _public_locale(self.bot, interaction),
            computers=parsed.computers,
            season=season,
        )
        await interaction.response.edit_message(
            embed=discord.Embed.from_dict(body.embed or {}),
            view=_view(body.extra["buttons"]),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    # ------------------------------------------------------------------ /stats

    @app_commands.command(
        name=_("stats", key="cmd.stats.name"),
        description=_("Show a player's games, wins, rating and trend", key="cmd.stats.description"),
    )
    @installs.anywhere
    @app_commands.rename(
        user=_("user", key="cmd.stats.opt.user"),
        scope=_("scope", key="cmd.stats.opt.scope"),
    )
    @app_commands.describe(
        user=_("Whose stats (you)", key="cmd.stats.opt.user.description"),
        scope=_("This server's games or every server's (this server)", key="cmd.stats.opt.scope.description"),
    )
    @app_commands.choices(scope=SCOPE_CHOICES)
    async def stats_command(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        scope: str = "server",
    ) -> None:
        who = user or interaction.user
        shown, guild_id = _scope(interaction, scope)
        overviews = await self.stats.overview(
            user_key(who.id), guild_id, kinds=boards.CARD_GAMES, lower_wins=boards.LOWER_WINS
        )
        name = getattr(who, "display_name", None) or who.name  # escaped by stats_body
        body = boards.stats_body(name, overviews, shown, interaction.locale)
        if shown == "server" and body.embed is not None:  # their place in each season of this server
            seasons = await self.bot.service.seasons_of(guild_id)
            if seasons:
                storage = self.bot.storage
                assert storage is not None, "storage opens in setup_hook"
                rows = await storage.ratings.player_stats(user_key(who.id))
                field = seasons_ui.stats_seasons_field(seasons, rows, interaction.locale)
                fields = body.embed.setdefault("fields", [])
                if field is not None and len(fields) < boards.MAX_FIELDS:
                    fields.append(field)
        await interaction.response.send_message(
            embed=discord.Embed.from_dict(body.embed or {}),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(StatsCog(bot))


__all__ = ["StatsCog", "setup"]
