-- 0001: games, their seats and action logs, results, ratings and rating history.
-- Times are unix milliseconds (INTEGER). Discord ids are INTEGER (64-bit). JSON is stored as TEXT.

CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER,                 -- NULL outside a server (a DM, the terminal)
    channel_id      INTEGER NOT NULL,
    kind            TEXT    NOT NULL,        -- bot.engine KIND: 'skyjo', 'skipbo'
    options         TEXT    NOT NULL,        -- the engine's Options.to_dict() as JSON
    seed            INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'active'
                    CHECK (status IN ('active', 'finished', 'cancelled', 'quarantined')),
    rated           INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1)),
    host_id         INTEGER,                 -- the user who opened the table
    message_id      INTEGER,                 -- the public table message
    version         INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),  -- = number of logged actions
    snapshot        TEXT    NOT NULL,        -- a cache of the engine's to_dict() after `version` actions
    snapshot_hash   TEXT    NOT NULL,        -- blake2b of `snapshot`, to catch a damaged cache cheaply
    meta            TEXT    NOT NULL DEFAULT '{}',  -- free JSON for the service
    note            TEXT,                    -- why a game was cancelled or quarantined
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    finished_at     INTEGER
);

-- At most one active game per channel, enforced by the schema.
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status = 'active';
CREATE INDEX games_by_status ON games (status);

CREATE TABLE game_seats (
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    user_id         INTEGER,                 -- a Discord user, or NULL for a computer player
    ai_level        TEXT,                    -- the computer player's level, or NULL for a person
    display_name    TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
) WITHOUT ROWID;
CREATE INDEX game_seats_by_user ON game_seats (user_id) WHERE user_id IS NOT NULL;

-- The action log is the truth; seq runs 1, 2, 3... and the game's version is its last seq.
CREATE TABLE game_actions (
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL CHECK (seq >= 1),
    seat            INTEGER NOT NULL,
    action          TEXT    NOT NULL,        -- the engine's action.to_dict() as JSON
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TABLE game_results (
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat            INTEGER NOT NULL,
    rank            INTEGER NOT NULL CHECK (rank >= 1),  -- 1 = winner; equal results share a rank
    total           INTEGER,
    round_scores    TEXT    NOT NULL DEFAULT '[]',     -- JSON list, one score per round
    stats           TEXT    NOT NULL DEFAULT '{}',     -- JSON counters, e.g. {"columns_cleared": 2}
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;

-- Storage's own bookkeeping, e.g. 'engine:skyjo' -> the fingerprint of the engine code that wrote the
-- snapshots: when the code changes, the next start verifies every snapshot of that kind by replay.
CREATE TABLE storage_state (
    key             TEXT    PRIMARY KEY,
    value           TEXT    NOT NULL
) WITHOUT ROWID;

-- One row per (game kind, scope, player). scope is the guild id, or 0 for the global board.
-- player is 'user:<discord id>' or 'ai:<level>' (every computer player of a level shares one row).
CREATE TABLE ratings (
    kind            TEXT    NOT NULL,
    scope           INTEGER NOT NULL,
    player          TEXT    NOT NULL,
    display_name    TEXT    NOT NULL,
    mu              REAL    NOT NULL,
    sigma           REAL    NOT NULL,
    -- The board's order: a conservative estimate (openskill's ordinal), always mu - 3 sigma. A plain
    -- column rather than a generated one, so ratings_board covers the ranking query.
    conservative    REAL    NOT NULL,
    games           INTEGER NOT NULL DEFAULT 0,
    wins            INTEGER NOT NULL DEFAULT 0,
    round_count     INTEGER NOT NULL DEFAULT 0,
    round_sum       INTEGER NOT NULL DEFAULT 0,
    round_min       INTEGER,
    round_max       INTEGER,
    stats           TEXT    NOT NULL DEFAULT '{}',     -- JSON counters summed over games
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (kind, scope, player)
) WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings (kind, scope, conservative DESC, games DESC, player);

-- How many players each board has (kept by triggers), so a page needs no count of the whole scope.
CREATE TABLE rating_boards (
    kind            TEXT    NOT NULL,
    scope           INTEGER NOT NULL,
    players         INTEGER NOT NULL,
    PRIMARY KEY (kind, scope)
) WITHOUT ROWID;

CREATE TRIGGER ratings_counted AFTER INSERT ON ratings BEGIN
    INSERT INTO rating_boards (kind, scope, players) VALUES (new.kind, new.scope, 1)
    ON CONFLICT (kind, scope) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER ratings_uncounted AFTER DELETE ON ratings BEGIN
    UPDATE rating_boards SET players = players - 1 WHERE kind = old.kind AND scope = old.scope;
END;

-- Before and after of every rating change, so the change and the trend can be shown.
CREATE TABLE rating_history (
    game_id         INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind            TEXT    NOT NULL,
    scope           INTEGER NOT NULL,
    player          TEXT    NOT NULL,
    rank            INTEGER NOT NULL,
    mu_before       REAL    NOT NULL,
    sigma_before    REAL    NOT NULL,
    mu_after        REAL    NOT NULL,
    sigma_after     REAL    NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (game_id, scope, player)
) WITHOUT ROWID;
CREATE INDEX rating_history_by_player ON rating_history (kind, scope, player, created_at);
