"""``/help``: a newcomer's first steps and what else the bot does, privately, in the asker's language
(issue 38 item 10, issue 47 items 9 and 11).

Two parts in one Components V2 container. **First steps**: how to open a table, how to challenge someone
(the games' right-click commands, :mod:`bot.ui.challenges`), how to play (the table's button opens one's
private panel, played by clicking), the player's own choices (``/skybo display``, ``/skybo notify``) and
where the rules are. **Beyond one table**, a line each: the boards (``/leaderboard``, ``/stats``,
``/history``), replays, threads, the server's settings, tournaments and seasons. Every command it names is
written as the reader's Discord shows it (:mod:`bot.ui.command_names`: the localized names of the
catalogue's ``cmd.*.name``), so a French reader sees ``/<game> nouvelle``; the games' commands and their
panel buttons are listed from the registry, so a new game appears here with nothing else changed. The whole
text stays far within Discord's 4000 characters of a Components V2 message (a test measures it with a third
game). The lobby message points here (``table.lobby.help``).
The words: ``help.*`` and ``cmd.help.*``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.games import registry
from bot.i18n import translate as t
from bot.render import messages
from bot.ui import challenges, installs
from bot.ui.command_names import game_commands, option, slash
from bot.ui.views import LayoutPayload

if TYPE_CHECKING:
    from bot.client import SkyboBot

FIRST_STEPS = ("help.open", "help.challenge", "help.play", "help.display", "help.notify", "help.rules")
BEYOND = ("help.boards", "help.replay", "help.threads", "help.settings", "help.tournaments", "help.seasons")


def _names(locale: object) -> dict[str, str]:
    """What the help's placeholders name, in the words of ``locale``."""
    panel_buttons = [
        t("help.panel_button", locale, button=t(game.panel_button, locale), game=game.title)
        for game in registry.games()
    ]
    on = t("cmd.prefs.on", locale)  # the settings' threads choice, as Discord lists it
    return {
        "new": game_commands("cmd.new.name", locale),
        "challenges": challenges.shown_commands(locale),
        "rules_commands": game_commands("cmd.rules.name", locale),
        "replay_commands": game_commands("cmd.replay.name", locale),
        "panel_buttons": messages.or_list(panel_buttons, locale),
        "join": t("table.button.join", locale),
        "set_up": t("table.button.set_up", locale),
        "start": t("table.button.start", locale),
        "rules": t("table.button.rules", locale),
        "display": slash(locale, "skybo", "cmd.prefs.display.name"),
        "notify": slash(locale, "skybo", "cmd.prefs.notify.name"),
        "leaderboard": slash(locale, "cmd.lb.name"),
        "stats": slash(locale, "cmd.stats.name"),
        "history": slash(locale, "cmd.history.name"),
        "thread_option": option("cmd.opt.thread", "True", locale),
        "threads_setting": slash(
            locale, "skybo", "cmd.settings.name", f"{t('cmd.settings.opt.threads', locale)}:{on}"
        ),
        "settings": slash(locale, "skybo", "cmd.settings.name"),
        "tournament": slash(locale, "skybo", "cmd.tournament.name", "cmd.tournament.new.name"),
        "season_start": slash(locale, "skybo", "cmd.season.name", "cmd.season.start.name"),
        "podium": slash(locale, "skybo", "cmd.season.name", "cmd.season.podium.name"),
    }


def help_parts(locale: object) -> tuple[str, str]:
    """The two parts of the help in ``locale``: the first steps, and what lies beyond one table, each
    a heading over one short paragraph a line."""
    names = _names(locale)
    first = "\n".join([f"## {t('help.title', locale)}", *(t(key, locale, **names) for key in FIRST_STEPS)])
    beyond = "\n".join([f"### {t('help.more', locale)}", *(t(key, locale, **names) for key in BEYOND)])
    return first, beyond


def help_text(locale: object) -> str:
    """The whole help as text, its two parts one after the other."""
    return "\n".join(help_parts(locale))


def help_layout(locale: object) -> LayoutPayload:
    """The help in the table's Components V2 look (issue 40): one container, the two parts apart."""
    first, beyond = help_parts(locale)
    parts = [messages.text_display(first), messages.separator(), messages.text_display(beyond)]
    return LayoutPayload([messages.container(parts, messages.COLOUR_LOBBY)])


class HelpCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=_("help", key="cmd.help.name"),
        description=_("First steps: open a table, play, your choices, the rules", key="cmd.help.description"),
    )
    @installs.anywhere
    async def help_command(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            view=help_layout(interaction.locale),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(HelpCog(bot))


__all__ = ["HelpCog", "help_layout", "help_parts", "help_text", "setup"]
