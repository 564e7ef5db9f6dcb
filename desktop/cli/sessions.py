"""``playtrace show``, ``list``, ``export`` and ``import``: recorded sessions from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    compact_table,
    default_root,
    err,
    money,
    num,
    one_line,
    output_width,
    resolve_session,
    stdout_console,
)
from engine import events as ev
from engine.safeio import InputError
from sessions import read_manifest

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
    """Per model seat: calls, failed calls, tokens, cost, invalid answers, fallback moves (chosen by
    the harness when the model gave no usable answer) and verification accuracy."""
    out: dict[int, dict[str, Any]] = {
        s: {"calls": 0, "failed_calls": 0, "input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0,
            "cost_usd": 0.0, "invalid_answers": 0, "verifications": 0, "verified_correct": 0,
            "fallback_moves": 0}
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
        elif kind == ev.DECISION and data.get("policy") in ("random", "noop"):
            st["fallback_moves"] += 1  # a move the harness chose because the model gave no usable answer
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
    finished = next((e for e in reversed(session.events) if e.get("type") == "session_finished"), None)
    metrics = (finished or {}).get("data", {}).get("metrics") if finished else None
    if isinstance(metrics, Mapping) and metrics:
        report["metrics"] = dict(metrics)
    if model_seats:
        report["model"] = {str(k): v for k, v in model_stats(session.events, model_seats).items()}
        declared = _declared_questions(session)
        recorded = manifest.get("harness")
        harnesses: Mapping[str, Any] = recorded if isinstance(recorded, Mapping) else {}
        for seat in model_seats:
            report["model"][str(seat)]["questions"] = question_stats(session.events, seat, declared)
            harness = harnesses.get(str(seat))
            if isinstance(harness, Mapping):
                from engine.agent.player import harness_text, policy_text

                report["model"][str(seat)]["harness"] = harness_text(harness)
                report["model"][str(seat)]["invalid_policy"] = policy_text(harness)
    return report


def _declared_questions(session: Any) -> Sequence[Any]:
    """The intermediate questions of the session's game (empty when the game is not installed here:
    the tallies then read each question's metric from its checks)."""
    from engine.agent.verify import questions_for

    try:
        return questions_for(session.game())
    except Exception:  # noqa: BLE001  (a game missing here must not stop `show`)
        return ()


def question_stats(
    events: Sequence[Mapping[str, Any]], seat: int, questions: Sequence[Any] = ()
) -> list[dict[str, Any]]:
    """Per intermediate question the seat was asked: key, question, metric, asked, correct,
    format_errors, not_applicable and score (F1 or accuracy, :func:`engine.questions.tally`)."""
    from engine.questions import tally

    records = [e.get("data") or {} for e in events
               if e.get("type") == ev.VERIFICATION and e.get("seat") == seat]
    keys = ("key", "question", "metric", "asked", "correct", "format_errors", "not_applicable", "score")
    return [{k: t.to_data()[k] for k in keys} for t in tally(records, questions).values()]


def _session_arg(args: argparse.Namespace) -> Path | None:
    """``args.session`` as a path: a folder or file as given, or the folder of a session id in the
    sessions folder (``--out``, else the default); ``None`` (with one line said) when it is neither."""
    root = getattr(args, "out", None)
    target = resolve_session(args.session, root)
    if not target.exists():
        err(f"{args.session} is neither a session folder nor the id of a session in "
            f"{root if root is not None else default_root()}")
        return None
    return target


def cmd_show(args: argparse.Namespace) -> int:
    """``playtrace show``: a readable (or JSON) summary of one session; exit 1 if it is not a session."""
    import sessions

    target = _session_arg(args)
    if target is None:
        return EXIT_FAILURE
    try:
        session = _load_session(target)
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
    model = r.get("model") or {}
    fallback_seats = {int(k) for k, st in model.items() if st.get("fallback_moves")}
    scores = " / ".join(num(x) + (" †" if i in fallback_seats else "") for i, x in enumerate(r["scores"]))
    lines = [
        f"session   {r['id']}",
        f"path      {r['path']}",
        f"game      {r['game']}",
        "players   " + " vs ".join(f"[{i}] {_player_text(p)}" for i, p in enumerate(players)),
        f"date      {_when(r['created_at']) if r['created_at'] else '-'}",
        f"seed      {r['seed'] if r['seed'] is not None else '-'}",
        f"status    {r['status']}",
        f"steps     {num(r['steps'])}",
        f"scores    {scores or '-'}",
        f"winner    {winner_text}",
        f"result    {r.get('result') or '-'}",
    ]
    if r.get("metrics"):
        lines.append("figures   " + ", ".join(f"{k} {num(v)}" for k, v in r["metrics"].items()))
    if r["warnings"]:
        lines.append(f"warnings  {len(r['warnings'])} (see above)")
    for seat, st in model.items():
        acc = st["verification_accuracy"]
        acc_text = f"{acc:.0%} of {num(st['verifications'])} checks" if acc is not None else "no checks"
        lines.append(f"model [{seat}] {num(st['calls'])} calls ({num(st['failed_calls'])} failed), cost "
                     f"{money(st['cost_usd'])}")
        lines.append(f"          tokens {num(st['input_tokens'])} in / {num(st['output_tokens'])} out"
                     + (f" / {num(st['reasoning_tokens'])} reasoning" if st["reasoning_tokens"] else ""))
        if st.get("harness"):
            import textwrap

            lines += textwrap.wrap(f"harness: {st['harness']}", width=80, initial_indent=" " * 10,
                                   subsequent_indent=" " * 12, break_on_hyphens=False, break_long_words=False)
        lines.append(f"          {num(st['invalid_answers'])} invalid answers, verification {acc_text}")
        for q in st.get("questions") or ():
            score = "-" if q["score"] is None else f"{q['score']:.2f}"
            errors = f", {num(q['format_errors'])} format errors" if q["format_errors"] else ""
            lines.append(f"          Q{q['key']} {q['question']}: {q['metric']} {score} "
                         f"(asked {num(q['asked'])}, {num(q['correct'])} correct{errors})")
        if st.get("fallback_moves"):
            lines.append(f"          † {num(st['fallback_moves'])} fallback moves: chosen by the harness "
                         "when the model gave no usable answer")
    return "\n".join(lines)


# -- list, export, import ----------------------------------------------------------------------


def _when(text: Any) -> str:
    """An ISO timestamp as local ``YYYY-MM-DD HH:MM`` (as it was when it cannot be read)."""
    from datetime import datetime

    raw = str(text or "")
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return raw or "-"


def cmd_list(args: argparse.Namespace) -> int:
    """``playtrace list``: the catalogue of recorded sessions, newest first.

    One table row per session (id, created, steps, status, game, players, result) when that fits
    the width; otherwise (80 columns) two lines per session: the id, date, steps and status, then
    the game, players and result, wrapped and indented. Ids are never cut: ``show`` takes them.
    """
    import textwrap

    import sessions

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, not {args.limit}")
    root = args.out if args.out is not None else default_root()
    catalogue = sessions.Catalogue(root)
    items = list(catalogue.list())
    for warning in getattr(catalogue, "warnings", ()) or ():
        print(f"warning: {warning}", file=sys.stderr)
    total = len(items)
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        print(f"no sessions in {root}")
        return EXIT_OK
    rows = []
    for it in items:
        labels = getattr(it, "players", ()) or ()
        rows.append((
            str(getattr(it, "id", "")),
            _when(getattr(it, "created_at", "")),
            num(getattr(it, "steps", "")),
            str(getattr(it, "status", "") or "-").replace("_", " "),
            str(getattr(it, "game", "")),
            " vs ".join(str(x) for x in labels) or "-",
            str(getattr(it, "result", "") or "-"),
        ))
    width = output_width()
    console = stdout_console()
    plural = "s" if total != 1 else ""
    # With --limit: how many are shown of how many there are ("4 of 40 sessions").
    shown = f"{len(rows)} of {total}" if len(rows) < total else f"{total}"
    console.print(f"{shown} session{plural} in {root}, newest first", soft_wrap=True)
    from rich.cells import cell_len

    heads_all = ("session", "created", "steps", "status", "game", "players", "result")
    natural = sum(max(cell_len(h), *(cell_len(r[i]) for r in rows)) for i, h in enumerate(heads_all))
    if natural + len(heads_all) - 1 <= width:
        table = compact_table()
        for col in heads_all:
            table.add_column(col, no_wrap=True, justify="right" if col == "steps" else "left")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        return EXIT_OK
    heads = ("session", "created", "steps", "status")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]

    def line(cells: Sequence[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        padded = (c.rjust(w) if i == 2 else c.ljust(w) for i, (c, w) in pairs)
        return " ".join(padded).rstrip()

    header = line(heads)
    print(header)
    print("  game · players · result")
    print("─" * min(width, max(len(header), *(len(line(r[:4])) for r in rows))))
    for row in rows:
        print(line(row[:4]))
        print(textwrap.fill(" · ".join(row[4:]), width=max(20, width), initial_indent="  ",
                            subsequent_indent="    ", break_on_hyphens=False, break_long_words=False))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """``playtrace export SESSION ZIP``."""
    import sessions

    target = _session_arg(args)
    if target is None:
        return EXIT_FAILURE
    suffix = Path(args.zip).suffix.lower()
    if suffix in (".html", ".htm") and not Path(args.zip).is_dir():
        return _export_html(target, Path(args.zip))
    if suffix not in ("", ".zip") and not Path(args.zip).is_dir():
        own = _game_export(target, args)  # a format of the game's own (chess: .pgn)
        if own is not None:
            return own
    video = _export_kind(args)
    if video is None:
        from desktop.cli.common import EXIT_USAGE

        return EXIT_USAGE
    try:
        session = _load_session(target)
        if video:
            return _export_video(session, args)
        dest = sessions.export_zip(Path(session.path), args.zip)
    except (sessions.SessionError, OSError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    print(dest)
    return EXIT_OK


def _export_html(target: Path, dest: Path) -> int:
    """Write the session as one self-contained HTML page (:mod:`desktop.html_export`)."""
    import sessions
    from desktop.cli.common import EXIT_USAGE, ensure_offscreen_qt

    folder = target if target.is_dir() else target.parent
    if dest.resolve().is_relative_to(folder.resolve()):
        err(f"{dest} is inside the session {folder.name}; only PlayTrace's session writer writes there")
        return EXIT_USAGE
    if not dest.parent.is_dir():
        err(f"cannot write {dest}: {dest.parent} is not a folder")
        return EXIT_USAGE
    try:
        session = _load_session(target)
        ensure_offscreen_qt()
        from desktop.episode import png_renderer
        from desktop.html_export import BOARD_SIZE, export_html

        written = export_html(session, dest, png_renderer(session.game_id, BOARD_SIZE))
    except (sessions.SessionError, OSError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    print(written)
    return EXIT_OK


def _game_export(target: Any, args: argparse.Namespace) -> int | None:
    """Write the session in a format of its game's own (``Game.exports``, e.g. chess's PGN with the
    reasoning as comments); ``None`` when the game has no exporter for the file's suffix."""
    import sessions
    from engine.core import PlayedGame, PlayedMove

    try:
        session = _load_session(target)
        game = session.game()
    except (sessions.SessionError, OSError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    except Exception:  # noqa: BLE001  (the game is not installed here: the generic formats still work)
        return None
    ref = game.exports.get(Path(args.zip).suffix.lower())
    if ref is None:
        return None
    moves = [
        PlayedMove(int(e.get("step") or 0), int(e.get("seat") or 0), str(e["data"]["action"]),
                   str(e["data"].get("rationale") or ""))
        for e in session.events
        if e.get("type") == "decision" and (e.get("data") or {}).get("action") is not None
        and not (e.get("data") or {}).get("undone")
    ]
    summary = session.summary()
    labels = tuple(str(p.get("label") or p.get("spec") or "") for p in summary.get("players") or ())
    winner = summary.get("winner")
    played = PlayedGame(session.state_at(0), tuple(moves), labels, str(summary.get("status") or ""),
                        winner if isinstance(winner, int) and not isinstance(winner, bool) else None,
                        str(summary.get("title") or game.title))
    try:
        text = game.load(ref)(played)
        Path(args.zip).write_text(text, encoding="utf-8")
    except (ValueError, OSError) as exc:
        err(f"cannot export {session.id} as {Path(args.zip).suffix}: {one_line(exc)}")
        return EXIT_FAILURE
    print(args.zip)
    return EXIT_OK


def _export_kind(args: argparse.Namespace) -> bool | None:
    """Whether ``export`` writes an animation (True) or a zip (False); ``None`` (said) for a usage error."""
    from desktop.video_export import FORMATS, video_format

    dest: Path = args.zip
    animated = video_format(dest) is not None
    suffix = dest.suffix.lower()
    if not animated and suffix not in ("", ".zip") and not dest.is_dir():
        kinds = ", ".join(sorted(FORMATS))
        err(f"cannot export to {dest.name}: unknown format {suffix!r} (use .zip, {kinds})")
        return None
    if not animated and (getattr(args, "first", None) is not None or getattr(args, "last", None) is not None):
        err("--from and --to choose the steps of an animation (.gif, .mp4), not of a zip archive")
        return None
    return animated


def _export_video(session: Any, args: argparse.Namespace) -> int:
    """``playtrace export SESSION out.gif|out.mp4 [--from N --to M]``, with a progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from desktop.cli.common import EXIT_USAGE
    from desktop.video_export import (
        VideoExportError,
        check_seconds_per_step,
        export_video,
        plan_video,
        prepare,
    )

    try:
        plan = plan_video(session, args.zip, first=args.first, last=args.last)
        check_seconds_per_step(args.seconds_per_step)
    except VideoExportError as exc:
        err(one_line(exc))
        return EXIT_USAGE
    prepare()
    columns = (TextColumn(f"{plan.fmt.upper()} frames"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("export", total=plan.frames)
        out = export_video(
            session, args.zip, first=args.first, last=args.last, seconds_per_step=args.seconds_per_step,
            progress=lambda done, _total: bar.update(task, completed=done),
        )
    print(out)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """``playtrace import PATH [--format F] [--out DIR] [--copy]``: prints the new session folder(s).

    PATH is a session zip, or a file or folder recorded elsewhere (:mod:`sessions.importers`): a PGN
    file, a GamingAgent episode log or a folder of them, an LVLM-Playground record, a GAMEBoT
    ``game.log``; ``--format`` names the format when the file does not say it.

    A session that is already in the sessions folder is refused (exit 1) unless ``--copy`` is given;
    then the copy gets a new id, and the command says so.
    """
    import shutil

    import sessions

    root = args.out if args.out is not None else default_root()
    zip_path: Path = args.zip
    if not zip_path.exists():
        err(f"{zip_path} does not exist")
        return EXIT_FAILURE
    from sessions.importers import detect

    try:
        fmt: str | None = getattr(args, "format", None) or detect(zip_path)
    except OSError as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    if fmt is not None:
        return _import_recorded(zip_path, Path(root), fmt)
    if zip_path.is_dir():
        err(f"{zip_path} is a folder, not a session zip file nor a folder of GamingAgent or GAMEBoT logs")
        return EXIT_FAILURE
    try:
        path = sessions.import_zip(zip_path, root)
    except (sessions.SessionError, OSError, ValueError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    original = _imported_from(path)
    if original is not None and original != path.name and (Path(root) / original).exists():
        if not getattr(args, "copy", False):
            shutil.rmtree(path, ignore_errors=True)
            err(f"session {original} is already in {root}; use --copy to import another copy")
            return EXIT_FAILURE
        print(f"session {original} was already in {root}: imported a copy as {path.name}", file=sys.stderr)
    print(path)
    return EXIT_OK


def _import_recorded(path: Path, root: Path, fmt: str) -> int:
    """A file or folder recorded elsewhere (PGN, GamingAgent, LVLM-Playground, GAMEBoT) as sessions
    (:mod:`sessions.importers`); prints each session folder written."""
    from engine.safeio import InputError
    from sessions.importers import ImportFormatError, import_path

    try:
        written = import_path(path, root, fmt)
    except (ImportFormatError, InputError, OSError) as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    for folder in written:
        print(folder)
    return EXIT_OK


def _imported_from(folder: Path) -> str | None:
    """The id an imported session had in its zip, when the import had to give it a new one."""
    try:
        manifest = read_manifest(folder / "manifest.json")
    except (OSError, ValueError, InputError):
        return None
    extra = manifest.get("extra") if isinstance(manifest, dict) else None
    original = extra.get("imported_from") if isinstance(extra, dict) else None
    return original if isinstance(original, str) and original else None
