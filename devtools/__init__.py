"""Tools of the repository that are not the bot (never imported by ``bot`` or ``cogs``, never in the image):
``pgserver``, the throwaway local PostgreSQL the tests and the benchmarks start themselves."""
