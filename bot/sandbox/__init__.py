"""The sandbox: the real bot against a local stand-in for Discord, played in a browser.

``python -m bot sandbox`` (see :mod:`bot.sandbox.run` and docs/sandbox.md). :mod:`bot.sandbox.discord`
is the wire-level fake Discord the end-to-end tests use; :mod:`bot.sandbox.server` serves the page.
"""
