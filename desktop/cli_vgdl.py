"""``playtrace vgdl``: VGDL games: check a game file, print the GVGAI-LLM tables."""

from __future__ import annotations

import argparse
from typing import Any

from desktop.cli_common import UsageError

COMMAND = "vgdl"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sub.add_parser(COMMAND, parents=[common],
                   help="VGDL games: check a game file, print the GVGAI-LLM tables")


def run(args: argparse.Namespace) -> int:
    raise UsageError("playtrace vgdl is not available yet")
