-- 0007: a thread per game (issue 40 item 3). The PostgreSQL twin of
-- bot/storage/sqlite/migrations/0007_threads.sql: NULL, tables in the channel; 1, a thread per game.

ALTER TABLE server_settings ADD COLUMN threads INTEGER;
