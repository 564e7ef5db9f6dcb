"""What the model panel says about a step, as text and Qt rich text, built by pure functions.

Each function takes the step's :class:`~sessions.steps.StepModel` and/or one
:class:`~sessions.steps.Sample` (plus the seats' names) and returns a string or plain rows, so the
panel's wording is tested without a widget, and :class:`desktop.inspector.InspectorPanel` only puts
the results into labels, text views and tables. This module never imports Qt.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Mapping
from typing import Any

from desktop.status import step_number  # the one step-numbering rule (Qt-free)
from engine import events as ev
from engine.agent.player import policy_text
from sessions.steps import Sample, SampleKey, StepModel

# The theme's colours (``desktop/theme.py`` holds the same values; importing it would bring in Qt).
ACCENT = "#2f6fd6"
ACCENT_DARK = "#2457ab"
TEXT_COLOR = "#1f2430"
MUTED_COLOR = "#6b7280"
WARNING_FG = "#7a5300"
OK_COLOR = "#1f8a4c"
BAD_COLOR = "#b42318"
#: Badge colours per player kind (background, foreground), as in the theme.
KIND_BADGES = {
    "human": ("#e6f4ea", "#1f6b3a"),
    "bot": ("#eef0f4", "#3d4452"),
    "model": ("#e4edfb", "#2457ab"),
    "sim": ("#f3e8fd", "#6b2fa0"),
}

#: Players by seat, as given to the panel's header: ``{seat: {"label", "spec", "kind", "seat_name"}}``.
Players = Mapping[int, Mapping[str, Any]]

#: Short names for long verification labels (the mark column stays narrow).
_LABEL_SHORT = {"format_error": "format", "oracle_error": "oracle", "not_applicable": "n/a",
                "correct": "", "incorrect": ""}


# --------------------------------------------------------------------------------------------- basics


def esc(value: Any) -> str:
    """``value`` as text safe inside Qt rich text."""
    return html.escape(str(value), quote=False)


def short(text: str, limit: int = 90) -> str:
    """The end of a long raw answer (where models put their move), on one line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else "…" + flat[-(limit - 1) :]


def fmt_num(value: Any) -> str:
    """A recorded number as people read it (``0.5``, ``12``, ``3.10e-05``)."""
    if isinstance(value, float):
        return f"{value:g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def colored(text: str, color: str, *, bold: bool = False) -> str:
    """``text`` (already escaped) in ``color``."""
    weight = "font-weight:600;" if bold else ""
    return f'<span style="color:{color};{weight}">{text}</span>'


def muted(text: str) -> str:
    """``text`` (already escaped) in the muted colour."""
    return f"<span style='color:{MUTED_COLOR};'>{text}</span>"


def seat_title(seat: Any, seat_name: Any = None) -> str:
    """How the UI names a recorded (0-based) seat: "Seat 1 (X)"; odd values are shown as they are."""
    if isinstance(seat, str) and seat.isdigit():
        seat = int(seat)
    if not isinstance(seat, int) or isinstance(seat, bool):
        return f"Seat {seat}"
    name = str(seat_name) if seat_name else None
    return f"Seat {seat + 1} ({name})" if name and name != str(seat) else f"Seat {seat + 1}"


def seat_name(seat: Any, players: Players) -> str:
    """``seat`` named with its game's seat name when the header gave one."""
    if isinstance(seat, str) and seat.isdigit():
        seat = int(seat)
    player = players.get(seat, {}) if isinstance(seat, int) else {}
    return seat_title(seat, player.get("seat_name"))


def plain(value: Any) -> str:
    """An intermediate answer or truth as text: strings as they are, sets of actions comma-separated."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in value) if value else "(none)"
    return json.dumps(value, ensure_ascii=False)


def cost_text(cost: float | None, simulated: bool) -> str:
    """A call's price: free for the simulated model, unknown when no price is recorded."""
    if simulated:
        return "free (simulated)"
    return "price unknown" if cost is None else f"${cost:.4f}"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --------------------------------------------------------------------------------------------- header


def _split_spec(spec: str) -> tuple[str, str]:
    """Provider and model from a player spec ("openai:gpt-4o", "local:qwen@http://…", "sim")."""
    if ":" not in spec:
        return (spec, "") if spec.startswith("sim") else ("", "")
    provider, rest = spec.split(":", 1)
    return provider, rest.split("@", 1)[0]


def harness_summary(spec: str, harness: Mapping[str, Any]) -> str:
    """A compact one-line description of a model seat's settings (shown under the player)."""
    provider = str(harness.get("provider") or _split_spec(spec)[0] or "?")
    model = str(harness.get("model") or _split_spec(spec)[1] or "")
    if model.startswith(f"{provider}:"):
        model = model[len(provider) + 1 :]
    # The simulated model reports itself as provider "sim", model "sim": say it once.
    parts = [f"{provider} · {model}" if model and model != provider else provider]
    perception = str(harness.get("perception", "text"))
    if perception == "describe" and harness.get("perception_model"):
        perception += f" by {_split_spec(str(harness['perception_model']))[1] or harness['perception_model']}"
    parts.append(f"perception {perception}")
    memory = harness.get("memory", 10)
    parts.append(f"memory {memory}" if memory else "memory off")
    parts.append("reflection " + ("on" if harness.get("reflection", True) else "off"))
    if harness.get("thinking"):
        extra = harness.get("thinking_budget") or harness.get("effort")
        parts.append(f"thinking on{f' ({extra})' if extra else ''}")
    else:
        parts.append("thinking off")
    if harness.get("temperature") is not None:
        parts.append(f"T {fmt_num(harness['temperature'])}")
    parts.append(f"prompt {harness.get('prompt_variant', 'default')}")
    if harness.get("action_format") not in (None, "text"):
        parts.append(f"answers as {harness['action_format']}")
    if harness.get("logprobs"):
        parts.append("logprobs on")
    parts.append(f"invalid: {policy_text(harness)}")
    # Each setting stays on one line; wrapping happens only between settings.
    return " · ".join(esc(p).replace(" ", "&nbsp;") for p in parts)


def player_line(player: Mapping[str, Any]) -> str:
    """One player of the header: seat, label, a kind badge and the spec when it adds something."""
    label = esc(player.get("label") or player.get("spec") or "player")
    kind = str(player.get("kind") or "")
    spec = str(player.get("spec") or "")
    if spec.startswith("sim") or player.get("simulated"):
        kind = "sim"
    bg, fg = KIND_BADGES.get(kind, KIND_BADGES["bot"])
    kind_html = (
        f'<span style="background:{bg}; color:{fg}; font-size:8pt; font-weight:600;">'
        f"&nbsp;{esc(kind or '?')}&nbsp;</span>"
    )
    redundant = spec in ("", kind, player.get("label"))
    spec_html = "" if redundant else f' <span style="color:{MUTED_COLOR};">{esc(spec)}</span>'
    who = seat_title(player.get("seat", "?"), player.get("seat_name"))
    return f"<b>{esc(who)}</b> · {label} {kind_html}{spec_html}"


def players_html(info: Mapping[str, Any]) -> str:
    """The header's player list, each model seat with its harness settings underneath."""
    harness: Mapping[Any, Any] = info.get("harness") or {}
    lines = []
    for player in info.get("players") or []:
        seat = player.get("seat")
        settings = harness.get(seat, harness.get(str(seat))) if harness else None
        line = player_line(player)
        if settings is not None or player.get("kind") == "model":
            summary = harness_summary(str(player.get("spec") or ""), settings or {})
            indent = "&nbsp;" * 3
            line += f'<br><span style="color:{MUTED_COLOR}; font-size:8.5pt;">{indent}{summary}</span>'
        lines.append(line)
    return "<br>".join(lines) if lines else f'<span style="color:{MUTED_COLOR};">No players</span>'


def header_simulated(info: Mapping[str, Any]) -> bool:
    """Whether any seat of the header is played by the simulated model."""
    if info.get("simulated"):
        return True
    harness: Mapping[Any, Any] = info.get("harness") or {}
    for player in info.get("players") or []:
        seat = player.get("seat")
        settings = harness.get(seat, harness.get(str(seat))) if harness else None
        if str(player.get("spec") or "").startswith("sim") or player.get("simulated"):
            return True
        if isinstance(settings, Mapping) and settings.get("simulated"):
            return True
    return False


# ------------------------------------------------------------------------------------- step and pills


def step_title_html(model: StepModel, sample: Sample | None, players: Players) -> str:
    """"Step 4 · Seat 1 (X) · Simulated model", and "model working…" while a call runs."""
    if model.step is None:
        return muted("No step selected")
    parts = [f"<b>Step {step_number(model.step)}</b>"]
    seat = sample.seat if sample is not None else None
    if seat is None and model.turn:
        seats = model.turn.get("seats") or []
        seat = seats[0] if len(seats) == 1 else None
    if seat is not None:
        player = players.get(seat, {})
        label = player.get("label") or player.get("spec") or ""
        parts.append(f"{esc(seat_name(seat, players))}{' · ' + esc(label) if label else ''}")
    if sample is not None and sample.streaming:
        parts.append(colored("model working…", ACCENT, bold=True))
    return " · ".join(parts)


@dataclasses.dataclass(frozen=True)
class Pill:
    """A button for one sample of the step (shown when a step has several)."""

    key: SampleKey
    text: str
    tooltip: str


def _overrider(override: Mapping[str, Any]) -> str:
    """Who overrode a model's answer, for people: "a person" for the recorded ``by: human``."""
    by = str(override.get("by") or "human")
    return "a person" if by == "human" else by


def pills(model: StepModel, players: Players) -> list[Pill]:
    """One pill per model sample of the step, "Sample 1 · (2,2) · played"; none for a single one."""
    samples = model.ordered()
    shown = [s for s in samples if s.is_model] if len(samples) > 1 else []
    seats = {s.seat for s in shown}
    per_seat: dict[int | None, int] = {}
    decided = model.decided()
    result = []
    for sample in shown:
        per_seat[sample.seat] = per_seat.get(sample.seat, 0) + 1
        name = f"Sample {per_seat[sample.seat]}"
        if len(seats) > 1:
            name = f"{seat_name(sample.seat, players)} · {name}"
        played = decided is sample and model.applied is not None
        chosen = sample.chosen()
        override = sample.override
        if override:
            # A person's move, not the model's answer: the pill names both.
            proposed, by = override.get("proposed"), _overrider(override)
            text = f"{name} · {proposed} → {override.get('action')} ({by}'s override)"
            tip = f"Call {sample.call} — the model proposed {proposed}; {by} played {override.get('action')}"
        elif chosen:
            text = f"{name} · {chosen}" + (" · played" if played else "")
            tip = f"Call {sample.call}" + (" — this answer was played" if played else "")
        else:
            text = f"{name} …" if sample.streaming else f"{name} ✗"
            tip = f"Call {sample.call}"
        result.append(Pill(sample.key, text, tip))
    return result if len(result) > 1 else []


def errors_html(model: StepModel, sample: Sample | None) -> str:
    """Failed calls and recorded errors of the sample and the step, one per line ("" if none)."""
    lines = []
    for failure in sample.failures if sample else []:
        if failure.get("kind") == "cancelled":
            lines.append("<b>Model call cancelled</b>")
            continue
        status = f" (HTTP {failure['status']})" if failure.get("status") else ""
        which = []
        if failure.get("purpose") and failure.get("purpose") != "action":
            which.append(str(failure["purpose"]))
        if failure.get("attempt") is not None:
            which.append(f"attempt {failure['attempt']}")
        where = f" ({', '.join(which)})" if which else ""
        lines.append(
            f"<b>Model call failed{esc(where)} — {esc(failure.get('kind', 'error'))}{esc(status)}</b>: "
            f"{esc(failure.get('error', ''))}"
        )
    for error in (sample.errors if sample else []) + model.errors:
        where = f" in {error['where']}" if error.get("where") else ""
        lines.append(f"<b>Error{esc(where)}</b>: {esc(error.get('message', ''))}")
    return "<br>".join(lines)


def is_held(model: StepModel, sample: Sample, pending: Mapping[str, Any] | None) -> bool:
    """Whether ``sample`` is the decision waiting for Accept / Override."""
    if not pending or model.applied is not None:
        return False
    seat_ok = pending.get("seat") is None or pending.get("seat") == sample.seat
    call_ok = pending.get("call") is None or pending.get("call") == sample.call
    return seat_ok and call_ok


def held_html(pending: Mapping[str, Any] | None, players: Players) -> str:
    """The controls' line about the held decision."""
    if not pending:
        return "No decision held"
    seat = pending.get("seat")
    who = f" from {seat_name(seat, players)}" if seat is not None else ""
    return f"Held{esc(who)}: <b>{esc(pending.get('action'))}</b>"


def same_decision(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two held decisions are the same one (the same call of the same seat at the same step)."""
    same = all(a.get(k) == b.get(k) for k in ("step", "seat", "call", "action"))
    return same and list(a.get("legal") or []) == list(b.get("legal") or [])


# -------------------------------------------------------------------------------------------- outcome


def outcome_html(
    model: StepModel,
    sample: Sample | None,
    players: Players,
    pending: Mapping[str, Any] | None = None,
    *,
    ended: bool = False,
) -> str:
    """Who acted, what they chose and why, the invalid-answer policy, the reward and the score."""
    lines = _decision_lines(model, sample, players, pending, ended)
    if sample is not None and sample.override:
        o = sample.override
        lines.append(
            colored(
                f"Overridden by {esc(_overrider(o))}: proposed {esc(o.get('proposed'))} → "
                f"played {esc(o.get('action'))}",
                WARNING_FG,
                bold=True,
            )
        )
    if model.turn and not model.applied:
        legal = model.legal(sample.seat if sample is not None else None)
        if legal:
            shown = " ".join(legal[:12]) + (" …" if len(legal) > 12 else "")
            lines.append(muted(f"Legal ({len(legal)}): {esc(shown)}"))
    if model.applied:
        lines.append(_applied_line(model.applied, players))
    if sample is not None and sample.is_model:
        glance = glance_html(sample)
        if glance:
            lines.append(glance)
    for change in model.player_changes:
        lines.append(
            muted(
                f"{esc(seat_name(change.get('seat'), players))} is now "
                f"{esc(change.get('label') or change.get('spec'))} ({esc(change.get('kind'))})"
            )
        )
    return "<br>".join(lines) or muted("Nothing decided yet")


def _decision_lines(
    model: StepModel, sample: Sample | None, players: Players, pending: Mapping[str, Any] | None, ended: bool
) -> list[str]:
    decision = sample.decision if sample else None
    if decision is None:
        if sample is not None and sample.streaming:
            if ended:  # nothing will arrive any more: the session stopped during the call
                return [colored("The session ended during this call; no answer was recorded", WARNING_FG)]
            return [colored("Waiting for the model's answer…", ACCENT)]
        if sample is not None and is_held(model, sample, pending):
            action = esc((pending or {}).get("action", ""))
            return [
                colored(f"Held for review: {action}", ACCENT, bold=True)
                + " "
                + muted("— accept it or override it below")
            ]
        if sample is not None and sample.chosen():
            return [f"Proposed <b>{esc(sample.chosen())}</b> " + muted("(not played)")]
        if model.turn and not model.applied:
            return [muted("Waiting for a decision…")]
        return []
    source = str(decision.get("source", "?"))
    player = players.get(sample.seat, {}) if sample is not None and sample.seat is not None else {}
    action = decision.get("action")
    lines = [
        f"{esc(player.get('label') or source)} {muted('(' + esc(source) + ')')} "
        + ("chose " + f"<b style='font-size:11pt;'>{esc(action)}</b>" if action is not None else "gave up")
    ]
    if decision.get("forfeit"):
        lines.append(colored("Forfeit: the invalid-answer policy gave up for this seat.", BAD_COLOR))
    policy = decision.get("policy")
    if policy and policy != "answer":  # "answer" = the model's own parsed answer was played
        why = decision.get("fallback_reason") or ""
        lines.append(
            colored(f"Invalid-answer policy: {esc(policy)}", WARNING_FG, bold=True)
            + (f" — {esc(why)}" if why else "")
        )
    if decision.get("rationale"):
        lines.append(f"<i>Why:</i> {esc(decision['rationale'])}")
    if decision.get("latency_ms") is not None:
        lines[-1] += " " + muted(f"in {float(decision['latency_ms']) / 1000:.2f} s")
    return lines


def _applied_line(applied: Mapping[str, Any], players: Players) -> str:
    actions = applied.get("actions") or {}
    if len(actions) == 1:
        played = str(next(iter(actions.values())))
    else:
        played = ", ".join(f"{seat_name(s, players)}: {a}" for s, a in actions.items())
    reward_list = list(applied.get("rewards") or [])
    rewards = " / ".join(fmt_num(r) for r in reward_list)
    scores = " – ".join(fmt_num(s) for s in applied.get("scores") or [])
    reward_word = "rewards" if len(reward_list) > 1 else "reward"
    return (
        f"Played <b>{esc(played)}</b> · {reward_word} {esc(rewards or '0')} · "
        f"score <b>{esc(scores)}</b>" + (" · <b>game over</b>" if applied.get("is_over") else "")
    )


def outcome_summary(sample: Sample | None) -> str:
    """The Decision section's folded summary: the action decided."""
    decision = sample.decision if sample else None
    return f"<b>{esc(decision['action'])}</b>" if decision and decision.get("action") is not None else ""


@dataclasses.dataclass(frozen=True)
class ValueRow:
    """A search bot's value for one legal action."""

    action: str
    value: str
    chosen: bool


def value_rows(sample: Sample | None) -> list[ValueRow]:
    """The bot's values per action, best first, the chosen action marked."""
    decision = sample.decision if sample else None
    values = (decision or {}).get("values")
    if not isinstance(values, Mapping):
        return []
    chosen = str((decision or {}).get("action"))
    ranked = sorted(values.items(), key=lambda kv: -float(kv[1]))
    return [ValueRow(str(a), fmt_num(v), str(a) == chosen) for a, v in ranked]


def glance_html(sample: Sample) -> str:
    """One line with the attempt's parse chain, checks and cost, so they show without scrolling."""
    bits = []
    steps = []
    for kind, data in sample.attempts:
        if kind == ev.ACTION_PARSED:
            steps.append(colored(f"✓ {esc(data.get('matched'))}", OK_COLOR))
        else:
            shown = data.get("extracted") or ("unparsable" if kind == ev.ACTION_UNPARSABLE else "?")
            steps.append(colored(f"✗ {esc(shown)}", BAD_COLOR))
    if steps:
        bits.append("parse " + " → ".join(steps))
    if sample.verifications:
        good = sum(1 for v in sample.verifications if v.get("correct"))
        color = OK_COLOR if good == len(sample.verifications) else BAD_COLOR
        bits.append(colored(f"checks {good}/{len(sample.verifications)}", color))
    if sample.finished:
        total = sample.usage()
        bits.append(f"{int(total.get('input_tokens', 0) + total.get('output_tokens', 0)):,} tokens")
        bits.append(cost_text(total.get("cost_usd"), sample.simulated))
    if sample.retries:
        retries = _plural(len(sample.retries), "retry", "retries")
        bits.append(colored(retries.replace(" ", "&nbsp;"), WARNING_FG))
    return muted(" · ".join(bits)) if bits else ""


# --------------------------------------------------------------------------------------------- prompt


def prompt_text(sample: Sample) -> str:
    """The prompt exactly as sent: system, user, then each re-ask of the invalid-answer policy."""
    prompt = sample.prompt or {}
    parts = []
    if prompt.get("system"):
        parts.append("── SYSTEM ──\n" + str(prompt["system"]).rstrip())
    if prompt.get("user"):
        parts.append("── USER ──\n" + str(prompt["user"]).rstrip())
    for reask in sample.reasks:
        attempt = reask.get("attempt")
        user = str(reask.get("user", "")).rstrip()
        title = f"RE-ASK · attempt {attempt}" if attempt is not None else "RE-ASK"
        if reask.get("policy") == "same":
            title += " · the same prompt again"
        reason = str(reask.get("reason") or "")
        if reason and reason not in user:  # after a failed call the same prompt is sent again
            title += f" · {reason}"
        parts.append(f"── {title} ──\n{user}")
    return "\n\n".join(parts)


def prompt_summary(sample: Sample) -> str:
    """The Prompt section's summary: a variant other than the default, re-asks or length, images."""
    prompt = sample.prompt or {}
    bits = []
    variant = prompt.get("variant") or prompt.get("template")
    if variant and variant != "default":
        bits.append(esc(variant))
    if sample.reasks:
        bits.append(colored(_plural(len(sample.reasks), "re-ask", "re-asks"), BAD_COLOR))
    if sample.images:
        bits.append(_plural(len(sample.images), "image", "images"))
    if prompt and not sample.reasks:  # the summary shares its line with "Open full prompt…"
        chars = len(str(prompt.get("system", ""))) + len(str(prompt.get("user", "")))
        bits.append(f"{chars:,} chars")
    return " · ".join(bits)


def prompt_tooltip(sample: Sample) -> str:
    """Why the perception used differs from the one asked for (a headless run sends text), if it does."""
    perception = (sample.prompt or {}).get("perception")
    return str(perception.get("note") or "") if isinstance(perception, Mapping) else ""


def reasoning_summary(sample: Sample) -> str:
    """The Reasoning section's summary: its length, and whether it is still streaming."""
    bits = []
    if sample.reasoning:
        bits.append(f"{len(sample.reasoning):,} chars")
    if sample.reasoning_live and sample.streaming:
        bits.append(f"<span style='color:{ACCENT};'>streaming…</span>")
    return " · ".join(bits)


def reasoning_placeholder(sample: Sample) -> str:
    """What the empty Reasoning box says (waiting, none returned, or thinking was off)."""
    if sample.streaming:
        return "Waiting for reasoning…"
    last_call = sample.started[-1] if sample.started else {}
    thinking = (last_call.get("params") or {}).get("thinking")
    return "No reasoning returned" if thinking else "No reasoning recorded (thinking off)"


# ----------------------------------------------------------------------------------------- perception


def _calls_for(sample: Sample, purpose: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The finished and failed provider calls of ``sample`` made for ``purpose``."""
    finished = [f for f in sample.finished if f.get("purpose") == purpose]
    failed = [f for f in sample.failures if f.get("purpose") == purpose]
    return finished, failed


def perception_html(sample: Sample) -> str:
    """Who described the board, from which template, and what the call took (tokens, cost, time)."""
    data = sample.perception or {}
    started = next((c for c in sample.started if c.get("purpose") == "perception"), None)
    if not data and started is None:
        return muted("No perception call")
    provider = str(data.get("provider") or (started or {}).get("provider") or "?")
    model = str(data.get("model") or (started or {}).get("model") or "")
    name = f"<b>{esc(provider)}</b>" + (f" · {esc(model)}" if model and model != provider else "")
    first = f"Described by {name} from the board image"
    if data.get("template"):
        first += " · " + muted(f"prompt {esc(data['template'])}")
    lines = [first]
    finished, failed = _calls_for(sample, "perception")
    for call in finished:
        cost = call.get("cost_usd")
        lines.append(
            f"Tokens in <b>{int(call.get('input_tokens') or 0):,}</b> · out "
            f"<b>{int(call.get('output_tokens') or 0):,}</b> · "
            f"cost <b>{cost_text(cost if isinstance(cost, (int, float)) else None, provider == 'sim')}</b> · "
            f"latency <b>{float(call.get('latency_ms') or 0) / 1000:.2f} s</b>"
        )
    for failure in failed:
        text = f"✗ Failed ({failure.get('kind', 'error')}): {failure.get('error', '')}"
        lines.append(colored(esc(text), BAD_COLOR))
    if len(finished) + len(failed) < (1 if started is not None else 0):
        lines.append(colored("Describing the board…", ACCENT))
    return "<br>".join(lines)


def perception_summary(sample: Sample) -> str:
    """The Perception section's summary: the describing model and the description's length."""
    data = sample.perception or {}
    bits = []
    if data.get("model"):
        bits.append(esc(data["model"]))
    if data.get("error"):
        bits.append(colored("failed", BAD_COLOR))
    elif sample.description:
        bits.append(f"{len(sample.description):,} chars")
    return " · ".join(bits)


# ---------------------------------------------------------------------------------------- parse chain


def parse_chain_html(model: StepModel, sample: Sample) -> str:
    """Every answer read, raw → extracted → matched (→ executed), or why it was rejected."""
    indent = "margin:0px 0px 4px 14px;"
    blocks: list[str] = []
    for kind, data in sample.attempts:
        attempt = data.get("attempt")
        number = f"Attempt {attempt}" if attempt is not None else "Answer"
        source = _answer_source(data)
        if kind == ev.ACTION_PARSED:
            chain = (
                f"{source}<br>→ extracted <b>{esc(data.get('extracted'))}</b>"
                f" → matched <b>{esc(data.get('matched'))}</b>"
            )
            executed = model.executed(sample)
            if executed is not None:
                chain += f" → executed <b>{esc(executed)}</b>"
            notes = []
            if data.get("reason"):
                notes.append(f"<i style='color:{MUTED_COLOR};'>{esc(data['reason'])}</i>")
            if data.get("note"):
                notes.append(colored(esc(data["note"]), WARNING_FG))
            if isinstance(data.get("confidence"), Mapping):
                notes.append(confidence_html(data["confidence"]))
            if executed is not None and executed != str(data.get("matched")):
                notes.append(colored(f"executed differs: {esc(model.why_differs(sample))}", WARNING_FG))
            blocks.append(
                f"<p style='margin:0px;'>{colored('✓ ' + number + ' — legal', OK_COLOR, bold=True)}</p>"
                f"<p style='{indent}'>{chain}{'<br>' + '<br>'.join(notes) if notes else ''}</p>"
            )
        else:
            label = "unparsable" if kind == ev.ACTION_UNPARSABLE else "illegal"
            detail = source
            if data.get("extracted") is not None:
                detail += f"<br>→ extracted <b>{esc(data.get('extracted'))}</b>"
            blocks.append(
                f"<p style='margin:0px;'>{colored(f'✗ {number} — {label}', BAD_COLOR, bold=True)}</p>"
                f"<p style='{indent} color:{BAD_COLOR};'>{detail}<br><b>{esc(data.get('error', ''))}</b></p>"
            )
    if not blocks:
        blocks.append(muted("Waiting for the answer…" if sample.streaming else "No parse recorded"))
    return "".join(blocks)


def _answer_source(data: Mapping[str, Any]) -> str:
    """The first link of the chain: the raw text, the JSON answer or the tool call it was read from."""
    fmt = data.get("format")
    if fmt == "tools" and data.get("tool_call"):
        # "play_move({...})": the name, then the end of the arguments (where the move usually is).
        name, _, arguments = str(data["tool_call"]).partition("(")
        return (f"tool call <b>{esc(name)}</b><span style='font-family:monospace;'>"
                f"({esc(short(arguments.removesuffix(')'), 56))})</span>")
    if fmt == "tools":
        return f"no tool call; raw “{esc(short(str(data.get('raw', ''))))}”"
    if fmt == "json":
        return f"JSON answer “{esc(short(str(data.get('raw', ''))))}”"
    return f"raw “{esc(short(str(data.get('raw', ''))))}”"


def confidence_html(confidence: Mapping[str, Any]) -> str:
    """The model's confidence over the candidate moves (from token log-probabilities), one line."""
    candidates = confidence.get("candidates")
    parts = []
    if isinstance(candidates, Mapping):
        for move, p in list(candidates.items())[:5]:
            text = f"{esc(move)} {float(p):.0%}"
            parts.append(f"<b>{text}</b>" if move == confidence.get("move") else text)
    other = confidence.get("other")
    if isinstance(other, (int, float)) and other >= 0.005:
        parts.append(f"other {float(other):.0%}")
    chosen = confidence.get("chosen")
    whole = f" · whole move {float(chosen):.0%}" if isinstance(chosen, (int, float)) else ""
    return (f"<span style='color:{ACCENT_DARK};'>confidence (first token): " + " · ".join(parts)
            + f"{whole}</span>")


def parse_summary(sample: Sample) -> str:
    """The parse section's summary: attempts, rejections and the action settled on."""
    bad = sum(1 for kind, _ in sample.attempts if kind != ev.ACTION_PARSED)
    bits = []
    if sample.attempts:
        bits.append(_plural(len(sample.attempts), "attempt", "attempts"))
    if bad:
        bits.append(colored(f"{bad} rejected", BAD_COLOR))
    if any(kind == ev.ACTION_PARSED for kind, _ in sample.attempts):
        bits.append(colored(f"✓ {esc(sample.chosen())}", OK_COLOR))
    return " · ".join(bits)


# ------------------------------------------------------------------------------ checks, memory, usage


@dataclasses.dataclass(frozen=True)
class CheckRow:
    """One intermediate answer checked against ground truth."""

    question: str
    answer: str
    truth: str
    #: "✓ TP", "✗ FN", "✗ format", or "–" when the check has no verdict.
    mark: str
    correct: bool | None
    tooltip: str
    #: The question's number, the verifier's label, and the items of a set answer and of its truth
    #: (what the board marks when the row is selected).
    key: int = 0
    label: str = ""
    answer_items: tuple[str, ...] = ()
    truth_items: tuple[str, ...] = ()


def detail_text(detail: Any) -> str:
    """A verification's detail in one line: the GameBot label, precision / recall / F1, what differs."""
    if not isinstance(detail, Mapping):
        return str(detail) if detail else ""
    bits = []
    if detail.get("label"):
        bits.append(str(detail["label"]))
    names = {"precision": "precision", "recall": "recall", "f1": "F1"}
    scores = [f"{name} {fmt_num(detail[key])}" for key, name in names.items() if key in detail]
    if scores:
        bits.append(", ".join(scores))
    for key in ("missed", "extra"):
        if detail.get(key):
            bits.append(f"{key} {plain(detail[key])}")
    if detail.get("missing"):
        bits.append("no answer given")
    known = {"label", "precision", "recall", "f1", "missed", "extra", "missing"}
    bits += [f"{k}: {plain(v)}" for k, v in detail.items() if k not in known]
    return " · ".join(bits)


def check_rows(sample: Sample) -> list[CheckRow]:
    """The sample's ``verification`` records as table rows."""
    rows = []
    for v in sample.verifications:
        verdict = v.get("correct")
        correct = None if verdict is None else bool(verdict)
        detail = v.get("detail")
        label = str(detail.get("label") or "") if isinstance(detail, Mapping) else ""
        short = _LABEL_SHORT.get(label, label)
        mark = ("–" if correct is None else "✓" if correct else "✗") + (f" {short}" if short else "")
        answer, truth = v.get("answer"), v.get("truth")
        items = (
            tuple(str(x) for x in answer) if isinstance(answer, list) else (),
            tuple(str(x) for x in truth) if isinstance(truth, list) else (),
        )
        try:
            key = int(v.get("key") or 0)
        except (TypeError, ValueError):
            key = 0
        rows.append(
            CheckRow(str(v.get("question", "")), plain(answer), plain(truth), mark, correct,
                     detail_text(detail), key, label, *items)
        )
    return rows


def checks_summary(sample: Sample) -> str:
    """"2/2 correct", green when all are right."""
    if not sample.verifications:
        return ""
    judged = [v for v in sample.verifications if v.get("correct") is not None]
    if not judged:
        return colored("not applicable here", MUTED_COLOR)
    good = sum(1 for v in judged if v.get("correct"))
    color = OK_COLOR if good == len(judged) else BAD_COLOR
    return colored(f"{good}/{len(judged)} correct", color)


@dataclasses.dataclass(frozen=True)
class MemoryRow:
    """One entry of the memory window given to the model."""

    step: str
    action: str
    reward: str
    #: The state the action was taken in, as the model was told.
    state: str


def _memory_step(step: Any) -> str:
    """A remembered step as people number it (the prompt, as sent, keeps the harness's index)."""
    try:
        return str(step_number(int(step)))
    except (TypeError, ValueError):
        return "" if step is None else str(step)


def memory_rows(sample: Sample) -> list[MemoryRow]:
    """The sample's memory window: step, action (and who played it), reward."""
    rows = []
    for entry in sample.memory or []:
        by = f"  ({entry['by']})" if entry.get("by") else ""
        rows.append(
            MemoryRow(
                _memory_step(entry.get("step")),
                f"{entry.get('action', '')}{by}",
                fmt_num(entry.get("reward", "")),
                str(entry.get("state") or ""),
            )
        )
    return rows


def memory_summary(sample: Sample) -> str:
    """"4 entries" (nothing when no memory was recorded)."""
    if sample.memory is None:
        return ""
    return _plural(len(sample.memory), "entry", "entries")


def _param_text(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return f"{key} {'on' if value else 'off'}"
    if isinstance(value, (list, tuple)):  # the tools offered: "tools play_move"
        return f"{key} {', '.join(str(v) for v in value)}"
    return f"{key} {fmt_num(value)}"


def usage_html(sample: Sample) -> str:
    """Each provider call with its parameters, then tokens, cost, latency, retries and failures."""
    lines = []
    for index, started in enumerate(sample.started):
        params = started.get("params") or {}
        extra = ", ".join(
            _param_text(k, v) for k, v in params.items() if k not in ("model", "purpose", "max_tokens")
        )
        purpose = started.get("purpose")
        label = f"Call {index + 1}" + (f" ({purpose})" if purpose and purpose != "action" else "")
        prefix = f"{label}: " if len(sample.started) > 1 else ""
        provider, model = str(started.get("provider", "?")), str(started.get("model") or "")
        name = f"<b>{esc(provider)}</b>" + (f" · {esc(model)}" if model and model != provider else "")
        lines.append(f"{prefix}{name}" + (" " + muted(f"({esc(extra)})") if extra else ""))
    total = sample.usage()
    if sample.finished:
        tokens = (
            f"Tokens in <b>{int(total.get('input_tokens', 0)):,}</b> · "
            f"out <b>{int(total.get('output_tokens', 0)):,}</b>"
        )
        if total.get("reasoning_tokens"):
            tokens += f" · reasoning <b>{int(total['reasoning_tokens']):,}</b>"
        lines.append(tokens)
        lines.append(
            f"Cost <b>{cost_text(total.get('cost_usd'), sample.simulated)}</b> · "
            f"latency <b>{total.get('latency_ms', 0) / 1000:.2f} s</b> · "
            f"retries <b>{len(sample.retries)}</b>"
        )
    if sample.streaming:
        lines.append(colored("Call in progress…", ACCENT))
    for retry in sample.retries:
        wait = f", waiting {float(retry['wait_s']):.1f} s" if retry.get("wait_s") is not None else ""
        text = f"↻ Retry {retry.get('attempt', '?')}: {retry.get('reason', '')}{wait}"
        lines.append(colored(esc(text), WARNING_FG))
    for failure in sample.failures:
        text = f"✗ Failed ({failure.get('kind', 'error')}): {failure.get('error', '')}"
        lines.append(colored(esc(text), BAD_COLOR))
    return "<br>".join(lines) or muted("No call recorded")


def usage_summary(sample: Sample) -> str:
    """The usage section's summary: tokens, cost and seconds, retries, failure."""
    total = sample.usage()
    bits = []
    if sample.finished:
        bits.append(f"{int(total.get('input_tokens', 0) + total.get('output_tokens', 0)):,} tokens")
        bits.append(cost_text(total.get("cost_usd"), sample.simulated))
        bits.append(f"{total.get('latency_ms', 0) / 1000:.1f} s")
    if sample.retries:
        bits.append(colored(_plural(len(sample.retries), "retry", "retries"), WARNING_FG))
    if sample.failures:
        bits.append(colored(f"{len(sample.failures)} failed", BAD_COLOR))
    return " · ".join(bits)


def prompt_window_title(model: StepModel, sample: Sample | None, players: Players) -> str:
    """The full-prompt window's title: "Prompt — Step 4 · Seat 1 (X)"."""
    where = f"Step {step_number(model.step)}" if model.step is not None else "Prompt"
    if sample is not None and sample.seat is not None:
        where += f" · {seat_name(sample.seat, players)}"
    return f"Prompt — {where}"

