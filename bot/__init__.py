"""Skybo: a Discord bot that hosts Skyjo and Skip-Bo tables."""

__version__ = "0.1.0"
