"""``python -m fakecord serve``: the fake Discord as a service of its own (fakecord/serve.py)."""

import sys

from fakecord.serve import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
