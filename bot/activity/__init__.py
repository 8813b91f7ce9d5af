"""The table as a Discord Activity (issue 50): the web page Discord embeds in a channel or a call, served
by the bot. ``static/`` is the page (plain ES modules, no build step; ``static/vendor/`` holds Discord's
Embedded App SDK, bundled from npm with its licence and a SOURCE.md: ``make activity-sdk`` refreshes it,
``devtools/activity_sdk.py``); :mod:`~bot.activity.frames` the protocol's frames;
:mod:`~bot.activity.server` the public routes (``ACTIVITY_PORT``); :mod:`~bot.activity.hub` the pages as
a listener of the service's events; :mod:`~bot.activity.sessions` the settings and signed sessions.
docs/activity.md says it all.
"""
