-- 0009: tournaments (issue 41).
-- A tournament is its options, its seed and its players; its rounds are its tables (a bye is a table of
-- one, with no game). Standings are computed from the tables' results (bot/tournament/pairing.py), so
-- the stored truth is only what happened: who joined or dropped, who sat where, how each table ended.

CREATE TABLE tournaments (
    id                   INTEGER PRIMARY KEY,
    guild_id             INTEGER NOT NULL,
    channel_id           INTEGER NOT NULL,        -- where its messages are; its tables are threads of it
    organiser_id         INTEGER NOT NULL,
    kind                 TEXT    NOT NULL,        -- the game played at every table
    format               TEXT    NOT NULL CHECK (format IN ('swiss', 'knockout')),
    seats                INTEGER NOT NULL,        -- the most players at a table
    rounds               INTEGER NOT NULL,
    turn_limit           INTEGER,                 -- seconds; NULL: the server's
    starts_at            INTEGER,                 -- ms since the epoch; NULL: when the organiser starts it
    seed                 INTEGER NOT NULL,        -- the drawing of lots (pairing.lots)
    rated                INTEGER NOT NULL DEFAULT 1,
    computers            INTEGER NOT NULL DEFAULT 0,  -- 1: computer players fill the tables' empty seats
    status               TEXT    NOT NULL DEFAULT 'signup'
                         CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
    round                INTEGER NOT NULL DEFAULT 0,  -- the round being played; 0 before the start
    signup_message_id    INTEGER,
    standings_message_id INTEGER,
    final_message_id     INTEGER,
    winner_id            INTEGER,
    version              INTEGER NOT NULL DEFAULT 0,  -- bumped by every change, for optimistic updates
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);

CREATE INDEX tournaments_by_status ON tournaments (status);

CREATE TABLE tournament_players (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments (id),
    user_id         INTEGER NOT NULL,
    name            TEXT    NOT NULL,
    joined_at       INTEGER NOT NULL,
    dropped_round   INTEGER,                 -- the round they were dropped in (0: before the start)
    PRIMARY KEY (tournament_id, user_id)
);

CREATE TABLE tournament_tables (
    tournament_id   INTEGER NOT NULL REFERENCES tournaments (id),
    round           INTEGER NOT NULL,
    table_no        INTEGER NOT NULL,        -- 1, 2, ... in the round
    players         TEXT    NOT NULL,        -- JSON list of user ids in seat order; a bye: one id
    channel_id      INTEGER,                 -- the thread the table is played in
    game_id         INTEGER REFERENCES games (id),
    result          TEXT,                    -- JSON [[user id (computer: -seat), place], ...] once ended
    status          TEXT    NOT NULL DEFAULT 'seated'
                    CHECK (status IN ('seated', 'playing', 'ended', 'bye')),
    PRIMARY KEY (tournament_id, round, table_no)
);

CREATE INDEX tournament_tables_by_game ON tournament_tables (game_id);
