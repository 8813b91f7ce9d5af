"""The simulation loop the games' simulators share (each game's own is ``bot/games/<game>/sim.py``:
``python -m bot simulate GAME ...``)."""
