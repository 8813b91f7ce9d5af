-- 0004: server settings, chosen by a server's admins with /skybo settings (issue 28).
-- The PostgreSQL twin of bot/storage/sqlite/migrations/0004_server_settings.sql.

CREATE TABLE server_settings (
    guild_id        BIGINT  PRIMARY KEY,
    turn_limit      INTEGER,                 -- seconds, one of bot.service.TURN_LIMITS
    channels        TEXT,                    -- JSON list of the channel ids where games may be opened
    language        TEXT,                    -- 'en' or 'fr': the fixed language of public messages
    rate_computers  INTEGER,                 -- 0: a game dealt with a computer player is not rated
    updated_at      BIGINT  NOT NULL
);
