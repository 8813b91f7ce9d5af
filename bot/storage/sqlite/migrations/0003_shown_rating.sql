-- 0003: the rating players see. ratings.conservative now holds the *shown* rating: it follows the
-- conservative estimate mu - 3 sigma, but a game a player did not win never raises it and a game they
-- won never lowers it (see bot.storage.ratings.shown_rating). Until now it was exactly mu - 3 sigma,
-- which is also where every shown rating starts, so existing rows keep their value.
-- rating_history records the shown rating before and after each game, for the change and the trend;
-- the games rated before this migration get mu - 3 sigma, what was shown for them.

ALTER TABLE rating_history ADD COLUMN shown_before REAL;
ALTER TABLE rating_history ADD COLUMN shown_after REAL;
UPDATE rating_history SET shown_before = mu_before - 3 * sigma_before, shown_after = mu_after - 3 * sigma_after;
