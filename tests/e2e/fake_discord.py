"""The wire-level fake Discord now lives in the package: :mod:`bot.sandbox.fake_discord`.

This module *is* that module under its historical name (``sys.modules`` alias), so the tests'
``from .fake_discord import ...`` keep working unchanged, private names included, and there is only
one set of classes.
"""

from __future__ import annotations

import sys

from bot.sandbox import fake_discord as _fake_discord

sys.modules[__name__] = _fake_discord
