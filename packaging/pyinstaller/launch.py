"""Entry point of the frozen PlayTrace build.

Without arguments it opens the app (``desktop.app.main``); with arguments it is the ``playtrace``
command line (``playtrace run ...``, ``playtrace show ...``), so one installed binary does both.
"""

import sys

if len(sys.argv) > 1:
    from desktop.cli import main
else:
    from desktop.app import main

sys.exit(main())
