"""The first answer to an interaction, on time: a retry policy for interaction callbacks that keeps
to Discord's 3-second deadline.

Discord drops an interaction whose callback (``POST /interactions/{id}/{token}/callback``) has not
landed within 3 s of its creation: the user sees "This interaction failed" and a later callback gets
404/10062. discord.py's webhook adapter retries a 429 after its ``retry_after`` and a 5xx after 1 s,
3 s, 5 s..., blind to that deadline: two 5xx in a row already miss it, and a 5xx that Discord sent
*after* acting on the callback makes the retry fail with 400/40060 "already acknowledged".

:class:`bot.discord_patches.OnTimeAdapter` replaces that policy for the callback route only (every
other webhook route, follow-ups and edits of the original response, has 15 minutes and keeps
discord.py's):

* the deadline is the interaction's creation (its snowflake, Discord's clock) + 3 s - ``MARGIN``;
* the first attempt is always made (our clock may differ a little from Discord's), a retry only if it
  can start before the deadline;
* a 429 is retried after its ``retry_after`` if that is before the deadline (else given up at once);
* a 5xx or a broken connection is retried soon (0.1 s, 0.25 s, then every 0.5 s);
* a 40060 after such an attempt means an earlier attempt landed: it is a success (an answer without
  the response body, as for a callback sent without ``with_response``).

It also asks for the callback's response body only when the bot reads it (:func:`wants_body`):
discord.py asks for it always (``?with_response=1``) and builds an ``InteractionMessage`` of the
answered message from it, every button of a private panel included; only a new public message (the
lobby: its id is kept) is read. Issue 26 measured that parsing among the largest costs of a click.

A move on a private panel is answered by its new panel when its commit is done within
:data:`ANSWER_BY` (2 s) of the click, else acknowledged then (:meth:`bot.ui.answers.Answers.race`):
the last second of the window is for this policy's retries.

This module holds the policy (the deadline, the pauses, which answers are read: :data:`POLICY`); the
adapter that applies it is a patch of discord.py's webhook adapter, with the others in
:mod:`bot.discord_patches` (:func:`~bot.discord_patches.answer_on_time`, given :data:`POLICY` by
``setup_hook``). The patch knows Discord's facts (the callback's route, its 3-second window, the code
40060) and decides nothing: it imports nothing of ``bot.ui``, the installer hands it the policy
(``tests/unit/test_imports.py`` holds the layers). discord.py takes its webhook
adapter from the context variable ``discord.webhook.async_.async_context``, and every event handler
(clicks, slash commands: the command tree's tasks too) runs in a task created from the connection's
task, which copies the variable.
"""

from __future__ import annotations

import time
from typing import Any

import discord

from bot.discord_patches import CALLBACK_WINDOW, CallbackPolicy

MARGIN = 0.25  # seconds kept for the last attempt's own trip to Discord
# A move on a private panel whose commit is done by this many seconds after the click's creation is
# answered by the new panel in its one callback (type 7); else it is acknowledged then (a deferred
# update, type 6) and the panel edited after the commit. What is left of the window (1 s, less
# MARGIN) is the callback's room for the retries above.
ANSWER_BY = 2.0
RETRY_5XX = (0.1, 0.25, 0.5)  # pauses before retrying a 5xx (the last one repeats)

EPHEMERAL = 1 << 6
# Callback types whose answer the bot never reads: a deferred update (6), an update of the clicked
# message (7), an autocomplete result (8) and a modal (9).
NO_BODY_TYPES = frozenset({6, 7, 8, 9})


def wants_body(payload: dict[str, Any] | None) -> bool:
    """True when the bot reads this callback's response body: a new or deferred message that is not
    ephemeral (its id is the public message's, e.g. a lobby's). Sent as multipart (files): kept."""
    if payload is None:
        return True
    kind = payload.get("type")
    if kind in NO_BODY_TYPES:
        return False
    data = payload.get("data") or {}
    return not int(data.get("flags") or 0) & EPHEMERAL


def answer_budget(interaction_id: int) -> float:
    """Seconds left (maybe negative) until :data:`ANSWER_BY` after this interaction's creation: how
    long a click on a private panel may wait for its commit before it is acknowledged first."""
    created = discord.utils.snowflake_time(interaction_id).timestamp()
    return created + ANSWER_BY - time.time()


def callback_deadline(interaction_id: int) -> float:
    """The wall-clock time (``time.time()``) after which no retry of this callback is started."""
    created = discord.utils.snowflake_time(interaction_id).timestamp()
    return created + CALLBACK_WINDOW - MARGIN


POLICY = CallbackPolicy(deadline=callback_deadline, wants_body=wants_body, pauses=RETRY_5XX)
