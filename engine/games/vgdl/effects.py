"""VGDL interaction effects on the grid, as GVGAI's Java engine defines them (see
:mod:`engine.games.vgdl.runtime` for when they run).

Each effect takes the world of the tick (a :class:`~engine.games.vgdl.runtime.World`), the effect as
compiled, the sprite it applies to and the other sprite of the collision (``None`` at the end of the
screen), and returns ``False`` when it did not apply (its ``scoreChange`` is then not given).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.games.vgdl.ontology import DIRS, EFFECTS, Effect
from engine.games.vgdl.sprites import (
    BASE_DIRS,
    HP,
    ID,
    LC,
    LR,
    LT,
    MT,
    OR,
    RES,
    REVERSE,
    SPD,
    C,
    R,
    T,
)

__all__ = ["EFFECT_FUNCTIONS", "EffectFunction"]

#: ``effect(world, effect, sprite, other)``: an interaction applied to a sprite and the one it met
#: (``None`` for a timer's or an edge's); what some return (whether they acted) is theirs to say.
EffectFunction = Callable[["World", "Effect", Any, Any], object]

#: The world of a tick (typed loosely: the runtime imports this module).
World = Any

# -- effects: each takes (world, effect, sprite, other) and returns False when it did not apply ----


def _step_back(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.undo(s)


def _kill(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.kill(s)


def _kill_both(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.kill(s)
    if o is not None:
        w.kill(o)


def _kill_all(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    for t in w.game.subtypes[w.game.by_name[e.params["stype"]]]:
        for x in w.by_type[t]:
            w.kill(x)


def _bounce_forward(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    assert o is not None
    dr, dc = w.last_dir(o)
    if dr == 0 and dc == 0:
        return False
    # A move against the way the pusher faces is a wrap around the screen: push the way it faces.
    face_r, face_c = DIRS[o[OR]]
    if dr * face_r < 0:
        dr = -dr
    if dc * face_c < 0:
        dc = -dc
    if dr and dc:
        dc = 0
    w._move(s, dr, dc, 1.0)
    s[OR] = DIRS.index((dr, dc))
    return True


def _clone(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.add(s[T], s[R], s[C], s[OR] or None)


def _spawn(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    if w.rng.random() >= float(e.params["prob"]):
        return
    w.add(w.game.by_name[e.params["stype"]], s[R], s[C], s[OR] or None)


def _shield(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.shields.add((s[T], w.game.by_name[e.params["stype"]], e.params["ftype"]))


def _add_timer(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w.schedule(e.timed)


def _set_speed(w: World, e: Effect, s: list[Any] | None, o: list[Any] | None) -> None:
    value = float(e.params["value"])
    for t in w.game.subtypes[w.game.by_name[e.params["stype"]]]:
        for x in w.by_type[t]:
            x[SPD] = value


def _kill_if_score_negative(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    if w.score < 0:
        w.kill(s)


def _collect_if_held(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    assert o is not None
    stype = w.game.types[s[T]]
    if stype.kind != "resource":
        return False
    if w._resource(o, w.game.by_name[e.params["heldResource"]]) < int(e.params["value"]):
        return False
    rtype = s[T]
    have = w._resource(o, rtype)
    collected = have + int(stype.params["value"]) <= w.game.limits.get(rtype, 0)
    if collected:
        w._set_resource(o, rtype, have + int(stype.params["value"]))
    if e.params["killResource"]:
        w.kill(s)
    return bool(collected)


def _replace(w: World, old: list[Any], target: int, *, force: bool = False) -> list[Any] | None:
    """GVGAI's transformTo on one sprite: a ``target`` sprite takes its place, facing and resources."""
    made: list[Any] | None = w.add(target, old[R], old[C], force=force)
    if made is None:
        return None
    if w.game.types[target].oriented and w.game.types[old[T]].oriented:
        made[OR] = old[OR] or made[OR]
    made[LR], made[LC], made[LT] = old[LR], old[LC], old[LT]
    # As in GVGAI the new sprite is new: it keeps the resources and health, not the clock of its
    # moves, and waits its first tick before moving on its own.
    made[RES], made[HP] = old[RES], old[HP]
    w.kill(old)
    return made


def _transform(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    made = _replace(w, s, w.game.by_name[e.params["stype"]])
    if made is None:
        return False
    if e.params["forceOrientation"] and s[OR]:
        made[OR] = s[OR]
    if e.params["killSecond"] and o is not None:
        w.kill(o)
    return True


def _pull(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    assert o is not None
    key = s[ID] * 1_000_003 + w.tick_no
    if key in w._pulled:
        return
    w._pulled.add(key)
    before = (s[LR], s[LC], s[LT])
    dr, dc = w.last_dir(o)
    if dr and dc:
        dc = 0
    w._move(s, dr, dc, 1.0)
    s[LR], s[LC], s[LT] = before


def _turn_around(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    w._set_pos(s, *w.last_pos(s))
    w._move(s, 1, 0, 1.0, force=True)
    s[OR] = REVERSE[s[OR]]


def _reverse(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    s[OR] = REVERSE[s[OR]]


def _flip(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    s[OR] = w.rng.choice(BASE_DIRS)


def _change_resource(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    rtype = w.game.by_name[e.params["resource"]]
    have = w._resource(s, rtype)
    value = int(e.params["value"])
    if have + value > w.game.limits.get(rtype, 0):
        return False
    w._set_resource(s, rtype, have + value)
    if e.params["killResource"] and o is not None:
        w.kill(o)
    return True


def _collect(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    assert o is not None
    stype = w.game.types[s[T]]
    if stype.kind != "resource":
        return False
    rtype = s[T]
    limit = w.game.limits.get(rtype, 0)
    have = w._resource(o, rtype)
    if have >= limit:
        return False
    w._set_resource(o, rtype, have + min(int(stype.params["value"]), limit - have))
    if e.params["killResource"]:
        w.kill(s)
    return True


def _resource_test(holder_is_other: bool, more: bool) -> EffectFunction:
    def effect(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
        holder = o if holder_is_other else s
        if holder is None:
            return False
        rtype = w.game.by_name[e.params["resource"]]
        have = w._resource(holder, rtype)
        limit = int(e.params["limit"])
        if not (have >= limit if more else have <= limit):
            return False
        w.kill(s)
        if holder_is_other and more and e.params.get("subtract"):
            w._set_resource(holder, rtype, have - limit)
        return True

    return effect


def _kill_if_from_above(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    assert o is not None
    other_higher = w.last_pos(s)[0] > w.last_pos(o)[0]
    going_down = o[R] > w.last_pos(o)[0]
    if other_higher and going_down:
        w.kill(s)
        return True
    return False


def _spawn_if_has_more(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    if w.rng.random() >= float(e.params["prob"]):
        return False
    rtype = w.game.by_name[e.params["resource"]]
    have = w._resource(s, rtype)
    if have < int(e.params["limit"]):
        return False
    w.add(w.game.by_name[e.params["stype"]], s[R], s[C])
    w._set_resource(s, rtype, have - int(e.params["spend"]))
    return True


def _undo_all(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    skip = {i for n in e.params["notStype"] for i in w.game.subtypes[w.game.by_name[n]]}
    for t, group in enumerate(w.by_type):
        if t in skip:
            continue
        for x in group:
            if x[LT] == w.tick_no or x[ID] in w._pr_before:
                w.undo(x)


def _teleport(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    assert o is not None
    exit_name = w.game.types[o[T]].params.get("stype")
    if not exit_name:
        return
    exits = [
        x for t in w.game.subtypes[w.game.by_name[exit_name]] for x in w.by_type[t] if x[ID] not in w.killed
    ]
    if not exits:
        w.kill(s)
        return
    target = w.rng.choice(exits)
    w._remember(s)
    w._set_pos(s, target[R], target[C])
    s[MT] = w.tick_no
    if w.game.types[target[T]].oriented:
        s[OR] = target[OR]


def _wrap(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    offset = int(e.params["offset"])
    dr, dc = DIRS[s[OR]] if s[OR] else w.last_dir(s)
    if dc > 0:
        w._set_pos(s, s[R], offset)
    elif dc < 0:
        w._set_pos(s, s[R], w.width - 1 - offset)
    elif dr > 0:
        w._set_pos(s, offset, s[C])
    elif dr < 0:
        w._set_pos(s, w.height - 1 - offset, s[C])
    s[MT] = w.tick_no


def _attract_gaze(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    assert o is not None
    if not (w.game.types[s[T]].oriented and w.game.types[o[T]].oriented):
        return True
    if w.rng.random() < float(e.params["prob"]):
        s[OR] = o[OR]
        if e.params["align"]:
            if s[OR] in (2, 4):
                w._set_pos(s, o[R], s[C])
            else:
                w._set_pos(s, s[R], o[C])
    return True


def _align(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    assert o is not None
    if e.params["orient"]:
        s[OR] = o[OR]
    w._set_pos(s, o[R], o[C])


def _transform_all(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    source = w.game.by_name[e.params["stype"]]
    target = w.game.by_name[e.params["stypeTo"]]
    for x in list(w.by_type[source]):
        if x[ID] not in w.killed:
            _replace(w, x, target, force=True)


def _transform_if_count(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    counted = w.count(w.game.subtypes[w.game.by_name[e.params["stypeCount"]]])
    if int(e.params["geq"]) <= counted <= int(e.params["leq"]):
        _replace(w, s, w.game.by_name[e.params["stype"]], force=True)
        return True
    if e.params["estype"]:
        _replace(w, s, w.game.by_name[e.params["estype"]], force=True)
    return False


def _transform_random_child(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    parent = w.game.by_name[e.params["stype"]]
    children = [t for t in w.game.subtypes[parent] if t != parent]
    if children:
        _replace(w, s, w.rng.choice(children))


def _transform_singleton(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    assert o is not None
    single = w.game.by_name[e.params["stype"]]
    other = w.game.by_name[e.params["stype_other"]]
    for x in list(w.by_type[single]):
        if x[ID] not in w.killed:
            _replace(w, x, other)
    made = _replace(w, s, single)
    if made is not None and e.params["takeOrientation"]:
        made[OR] = REVERSE[o[OR]]


def _spawn_if_has_less(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
    if w.rng.random() >= float(e.params["prob"]):
        return False
    if w._resource(s, w.game.by_name[e.params["resource"]]) > int(e.params["limit"]):
        return False
    w.add(w.game.by_name[e.params["stype"]], s[R], s[C])
    return True


def _spawn_behind(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
    assert o is not None
    if w.rng.random() >= float(e.params["prob"]):
        return
    if w.last_pos(o) != (o[R], o[C]):
        w.add(w.game.by_name[e.params["stype"]], *w.last_pos(o))


def _spawn_next_to(d: int) -> EffectFunction:
    def effect(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> None:
        assert o is not None
        if w.rng.random() >= float(e.params["prob"]):
            return
        r, c = w.last_pos(o) if e.params["stepBack"] else (o[R], o[C])
        dr, dc = DIRS[d]
        w.add(w.game.by_name[e.params["stype"]], r + dr, c + dc)

    return effect


def _frontal(kill_if_frontal: bool) -> EffectFunction:
    def effect(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
        assert o is not None
        mine, theirs = w.last_dir(s), w.last_dir(o)
        frontal = mine == (0, 0) or (mine[0] + theirs[0], mine[1] + theirs[1]) == (0, 0)
        if frontal == kill_if_frontal:
            w.kill(s)
            return True
        return False

    return effect


def _subtract_health(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> float:
    target = s
    if e.params["stype"]:
        found = [x for t in w.game.subtypes[w.game.by_name[e.params["stype"]]] for x in w.by_type[t]]
        if not found:
            return 0.0
        target = found[0]
    target[HP] -= int(e.params["value"])
    if target[HP] <= int(e.params["limit"]):
        w.kill(target)
        return float(e.params["scoreChangeIfKilled"])
    return e.score


def _add_health(to_max: bool) -> EffectFunction:
    def effect(w: World, e: Effect, s: list[Any], o: list[Any] | None) -> bool:
        limit = w.game.types[s[T]].health_limit
        value = int(e.params["value"])
        if s[HP] + value < limit:
            s[HP] += value
        elif to_max:
            s[HP] = limit
        else:
            return False
        if e.params["killSecond"] and o is not None:
            w.kill(o)
        return True

    return effect


EFFECT_FUNCTIONS: dict[str, EffectFunction] = {
    "shieldFrom": _shield,
    "addTimer": _add_timer,
    "setSpeedForAll": _set_speed,
    "killIfScoreNegative": _kill_if_score_negative,
    "collectResourceIfHeld": _collect_if_held,
    "subtractHealthPoints": _subtract_health,
    "addHealthPoints": _add_health(False),
    "addHealthPointsToMax": _add_health(True),
    "align": _align,
    "transformToAll": _transform_all,
    "transformIfCount": _transform_if_count,
    "transformToRandomChild": _transform_random_child,
    "transformToSingleton": _transform_singleton,
    "spawnIfHasLess": _spawn_if_has_less,
    "spawnBehind": _spawn_behind,
    "spawnRight": _spawn_next_to(4),
    "spawnLeft": _spawn_next_to(2),
    "spawnAbove": _spawn_next_to(1),
    "spawnBelow": _spawn_next_to(3),
    "killIfFrontal": _frontal(True),
    "killIfNotFrontal": _frontal(False),
    "stepBack": _step_back,
    "killSprite": _kill,
    "killBoth": _kill_both,
    "killAll": _kill_all,
    "bounceForward": _bounce_forward,
    "cloneSprite": _clone,
    "spawn": _spawn,
    "transformTo": _transform,
    "pullWithIt": _pull,
    "turnAround": _turn_around,
    "reverseDirection": _reverse,
    "flipDirection": _flip,
    "changeResource": _change_resource,
    "collectResource": _collect,
    "killIfHasLess": _resource_test(False, False),
    "killIfHasMore": _resource_test(False, True),
    "killIfOtherHasMore": _resource_test(True, True),
    "killIfOtherHasLess": _resource_test(True, False),
    "killIfFromAbove": _kill_if_from_above,
    "spawnIfHasMore": _spawn_if_has_more,
    "undoAll": _undo_all,
    "teleportToExit": _teleport,
    "wrapAround": _wrap,
    "attractGaze": _attract_gaze,
}
assert set(EFFECT_FUNCTIONS) == set(EFFECTS), "every effect the ontology lists is implemented"
