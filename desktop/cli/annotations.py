"""``playtrace annotations``: label steps, write notes, export everything people said about sessions,
and measure how much annotators agree.

    playtrace annotations taxonomy [--taxonomy FILE]
    playtrace annotations label SESSION --step N --labels misread_board,illegal_move --annotator ana
    playtrace annotations note SESSION --step N --text "..." --annotator ana
    playtrace annotations export DIR... --out annotations.csv
    playtrace annotations agreement DIR... [--taxonomy FILE] [--json]

A DIR is a session (folder, id) or a folder of sessions. Annotations never change a session's events:
they are each annotator's own append-only file beside them (:mod:`sessions.annotations`).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    compact_table,
    err,
    one_line,
    resolve_session,
    stdout_console,
)
from engine.safeio import InputError
from sessions import read_manifest

COMMAND = "annotations"
#: The columns of ``annotations export``, in order (the codebook is in the command's help).
COLUMNS = ("session", "game", "step", "seat", "annotator", "kind", "labels", "question", "verdict",
           "comment", "text", "written_at")


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(COMMAND, parents=[common],
                       help="labels, disputes and notes on sessions: label, note, export, agreement",
                       description="What annotators say about sessions' steps, kept beside the sessions.")
    verbs = p.add_subparsers(dest="annotations_command", metavar="ACTION")
    tax = verbs.add_parser("taxonomy", parents=[common], help="list the labels (default or a file's)")
    tax.add_argument("--taxonomy", type=Path, default=None, metavar="FILE", help="a TOML taxonomy file")

    lab = verbs.add_parser("label", parents=[common], help="set the labels of one step")
    lab.add_argument("session", help="a session folder or id")
    lab.add_argument("--step", type=int, required=True, metavar="N",
                     help="the decision's index in the session, from 0 (the app's Step N is index N-1)")
    lab.add_argument("--seat", type=int, default=None, metavar="S")
    lab.add_argument("--labels", default="", metavar="KEY,KEY",
                     help="the step's labels (empty: looked, nothing to label)")
    lab.add_argument("--annotator", required=True, metavar="NAME")
    lab.add_argument("--taxonomy", type=Path, default=None, metavar="FILE", help="a TOML taxonomy file")

    note = verbs.add_parser("note", parents=[common], help="write a note on one step")
    note.add_argument("session", help="a session folder or id")
    note.add_argument("--step", type=int, required=True, metavar="N",
                      help="the decision's index in the session, from 0 (the app's Step N is index N-1)")
    note.add_argument("--seat", type=int, default=None, metavar="S")
    note.add_argument("--text", required=True)
    note.add_argument("--annotator", required=True, metavar="NAME")

    exp = verbs.add_parser(
        "export", parents=[common], help="every annotation of the sessions as one CSV file",
        description="One row per standing annotation. Columns: session (id), game, step, seat, annotator, "
        "kind (label | dispute | note), labels (keys joined by ';'), question and verdict (disputes), "
        "comment (disputes), text (notes), written_at (UTC). Withdrawn disputes and superseded "
        "labels are left out.",
    )
    exp.add_argument("dirs", nargs="+", metavar="DIR", help="sessions or folders of sessions")
    exp.add_argument("--out", type=Path, required=True, metavar="FILE.csv")

    agr = verbs.add_parser("agreement", parents=[common],
                           help="agreement between annotators per label and overall (Krippendorff's alpha)")
    agr.add_argument("dirs", nargs="+", metavar="DIR", help="sessions or folders of sessions")
    agr.add_argument("--taxonomy", type=Path, default=None, metavar="FILE", help="a TOML taxonomy file")
    agr.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    verb = getattr(args, "annotations_command", None)
    if verb is None:
        raise UsageError("say what to do: taxonomy, label, note, export or agreement")
    return {"taxonomy": _taxonomy, "label": _label, "note": _note, "export": _export,
            "agreement": _agreement}[verb](args)


def _labels(path: Path | None) -> tuple[Any, ...]:
    from sessions.errors import SessionError
    from sessions.taxonomy import DEFAULT_TAXONOMY, load_taxonomy

    if path is None:
        return DEFAULT_TAXONOMY
    try:
        return load_taxonomy(path)
    except SessionError as exc:
        raise UsageError(str(exc)) from exc


def _taxonomy(args: argparse.Namespace) -> int:
    console = stdout_console()
    table = compact_table()
    for header in ("key", "#", "label", "meaning"):
        table.add_column(header)
    for i, label in enumerate(_labels(args.taxonomy)):
        table.add_row(label.key, str((i + 1) % 10) if i < 10 else "", label.title, label.description)
    console.print(table)
    return EXIT_OK


def _session_dir(arg: str) -> Path:
    from sessions import schema

    path = resolve_session(arg)
    if path.is_file() and path.name in (schema.MANIFEST_FILE, schema.EVENTS_FILE):
        path = path.parent
    if not (path / schema.MANIFEST_FILE).is_file() and not (path / schema.EVENTS_FILE).is_file():
        raise UsageError(f"{arg} is not a session folder (or a session id in the sessions folder)")
    return path


def _label(args: argparse.Namespace) -> int:
    from sessions import annotations
    from sessions.errors import SessionError

    known = {label.key for label in _labels(args.taxonomy)}
    keys = [k.strip() for k in args.labels.split(",") if k.strip()]
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise UsageError(f"unknown label(s) {', '.join(unknown)}; see `playtrace annotations taxonomy`")
    folder = _session_dir(args.session)
    try:
        annotations.add(folder, args.annotator, annotations.LABEL, args.step, seat=args.seat, key=None,
                        labels=sorted(set(keys)))
    except SessionError as exc:
        raise UsageError(one_line(exc)) from exc
    print(f"step {args.step}: {', '.join(sorted(set(keys))) or 'nothing to label'} ({args.annotator})")
    return EXIT_OK


def _note(args: argparse.Namespace) -> int:
    from sessions import annotations
    from sessions.errors import SessionError

    folder = _session_dir(args.session)
    try:
        annotations.add(folder, args.annotator, annotations.NOTE, args.step, seat=args.seat, key=None,
                        text=args.text)
    except SessionError as exc:
        raise UsageError(one_line(exc)) from exc
    print(f"step {args.step}: note saved ({args.annotator})")
    return EXIT_OK


def _sessions(dirs: list[str]) -> Iterator[Path]:
    """Every session folder named or inside the named folders, each once."""
    from sessions import schema

    seen: set[Path] = set()
    for arg in dirs:
        path = resolve_session(arg)
        if not path.is_dir():
            raise UsageError(f"{arg} is not a folder")
        if (path / schema.MANIFEST_FILE).is_file() or (path / schema.EVENTS_FILE).is_file():
            candidates = [path]
        else:
            candidates = sorted(p for p in path.iterdir() if p.is_dir() and (
                (p / schema.MANIFEST_FILE).is_file() or (p / schema.EVENTS_FILE).is_file()))
        for folder in candidates:
            key = folder.resolve()
            if key not in seen:
                seen.add(key)
                yield folder


def _game_of(folder: Path) -> str:
    try:
        manifest = read_manifest(folder / "manifest.json")
        return str(manifest.get("game") or "") if isinstance(manifest, dict) else ""
    except (OSError, ValueError, InputError):
        return ""


def _export(args: argparse.Namespace) -> int:
    from sessions import annotations

    rows = 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        for folder in _sessions(args.dirs):
            items = annotations.load(folder)
            game = _game_of(folder)
            standing = [item for kind in annotations.KINDS
                        for item in annotations.current(items, kind).values()]
            standing.sort(key=lambda item: (int(item.get("step", 0)), float(item.get("ts") or 0)))
            for item in standing:
                labels = item.get("labels") if isinstance(item.get("labels"), list) else []
                ts = item.get("ts")
                when = (dt.datetime.fromtimestamp(float(ts), dt.UTC).isoformat(timespec="seconds")
                        if isinstance(ts, (int, float)) else "")
                writer.writerow([folder.name, game, item.get("step"), _blank(item.get("seat")),
                                 item.get("annotator", ""), item.get("kind", ""), ";".join(labels),
                                 _blank(item.get("question")), _blank(item.get("verdict")),
                                 _blank(item.get("comment")), _blank(item.get("text")), when])
                rows += 1
    print(f"{rows} annotations written to {args.out}")
    return EXIT_OK


def _blank(value: Any) -> str:
    return "" if value is None else str(value)


def _agreement(args: argparse.Namespace) -> int:
    from sessions import annotations
    from sessions.agreement import agreement

    taxonomy = _labels(args.taxonomy)
    sets = [(folder.name, annotations.label_sets(annotations.load(folder)))
            for folder in _sessions(args.dirs)]
    result = agreement(sets, [label.key for label in taxonomy])
    if args.json:
        json.dump(result.to_json(), sys.stdout, indent=2)
        print()
    else:
        _print_agreement(result)
    if result.units == 0:
        err("no step was labelled by two or more annotators: there is nothing to compare")
        return EXIT_FAILURE
    return EXIT_OK


def _print_agreement(result: Any) -> None:
    console = stdout_console()
    who = ", ".join(result.annotators) or "nobody"
    console.print(f"{result.method}; {result.units} steps labelled by two or more of: {who}", soft_wrap=True)
    table = compact_table()
    for header in ("label", "alpha", "agree", "applied", "steps"):
        table.add_column(header, justify="left" if header == "label" else "right")
    rows = [*result.labels, *([result.overall] if result.overall else [])]
    for row in rows:
        alpha = "–" if row.alpha is None else f"{row.alpha:.2f}"
        table.add_row(row.label, alpha, f"{row.observed:.0%}", str(row.positives), str(row.units))
    console.print(table)
    console.print("alpha: 1 = full agreement, 0 = chance, – = undefined (every verdict the same); "
                  "agree: steps on which all their annotators gave the same verdict", soft_wrap=True)
