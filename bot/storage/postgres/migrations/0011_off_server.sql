-- 0011: games and lobbies where the bot has no server (issue 49). The PostgreSQL twin of
-- bot/storage/sqlite/migrations/0011_off_server.sql: off_server = 1 in a group DM, a DM, or a server the
-- bot is not a member of (rated on the channel's own board only; bot/storage/venues.py).

ALTER TABLE games ADD COLUMN off_server INTEGER NOT NULL DEFAULT 0 CHECK (off_server IN (0, 1));
ALTER TABLE lobbies ADD COLUMN off_server INTEGER NOT NULL DEFAULT 0 CHECK (off_server IN (0, 1));
UPDATE games SET off_server = 1 WHERE guild_id IS NULL;
UPDATE lobbies SET off_server = 1 WHERE guild_id IS NULL;

CREATE INDEX games_off_server_by_channel ON games (channel_id, finished_at) WHERE off_server = 1;
