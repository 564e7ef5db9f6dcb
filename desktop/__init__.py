"""PlayTrace desktop: the Qt application, its windows and panels, and the command-line entry points."""
