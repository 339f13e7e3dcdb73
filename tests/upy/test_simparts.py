"""The simulated board's parts and shims inside MicroPython, without a supervisor: the LIS3DH
and SSD1306 register models, pins, I2C, ADC and NeoPixel frames."""

import _simhw
import _simlink
import framebuf
from _simlis3dh import Lis3dh
from _simssd1306 import Ssd1306
from machine import ADC, I2C, PWM, Pin
from neopixel import NeoPixel

WHO_AM_I = 0x0F
CTRL_REG1 = 0x20
CTRL_REG3 = 0x22
CTRL_REG4 = 0x23
CTRL_REG6 = 0x25
STATUS_REG = 0x27
OUT_X_L = 0x28
AUTO_INCREMENT = 0x80
ODR_100HZ_XYZ = 0x57
PERIOD_100HZ_US = 10_000


class FakeClock:
    def __init__(self):
        self.now = 1000

    def __call__(self):
        return self.now


def make_accel(ctrl1=ODR_100HZ_XYZ, ctrl4=0x00, int1=True, fast_feed=False):
    clock = FakeClock()
    levels = []
    done = []
    part = Lis3dh(clock, on_int1=levels.append, on_chunk_done=done.append, fast_feed=fast_feed)
    part.i2c_write(bytes([CTRL_REG3, 0x10 if int1 else 0]))
    part.i2c_write(bytes([CTRL_REG4, ctrl4]))
    part.i2c_write(bytes([CTRL_REG1, ctrl1]))
    return part, clock, levels, done


def read_reg(part, reg, n=1):
    part.i2c_write(bytes([reg]))
    return part.i2c_read(n)


def read_xyz(part):
    data = read_reg(part, OUT_X_L | AUTO_INCREMENT, 6)
    out = []
    for axis in range(3):
        raw = data[2 * axis] | (data[2 * axis + 1] << 8)
        out.append(raw - 0x10000 if raw & 0x8000 else raw)
    return out


def next_sample(part, clock):
    clock.now += PERIOD_100HZ_US
    assert part.tick()
    return read_xyz(part)


# --- LIS3DH


def test_lis3dh_identifies_itself_and_has_datasheet_defaults():
    part = Lis3dh(FakeClock())
    assert read_reg(part, WHO_AM_I)[0] == 0x33
    assert read_reg(part, CTRL_REG1)[0] == 0x07
    assert read_reg(part, 0x30)[0] == 0
    assert part.odr_hz() == 0 and part.us_until_due() is None


def test_lis3dh_registers_read_back_and_status_is_read_only():
    part = Lis3dh(FakeClock())
    part.i2c_write(bytes([0x30, 0x95]))
    part.i2c_write(bytes([WHO_AM_I, 0x00]))
    part.i2c_write(bytes([STATUS_REG, 0xFF]))
    assert read_reg(part, 0x30)[0] == 0x95
    assert read_reg(part, WHO_AM_I)[0] == 0x33
    assert read_reg(part, STATUS_REG)[0] == 0


def test_lis3dh_auto_increments_only_with_bit_7():
    part = Lis3dh(FakeClock())
    part.i2c_write(bytes([CTRL_REG1 | AUTO_INCREMENT, 0x77, 0x00, 0x10, 0x88]))
    assert bytes(read_reg(part, CTRL_REG1 | AUTO_INCREMENT, 4)) == b"\x77\x00\x10\x88"
    assert bytes(read_reg(part, CTRL_REG1, 3)) == b"\x77\x77\x77"
    part.i2c_write(bytes([0x30, 1, 2]))  # no auto-increment: both bytes go to 0x30
    assert bytes(read_reg(part, 0x30 | AUTO_INCREMENT, 2)) == b"\x02\x00"


def test_lis3dh_configuration_follows_the_registers():
    part = Lis3dh(FakeClock())
    part.i2c_write(bytes([CTRL_REG1, 0x77]))
    part.i2c_write(bytes([CTRL_REG4, 0x28]))
    assert (part.odr_hz(), part.full_scale_g(), part.resolution_bits()) == (400, 8, 12)
    part.i2c_write(bytes([CTRL_REG1, 0x8F]))
    assert (part.odr_hz(), part.resolution_bits()) == (1600, 8)
    part.i2c_write(bytes([CTRL_REG1, 0x17]))
    part.i2c_write(bytes([CTRL_REG4, 0x00]))
    assert (part.odr_hz(), part.full_scale_g(), part.resolution_bits()) == (1, 2, 10)


def test_lis3dh_scales_one_g_in_every_range_and_mode():
    # (CTRL_REG1 low-power bit, CTRL_REG4 HR bit, bits, mg/digit per range)
    modes = [
        (0x00, 0x08, 12, (1, 2, 4, 12)),
        (0x00, 0x00, 10, (4, 8, 16, 48)),
        (0x08, 0x00, 8, (16, 32, 64, 192)),
    ]
    for lpen, hr, bits, sensitivities in modes:
        for fs in range(4):
            part, clock, _, _ = make_accel(ODR_100HZ_XYZ | lpen, (fs << 4) | hr)
            part.feed([0.5, -1.0, 1.0])
            x, y, z = next_sample(part, clock)
            shift = 16 - bits
            assert x & ((1 << shift) - 1) == 0, "left-justified"
            mg = sensitivities[fs]
            assert z >> shift == round(1000 / mg), (bits, fs, z)
            assert y >> shift == -round(1000 / mg), (bits, fs, y)
            assert x >> shift == round(500 / mg), (bits, fs, x)


def test_lis3dh_clips_at_full_scale():
    part, clock, _, _ = make_accel(ctrl4=0x08)  # +-2 g, high resolution
    part.feed([5.0, -5.0, 1.999])
    x, y, z = next_sample(part, clock)
    assert (x >> 4, y >> 4, z >> 4) == (2000, -2000, 1999)
    part, clock, _, _ = make_accel(ctrl4=0x30)  # +-16 g, normal: 48 mg/digit
    part.feed([20.0, -20.0, 0.0])
    x, y, z = next_sample(part, clock)
    assert (x >> 6, y >> 6, z >> 6) == (333, -333, 0)


def test_lis3dh_disabled_axes_read_zero():
    part, clock, _, _ = make_accel(ctrl1=0x54, ctrl4=0x08)  # Z only
    part.feed([1.0, 1.0, 1.0])
    x, y, z = next_sample(part, clock)
    assert (x, y, z >> 4) == (0, 0, 1000)


def test_lis3dh_paces_in_lockstep_with_its_reader():
    part, clock, levels, _ = make_accel(ctrl4=0x08)
    assert part.us_until_due() == PERIOD_100HZ_US
    clock.now += PERIOD_100HZ_US - 1
    assert not part.tick()
    clock.now += 1
    assert part.tick()
    assert levels == [1] and part.int1() == 1
    assert read_reg(part, STATUS_REG)[0] == 0x0F
    clock.now += 10 * PERIOD_100HZ_US
    assert not part.tick(), "no new sample before the last one is read"
    assert part.us_until_due() is None
    read_reg(part, OUT_X_L | AUTO_INCREMENT, 4)  # X and Y only: not read yet
    assert part.int1() == 1
    read_reg(part, 0x2D)
    assert levels == [1, 0] and part.stats()["consumed"] == 1
    assert part.us_until_due() == 0, "a late read makes the next sample due at once"
    assert read_reg(part, STATUS_REG)[0] == 0x0F, "produced on the next access"
    assert levels == [1, 0, 1] and part.stats()["produced"] == 2
    assert part.stats()["overruns"] == 1


def test_lis3dh_keeps_the_odr_clock_when_read_in_time():
    part, clock, _, _ = make_accel(ctrl4=0x08)
    clock.now += PERIOD_100HZ_US + 700  # the scheduler woke up late, within a period
    assert part.tick()
    read_xyz(part)
    assert part.us_until_due() == PERIOD_100HZ_US - 700
    assert part.stats()["overruns"] == 0


def test_lis3dh_int1_needs_routing_and_follows_polarity():
    part, clock, levels, _ = make_accel(int1=False)
    next_sample(part, clock)
    assert levels == []
    part.i2c_write(bytes([CTRL_REG6, 0x02]))  # active low: idle level is 1
    assert levels == [1]
    part.i2c_write(bytes([CTRL_REG3, 0x10]))
    clock.now += PERIOD_100HZ_US
    part.tick()
    assert levels == [1, 0]


def test_lis3dh_power_down_stops_samples():
    part, clock, _, _ = make_accel(ctrl1=0x07)
    clock.now += 1_000_000
    assert not part.tick() and part.us_until_due() is None


def test_lis3dh_plays_fed_samples_then_rests():
    part, clock, _, done = make_accel(ctrl4=0x08)
    part.set_rest(0, 1, 0)
    part.feed([0.25, 0, 0, 0.5, 0, 0], "a")
    part.feed([0.75, 0, 0], "b")
    assert part.queued() == 3
    xs = [next_sample(part, clock)[0] >> 4 for _ in range(3)]
    assert xs == [250, 500, 750]
    assert done == ["a", "b"]
    assert next_sample(part, clock) == [0, 1000 << 4, 0]
    assert part.stats()["rest"] == [0.0, 1.0, 0.0]


def test_lis3dh_waits_for_the_rest_of_a_feed():
    part, clock, _, done = make_accel(ctrl4=0x08)
    part.feed([0.5, 0, 0], None, True)
    assert next_sample(part, clock)[0] >> 4 == 500
    clock.now += 5 * PERIOD_100HZ_US
    assert part.us_until_due() is None and not part.tick()
    part.feed([0.25, 0, 0], "end")
    assert part.tick()
    assert read_xyz(part)[0] >> 4 == 250
    assert done == ["end"]


def test_lis3dh_fast_feed_hands_over_fed_samples_four_times_as_fast_and_rests_at_the_odr():
    part, clock, _, done = make_accel(ctrl4=0x08, fast_feed=True)
    part.feed([0.25, 0, 0, 0.5, 0, 0], "fed")
    xs = []
    for _ in range(2):
        assert part.us_until_due() == PERIOD_100HZ_US // 4 and not part.tick()
        clock.now += PERIOD_100HZ_US // 4
        assert part.us_until_due() == 0 and part.tick()
        xs.append(read_xyz(part)[0] >> 4)
    assert xs == [250, 500] and done == ["fed"]
    assert part.us_until_due() == PERIOD_100HZ_US and not part.tick(), "rest keeps the ODR"
    assert next_sample(part, clock) == [0, 0, 1000 << 4]
    assert part.stats()["overruns"] == 0


# --- SSD1306


def ssd_command(part, *command):
    for byte in command:
        part.i2c_write(bytes([0x80, byte]))


def test_ssd1306_init_sequence_and_full_frame():
    changes = []
    part = Ssd1306(on_change=changes.append)
    init = [0xAE, 0x20, 0x00, 0x40, 0xA1, 0xA8, 63, 0xC8, 0xD3, 0x00, 0xDA, 0x12, 0xD5, 0x80]
    init += [0xD9, 0xF1, 0xDB, 0x30, 0x81, 0xFF, 0xA4, 0xA6, 0x8D, 0x14, 0xAF]
    ssd_command(part, *init)
    assert part.on and part.contrast == 0xFF and part.mode == 0
    assert part.segment_remap and part.com_reverse
    assert part.settings[0x8D] == b"\x14" and part.settings[0xA8] == bytes([63])
    changes.clear()
    ssd_command(part, 0x21, 0, 127, 0x22, 0, 7)
    frame = bytes(i & 0xFF for i in range(1024))
    part.i2c_write(b"\x40" + frame)
    assert bytes(part.buffer) == frame
    assert len(changes) == 1, "one report per write transaction"
    part.i2c_write(b"\x40" + frame[:16])  # wrapped back to the start: same bytes
    assert len(changes) == 1, "no report when nothing changed"


def test_ssd1306_window_wraps_in_horizontal_mode():
    part = Ssd1306()
    part.i2c_write(bytes([0x00, 0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3]))
    part.i2c_write(b"\x40" + bytes([1, 2, 3, 4, 5]))
    assert part.buffer[2 * 128 + 10] == 5
    assert part.buffer[2 * 128 + 11] == 2
    assert part.buffer[3 * 128 + 10] == 3
    assert part.buffer[3 * 128 + 11] == 4


def test_ssd1306_vertical_and_page_modes():
    part = Ssd1306()
    part.i2c_write(bytes([0x00, 0x20, 0x01, 0x21, 0, 1, 0x22, 6, 7]))
    part.i2c_write(b"\x40" + bytes([1, 2, 3]))
    assert (part.buffer[6 * 128], part.buffer[7 * 128], part.buffer[6 * 128 + 1]) == (1, 2, 3)
    part.i2c_write(bytes([0x00, 0x20, 0x02, 0xB5, 0x03, 0x17]))  # page 5, column 0x73
    part.i2c_write(b"\x40\x09\x08")
    assert part.buffer[5 * 128 + 0x73] == 9 and part.buffer[5 * 128 + 0x74] == 8


def test_ssd1306_single_byte_controls_and_arguments_across_transactions():
    part = Ssd1306()
    part.i2c_write(b"\x80\x81")
    assert part.contrast == 0x7F
    part.i2c_write(b"\x80\x22")
    part.i2c_write(b"\x80\xa7\xc0\x55")  # Co set: one command, then one data byte
    assert part.contrast == 0x22 and part.invert
    assert part.buffer[0] == 0x55
    assert part.state()["invert"] and not part.state()["on"]
    assert part.i2c_read(1) == b"\x40"


def test_ssd1306_buffer_matches_framebuf_mono_vlsb():
    canvas = bytearray(1024)
    fb = framebuf.FrameBuffer(canvas, 128, 64, framebuf.MONO_VLSB)
    fb.pixel(3, 9, 1)
    fb.fill_rect(120, 60, 8, 4, 1)
    part = Ssd1306()
    part.i2c_write(bytes([0x00, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7]))
    part.i2c_write(b"\x40" + canvas)
    assert part.buffer[1 * 128 + 3] == 1 << 1
    assert part.buffer[7 * 128 + 127] == 0xF0


# --- the shims on a bare board (no supervisor)


def test_i2c_reaches_the_parts_wired_to_its_pins():
    accel = Lis3dh(FakeClock())
    display = Ssd1306()
    _simhw.attach(10, 11, accel)
    _simhw.attach(10, 11, display)
    bus = I2C(1, sda=Pin(10), scl=Pin(11), freq=400_000)
    assert bus.scan() == [0x18, 0x3C]
    assert bus.readfrom_mem(0x18, WHO_AM_I, 1) == b"\x33"
    bus.writeto_mem(0x18, CTRL_REG1, b"\x77")
    buf = bytearray(1)
    bus.readfrom_mem_into(0x18, CTRL_REG1, buf)
    assert buf[0] == 0x77
    bus.writeto(0x18, bytes([WHO_AM_I]))
    assert bus.readfrom(0x18, 1) == b"\x33"
    bus.writevto(0x3C, [b"\x00", bytes([0xAF])])
    assert display.on
    try:
        bus.readfrom_mem(0x19, WHO_AM_I, 1)
        raise AssertionError("absent part answered")
    except OSError as error:
        assert error.errno == 5
    assert I2C(1).scan() == [], "I2C1 defaults to GP6/GP7: nothing there"


def test_pins_pulls_buttons_and_irqs():
    button = Pin(20, Pin.IN, Pin.PULL_UP)
    assert button.value() == 1 and button() == 1
    edges = []
    button.irq(handler=lambda pin: edges.append(pin.value()), trigger=Pin.IRQ_FALLING)
    _simhw.drive(20, 0)
    assert button.value() == 0 and edges == [0]
    _simhw.drive(20, None)
    assert button.value() == 1 and edges == [0], "falling edges only"
    assert Pin(21, Pin.IN, Pin.PULL_DOWN).value() == 0
    led = Pin("GP22", Pin.OUT, value=1)
    assert led.value() == 1
    led.toggle()
    assert led() == 0


def test_adc_reads_vsys_through_the_divider():
    _simhw.vsys_volts = 3.3 * 3
    assert ADC(Pin(29)).read_u16() == 0xFFFF
    _simhw.vsys_volts = 3.3 * 1.5
    assert abs((ADC(3).read_u16() >> 4) - 2048) <= 1
    assert ADC(ADC.CORE_TEMP).read_u16() > 0


def capture_reports():
    sent = []
    _simlink.sink = lambda message, blob: sent.append((message, blob))
    return sent


def test_neopixel_frames_are_reported_in_rgb():
    sent = capture_reports()
    try:
        strip = NeoPixel(Pin(2, Pin.OUT), 3)
        strip[0] = (255, 0, 0)
        strip[2] = (1, 2, 3)
        assert strip[2] == (1, 2, 3) and len(strip) == 3
        assert bytes(strip.buf[6:9]) == b"\x02\x01\x03", "GRB on the wire"
        assert sent == []
        strip.write()
        strip.fill((9, 8, 7))
        strip.write()
    finally:
        _simlink.sink = None
    assert [m["t"] for m, _ in sent] == ["leds", "leds"]
    assert sent[0][0]["pin"] == 2 and sent[0][0]["bpp"] == 3
    assert bytes(sent[0][1]) == b"\xff\x00\x00\x00\x00\x00\x01\x02\x03"
    assert bytes(sent[1][1]) == b"\x09\x08\x07" * 3


def test_pwm_changes_are_reported():
    sent = capture_reports()
    try:
        buzzer = PWM(Pin(15), freq=2000)
        buzzer.duty_u16(32768)
        buzzer.deinit()
    finally:
        _simlink.sink = None
    last = sent[-1][0]
    assert (last["pin"], last["freq"], last["duty_u16"], last["on"]) == (15, 2000, 32768, False)
    assert sent[-2][0]["on"]
