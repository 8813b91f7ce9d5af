"""``/help``: a newcomer's first steps, privately, in the asker's language (issue 38 item 10).

How to open a table, how to play (the table's button opens one's private panel, played by clicking),
the player's own choices (``/skybo display``, ``/skybo notify``) and where the rules are. Every command
it names is written as the reader's Discord shows it: its localized name, read from the catalogue
(``cmd.*.name``), so a French reader sees ``/<game> nouvelle``. The lobby message points here
(``table.lobby.help``). The words: ``help.*`` and ``cmd.help.*``.
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
from bot.ui.views import LayoutPayload

if TYPE_CHECKING:
    from bot.client import SkyboBot


def help_text(locale: object) -> str:
    """The first steps, one short paragraph each, with the commands' names in ``locale``."""
    new, rules = t("cmd.new.name", locale), t("cmd.rules.name", locale)
    # ``{<game>_new}`` and ``{<game>_rules}`` for each game of the registry (help.* fills them).
    names = {f"{game.name}_new": f"`/{game.name} {new}`" for game in registry.games()}
    names |= {f"{game.name}_rules": f"`/{game.name} {rules}`" for game in registry.games()}
    names |= {
        "display": f"`/skybo {t('cmd.prefs.display.name', locale)}`",
        "notify": f"`/skybo {t('cmd.prefs.notify.name', locale)}`",
        "join": t("table.button.join", locale),
        "start": t("table.button.start", locale),
        "my_grid": t("table.button.my_grid", locale),
        "my_hand": t("table.button.my_hand", locale),
        "rules": t("table.button.rules", locale),
    }
    keys = ("help.title", "help.open", "help.play", "help.display", "help.notify", "help.rules")
    return "\n".join(t(key, locale, **names) for key in keys)


def help_layout(locale: object) -> LayoutPayload:
    """The first steps in the table's Components V2 look (issue 40): one container, the title as a
    heading over the paragraphs."""
    title, _, steps = help_text(locale).partition("\n")
    heading = "## " + title.strip("*")
    box = messages.container([messages.text_display(f"{heading}\n{steps}")], messages.COLOUR_LOBBY)
    return LayoutPayload([box])


class HelpCog(commands.Cog):
    def __init__(self, bot: SkyboBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=_("help", key="cmd.help.name"),
        description=_("First steps: open a table, play, your choices, the rules", key="cmd.help.description"),
    )
    async def help_command(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            view=help_layout(interaction.locale),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: SkyboBot) -> None:
    await bot.add_cog(HelpCog(bot))


__all__ = ["HelpCog", "help_layout", "help_text", "setup"]
