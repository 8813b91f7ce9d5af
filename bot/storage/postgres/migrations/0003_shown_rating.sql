-- 0003: the rating players see. ratings.conservative now holds the *shown* rating (see
-- bot.storage.ratings.shown_rating and the SQLite twin, 0003_shown_rating.sql, for the full story).
-- rating_history records the shown rating before and after each game, for the change and the trend;
-- the games rated before this migration get mu - 3 sigma, what was shown for them.

ALTER TABLE rating_history ADD COLUMN shown_before DOUBLE PRECISION;
ALTER TABLE rating_history ADD COLUMN shown_after DOUBLE PRECISION;
UPDATE rating_history SET shown_before = mu_before - 3 * sigma_before, shown_after = mu_after - 3 * sigma_after;
