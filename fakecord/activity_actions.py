"""What a user does with the app's Activity from Discord's client: run its Entry Point command from the
App Launcher (routes_activities.py holds the rules and the instances).

The Entry Point command's ``handler`` decides what happens (application-commands docs, "Entry Point
handlers"): with 2 ``DISCORD_LAUNCH_ACTIVITY`` Discord launches the Activity itself and posts a message
in the channel, without coordinating with the app (the bot receives no interaction, only that message's
MESSAGE_CREATE when it has the message intents); with 1 ``APP_HANDLER`` the bot receives the command's
interaction (``data.type`` 4) and answers it, with LAUNCH_ACTIVITY or anything a command may take.
"""

from __future__ import annotations

from fakecord.actions import UserActions
from fakecord.errors import FakeDiscordError, InteractionRefused
from fakecord.interaction import FakeInteraction
from fakecord.routes_activities import DISCORD_LAUNCH_ACTIVITY, PRIMARY_ENTRY_POINT
from fakecord.state import FakeChannel, FakeMessage, FakeUser

# The message type Discord gives an application command's message (CHAT_INPUT_COMMAND).
COMMAND_MESSAGE_TYPE = 20


class ActivityActions(UserActions):
    """The user's side of the Activity: running the Entry Point command."""

    async def run_entry_point(self, user: FakeUser, channel: FakeChannel) -> FakeInteraction:
        """``user`` runs the app's Entry Point command in ``channel`` (the App Launcher's button).

        Handler 2: Discord launches the Activity (``activity_launched_by(handle)`` is the instance) and
        posts its message in the channel (``handle.original_message``); the handle never reaches the
        bot. Handler 1: the bot receives the interaction; ``await handle.response()`` is its answer, and
        ``activity_launched_by(handle)`` the instance once it answered LAUNCH_ACTIVITY.

        Raises :class:`InteractionRefused` where Discord's client offers no launch (Activities not
        enabled, a channel where an Activity cannot run, no Use Activities permission), and
        :class:`FakeDiscordError` when the app has no Entry Point command."""
        refusal = self._activity_refusal(user, channel)
        if refusal is not None:
            raise InteractionRefused(
                f"{user.username} cannot launch the Activity in {channel.id}: {refusal[1]}"
            )
        command = self.entry_point_command()
        if command is None:
            raise FakeDiscordError("the app has no Entry Point command (type 4) to run")
        data = {"id": command["id"], "name": command["name"], "type": PRIMARY_ENTRY_POINT}
        inter = FakeInteraction(
            self, type=2, user=user, channel=channel, data=data, command_name=command["name"]
        )
        self._place(inter, self._command_owners(command, channel, user))  # offered there (places.py)
        if command.get("handler") != DISCORD_LAUNCH_ACTIVITY:
            return await self._send_interaction(inter)
        self.activity_launches[inter.id] = self._join_or_launch(user, channel)
        message = FakeMessage(
            self.new_id(),
            channel.id,
            channel.guild_id,
            self.bot_user,
            type=COMMAND_MESSAGE_TYPE,
            interaction=inter,
            webhook_id=self.application_id,
        )
        self.messages[message.id] = message
        inter.original_message = message
        await self._message_event("MESSAGE_CREATE", message)
        self._notify()
        return inter
