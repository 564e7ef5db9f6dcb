"""One tick of a VGDL game on the grid, in the order GVGAI's Java engine runs it.

A tick (``Game.gameCycle`` in GVGAI) is:

1. the avatar acts (moves, turns, or uses its weapon);
2. every other sprite that acts by itself is updated, type by type in reverse SpriteSet order
   (missiles fly, NPCs wander or chase, spawners spawn, flickers age);
3. events: first the timed effects (``X TIME > effect``, ``addTimer``), then the end-of-screen rules
   (``X EOS > effect``) for sprites outside the grid, then every
   collision rule in the order of the InteractionSet (rules naming the same two sprites are applied
   together, at the first of them); an effect applies to the first sprite of each colliding pair
   that has not been killed in this tick;
4. killed sprites are removed;
5. the end conditions are checked in order; the first that holds decides the game.

PlayTrace runs VGDL on whole cells: a sprite moves a whole cell at a time. A speed below 1 accumulates
(a boulder of speed 0.2 moves one cell every fifth tick it may move, and waits its cooldown after each
fifth as GVGAI does), where the Java engine moves fractions of a cell in pixels. Two sprites collide
when they share a cell, or when one part-way to its next cell (progress above 0, facing its way)
reaches into the other's cell, as its square overlaps both in pixels; what such a sprite makes (a bomb
dropped between two cells) stays over both columns (its ``side``). A step back takes the fraction back
too. A sprite an effect puts
back into a cell (a boulder stepped back) meets what moved there meanwhile in a further pass of the
rules, as its partial overlap would in pixels. A sprite outside the grid stays there, out of sight, as
in the Java engine: it still counts, and the end-of-screen rules apply to it on every tick.

Sprites are plain lists while a tick runs and tuples in a state (see :data:`FIELDS`). Every random
choice comes from the generator the caller passes, seeded from the state's seed and tick.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from engine.games.vgdl.effects import EFFECT_FUNCTIONS
from engine.games.vgdl.ontology import DIRS, MAX_SPRITES, CompiledGame, Effect
from engine.games.vgdl.sprites import (
    ACTION_DIRS,
    BASE_DIRS,
    CT,
    FIELDS,
    ID,
    LC,
    LR,
    LT,
    MEMO,
    MT,
    OR,
    PR,
    RES,
    SIDE,
    SPD,
    STARTED,
    TTL,
    C,
    R,
    T,
    new_sprite,
)
from engine.games.vgdl.view import map_ranks

#: Effects that need no sprite, so a timer may run them on its own (GVGAI's ``addTimer``).
_SPRITE_FREE = frozenset({"transformToAll", "killAll", "setSpeedForAll"})

__all__ = ["FIELDS", "Layer", "World", "new_sprite"]


_map_ranks = map_ranks


class Layer:
    """The sprites of the kinds nothing changes in place (walls, floors, dirt...: see
    :attr:`CompiledGame.frozen`), indexed once and shared by consecutive states until one of them is
    killed or created. A tick then copies only the sprites that act or are acted on."""

    __slots__ = ("_hits", "cells", "count", "groups")

    def __init__(self, game: CompiledGame, sprites: Iterable[tuple[Any, ...]]) -> None:
        frozen = game.frozen
        groups: list[list[tuple[Any, ...]]] = [[] for _ in game.types]
        cells: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
        for s in sprites:
            if frozen[s[1]]:
                groups[s[1]].append(s)
                key = (s[2], s[3])
                here = cells.get(key)
                if here is None:
                    cells[key] = [s]
                else:
                    here.append(s)
        self.groups: tuple[tuple[tuple[Any, ...], ...], ...] = tuple(tuple(g) for g in groups)
        self.cells: dict[tuple[int, int], tuple[tuple[Any, ...], ...]] = {
            k: tuple(v) for k, v in cells.items()
        }
        self.count = sum(len(g) for g in groups)
        self._hits: dict[int, list[tuple[Any, ...]]] | None = None

    def hits(self, game: CompiledGame) -> dict[int, list[tuple[Any, ...]]]:
        """Per collision rule (its number in ``game.pair_index``), the sprites of the layer that meet a
        sprite of the layer it names (computed once per layer)."""
        if self._hits is None:
            found: dict[int, dict[int, tuple[Any, ...]]] = {}
            rules_for = game.rules_for
            for here in self.cells.values():
                if len(here) > 1:
                    for x in here:
                        for y in here:
                            if y is not x:
                                for n in rules_for.get((x[1], y[1]), ()):
                                    found.setdefault(n, {})[x[0]] = x
            self._hits = {n: list(xs.values()) for n, xs in found.items()}
        return self._hits


class World:
    """The mutable world of one tick. Build it from a state's parts, :meth:`tick`, read it back.

    ``layer`` and ``mobile`` (what the previous tick returned, see :meth:`carry`) save indexing the
    sprites again; without them they are built from ``sprites``.
    """

    def __init__(
        self,
        game: CompiledGame,
        height: int,
        width: int,
        sprites: Iterable[tuple[Any, ...]],
        next_id: int,
        tick: int,
        score: float,
        rng: random.Random,
        timers: Iterable[tuple[int, int]] = (),
        layer: Layer | None = None,
        mobile: Iterable[tuple[Any, ...]] | None = None,
    ) -> None:
        self.game = game
        self.height = height
        self.width = width
        self.tick_no = tick
        self.score = score
        self.next_id = next_id
        self.rng = rng
        #: Sprites killed this tick, by id (removed from the world at the end of the tick).
        self.killed: dict[int, Any] = {}
        self.won: bool | None = None
        self.events: list[tuple[str, int]] = []
        self._pulled: set[int] = set()
        #: Effects waiting on the clock: (tick, index in ``game.timed``), in order.
        self.timers: list[tuple[int, int]] = list(timers)
        #: This tick's shields (GVGAI's shieldFrom): (sprite type, other type, effect name).
        self.shields: set[tuple[int, int, str]] = set()
        self._obstacle_cells: set[tuple[int, int]] | None = None
        #: Sprites an effect moved during the current collision pass (``None`` outside the events).
        self._relocated: set[int] | None = None
        #: The progress towards the next cell of sprites that moved part of a cell, before this tick.
        self._pr_before: dict[int, float] = {}
        #: Cells that sprites part-way to their next cell reach into (see :meth:`overhang`).
        self._over: dict[tuple[int, int], list[Any]] = {}
        #: Cells a sprite entered (moved or created) during the events.
        self._event_cells: set[tuple[int, int]] = set()
        frozen = game.frozen
        if layer is None or mobile is None:
            sprites = tuple(sprites)
            layer = Layer(game, sprites)
            mobile = [s for s in sprites if not frozen[s[1]]]
        self.layer = layer
        #: Whether a sprite of the layer's kinds was killed or created (the next tick re-indexes).
        self.layer_changed = False
        self.fixed = layer.cells
        #: Per type, its sprites: a layer kind's shared tuple until it changes, else a list.
        self.by_type: list[Any] = [g if frozen[t] else [] for t, g in enumerate(layer.groups)]
        #: The cells of the sprites that are not in the layer.
        self.cells: dict[tuple[int, int], list[Any]] = {}
        by_type, cells = self.by_type, self.cells
        count = 0
        for s in mobile:
            count += 1
            sprite = list(s)
            by_type[sprite[1]].append(sprite)
            key = (sprite[2], sprite[3])
            here = cells.get(key)
            if here is None:
                cells[key] = [sprite]
            else:
                here.append(sprite)
        self.population = layer.count + count
        #: The sprite on top of each cell this tick changed, as it was before (meaningful steps).
        self._tops_before: dict[tuple[int, int], int] = {}
        self._ranks = _map_ranks(game)

    # -- reading back ---------------------------------------------------------------------------

    def sprites(self) -> tuple[tuple[Any, ...], ...]:
        """The living sprites as tuples, type by type (SpriteSet order), oldest first."""
        out: list[tuple[Any, ...]] = []
        mobile: list[tuple[Any, ...]] = []
        killed = self.killed
        frozen = self.game.frozen
        for t, group in enumerate(self.by_type):
            if not group:
                continue
            if type(group) is tuple:
                out.extend(group)
                continue
            made = [s if type(s) is tuple else tuple(s) for s in group if s[ID] not in killed]
            out.extend(made)
            if not frozen[t]:
                mobile.extend(made)
        self._mobile = tuple(mobile)
        return tuple(out)

    def carry(self) -> tuple[Layer | None, tuple[tuple[Any, ...], ...]]:
        """What the next tick can reuse (after :meth:`sprites`): the layer unless it changed, and the
        sprites outside it."""
        return (None if self.layer_changed else self.layer), self._mobile

    def here(self, key: tuple[int, int]) -> Sequence[Any]:
        """The sprites in a cell (killed ones included until the end of the tick)."""
        fixed = self.fixed.get(key)
        moving = self.cells.get(key)
        if fixed is None:
            return moving or ()
        if not moving:
            return fixed
        return (*fixed, *moving)

    def top(self, key: tuple[int, int]) -> int:
        """The type drawn on a cell of the map (-1: floor), as :func:`~.view.ascii_grid` draws it."""
        if not (0 <= key[0] < self.height and 0 <= key[1] < self.width):
            return -2
        ranks = self._ranks
        best, best_rank = -1, -1
        killed = self.killed
        for s in self.here(key):
            rank = ranks[s[T]]
            if rank > best_rank and s[ID] not in killed:
                best, best_rank = s[T], rank
        return best

    def _touch(self, key: tuple[int, int]) -> None:
        if key not in self._tops_before:
            self._tops_before[key] = self.top(key)

    def top_changes(self) -> list[tuple[int, int]]:
        """(type before, type now) on top of every cell of the map this tick changed (-1: floor)."""
        changes = []
        for key, before in self._tops_before.items():
            if before == -2:
                continue
            now = self.top(key)
            if now != before:
                changes.append((before, now))
        return changes

    # -- moving, adding and killing sprites -------------------------------------------------------

    def count(self, types: Iterable[int]) -> int:
        return sum(1 for t in types for s in self.by_type[t] if s[ID] not in self.killed)

    def _set_pos(self, s: list[Any], row: int, col: int) -> None:
        if row == s[R] and col == s[C]:
            return
        old = (s[R], s[C])
        self._touch(old)
        self._touch((row, col))
        here = self.cells.get(old)
        if here is not None:
            here.remove(s)
        s[R], s[C] = row, col
        self.cells.setdefault((row, col), []).append(s)
        if self._relocated is not None:
            self._relocated.add(s[ID])
            self._event_cells.add((row, col))

    def _remember(self, s: list[Any]) -> None:
        if s[LT] != self.tick_no:
            s[LR], s[LC], s[LT] = s[R], s[C], self.tick_no

    def undo(self, s: list[Any]) -> None:
        """Put a sprite back where it was before this tick's move (GVGAI's ``lastrect``)."""
        self._set_pos(s, *self.last_pos(s))
        before = self._pr_before.get(s[ID])
        if before is not None:
            s[PR] = before

    def last_pos(self, s: list[Any]) -> tuple[int, int]:
        return (s[LR], s[LC]) if s[LT] == self.tick_no else (s[R], s[C])

    def last_dir(self, s: list[Any]) -> tuple[int, int]:
        lr, lc = self.last_pos(s)
        dr, dc = s[R] - lr, s[C] - lc
        return ((dr > 0) - (dr < 0), (dc > 0) - (dc < 0))

    def _move(self, s: list[Any], dr: int, dc: int, speed: float, force: bool = False) -> bool:
        """GVGAI's ``_updatePos``: a move is allowed once ``cooldown`` ticks have passed since the last."""
        if dr == 0 and dc == 0:
            return False
        stype = self.game.types[s[T]]
        if not force and stype.cooldown > self.tick_no - s[MT]:
            return False
        if speed == 1.0:
            cells = 1
        else:
            # GVGAI moves a fraction of a cell in pixels and waits its cooldown after every move; here
            # the fraction accumulates, and a step back takes it back.
            self._pr_before.setdefault(s[ID], s[PR])
            total = s[PR] + abs(speed)
            cells = int(total)
            s[PR] = total - cells
            if cells == 0:
                s[MT] = self.tick_no
                return False
        self._remember(s)
        self._set_pos(s, s[R] + dr * cells, s[C] + dc * cells)
        s[MT] = self.tick_no
        return True

    def add(
        self,
        tindex: int,
        row: int,
        col: int,
        direction: int | None = None,
        *,
        force: bool = False,
        side: int = 0,
    ) -> list[Any] | None:
        """A new sprite of type ``tindex`` at a cell, unless a singleton of its kind already lives
        (``force`` creates it anyway, as GVGAI's transformToAll does)."""
        stype = self.game.types[tindex]
        if self.population >= MAX_SPRITES:
            return None  # GVGAI's limit on sprites
        for t in () if force else stype.itypes:
            if self.game.types[t].singleton and self.count(self.game.subtypes[t]):
                return None
        sprite = new_sprite(
            self.next_id, tindex, row, col, stype.orientation, self.tick_no, stype.health, stype.ttl, side
        )
        self.population += 1
        if direction is not None and stype.oriented and sprite[OR] == 0:
            sprite[OR] = direction
        self.next_id += 1
        self._touch((row, col))
        group = self.by_type[tindex]
        if type(group) is tuple:
            group = self.by_type[tindex] = list(group)
        group.append(sprite)
        if self.game.frozen[tindex]:
            self.layer_changed = True
        self.cells.setdefault((row, col), []).append(sprite)
        if self._relocated is not None:
            self._event_cells.add((row, col))
        return sprite

    def kill(self, s: list[Any]) -> None:
        if s[ID] not in self.killed:
            self._touch((s[R], s[C]))
            self.killed[s[ID]] = s
            self.population -= 1
            if isinstance(s, tuple):  # a sprite of the never-moving layer
                self.layer_changed = True

    def speed(self, s: list[Any]) -> float:
        """A sprite's speed: its own once an effect set it, else its type's."""
        own = s[SPD]
        return float(own) if own >= 0 else self.game.types[s[T]].speed

    def _resource(self, s: list[Any], rtype: int) -> int:
        for key, amount in s[RES]:
            if key == rtype:
                return int(amount)
        return 0

    def _set_resource(self, s: list[Any], rtype: int, amount: int) -> None:
        rest = [(k, a) for k, a in s[RES] if k != rtype]
        rest.append((rtype, max(0, amount)))
        s[RES] = tuple(sorted(rest))

    def avatar(self) -> list[Any] | None:
        for t in self.game.types:
            if t.is_avatar:
                for s in self.by_type[t.index]:
                    if s[ID] not in self.killed:
                        found: list[Any] = s
                        return found
        return None

    # -- the tick -------------------------------------------------------------------------------

    def tick(self, action: str) -> None:
        self.tick_no += 1
        avatar = self.avatar()
        if avatar is not None:
            self._update_avatar(avatar, action)
        for tindex in self.game.update_order:
            group = self.by_type[tindex]
            i = 0
            while i < len(group):  # sprites spawned during the loop are updated too, as in GVGAI
                s = group[i]
                i += 1
                if s[ID] not in self.killed:
                    self._update(s)
        self._events()
        self._clear()
        self._terminate()

    def _update_avatar(self, s: list[Any], action: str) -> None:
        stype = self.game.types[s[T]]
        if action not in self.game.avatar_actions.get(s[T], ()):
            action = "ACTION_NIL"
        moved = False
        d = ACTION_DIRS.get(action, 0)
        kind = stype.kind
        speed = self.speed(s)
        if kind in ("ongoing", "ongoingshoot", "ongoingturning", "missileavatar"):
            # GVGAI's OngoingAvatar: an action only turns it; it keeps moving the way it faces.
            # OngoingTurningAvatar turns only across its way and leaves ``spawnBehind`` behind it;
            # OngoingShootAvatar uses its weapon when it does not turn; MissileAvatar only flies.
            if d and kind != "missileavatar":
                if kind != "ongoingturning" or DIRS[d][0] * DIRS[s[OR]][0] + DIRS[d][1] * DIRS[s[OR]][1] == 0:
                    if s[OR] != 0 or kind != "ongoingturning":
                        s[OR] = d
            before = (s[R], s[C])
            if s[OR] and s[STARTED]:  # GVGAI's first tick of a sprite moves nothing on its own
                dr, dc = DIRS[s[OR]]
                if speed > 0:
                    self._move(s, dr, dc, speed)
            s[STARTED] = 1
            if kind == "ongoingturning" and (s[R], s[C]) != before and stype.params.get("spawnBehind"):
                self.add(self.game.by_name[stype.params["spawnBehind"]], *before)
            if kind == "ongoingshoot" and not d and action == "ACTION_USE":
                self._shoot(s, "shoot")
            return
        if d:
            if stype.rotate and s[OR] != d:
                s[OR] = d
                return  # GVGAI's ROTATE: the avatar turns in place and does not act further
            dr, dc = DIRS[d]
            moved = self._move(s, dr, dc, speed if speed > 0 else 1.0)
            if moved and stype.oriented:
                s[OR] = d
        if not moved and action == "ACTION_USE":
            self._shoot(s, stype.kind)

    def _shoot(self, s: list[Any], kind: str) -> None:
        stype = self.game.types[s[T]]
        ammo = stype.params.get("ammo")
        if kind == "flak":
            if ammo:
                have = self._resource(s, self.game.by_name[ammo[0] if isinstance(ammo, tuple) else ammo])
                if have <= max(0, int(stype.params.get("minAmmo", -1))):
                    return
            shot = self.add(self.game.by_name[stype.params["stype"]], s[R], s[C])
            if shot is not None and ammo:
                rtype = self.game.by_name[ammo if isinstance(ammo, str) else ammo[0]]
                self._set_resource(s, rtype, self._resource(s, rtype) - int(stype.params.get("ammoCost", 1)))
            return
        stypes = stype.params["stype"]
        ammos = ammo or ()
        dr, dc = DIRS[s[OR]]
        for i, name in enumerate(stypes):
            if i < len(ammos) and self._resource(s, self.game.by_name[ammos[i]]) <= 0:
                continue
            shot = self.add(self.game.by_name[name], s[R] + dr, s[C] + dc, s[OR])
            if shot is not None:
                if self.game.types[shot[T]].oriented:
                    shot[OR] = s[OR]
                if i < len(ammos):
                    rtype = self.game.by_name[ammos[i]]
                    self._set_resource(s, rtype, self._resource(s, rtype) - 1)
            return

    def _passive(self, s: list[Any], stype: Any) -> None:
        if not s[STARTED]:
            return
        speed = self.speed(s)
        if speed != 0 and stype.oriented and s[OR]:
            dr, dc = DIRS[s[OR]]
            self._move(s, dr, dc, speed)

    def _random_dir(self, s: list[Any], cons: int) -> int:
        if s[CT] < cons and s[MEMO] > 0:
            s[CT] += 1
            return int(s[MEMO])
        d = self.rng.choice(BASE_DIRS)
        s[MEMO] = d
        s[CT] = 0
        return d

    def _active(self, s: list[Any], d: int, speed: float) -> None:
        dr, dc = DIRS[d]
        self._move(s, dr, dc, speed if speed > 0 else 1.0)

    def _update(self, s: list[Any]) -> None:
        stype = self.game.types[s[T]]
        self._update_kind(s, stype, stype.kind)
        s[STARTED] = 1
        ttl = s[TTL]
        if ttl > 0:
            s[TTL] = ttl - 1
        elif ttl == 0:
            self.kill(s)

    def _update_kind(self, s: list[Any], stype: Any, kind: str) -> None:
        if kind == "spawn":
            self._spawn(s, stype)
        elif kind == "flicker":
            self._passive(s, stype)
            if s[CT] > int(stype.params["limit"]):
                self.kill(s)
            s[CT] += 1
        elif kind == "spreader":
            if s[CT] == 2:
                spawned = stype.params["stype"]
                tindex = self.game.by_name[spawned] if spawned else s[T]
                for d in BASE_DIRS:
                    if self.rng.random() < float(stype.params["spreadprob"]):
                        dr, dc = DIRS[d]
                        lr, lc = self.last_pos(s)
                        self.add(tindex, lr + dr, lc + dc)
            if s[CT] > int(stype.params["limit"]):
                self.kill(s)
            s[CT] += 1
        elif kind == "randommissile":
            if s[OR] == 0:
                s[OR] = self.rng.choice(BASE_DIRS)
            self._passive(s, stype)
        elif kind == "randombomber":
            self._active(s, self.rng.choice(BASE_DIRS), self.speed(s))
            self._spawn(s, stype)
        elif kind == "random":
            self._passive(s, stype)
            self._active(s, self._random_dir(s, int(stype.params["cons"])), self.speed(s))
        elif kind in ("chaser", "fleeing", "altchaser", "loschaser", "pathchaser", "pathaltchaser"):
            epsilon = float(stype.params.get("epsilon", 0.0))
            if epsilon > 0 and self.rng.random() < epsilon:
                # RandomAltChaser, RandomPathAltChaser: now and then a random step
                self._passive(s, stype)
                self._active(s, self.rng.choice(BASE_DIRS), self.speed(s))
                return
            self._passive(s, stype)
            self._chase(s, stype)
        else:
            self._passive(s, stype)

    def _spawn(self, s: list[Any], stype: Any) -> None:
        params = stype.params
        if "stypeMissile" in params:  # BomberRandomMissile: a random kind of missile each time
            made_types = [self.game.by_name[self.rng.choice(params["stypeMissile"])]]
        elif "stypes" in params:  # SpawnPointMultiSprite: one of each kind
            made_types = [self.game.by_name[n] for n in params["stypes"]]
        else:
            made_types = [self.game.by_name[params["stype"]]]
        if s[MEMO] == -1:
            s[MEMO] = self.tick_no
        roll = self.rng.random()
        # GVGAI counts ticks from 0 (``gameTick`` of the first tick), PlayTrace from 1: a spawner spawns
        # when (its first tick + this tick) is a multiple of its cooldown, in GVGAI's numbers.
        if (s[MEMO] + self.tick_no - 2) % stype.cooldown == 0 and roll < float(params["prob"]):
            facing = int(params["spawnorientation"]) or s[OR]
            for tindex in made_types:
                made = self.add(tindex, s[R], s[C], facing or None, side=self._part_way(s))
                if made is not None:
                    s[CT] += 1
        self._passive(s, stype)
        total = int(stype.params["total"])
        if total > 0 and s[CT] >= total:
            self.kill(s)

    def _chase(self, s: list[Any], stype: Any) -> None:
        params = stype.params
        kind = stype.kind
        game = self.game
        fleeing = kind == "fleeing" or bool(params.get("fleeing"))
        if kind in ("altchaser", "pathaltchaser"):
            # GVGAI's AlternateChaser counts the sprites of both lists together (its own quirk): while
            # any is left it chases the nearest sprite of a random kind of the first list.
            first = [game.by_name[n] for n in params["stype1"]]
            both = [i for n in (*params["stype1"], *params["stype2"]) for i in game.subtypes[game.by_name[n]]]
            targets_types = list(game.subtypes[self.rng.choice(first)]) if self.count(both) else []
            fleeing = False
        else:
            targets_types = list(game.subtypes[game.by_name[params["stype"]]])
        facing = int(s[MEMO]) if kind == "loschaser" else 0
        best = None
        targets: list[list[Any]] = []
        for t in targets_types:
            for other in self.by_type[t]:
                if other[ID] in self.killed:
                    continue
                if kind == "loschaser" and not self._in_sight(s, other, facing):
                    continue
                dist = abs(other[R] - s[R]) + abs(other[C] - s[C])
                if best is None or dist < best:
                    best, targets = dist, [other]
                elif dist == best:
                    targets.append(other)
        if kind == "pathaltchaser" and params.get("randomTarget") and targets_types:
            pool = [o for t in targets_types for o in self.by_type[t] if o[ID] not in self.killed]
            targets = [self.rng.choice(pool)] if pool else []
        if kind in ("pathchaser", "pathaltchaser") and targets and not fleeing:
            d = self._path_step(s, targets[0])
            if kind == "pathchaser":
                s[CT] = int(params.get("cons", 0))
            if d:
                self._active(s, d, self.speed(s))
            return
        if kind == "pathchaser":  # no target: a random walk (RandomNPC)
            self._active(s, self._random_dir(s, int(params.get("cons", 0))), self.speed(s))
            return
        limit = float(params.get("maxDistance", -1.0))
        options: list[int] = []
        for other in targets:
            dist = abs(other[R] - s[R]) + abs(other[C] - s[C])
            if limit != -1 and dist > limit:
                continue
            for d in BASE_DIRS:
                dr, dc = DIRS[d]
                new = abs(other[R] - s[R] - dr) + abs(other[C] - s[C] - dc)
                if (fleeing and new > dist) or (not fleeing and new < dist):
                    options.append(d)
        if options:
            d = self.rng.choice(options)
        elif kind in ("altchaser", "pathaltchaser"):
            d = self.rng.choice(BASE_DIRS)
        else:
            d = self._random_dir(s, int(params.get("cons", 0)))
        if kind == "loschaser":
            s[MEMO] = d
        self._active(s, d, self.speed(s))

    @staticmethod
    def _in_sight(s: list[Any], other: list[Any], facing: int) -> bool:
        """GVGAI's LOSChaser sees along the way it last went: the same column or row, ahead of it."""
        if facing == 1:
            return bool(other[C] == s[C] and other[R] <= s[R])
        if facing == 3:
            return bool(other[C] == s[C] and other[R] >= s[R])
        if facing == 2:
            return bool(other[R] == s[R] and other[C] <= s[C])
        if facing == 4:
            return bool(other[R] == s[R] and other[C] >= s[C])
        return False

    def _path_step(self, s: list[Any], target: list[Any]) -> int:
        """The first step of a shortest path from ``s`` to ``target`` that avoids the game's obstacles
        (``BasicGame obs=...``), found breadth-first on the grid; 0 when there is none (GVGAI's
        path finder, A* on the same grid)."""
        start, goal = (s[R], s[C]), (target[R], target[C])
        if start == goal:
            return 0
        blocked = self._blocked()
        first: dict[tuple[int, int], int] = {start: 0}
        frontier = [start]
        order = (1, 3, 2, 4)  # GVGAI's path finder tries up, down, left, right
        while frontier:
            nxt: list[tuple[int, int]] = []
            for r, c in frontier:
                for d in order:
                    dr, dc = DIRS[d]
                    cell = (r + dr, c + dc)
                    if cell in first or cell in blocked:
                        continue
                    if not (0 <= cell[0] < self.height and 0 <= cell[1] < self.width):
                        continue
                    first[cell] = first[(r, c)] or d
                    if cell == goal:
                        return first[cell]
                    nxt.append(cell)
            frontier = nxt
        return 0

    def _blocked(self) -> set[tuple[int, int]]:
        cached = self._obstacle_cells
        if cached is None:
            cached = {
                (o[R], o[C]) for t in self.game.obstacles for o in self.by_type[t] if o[ID] not in self.killed
            }
            self._obstacle_cells = cached
        return cached

    # -- events ---------------------------------------------------------------------------------

    def _outside(self, s: list[Any]) -> bool:
        return not (0 <= s[R] < self.height and 0 <= s[C] < self.width)

    def _clock(self) -> None:
        """GVGAI's timed effects: every effect whose tick has come runs, on every sprite of its type
        (or on none), and a repeating one is planned again ``timer`` ticks later."""
        game = self.game
        while self.timers:
            due = min(self.timers)
            if due[0] > self.tick_no:
                return
            self.timers.remove(due)
            timed = game.timed[due[1]]
            effect = timed.effect
            if timed.itype < 0:
                self._apply(effect, None, None)
            else:
                for t in game.subtypes[timed.itype]:
                    for s in list(self.by_type[t]):
                        if s[ID] not in self.killed:
                            self._apply(effect, s, None)
            if timed.repeating:
                self.timers.append((self.tick_no + timed.timer, due[1]))

    def schedule(self, index: int) -> None:
        """Start the timer of an ``addTimer`` effect: its effect runs ``timer`` ticks from now."""
        self.timers.append((self.tick_no + self.game.timed[index].timer, index))

    def _events(self) -> None:
        game = self.game
        if self.timers:
            self._clock()
        for actor, effects in game.eos:
            for effect in effects:
                for t in game.subtypes[actor]:
                    for s in list(self.by_type[t]):
                        if s[ID] not in self.killed and self._outside(s):
                            self._apply(effect, s, None)
        # Collisions in the InteractionSet's order. A sprite put back into a cell by an effect (a boulder
        # stepped back) can meet a sprite that moved there meanwhile; on whole cells that meeting would
        # be missed, so further passes apply the rules to the pairs such moves created (at most 3).
        self._relocated = set()
        done: set[tuple[int, int, int, int]] = set()
        self._pairs(None, done)
        for _ in range(3):
            moved, self._relocated = self._relocated, set()
            if not moved:
                break
            self._pairs(moved, done)
        self._relocated = None

    @staticmethod
    def _part_way(s: Sequence[Any]) -> int:
        """The direction a sprite reaches into beyond its cell for good (0: none): what it makes
        inherits it, as a bomb dropped by a bomber between two cells is over both in GVGAI's pixels."""
        if s[PR] > 0 and s[OR]:
            return int(s[OR])
        return int(s[SIDE]) if len(s) > SIDE else 0

    @staticmethod
    def reach(s: Sequence[Any]) -> tuple[tuple[int, int], ...]:
        """The cells a sprite reaches into beyond its own: a sprite slower than one cell a tick that
        faces its way (a missile, a bomber) is, in GVGAI's pixels, over two cells while its progress is
        between them; one made between two cells stays over both (its ``side``)."""
        out: list[tuple[int, int]] = []
        r, c = s[R], s[C]
        ahead = s[OR] if s[PR] > 0 else 0
        side = s[SIDE]
        if ahead:
            dr, dc = DIRS[ahead]
            out.append((r + dr, c + dc))
        if side and side != ahead:
            sr, sc = DIRS[side]
            out.append((r + sr, c + sc))
            if ahead:
                dr, dc = DIRS[ahead]
                out.append((r + dr + sr, c + dc + sc))
        return tuple(out)

    def meet(self, s1: Sequence[Any], s2: Sequence[Any]) -> bool:
        """Whether two sprites overlap: the same cell, or one reaching into the other's cell."""
        if s1[R] == s2[R] and s1[C] == s2[C]:
            return True
        c1, c2 = (s1[R], s1[C]), (s2[R], s2[C])
        return (type(s1) is list and c2 in self.reach(s1)) or (type(s2) is list and c1 in self.reach(s2))

    def _overhangs(self) -> dict[tuple[int, int], list[Any]]:
        over: dict[tuple[int, int], list[Any]] = {}
        for group in self.cells.values():
            for x in group:
                if (x[PR] > 0 and x[OR]) or x[SIDE]:
                    if x[ID] not in self.killed:
                        for cell in self.reach(x):
                            over.setdefault(cell, []).append(x)
        return over

    def _near(self, s1: Sequence[Any]) -> list[Any]:
        """The sprites that may overlap ``s1``: in its cell, reaching into it, or in a cell it reaches."""
        cell = (s1[R], s1[C])
        near = list(self.here(cell))
        near += self._over.get(cell, ())
        if type(s1) is list:
            for other in self.reach(s1):
                near += self.here(other)
        return near

    def _meetings(self) -> dict[int, dict[int, Any]]:
        """Per collision rule, the sprites that meet a sprite the rule names, at the start of a pass:
        those of the layer (found once per layer) and those in the cells of the other sprites."""
        killed = self.killed
        rules_for = self.game.rules_for
        found: dict[int, dict[int, Any]] = {
            n: {x[ID]: x for x in xs if x[ID] not in killed} for n, xs in self.layer.hits(self.game).items()
        }
        for key in self.cells:
            here = self.here(key)
            if len(here) < 2:
                continue
            for x in here:
                if x[ID] in killed:
                    continue
                for y in here:
                    if y is not x:
                        for n in rules_for.get((x[T], y[T]), ()):
                            hit = found.get(n)
                            if hit is None:
                                found[n] = {x[ID]: x}
                            else:
                                hit[x[ID]] = x
        over = self._over = self._overhangs() if self.game.may_reach else {}
        for key, reaching in over.items():
            here = self.here(key)
            for pair in ((x, y) for x in reaching for y in here) if here else ():
                for x, y in (pair, (pair[1], pair[0])):
                    if x[ID] in killed or x is y:
                        continue
                    for n in rules_for.get((x[T], y[T]), ()):
                        found.setdefault(n, {})[x[ID]] = x
        return found

    def _pairs(self, only: set[int] | None, done: set[tuple[int, int, int, int]]) -> None:
        """Apply the collision rules in order. Each rule looks at the sprites found meeting one of its
        second kind at the start of the pass, and at those in cells entered since (in GVGAI's order:
        type by type, oldest first)."""
        game = self.game
        killed, fixed, cells = self.killed, self.fixed, self.cells
        meetings = self._meetings()
        self._event_cells = set()
        for number, (actor, other, effects, _first, rank, _second, wanted) in enumerate(game.pair_index):
            for e_index, effect in enumerate(effects):
                if self.shields and (actor, other, effect.name) in self.shields:
                    continue  # shieldFrom protects the actor's kind from this effect this tick
                found = meetings.get(number)
                if self._event_cells:
                    found = dict(found) if found else {}
                    for cell in self._event_cells:
                        for x in self.here(cell):
                            if x[T] in rank:
                                found[x[ID]] = x
                if not found:
                    break
                first = sorted(found.values(), key=lambda x: (rank[x[T]], x[ID]))
                key = number * 64 + e_index
                for s1 in first:
                    if s1[ID] in killed:
                        continue
                    cell = (s1[R], s1[C])
                    if self._over or (s1[PR] > 0 and s1[OR]) or s1[SIDE]:
                        here: Sequence[Any] = self._near(s1)
                    else:
                        a, b = fixed.get(cell), cells.get(cell)
                        if a is None:
                            if b is None or len(b) < 2:
                                continue
                            here = b
                        elif b:
                            here = (*a, *b)
                        elif len(a) < 2:
                            continue
                        else:
                            here = a
                    partners = [s2 for s2 in here if s2[T] in wanted and s2 is not s1]
                    for s2 in partners:
                        if s1[ID] in killed:
                            break
                        if only is not None and (
                            (s1[ID] not in only and s2[ID] not in only) or s2[ID] in killed
                        ):
                            # A further pass looks at meetings made by moves, never at sprites gone.
                            continue
                        mark = (key, s1[ID], s2[ID], 0)
                        if mark in done:
                            continue
                        done.add(mark)
                        if (s2[R] == s1[R] and s2[C] == s1[C]) or self.meet(s1, s2):
                            self._apply(effect, s1, s2)

    def _apply(self, effect: Effect, s1: list[Any] | None, s2: list[Any] | None) -> None:
        if s1 is None:
            # A timer's effect with no sprite: only the effects that need none do something; GVGAI
            # gives the score either way.
            if effect.name in _SPRITE_FREE:
                EFFECT_FUNCTIONS[effect.name](self, effect, None, None)
            self.score += effect.score
            return
        scored = EFFECT_FUNCTIONS[effect.name](self, effect, s1, s2)
        if type(scored) is float:  # the effect chose its own score (scoreChangeIfKilled)
            self.score += scored
        elif scored is not False and effect.score:
            self.score += effect.score
        self.events.append((effect.name, s1[T]))

    def _clear(self) -> None:
        killed = self.killed
        if not killed:
            return
        types = {s[T] for s in killed.values()}
        for t in types:
            self.by_type[t] = [s for s in self.by_type[t] if s[ID] not in killed]
        cells = self.cells
        for s in killed.values():
            key = (s[R], s[C])
            here = cells.get(key)
            if here is None:
                continue
            here[:] = [x for x in here if x[ID] not in killed]
            if not here:
                del cells[key]

    def _terminate(self) -> None:
        for term in self.game.terminations:
            if term.cls == "Timeout":
                done = self.tick_no - 1 >= term.limit  # GVGAI's gameTick, counted from 0
            elif term.cls == "SpriteCounter":
                done = self.count(term.counted) <= term.limit
            elif term.cls == "SpriteCounterMore":
                done = self.count(term.counted) >= term.limit
            elif term.cls == "MultiSpriteCounterSubTypes":
                done = self.count(term.counted) == term.limit and term.kinds == sum(
                    1 for t in term.kind_types if self.count((t,))
                )
            else:
                counted = self.count(term.counted)
                done = counted == term.limit or (term.at_least and counted > term.limit)
            if done:
                self.won = term.win
                self.score += term.score
                return
