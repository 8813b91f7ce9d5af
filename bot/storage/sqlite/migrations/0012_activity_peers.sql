-- 0012: where each shard's Activity listens for the other processes of a fleet (issue 50). A process
-- writes one row per shard it holds, with the address its Activity answers its peers on
-- (ACTIVITY_PEER_URL), each time it takes its shards and serves them; a process that gets a page of a
-- table it does not serve relays it there (bot/activity/relay.py). One process on SQLite serves every
-- shard and never writes here: the table exists so that both schemas stay twins (migrate-db).

CREATE TABLE activity_peers (
    shard_count     INTEGER NOT NULL,        -- SHARD_COUNT of the fleet that wrote it
    shard           INTEGER NOT NULL,
    url             TEXT    NOT NULL,        -- http://host:port of that shard's process, for its peers
    updated_at      INTEGER NOT NULL,        -- ms since the epoch: when its holder last wrote it
    PRIMARY KEY (shard_count, shard)
);
