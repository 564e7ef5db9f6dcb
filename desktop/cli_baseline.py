"""``playtrace baseline``: random and human baselines of a game's raw and progress scores."""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli_common import UsageError

COMMAND = "baseline"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser(COMMAND, parents=[common], help="baselines of a game's scores")


def run(args: argparse.Namespace) -> int:
    raise UsageError("playtrace baseline is not available yet")
