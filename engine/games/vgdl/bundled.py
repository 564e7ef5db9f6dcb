"""PlayTrace's own VGDL games, shipped in ``assets/vgdl/``: one game class per game.

Each game is a VGDL file ``assets/vgdl/<name>.txt`` with five levels ``<name>_lvl0.txt`` …
``<name>_lvl4.txt``; the option ``level`` picks one. They run on the same engine as any VGDL file
(:class:`~engine.games.vgdl.rules.VgdlGame`).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from engine.games.vgdl.rules import LEVELS, VgdlGame, asset_files
from engine.options import Option

__all__ = [
    "BUNDLED",
    "Barrage",
    "BundledVgdlGame",
    "Crates",
    "Gems",
    "Keyhunt",
    "Pursuit",
    "Rockfall",
    "asset_files",
]

class BundledVgdlGame(VgdlGame):
    """A VGDL game shipped with PlayTrace; option ``level`` picks one of its five levels."""

    #: The file stem in ``assets/vgdl``.
    asset: ClassVar[str] = ""
    options_schema: ClassVar[tuple[Option, ...]] = (
        Option("level", int, 0, "Which of the game's five levels", minimum=0, maximum=LEVELS - 1),
        *VgdlGame.common_options,
    )

    def files(self) -> tuple[Path, Path]:
        return asset_files(self.asset, self.options["level"])


class Barrage(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-barrage"
    title: ClassVar[str] = "Barrage (VGDL)"
    asset: ClassVar[str] = "barrage"
    description: ClassVar[str] = "PlayTrace's own VGDL shooter: hold the line and shoot what comes at you."


class Crates(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-crates"
    title: ClassVar[str] = "Crates (VGDL)"
    asset: ClassVar[str] = "crates"
    description: ClassVar[str] = "PlayTrace's own VGDL pushing puzzle: move the crates where they belong."


class Gems(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-gems"
    title: ClassVar[str] = "Gems (VGDL)"
    asset: ClassVar[str] = "gems"
    description: ClassVar[str] = "PlayTrace's own VGDL collecting game: gather the gems and get out."


class Keyhunt(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-keyhunt"
    title: ClassVar[str] = "Keyhunt (VGDL)"
    asset: ClassVar[str] = "keyhunt"
    description: ClassVar[str] = "PlayTrace's own VGDL adventure: gather keys, open gates, reach the chest."


class Pursuit(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-pursuit"
    title: ClassVar[str] = "Pursuit (VGDL)"
    asset: ClassVar[str] = "pursuit"
    description: ClassVar[str] = "PlayTrace's own VGDL chase: catch the rabbits and hares, mind the hounds."


class Rockfall(BundledVgdlGame):
    id: ClassVar[str] = "vgdl-rockfall"
    title: ClassVar[str] = "Rockfall (VGDL)"
    asset: ClassVar[str] = "rockfall"
    description: ClassVar[str] = "PlayTrace's own VGDL dodging game: collect crystals under falling stones."


#: Every bundled game class.
BUNDLED: tuple[type[BundledVgdlGame], ...] = (Barrage, Crates, Gems, Keyhunt, Pursuit, Rockfall)
