"""``python -m app``: the ``boneyard`` command (app/cli/main.py)."""

import sys

from app.cli.main import entry

if __name__ == "__main__":
    sys.exit(entry())
