"""The seasons part of the service (bot/service/seasons.py), over a real SQLite file, no Discord: the
rules of a season's name (a property test), one season at a time, the board a ``season:`` choice
names, and a restart in the middle."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.service import Refused
from bot.service.seasons import ALL_TIME, MAX_NAME, season_name
from bot.storage.seasons import fold

from .conftest import GUILD, Services

ADMIN = 900


@given(st.text(max_size=70))
def test_an_accepted_name_is_short_visible_one_line_and_never_the_word_for_all_time(raw: str) -> None:
    try:
        name = season_name(raw)
    except Refused as refused:
        assert refused.key.startswith("season.error.name_")
        cleaned = " ".join(raw.split())
        assert (
            not cleaned
            or len(cleaned) > MAX_NAME
            or cleaned.casefold() == ALL_TIME
            or any(unicodedata.category(c)[0] == "C" for c in cleaned)
        )
        return
    assert 1 <= len(name) <= MAX_NAME and name == name.strip() and "\n" not in name
    assert name.casefold() != ALL_TIME and fold(name) == fold(f"  {name} ") == fold(name.casefold())
    assert not any(unicodedata.category(c)[0] == "C" for c in name)


async def test_one_season_at_a_time_its_board_by_name_and_a_restart(services: Services) -> None:
    service = await services.start()
    assert await service.board_season(GUILD, None) is None  # no season: the all-time board
    spring = await service.start_season(GUILD, "  Spring   2026 ", ADMIN)
    assert spring.name == "Spring 2026"
    with pytest.raises(Refused) as refused:
        await service.start_season(GUILD, "Summer", ADMIN)
    assert (refused.value.key, refused.value.params) == ("season.error.running", {"name": "Spring 2026"})
    service = await services.restart(service)  # a new process: the season still runs
    running = await service.board_season(GUILD, None)
    assert running is not None and running.id == spring.id
    assert await service.board_season(GUILD, " ALL ") is None
    assert await service.board_season(None, "Spring 2026") is None  # outside a server: no season
    with pytest.raises(Refused) as refused:
        await service.board_season(GUILD, "Winter")
    assert refused.value.key == "season.error.unknown"
    ended = await service.end_season(GUILD, ADMIN)
    assert ended.id == spring.id and not ended.running and ended.podium == {}
    with pytest.raises(Refused) as refused:
        await service.end_season(GUILD, ADMIN)
    assert refused.value.key == "season.error.none_running"
    named = await service.board_season(GUILD, "spring 2026")
    assert named is not None and named.id == spring.id
    assert (await service.ended_season(GUILD, None)).id == spring.id
    with pytest.raises(Refused) as refused:
        await service.start_season(GUILD, "SPRING 2026", ADMIN)
    assert refused.value.key == "season.error.name_taken"
    with pytest.raises(Refused) as refused:
        await service.start_season(None, "Anything", ADMIN)
    assert refused.value.key == "season.error.guild_only"
    assert [s.name for s in await service.seasons_of(GUILD)] == ["Spring 2026"]
