"""Helpers the tests and the benchmarks share with the bot's package (never imported by the bot itself)."""
