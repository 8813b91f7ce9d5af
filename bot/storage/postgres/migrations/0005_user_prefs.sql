-- 0005: a player's own choices (issue 28).
-- The PostgreSQL twin of bot/storage/sqlite/migrations/0005_user_prefs.sql.

CREATE TABLE user_prefs (
    user_id         BIGINT  PRIMARY KEY,
    notify          INTEGER,                 -- 0: no direct message when a long game's turn comes
    cards           TEXT,                    -- 'colourblind': cards with shapes besides colours
    table_view      TEXT,                    -- 'text': the table in words in the private panel
    locale          TEXT,                    -- the user's Discord language, as their last click or command
                                             -- said (a long game's direct messages use it); NULL: unknown
    updated_at      BIGINT  NOT NULL
);
