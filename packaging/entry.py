"""The frozen app's entry point: the same ``boneyard`` console script as a pip install."""

import sys

from app.cli.main import entry

if __name__ == "__main__":
    sys.exit(entry())
