"""``playtrace sweep``: a grid of games, players and harness settings, run as one resumable thing."""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli_common import UsageError

COMMAND = "sweep"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser(COMMAND, parents=[common],
                   help="a grid of games, players and harness settings, run as one resumable thing")


def run(args: argparse.Namespace) -> int:
    raise UsageError("playtrace sweep is not available yet")
