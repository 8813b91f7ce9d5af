"""Display names made safe for message text: shown exactly as the player wrote them, never as markup.

A display name is chosen by its owner, so in a message it must not become a heading, a link, a
spoiler, a mention or text running right to left. Markdown and mention syntax are escaped with a
backslash (Discord then shows the characters themselves), invisible direction and control
characters are dropped and line breaks become spaces. Inside a code block nothing is interpreted,
so there a backslash would show: :func:`code_name` only keeps the name from closing the block.
Pictures draw names as they are: only text goes through here. ``allowed_mentions`` on every send
stays the second lock on the door.

A computer player has ONE name everywhere, short enough for a phone's line and a picture's header
("CPU 1", "Ordi 1"; issue 47), said in the language of the message that shows it: seat names come
as :class:`ComputerName` (still a ``str``), which every renderer turns into words with
:func:`shown_name` / :func:`plain_name`. Its level is never part of the name: where a seat is
presented (the lobby's list of seats, the picture's line under the name) it is a word of its own
after the name ("CPU 1 🤖 · normal"); sentences (moves, lines, hints, results) say the name alone.
This module imports nothing from discord, so the service can use it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from bot.i18n import translate as t

# Bidi embeddings, overrides and isolates, marks, and other invisible format characters (Cf) are
# dropped with the control characters (Cc); newlines and tabs become spaces first.
_BREAKS = re.compile(r"[\r\n\t\v\f\u2028\u2029\u0085]+")
_MENTION = re.compile(r"<|@")
# discord.utils.escape_markdown(as_needed=False) escapes these; # - [ ] (list, heading, link and
# masked-link syntax Discord renders since 2023) are added, so a name never starts a heading or list.
_MARKDOWN = re.compile(r"([_\\*~|`>#\-\[\]])")


class ComputerName(str):
    """A computer player's seat name: the text it was stored with (``str`` value, for code that only
    needs some text) and its number and level, to say it in any language."""

    number: int
    level: str

    def __new__(cls, number: int, level: str, text: str | None = None) -> ComputerName:
        self = super().__new__(cls, text if text is not None else computer_name(number, level))
        self.number, self.level = number, level
        return self

    def said(self, locale: object) -> str:
        return computer_name(self.number, self.level, locale)

    def __reduce__(self) -> tuple[type[ComputerName], tuple[int, str, str]]:
        # copy, deepcopy and pickle rebuild it whole (str's own way would pass only the text).
        return (ComputerName, (self.number, self.level, str(self)))


def computer_name(number: int, level: str, locale: object = None) -> str:
    """ "CPU 2": the name of the ``number``-th computer player of a table, in ``locale`` (its ``level``
    is not in the name, see the module's docstring; the message may still say it)."""
    return t("table.ai.name", locale, number=number, level=t(f"table.ai.level.{level}", locale))


def plain_name(name: str, locale: object = None) -> str:
    """The name as words in ``locale`` (a computer's said in that language), not escaped: for
    pictures, the terminal, and code blocks (through :func:`code_name`)."""
    return name.said(locale) if isinstance(name, ComputerName) else str(name)


def _visible(text: str) -> str:
    text = _BREAKS.sub(" ", text)
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


def escape_name(name: str) -> str:
    """``name`` as plain text inside a Discord message or embed."""
    return _escaped(str(name))


@functools.lru_cache(maxsize=4096)
def _escaped(name: str) -> str:
    # Every panel and table text escapes every seat's name again: the same few names, cached.
    text = _MARKDOWN.sub(r"\\\1", _visible(name))
    # "<@&1>", "<#1>", "</cmd:1>", "<t:0>", "@everyone": a backslash before < or @ keeps them text.
    return _MENTION.sub(lambda m: "\\" + m.group(0), text).strip() or "\u2014"


def shown_name(name: str, locale: object = None) -> str:
    """A seat name as it goes into message text in ``locale``: a computer's in that language, a
    player's escaped."""
    return escape_name(plain_name(name, locale))


def shown_names(names: Sequence[str], locale: object = None) -> list[str]:
    return [shown_name(name, locale) for name in names]


def page_name(name: str, locale: object = None) -> str:
    """A seat name for a web page that shows it as text (the Activity's page sets ``textContent``, never
    HTML): the words of :func:`plain_name`, on one line, without invisible direction or control
    characters, and not escaped (a backslash would show)."""
    return _visible(plain_name(name, locale)).strip() or "\u2014"


def code_name(name: str, locale: object = None) -> str:
    """A seat name inside a code block (``` … ```), where markdown is not read: no backslashes (they
    would show), but no backtick either, so the name cannot close the block."""
    text = _visible(plain_name(name, locale)).replace("`", "\u02cb").strip()
    return text or "\u2014"
