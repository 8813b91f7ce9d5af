-- 0012: where each shard's Activity listens for the other processes of a fleet (issue 50). The
-- PostgreSQL twin of bot/storage/sqlite/migrations/0012_activity_peers.sql.

CREATE TABLE activity_peers (
    shard_count     INTEGER NOT NULL,        -- SHARD_COUNT of the fleet that wrote it
    shard           INTEGER NOT NULL,
    url             TEXT    NOT NULL,        -- http://host:port of that shard's process, for its peers
    updated_at      BIGINT  NOT NULL,        -- ms since the epoch: when its holder last wrote it
    PRIMARY KEY (shard_count, shard)
);
