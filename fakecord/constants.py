"""Discord's wire constants the fake checks against: the API prefix, the interaction deadlines,
message flags, gateway intents, component types.
"""

from __future__ import annotations

API_PREFIX = "/api/v10"
DISCORD_EPOCH_MS = 1420070400000
CALLBACK_DEADLINE = 3.0  # seconds to give the initial answer to an interaction
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token stays valid
# Follow-ups (Create Followup Message) an interaction may have when only a user install authorized it
# (its authorizing_integration_owners holds USER_INSTALL alone): Discord's docs, then 400 / 40094.
USER_INSTALL_FOLLOWUP_LIMIT = 5
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
# The permissions Discord gives @everyone in a new server (what its guild-creation answer holds): members
# may talk, read, react, use commands and voice, but not manage anything (no Manage Channels, Manage
# Server, Manage Messages, Manage Roles, Administrator). The owner has every permission whatever the roles.
EVERYONE_DEFAULT_PERMISSIONS = 2248473465835073

# gateway
HEARTBEAT_INTERVAL_MS = 41250  # what Discord's HELLO says
# The least time between a heartbeat's arrival and its ACK (op 11): a network round trip (Discord's is
# tens of milliseconds). discord.py's keep-alive thread notes a heartbeat's send time only once the
# event loop has sent it and the thread has the interpreter again; an ACK read before that is measured
# against the previous heartbeat, a whole interval earlier: "Can't keep up, shard ID 0 websocket is
# 41.3s behind." with Discord's interval. A real network never answers that fast; an ACK written at
# once by a fake on the same machine did, about one heartbeat in three (tests/e2e/test_heartbeats.py).
HEARTBEAT_ACK_DELAY_S = 0.05
# Close codes after which Discord wants a new session: the closed one can no longer be resumed (a RESUME
# of it gets INVALID_SESSION). 4007 Invalid seq, 4009 Session timed out.
NEW_SESSION_CLOSE_CODES = {4007: "Invalid seq.", 4009: "Session timed out."}

# installation contexts (application integration types) and interaction contexts
GUILD_INSTALL, USER_INSTALL = 0, 1
GUILD_CONTEXT, BOT_DM_CONTEXT, PRIVATE_CHANNEL_CONTEXT = 0, 1, 2
# channel types of the places the fake models besides guild channels and threads
DM_CHANNEL, GROUP_DM_CHANNEL = 1, 3
GROUP_DM_MAX_RECIPIENTS = 10  # a group DM holds at most 10 users

# message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# gateway intents we care about
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# component types
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
AUTO_SELECTS = (5, 6, 7, 8)  # user, role, mentionable, channel selects
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER = 9, 10, 11, 12, 13, 14, 17
LABEL = 18
FILE_UPLOAD, RADIO_GROUP, CHECKBOX_GROUP, CHECKBOX = 19, 21, 22, 23
# command types
CHAT_INPUT_COMMAND, USER_COMMAND, MESSAGE_COMMAND = 1, 2, 3

# Not Discord's: how long a test's wait for something the bot owes (an answer, a message, a condition)
# may last before it fails. A failure bound, never a pause: a passing wait returns the moment the thing
# happens, so a generous bound costs a passing test nothing, and a starved CPU (a loaded CI machine)
# does not fail a test whose bot is merely slow. What Discord itself times (the 3 s of an interaction's
# first answer, CALLBACK_DEADLINE) is enforced by the fake, not by these waits.
WAIT_S = 60.0
