"""The table as a Discord Activity (issue 50): the web page Discord embeds in a channel or a call, served
by the bot. For now only its static files: ``static/vendor/`` holds Discord's Embedded App SDK, bundled
from npm with its licence and a SOURCE.md (``make activity-sdk`` refreshes it, ``devtools/activity_sdk.py``),
so that serving the page needs no build step.
"""
