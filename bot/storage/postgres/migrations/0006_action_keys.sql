-- 0006: an idempotency key per logged action (issue 37, "when the database blinks").
-- The PostgreSQL twin of bot/storage/sqlite/migrations/0006_action_keys.sql: the Discord interaction
-- (a snowflake, BIGINT) that made the action, NULL without one; one action per click in a game.

ALTER TABLE game_actions ADD COLUMN idempotency_key BIGINT;
CREATE UNIQUE INDEX game_actions_one_per_key ON game_actions (game_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
