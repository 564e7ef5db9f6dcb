"""``playtrace rescore DIR|SESSION ...``: re-read every recorded answer with today's extractor and
oracles, and list every verdict that changed. No model is called and no session is written; ``--out``
saves the changes as JSON elsewhere."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_FAILURE, EXIT_OK, UsageError, compact_table, err, one_line, stdout_console

COMMAND = "rescore"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        COMMAND,
        parents=[common],
        help="re-score recorded answers with today's parser and oracles",
        description="Run today's answer extractor and intermediate-answer oracles over every answer the "
        "sessions recorded, and list each verdict that changed (no model call; sessions are not written).",
    )
    p.add_argument(
        "paths",
        type=Path,
        nargs="+",
        metavar="DIR",
        help="session folders, or folders holding them at any depth",
    )
    p.add_argument(
        "--audit",
        action="store_true",
        help="also play each match again from its recorded answers (call for call, offline) "
        "and report the first decision or board that differs",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="also save the report as JSON")


def run(args: argparse.Namespace) -> int:
    from sessions.errors import SessionError
    from sessions.rescore import rescore_session
    from sessions.search import find_sessions

    folders: list[Path] = []
    for path in args.paths:
        if not path.exists():
            raise UsageError(f"{path} does not exist")
        found = list(find_sessions(path)) if path.is_dir() else [path]
        if not found:
            raise UsageError(f"{path} holds no session")
        folders += found
    if args.out is not None:
        _check_out(args.out, folders)
    reports = []
    failures = 0
    for folder in folders:
        try:
            reports.append(rescore_session(folder))
        except SessionError as exc:
            err(f"{folder}: {exc}")
            failures += 1
    audits = _audit(folders) if args.audit else []
    answers = sum(r.answers for r in reports)
    checks = sum(r.checks for r in reports)
    changes = [c for r in reports for c in r.changes]
    payload = {
        "sessions": len(reports),
        "answers": answers,
        "checks": checks,
        "changed": len(changes),
        "changes": [c.to_json() for c in changes],
        "problems": [f"{r.path}: {p}" for r in reports for p in r.problems],
    }
    if args.audit:
        payload["audit"] = [dataclasses.asdict(a) | {"identical": a.identical} for a in audits]
        failures += sum(not a.identical for a in audits)
    if args.out is not None:
        args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(payload, indent=1, ensure_ascii=False))
    else:
        if changes:
            table = compact_table()
            for name in ("session", "step", "seat", "verdict", "attempt", "recorded", "now"):
                table.add_column(name, overflow="fold")
            for c in changes:
                table.add_row(
                    c.session,
                    str(c.step),
                    str(c.seat),
                    c.what,
                    "" if c.attempt is None else str(c.attempt),
                    c.before,
                    c.after,
                )
            stdout_console().print(table)
        for problem in payload["problems"]:
            err(problem)
        print(
            f"{len(reports):,} sessions, {answers:,} answers re-read, {checks:,} intermediate answers "
            f"re-checked: {len(changes):,} verdicts changed (no model was called)"
        )
        for a in audits:
            if not a.identical:
                err(f"audit of {a.session}: {a.difference}")
        if audits:
            same = sum(a.identical for a in audits)
            calls = sum(a.calls_replayed for a in audits)
            print(
                f"audit: {same} of {len(audits)} matches played again from their recorded answers "
                f"({calls:,} calls, no model called) decide and end exactly as recorded"
            )
    return EXIT_FAILURE if failures else EXIT_OK


def _audit(folders: list[Path]) -> list[Any]:
    from sessions.audit import AuditResult, audit_session

    out = []
    for folder in folders:
        try:
            out.append(audit_session(folder))
        except Exception as exc:  # a session this PlayTrace cannot replay is a finding, not a crash
            out.append(
                AuditResult(folder.name, str(folder), difference=f"cannot be played again: {one_line(exc)}")
            )
    return out


def _check_out(out: Path, folders: list[Path]) -> None:
    """The report never goes into a session folder (only the session writer writes there)."""
    target = out.resolve()
    for folder in folders:
        if target.is_relative_to(folder.resolve()):
            raise UsageError(
                f"--out {out} is inside the session {folder}; only PlayTrace's session writer writes there"
            )
    if target.is_dir():
        raise UsageError(f"--out {out} is a folder; name a file")
