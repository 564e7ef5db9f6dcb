"""``playtrace annotations``: labels, disputes and notes on sessions: export, agreement."""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli_common import UsageError

COMMAND = "annotations"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser(COMMAND, parents=[common],
                   help="labels, disputes and notes on sessions: export, agreement")


def run(args: argparse.Namespace) -> int:
    raise UsageError("playtrace annotations is not available yet")
