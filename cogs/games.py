"""``/<game>`` for every game of the registry: one command group each, built here the same way.

Each group holds the game's own ``new``, built by :func:`bot.ui.new_command.new_command` from what the
game declares as data (``game.new``: its options, in ``bot/games/<game>/options.py``) and answered by
:meth:`bot.ui.answers.Answers.open_lobby`, and the subcommands every game shares, ``replay``,
``rules``, ``end`` and ``kick``, answered here for any game. A new game adds no cog: its folder and
its registry line give it its ``/<game>`` (the group's words are the game's, in its catalogue files:
``cmd.<game>.description`` and ``cmd.<game>.<new|replay|rules>.description``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.games import registry
from bot.games.base import Game
from bot.i18n import template
from bot.i18n import translate as t
from bot.service import Refused
from bot.ui import installs
from bot.ui import replay as replays
from bot.ui.new_command import new_command
from bot.ui.views import END_YES

if TYPE_CHECKING:
    from bot.client import SkyboBot


def _bot(interaction: discord.Interaction[Any]) -> SkyboBot:
    return cast("SkyboBot", interaction.client)  # the bot that loaded this extension


def public_locale(bot: SkyboBot, interaction: discord.Interaction[Any]) -> object:
    """The language of a public answer: the server's fixed one (``/skybo settings``), else its own."""
    return bot.service.public_locale(interaction.guild_id, interaction.guild_locale)


async def same_game(bot: SkyboBot, interaction: discord.Interaction[Any], kind: str, refusal: str) -> None:
    """Refused (``refusal``, naming the game and its command) when this channel's table or lobby is
    of another game: one game's ``end`` never ends another's table, it says which command does."""
    other = await bot.service.kind_in_channel(interaction.channel_id or 0)
    if other is not None and other != kind:
        raise Refused(refusal, game=registry.BY_KIND[other].title, kind=other)


async def end(bot: SkyboBot, interaction: discord.Interaction[Any], kind: str) -> None:
    """``/<game> end``: a running game ends only once the host confirms (its Yes is handled by
    ``TableUI.game_click``); a lobby closes at once, as nobody has anything to lose yet. Only the
    command of the table's own game does (:func:`same_game`)."""
    await same_game(bot, interaction, kind, "table.error.other_game_end")
    channel_id, user_id = interaction.channel_id or 0, interaction.user.id
    can_manage = interaction.permissions.manage_channels
    table = bot.service.game_to_end(channel_id, user_id, can_manage=can_manage)
    if table is not None:
        await bot.answers.confirm(interaction, registry.whole(table.game).prefix, table.id, END_YES)
        return
    await bot.service.end(channel_id, user_id, can_manage=can_manage)  # its event redraws the table
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
    spec = registry.BY_KIND[kind]
    table = bot.service.table_in_channel(interaction.channel_id or 0)
    options = (
        table.state.options if table is not None and table.stored.kind == kind else spec.engine.Options()
    )
    await interaction.response.send_message(
        spec.rules.rules_text(options, interaction.locale), ephemeral=True
    )


def _described(kind: str, command: str | None = None) -> app_commands.locale_str:
    """The description of ``/<game>`` (``command`` None) or of ``/<game> command``: the game's
    ``cmd.<game>[.<command>].description``, its English the default every other language falls back to."""
    key = f"cmd.{kind}.description" if command is None else f"cmd.{kind}.{command}.description"
    return _(template(key, "en"), key=key)


def command_group(game: Game) -> app_commands.Group:
    """``/<game>``: the game's ``new`` and the shared subcommands, in the order Discord lists them."""
    kind = game.name
    # Offered everywhere (bot.ui.installs): where the bot cannot post, a table lives in its own answer.
    group = app_commands.Group(name=kind, description=_described(kind), **installs.everywhere())

    async def new(interaction: discord.Interaction[Any], given: Mapping[str, Any]) -> None:
        # Where the bot cannot post, the lobby is this command's own answer (bot.ui.token_tables).
        await _bot(interaction).answers.open_lobby(interaction, game, given)

    group.add_command(new_command(game, _described(kind, "new"), new))

    @app_commands.rename(game=_("game", key="cmd.replay.opt.game"))
    @app_commands.describe(
        game=_("The game's id (Game #id, /history)", key="cmd.replay.opt.game.description")
    )
    async def replay(interaction: discord.Interaction[Any], game: str) -> None:
        await replays.start(_bot(interaction), interaction, kind, game)

    async def rules_(interaction: discord.Interaction[Any]) -> None:
        await rules(_bot(interaction), interaction, kind)

    async def end_(interaction: discord.Interaction[Any]) -> None:
        await end(_bot(interaction), interaction, kind)

    @app_commands.rename(player=_("player", key="cmd.kick.opt.player"))
    @app_commands.describe(player=_("The player to replace", key="cmd.kick.player"))
    async def kick_(interaction: discord.Interaction[Any], player: discord.User) -> None:
        await kick(_bot(interaction), interaction, player, kind)

    shared = (
        (_("replay", key="cmd.replay.name"), _described(kind, "replay"), replay),
        (_("rules", key="cmd.rules.name"), _described(kind, "rules"), rules_),
        (
            _("end", key="cmd.end.name"),
            _("End this channel's game (unrated)", key="cmd.end.description"),
            end_,
        ),
        (
            _("kick", key="cmd.kick.name"),
            _("Give a player's seat to a computer player", key="cmd.kick.description"),
            kick_,
        ),
    )
    for name, description, callback in shared:
        group.add_command(app_commands.Command(name=name, description=description, callback=callback))
    return group


async def setup(bot: SkyboBot) -> None:
    for game in registry.games():
        bot.tree.add_command(command_group(game))


async def teardown(bot: SkyboBot) -> None:
    for game in registry.games():
        bot.tree.remove_command(game.name)
