"""Every command of the main window, declared once: its text, keys, menu, and help line.

The menus, the toolbar, the window's shortcuts, presenter mode's actions and the F1 overlay are all
built from :data:`ACTIONS`, so a key can never be bound in one place and missing from the help (or
named differently in a menu). Qt-free: the Qt side (``desktop.menus``) turns each declaration into a
``QAction`` connected to a command.

Some keys are bound by a panel rather than by the window (the model panel's Ctrl+Enter, the checks'
Ctrl+D, the annotation panel's keys): their declarations have ``bound=False``; the menus show the key
beside the item, the F1 overlay lists it, and the panel binds it.
"""

from __future__ import annotations

import dataclasses

__all__ = ["ACTIONS", "MENUS", "ActionSpec", "help_rows", "in_menu", "spec"]

#: The menu bar's menus, in order.
MENUS = ("File", "Play", "View", "Models", "Help")


@dataclasses.dataclass(frozen=True, slots=True)
class ActionSpec:
    """One command.

    Attributes:
        id: The name the window's code uses (``"new"``, ``"zoom_in"``).
        text: The menu text (``"New game…"``).
        keys: Its shortcuts; the first is the one menus and the help show.
        menu: The menu it sits in (one of :data:`MENUS`), or ``""`` for none.
        group: The F1 overlay's heading for it (``"App"``, ``"Play"``, ``"Timeline"``, ``"View"``).
        help: What the F1 overlay says it does (default: the menu text).
        tip: Tooltip and status tip.
        bound: Whether the window binds the keys (``False``: a panel does; the menu only names them).
        separated: A separator goes before it in its menu.
        toolbar: It stands on the main toolbar.
        shown_keys: How the help writes its keys when not simply ``keys`` joined
            (``"← / →  or  [ / ]"``).
    """

    id: str
    text: str
    keys: tuple[str, ...] = ()
    menu: str = ""
    group: str = "App"
    help: str = ""
    tip: str = ""
    bound: bool = True
    separated: bool = False
    toolbar: bool = False
    shown_keys: str = ""

    @property
    def help_keys(self) -> str:
        return self.shown_keys or "  or  ".join(self.keys)

    @property
    def help_text(self) -> str:
        return self.help or self.text.rstrip("…").replace("&", "")


def _a(
    id_: str,
    text: str,
    *keys: str,
    menu: str = "",
    group: str = "App",
    help: str = "",  # noqa: A002  (the field's name)
    tip: str = "",
    bound: bool = True,
    separated: bool = False,
    toolbar: bool = False,
    shown_keys: str = "",
) -> ActionSpec:
    return ActionSpec(id_, text, keys, menu, group, help, tip, bound, separated, toolbar, shown_keys)


#: Every command, in menu order within each menu.
ACTIONS: tuple[ActionSpec, ...] = (
    # File
    _a("new", "New game…", "Ctrl+N", menu="File", tip="Start a new game", toolbar=True),
    _a("open", "Open session…", "Ctrl+O", menu="File", help="Open a saved session",
       tip="Browse saved sessions", toolbar=True),
    _a("open_tasks", "Open task set…", "Ctrl+Shift+O", menu="File",
       tip="View an LVLM-Playground task set and every player's answers, or take it"),
    _a("open_vgdl", "Open VGDL game…", "Ctrl+Shift+G", menu="File",
       tip="Play a game written in VGDL (GVGAI) from its game and level files"),
    _a("compare", "Compare sessions…", "Ctrl+Shift+C", menu="File", separated=True,
       help="Compare sessions side by side, step by step",
       tip="Align two or more sessions of one game step by step and find where they diverge"),
    _a("search", "Search sessions…", "Ctrl+Shift+F", menu="File",
       help="Search every decision of every session with SQL",
       tip="Query every decision of the saved sessions; a result opens its session at that step"),
    _a("run_study", "Run study…", menu="File", separated=True,
       tip="Run a human-baseline study file with a participant, full screen"),
    _a("fork", "Fork from this step", menu="File", separated=True,
       tip="Start a new session from the step shown", toolbar=True),
    _a("export", "Export session…", "Ctrl+E", menu="File", help="Export the session as a zip",
       tip="Save the session as a zip archive", toolbar=True),
    _a("export_video", "Export animation (GIF, MP4)…", "Ctrl+Shift+E", menu="File",
       help="Export the boards and rationales as a GIF or an MP4",
       tip="Save the boards and each decision's rationale as a GIF or an MP4"),
    _a("quit", "Quit", "Ctrl+Q", menu="File", separated=True, help="Quit PlayTrace"),
    # Play
    _a("run", "Run / Pause", "Space", menu="Play", group="Play", help="Run / pause automatic play",
       tip="Run or pause"),
    _a("step", "Step", menu="Play", group="Play", tip="Play one step"),
    _a("undo", "Undo move", "Ctrl+Z", menu="Play", group="Play",
       help="Take back your last move (single-player games)",
       tip="Take back your last move (single-player games; the session records it)"),
    _a("ask", "Ask the model", "Ctrl+Enter", menu="Play", group="Play", separated=True, bound=False,
       help="Ask the model for one decision"),
    _a("cancel", "Cancel model call", "Esc", menu="Play", group="Play", bound=False,
       help="Cancel the model call in flight"),
    _a("take_over", "Take over seat", menu="Play", group="Play", separated=True),
    _a("hand_back", "Hand back seat", menu="Play", group="Play"),
    _a("slower", "Slower ticks (real time)", "Ctrl+Alt+Down", menu="Play", group="Play", separated=True,
       help="Twice as long per tick in real-time games",
       tip="Give people twice as long per tick in Pong, Surround and other real-time games"),
    _a("faster", "Faster ticks (real time)", "Ctrl+Alt+Up", menu="Play", group="Play",
       help="Half as long per tick in real-time games",
       tip="Halve people's time per tick in real-time games"),
    _a("probe", "Probe this step…", "Ctrl+Shift+P", menu="Play", group="Play", separated=True,
       help="Ask other players or harness settings at the board shown",
       tip="Put the board shown to several players (bots, sim, models) and compare their answers"),
    _a("tournament", "Round-robin…", "Ctrl+Shift+R", menu="Play", group="Play", separated=True,
       help="Play every pair of players and score them",
       tip="Play every pair of players against each other and score them (GameBot)"),
    # View
    _a("prev", "Previous step", "[", menu="View", group="Timeline", help="Previous / next step",
       shown_keys="← / →  or  [ / ]"),
    _a("next", "Next step", "]", menu="View", group="Timeline", help="", shown_keys="-"),
    _a("first", "First step", menu="View", group="Timeline", help="First step / back to live",
       shown_keys="Home / End"),
    _a("live", "Go to live / last step", menu="View", group="Timeline", shown_keys="-"),
    _a("play", "Play / Pause replay", "Space", menu="View", group="Timeline", separated=True,
       help="Play / pause a replay", tip="Play the replay step by step"),
    _a("faster_replay", "Play faster", ">", "Shift+>", ".", menu="View", group="Timeline",
       help="Replay faster / slower", shown_keys="> / <"),
    _a("slower_replay", "Play slower", "<", "Shift+<", ",", menu="View", group="Timeline", shown_keys="-"),
    _a("ratings", "Ratings & leaderboard…", "Ctrl+Shift+L", menu="View", group="View", separated=True,
       help="Ratings and leaderboards of the saved sessions",
       tip="Rate people, bots and models in one pool and rank them across games and suites"),
    _a("rescore", "Re-score this session…", menu="View", group="View",
       help="Re-read its answers with today's parser and oracles, and replay it from them",
       tip="List every verdict today's parser and oracles would give differently (no model is called)"),
    _a("annotate", "Annotate steps", "Ctrl+L", menu="View", group="View", separated=True,
       help="Annotate steps: label, dispute and note (J / K move, 1–9 label, N note)",
       tip="Label the steps of this session, dispute verdicts and write notes"),
    _a("dispute", "Dispute verdict…", "Ctrl+D", group="View", bound=False,
       help="Dispute the selected verdict in the model panel's checks"),
    _a("zoom_in", "Zoom in", "Ctrl+=", "Ctrl++", menu="View", group="View", separated=True,
       help="Zoom in / out (larger type for talks)", shown_keys="Ctrl+= / Ctrl+-"),
    _a("zoom_out", "Zoom out", "Ctrl+-", menu="View", group="View", shown_keys="-"),
    _a("zoom_reset", "Actual size", "Ctrl+0", menu="View", group="View", help="Actual size"),
    _a("presenter", "Presenter mode", "F5", menu="View", group="View",
       help="Presenter mode: board and reasoning in large type (F5 or Esc leaves)",
       tip="Board and reasoning only, in large type (F5 or Esc leaves)"),
    # Models
    _a("add_model", "Add a real model…", menu="Models", tip="Enter an API key or a local server address",
       toolbar=True),
    # Help
    _a("demo", "Play the demo", menu="Help", tip="Watch the simulated model play (offline, free)"),
    _a("keys", "Keyboard shortcuts", "F1", menu="Help", separated=True, help="Show or hide this help",
       tip="Keys of the app and of every game", toolbar=True),
    _a("about", "About PlayTrace", menu="Help"),
)

_BY_ID = {a.id: a for a in ACTIONS}


def spec(action_id: str) -> ActionSpec:
    """The declaration of ``action_id`` (``KeyError`` if there is none)."""
    return _BY_ID[action_id]


def in_menu(menu: str) -> list[ActionSpec]:
    """The declarations of ``menu``'s items, in order."""
    return [a for a in ACTIONS if a.menu == menu]


def help_rows() -> list[tuple[str, str, str]]:
    """The F1 overlay's rows: (group, keys, what they do), for every command that has keys. A
    command whose ``shown_keys`` is ``"-"`` is covered by the row before it ("← / →")."""
    return [(a.group, a.help_keys, a.help_text) for a in ACTIONS if (a.keys or a.shown_keys)
            and a.shown_keys != "-"]
