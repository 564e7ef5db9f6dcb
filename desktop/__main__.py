"""``python -m desktop`` opens the PlayTrace app."""

import sys

from desktop.app import main

if __name__ == "__main__":
    sys.exit(main())
