"""Turning game state into text, embeds and images: the only place that does."""
