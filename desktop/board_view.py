"""The game board widget: paints the game's renderer output and turns keys and clicks into actions.

The same renderer draws the screen and the image a vision model receives, so what the person sees is
what the model gets. The board only *requests* actions (``sig_action_requested``); the controller
decides whether a human is to move and submits the action to the match.

Keys: in a turn-based game one press plays one action (auto-repeat never plays more). In a real-time
game (``Game.tick_s`` set on the game) the board keeps the mapped keys that are held, as a game pad
would: each tick a person is asked to act on (:meth:`BoardView.set_turn_probe`) plays the newest
press if there was one since the last tick, else the held keys' action, else nothing (the game's
default action). A key map entry may name a chord, ``"right+x"``; the held keys play the longest
chord they hold. An action in the game's ``once_per_press`` (a rotation, a hard drop) plays on its
key's press only: held, it is not repeated, and the other keys held go on playing theirs.

Which state the board may show is decided in one place, :func:`shown_state`: in a live game of
hidden information where a person sits, the board draws that person's view, never the full state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QEasingCurve,
    QEvent,
    QPointF,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    QVariantAnimation,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop import theme
from engine.core import Game, Seat, State

# Qt keys that have a neutral name in the engine's key maps (letters and digits come from the text).
_NAMED_KEYS: dict[int, str] = {
    Qt.Key.Key_Up: "up",
    Qt.Key.Key_Down: "down",
    Qt.Key.Key_Left: "left",
    Qt.Key.Key_Right: "right",
    Qt.Key.Key_Space: "space",
    Qt.Key.Key_Return: "enter",
    Qt.Key.Key_Enter: "enter",
    Qt.Key.Key_Backspace: "backspace",
    Qt.Key.Key_Escape: "escape",
}

_MARGIN = 10

#: Colours of the marks for a selected intermediate answer: the truth, the model's items, both.
MARK_TRUTH = "#16a34a"
MARK_MODEL = "#dc2626"
MARK_BOTH = "#2563eb"
#: Modifiers that make a key a shortcut chord rather than a game key.
_CHORD = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
#: The separator of a move made of several cells (``"(5,0)->(4,1)"``, a checkers jump path).
PATH_SEP = "->"


#: The nudge's length and largest swing.
_NUDGE_MS = 360
_NUDGE_PX = 8.0
#: How often held keys look for a new tick to play on (a 1/60 s tick is about 17 ms).
_HELD_POLL_MS = 3
#: Joins the keys of a chord in a key map (``"right+x"``).
CHORD_SEP = "+"


def chord_keys(entry: str) -> frozenset[str]:
    """The keys a key map entry names: ``"right+x"`` -> {right, x}; ``"up"`` and ``"+"`` name one key."""
    parts = [p for p in entry.split(CHORD_SEP) if p]
    return frozenset(parts) if len(parts) > 1 else frozenset([entry])


def chord_action(
    chords: Sequence[tuple[frozenset[str], str]], held: Mapping[str, int]
) -> str | None:
    """The action of the longest chord whose keys are all ``held`` (key -> the order it was pressed
    in); between chords of the same length, the one with the latest press wins. ``None``: none held."""
    best: tuple[int, int] | None = None
    action = None
    for keys, act in chords:
        if keys <= held.keys():
            rank = (len(keys), max(held[k] for k in keys))
            if best is None or rank > best:
                best, action = rank, act
    return action

def key_name(event: QKeyEvent) -> str | None:
    """The neutral key name of a key event (``"up"``, ``"w"``, ``"5"``), or ``None``."""
    named = _NAMED_KEYS.get(event.key())
    if named is not None:
        return named
    text = event.text()
    if len(text) == 1 and text.isprintable() and not text.isspace():
        return text.lower()
    return None


class BoardView(QWidget):
    """Shows one state of a game and, when a person is to move, turns input into action requests.

    Signals:
        sig_action_requested(str): a canonical action the person chose (key or click).
        sig_action_refused(str): the person clicked an action that is not legal now (the board nudges).
        sig_game_key(): a key a real-time game maps was pressed (whether or not it plays now).
    """

    sig_action_requested = Signal(str)
    sig_action_refused = Signal(str)
    sig_game_key = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName("Game board")
        self._game: Game | None = None
        self._renderer: Any = None
        self._state: State | None = None
        self._interactive = False
        self._legal: tuple[str, ...] = ()
        self._highlight: tuple[str, ...] = ()
        self._hover: str | None = None
        # A move being built click by click (checkers: the piece, then each landing square).
        self._path: str | None = None
        self._paths: dict[str, str] = {}
        # A clicked cell that begins several actions ("C2" of Sudoku's "C2 1" … "C2 9"): a key typed
        # next completes it ("C2" then 7 plays "C2 7").
        self._selected: str | None = None
        # Cells marked for a selected intermediate answer: the model's items and the truth's.
        self._marks: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        self._marks_seat: Seat | None = None
        self._caption = ""
        self._image: QImage | None = None
        self._image_key: tuple[Any, ...] | None = None
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        # The nudge: a short horizontal shake when an input changed nothing or was refused.
        self._shake = 0.0
        self.nudges = 0
        self._nudge = QVariantAnimation(self)
        self._nudge.setDuration(_NUDGE_MS)
        self._nudge.setStartValue(0.0)
        self._nudge.setEndValue(1.0)
        self._nudge.setEasingCurve(QEasingCurve.Type.Linear)
        self._nudge.valueChanged.connect(self._on_nudge)
        self._nudge.finished.connect(self._end_nudge)
        # Real-time play: the mapped keys held (Qt key -> name, and name -> press order), the action of
        # a press no tick has played yet, and the step of the last tick held keys played on.
        self._chords: tuple[tuple[frozenset[str], str], ...] = ()
        # The chords a held key repeats on every tick (those whose action is not once per press).
        self._repeating: tuple[tuple[frozenset[str], str], ...] = ()
        self._game_keys: frozenset[str] = frozenset()
        self._held_qt: dict[int, str] = {}
        self._held: dict[str, int] = {}
        self._presses = 0
        self._fresh: str | None = None
        self._served: int | None = None
        self._turn_probe: Callable[[], Any] | None = None
        #: The game's clock waits for a person's first key (set by the window).
        self.waiting_for_first_key = False
        self._held_timer = QTimer(self)
        self._held_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._held_timer.setInterval(_HELD_POLL_MS)
        self._held_timer.timeout.connect(self.play_held)

    # -- content --------------------------------------------------------------------------------

    def set_game(self, game: Game | None) -> None:
        """Switch to ``game`` (``None`` clears the board); looks up its renderer."""
        self._game = game
        self._renderer = None
        self._chords = tuple((chord_keys(k), a) for k, a in game.keymap.items()) if game is not None else ()
        self._game_keys = frozenset().union(*(keys for keys, _ in self._chords))
        once = game.once_per_press if game is not None else frozenset()
        self._repeating = tuple((keys, act) for keys, act in self._chords if act not in once)
        self._release_all()
        self._served = None
        if game is not None:
            try:
                import renderers

                self._renderer = renderers.get(game.id)
            except Exception:  # no renderer for this game yet: fall back to the text view
                self._renderer = None
        self._state = None
        self._invalidate()
        self.updateGeometry()

    def set_state(
        self,
        state: State | None,
        *,
        interactive: bool = False,
        legal: Sequence[str] = (),
        highlight: Sequence[str] = (),
        caption: str = "",
        paths: Mapping[str, str] | None = None,
    ) -> None:
        """Show ``state``; when ``interactive``, keys and clicks on ``legal`` actions are requested.
        ``paths`` maps click paths to the actions they play (``State.path_actions``)."""
        self._state = state
        self._interactive = interactive
        self._legal = tuple(legal) if interactive else ()
        self._paths = dict(paths or {}) if interactive else {}
        self._highlight = tuple(highlight)
        self._caption = caption
        if self._path is not None and not self._continuations(self._path):
            self._path = None
        if self._selected is not None and not self._completions(self._selected):
            self._selected = None
        if self._hover not in self._legal and self._hover != self._path:
            self._hover = None
        self.setCursor(Qt.CursorShape.PointingHandCursor if interactive else Qt.CursorShape.ArrowCursor)
        self._update_held_timer()
        self._invalidate()

    @property
    def state(self) -> State | None:
        return self._state

    def set_marks(self, answer: Sequence[str], truth: Sequence[str], seat: Seat | None = None) -> None:
        """Mark the cells of an intermediate answer of ``seat``: the model's ``answer`` items and the
        ``truth`` (drawn where the renderer places them, :meth:`renderers.base.Renderer.cell_rect`)."""
        marks = (tuple(answer), tuple(truth))
        if marks != self._marks or seat != self._marks_seat:
            self._marks, self._marks_seat = marks, seat
            self.update()

    @property
    def marks(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self._marks

    @property
    def path(self) -> str | None:
        """The part of a several-click move chosen so far, or ``None``."""
        return self._path

    def _continuations(self, prefix: str) -> list[str]:
        """The legal actions (and click paths) that extend ``prefix`` by more cells."""
        start = prefix + PATH_SEP
        return [a for a in (*self._legal, *self._paths) if a.startswith(start)]

    @property
    def selected(self) -> str | None:
        """The cell clicked for a move a typed key completes, or ``None``."""
        return self._selected

    def _completions(self, item: str) -> list[str]:
        """The legal actions that are ``item`` followed by one more word (``"C2"`` → ``"C2 7"``)."""
        start = item + " "
        return [a for a in self._legal if a.startswith(start) and " " not in a[len(start):]]

    def _secondary(self, item: str) -> str | None:
        """The one legal action that is a word followed by ``item`` (``"flag B3"`` for ``"B3"``): what
        a right-click on ``item`` plays; ``None`` when there is none or more than one."""
        found = [a for a in self._legal if a.endswith(" " + item) and " " not in a[: -len(item) - 1]]
        return found[0] if len(found) == 1 else None

    def _playable(self, clicked: str) -> str | None:
        """The action ``clicked`` (a cell or a path) plays: itself when legal, or its mapped action."""
        if clicked in self._legal:
            return clicked
        return self._paths.get(clicked)

    @property
    def renderer(self) -> Any:
        """The renderer drawing the board: the game's own, or the text fallback."""
        return self._renderer

    @property
    def interactive(self) -> bool:
        return self._interactive

    @property
    def hover_action(self) -> str | None:
        return self._hover

    # -- geometry -------------------------------------------------------------------------------

    def _aspect(self) -> float:
        aspect = getattr(self._renderer, "aspect", 1.0) if self._renderer is not None else 1.0
        try:
            return float(aspect) if aspect else 1.0
        except (TypeError, ValueError):
            return 1.0

    @property
    def aspect(self) -> float:
        """The board's width over its height (the renderer's, 1 for the text fallback)."""
        return self._aspect()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(460, round(460 / self._aspect()))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(220, round(220 / self._aspect()))

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return max(1, round(width / self._aspect()))

    def board_rect(self) -> QRect:
        """Where the board image is drawn inside the widget (centred, aspect kept)."""
        avail = self.rect().adjusted(_MARGIN, _MARGIN, -_MARGIN, -_MARGIN - self._caption_height())
        aspect = self._aspect()
        w = min(avail.width(), round(avail.height() * aspect))
        h = round(w / aspect)
        w, h = max(w, 1), max(h, 1)
        x = avail.x() + (avail.width() - w) // 2
        y = avail.y() + (avail.height() - h) // 2
        return QRect(x, y, w, h)

    def nudge(self) -> None:
        """Shake the board briefly: the input was taken but changed nothing, or was refused."""
        self.nudges += 1
        self._nudge.stop()
        self._nudge.start()

    @property
    def shaking(self) -> bool:
        return self._nudge.state() == QVariantAnimation.State.Running

    def _on_nudge(self, value: Any) -> None:
        t = float(value)
        # Three damped swings of a few pixels.
        self._shake = _NUDGE_PX * (1.0 - t) * math.sin(t * 6 * math.pi)
        self.update()

    def _end_nudge(self) -> None:
        self._shake = 0.0
        self.update()

    def _caption_height(self) -> int:
        return 24 if self._caption else 0

    # -- painting -------------------------------------------------------------------------------

    def _invalidate(self) -> None:
        self._image_key = None
        self.update()

    def _board_image(self, rect: QRect) -> QImage | None:
        if self._state is None or self._renderer is None:
            return None
        dpr = self.devicePixelRatioF()
        chosen: tuple[str, ...] = ()
        if self._path is not None:
            # The cells picked so far and every cell the move can go on to.
            cut = len(self._path) + len(PATH_SEP)
            nxt = {a[cut:].split(PATH_SEP)[0] for a in self._continuations(self._path)}
            chosen = (*self._path.split(PATH_SEP), *sorted(nxt))
        elif self._selected is not None:
            chosen = (self._selected,)
        hover = (self._hover,) if self._hover else ()
        highlight = tuple(dict.fromkeys((*self._highlight, *chosen, *hover)))
        key = (id(self._state), rect.width(), rect.height(), dpr, highlight)
        if key != self._image_key or self._image is None:
            w, h = max(1, round(rect.width() * dpr)), max(1, round(rect.height() * dpr))
            try:
                image = self._renderer.render(self._state, w, h, highlight=highlight)
            except Exception:  # a renderer bug must never take the window down: show the text view
                return None
            image.setDevicePixelRatio(dpr)
            self._image, self._image_key = image, key
        return self._image

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(theme.PANEL))
        rect = self.board_rect()
        image = self._board_image(rect)
        if image is not None:
            painter.drawImage(rect.translated(round(self._shake), 0), image)
            self._paint_marks(painter, rect)
        elif self._state is not None:
            painter.setPen(QColor(theme.TEXT))
            font = QFont(self._mono)
            font.setPointSize(14)
            painter.setFont(font)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self._state.text())
        else:
            painter.setPen(QColor(theme.MUTED))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No game open")
        if self._caption:
            painter.setPen(QColor(theme.MUTED))
            height = self._caption_height()
            cap = QRect(0, self.height() - _MARGIN - height, self.width(), height)
            painter.drawText(cap, Qt.AlignmentFlag.AlignCenter, self._caption)
        if self.hasFocus():
            # A visible focus ring tells the person that game keys go to the board.
            pen = QPen(QColor(theme.ACCENT), 2.5 if self._interactive else 1.5)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(2, 2, -2, -2), 8, 8)
        painter.end()

    def _paint_marks(self, painter: QPainter, rect: QRect) -> None:
        answer, truth = self._marks
        if not (answer or truth) or self._renderer is None:
            return
        cell_rect = getattr(self._renderer, "cell_rect", None)
        if cell_rect is None:
            return
        for item in dict.fromkeys((*truth, *answer)):
            try:
                where = cell_rect(self._state, rect.width(), rect.height(), item, self._marks_seat)
            except Exception:  # a renderer bug must not take the window down: no mark
                where = None
            if where is None:
                continue
            both, only_truth = item in answer and item in truth, item in truth
            name = MARK_BOTH if both else MARK_TRUTH if only_truth else MARK_MODEL
            box = QRectF(where).translated(rect.x() + self._shake, rect.y()).adjusted(2, 2, -2, -2)
            fill = QColor(name)
            fill.setAlpha(60)
            pen = QPen(QColor(name), 3.0)
            if not both and not only_truth:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(box, 4, 4)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        self._invalidate()
        super().resizeEvent(event)

    def focusInEvent(self, event: Any) -> None:  # noqa: N802
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802
        # The keys' releases go elsewhere now: nothing stays held.
        self._release_all()
        self.update()
        super().focusOutEvent(event)

    # -- input ----------------------------------------------------------------------------------

    def action_at(self, pos: QPointF) -> str | None:
        """The action under a widget position (through the renderer's hit test), if any."""
        if self._state is None or self._renderer is None:
            return None
        rect = self.board_rect()
        if not QRectF(rect).contains(pos):
            return None
        try:
            return self._renderer.hit_test(
                self._state, rect.width(), rect.height(), pos.x() - rect.x(), pos.y() - rect.y()
            )
        except Exception:
            return None

    def event(self, event: QEvent) -> bool:
        # Escape is also the window's "cancel the model call": while a move is being built click by
        # click, the board takes it first (to drop the move).
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and (self._path is not None or self._selected is not None)
        ):
            event.accept()
            return True
        # A key the game maps (Space dropping a piece) comes before the window's shortcut for the same
        # key (Space: run / pause) while a person is to act on this board.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and self._interactive
            and self._game is not None
            and not event.modifiers() & _CHORD
            and key_name(event) in self._game_keys
        ):
            event.accept()
            return True
        return super().event(event)

    # -- keys -----------------------------------------------------------------------------------

    @property
    def real_time(self) -> bool:
        """Whether the game shown ticks in real time (its instance has a ``tick_s``)."""
        return self._game is not None and getattr(self._game, "tick_s", None) is not None

    def set_turn_probe(self, probe: Callable[[], Any] | None) -> None:
        """Tell the board how to see a tick waiting for a person: ``probe()`` returns ``None`` or a
        ``(seat, player)`` pair whose ``player.waiting`` is the observation the person is asked to act
        on (:meth:`desktop.controller.SessionController.waiting_human`). Without a probe, a real-time
        game plays one action per press, as a turn-based game does."""
        self._turn_probe = probe

    @property
    def held_keys(self) -> tuple[str, ...]:
        """The mapped keys held down now, in the order they were pressed (real-time games)."""
        return tuple(sorted(self._held, key=self._held.__getitem__))

    @property
    def held_action(self) -> str | None:
        """The action the held keys play when the last of them is pressed (the longest chord held), or
        ``None``."""
        return chord_action(self._chords, self._held)

    @property
    def repeated_action(self) -> str | None:
        """The action the held keys play on every later tick: the longest chord held whose action is
        not once per press (``Game.once_per_press``), or ``None``."""
        return chord_action(self._repeating, self._held)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        name = key_name(event)
        if name == "escape" and (self._path is not None or self._selected is not None):
            # Escape drops a move being built click by click, or a cell picked for typing.
            event.accept()
            self._path = self._selected = None
            self._invalidate()
            return
        if self._selected is not None and self._interactive and not event.modifiers() & _CHORD:
            typed = event.text().strip()
            if typed and not event.isAutoRepeat():
                event.accept()
                action = f"{self._selected} {typed}"
                if action in self._legal:
                    self.sig_action_requested.emit(action)
                else:
                    self.nudge()
                    self.sig_action_refused.emit(action)
                return
        plain = self._game is not None and name is not None and not event.modifiers() & _CHORD
        if self.real_time:
            if not plain or name not in self._game_keys:
                event.ignore()  # not a game key: let the window use it
                return
            event.accept()
            self.sig_game_key.emit()  # a real-time game waiting for the person's first key starts
            if not event.isAutoRepeat():  # held keys already play every tick
                self._press(event.key(), name)
            return
        action = self._game.keymap.get(name) if plain and self._game is not None and name else None
        if action is None:
            # Not a game key: let the window use it (timeline scrubbing, shortcuts).
            event.ignore()
            return
        event.accept()
        # Turn-based games ignore auto-repeat so holding a key never plays several moves.
        if event.isAutoRepeat() or not self._interactive:
            return
        if action in self._legal:
            self.sig_action_requested.emit(action)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if not self.real_time or event.key() not in self._held_qt:
            super().keyReleaseEvent(event)
            return
        event.accept()
        if event.isAutoRepeat():  # some platforms send a release before each repeated press
            return
        name = self._held_qt.pop(event.key())
        if name not in self._held_qt.values():
            self._held.pop(name, None)
        self._update_held_timer()

    def _press(self, qt_key: int, name: str) -> None:
        """A mapped key went down in a real-time game: it is held, and the next tick plays it."""
        self._presses += 1
        self._held_qt[qt_key] = name
        self._held[name] = self._presses
        if not self._interactive:
            if self.waiting_for_first_key:
                self._fresh = self.held_action  # the key that starts the clock plays on its first tick
            self._update_held_timer()
            return
        self._fresh = self.held_action
        if self._turn_probe is None:
            # Nothing tells the board when a tick waits: one press, one action.
            fresh, self._fresh = self._fresh, None
            if fresh is not None and fresh in self._legal:
                self.sig_action_requested.emit(fresh)
            return
        self.play_held()
        self._update_held_timer()

    def play_held(self) -> str | None:
        """Play on the tick a person is asked to act on now, if no action went to it yet: the newest
        press, else the held keys' repeated action. Returns the action requested, or ``None``.

        Call it as a person starts waiting (the window calls it whenever the controller's controls
        change); while keys are held, a short timer calls it too."""
        if not self.real_time:
            return None
        waiting = self._turn_probe() if self._turn_probe is not None and self._interactive else None
        obs = getattr(waiting[1], "waiting", None) if waiting is not None else None
        if obs is None:
            self._update_held_timer()
            return None
        step = obs.step
        if self._fresh is not None:
            action, self._fresh = self._fresh, None
        elif step != self._served:
            action = self.repeated_action
        else:
            return None
        self._served = step
        self._update_held_timer()
        if action is None or action not in obs.legal_actions:
            return None
        self.sig_action_requested.emit(action)
        return action

    def _update_held_timer(self) -> None:
        """Look for ticks while something is to be played on them; rest otherwise."""
        wanted = (
            self.real_time
            and self._interactive
            and self._turn_probe is not None
            and (self.repeated_action is not None or self._fresh is not None)
        )
        if wanted and not self._held_timer.isActive():
            self._held_timer.start()
        elif not wanted and self._held_timer.isActive():
            self._held_timer.stop()

    def _release_all(self) -> None:
        """Forget the held keys (the board lost the keyboard, or the game changed)."""
        self._held_qt.clear()
        self._held.clear()
        self._fresh = None
        self._update_held_timer()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        if not self._interactive:
            return
        if event.button() == Qt.MouseButton.RightButton:
            # A right-click plays the one action that names a verb and the cell (Minesweeper's flag).
            item = self.action_at(event.position())
            secondary = self._secondary(item) if item is not None else None
            if secondary is not None:
                self._path = self._selected = None
                self.sig_action_requested.emit(secondary)
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        action = self.action_at(event.position())
        if action is not None and self._completions(action) and self._playable(action) is None:
            # The first word of a move typed next (a Sudoku cell): select it (again: unselect).
            self._path = None
            self._selected = None if self._selected == action else action
            self._invalidate()
            return
        if action is not None and self._path is not None and action != self._path.split(PATH_SEP)[-1]:
            extended = f"{self._path}{PATH_SEP}{action}"
            if self._playable(extended) is not None or self._continuations(extended):
                action = extended
        elif action is not None and self._path is not None:
            # The last cell again: the selection is dropped.
            self._path = None
            self._invalidate()
            return
        if action is not None and self._playable(action) is not None:
            self._path = None
            self.sig_action_requested.emit(self._playable(action))
        elif action is not None and self._continuations(action):
            # The first cells of a longer move: keep them and show where it can go on.
            self._path = action
            self._invalidate()
        elif action is not None:
            self._path = None
            # A cell that cannot be played now (taken, say): say so instead of ignoring the click.
            self.nudge()
            self.sig_action_refused.emit(action)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if not self._interactive:
            return
        action = self.action_at(event.position())
        if action is not None and self._path is not None:
            extended = f"{self._path}{PATH_SEP}{action}"
            action = extended if self._playable(extended) or self._continuations(extended) else action
        hover = action if action and (
            self._playable(action) or self._continuations(action) or self._completions(action)
        ) else None
        if hover != self._hover:
            self._hover = hover
            self.update()

    def leaveEvent(self, event: Any) -> None:  # noqa: N802
        if self._hover is not None:
            self._hover = None
            self.update()
        super().leaveEvent(event)
