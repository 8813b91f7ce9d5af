"""Commands as the reader's Discord shows them: localized names, and every game's from the registry.

A command's name and its subcommands' names are localized on Discord (``name_localizations``, built
from the catalogue's ``cmd.*.name`` keys), so a text that names a command writes it as the reader's
client shows it: ``/skybo réglages`` to a French reader. ``/help`` and the refusals that name commands
(the fair-use caps' "end one of your tables") build their names here. A command of every game is listed
from the registry (:func:`game_commands`), so a new game's ``/<game> new`` appears with nothing else
changed. A part that starts with ``cmd.`` is a catalogue key; any other is written as it is (the
``skybo`` group and a game's own group keep one name in every language).
"""

from __future__ import annotations

from bot.games import registry
from bot.i18n import translate as t
from bot.render.messages import or_list


def word(part: str, locale: object) -> str:
    """One word of a command: a catalogue key's name in ``locale``, or the word itself."""
    return t(part, locale) if part.startswith("cmd.") else part


def slash(locale: object, *parts: str) -> str:
    """A command as code, as Discord shows it in ``locale``: ``slash(fr, "skybo", "cmd.settings.name")``
    is ```/skybo réglages```."""
    return "`/" + " ".join(word(part, locale) for part in parts) + "`"


def option(key: str, value: str, locale: object) -> str:
    """An option and its value as typed: ``thread:on`` (its name from the catalogue key ``key``)."""
    return f"`{word(key, locale)}:{value}`"


def game_commands(sub: str, locale: object) -> str:
    """The subcommand ``sub`` (a catalogue key, ``cmd.new.name``) of every game of the registry:
    ``/<first> new``, ``/<second> new`` or ``/<third> new``, in the words of ``locale``."""
    return or_list([slash(locale, game.name, sub) for game in registry.games()], locale)


__all__ = ["game_commands", "option", "slash", "word"]
