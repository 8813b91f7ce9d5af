"""What every game's command group shares: end, kick and rules, answered the same way for each kind.

Not an extension: ``cogs.skyjo`` and ``cogs.skipbo`` call these from their own subcommands, so each
game keeps its own ``/<game> new`` options while the rest of the table works alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.games.registry import KINDS
from bot.i18n import translate as t
from bot.service import Refused, Table
from bot.ui.views import END_YES

if TYPE_CHECKING:
    from bot.client import SkyboBot

LEVEL_CHOICES = [
    app_commands.Choice(name=_("easy", key="cmd.skyjo.level.easy"), value="easy"),
    app_commands.Choice(name=_("normal", key="cmd.skyjo.level.normal"), value="normal"),
    app_commands.Choice(name=_("hard", key="cmd.skyjo.level.hard"), value="hard"),
]

# Option names shared by both games' /new, localized like every name (Discord: lowercase, no spaces).
COMPUTERS = _("computers", key="cmd.opt.computers")
LEVEL = _("level", key="cmd.opt.level")
TURN_LIMIT = _("turn_limit", key="cmd.opt.turn_limit")
TURN_LIMIT_HELP = _(
    "Time per turn before the computer plays it (default: the server's, else 2 min)",
    key="cmd.opt.turn_limit.description",
)
# Exactly the service's TURN_LIMITS (a test holds them equal): Discord offers nothing the table refuses.
TURN_LIMIT_CHOICES = [
    app_commands.Choice(name=_("no limit", key="cmd.turn_limit.off"), value=0),
    app_commands.Choice(name=_("30 s", key="cmd.turn_limit.30"), value=30),
    app_commands.Choice(name=_("45 s", key="cmd.turn_limit.45"), value=45),
    app_commands.Choice(name=_("1 min", key="cmd.turn_limit.60"), value=60),
    app_commands.Choice(name=_("90 s", key="cmd.turn_limit.90"), value=90),
    app_commands.Choice(name=_("2 min (default)", key="cmd.turn_limit.120"), value=120),
    app_commands.Choice(name=_("3 min", key="cmd.turn_limit.180"), value=180),
    app_commands.Choice(name=_("5 min", key="cmd.turn_limit.300"), value=300),
    app_commands.Choice(name=_("10 min", key="cmd.turn_limit.600"), value=600),
    app_commands.Choice(name=_("15 min", key="cmd.turn_limit.900"), value=900),
    # A long game from an hour (bot.service.letters): 16 choices of Discord's 25.
    app_commands.Choice(
        name=_("1 hour (long game: a direct message at your turn)", key="cmd.turn_limit.3600"), value=3600
    ),
    app_commands.Choice(name=_("2 hours (long game)", key="cmd.turn_limit.7200"), value=7200),
    app_commands.Choice(name=_("4 hours (long game)", key="cmd.turn_limit.14400"), value=14400),
    app_commands.Choice(name=_("8 hours (long game)", key="cmd.turn_limit.28800"), value=28800),
    app_commands.Choice(name=_("12 hours (long game)", key="cmd.turn_limit.43200"), value=43200),
    app_commands.Choice(name=_("24 hours (long game)", key="cmd.turn_limit.86400"), value=86400),
]


def public_locale(bot: SkyboBot, interaction: discord.Interaction[Any]) -> object:
    """The language of a public answer: the server's fixed one (``/skybo settings``), else its own."""
    return bot.service.public_locale(interaction.guild_id, interaction.guild_locale)


async def open_table(
    bot: SkyboBot,
    interaction: discord.Interaction[Any],
    kind: str,
    options: dict[str, Any],
    *,
    computers: int,
    level: str,
    turn_limit: int | None,
) -> None:
    """``/<game> new``: open the lobby (the service checks everything) and post its public message;
    no ``turn_limit``: the server's default (``/skybo settings``)."""
    user = interaction.user
    lobby = await bot.service.open_lobby(
        kind=kind,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id or 0,
        host_id=user.id,
        host_name=getattr(user, "display_name", None) or user.name,
        options=options,
        computers=computers,
        level=level,
        locale=public_locale(bot, interaction),  # the computers' names, shown in public
        turn_limit=turn_limit,
    )
    await bot.table_ui.post_lobby(interaction, lobby)


async def same_game(bot: SkyboBot, interaction: discord.Interaction[Any], kind: str, refusal: str) -> None:
    """Refused (``refusal``, naming the game and its command) when this channel's table or lobby is
    of another game: ``/skipbo end`` never ends a Skyjo table, it says ``/skyjo end`` does."""
    other = await bot.service.kind_in_channel(interaction.channel_id or 0)
    if other is not None and other != kind:
        raise Refused(refusal, game=KINDS[other].title, kind=other)


async def end(bot: SkyboBot, interaction: discord.Interaction[Any], kind: str) -> None:
    """``/<game> end``: a running game ends only once the host confirms (its Yes is handled by
    ``TableUI.game_click``); a lobby closes at once, as nobody has anything to lose yet. Only the
    command of the table's own game does (:func:`same_game`)."""
    await same_game(bot, interaction, kind, "table.error.other_game_end")
    channel_id, user_id = interaction.channel_id or 0, interaction.user.id
    can_manage = interaction.permissions.manage_channels
    table = bot.service.game_to_end(channel_id, user_id, can_manage=can_manage)
    if table is not None:
        await bot.table_ui.confirm(interaction, table.kind.prefix, table.id, END_YES)
        return
    ended = await bot.service.end(channel_id, user_id, can_manage=can_manage)
    if isinstance(ended, Table):
        bot.presenter.table_changed(ended)
    else:
        bot.presenter.lobby_changed(ended.id)
    await interaction.response.send_message(
        t("table.ended", public_locale(bot, interaction), user=interaction.user.mention),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def kick(bot: SkyboBot, interaction: discord.Interaction[Any], player: discord.User, kind: str) -> None:
    """``/<game> kick``: a computer player takes ``player``'s seat, at a table of this game only."""
    await same_game(bot, interaction, kind, "table.error.other_game_kick")
    if player.bot:
        raise Refused("table.error.kick_not_player")
    await bot.service.kick(interaction.channel_id or 0, interaction.user.id, player.id)
    await interaction.response.send_message(
        t("table.kicked", public_locale(bot, interaction), player=player.mention),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def rules(bot: SkyboBot, interaction: discord.Interaction[Any], kind: str) -> None:
    """The rules in the reader's language, with the options of this channel's table (or the defaults)."""
    spec = KINDS[kind]
    table = bot.service.table_in_channel(interaction.channel_id or 0)
    options = table.game.options if table is not None and table.stored.kind == kind else spec.engine.Options()
    await interaction.response.send_message(
        spec.rules.rules_text(options, interaction.locale), ephemeral=True
    )
