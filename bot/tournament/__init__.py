"""Tournaments' rules, pure: standings from table results, Swiss and knockout seating (no discord, no I/O).

``pairing.py`` holds the whole of it; the service (``bot/service/tournaments.py``) stores and deals.
"""
