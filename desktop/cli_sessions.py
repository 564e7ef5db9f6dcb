"""``playtrace show``, ``list``, ``export`` and ``import``: recorded sessions from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.cli_common import EXIT_FAILURE, EXIT_OK, default_root, err, money, num, one_line, stdout_console
from engine import events as ev

# -- show ----------------------------------------------------------------------------------------------


def _load_session(path: Path) -> Any:
    """Load a session (folder, manifest, event log or zip); raises ``SessionError`` with one line."""
    import sessions

    try:
        return sessions.load_session(path)
    except sessions.SessionError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise sessions.SessionError(f"{path} is not a PlayTrace session ({one_line(exc)})") from None


def model_stats(events: Sequence[Mapping[str, Any]], seats: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Per model seat: calls, failed calls, tokens, cost, invalid answers and verification accuracy."""
    out: dict[int, dict[str, Any]] = {
        s: {"calls": 0, "failed_calls": 0, "input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0,
            "cost_usd": 0.0, "invalid_answers": 0, "verifications": 0, "verified_correct": 0}
        for s in seats
    }
    for e in events:
        seat = e.get("seat")
        if seat not in out:
            continue
        st, data, kind = out[seat], e.get("data") or {}, e.get("type")
        if kind == ev.MODEL_CALL_FINISHED:
            st["calls"] += 1
            for key in ("input_tokens", "output_tokens", "reasoning_tokens"):
                st[key] += int(data.get(key) or 0)
            cost = data.get("cost_usd")
            if isinstance(cost, (int, float)):
                st["cost_usd"] += float(cost)
        elif kind == ev.MODEL_CALL_FAILED:
            st["calls"] += 1
            st["failed_calls"] += 1
        elif kind in (ev.ACTION_UNPARSABLE, ev.ACTION_ILLEGAL):
            st["invalid_answers"] += 1
        elif kind == ev.VERIFICATION:
            st["verifications"] += 1
            st["verified_correct"] += 1 if data.get("correct") else 0
    for st in out.values():
        st["cost_usd"] = round(st["cost_usd"], 6)
        st["verification_accuracy"] = (
            st["verified_correct"] / st["verifications"] if st["verifications"] else None
        )
    return out


def session_report(session: Any) -> dict[str, Any]:
    """The facts ``playtrace show`` prints, as a JSON-compatible dict.

    Keys: id, path, game, players, created_at, finished_at, seed, status, steps, scores (per seat),
    winner (seat index or None), result (short text), warnings, and ``model`` (per model seat: calls,
    tokens, cost, invalid answers, verification accuracy) when a model played.
    """
    summary: dict[str, Any] = dict(session.summary())
    manifest: Mapping[str, Any] = session.manifest or {}
    players = summary.get("players") or []
    winner = summary.get("winner")
    model_seats = [int(p.get("seat", i)) for i, p in enumerate(players)
                   if isinstance(p, Mapping) and p.get("kind") == "model"]
    report: dict[str, Any] = {
        "id": summary.get("id"),
        "path": str(getattr(session, "source", session.path)),
        "game": summary.get("game"),
        "players": players,
        "created_at": summary.get("created_at"),
        "finished_at": summary.get("finished_at"),
        "seed": manifest.get("seed"),
        "status": summary.get("status"),
        "steps": int(summary.get("steps") or 0),
        "scores": list(summary.get("scores") or []),
        "winner": winner if isinstance(winner, int) and not isinstance(winner, bool) else None,
        "result": summary.get("result"),
        "warnings": list(session.warnings),
    }
    if model_seats:
        report["model"] = {str(k): v for k, v in model_stats(session.events, model_seats).items()}
    return report


def cmd_show(args: argparse.Namespace) -> int:
    """``playtrace show``: a readable (or JSON) summary of one session; exit 1 if it is not a session."""
    import sessions

    try:
        session = _load_session(args.session)
        report = session_report(session)
    except sessions.SessionError as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    if args.json:
        print(json.dumps(report, indent=2, default=str))
        return EXIT_OK
    for warning in report["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    print(_format_report(report))
    return EXIT_OK


def _player_text(p: Any) -> str:
    if isinstance(p, Mapping):
        label, spec = p.get("label") or p.get("spec") or "?", p.get("spec")
        return f"{label} ({spec})" if spec and spec != label else str(label)
    return str(p)


def _format_report(r: Mapping[str, Any]) -> str:
    players = r["players"]
    winner = r["winner"]
    if winner is not None and 0 <= winner < len(players):
        winner_text = f"seat {winner}: {_player_text(players[winner])}"
    elif len(players) >= 2 and r["status"] == "completed":
        winner_text = "none (draw)"
    else:
        winner_text = "-"
    lines = [
        f"session   {r['id']}",
        f"path      {r['path']}",
        f"game      {r['game']}",
        "players   " + " vs ".join(f"[{i}] {_player_text(p)}" for i, p in enumerate(players)),
        f"date      {r['created_at'] or '-'}",
        f"seed      {r['seed'] if r['seed'] is not None else '-'}",
        f"status    {r['status']}",
        f"steps     {r['steps']}",
        f"scores    {' / '.join(num(s) for s in r['scores']) or '-'}",
        f"winner    {winner_text}",
        f"result    {r.get('result') or '-'}",
    ]
    if r["warnings"]:
        lines.append(f"warnings  {len(r['warnings'])} (see above)")
    for seat, st in (r.get("model") or {}).items():
        acc = st["verification_accuracy"]
        acc_text = f"{acc:.0%} of {st['verifications']}" if acc is not None else "no checks"
        lines.append(
            f"model [{seat}] {st['calls']} calls ({st['failed_calls']} failed), "
            f"tokens {st['input_tokens']} in / {st['output_tokens']} out"
            + (f" / {st['reasoning_tokens']} reasoning" if st["reasoning_tokens"] else "")
            + f", cost {money(st['cost_usd'])}, {st['invalid_answers']} invalid answers, "
            f"verification {acc_text}"
        )
    return "\n".join(lines)


# -- list, export, import ----------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    """``playtrace list``: the catalogue of recorded sessions, newest first."""
    from rich.table import Table

    import sessions

    root = args.out if args.out is not None else default_root()
    catalogue = sessions.Catalogue(root)
    items = list(catalogue.list())
    for warning in getattr(catalogue, "warnings", ()) or ():
        print(f"warning: {warning}", file=sys.stderr)
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        print(f"no sessions in {root}")
        return EXIT_OK
    console = stdout_console()
    console.print(f"sessions in {root}")
    table = Table(show_edge=False, pad_edge=False)
    for col in ("id", "created", "game", "players", "steps", "status", "result"):
        table.add_column(col, no_wrap=col == "id")
    for it in items:
        labels = getattr(it, "players", ()) or ()
        table.add_row(
            str(getattr(it, "id", "")),
            str(getattr(it, "created_at", "") or ""),
            str(getattr(it, "game", "")),
            " vs ".join(str(x) for x in labels),
            str(getattr(it, "steps", "")),
            str(getattr(it, "status", "") or ""),
            str(getattr(it, "result", "") or ""),
        )
    console.print(table)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """``playtrace export SESSION ZIP``."""
    import sessions

    try:
        session = _load_session(args.session)
        dest = sessions.export_zip(Path(session.path), args.zip)
    except (sessions.SessionError, OSError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    print(dest)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """``playtrace import ZIP [--out DIR]``: prints the new session folder."""
    import sessions

    root = args.out if args.out is not None else default_root()
    try:
        path = sessions.import_zip(args.zip, root)
    except (sessions.SessionError, OSError, ValueError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    print(path)
    return EXIT_OK
