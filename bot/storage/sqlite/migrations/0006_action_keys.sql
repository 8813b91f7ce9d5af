-- 0006: an idempotency key per logged action (issue 37, "when the database blinks").
-- The Discord interaction (the click) that made the action; NULL for an action without one (a computer
-- player, a turn timer, a tool). A commit whose connection dropped after COMMIT was sent is made once
-- more; finding its key already logged at that version, it knows the first one landed and writes
-- nothing (bot/storage/game_log.py, _appender). The index keeps one action per click in a game.

ALTER TABLE game_actions ADD COLUMN idempotency_key INTEGER;
CREATE UNIQUE INDEX game_actions_one_per_key ON game_actions (game_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
