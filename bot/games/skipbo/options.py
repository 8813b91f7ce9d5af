"""The integer options a Skip-Bo table offers, with their bounds: ``SKIPBO.option_ranges``, which the
table service checks and ``/skipbo new`` declares to Discord (tests/e2e/test_option_ranges.py)."""

from __future__ import annotations

from collections.abc import Mapping

# Omitted, stock_size is the official size (SB-SETUP-1); given, 5 to 30 (SB-VAR-FAST-1).
OPTION_RANGES: Mapping[str, tuple[int, int]] = {"stock_size": (5, 30)}
