"""The one door for clicks: a table from custom_id prefix to handler, for every component the bot sends.

Every component the bot posts has a custom_id ``<prefix>:<rest>`` that carries all its click needs, so
nothing is kept per message and buttons on messages posted before a restart (or a deploy) keep working.
Each prefix registers one :class:`Route`: its id pattern, its handler, and the refusal a forged id gets.
Today's routes (their id formats must never change: posted messages keep their buttons):

==========  ===========================================  =========================================
prefix      custom_id                                    registered by
==========  ===========================================  =========================================
``sk:`` …   ``<game prefix>:<game>:<version>:<act>:<arg>``  :meth:`bot.ui.clicks.TableUI.routes` (one
            (one prefix per game of the registry)           per game, :mod:`bot.games.buttons`)
``sl:``     ``sl:<lobby>:<act>``                          :meth:`bot.ui.clicks.TableUI.routes`
``sf:``     ``sf:<lobby>:<page>`` (a modal: the lobby's   :meth:`bot.ui.clicks.TableUI.routes`
            set-up form, :mod:`bot.ui.setup_form`)
``lb:``     ``lb:<kind>:<server|global>:<page>[:h]``      ``cogs/stats.py`` (:mod:`bot.ui.boards`)
``rpl:``    ``rpl:<game>:<step>:<p|n|e|r|g|s|b>``         ``cogs/replay.py`` (:mod:`bot.ui.replay`)
==========  ===========================================  =========================================

It is discord.py's ``DynamicItem`` pattern (a template per kind of button, registered once), without
its cost: a DynamicItem rebuilds a View of the whole clicked message (a Button object per component)
for every click, which counts when hundreds of games are played at once. ``SkyboBot.on_interaction``
hands every component interaction (and every modal submit: its id is the modal's) to
:meth:`Router.dispatch`, which:

1. finds the route of the id's prefix (everything up to its first ``:``);
2. checks the click once, for every route (the one forgery check): the id matches the route's pattern
   whole, and is on a component of the clicked message (as Discord and a DynamicItem ensure; a route
   may waive that, see :attr:`Route.on_message`), and the route's own ``accepts`` agrees. Any other
   click (a malformed id, an id not on its message) is logged at INFO as forged and answered with the
   route's localized "this button is not valid" to the clicker only; nothing changes. An id of no
   known prefix is not ours (another app's component never reaches us): it is left unanswered;
3. runs the handler; whatever it raises goes through the one error funnel (:mod:`bot.ui.errors`),
   shared with the slash commands (``SkyboTree.on_error``);
4. then the route's ``after`` (the tables' "the bot cannot post here" word), if any.

Cogs register their routes when they load and remove them when they unload (``cog_load`` /
``cog_unload``), as discord.py's ``add_dynamic_items`` would.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.i18n import translate as t
from bot.ui import errors, ids

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
Handler = Callable[[Interaction, str], Awaitable[None]]
FORGED = "table.error.forged"  # a route's refusal of a forged id, unless it says another


@dataclass(frozen=True)
class Route:
    """How the clicks of one custom_id prefix are taken."""

    prefix: str  # up to and with its ":" (``"lb:"``)
    pattern: re.Pattern[str]  # the whole id (``fullmatch``)
    handler: Handler  # (interaction, custom_id): the click's work, already checked
    forged_key: str = FORGED  # the catalogue key answered to a click refused as forged
    # The id must be on a component of the clicked message. A replay waives it: its handler checks the
    # game itself and answers an unknown game exactly as another server's (ids are not revealed).
    on_message: bool = True
    accepts: Callable[[Interaction, re.Match[str]], bool] | None = None  # a route's own extra check
    after: Handler | None = None  # once the click is handled (even if it failed)

    def __post_init__(self) -> None:
        if not self.prefix.endswith(":") or ":" in self.prefix[:-1]:
            raise ValueError(f"a route's prefix ends with its only ':' ({self.prefix!r})")


def prefix_of(custom_id: str) -> str:
    """The prefix of a custom_id, with its ``:`` (``""`` when it has none)."""
    colon = custom_id.find(":")
    return custom_id[: colon + 1] if colon > 0 else ""


def on_message(interaction: Interaction, custom_id: str) -> bool:
    """True when the clicked message really carries a component with this custom_id."""
    message = interaction.message
    if message is None:
        return False
    for row in message.components:
        for child in getattr(row, "children", ()):
            if getattr(child, "custom_id", None) == custom_id:
                return True
    return False


class Router:
    """The table of routes, and the door every component click comes through."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}

    def add(self, *routes: Route) -> None:
        for route in routes:
            if route.prefix in self.routes:
                raise ValueError(f"two routes for the custom_id prefix {route.prefix!r}")
            self.routes[route.prefix] = route

    def remove(self, *prefixes: str) -> None:
        for prefix in prefixes:
            self.routes.pop(prefix, None)

    def checked(self, interaction: Interaction, custom_id: str) -> Route | None:
        """The route of this click, when the click passes the forgery check (module docstring, step 2)."""
        route = self.routes.get(prefix_of(custom_id))
        if route is None or len(custom_id) > ids.MAX_CUSTOM_ID:
            return None
        match = route.pattern.fullmatch(custom_id)
        if match is None or (route.on_message and not on_message(interaction, custom_id)):
            return None
        if route.accepts is not None and not route.accepts(interaction, match):
            return None
        return route

    async def dispatch(self, interaction: Interaction) -> None:
        """Take one component interaction (see the module docstring)."""
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        known = self.routes.get(prefix_of(custom_id))
        if known is None:  # not one of our prefixes: not ours to answer
            log.debug("click on a foreign component ignored", extra={"custom_id": ids.loggable(custom_id)})
            return
        route = self.checked(interaction, custom_id)
        if route is None:
            log.info(
                "forged click refused",
                extra={"user_id": interaction.user.id, "custom_id": ids.loggable(custom_id)},
            )
            await errors.tell(interaction, t(known.forged_key, interaction.locale))
            return
        try:
            await route.handler(interaction, custom_id)
        except Exception as error:
            await errors.answer_error(interaction, error, "click")
        if route.after is not None:
            await route.after(interaction, custom_id)


__all__ = ["FORGED", "Handler", "Route", "Router", "on_message", "prefix_of"]
