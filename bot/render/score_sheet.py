"""The score sheet: every round's score per player, as players keep it on paper, as embed fields.

Any game whose public view has per-round scores shows it (some always, some with an option);
it reads only the scores of finished rounds, which everyone has seen. One row per player (names
across would not fit eight players on a phone), one column per round, the total last.

Discord's limits shape it: a field holds 1024 characters and a whole embed 6000. While the game
runs, one field shows the latest rounds and says how many earlier ones are folded; at the end the
whole sheet goes in as many fields as it needs (``ROUNDS_PER_FIELD`` rounds each), the earliest
folded only if the embed's room runs out, and the winners marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.i18n import plural
from bot.i18n import translate as t
from bot.render.messages import embed_size
from bot.render.names import code_name

JSON = dict[str, Any]
MAX_FIELD = 1024
MAX_EMBED = 6000
MAX_FIELDS = 25
LIVE_ROUNDS = 6  # rounds shown while the game runs (the sheet stays narrow enough for a phone)
ROUNDS_PER_FIELD = 8  # rounds per field of the final sheet
NAME_WIDTH = 12  # "CPU 2", "Ordi 2" and most names fit
CELL = 4  # a round's score: up to three digits and a sign
TOTAL = 5
# What a table message leaves to the sheet: 6000 less what comes after it (the rating changes field
# of bot/ui/views.add_rating_changes, 1024 + its name, and the footer with the game id).
SHEET_RESERVE = MAX_EMBED - MAX_FIELD - 64 - 100
SHEET_SLOTS = MAX_FIELDS - 1  # the fields left when the rating changes field comes after
WINNER = "🏆"  # at the end of a line, where its width shifts nothing


def _label(name: str, locale: object) -> str:
    plain = code_name(name, locale)
    if len(plain) > NAME_WIDTH:  # a long name, cut
        plain = plain[:NAME_WIDTH].rstrip(" (")
    return plain.ljust(NAME_WIDTH + 1)


def _block(
    names: Sequence[str],
    rounds: Sequence[Sequence[int]],
    first: int,
    totals: Sequence[int] | None,
    winners: Sequence[int],
    locale: object,
) -> str:
    """Rounds ``first``, ``first + 1``... (numbered from 1) as a code block; totals when given."""
    head = " " * (NAME_WIDTH + 1) + "".join(
        t("sheet.round_short", locale, round=first + i).rjust(CELL) for i in range(len(rounds))
    )
    if totals is not None:
        head += " | " + t("sheet.total_short", locale).rjust(TOTAL)
    lines = [head.rstrip()]
    for seat, name in enumerate(names):
        line = _label(name, locale) + "".join(f"{played[seat]:>{CELL}}" for played in rounds)
        if totals is not None:
            line += f" | {totals[seat]:>{TOTAL}}"
            if seat in winners:
                line += " " + WINNER
        lines.append(line)
    return "```\n" + "\n".join(lines) + "\n```"


def _field(name: str, value: str) -> JSON:
    return {"name": name[:256], "value": value[:MAX_FIELD], "inline": False}


def sheet_fields(
    names: Sequence[str],
    rounds: Sequence[Sequence[int]],
    totals: Sequence[int],
    locale: object,
    *,
    final: bool = False,
    winners: Sequence[int] = (),
    shown: Sequence[str] | None = None,
    room: int = MAX_EMBED,
    slots: int = MAX_FIELDS,
) -> list[JSON]:
    """The sheet's fields (none before the first round ends). ``names`` are the raw seat names (a
    code block shows them as written); ``rounds`` one list of per-seat scores per finished round;
    ``room`` the characters of the embed left for the sheet, ``slots`` the fields. ``final``: the
    whole sheet and the winners (named as message text shows them: ``shown``), else the latest
    ``LIVE_ROUNDS`` rounds."""
    if not rounds:
        return []
    winners = list(winners) if final else []
    per_field = ROUNDS_PER_FIELD if final else LIVE_ROUNDS
    note_room = 60  # "12 earlier rounds not shown", in any language
    fields: list[JSON] = []
    used = 0
    end = len(rounds)
    while end > 0:  # from the latest rounds backwards: the last field holds the totals
        # The final sheet in fixed pages (rounds 1-8, 9-16...); the live one the latest rounds.
        start = (end - 1) // per_field * per_field if final else max(0, end - per_field)
        last = end == len(rounds)
        block = _block(names, rounds[start:end], start + 1, totals if last else None, winners, locale)
        if final:
            if end - start == 1:
                title = t("sheet.title_round", locale, round=end)
            else:
                title = t("sheet.title_rounds", locale, first=start + 1, last=end)
            if last and winners:
                said = ", ".join((shown or names)[s] for s in winners)
                title += " — " + plural("sheet.winner", len(winners), locale, winners=said)
        else:
            title = t("sheet.title", locale)
        field = _field(title, block)
        size = len(field["name"]) + len(field["value"])
        if used + size + note_room > room or len(fields) >= slots:
            break  # no room for these rounds: they are folded
        fields.insert(0, field)
        used += size
        end = start
        if not final:
            break
    if fields and end > 0:
        fields[0]["value"] = (fields[0]["value"] + "\n" + plural("sheet.folded", end, locale))[:MAX_FIELD]
    return fields


def add_sheet(
    embed: JSON,
    view: Mapping[str, Any],
    names: Sequence[str],
    shown: Sequence[str],
    locale: object,
    *,
    over: bool,
) -> None:
    """Append a game's sheet to its table embed, in the room its other parts leave: the finished
    rounds' scores, the totals and, once ``over``, the whole sheet with the winners (a game's public
    view carries ``rounds`` (each with its ``scores``), ``totals`` and ``winners``)."""
    embed["fields"].extend(
        sheet_fields(
            names,
            [played["scores"] for played in view["rounds"]],
            view["totals"],
            locale,
            final=over,
            winners=view["winners"] if over else (),
            shown=shown,
            room=SHEET_RESERVE - embed_size(embed),
            slots=SHEET_SLOTS - len(embed["fields"]),
        )
    )
