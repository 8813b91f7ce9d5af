"""The toolkit the games draw with: the table message frame, the score sheet, safe display names,
numbers per language, picture helpers and the picture workers. It names no game and reads no
registry (the games import it, never the other way: ``tests/unit/test_imports.py``)."""
