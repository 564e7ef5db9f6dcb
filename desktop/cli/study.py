"""``playtrace study``: human-baseline studies from one TOML file.

    playtrace study init FILE                     write a commented example
    playtrace study check FILE                    validate it (the line of any mistake)
    playtrace study run FILE --out DIR            the locked participant flow, full screen
    playtrace study simulate FILE --participants N --player SPEC --out DIR
    playtrace study export DIR --out FILE.csv     one row per move, game and participant, + codebook
    playtrace study merge DIR_OR_ZIP... --out DIR combine what several machines sent back
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from desktop.cli.common import EXIT_FAILURE, EXIT_OK, UsageError, err, one_line, run_interruptible
from engine.safeio import read_text

COMMAND = "study"
#: A study file is a few kilobytes.
STUDY_CAP = 1024 * 1024


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(COMMAND, parents=[common],
                       help="human-baseline studies: init, check, run, simulate, export, merge",
                       description="A study is one TOML file: consent, instructions, games, order, "
                       "practice, time limits, breaks and questionnaires.")
    verbs = p.add_subparsers(dest="study_command", metavar="ACTION")
    init = verbs.add_parser("init", parents=[common], help="write a commented example study file")
    init.add_argument("file", type=Path)
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    chk = verbs.add_parser("check", parents=[common], help="validate a study file")
    chk.add_argument("file", type=Path)
    run = verbs.add_parser("run", parents=[common], help="run the study with a participant (full screen)")
    run.add_argument("file", type=Path)
    run.add_argument("--out", type=Path, default=None, metavar="DIR",
                     help="the results folder (default: studies/<id>-v<version> in the user-data folder)")
    run.add_argument("--participant", default=None, metavar="ID",
                     help="the participant's pseudonym (default: the next free P001, P002, …)")
    sim = verbs.add_parser("simulate", parents=[common],
                           help="run the study headless with a bot or model in each participant's place")
    sim.add_argument("file", type=Path)
    sim.add_argument("--participants", "-n", type=int, default=5, metavar="N")
    sim.add_argument("--player", "-p", default="random", metavar="SPEC")
    sim.add_argument("--out", type=Path, required=True, metavar="DIR")
    exp = verbs.add_parser("export", parents=[common],
                           help="one row per move, per game and per participant, with a codebook")
    exp.add_argument("dir", type=Path, metavar="DIR", help="a results folder")
    exp.add_argument("--out", type=Path, required=True, metavar="FILE.csv|FILE.parquet")
    mer = verbs.add_parser("merge", parents=[common], help="combine results folders or zips of them")
    mer.add_argument("sources", nargs="+", type=Path, metavar="DIR_OR_ZIP")
    mer.add_argument("--out", type=Path, required=True, metavar="DIR")


def run(args: argparse.Namespace) -> int:
    verb = getattr(args, "study_command", None)
    if verb is None:
        raise UsageError("say what to do: init, check, run, simulate, export or merge")
    return {"init": _init, "check": _check, "run": _run, "simulate": _simulate, "export": _export,
            "merge": _merge}[verb](args)


def example_text() -> str:
    from importlib import resources

    return (resources.files("assets") / "studies" / "example.toml").read_text(encoding="utf-8")


def _init(args: argparse.Namespace) -> int:
    if args.file.exists() and not args.force:
        raise UsageError(f"{args.file} exists; use --force to overwrite it")
    args.file.parent.mkdir(parents=True, exist_ok=True)
    args.file.write_text(example_text(), encoding="utf-8")
    print(f"wrote {args.file}; check it with: playtrace study check {args.file}")
    return EXIT_OK


def load(path: Path) -> tuple[Any, str]:
    """The study and its text; a mistake is a usage error naming the line."""
    from engine.study import StudyError, check_games, load_study

    try:
        study = load_study(path)
    except StudyError as exc:
        raise UsageError(str(exc)) from exc
    text = read_text(path, cap=STUDY_CAP, what="study file")
    # Every game that cannot be played here, each on its own line with the line of the file.
    problems = check_games(study, text)
    if problems:
        raise UsageError("\n".join(f"{path}: {p}" for p in problems))
    return study, text


def _check(args: argparse.Namespace) -> int:
    study, _text = load(args.file)
    blocks, _ = study.schedule(0, "P001")
    counted = sum(1 for b in blocks if b.kind == "game")
    practice = sum(1 for b in blocks if b.kind == "practice")
    print(f"{study.id} v{study.version}: {study.title}")
    print(f"  {len(study.games)} games ({', '.join(g.key for g in study.games)}); per participant "
          f"{counted} counted and {practice} practice games, {len(blocks)} blocks in all")
    orders = study.orders()
    names = [g.key for g in study.games]
    print(f"  order: {study.order}" + (f", {len(orders)} conditions:" if study.order == "latin" else ""))
    if study.order == "latin":
        for i, row in enumerate(orders):
            print(f"    {chr(ord('A') + i)}: " + " → ".join(names[j] for j in row))
    collected = ", ".join(study.collect) or "nothing"
    print(f"  questionnaires: {', '.join(study.questionnaires) or 'none'}; undo "
          f"{'allowed' if study.undo else 'off'}; exported beyond moves: {collected}")
    return EXIT_OK


def _folder(path: Path, study: Any, text: str) -> Any:
    from sessions.errors import SessionError
    from sessions.study_results import ResultsFolder

    try:
        return ResultsFolder(path, study, text)
    except SessionError as exc:
        raise UsageError(one_line(exc)) from exc


def _run(args: argparse.Namespace) -> int:
    from desktop.cli.common import default_root
    from desktop.study_flow import run_study

    study, text = load(args.file)
    out = args.out or default_root().parent / "studies" / f"{study.id}-v{study.version}"
    folder = _folder(out, study, text)
    return run_study(folder, participant=args.participant)


def _simulate(args: argparse.Namespace) -> int:
    from desktop.cli.run import _validate_specs
    from desktop.study_sim import simulate

    if args.participants < 1:
        raise UsageError("--participants must be at least 1")
    _validate_specs([args.player])
    study, text = load(args.file)
    folder = _folder(args.out, study, text)

    def said(pid: str, block: Any) -> None:
        if block.plays:
            print(f"{pid}: {block.kind} {block.game.key} round {block.round} done", flush=True)

    def skipped(pid: str) -> None:
        print(f"{pid}: another PlayTrace is running this participant in {folder.root}; left to it",
              flush=True)

    done, stopped = run_interruptible(
        simulate(folder, args.participants, args.player, on_block=said, on_skip=skipped)
    )
    folder.release()
    if stopped is not None:
        # Each participant's progress is saved after every block: the next run resumes them there.
        print(f"stopped: the participants resume at their first block not done; results in {folder.root}")
        return stopped
    assert done is not None
    finished = sum(1 for p in done if p.finished)
    print(f"{finished} of {len(done)} participants finished; results in {folder.root}")
    return EXIT_OK if finished == len(done) else EXIT_FAILURE


def _results(path: Path) -> Any:
    from engine.study import StudyError, parse_study
    from sessions.study_results import STUDY_FILE

    file = path / STUDY_FILE
    if not file.is_file():
        raise UsageError(f"{path} is not a study's results folder (no {STUDY_FILE})")
    try:
        text = read_text(file, cap=STUDY_CAP, what="study file")
        study = parse_study(text, str(file))
    except StudyError as exc:
        raise UsageError(str(exc)) from exc
    return _folder(path, study, text)


def _export(args: argparse.Namespace) -> int:
    from engine.registry import declaration
    from sessions.errors import SessionError
    from sessions.study_results import codebook, export_rows, write_table

    folder = _results(args.dir)
    if args.out.suffix.lower() not in (".csv", ".parquet"):
        raise UsageError("--out must end in .csv or .parquet")
    raw = {}
    for g in folder.study.games:
        cls = declaration(g.game)
        raw[g.game] = (cls.raw_score, cls.progress_score)
    rows = list(export_rows(folder, raw))
    book = codebook(folder.study)
    columns = [name for name, *_ in book if name != "started_at" or "absolute_times" in folder.study.collect]
    try:
        write_table(rows, columns, args.out)
    except SessionError as exc:
        raise UsageError(one_line(exc)) from exc
    book_path = args.out.with_name(args.out.stem + ".codebook.csv")
    heads = ("column", "rows", "type", "meaning")
    write_table([dict(zip(heads, entry, strict=True)) for entry in book if entry[0] in columns], heads,
                book_path)
    kinds = {k: sum(1 for r in rows if r["row_type"] == k) for k in ("move", "game", "participant")}
    print(f"{kinds['move']} moves, {kinds['game']} games, {kinds['participant']} participants → {args.out}; "
          f"codebook → {book_path}")
    return EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    from sessions.errors import SessionError
    from sessions.study_results import merge

    for src in args.sources:
        if not src.exists():
            raise UsageError(f"{src} does not exist")
    try:
        participants, sessions = merge(args.sources, args.out)
    except SessionError as exc:
        err(one_line(exc))
        return EXIT_FAILURE
    print(f"merged {participants} participants and {sessions} sessions into {args.out}")
    return EXIT_OK
