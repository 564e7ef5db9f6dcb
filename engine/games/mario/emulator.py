"""The NES emulator behind Super Mario Bros, and what PlayTrace reads from its memory.

An emulator is a large mutable machine, so :mod:`.rules` never stores one in a state. A state holds
its seed, the action that led to it (and through its parent, the whole history) and the numbers read
from memory after that action (:class:`Facts`). The emulator is a cache: a :class:`Lineage` (every
state grown from one initial state) borrows a :class:`Machine` from its game's :class:`Pool` and
moves it to whichever state is asked about.

How a machine gets to a state:

* it is there already (the common case: the latest state of a game being played);
* it is at an ancestor: it plays the actions in between (one action per state, frame by frame);
* otherwise it restores the start of level 1-1, kept in nes-py's one backup slot since the machine
  booted, and plays the whole history again. Emulation is deterministic, so the same actions give
  the same frames, positions and scores every time.

The cost: playing on from the latest state is one action's frames. Going back to an earlier state (a
fork, the desktop's timeline on a past step, a state read back from JSON) replays every frame from the
start, about 2 ms a frame here (a minute of play is 3,600 frames, some seconds). The screens of the
last :data:`SCREEN_CACHE` states a lineage reached are kept, so drawing the latest few states never
moves the machine.

Memory addresses are those of the Super Mario Bros RAM map (as gym-super-mario-bros reads them too).
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import weakref
from typing import Any

import numpy as np

__all__ = ["BUTTONS", "LIVES", "POOL", "Facts", "Lineage", "Machine", "Pool", "controller_bits", "rgb"]

#: NES controller bits as nes-py lays them out (right is the high bit, A the low one).
BUTTONS = {"right": 0x80, "left": 0x40, "down": 0x20, "up": 0x10, "start": 0x08, "select": 0x04,
           "b": 0x02, "a": 0x01}
#: Lives a run may lose before it ends (LMGame-Bench: three).
LIVES = 3
#: Frames a single action may fast-forward through an animation (a death, a level change) before
#: PlayTrace gives the controls back anyway.
SKIP_LIMIT = 1500
#: How many of the latest screens a lineage keeps.
SCREEN_CACHE = 8

# RAM addresses.
_PLAYER_STATE = 0x000E  # 0x08 normal; 0x0B dying; 0x06 dead; others are animations
_ENEMY_ACTIVE = 0x000F
_ENEMY_TYPE = 0x0016
_FLOAT = 0x001D  # 0 on the ground, 1 jumping, 2 falling, 3 sliding down the flagpole
_PLAYER_PAGE = 0x006D
_ENEMY_PAGE = 0x006E
_PLAYER_X = 0x0086
#: Page bytes from here up are negative (no level of the game is half that many pages long).
_NEGATIVE_PAGE = 0x80
_ENEMY_X = 0x0087
_VIEWPORT = 0x00B5  # > 1: below the screen (falling into a pit)
_ENEMY_Y = 0x00CF
_PLAYER_Y = 0x00CE
_METATILES = 0x0500  # two screens of 13 rows x 16 columns of level blocks
_SCREEN_PAGE = 0x071A
_SCREEN_X = 0x071C
_POWER = 0x0756
_LIVES = 0x075A
_STAGE = 0x075C
_WORLD = 0x075F
_MODE = 0x0770  # 0 title, 1 playing, 2 end of a world, 3 game over
_SCORE = 0x07DE
_COINS = 0x07ED
_TIME = 0x07F8

#: The screen row of Mario's top when (small) he stands on the ground of the level.
_STANDING_Y = 176
_NORMAL = 0x08
_DYING = (0x0B, 0x06)
_POWERS = {0: "small", 1: "big"}

#: Enemy type bytes as Super Mario Bros numbers them (those a player meets most).
ENEMIES = {
    0x00: "koopa", 0x01: "koopa", 0x02: "buzzy beetle", 0x03: "koopa", 0x05: "hammer bro",
    0x06: "goomba", 0x07: "blooper", 0x08: "bullet bill", 0x0A: "cheep cheep", 0x0B: "cheep cheep",
    0x0C: "podoboo", 0x0D: "piranha plant", 0x0E: "paratroopa", 0x0F: "paratroopa", 0x10: "paratroopa",
    0x11: "lakitu", 0x12: "spiny", 0x14: "cheep cheep", 0x15: "fire", 0x2D: "bowser",
    0x30: "flagpole flag", 0x31: "flagpole",
}
_PIPE_TILES = frozenset(range(0x10, 0x16)) | frozenset(range(0x1C, 0x22))
_PIPE_RIGHT = frozenset({0x11, 0x13, 0x15})
_QUESTION = frozenset({0xC0, 0xC1})
_NOT_SOLID = frozenset({0x00, 0xC2, 0xC3, 0x24, 0x25, 0x26})


def controller_bits(buttons: tuple[str, ...]) -> int:
    """The controller byte holding ``buttons`` (``("right", "a")`` -> ``0x81``)."""
    bits = 0
    for name in buttons:
        bits |= BUTTONS[name]
    return bits


@dataclasses.dataclass(frozen=True, slots=True)
class Facts:
    """What a state is, read from the emulator's memory after the action that led to it.

    Attributes:
        x: Mario's horizontal position in the level, in game units (pixels; 16 make a block).
        height: How far Mario is above the level's ground line, in pixels (0 standing on it).
        world, stage: The level (1-1 is world 1, stage 1).
        lives: Lives left in the run (LMGame-Bench's three, less the deaths).
        time: The level's clock.
        coins, points: The game's own counters.
        power: ``"small"``, ``"big"`` or ``"fire"``.
        deaths: Lives lost so far.
        levels: ``(world, stage, start x, furthest x)`` for every level played, in order.
        passed: Obstacles passed so far (pipes, gaps and enemies left behind).
        frames: Emulator frames the last action ran (its own and any animation skipped after it).
        over: The run has ended (three lives lost, or the game itself ended).
        ahead: What lies ahead on the screen, nearest first: ``(kind, blocks ahead, size)``.
        airborne: Mario is in the air (jumping or falling).
        life_best: Mario's furthest x since his last start (a death or a new level).
        stuck: Frames he could move in without passing ``life_best``.
        enemies: ``(slot, type, x)`` of the enemies ahead of Mario, for counting those he passes.
    """

    x: int
    height: int
    world: int
    stage: int
    lives: int
    time: int
    coins: int
    points: int
    power: str
    deaths: int
    levels: tuple[tuple[int, int, int, int], ...]
    passed: int
    frames: int
    over: bool
    ahead: tuple[tuple[str, int, int], ...] = ()
    airborne: bool = False
    life_best: int = 0
    stuck: int = 0
    enemies: tuple[tuple[int, int, int], ...] = ()

    @property
    def distance(self) -> int:
        """LMGame-Bench's raw score: the horizontal distance gained, summed over the levels played."""
        return sum(best - start for _, _, start, best in self.levels)

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["levels"] = [list(level) for level in self.levels]
        data["ahead"] = [list(a) for a in self.ahead]
        data["enemies"] = [list(e) for e in self.enemies]
        return data

    @classmethod
    def from_json(cls, data: Any) -> Facts:
        """Read facts written by :meth:`to_json`; raises ``ValueError``/``KeyError``/``TypeError``."""
        if not isinstance(data, dict):
            raise ValueError("facts must be an object")
        ints = ("x", "height", "world", "stage", "lives", "time", "coins", "points", "deaths", "passed",
                "frames", "life_best", "stuck")
        values: dict[str, Any] = {}
        for key in ints:
            v = data[key]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"facts.{key} must be a non-negative integer")
            values[key] = v
        if data["power"] not in ("small", "big", "fire"):
            raise ValueError("facts.power must be small, big or fire")
        if not isinstance(data["over"], bool):
            raise ValueError("facts.over must be true or false")
        levels = tuple(_int_tuple(level, 4, "facts.levels") for level in data["levels"])
        enemies = tuple(_int_tuple(e, 3, "facts.enemies") for e in data.get("enemies", []))
        ahead = []
        for item in data.get("ahead", []):
            if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[0], str)
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:])):
                raise ValueError("facts.ahead holds [kind, blocks ahead, size] lists")
            ahead.append((item[0], item[1], item[2]))
        airborne = data.get("airborne", False)
        if not isinstance(airborne, bool):
            raise ValueError("facts.airborne must be true or false")
        return cls(power=data["power"], over=data["over"], levels=levels,
                   ahead=tuple(ahead), airborne=airborne, enemies=enemies, **values)


def _int_tuple(value: Any, n: int, what: str) -> tuple[Any, ...]:
    if not isinstance(value, list) or len(value) != n or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ValueError(f"{what} holds lists of {n} integers")
    return tuple(value)


def _pixel_buffer(env: Any) -> np.ndarray:
    """The emulator's picture memory, contiguous (nes-py's own ``screen`` is a reordered view of it,
    which is slower to copy)."""
    import ctypes

    from nes_py import nes_env

    address = nes_env._LIB.Screen(env._env)
    buffer = ctypes.cast(address, ctypes.POINTER(nes_env.SCREEN_TENSOR)).contents
    return np.frombuffer(buffer, dtype=np.uint8).reshape(nes_env.SCREEN_SHAPE_32_BIT)


def rgb(pixels: np.ndarray) -> np.ndarray:
    """A 240 x 256 RGB picture from the emulator's B G R and padding bytes (little-endian machines,
    as nes-py assumes too)."""
    return np.ascontiguousarray(pixels[:, :, 2::-1])


def _digits(ram: np.ndarray, address: int, n: int) -> int:
    value = 0
    for d in ram[address : address + n]:
        value = value * 10 + int(d) % 10
    return value


class Machine:
    """One nes-py emulator with the start of level 1-1 in its backup slot."""

    def __init__(self) -> None:
        from engine.games.mario.compat import NESEnv, rom_path

        self.env: Any = NESEnv(rom_path())
        self.ram: np.ndarray = self.env.ram
        self._pixels = _pixel_buffer(self.env)
        self.env.reset()
        self.boot_frames = self._press_start()
        self.env._backup()
        self.start = self.read(None, 0)
        #: The key of the state the emulator shows now (``None``: the start of level 1-1).
        self.head: int | None = None
        #: The lineage using this machine, weakly: a machine whose lineage is gone is free again.
        self.owner: weakref.ref[Lineage] | None = None
        weakref.finalize(self, self.env.close)

    def _press_start(self) -> int:
        """From power-on to the first frame Mario can be moved in 1-1; returns the frames run."""
        ram, frames = self.ram, 0
        while ram[_MODE] != 1 and frames < 600:
            self.env._frame_advance(BUTTONS["start"] if frames % 2 == 0 else 0)
            frames += 1
        while not self.controllable() and frames < 1200:
            self.env._frame_advance(0)
            frames += 1
        if not self.controllable():
            raise RuntimeError("the Super Mario Bros ROM did not start level 1-1 (is it the right ROM?)")
        return frames

    def controllable(self) -> bool:
        ram = self.ram
        return bool(ram[_PLAYER_STATE] == _NORMAL and ram[_MODE] == 1 and ram[_VIEWPORT] <= 1)

    def dying(self) -> bool:
        ram = self.ram
        return bool(ram[_PLAYER_STATE] in _DYING or ram[_VIEWPORT] > 1)

    def rewind(self) -> None:
        """Back to the start of level 1-1."""
        self.env._restore()
        self.head = None

    def pixels(self) -> np.ndarray:
        """A copy of the current picture as the emulator holds it: 240 x 256 x 4 bytes, B G R and
        padding (a plain memory copy; :func:`rgb` turns it into a picture)."""
        return self._pixels.copy()

    # -- playing -------------------------------------------------------------------------------

    def play(self, bits: int, frames: int, before: Facts, skip: bool, stuck_limit: int = 0) -> Facts:
        """Hold ``bits`` for ``frames`` frames, then (``skip``) run through any animation until Mario
        can move again; return the facts after it. The run ends on the third lost life, when the game
        itself ends, or after ``stuck_limit`` frames (0: never) in which Mario could move but did not
        pass his furthest point since his last start (a death or a new level starts the count anew)."""
        env, ram = self.env, self.ram
        deaths, dying = before.deaths, self.dying()
        best, stuck = before.life_best, before.stuck
        levels = [list(level) for level in before.levels]
        ran, last_x = 0, before.x
        over = False
        for i in range(frames + (SKIP_LIMIT if skip else 0)):
            if i >= frames and self.controllable():
                break
            env._frame_advance(bits if i < frames else 0)
            ran += 1
            now = self.dying()
            if now and not dying:
                deaths += 1
                best = 0
            dying = now
            if deaths >= LIVES or ram[_MODE] == 3 or (ram[_MODE] == 2 and ram[_WORLD] == 7):
                over = True
                break
            if not now and ram[_PLAYER_STATE] == _NORMAL:
                x = self.x()
                # A new level, or a pipe to another area: the count starts where Mario comes out.
                if _track(levels, int(ram[_WORLD]) + 1, int(ram[_STAGE]) + 1, x) or abs(x - last_x) > 64:
                    best = 0
                last_x = x
                if x > best:
                    best, stuck = x, 0
                else:
                    stuck += 1
                    if stuck_limit and stuck >= stuck_limit:
                        over = True
                        break
        return self.read(before, ran, deaths=deaths, levels=levels, over=over, best=best, stuck=stuck)

    def x(self) -> int:
        # The page byte wraps to 0xFF when Mario steps left of a level's first page (in a bonus room, or
        # pushed back at a pipe's exit): read it as signed, so x is negative there, not some 65,000.
        page = int(self.ram[_PLAYER_PAGE])
        return (page - 256 if page >= _NEGATIVE_PAGE else page) * 256 + int(self.ram[_PLAYER_X])

    def read(
        self,
        before: Facts | None,
        frames: int,
        *,
        deaths: int = 0,
        levels: list[list[int]] | None = None,
        over: bool = False,
        best: int = 0,
        stuck: int = 0,
    ) -> Facts:
        """The facts now, carrying over what ``before`` counted."""
        ram = self.ram
        world, stage, x = int(ram[_WORLD]) + 1, int(ram[_STAGE]) + 1, self.x()
        if levels is None:
            levels, best = [[world, stage, x, x]], x
        passed = before.passed if before is not None else 0
        enemies = self.enemies_ahead(x)
        if before is not None:
            passed += self.obstacles_between(before, levels, enemies)
        power = _POWERS.get(int(ram[_POWER]), "fire")
        lost = max(0, min(deaths, LIVES))
        return Facts(
            x=x,
            height=max(0, _STANDING_Y - int(ram[_PLAYER_Y])) if ram[_VIEWPORT] == 1 else 0,
            world=world,
            stage=stage,
            lives=LIVES - lost,
            time=_digits(ram, _TIME, 3),
            coins=_digits(ram, _COINS, 2),
            points=_digits(ram, _SCORE, 6),
            power=power,
            deaths=deaths,
            levels=tuple((w, s, a, b) for w, s, a, b in levels),
            passed=passed,
            frames=frames,
            over=over,
            ahead=self.describe_ahead(x),
            airborne=bool(ram[_FLOAT] in (1, 2)),
            life_best=best,
            stuck=stuck,
            enemies=enemies,
        )

    # -- what is around Mario --------------------------------------------------------------------

    def column(self, col: int) -> np.ndarray:
        """The 13 blocks of level column ``col`` (16-pixel columns), top to bottom."""
        page, c = (col // 16) % 2, col % 16
        base = _METATILES + page * 0xD0 + c
        return self.ram[base : base + 13 * 16 : 16]

    def screen_right(self) -> int:
        return int(self.ram[_SCREEN_PAGE]) * 256 + int(self.ram[_SCREEN_X]) + 256

    def enemies_ahead(self, x: int) -> tuple[tuple[int, int, int], ...]:
        ram, found = self.ram, []
        for slot in range(5):
            if ram[_ENEMY_ACTIVE + slot]:
                ex = int(ram[_ENEMY_PAGE + slot]) * 256 + int(ram[_ENEMY_X + slot])
                kind = int(ram[_ENEMY_TYPE + slot])
                if ex > x and kind in ENEMIES and kind < 0x30:
                    found.append((slot, kind, ex))
        return tuple(found)

    def obstacles_between(self, before: Facts, levels: list[list[int]], enemies: Any) -> int:
        """Pipes and gaps whose right edge Mario's furthest point crossed in this action, and enemies
        that were ahead of him and are now behind him."""
        if not levels or not before.levels or levels[-1][:2] != list(before.levels[-1][:2]):
            return 0
        old, new = before.levels[-1][3], levels[-1][3]
        count = 0
        if 0 < new - old < 128:  # a pipe or warp moves Mario further: those columns are not on screen
            for col in range(old // 16, new // 16):
                edge = (col + 1) * 16
                if not old < edge <= new:
                    continue
                here, after = self.column(col), self.column(col + 1)
                if any(int(t) in _PIPE_RIGHT for t in here):
                    count += 1
                elif int(here[12]) in _NOT_SOLID and int(after[12]) not in _NOT_SOLID:
                    count += 1
        x = self.x()
        still = {(slot, kind) for slot, kind, _ in enemies}
        ram = self.ram
        for slot, kind, _ in before.enemies:
            if (slot, kind) in still or not ram[_ENEMY_ACTIVE + slot] or ram[_ENEMY_TYPE + slot] != kind:
                continue
            ex = int(ram[_ENEMY_PAGE + slot]) * 256 + int(ram[_ENEMY_X + slot])
            if ex + 16 <= x:
                count += 1
        return count

    def describe_ahead(self, x: int) -> tuple[tuple[str, int, int], ...]:
        """Pipes, gaps, walls, ``?`` blocks and enemies from just behind Mario to the right edge of the
        screen, nearest first: ``(kind, blocks ahead, size)`` where size is a pipe's or wall's height
        or a gap's width in blocks (a block is 16 pixels; 0 when it has none)."""
        found: list[tuple[str, int, int]] = []
        # The two screens of blocks as [page][row][column], read once.
        blocks = self.ram[_METATILES : _METATILES + 0x1A0].reshape(2, 13, 16).tolist()

        def column(col: int) -> list[int]:
            page = blocks[(col // 16) % 2]
            return [row[col % 16] for row in page]

        right = min(self.screen_right(), x + 16 * 14) // 16
        # Rows 11 and 12 are the ground; heights count blocks above it.
        col, here, ground, floor = x // 16 + 1, x // 16, 12, 11
        while col < right:
            tiles = column(col)
            away = col - here
            pipe = next((r for r, t in enumerate(tiles) if t in _PIPE_TILES), None)
            if pipe is not None:
                found.append(("pipe", away, floor - pipe))
                col += 2
                continue
            if tiles[ground] in _NOT_SOLID:
                width = 1
                while col + width < right and column(col + width)[ground] in _NOT_SOLID:
                    width += 1
                found.append(("gap", away, width))
                col += width
                continue
            top = next((r for r, t in enumerate(tiles) if t not in _NOT_SOLID), ground)
            if top < floor and all(t not in _NOT_SOLID for t in tiles[top:]):
                found.append(("wall", away, floor - top))
            elif _QUESTION.intersection(tiles):
                found.append(("? block", away, 0))
            col += 1
        ram = self.ram
        for slot in range(5):
            kind = ENEMIES.get(int(ram[_ENEMY_TYPE + slot]))
            if not ram[_ENEMY_ACTIVE + slot] or kind is None or kind.startswith("flagpole"):
                continue
            ex = int(ram[_ENEMY_PAGE + slot]) * 256 + int(ram[_ENEMY_X + slot])
            away = round((ex - x) / 16)
            if -3 <= away <= 14:
                found.append((kind, away, 0))
        found.sort(key=lambda item: item[1])
        return tuple(found[:8])


def _track(levels: list[list[int]], world: int, stage: int, x: int) -> bool:
    """Count ``x`` as reached in ``world``-``stage``; returns whether Mario has just entered a level
    (a new one starts where he first stands)."""
    if not levels or levels[-1][0] != world or levels[-1][1] != stage:
        for level in levels:
            if level[0] == world and level[1] == stage:
                level[3] = max(level[3], x)
                levels.append(levels.pop(levels.index(level)))
                return True
        levels.append([world, stage, x, x])
        return True
    if x > levels[-1][3]:
        levels[-1][3] = x
    return False


class Lineage:
    """Every state grown from one initial state: the machine they share and their latest screens."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.machine: Machine | None = None
        self.screens: collections.OrderedDict[int, np.ndarray] = collections.OrderedDict()
        #: Held while the machine moves: a vision model's picture may be drawn in a worker thread.
        self.lock = threading.RLock()

    def acquire(self) -> Machine:
        if self.machine is None:
            self.machine = self.pool.acquire(self)
        return self.machine

    def keep_screen(self, key: int, screen: np.ndarray) -> None:
        self.screens[key] = screen
        self.screens.move_to_end(key)
        while len(self.screens) > SCREEN_CACHE:
            self.screens.popitem(last=False)


class Pool:
    """Emulators for lineages: a lineage borrows a free one (one whose lineage is gone) or a new one.

    Machines hold no option of the game (the frames per action and the skipping come with each
    state), so one pool serves every game instance of the process (:data:`POOL`)."""

    def __init__(self) -> None:
        self.machines: list[Machine] = []
        self._start: Facts | None = None
        self._lock = threading.Lock()

    def acquire(self, lineage: Lineage) -> Machine:
        with self._lock:
            for machine in self.machines:
                if machine.owner is None or machine.owner() is None:
                    machine.owner = weakref.ref(lineage)
                    machine.head = -1  # unknown position: the next move starts from a restore
                    return machine
            machine = Machine()
            machine.owner = weakref.ref(lineage)
            self.machines.append(machine)
            return machine

    def start_facts(self) -> Facts:
        """The facts at the start of 1-1 (the same for every run), without holding a machine."""
        with self._lock:
            if self._start is None:
                if not self.machines:
                    self.machines.append(Machine())  # free (no owner) for the first lineage that plays
                self._start = self.machines[0].start
            return self._start


#: The process's emulators.
POOL = Pool()
