-- 0008: seasons (issue 41): a server's leaderboards start afresh while the all-time ones go on.
-- A season runs from /skybo season start until /skybo season end; at most one runs per server. Its
-- ratings are ordinary rows of `ratings` and `rating_history` in the scope -id (the season's id,
-- negated: Discord ids are positive and the global scope is 0, so it never equals either), written in
-- the transaction that ends each game (bot/storage/ratings.py). `podium` keeps what its end showed.

CREATE TABLE seasons (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER NOT NULL,
    name            TEXT    NOT NULL,        -- as its admin wrote it, 1 to 50 characters
    folded          TEXT    NOT NULL,        -- the name case-folded: two seasons never share it
    started_at      INTEGER NOT NULL,
    started_by      INTEGER NOT NULL,
    ended_at        INTEGER,                 -- NULL while it runs
    ended_by        INTEGER,
    podium          TEXT                     -- JSON, written at its end: {kind: [{place, player, ...}]}
);

CREATE UNIQUE INDEX seasons_by_name ON seasons (guild_id, folded);
-- At most one running season per server, enforced by the schema.
CREATE UNIQUE INDEX seasons_one_running ON seasons (guild_id) WHERE ended_at IS NULL;
