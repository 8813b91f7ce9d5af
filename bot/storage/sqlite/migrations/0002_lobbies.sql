-- 0002: lobbies, the tables being formed before a game is dealt.
-- A lobby is open until its host starts it (it then points at the game it became) or cancels it.

CREATE TABLE lobbies (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER,
    channel_id      INTEGER NOT NULL,
    kind            TEXT    NOT NULL,        -- the game the lobby is for: 'skyjo'
    host_id         INTEGER NOT NULL,
    message_id      INTEGER,                 -- the public lobby message (it becomes the table message)
    options         TEXT    NOT NULL,        -- the engine's Options.to_dict() as JSON
    seats           TEXT    NOT NULL,        -- JSON list of {"user_id", "ai_level", "name"} in seat order
    status          TEXT    NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'started', 'cancelled')),
    game_id         INTEGER REFERENCES games (id),  -- the game it became, once started
    version         INTEGER NOT NULL DEFAULT 0,      -- bumped by every change, for optimistic updates
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

-- At most one open lobby per channel, enforced by the schema.
CREATE UNIQUE INDEX lobbies_one_open_per_channel ON lobbies (channel_id) WHERE status = 'open';
