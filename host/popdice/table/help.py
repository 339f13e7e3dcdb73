"""The table's help screen (F1): the keys, every command of the game with an example, and
how the devices take part. Esc, F1 or q closes it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = """\
Keys
  F1        this help                  Ctrl+Q  quit (the game is saved as it goes:
  F2        press the dome                     popdice table --resume goes on with it)
  F3        ROLL on the handheld       F4      REVEAL on the handheld
  F5        knock the table (simulated popper: a knock must not pop)
  Enter     play the command typed below; a refused one says why
  Players are named by any unique start of their name, or by seat number from 1."""

DEVICES = """\
Devices
  With simulated devices F2 feeds a press to the popper's accelerometer and its own
  detector pops the dice; F3 and F4 push the handheld's buttons. With real boards F2
  pops by command (for a stuck dome) and F3 rolls by command; F4 and F5 need the
  real buttons and the real table. An unplugged device is found again by its id when
  it comes back, on any port; meanwhile typed moves still work."""

GAMES = {
    "ringer": """\
Ringer: the popper is the die
  Press the dome for the first roll. When a card scores a Ringer, record it and who
  won how many cards; the die is rolled again.
  ringer PLAYER CARDS       ringer ann 6        Ann's Ringer won 6 cards
  reroll PLAYER             reroll bob          Bob's Reroll power: the popper re-rolls
  rule CARD on CARD         rule pink4 on pink3 is that play legal? (a ruling, no move)
                            cards: pink4, blue-reroll, blue5/take_over
  end N N ...               end 3 0 5           the cards left in each hand: game over""",
    "popalotsy": """\
Popalotsy: each round's pop, then the check
  Press the dome for the round's pop. At the check, enter each die's pile, bottom card
  first, with who played it, then check; the table rules on every pile.
  pile DIE CARD:PLAYER ...  pile 1 red4:ann red5:bob   die 1's pile
  check [FIRST-OUT ...]     check cy            Cy went out first""",
    "lowdown": """\
Lowdown: played on the laptop
  Each turn: press the dome for the active player's open dice (2 numbers, 2 colours);
  the player on the active player's right holds the handheld and presses ROLL for the
  hidden pair (only its commitment reaches the laptop). The active player writes with
  their own dice or types reveal and must then use the hidden pair; the table asks the
  handheld for the hidden pair when the others need it and checks it against its
  commitment. Then everyone else writes, crosses out what they like and says done.
  write PLAYER NUMBER COLOUR BOX   write ann 4 red ro 1 3
  wild PLAYER NUMBER BOX [COLOUR]  wild bob 4 gy 2 2     (active: name a colour to drop)
  blackout PLAYER BOX              blackout cy pb 3 3    (+6: no move and no wild left)
  cross PLAYER GRID LINE           cross ann ro r1       (lines r1-r3, c1-c3, d1, d2)
  skip PLAYER · done PLAYER · reveal
  A BOX is GRID ROW COL: ro, pb or gy, then row and column from 1.""",
}


def help_text(game: str) -> str:
    return "\n\n".join(part for part in (GAMES.get(game, ""), KEYS, DEVICES) if part)


class HelpScreen(ModalScreen[None]):
    """The whole help for ``game``, over the table."""

    CSS = """
    HelpScreen { align: center middle; }
    #help-text { width: 88; max-width: 100%; height: auto; max-height: 100%;
                 border: round $primary; background: $panel; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,f1,q", "close", "Close help"),
    ]

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-text"):
            yield Static(help_text(self.game), markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
