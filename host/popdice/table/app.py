"""The table's full-screen UI (Textual): dice, scores, the log, and a command line.

Everything the players do goes through ``TableSession``; this module only shows the state
and turns keys and typed commands into session calls. Popper events arrive on a worker
thread and are handed to the UI thread with ``call_from_thread``. Fits 80x24.
"""

from __future__ import annotations

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Input, RichLog, Static
from textual.worker import get_current_worker

from ..errors import DeviceDisconnected
from ..link import Notice
from .commands import HELP, parse
from .dice_view import DiceView
from .popalotsy_table import PopalotsyTable
from .referee import Refused
from .ringer_table import RingerTable
from .session import Outcome, TableSession

EVENT_POLL_S = 0.2


class TableApp(App[None]):
    """One game at the table; ``session`` holds the game, this shows it."""

    TITLE = "PopDice table"
    CSS = """
    #status { height: 1; background: $boost; }
    #top { height: 8; }
    #dice { width: 38; padding: 0 1; }
    #scores { width: 1fr; }
    #log { height: 1fr; border: round $primary; }
    #command { height: 1; border: none; padding: 0 1; }
    #help { height: 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("f2", "dome", "Press the dome", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, session: TableSession, simulated: bool = False) -> None:
        super().__init__()
        self.session = session
        self.simulated = simulated

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="top"):
            yield DiceView(id="dice")
            yield Static(id="scores")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(placeholder="command (Enter)", id="command")
        yield Static(HELP.get(self.session.referee.game, ""), id="help")
        yield Footer()

    def on_mount(self) -> None:
        log = self.query_one("#log", RichLog)
        for line in self.session.log:
            log.write(line)
        self.refresh_state()
        self.query_one("#command", Input).focus()
        if self.session.popper is not None:
            self.watch_popper()

    # --- showing ------------------------------------------------------------------------

    def refresh_state(self) -> None:
        referee = self.session.referee
        where = " (simulated popper)" if self.simulated else ""
        self.query_one("#status", Static).update(
            f"{referee.game} · game {self.session.game_id}{where} · {referee.status()}"
        )
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
        if outcome is None:
            return
        self.query_one("#log", RichLog).write(outcome.text)
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

    def take_notice(self, notice: Notice) -> None:
        self.report(self.session.take_notice(notice))

    def popper_lost(self, error: str) -> None:
        self.report(self.session.device_lost(f"popper lost: {error}"))

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
