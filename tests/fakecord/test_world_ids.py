"""A fake whose world takes pinned ids: the same at every start (the sandbox's --keep), new ids after."""

from __future__ import annotations

from fakecord import FakeDiscord
from fakecord.clock import SnowflakeFactory

FIRST = 1_000 << 22


def test_a_pinned_world_has_the_same_ids_at_every_start_and_what_follows_is_newer() -> None:
    one, two = FakeDiscord(world_first_id=FIRST), FakeDiscord(world_first_id=FIRST)
    assert one.guild.id == two.guild.id and one.bot_user.id == FIRST
    assert [c.id for c in one.guild.channels] == [c.id for c in two.guild.channels]
    assert sorted(u.id for u in one.users.values()) == sorted(u.id for u in two.users.values())
    later = one.new_id()
    assert later > max(one.users) and later >> 22 > 1_000  # from the clock again
    assert FakeDiscord().guild.id != one.guild.id


def test_the_factory_counts_from_the_pin_then_follows_the_clock() -> None:
    ids = SnowflakeFactory(pinned=FIRST)
    assert [ids(), ids()] == [FIRST, FIRST + 1]
    ids.unpin()
    assert ids() > FIRST + 1
