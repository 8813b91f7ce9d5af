"""The Activity's sessions and settings (bot/activity/sessions.py): signed, bound, expiring, never naming
the secret."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from bot.activity.sessions import ActivitySettings, ChannelSession, Session

SESSION = Session(user=12, name="Alice", channel=34, table=5, language="fr", expires=2_000.0)


def test_a_session_reads_back_only_with_its_key_and_before_it_expires() -> None:
    signed = SESSION.sign(b"key")
    assert Session.read(signed, b"key", now=1_000.0) == SESSION
    assert Session.read(signed, b"another key", now=1_000.0) is None
    assert Session.read(signed, b"key", now=2_000.0) is None  # expired
    body, _, mac = signed.partition(".")
    other = Session(user=12, name="Alice", channel=99, table=5, language="fr", expires=2_000.0).sign(b"key")
    assert Session.read(f"{other.partition('.')[0]}.{mac}", b"key", now=1_000.0) is None  # moved
    for forged in ("", ".", "x.y", f"{body}.", f"{body}!.{mac}"):
        assert Session.read(forged, b"key", now=1_000.0) is None


def test_a_channel_session_is_no_tables_session_nor_the_other_way_round() -> None:
    """Where no table is, the sign-in answers a channel session (user, channel, server): it opens a
    table there but never joins one, and a table's session never opens a table."""
    channel = ChannelSession(user=12, name="Alice", channel=34, guild=56, language="fr", expires=2_000.0)
    signed = channel.sign(b"key")
    assert ChannelSession.read(signed, b"key", now=1_000.0) == channel
    assert ChannelSession.read(signed, b"key", now=2_000.0) is None  # expired
    assert ChannelSession.read(signed, b"another key", now=1_000.0) is None
    assert Session.read(signed, b"key", now=1_000.0) is None
    assert ChannelSession.read(SESSION.sign(b"key"), b"key", now=1_000.0) is None
    private = ChannelSession(user=12, name="A", channel=34, guild=None, language="en", expires=2_000.0)
    assert ChannelSession.read(private.sign(b"key"), b"key", now=1_000.0) == private


def test_the_settings_come_from_the_environment() -> None:
    assert ActivitySettings.from_env({}) is None  # the Activity is optional
    settings = ActivitySettings.from_env({"ACTIVITY_PORT": "8443", "DISCORD_CLIENT_SECRET": "s3cret"})
    assert settings is not None and (settings.port, settings.host) == (8443, "127.0.0.1")
    assert "s3cret" not in repr(settings)
    assert settings.key == ActivitySettings(port=1, client_secret="s3cret").key != b"s3cret"
    keyed = ActivitySettings.from_env(
        {"ACTIVITY_PORT": "1", "DISCORD_CLIENT_SECRET": "s", "ACTIVITY_SESSION_KEY": "k" * 32}
    )
    assert keyed is not None and keyed.key == b"k" * 32
    with pytest.raises(ValueError, match="DISCORD_CLIENT_SECRET"):
        ActivitySettings.from_env({"ACTIVITY_PORT": "8443"})
    with pytest.raises(ValueError, match="port number"):
        ActivitySettings.from_env({"ACTIVITY_PORT": "https", "DISCORD_CLIENT_SECRET": "s"})


def test_a_session_names_its_server_and_one_signed_without_it_signs_in_again() -> None:
    """The instance's server decides which process of a fleet serves the table (bot/activity/relay.py)."""
    in_guild = Session(user=12, name="A", channel=34, table=5, language="en", expires=2_000.0, guild=99 << 22)
    for session in (in_guild, SESSION):  # SESSION: no server (a group DM)
        assert Session.read(session.sign(b"key"), b"key", now=1_000.0) == session
    claims = {"u": "12", "n": "A", "c": "34", "t": 5, "l": "en", "e": 2_000.0}  # signed before fleets
    body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode()
    mac = hmac.new(b"key", body.encode(), hashlib.sha256).hexdigest()
    assert Session.read(f"{body}.{mac}", b"key", now=1_000.0) is None


def test_a_fleets_process_says_where_its_peers_reach_its_activity() -> None:
    base = {"ACTIVITY_PORT": "0", "DISCORD_CLIENT_SECRET": "s"}
    settings = ActivitySettings.from_env(base)
    assert settings is not None and settings.peer_address(8443) == "http://127.0.0.1:8443"
    settings = ActivitySettings.from_env({**base, "ACTIVITY_HOST": "::1"})
    assert settings is not None and settings.peer_address(8443) == "http://[::1]:8443"
    settings = ActivitySettings.from_env({**base, "ACTIVITY_PEER_URL": "http://bot-1:8080/"})
    assert settings is not None and settings.peer_address(8443) == "http://bot-1:8080"
    for bad in ("bot-1:8080", "ftp://bot-1", "http://" + "a" * 600):
        with pytest.raises(ValueError, match="ACTIVITY_PEER_URL"):
            ActivitySettings.from_env({**base, "ACTIVITY_PEER_URL": bad})
