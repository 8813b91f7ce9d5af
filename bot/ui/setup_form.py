"""The lobby's set-up form (issue 49): the game's ``new`` as a Discord modal, and its answer read back.

The form is built from the same data as ``/<game> new`` (:class:`bot.games.new_table.NewTable`, which
``bot/ui/new_command.py`` turns into the slash command), so an option a game declares is in both. Its
pages are :attr:`NewTable.form <bot.games.new_table.NewTable.form>`: a modal holds at most 5
components, so a game whose options do not fit one opens its first page (the common options) from the
lobby's **Set up…** button and the rest from **More options…**. Each option is one labelled component
(Discord's Label, 18, with the option's words and its slash description), pre-filled with the lobby's
value:

=========================================  =================================================
the option                                 its component
=========================================  =================================================
a choice among at most 5                   a radio group (21)
a longer list of choices                   a string select (3)
an integer with at most 25 values          a string select of every value
a wider integer                            a text input (4) of its digits
yes or no                                  a checkbox (23); a page's several together: one
                                           checkbox group (22), one box each
=========================================  =================================================

A game's option whose default is "not given" (the engine's official size) has that as an entry of its
own (a text input: left empty); the shared ones' (the server's turn limit and threads) were settled
when the lobby opened, and the form shows the lobby's own. What the host submits is read back as what
a player gives the slash command (:func:`given`) and checked by the table service exactly as the
slash options are, with the same reasons: a text that is no number goes to it as it is, and is
refused as a value out of range is.

Ids: the modal's custom_id is ``sf:<lobby>:<page>`` (routed by :mod:`bot.ui.router`, so a form opened
before a restart still submits); each input's is its option's name, a page's checkbox group's
:data:`SWITCHES` (no option is named so: Discord's option names have no ``~``), each box's value its
option's name. The modal is built with discord.py's own components (2.7 has every one) and is not
kept by discord.py (``stop()`` before it is sent): its submit is dispatched by its id, as every click.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import discord
from discord import ui

from bot.games.base import Game
from bot.games.new_table import SHARED, FormField, TableOption, Value
from bot.i18n import translate as t

FORM_PREFIX = "sf:"
FORM_PATTERN = re.compile(r"sf:(?P<lobby>\d{1,18}):(?P<page>\d)")
SWITCHES = "~switches"
NOT_GIVEN = "~default"  # the entry of an option left to its default (a select's or radio group's value)
MAX_RADIO = 5  # more choices than this: a string select (a radio group shows each on its own line)
MAX_SELECT = 25  # Discord's: a string select holds at most 25 options
INTEGER = re.compile(r"-?[0-9]{1,9}")
TITLES = ("form.title.setup", "form.title.more")  # each page's title (a game has at most two pages)


def form_id(lobby_id: int, page: int) -> str:
    return f"{FORM_PREFIX}{lobby_id}:{page}"


def _label(text: str) -> str:
    return text[:45]  # Discord's: a label's text is at most 45 characters


def _entries(option: TableOption, locale: object) -> list[tuple[str, str]] | None:
    """An option's entries as (words, value) for a select or a radio group, None for a text input."""
    if option.choices:
        entries = [(t(c.key, locale), str(c.value)) for c in option.choices]
    elif option.bounds is not None and option.bounds[1] - option.bounds[0] < MAX_SELECT:
        entries = [(str(value), str(value)) for value in range(option.bounds[0], option.bounds[1] + 1)]
    else:
        return None
    if option.default is None and option.name not in SHARED:  # the shared ones: the lobby's, resolved
        entries.insert(0, (t("form.default", locale), NOT_GIVEN))
    return entries if len(entries) <= MAX_SELECT else None


def _component(option: TableOption, value: Value | None, locale: object) -> ui.Item[Any]:
    """The input of one option (see the module docstring), showing ``value``."""
    if option.type is bool:
        return ui.Checkbox(custom_id=option.name, default=bool(value))
    shown = NOT_GIVEN if value is None else str(value)
    entries = _entries(option, locale)
    if entries is not None and option.choices and len(entries) <= MAX_RADIO:
        choices = [discord.RadioGroupOption(label=w, value=v, default=v == shown) for w, v in entries]
        return ui.RadioGroup(custom_id=option.name, options=choices)
    if entries is not None:
        picks = [discord.SelectOption(label=w, value=v, default=v == shown) for w, v in entries]
        return ui.Select(custom_id=option.name, options=picks)
    least, most = option.bounds or (0, 10**9 - 1)
    return ui.TextInput(
        custom_id=option.name,
        default=None if value is None else str(value),
        required=option.default is not None,
        min_length=1 if option.default is not None else 0,
        max_length=max(len(str(least)), len(str(most))),
        placeholder=t("form.empty_default", locale) if option.default is None else f"{least}–{most}",
    )


def _item(field: FormField, values: Mapping[str, Value | None], locale: object) -> ui.Label[Any]:
    if field.switches and len(field.options) > 1:
        boxes = [
            discord.CheckboxGroupOption(
                label=_label(t(o.label_key, locale)),
                value=o.name,
                description=t(o.description_key, locale)[:100],
                default=bool(values.get(o.name)),
            )
            for o in field.options
        ]
        group: ui.CheckboxGroup[Any] = ui.CheckboxGroup(
            custom_id=SWITCHES, required=False, min_values=0, max_values=len(boxes), options=boxes
        )
        return ui.Label(text=_label(t("form.switches", locale)), component=group)
    option = field.options[0]
    return ui.Label(
        text=_label(t(option.label_key, locale)),
        description=t(option.description_key, locale)[:100],
        component=_component(option, values.get(option.name), locale),
    )


def form_modal(
    game: Game, lobby_id: int, page: int, values: Mapping[str, Value | None], locale: object
) -> ui.Modal:
    """Page ``page`` of ``game``'s set-up form for the lobby ``lobby_id``, showing ``values`` (the
    lobby's, as :meth:`NewTable.given <bot.games.new_table.NewTable.given>` reads them), in
    ``locale`` (the host's: the form is theirs alone)."""
    title = t(TITLES[page], locale, game=game.title)[:45]  # Discord's: a title of 45 characters at most
    modal = ui.Modal(title=title, custom_id=form_id(lobby_id, page), timeout=None)
    for field in game.new.form[page]:
        modal.add_item(_item(field, values, locale))
    modal.stop()  # not kept by discord.py: its submit comes through the router, by its id
    return modal


def _answers(data: Mapping[str, Any]) -> dict[str, Any]:
    """Each input's answer in a MODAL_SUBMIT's data, by its custom_id: a text input's or a radio
    group's ``value``, a checkbox's true or false, a select's or a checkbox group's ``values``."""
    found: dict[str, Any] = {}
    todo = [c for c in data.get("components") or () if isinstance(c, dict)]
    while todo:
        comp = todo.pop(0)
        inner = comp.get("component")
        if isinstance(inner, dict):
            todo.append(inner)
        todo += [c for c in comp.get("components") or () if isinstance(c, dict)]
        if "custom_id" in comp:
            found[str(comp["custom_id"])] = comp["values"] if "values" in comp else comp.get("value")
    return found


def _value(option: TableOption, answer: Any) -> Any:
    """What a player gave for ``option`` from its answer. A text that is no number stays a text: the
    table service refuses it with the reason it gives any value out of range."""
    if isinstance(answer, list):
        answer = answer[0] if answer else None
    if answer is None or answer in ("", NOT_GIVEN):
        return None
    if option.type is int and isinstance(answer, str) and INTEGER.fullmatch(answer.strip()):
        return int(answer.strip())
    if option.type is bool:
        return answer if isinstance(answer, bool) else None
    return answer


def given(game: Game, page: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """What the host gave on page ``page`` of ``game``'s form (its MODAL_SUBMIT ``data``), by option
    name, as ``/<game> new`` would receive it (None: left to its default). An option the data does
    not answer is left out: the lobby keeps its value."""
    answers = _answers(data)
    out: dict[str, Any] = {}
    for field in game.new.form[page] if 0 <= page < len(game.new.form) else ():
        if field.switches and len(field.options) > 1:
            ticked = answers.get(SWITCHES)
            if isinstance(ticked, list):
                out |= {o.name: o.name in ticked for o in field.options}
            continue
        option = field.options[0]
        if option.name in answers:
            out[option.name] = _value(option, answers[option.name])
    return out
