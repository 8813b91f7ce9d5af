"""``/skybo tournament new|drop|pause|resume|standings|cancel`` and the sign-up buttons' route (issue 41).

The subcommands are a group added under ``/skybo`` (the settings cog's group, loaded before this one).
Creating a tournament needs Manage Server or the role the server's admins named (``/skybo settings
tournament_role``; checked here: ``/skybo`` is for everyone, the one check being
:func:`bot.ui.tournaments.may_organise`); the other subcommands are for its organiser or anyone who may
organise, used in the tournament's channel
or in one of its tables' threads. Every refusal is private with its reason (the one funnel,
``bot/ui/errors.py``). What happens: :mod:`bot.service.tournaments`; the messages: :mod:`bot.ui.tournaments`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.games import registry
from bot.games.commands import TURN_LIMIT, TURN_LIMIT_CHOICES
from bot.i18n import translate as t
from bot.service import Refused
from bot.tournament import pairing
from bot.ui import tournaments
from bot.ui.router import Route

if TYPE_CHECKING:
    from bot.client import SkyboBot

GAME_CHOICES = [
    app_commands.Choice(name=_(game.title, key=f"cmd.lb.choice.{game.name}"), value=game.name)
    for game in registry.GAMES
]
FORMAT_CHOICES = [
    app_commands.Choice(name=_("Swiss", key="cmd.tournament.format.swiss"), value=pairing.SWISS),
    app_commands.Choice(name=_("knockout", key="cmd.tournament.format.knockout"), value=pairing.KNOCKOUT),
]
ON_OFF = [
    app_commands.Choice(name=_("on", key="cmd.tournament.on"), value="on"),
    app_commands.Choice(name=_("off", key="cmd.tournament.off"), value="off"),
]
_IN = re.compile(r"(?P<count>\d{1,5})\s*(?P<unit>m|min|h|d|j)?", re.IGNORECASE)
_STAMP = re.compile(r"(?:<t:)?(?P<seconds>\d{9,11})(?::[a-zA-Z])?>?")
_UNIT_MS = {"m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000, "j": 86_400_000}
MAX_AHEAD_MS = 30 * 86_400_000
NO_MENTIONS = discord.AllowedMentions.none()


def parse_start(text: str, now_ms: int) -> int:
    """``starts:`` as ms since the epoch: minutes from now (``30``, ``90m``), hours (``2h``), days
    (``1d``), or a Unix time in seconds (``1767225600``, or Discord's ``<t:1767225600:R>``); within 30
    days. Refused (``tournament.bad.starts``, or ``.past``) otherwise."""
    text = text.strip()
    stamp = _STAMP.fullmatch(text)
    if stamp is not None:
        when = int(stamp["seconds"]) * 1000
    else:
        relative = _IN.fullmatch(text)
        if relative is None:
            raise Refused("tournament.bad.starts")
        when = now_ms + int(relative["count"]) * _UNIT_MS[(relative["unit"] or "m").lower()]
    if when <= now_ms:
        raise Refused("tournament.bad.past")
    if when > now_ms + MAX_AHEAD_MS:
        raise Refused("tournament.bad.starts")
    return when


def _bot(interaction: discord.Interaction[Any]) -> SkyboBot:
    return cast("SkyboBot", interaction.client)  # the bot that loaded this extension


async def _answer(interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
    await interaction.response.send_message(
        t(key, interaction.locale, **params), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
    )


def _manager(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server, or the server's tournament role: :func:`bot.ui.tournaments.may_organise`."""
    return tournaments.may_organise(_bot(interaction), interaction)


class TournamentCommands(app_commands.Group):
    """``/skybo tournament ...``."""

    @app_commands.command(
        name=_("new", key="cmd.tournament.new.name"),
        description=_(
            "Open a tournament's sign-ups in this channel (server managers)",
            key="cmd.tournament.new.description",
        ),
    )
    @app_commands.rename(
        game=_("game", key="cmd.tournament.opt.game"),
        format=_("format", key="cmd.tournament.opt.format"),
        seats=_("seats", key="cmd.tournament.opt.seats"),
        rounds=_("rounds", key="cmd.tournament.opt.rounds"),
        turn_limit=TURN_LIMIT,
        starts=_("starts", key="cmd.tournament.opt.starts"),
        computers=_("computers", key="cmd.tournament.opt.computers"),
        rated=_("rated", key="cmd.tournament.opt.rated"),
    )
    @app_commands.describe(
        game=_("The game every table plays", key="cmd.tournament.game"),
        format=_("Swiss (everyone plays every round) or knockout (the best of each table goes on)",
                 key="cmd.tournament.format"),
        seats=_("The most players at a table, 2 to 8", key="cmd.tournament.seats"),
        rounds=_("How many rounds", key="cmd.tournament.rounds"),
        turn_limit=_("The turn limit of every table", key="cmd.tournament.turn_limit"),
        starts=_("When it starts: minutes from now (30), hours (2h), days (1d) or a Unix time",
                 key="cmd.tournament.starts"),
        computers=_("Computer players fill the tables' empty seats (off by default)",
                    key="cmd.tournament.computers"),
        rated=_("The tables' games are rated (on by default)", key="cmd.tournament.rated"),
    )  # fmt: skip
    @app_commands.choices(game=GAME_CHOICES, format=FORMAT_CHOICES)
    @app_commands.choices(turn_limit=TURN_LIMIT_CHOICES)
    @app_commands.choices(computers=ON_OFF, rated=ON_OFF)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        format: str,
        seats: int,
        rounds: int,
        turn_limit: int | None = None,
        starts: str | None = None,
        computers: str | None = None,
        rated: str | None = None,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refused("tournament.error.guild_only")
        if not _manager(interaction):
            raise Refused("tournament.error.not_admin")
        bot = _bot(interaction)
        service = bot.service
        starts_at = None if starts is None else parse_start(starts, service.clock.now_ms())
        made = await service.tournament_new(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            organiser_id=interaction.user.id, kind=game, form=format, seats=seats, rounds=rounds,
            turn_limit=turn_limit, starts_at=starts_at, rated=rated != "off", computers=computers == "on",
        )  # fmt: skip
        view = await service.tournament_view(made.id)
        guild = interaction.guild
        locale = service.public_locale(made.guild_id, guild.preferred_locale if guild is not None else None)
        await interaction.response.send_message(
            view=tournaments.signup_layout(view, locale), allowed_mentions=discord.AllowedMentions.none()
        )
        message = await interaction.original_response()
        await service.set_tournament_messages(made, signup_message_id=message.id)

    @app_commands.command(
        name=_("drop", key="cmd.tournament.drop.name"),
        description=_(
            "Drop a player from this channel's tournament (its organiser)",
            key="cmd.tournament.drop.description",
        ),
    )
    @app_commands.rename(player=_("player", key="cmd.tournament.opt.player"))
    @app_commands.describe(player=_("The player to drop", key="cmd.tournament.player"))
    async def drop(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        service = _bot(interaction).service
        held = await service.tournament_in_channel(interaction.channel_id or 0)
        await service.tournament_drop(
            held.id, interaction.user.id, player.id, can_manage=_manager(interaction)
        )
        await _answer(interaction, "tournament.dropped", player=f"<@{player.id}>")

    @app_commands.command(
        name=_("pause", key="cmd.tournament.pause.name"),
        description=_("No new round until resume (its organiser)", key="cmd.tournament.pause.description"),
    )
    async def pause(self, interaction: discord.Interaction[Any]) -> None:
        service = _bot(interaction).service
        held = await service.tournament_in_channel(interaction.channel_id or 0)
        await service.tournament_pause(held.id, interaction.user.id, can_manage=_manager(interaction))
        await _answer(interaction, "tournament.paused")

    @app_commands.command(
        name=_("resume", key="cmd.tournament.resume.name"),
        description=_("Go on after a pause (its organiser)", key="cmd.tournament.resume.description"),
    )
    async def resume(self, interaction: discord.Interaction[Any]) -> None:
        service = _bot(interaction).service
        held = await service.tournament_in_channel(interaction.channel_id or 0)
        await interaction.response.defer(ephemeral=True, thinking=True)  # may seat a round: threads
        await service.tournament_resume(held.id, interaction.user.id, can_manage=_manager(interaction))
        await interaction.followup.send(t("tournament.resumed", interaction.locale), ephemeral=True)

    @app_commands.command(
        name=_("standings", key="cmd.tournament.standings.name"),
        description=_(
            "Every line of this channel's tournament's standings, shown only to you",
            key="cmd.tournament.standings.description",
        ),
    )
    async def standings(self, interaction: discord.Interaction[Any]) -> None:
        """Anyone: the whole standings privately, in the reader's language (the public message shows
        what fits in Discord's 4,000 characters, the rest counted, and points here)."""
        service = _bot(interaction).service
        held = await service.tournament_shown_in(interaction.channel_id or 0)
        view = await service.tournament_view(held.id)
        parts = tournaments.private_standings(view, interaction.locale, interaction.user.id)
        first, *rest = [tournaments.private_layout(text) for text in parts]
        await interaction.response.send_message(view=first, ephemeral=True, allowed_mentions=NO_MENTIONS)
        for more in rest:
            await interaction.followup.send(view=more, ephemeral=True, allowed_mentions=NO_MENTIONS)

    @app_commands.command(
        name=_("cancel", key="cmd.tournament.cancel.name"),
        description=_(
            "Cancel this channel's tournament (its organiser)", key="cmd.tournament.cancel.description"
        ),
    )
    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        service = _bot(interaction).service
        held = await service.tournament_in_channel(interaction.channel_id or 0)
        await service.tournament_cancel(held.id, interaction.user.id, can_manage=_manager(interaction))
        await _answer(interaction, "tournament.cancelled")


class TournamentCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot
        self.group = TournamentCommands(
            name=_("tournament", key="cmd.tournament.name"),
            description=_("Tournaments: sign-ups, rounds, standings", key="cmd.tournament.description"),
        )

    async def cog_load(self) -> None:
        skybo = self.bot.tree.get_command("skybo")
        assert isinstance(skybo, app_commands.Group), "cogs.settings (the /skybo group) loads first"
        skybo.add_command(self.group)
        self.bot.router.add(Route(tournaments.PREFIX, tournaments.BUTTON_ID, self.on_click))

    async def cog_unload(self) -> None:
        skybo = self.bot.tree.get_command("skybo")
        if isinstance(skybo, app_commands.Group):
            skybo.remove_command(self.group.name)
        self.bot.router.remove(tournaments.PREFIX)

    async def on_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        await tournaments.click(self.bot, interaction, custom_id)


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(TournamentCog(bot))


__all__ = ["TournamentCog", "parse_start", "setup"]
