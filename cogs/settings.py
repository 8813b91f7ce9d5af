"""``/skybo``: a server's admins choose what its new tables get, each player their own choices (issue 28).

``/skybo settings`` changes a server's settings for members who may manage the server: the handler
checks the permission (Discord's default permissions apply to a whole top-level command, and ``/skybo
notify`` and ``/skybo display`` are for everyone). Without options it shows the settings, to anyone (a
member reads them, and who may change them: issue 47 item 9); each option given changes one, or is
refused to a member. ``/skybo notify on|off``: direct messages when a long game's turn comes.
``/skybo display``: the card theme and the table as text. Every answer is private, in the asker's
language, but what a season's start and end post in the channel, in the server's public language
(issue 41: ``/skybo season start|end|podium``, Manage Server for start and end;
:mod:`bot.service.seasons`; the start's announcement: issue 47 item 10). What they do,
and their storage: :mod:`bot.service.settings`, :mod:`bot.service.prefs`. The words: ``settings.*``,
``cmd.settings.*``, ``prefs.*`` and ``cmd.prefs.*``. ``threads:on``: a thread per game (docs/discord.md,
"Threads"; each table's ``/<game> new thread:`` overrides it). ``tournament_role:<role>``: its members
organise tournaments as server managers do (``clear_tournament_role``: nobody's role any more).
"""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.discord_patches import LayoutPayload
from bot.i18n import translate as t
from bot.render.names import escape_name
from bot.service import Refused
from bot.service.seasons import MAX_NAME as MAX_SEASON_NAME
from bot.storage import Season, ServerSettings, UserPrefs
from bot.ui import installs
from bot.ui import seasons as seasons_ui
from bot.ui.command_names import slash
from bot.ui.new_command import TURN_LIMIT, TURN_LIMIT_CHOICES

if TYPE_CHECKING:
    from bot.client import SkyboBot

LANGUAGE_CHOICES = [
    app_commands.Choice(name=_("the server's language", key="cmd.settings.language.server"), value="server"),
    app_commands.Choice(name=_("English", key="cmd.settings.language.en"), value="en"),
    app_commands.Choice(name=_("French", key="cmd.settings.language.fr"), value="fr"),
]


NOTIFY_CHOICES = [
    app_commands.Choice(name=_("on", key="cmd.prefs.on"), value="on"),
    app_commands.Choice(name=_("off", key="cmd.prefs.off"), value="off"),
]
CARDS_CHOICES = [
    app_commands.Choice(name=_("classic", key="cmd.prefs.cards.classic"), value="classic"),
    app_commands.Choice(name=_("colour-blind (shapes and colours)", key="cmd.prefs.cards.colourblind"),
                        value="colourblind"),
]  # fmt: skip
TABLE_CHOICES = [
    app_commands.Choice(name=_("picture", key="cmd.prefs.table.picture"), value="picture"),
    app_commands.Choice(name=_("text (embeds turned off)", key="cmd.prefs.table.text"), value="text"),
]


def prefs_text(prefs: UserPrefs, locale: object) -> str:
    """A user's own choices as the private answer shows them, one line each."""
    return "\n".join(
        [
            t("prefs.title", locale),
            t("prefs.notify.on" if prefs.notify else "prefs.notify.off", locale),
            t(f"prefs.cards.{prefs.cards}", locale),
            t(f"prefs.table.{prefs.table}", locale),
            t("prefs.how", locale),
        ]
    )


def settings_text(settings: ServerSettings, locale: object, *, may_change: bool = True) -> str:
    """The settings as the private answer shows them, one line each (changed or not), then how to
    change them (``may_change``: the reader manages the server) or who may."""
    limit = settings.turn_limit
    if limit is None:
        limit_text = t("settings.turn_limit.default", locale)
    else:
        limit_text = t(f"cmd.turn_limit.{limit or 'off'}", locale)  # the names the command offers
    if settings.channels is None:
        channels_text = t("settings.channels.all", locale)
    else:
        channels_text = ", ".join(f"<#{c}>" for c in settings.channels)
    language_text = t(f"settings.language.{settings.language or 'server'}", locale)
    rated_key = "settings.computers.rated" if settings.rate_computers else "settings.computers.unrated"
    threads_key = "settings.threads.on" if settings.threads else "settings.threads.off"
    role = settings.tournament_role
    organisers = (
        t("settings.tournament_role.none", locale)
        if role is None
        else t("settings.tournament_role.role", locale, role=f"<@&{role}>")
    )
    return "\n".join(
        [
            t("settings.title", locale),
            t("settings.line.turn_limit", locale, limit=limit_text),
            t("settings.line.channels", locale, channels=channels_text),
            t("settings.line.language", locale, language=language_text),
            t(rated_key, locale),
            t(threads_key, locale),
            organisers,
            t("settings.how" if may_change else "settings.how_member", locale),
        ]
    )


class SettingsCog(commands.Cog):
    skybo = app_commands.Group(
        name="skybo",
        description=_("Skybo on this server", key="cmd.skybo.description"),
        **installs.servers(),  # a server's own, with the bot in it (bot.ui.installs)
    )

    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @skybo.command(
        name=_("settings", key="cmd.settings.name"),
        description=_("Show this server's settings; admins change them", key="cmd.settings.description"),
    )
    @app_commands.rename(
        turn_limit=TURN_LIMIT,
        allow_channel=_("allow_channel", key="cmd.settings.opt.allow_channel"),
        remove_channel=_("remove_channel", key="cmd.settings.opt.remove_channel"),
        all_channels=_("all_channels", key="cmd.settings.opt.all_channels"),
        language=_("language", key="cmd.settings.opt.language"),
        rate_computers=_("rate_computers", key="cmd.settings.opt.rate_computers"),
        threads=_("threads", key="cmd.settings.opt.threads"),
        tournament_role=_("tournament_role", key="cmd.settings.opt.tournament_role"),
        clear_tournament_role=_("clear_tournament_role", key="cmd.settings.opt.clear_tournament_role"),
    )
    @app_commands.describe(
        turn_limit=_("The turn limit of a new table that does not choose one", key="cmd.settings.turn_limit"),
        allow_channel=_("Games may be opened in this channel (then only in the listed ones)",
                        key="cmd.settings.allow_channel"),
        remove_channel=_("Take this channel off the list", key="cmd.settings.remove_channel"),
        all_channels=_("Games may be opened in every channel again", key="cmd.settings.all_channels"),
        language=_("The language of the bot's public messages", key="cmd.settings.language"),
        rate_computers=_("Games with computer players are rated (True, the default) or dealt unrated",
                         key="cmd.settings.rate_computers"),
        threads=_("Each game in a thread of its own (on), or in the channel (off, the default)",
                  key="cmd.settings.threads"),
        tournament_role=_("Members with this role organise tournaments too (besides server managers)",
                          key="cmd.settings.tournament_role"),
        clear_tournament_role=_("No role organises tournaments any more (only server managers)",
                                key="cmd.settings.clear_tournament_role"),
    )  # fmt: skip
    @app_commands.choices(turn_limit=TURN_LIMIT_CHOICES)
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.choices(threads=NOTIFY_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        turn_limit: int | None = None,
        allow_channel: discord.TextChannel | None = None,
        remove_channel: discord.TextChannel | None = None,
        all_channels: bool = False,
        language: str | None = None,
        rate_computers: bool | None = None,
        threads: str | None = None,
        tournament_role: discord.Role | None = None,
        clear_tournament_role: bool = False,
    ) -> None:
        # Checked here: the group is visible to everyone (notify, display); in a DM, no server.
        if interaction.guild_id is None:
            raise Refused("settings.error.guild_only")
        if not interaction.permissions.manage_guild:
            # Anyone may look (issue 47 item 9): the settings as they are, and who may change them.
            given = (
                turn_limit,
                allow_channel,
                remove_channel,
                language,
                rate_computers,
                threads,
                tournament_role,
            )
            if all_channels or clear_tournament_role or any(value is not None for value in given):
                raise Refused("settings.error.not_admin")
            shown = await self.bot.service.read_settings(interaction.guild_id)
            await interaction.response.send_message(
                settings_text(shown, interaction.locale, may_change=False),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        if threads not in (None, "on", "off"):
            raise Refused("settings.error.threads")
        settings = await self.bot.service.change_settings(
            interaction.guild_id,
            turn_limit=turn_limit,
            allow_channel=None if allow_channel is None else allow_channel.id,
            remove_channel=None if remove_channel is None else remove_channel.id,
            all_channels=all_channels,
            language=language,
            rate_computers=rate_computers,
            threads=None if threads is None else threads == "on",
            tournament_role=None if tournament_role is None else tournament_role.id,
            clear_tournament_role=clear_tournament_role,
        )
        await interaction.response.send_message(
            settings_text(settings, interaction.locale),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @skybo.command(
        name=_("notify", key="cmd.prefs.notify.name"),
        description=_(
            "Direct messages when your turn comes in a long game: on or off",
            key="cmd.prefs.notify.description",
        ),
    )
    @app_commands.rename(state=_("state", key="cmd.prefs.opt.state"))
    @app_commands.describe(state=_("on (the default) or off", key="cmd.prefs.state"))
    @app_commands.choices(state=NOTIFY_CHOICES)
    async def notify(self, interaction: discord.Interaction[Any], state: str | None = None) -> None:
        if state not in (None, "on", "off"):
            raise Refused("prefs.error.notify")
        notify = None if state is None else state == "on"
        prefs = await self.bot.service.change_prefs(interaction.user.id, notify=notify)
        await interaction.response.send_message(prefs_text(prefs, interaction.locale), ephemeral=True)

    @skybo.command(
        name=_("display", key="cmd.prefs.display.name"),
        description=_(
            "How the table looks for you: the card theme, a picture or text",
            key="cmd.prefs.display.description",
        ),
    )
    @app_commands.rename(
        cards=_("cards", key="cmd.prefs.opt.cards"), table=_("table", key="cmd.prefs.opt.table")
    )
    @app_commands.describe(
        cards=_("The cards' look: classic, or colour-blind (a shape for each colour)", key="cmd.prefs.cards"),
        table=_("The table as a picture, or as text in your panel (for embeds turned off)",
                key="cmd.prefs.table"),
    )  # fmt: skip
    @app_commands.choices(cards=CARDS_CHOICES, table=TABLE_CHOICES)
    async def display(
        self, interaction: discord.Interaction[Any], cards: str | None = None, table: str | None = None
    ) -> None:
        prefs = await self.bot.service.change_prefs(interaction.user.id, cards=cards, table=table)
        await interaction.response.send_message(prefs_text(prefs, interaction.locale), ephemeral=True)

    # ------------------------------------------------------------------ /skybo season (issue 41)

    season = app_commands.Group(
        name=_("season", key="cmd.season.name"),
        description=_(
            "This server's seasons: boards that start afresh (admins)", key="cmd.season.description"
        ),
        parent=skybo,
    )

    @season.command(
        name=_("start", key="cmd.season.start.name"),
        description=_("Start a season: its boards start empty (admins)", key="cmd.season.start.description"),
    )
    @app_commands.rename(name=_("name", key="cmd.season.opt.name"))
    @app_commands.describe(
        name=_("The season's name (up to 50 characters)", key="cmd.season.opt.name.description")
    )
    async def season_start(
        self, interaction: discord.Interaction[Any], name: app_commands.Range[str, 1, MAX_SEASON_NAME]
    ) -> None:
        _admin_here(interaction)
        started = await self.bot.service.start_season(interaction.guild_id, name, interaction.user.id)
        season_name = escape_name(started.name)
        await interaction.response.send_message(
            t(
                "season.started",
                interaction.locale,
                name=season_name,
                leaderboard=slash(interaction.locale, "cmd.lb.name"),
            ),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        # Everyone's news (issue 47 item 10): said in the channel too, in the server's public language.
        public = self.bot.service.public_locale(
            interaction.guild_id, interaction.guild_locale or interaction.locale
        )
        board = slash(public, "cmd.lb.name")
        await interaction.followup.send(
            t("season.announced", public, name=season_name, leaderboard=board),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @season.command(
        name=_("end", key="cmd.season.end.name"),
        description=_("End the season and post its podium here (admins)", key="cmd.season.end.description"),
    )
    async def season_end(self, interaction: discord.Interaction[Any]) -> None:
        _admin_here(interaction)
        ended = await self.bot.service.end_season(interaction.guild_id, interaction.user.id)
        await _post_podium(self.bot, interaction, ended, just_ended=True)

    @season.command(
        name=_("podium", key="cmd.season.podium.name"),
        description=_(
            "Show an ended season's podium again (the latest)", key="cmd.season.podium.description"
        ),
    )
    @app_commands.rename(name=_("name", key="cmd.season.opt.name"))
    @app_commands.describe(name=_("Which season (the latest ended)", key="cmd.season.opt.which.description"))
    async def season_podium(self, interaction: discord.Interaction[Any], name: str | None = None) -> None:
        if interaction.guild_id is None:
            raise Refused("season.error.guild_only")
        ended = await self.bot.service.ended_season(interaction.guild_id, name)
        await _post_podium(self.bot, interaction, ended, just_ended=False)

    @season_podium.autocomplete("name")
    async def _podium_names(self, interaction: discord.Interaction[Any], current: str) -> list[Any]:
        seasons = await self.bot.service.seasons_of(interaction.guild_id)
        return season_choices(seasons, current, ended_only=True)


def _admin_here(interaction: discord.Interaction[Any]) -> None:
    """A server's seasons are its admins' (Manage Server), checked as ``/skybo settings`` checks it."""
    if interaction.guild_id is None:
        raise Refused("season.error.guild_only")
    if not interaction.permissions.manage_guild:
        raise Refused("season.error.not_admin")


def season_choices(
    seasons: list[Season], current: str, *, ended_only: bool = False
) -> list[app_commands.Choice[str]]:
    """The server's season names that contain what is typed (the latest first), for autocomplete."""
    names = seasons_ui.matching_names(seasons, current, ended_only=ended_only)
    return [app_commands.Choice(name=n, value=n) for n in names]


async def _post_podium(
    bot: SkyboBot, interaction: discord.Interaction[Any], season: Season, *, just_ended: bool
) -> None:
    """The podium in the channel, in the server's public language: posted for all at a season's end,
    shown to the asker alone when asked again."""
    locale = bot.service.public_locale(interaction.guild_id, interaction.guild_locale or interaction.locale)
    if not just_ended:
        locale = interaction.locale
    picture = await asyncio.to_thread(seasons_ui.podium_picture, season, locale)
    layout = seasons_ui.podium_layout(season, locale, just_ended=just_ended)
    await interaction.response.send_message(
        view=LayoutPayload(layout),
        file=discord.File(io.BytesIO(picture), filename=seasons_ui.PODIUM_FILE),
        ephemeral=not just_ended,
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(SettingsCog(bot))


__all__ = ["SettingsCog", "prefs_text", "season_choices", "settings_text", "setup"]
