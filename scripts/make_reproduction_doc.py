"""Write ``docs/reproduction.md`` from real ``playtrace reproduce`` runs.

For each paper PlayTrace ships a protocol for, the document gives the command that reproduces it,
what the protocol plays (games and options, harness, invalid-answer policy, variants, runs), our
measured baseline rows beside the paper's with the verdict of each interval check, and every deliberate
deviation with its reason (the protocol file's ``[[deviations]]``).

Usage::

    python scripts/make_reproduction_doc.py ROOT [--out docs/reproduction.md]

``ROOT`` holds one reproduction folder per protocol, named by its id (``ROOT/lmgame-bench``, ...), as
``playtrace reproduce ID --out ROOT/ID`` makes them; a protocol without a folder is described without
measured rows.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # An input folder is shown by its name, never by this machine's path.
        return f'"{value}"'
    return str(value)


def _options(options: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {_value(v)}" for k, v in options.items()) or "defaults"


def _protocol_section(protocol: Any) -> list[str]:
    from engine.agent.player import policy_text
    from engine.protocols.spec import OPPONENT, PLAYER

    out = ["### What the protocol plays", ""]
    out += ["| game | id | options that differ from the game's defaults | step cap | opponent |",
            "|---|---|---|---:|---|"]
    import engine

    shown: dict[str, list[str]] = {}
    for g in protocol.games:
        group = re.sub(r"-level\d+$", "", g.label)
        if group != g.label and group in shown:  # a game repeated per level: one line for all
            shown[group].append(g.label.rsplit("level", 1)[1])
            continue
        defaults = {o.name: o.default for o in engine.declaration(g.id).options_schema}
        changed = {k: v for k, v in g.options.items() if defaults.get(k) != v}
        shown[group] = [g.label.rsplit("level", 1)[1]] if group != g.label else []
        out.append(f"| {group}{{levels}} | `{g.id}` | {_md(_options(changed))} | {g.max_steps or '-'} | "
                   f"{g.opponent or '-'} |")
    for group, levels in shown.items():
        out = [line.replace(f"| {group}{{levels}} |", f"| {group}" + (f" (levels {', '.join(levels)}; "
                                                                       "options of level " + levels[0] + ")"
                                                                       if levels else "") + " |")
               for line in out]
    out.append("")
    harness = dict(protocol.harness)
    out.append(f"Harness every model seat shares: {_md(_options(harness))}.")
    try:
        out.append(f"Invalid answers: {policy_text(harness)}.")
    except Exception:  # noqa: BLE001  (an older harness without the text helper: the keys say it)
        pass
    out.append("")
    if protocol.variants:
        out += ["| variant | label | ablation column | settings |", "|---|---|---|---|"]
        for v in protocol.variants:
            settings = _md(_options(dict(v.values)))
            out.append(f"| {v.name} | {_md(v.label)} | {v.ablation or '-'} | {settings} |")
        out.append("")
    out += ["| run | players | episodes per cell | variants | games | run settings |",
            "|---|---|---:|---|---|---|"]
    for r in protocol.runs:
        players = "; ".join(" vs ".join(lineup) for lineup in r.players).replace(PLAYER, "MODEL")
        players = players.replace(OPPONENT, "the game's opponent")
        extra = {**dict(r.harness), **dict(r.options)}
        out.append(f"| {r.name} | {_md(players)} | {r.episodes} | {', '.join(r.variants) or '-'} | "
                   f"{', '.join(r.games) if r.games else 'all'} | {_md(_options(extra)) if extra else '-'} |")
    out.append("")
    for t in protocol.tasks:
        out.append(f"Offline task sets: {', '.join(t.tasks)} on {', '.join(t.games)}, {t.n} items each "
                   f"(seed {t.seed}), answered by {', '.join(t.players).replace(PLAYER, 'MODEL')}.")
        out.append("")
    return out


def _measured(folder: Path, protocol: Any) -> list[str]:
    from desktop.reproduction import build_report

    if not (folder / "protocol.toml").is_file():
        return ["_Not measured in this document's run._", ""]
    meta = json.loads((folder / "reproduce.json").read_text(encoding="utf-8"))
    report = build_report(folder)
    out = [f"Measured with `{meta.get('command', 'playtrace reproduce ' + protocol.id)}`"
           + (f" (model under test: `{report.player}`)." if report.player else
              " (baseline runs only: random and the built-in bots)."), ""]
    any_rows = False
    for table in report.tables:
        rows = [r for r in table.rows if r.baseline]
        measured = [r for r in rows
                    if r.source == "ours" and any(c.mean is not None for c in r.cells.values())]
        if not measured:
            continue
        any_rows = True
        columns = [c for c in table.columns if any(c in r.cells for r in rows)]
        out += [f"**{_md(table.title)}**", "", "| row | " + " | ".join(columns) + " |",
                "|---|" + "---:|" * len(columns)]
        for r in rows:
            cells = []
            for c in columns:
                cell = r.cells.get(c)
                text = "" if cell is None else cell.show(table.digits)
                if cell is not None and r.source == "ours" and cell.n and cell.mean is not None:
                    text += f" (n={cell.n})"
                cells.append(text)
            out.append(f"| {_md(r.label)} | " + " | ".join(_md(c) for c in cells) + " |")
        out.append("")
        checks = [(r.label, c, v) for r in rows for c, v in r.checks.items()]
        if checks:
            out += [f"- {_md(label)}, {c}: {_md(v)}" for label, c, v in checks]
            out.append("")
    if not any_rows:
        out += ["_No baseline rows were recorded._", ""]
    return out


def _deviations(protocol: Any) -> list[str]:
    out = ["### Deliberate deviations", "", "| topic | the paper | PlayTrace | why |", "|---|---|---|---|"]
    for d in protocol.deviations:
        out.append(f"| {_md(d.topic)} | {_md(d.paper)} | {_md(d.ours)} | {_md(d.why)} |")
    return [*out, ""]


def build(root: Path) -> str:
    from engine.protocols import load_protocol, shipped

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    lines = [
        "# Reproducing the papers",
        "",
        "<!-- Generated by scripts/make_reproduction_doc.py from real `playtrace reproduce` runs; "
        "do not edit by hand. -->",
        "",
        "PlayTrace ships each paper's protocol as a file: the games with the paper's options, the harness, "
        "the invalid-answer policy, the runs (episodes, seeds, opponents), the paper's variants and its "
        "tables. `playtrace protocols` lists them; `playtrace protocols show ID > mine.toml` prints one to "
        "copy and edit; `playtrace reproduce ID|FILE --player SPEC` plays it (resumable: run it again after "
        "a stop; `--ray ADDRESS` plays on a cluster; `--games`, `--episodes` and `--max-steps` give a first "
        "look), and `playtrace reproduce report DIR` prints the paper's tables with the published rows "
        "beside ours and writes them as Markdown, CSV, LaTeX, PNG and SVG.",
        "",
        "A baseline row of ours (random, built-in bots) is *within* the paper's interval when its mean lies "
        "in the paper's mean ± 2 SE (SE = SD / √n of the paper's runs: 30 random runs for LMGame-Bench; "
        "for LVLM-Playground's accuracies the binomial SE of the paper's 2,000 items and of ours).",
        "",
        f"Generated {datetime.date.today().isoformat()}" + (f" at commit `{commit}`" if commit else "") + ".",
        "",
    ]
    for pid in shipped():
        protocol = load_protocol(pid)
        lines += [f"## {protocol.title}", "", f"_{_md(protocol.paper)}_", "", _md(protocol.summary), ""]
        inputs = " ".join(f"--input {name}=DIR" for name in protocol.inputs)
        lines += ["Command:", "", "```", f"playtrace reproduce {pid} --player SPEC {inputs}".rstrip(),
                  f"playtrace reproduce report {pid}-reproduction", "```", ""]
        for name, what in protocol.inputs.items():
            lines += [f"`{name}`: {_md(what)} (not shipped with PlayTrace).", ""]
        lines += _protocol_section(protocol)
        lines += ["### Our baseline rows beside the paper's", ""]
        lines += _measured(root / pid, protocol)
        lines += _deviations(protocol)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a folder holding one reproduction folder per protocol id")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reproduction.md")
    args = parser.parse_args()
    text = build(args.root)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
