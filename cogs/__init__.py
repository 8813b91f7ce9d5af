"""Thin discord.py extensions: parse the command, call the service, render, respond."""
