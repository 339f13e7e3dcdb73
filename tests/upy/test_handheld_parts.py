"""The handheld's parts inside MicroPython: the commitment, secret rolls, the battery, the
view's timeouts and the screens."""

import time

import framebuf

from popdice_fw import buttons, commit, dice, screens
from popdice_fw.battery import Battery
from popdice_fw.buttons import Button
from popdice_fw.handheld_view import View
from popdice_fw.secret import Roller

# SHA-256 of b"e6614103e7123456|0badcafe-1|00112233445566778899aabbccddeeff|purple|4",
# computed with CPython's hashlib; tests/test_handheld.py checks the host against it too.
VECTOR = (
    ("e6614103e7123456", "0badcafe-1", "00112233445566778899aabbccddeeff", "purple", 4),
    "414441775a56ebefdabab6d19bb4b161e9965065ec2805937b8cdb90b3a326f4",
)


def paired_entropy():
    """Bytes 0, 0, 1, 1, ..., 255, 255: a roll takes one byte per die (both get rejected
    alike), so each die sees every byte value once."""
    data = bytes(i // 2 % 256 for i in range(1024))
    state = [0]

    def entropy(n):
        out = data[state[0] : state[0] + n]
        state[0] += n
        return out

    return entropy


# --- the commitment


def test_commitment_matches_the_vector_and_the_text_is_pipe_separated():
    fields, digest = VECTOR
    assert commit.commitment(*fields) == digest
    assert commit.committed_text(*fields) == b"e6614103e7123456|0badcafe-1|" + (
        b"00112233445566778899aabbccddeeff|purple|4"
    )


def test_commit_knows_the_same_colours_as_the_dice():
    assert commit.COLOURS == dice.COLOURS


# --- secret rolls


def test_rolls_have_session_ids_nonces_and_commitments_of_their_values():
    nonces = iter([bytes(range(16)), bytes(range(16, 32))])
    roller = Roller("e661", "cafe0001", entropy=lambda n: next(nonces))
    first = roller.roll()
    second = roller.roll()
    assert (first.roll_id, second.roll_id) == ("cafe0001-1", "cafe0001-2")
    assert first.nonce == "000102030405060708090a0b0c0d0e0f"
    for roll in (first, second):
        assert roll.colour in commit.COLOURS and 1 <= roll.number <= 6
        assert roll.commitment == commit.commitment(
            "e661", roll.roll_id, roll.nonce, roll.colour, roll.number
        )
    assert roller.current is second


def test_a_roll_before_the_reveal_replaces_the_last_one_and_says_so():
    roller = Roller("e661", "s")
    assert roller.roll().replaces is None
    assert roller.roll().replaces == "s-1"
    roller.reveal()
    assert roller.roll().replaces is None  # s-2 was revealed: nothing hidden is replaced


def test_public_carries_no_value_and_opened_carries_them_all():
    roll = Roller("e661", "s").roll()
    public = roll.public()
    assert sorted(public) == ["commitment", "replaces", "roll_id"]
    assert roll.nonce not in repr(public) and roll.colour not in repr(public)
    assert roll.opened() == {
        "roll_id": roll.roll_id,
        "nonce": roll.nonce,
        "colour": roll.colour,
        "number": roll.number,
    }


def test_both_dice_are_fair_rejection_sampled_from_the_entropy():
    roller = Roller("e661", "s", dice=dice.Dice(paired_entropy()))
    colours = {}
    numbers = [0] * 6
    for _ in range(252):  # each die: bytes 0..251 once, 252..255 rejected
        roll = roller.roll()
        colours[roll.colour] = colours.get(roll.colour, 0) + 1
        numbers[roll.number - 1] += 1
    assert sorted(colours) == sorted(commit.COLOURS)
    assert sorted(colours.values()) == [42] * 6 and numbers == [42] * 6
    assert roller.dice.bytes_rejected == 0
    roll = roller.roll()  # 252, 252, ..., 255, 255 are all thrown away; then 0, 0
    assert roller.dice.bytes_rejected == 8 and (roll.colour, roll.number) == ("red", 1)


def test_a_short_nonce_is_refused():
    roller = Roller("e661", "s", entropy=lambda n: b"\x01" * (n - 1))
    try:
        roller.roll()
    except OSError:
        pass
    else:
        raise AssertionError("rolled with a short nonce")


# --- battery


class FakeAdc:
    def __init__(self, volts):
        self.volts = volts

    def read_u16(self):
        raw = int(round(self.volts / 3 / 3.3 * 4095))  # VSYS/3, 12 bits, reported as 16
        return (raw << 4) | (raw >> 8)


def test_vsys_is_three_times_the_adc_voltage():
    for volts in (4.8, 3.7, 3.3):
        mv = Battery(FakeAdc(volts)).read_mv()
        assert abs(mv - volts * 1000) < 10, (volts, mv)


def test_the_low_flag_has_hysteresis():
    adc = FakeAdc(4.8)
    battery = Battery(adc)
    assert not battery.update() and not battery.low
    adc.volts = 3.45
    assert battery.update() and battery.low
    adc.volts = 3.55  # above the threshold, not yet above it plus the hysteresis
    assert not battery.update() and battery.low
    adc.volts = 3.65
    assert battery.update() and not battery.low


# --- buttons (as the handheld makes them: the defaults)


class FakePin:
    def __init__(self):
        self.level = 1  # pulled up: released

    def value(self):
        return self.level


def run_button(button, pin, script, start):
    """Plays (ms, level) steps, polling every 10 ms as the app does; returns (ms, edge)s."""
    edges = []
    now = 0
    for until, level in script:
        pin.level = level
        while now < until:
            edge = button.update(time.ticks_add(start, now))
            if edge:
                edges.append((now, edge, button.held_ms))
            now += 10
    return edges


def test_buttons_ignore_chatter_report_a_long_press_and_count_across_the_tick_wrap():
    pin = FakePin()
    button = Button("reveal", pin)
    start = time.ticks_add(0, -500)  # the tick counter wraps during the press
    closing = [(15, 0), (30, 1), (45, 0), (60, 1), (75, 0), (90, 1)]  # 15 ms contacts
    opening = [(t + 1110, 1 - level) for t, level in closing]
    script = closing + [(1110, 0)] + opening + [(1400, 1)]
    edges = run_button(button, pin, script, start)
    assert [edge for _, edge, _ in edges] == [buttons.PRESS, buttons.LONG, buttons.RELEASE]
    pressed_at, long_at, released_at = (at for at, _, _ in edges)
    assert 90 < pressed_at <= 130
    assert long_at - pressed_at >= 800 and edges[1][2] >= 800
    assert 1200 < released_at <= 1240 and edges[2][2] == released_at - pressed_at


# --- the view's timeouts


def test_peek_shows_until_release_or_timeout():
    start = time.ticks_add(0, -2000)  # the tick counter wraps in between
    view = View(start, peek_ms=1000, idle_ms=10_000)
    view.peek_pressed(start)
    assert view.peeking and view.ms_to_next(start) == 1000
    view.tick(time.ticks_add(start, 999))
    assert view.peeking
    view.tick(time.ticks_add(start, 1000))
    assert not view.peeking and view.awake
    view.peek_pressed(time.ticks_add(start, 1500))
    view.peek_released(time.ticks_add(start, 1600))
    assert not view.peeking


def test_display_sleeps_after_idle_and_wakes_on_activity():
    view = View(0, peek_ms=1000, idle_ms=3000)
    assert view.ms_to_next(0) == 3000
    view.tick(2999)
    assert view.awake
    view.tick(3000)
    assert not view.awake and view.ms_to_next(3000) is None
    view.activity(5000)
    assert view.awake and view.ms_to_next(5000) == 3000


def test_a_held_peek_keeps_the_display_awake_until_it_times_out():
    view = View(0, peek_ms=5000, idle_ms=1000)
    view.peek_pressed(0)
    view.tick(4000)
    assert view.awake and view.peeking
    view.tick(5000)
    assert view.awake and not view.peeking  # the dice are hidden; idle counts from here
    view.tick(6000)
    assert not view.awake


def test_hints_expire():
    view = View(0, hint_ms=1500, idle_ms=10_000)
    view.show_hint("ROLLED", 100)
    assert view.hint == "ROLLED" and view.ms_to_next(100) == 1500
    view.tick(1599)
    assert view.hint == "ROLLED"
    view.tick(1600)
    assert view.hint is None


# --- screens


def canvas():
    buf = bytearray(1024)
    return buf, framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)


def lit(fb, x, y):
    return fb.pixel(x, y) == 1


def test_every_peek_and_every_reveal_screen_is_different():
    buf, fb = canvas()
    peeks = set()
    reveals = set()
    for colour in commit.COLOURS:
        for number in range(1, 7):
            screens.peek(fb, colour, number, 4800, False)
            peeks.add(bytes(buf))
            screens.reveal(fb, colour, number)
            reveals.add(bytes(buf))
    assert len(peeks) == 36 and len(reveals) == 36


def test_home_draws_hidden_dice_and_the_battery_banner_only_when_low():
    buf, fb = canvas()
    screens.home(fb, True, "hold PEEK", 4800, False)
    hidden = bytes(buf)
    assert not all(lit(fb, x, 0) for x in range(128))
    screens.home(fb, True, "hold PEEK", 3400, True)
    for y in (0, screens.BANNER_ROWS - 1):
        assert all(lit(fb, x, y) for x in range(128)), y
    screens.home(fb, False, "hold PEEK", 4800, False)
    assert bytes(buf) != hidden  # "?" on the dice once a roll is held


def test_big_text_is_the_font_scaled_up():
    small, small_fb = canvas()
    big, big_fb = canvas()
    small_fb.text("R", 0, 0, 1)
    screens.big_text(big_fb, "R", 0, 0, 3)
    for y in range(24):
        for x in range(24):
            assert big_fb.pixel(x, y) == small_fb.pixel(x // 3, y // 3), (x, y)


def test_pips_follow_the_number():
    buf, fb = canvas()
    size = 60
    for number in range(1, 7):
        fb.fill(0)
        screens.number_die(fb, 0, 0, size, number)
        centres = [(15 * (c + 1), 15 * (r + 1)) for r in range(3) for c in range(3)]
        assert sum(1 for x, y in centres if lit(fb, x, y)) == number
