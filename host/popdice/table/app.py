"""The table's full-screen UI (Textual): dice, scores or boards, the log, a command line.

Everything the players do goes through ``TableSession``; this module only shows the state
and turns keys and typed commands into session calls. Popper and handheld events arrive on
worker threads (one per device) and are handed to the UI thread with ``call_from_thread``.
The log shows every line the session logs, so a reveal that follows a move is shown too; a
commitment that does not match is also shouted (a notification and the bell). Lowdown
shows every board (lowdown_view.py). Fits 80x24.
"""

from __future__ import annotations

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Input, RichLog, Static
from textual.worker import get_current_worker

from ..errors import DeviceDisconnected, PopdiceError
from ..link import Notice
from .commands import HELP, parse
from .dice_view import DiceView
from .lowdown_table import LowdownTable
from .lowdown_view import LowdownView
from .popalotsy_table import PopalotsyTable
from .referee import Refused
from .ringer_table import RingerTable
from .session import Outcome, TableSession

EVENT_POLL_S = 0.2


class TableApp(App[None]):
    """One game at the table; ``session`` holds the game, this shows it."""

    TITLE = "PopDice table"
    CSS = """
    #status { height: auto; max-height: 2; background: $boost; }
    #top { height: 8; }
    #dice { width: 38; padding: 0 1; }
    #scores { width: 1fr; }
    #log { height: 1fr; border: round $primary; }
    #command { height: 1; border: none; padding: 0 1; }
    #help { height: auto; max-height: 2; color: $text-muted; }
    """
    BINDINGS = [
        Binding("f2", "dome", "Press the dome", priority=True),
        Binding("f3", "hidden_roll", "Roll the hidden dice", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, session: TableSession, simulated: bool = False) -> None:
        super().__init__()
        self.session = session
        self.simulated = simulated
        self.shown = 0
        """How many of the session's log lines the log widget shows."""

    def compose(self) -> ComposeResult:
        referee = self.session.referee
        yield Static(id="status")
        if isinstance(referee, LowdownTable):
            yield LowdownView(referee, id="lowdown")
        else:
            with Horizontal(id="top"):
                yield DiceView(id="dice")
                yield Static(id="scores")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(placeholder="command (Enter)", id="command")
        yield Static(HELP.get(referee.game, ""), id="help", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.report(None)
        self.query_one("#command", Input).focus()
        if self.session.popper is not None:
            self.watch_popper()
        if self.session.handheld is not None:
            self.watch_handheld()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """F3 only where there is a handheld (hidden from the footer otherwise)."""
        if action == "hidden_roll":
            return self.session.handheld is not None
        return True

    # --- showing ------------------------------------------------------------------------

    def refresh_state(self) -> None:
        referee = self.session.referee
        where = " (simulated)" if self.simulated else ""
        self.query_one("#status", Static).update(
            f"{referee.game} · game {self.session.game_id}{where} · {referee.status()}"
        )
        if isinstance(referee, LowdownTable):
            self.query_one("#lowdown", LowdownView).show()
            return
        dice_view = self.query_one("#dice", DiceView)
        if isinstance(referee, RingerTable):
            dice_view.show([] if referee.die is None else [(None, referee.die)], "the die")
        elif isinstance(referee, PopalotsyTable):
            dice = [(die.color, die.number) for die in referee.dice]
            dice_view.show(dice, f"round {referee.round}")
        self.query_one("#scores", Static).update(self.scores_text())

    def scores_text(self) -> str:
        referee = self.session.referee
        winners = set(referee.winners())
        lines = []
        if isinstance(referee, RingerTable):
            lines.append(f"{'player':<12}{'ringers':>8}{'won':>5}{'score':>7}")
            for seat, name in enumerate(referee.players):
                mark = " *" if seat in winners else ""
                lines.append(
                    f"{name:<12}{referee.ringers[seat]:>8}{referee.won[seat]:>5}"
                    f"{referee.scores()[seat]:>7}{mark}"
                )
        elif isinstance(referee, PopalotsyTable):
            piles = f"deck {referee.deck} discard {referee.discard}"
            lines.append(f"{'player':<12}{'cards':>6}   {piles}")
            for seat, name in enumerate(referee.players):
                mark = " wins" if seat in winners else ""
                lines.append(f"{name:<12}{referee.hands[seat]:>6}{mark}")
        return "\n".join(lines)

    def report(self, outcome: Outcome | None) -> None:
        """Show the session's new log lines (``outcome``'s and any that followed it)."""
        del outcome  # its line is in the session's log, with the lines that came with it
        log = self.query_one("#log", RichLog)
        for line in self.session.log[self.shown :]:
            log.write(line)
            if "(commitment_mismatch)" in line:
                self.bell()
                self.notify(line, title="The hidden dice do not match", severity="error")
        self.shown = len(self.session.log)
        self.refresh_state()

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

    def action_dome(self) -> None:
        self.report(self.session.press_dome())

    def action_hidden_roll(self) -> None:
        self.report(self.session.roll_hidden())

    def take_notice(self, notice: Notice) -> None:
        self.report(self.session.take_notice(notice))

    def popper_lost(self, error: str) -> None:
        self.report(self.session.device_lost(f"popper lost: {error}"))

    def take_handheld_notice(self, notice: Notice) -> None:
        self.report(self.session.take_handheld_notice(notice))

    def handheld_failed(self, error: PopdiceError) -> None:
        self.report(self.session.handheld_failed(error))

    def handheld_lost(self, error: str) -> None:
        self.report(self.session.device_lost(f"handheld lost: {error}"))

    @work(thread=True, exclusive=True, group="popper")
    def watch_popper(self) -> None:
        """Hand every popper event to the UI thread until the app ends or the port goes."""
        popper = self.session.popper
        assert popper is not None
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                notice = popper.next_event(EVENT_POLL_S)
            except DeviceDisconnected as error:
                self.call_from_thread(self.popper_lost, str(error))
                return
            if notice is not None and not worker.is_cancelled:
                self.call_from_thread(self.take_notice, notice)

    @work(thread=True, exclusive=True, group="handheld")
    def watch_handheld(self) -> None:
        """Hand every handheld event to the UI thread until the app ends or the port goes; a
        reveal the handheld client cannot check is reported as refused."""
        handheld = self.session.handheld
        assert handheld is not None
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                notice = handheld.next_event(EVENT_POLL_S)
            except DeviceDisconnected as error:
                self.call_from_thread(self.handheld_lost, str(error))
                return
            except PopdiceError as error:
                if not worker.is_cancelled:
                    self.call_from_thread(self.handheld_failed, error)
                continue
            if notice is not None and not worker.is_cancelled:
                self.call_from_thread(self.take_handheld_notice, notice)
