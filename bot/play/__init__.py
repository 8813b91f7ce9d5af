"""Terminal games: `python -m bot play GAME` against computer players."""
