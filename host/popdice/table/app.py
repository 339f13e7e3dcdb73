"""The table's full-screen UI (Textual): dice, scores or boards, the log, a command line.

Everything the players do goes through ``TableSession``; this module only shows the state
and turns keys and typed commands into session calls. Popper and handheld events arrive on
worker threads (one ``DeviceWatch`` per device, which also finds an unplugged device again
by its id) and are handed to the UI thread with ``call_from_thread``. With simulated
devices the keys act through ``Hands``: F2 is a press on the dome that the
firmware's own detector has to see, F3/F4 push the handheld's ROLL/REVEAL, F5 knocks.
The log shows every line the session logs, so a reveal that follows a move is shown too; a
commitment that does not match, and a journal that cannot be written, are also shouted (a
notification and the bell). Lowdown
shows every board (lowdown_view.py). Fits 80x24.

Every text is drawn as it is, never read as markup, and goes through ``names.literal``:
players' names (in the status line, the scores, the log, notifications) show as typed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from rich.cells import cell_len
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from ..devices.reattach import Back, DeviceWatch, Lost, WatchReport, port_of
from ..errors import PopdiceError
from ..games.lowdown.state import Cross
from . import lowdown_pick
from .commands import parse
from .devices import Hands
from .dice_view import DiceView
from .forms import Answers, Form, forms_of
from .help import HelpScreen
from .log_view import TableLog
from .lowdown_pick import Pick
from .lowdown_table import LowdownTable
from .lowdown_view import BoardView, LowdownView, pick_bar
from .names import literal
from .pointing import Chip, ChipSpec, PickBar
from .popalotsy_table import PopalotsyTable
from .referee import Refused
from .ringer_table import RingerTable
from .session import Outcome, TableSession

W = TypeVar("W", bound=Widget)

NAME_COLUMN = 12
"""The width of the scores' name column; a longer name pushes its line's numbers right."""


def padded(text: str, width: int) -> str:
    """``text`` and spaces to fill ``width`` columns of the screen (a wide character takes
    two)."""
    return text + " " * (width - cell_len(text))


class TableApp(App[None]):
    """One game at the table; ``session`` holds the game, this shows it."""

    TITLE = "PopDice table"
    CSS = """
    #status { height: 1; text-wrap: nowrap; text-overflow: ellipsis; background: $boost; }
    #top { height: 8; }
    #dice { width: 39; padding: 0 1; }
    #scores { width: 1fr; }
    #log { height: 1fr; min-height: 5; border-left: tall $primary; padding-left: 1; }
    #command { height: 1; border: none; padding: 0 1; }
    #help { height: auto; max-height: 2; color: $text-muted; }
    """
    BINDINGS = [
        Binding("f1", "help", "Help", priority=True),
        Binding("f2", "dome", "Dome", priority=True),
        Binding("f3", "hidden_roll", "ROLL", priority=True),
        Binding("f4", "reveal_button", "REVEAL", priority=True),
        Binding("f5", "knock", "Knock", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("escape", "let_go", show=False),
    ]

    def __init__(
        self,
        session: TableSession,
        simulated: bool = False,
        hands: Mapping[str, Hands] | None = None,
        avoid_ports: Collection[str] = (),
    ) -> None:
        super().__init__()
        self.session = session
        self.simulated = simulated
        self.hands = dict(hands or {})
        """The simulated devices' controls, by board: keys act through them."""
        self.shown = 0
        """How many of the session's log lines the log widget shows."""
        self.watches: dict[str, DeviceWatch] = {}
        self.avoid_ports = list(avoid_ports)
        """Ports a search for a lost device must never probe (other programs' devices)."""
        self.pick: Pick | None = None
        """Lowdown: who plays at the screen now by pointing, and what they chose so far."""
        self.form: tuple[str, Answers] | None = None
        """Ringer and Popalotsy: the move being told by pointing, and its answers so far."""
        self.counting = 0
        """The number shown while a form counts (the cards a Ringer won, a hand)."""

    def compose(self) -> ComposeResult:
        referee = self.session.referee
        yield Static(id="status", markup=False)
        if isinstance(referee, LowdownTable):
            yield LowdownView(referee, id="lowdown")
        else:
            with Horizontal(id="top"):
                yield DiceView(id="dice")
                yield Static(id="scores", markup=False)
        yield TableLog(id="log")
        yield Input(placeholder="command (Enter)", id="command")
        yield PickBar(id="pick")
        yield Footer()

    def on_mount(self) -> None:
        self.report(None)
        self.query_one("#command", Input).focus()
        for board, client in (("popper", self.session.popper), ("handheld", self.session.handheld)):
            if client is not None:
                self.watches[board] = DeviceWatch(
                    client,
                    lambda report, board=board: self.call_from_thread(
                        self.take_report, board, report
                    ),
                    exclude=self.held_ports,
                )
                self.run_watch(board)

    def on_unmount(self) -> None:
        for watch in self.watches.values():
            watch.stop()

    def held_ports(self) -> list[str]:
        """The ports this table has open: a search for a lost device must not probe them."""
        session = self.session
        clients = {"popper": session.popper, "handheld": session.handheld}
        ports = [port_of(c) for board, c in clients.items() if board not in session.missing]
        return [port for port in ports if port is not None] + self.avoid_ports

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys only where their device is (hidden from the footer otherwise)."""
        if action in ("hidden_roll", "reveal_button"):
            return self.session.handheld is not None and (
                action == "hidden_roll" or "handheld" in self.hands
            )
        if action == "knock":
            return "popper" in self.hands
        return True

    # --- showing ------------------------------------------------------------------------

    def shown_widget(self, selector: str, kind: type[W]) -> W | None:
        """The table screen's ``selector`` widget, whatever screen is on top; ``None`` once
        the app is tearing its screens down (a device's report can still arrive then)."""
        if not self.screen_stack:
            return None
        try:
            return self.screen_stack[0].query_one(selector, kind)
        except NoMatches:
            return None

    def refresh_state(self) -> None:
        status = self.shown_widget("#status", Static)
        if status is None:
            return
        referee = self.session.referee
        where = " (simulated)" if self.simulated else ""
        pressed = " · pressed: it pops when let go" if self.session.pressed else ""
        status.update(
            literal(
                f"{referee.game} · game {self.session.game_id}{where} · {referee.status()}{pressed}"
            )
        )
        if isinstance(referee, LowdownTable):
            self.show_lowdown(referee)
            return
        dice_view = self.shown_widget("#dice", DiceView)
        scores = self.shown_widget("#scores", Static)
        if dice_view is None or scores is None:
            return
        if isinstance(referee, RingerTable):
            dice_view.show([] if referee.die is None else [(None, referee.die)], "the die")
        elif isinstance(referee, PopalotsyTable):
            dice = [(die.color, die.number) for die in referee.dice]
            dice_view.show(dice, f"round {referee.round}")
        scores.update(self.scores_text())
        bar = self.shown_widget("#pick", PickBar)
        if bar is not None:
            bar.show(*self.form_bar())

    def current_form(self) -> tuple[Form, Answers] | None:
        """The form being answered, while it can still be played."""
        if self.form is None:
            return None
        key, answers = self.form
        found = next((f for f in forms_of(self.session.referee) if f.key == key), None)
        if found is None:
            self.form = None
            return None
        return found, answers

    def form_bar(self) -> tuple[str, list[ChipSpec], str]:
        """The bar for Ringer and Popalotsy: what can be told now, or the form's question."""
        referee = self.session.referee
        current = self.current_form()
        if current is None:
            chips = [ChipSpec(f"f:{f.key}", f.label, says=f.says) for f in forms_of(referee)]
            hint = "choose what happened (or type it: F1)" if chips else referee.status()
            return "", chips, hint
        form, answers = current
        ask = form.ask(answers)
        if ask is None:
            return form.label + ":", [], ""
        if ask.count is not None:
            chips = [
                ChipSpec("count:-", "-", says="one fewer"),
                ChipSpec("count:n", str(self.counting), chosen=True),
                ChipSpec("count:+", "+", says="one more"),
                ChipSpec("count:ok", "ok", says="that many"),
            ]
        else:
            chips = [ChipSpec(f"v:{i}", choice.label) for i, choice in enumerate(ask.choices)]
        chips.append(ChipSpec("back", "back", says="undo the last answer (Esc)"))
        told = form.summary(answers)
        return form.label + ":", chips, ask.prompt + (f" · {told}" if told else "")

    def show_lowdown(self, table: LowdownTable) -> None:
        """The boards, the pointing player's lit boxes, and the bar of their choices."""
        pick = self.pick
        if pick is not None and not lowdown_pick.ready(table):
            pick = self.pick = None
        lit = {} if pick is None else {pick.seat: lowdown_pick.boxes(table, pick)}
        view = self.shown_widget("#lowdown", LowdownView)
        bar = self.shown_widget("#pick", PickBar)
        if view is None or bar is None:
            return
        view.show(lit)
        bar.show(*pick_bar(table, pick))

    def scores_text(self) -> str:
        """The scores under a header, a line a player (their names as typed, see names.py)."""
        referee = self.session.referee
        winners = set(referee.winners())
        names = [padded(literal(name), NAME_COLUMN) for name in referee.players]
        lines = []
        if isinstance(referee, RingerTable):
            lines.append(f"{'player':<{NAME_COLUMN}}{'ringers':>8}{'won':>5}{'score':>7}")
            for seat, name in enumerate(names):
                mark = " *" if seat in winners else ""
                lines.append(
                    f"{name}{referee.ringers[seat]:>8}{referee.won[seat]:>5}"
                    f"{referee.scores()[seat]:>7}{mark}"
                )
        elif isinstance(referee, PopalotsyTable):
            piles = f"deck {referee.deck} discard {referee.discard}"
            lines.append(f"{'player':<{NAME_COLUMN}}{'cards':>6}   {piles}")
            for seat, name in enumerate(names):
                mark = " wins" if seat in winners else ""
                lines.append(f"{name}{referee.hands[seat]:>6}{mark}")
        return "\n".join(lines)

    def report(self, outcome: Outcome | None) -> None:
        """Show the session's new log lines (``outcome``'s and any that followed it)."""
        del outcome  # its line is in the session's log, with the lines that came with it
        log = self.shown_widget("#log", TableLog)
        if log is None:
            return
        for line in map(literal, self.session.log[self.shown :]):
            log.add(line)
            if "(commitment_mismatch)" in line:
                self.bell()
                self.shout(line, "The hidden dice do not match")
            elif "(journal_failed)" in line:
                self.bell()
                self.shout(line, "The journal cannot be written")
        self.shown = len(self.session.log)
        self.refresh_state()

    def shout(self, text: str, title: str = "", severity: SeverityLevel = "error") -> None:
        """A notification of ``text`` as it is (never markup: it may hold a player's name)."""
        self.notify(literal(text), title=title, severity=severity, markup=False)

    # --- acting -------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.clear()
        referee = self.session.referee
        try:
            command = parse(event.value, referee.game, referee.players)
        except Refused as refusal:
            self.report(self.session.refuse_command(event.value, refusal))
            return
        if command.reroll:
            self.report(self.session.reroll(int(command.move["seat"])))
        else:
            self.report(self.session.move(command.move))

    def on_board_view_pointed(self, message: BoardView.Pointed) -> None:
        """A player points at their board (steps up to the screen) or at a box of it."""
        table = self.session.referee
        if not isinstance(table, LowdownTable) or not lowdown_pick.ready(table):
            return
        if self.pick is None or self.pick.seat != message.seat:
            self.pick = Pick(message.seat)
        elif message.box is not None:
            if message.box in lowdown_pick.boxes(table, self.pick):
                move = lowdown_pick.box_move(table, self.pick, message.box)
                self.pick = Pick(message.seat)
                self.report(self.session.move(move))
                return
            name = literal(table.players[message.seat])
            lacking = lowdown_pick.needs(table, self.pick)
            self.shout(
                f"{name}: pick {lacking} first" if lacking else f"{name}: not that box",
                severity="warning",
            )
        self.refresh_state()

    def on_board_view_let_go(self, message: BoardView.LetGo) -> None:
        """Esc: the dice chosen are let go, then the board."""
        if self.pick is not None and self.pick != Pick(self.pick.seat):
            self.pick = Pick(self.pick.seat)
        else:
            self.pick = None
        self.refresh_state()

    def on_chip_chosen(self, message: Chip.Chosen) -> None:
        """A die, an action or a line to cross, chosen on the bar."""
        table, pick = self.session.referee, self.pick
        if not isinstance(table, LowdownTable):
            self.answer(message.key)
            return
        if pick is None:
            return
        kind, _, rest = message.key.partition(":")
        if kind == "n":
            self.pick = pick.toggled("number", int(rest))
        elif kind == "c":
            self.pick = pick.toggled("colour", int(rest))
        elif kind == "a" and rest in (lowdown_pick.WILD, lowdown_pick.BLACKOUT):
            mode = lowdown_pick.WRITE if pick.mode == rest else rest
            self.pick = Pick(pick.seat, pick.number, pick.colour, mode)
        elif kind == "a":
            self.pick = Pick(pick.seat)
            self.report(self.session.move(lowdown_pick.action_move(pick, rest)))
            return
        elif kind == "x":
            grid, _, line = rest.partition(":")
            self.pick = Pick(pick.seat)
            self.report(self.session.move(lowdown_pick.cross_move(pick, Cross(grid, line))))
            return
        self.refresh_state()

    def answer(self, key: str) -> None:
        """A chip of a Ringer or Popalotsy form: start it, answer its question, or go back."""
        kind, _, rest = key.partition(":")
        if kind == "f":
            self.form = (rest, {})
            self.ask_next()
            return
        current = self.current_form()
        if current is None:
            return
        form, answers = current
        ask = form.ask(answers)
        if kind == "back":
            if answers:
                answers.pop(list(answers)[-1])
                self.ask_next()
            else:
                self.form = None
                self.refresh_state()
            return
        if ask is None:
            return
        if kind == "v":
            answers[ask.name] = ask.choices[int(rest)].value
        elif kind == "count" and ask.count is not None:
            low, high, _ = ask.count
            if rest == "ok":
                answers[ask.name] = self.counting
            else:
                step = {"-": -1, "+": 1}.get(rest, 0)
                self.counting = max(low, min(high, self.counting + step))
                self.refresh_state()
                return
        self.ask_next()

    def ask_next(self) -> None:
        """Plays the form once complete; otherwise shows its next question."""
        current = self.current_form()
        if current is None:
            self.refresh_state()
            return
        form, answers = current
        ask = form.ask(answers)
        if ask is None:
            self.form = None
            move = form.move(answers)
            if form.reroll:
                self.report(self.session.reroll(int(move["seat"])))
            else:
                self.report(self.session.move(move))
            return
        if ask.count is not None:
            self.counting = ask.count[2]
        self.refresh_state()

    def action_let_go(self) -> None:
        """Esc: undo the last answer of a form, then let the form go."""
        if self.form is not None:
            self.answer("back")

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.session.referee.game))

    def action_dome(self) -> None:
        """The simulated dome is pressed (its pop comes as an event); a real popper pops by
        command, for a stuck dome."""
        if "popper" in self.hands:
            self.use_hands("popper", "press the dome", lambda hands: hands.press_dome())
        else:
            self.report(self.session.press_dome())

    def action_hidden_roll(self) -> None:
        if "handheld" in self.hands:
            self.use_hands("handheld", "ROLL", lambda hands: hands.click("roll"))
        else:
            self.report(self.session.roll_hidden())

    def action_reveal_button(self) -> None:
        self.use_hands("handheld", "REVEAL", lambda hands: hands.click("reveal", long=True))

    def action_knock(self) -> None:
        self.use_hands("popper", "knock the table", lambda hands: hands.knock_table())

    def use_hands(self, board: str, what: str, act: Callable[[Hands], Any]) -> None:
        hands = self.hands.get(board)
        if hands is None:
            return
        log = self.shown_widget("#log", TableLog)
        if log is not None:
            log.add(f"({what} on the simulated {board})")
        self.act_in_background(hands, act)

    @work(thread=True, group="hands")
    def act_in_background(self, hands: Hands, act: Callable[[Hands], Any]) -> None:
        try:
            act(hands)
        except PopdiceError as error:
            self.call_from_thread(self.shout, str(error))

    def take_report(self, board: str, report: WatchReport) -> None:
        """What a device's watch saw: an event for the game, or the device gone or back."""
        if isinstance(report, Lost):
            self.report(self.session.device_lost(board, report.reason))
            self.shout(f"the {board} is gone: plug it back in", severity="warning")
        elif isinstance(report, Back):
            self.report(self.session.device_back(board, report.client))
        elif board == "popper":
            self.report(self.session.take_notice(report))
        else:
            self.report(self.session.take_handheld_notice(report))

    @work(thread=True)
    def run_watch(self, board: str) -> None:
        """Follows ``board``'s events until the app ends; what the client finds wrong in an
        event (a reveal it cannot check) is reported as refused, and the watch goes on."""
        watch = self.watches[board]
        while not watch.stopped:
            try:
                watch.run()
            except PopdiceError as error:
                if not watch.stopped:
                    self.call_from_thread(self.device_failed, board, error)

    def device_failed(self, board: str, error: PopdiceError) -> None:
        """A device sent what does not check out (a reveal against its commitment, say)."""
        session = self.session
        failed = session.popper_failed if board == "popper" else session.handheld_failed
        self.report(failed(error))
