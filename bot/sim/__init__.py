"""Simulators: computer players against each other (`python -m bot simulate GAME ...`)."""
