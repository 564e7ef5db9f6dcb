"""``python -m desktop.cli`` runs the ``playtrace`` command."""

import sys

from desktop.cli import main

sys.exit(main())
