-- 0004: server settings, chosen by a server's admins with /skybo settings (issue 28).
-- One row per server that changed something; a server without a row uses the defaults. NULL is the
-- default everywhere: no turn limit of the server's own (the bot's), every channel, the server's
-- language for public messages, games with computer players rated.

CREATE TABLE server_settings (
    guild_id        INTEGER PRIMARY KEY,
    turn_limit      INTEGER,                 -- seconds, one of bot.service.TURN_LIMITS
    channels        TEXT,                    -- JSON list of the channel ids where games may be opened
    language        TEXT,                    -- 'en' or 'fr': the fixed language of public messages
    rate_computers  INTEGER,                 -- 0: a game dealt with a computer player is not rated
    updated_at      INTEGER NOT NULL
);
