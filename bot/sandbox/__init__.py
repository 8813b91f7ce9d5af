"""The sandbox: the real bot against a local stand-in for Discord, played in a browser.

``python -m bot sandbox`` (see :mod:`bot.sandbox.run` and docs/sandbox.md). The stand-in is
:mod:`fakecord`, the wire-level fake Discord the end-to-end tests use too, a top-level package of its
own; :mod:`bot.sandbox.server` serves the page. This folder is the one place of the bot that imports
``fakecord`` (and ``bot/command_check.py`` its ``fakecord.openapi``: see
``tests/unit/test_fakecord_apart.py``).
"""
