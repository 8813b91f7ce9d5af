"""Numbers as each language writes them (``27.3`` in English, ``27,3`` in French)."""

from __future__ import annotations

from bot.i18n import language_of


def number(value: float, locale: object, digits: int = 1) -> str:
    """``27.3`` (English) or ``27,3`` (French); never ``-0.0``."""
    text = f"{value:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")
    return text.replace(".", ",") if language_of(locale) == "fr" else text
