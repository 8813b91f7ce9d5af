-- 0011: games and lobbies where the bot has no server (issue 49, "Play anywhere": a user installed
-- Skybo and plays in a group DM, a DM, or a server the bot is not a member of). off_server = 1 for such
-- a place: its games are rated on the channel's own board only (scope: the channel id; a group DM's
-- "friends" board), never on a server's, a season's or the global board (bot/storage/venues.py says
-- why: one player with several accounts must not farm the global board). guild_id stays the server's
-- id in a server without the bot (its interactions reach the guild's shard: docs/deploy.md) and NULL
-- elsewhere; a row without a guild is always off server. The one active game and one open lobby per
-- channel hold as they are: a Discord channel id is unique across servers, group DMs and DMs.

ALTER TABLE games ADD COLUMN off_server INTEGER NOT NULL DEFAULT 0 CHECK (off_server IN (0, 1));
ALTER TABLE lobbies ADD COLUMN off_server INTEGER NOT NULL DEFAULT 0 CHECK (off_server IN (0, 1));
UPDATE games SET off_server = 1 WHERE guild_id IS NULL;
UPDATE lobbies SET off_server = 1 WHERE guild_id IS NULL;

-- /history and replays of a place where the bot has no server find its games by channel.
CREATE INDEX games_off_server_by_channel ON games (channel_id, finished_at) WHERE off_server = 1;
