"""Studies played headless: ``playtrace study simulate`` puts a bot or a model in each participant's
place and walks the same blocks a person would, so a study can be piloted and tested without people.

The games are recorded exactly as the app records a participant's (the same episode wiring, the same
tags in the manifest); questionnaires get seeded answers (a Likert point, a short sentence). Progress
is saved after every block, so a killed simulation resumes where it stopped; a game that was cut off
is played again from its start in a new session, and the cut one stays marked as interrupted.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from desktop.episode import start_episode
from engine.study import Block, Study
from sessions.study_results import ParticipantBusy, Progress, ResultsFolder


def simulated_answers(study: Study, block: Block, participant: str) -> dict[str, Any]:
    """Seeded answers to a questionnaire block (the same participant answers the same way)."""
    assert block.questionnaire is not None
    rng = random.Random(f"{study.id}:{participant}:{block.index}")
    answers: dict[str, Any] = {}
    for item in study.questionnaires[block.questionnaire].items:
        if item.kind == "likert":
            answers[item.key] = rng.randint(1, item.scale)
        else:
            answers[item.key] = rng.choice(("I looked for the strongest move.", "I played safely.",
                                            "I tried to keep my options open."))
    return answers


async def play_block(folder: ResultsFolder, progress: Progress, block: Block, player: str) -> str:
    """Play one game block with ``player`` in the participant's seat (seat 0); returns the status."""
    game = block.game
    assert game is not None and block.seed is not None
    from engine.registry import make

    seats = make(game.game, **dict(game.options)).num_seats
    specs = [player] + [game.opponent] * (seats - 1)
    episode = start_episode(
        game.game, specs, root=folder.sessions, seed=block.seed, options=game.options,
        max_steps=game.max_steps, undo=folder.study.undo and seats == 1,
        extra={"study": block.tags(folder.study, progress.participant, progress.condition)},
        model_options={"latency": 0},
    )
    # The session exists from here: note it before playing, so a kill leaves a trace of the attempt.
    progress.blocks.append({"index": block.index, "kind": "attempt", "session": episode.path.name})
    folder.save(progress)
    result = await episode.run()
    return result.status


async def simulate(folder: ResultsFolder, participants: int, player: str,
                   on_block: Callable[[str, Block], None] | None = None,
                   on_skip: Callable[[str], None] | None = None) -> list[Progress]:
    """Run ``participants`` participants (``P001``…) through the study with ``player``; those already
    in the folder continue where they stopped, those another process is running now are left to it
    (``on_skip``). Returns the progress of every participant run here."""
    out = []
    for n in range(1, participants + 1):
        pid = f"P{n:03d}"
        try:
            folder.claim(pid)  # another process simulating into this folder runs the others
        except ParticipantBusy:
            if on_skip is not None:
                on_skip(pid)
            continue
        try:
            out.append(await _participant(folder, pid, player, on_block))
        finally:
            folder.release(pid)
    return out


async def _participant(folder: ResultsFolder, pid: str, player: str,
                       on_block: Callable[[str, Block], None] | None) -> Progress:
    progress = folder.progress(pid)
    blocks = folder.blocks(progress)
    for block in blocks[progress.next_block:]:
        if block.plays:
            status = await play_block(folder, progress, block, player)
            attempt = next(b for b in reversed(progress.blocks) if b.get("kind") == "attempt")
            progress.blocks.remove(attempt)
            progress.done(block, session=attempt["session"], status=status)
        elif block.kind == "questionnaire":
            progress.done(block, answers=simulated_answers(folder.study, block, pid))
        else:
            progress.done(block)
        if block.kind == "thanks":
            progress.finished = True
        folder.save(progress)
        if on_block is not None:
            on_block(pid, block)
    return progress
