"""``playtrace study``: human-baseline studies: init, check, run, simulate, export, merge."""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli_common import UsageError

COMMAND = "study"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser(COMMAND, parents=[common],
                   help="human-baseline studies: init, check, run, simulate, export, merge")


def run(args: argparse.Namespace) -> int:
    raise UsageError("playtrace study is not available yet")
