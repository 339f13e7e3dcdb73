"""Press detection on the popper: one accelerometer sample in (x, y, z, integer milli-g, 400 Hz),
True out on the one sample where a press of the dome is recognised.

A press drives the unit down into its rubber feet: through the LIS3DH's own low-pass filter
it reads as a dip along the unit's up axis that falls in two or three samples, with little
sideways. A knock arrives through the table: it falls slower, rings on and rocks the unit
sideways; a landing pushes the reading up first. The detector works along the measured up
axis (gravity), so it does not care how the sensor is mounted:

- gravity is a slow average of the samples (each sample's pull on it is capped, and a
  candidate and a press are left out, so a blow barely moves it); a sample minus gravity is
  the motion, split into ``along`` up and sideways;
- a candidate starts when ``along`` falls by much more over two samples than falls did just
  before (the background: buzzing, a table still ringing); the dip is measured from the
  value before the fall, so a press on a table that still rings counts too;
- the unit is moving when its motion, low-passed (40 ms, twice) after capping each sample's
  part in it, stays large for 50 ms: a hand sways and lifts it, a ringing table does not
  move it on average.

States: SETTLING (moved lately: nothing counts until the unit has been still for 250 ms),
ARMED (resting, watching), CANDIDATE (a fall: until its bottom, at most four samples),
REFRACTORY (just pressed: the press's own ringing). A candidate is a press when it bottoms
out within the window, from a flat start (flat but for the background: a table still ringing
from a knock moves every sample a little) to well below gravity, deep enough, at least twice
the background, and mostly along up; a fall over three samples must be deeper and cleaner,
one over four is no press. A press on a ringing table is told from the ringing by its
depth against the background and by how little of it is sideways (a knock rocks the unit).
A press drives the unit along one direction, so its fall keeps its direction; a knock's table
modes ring at their own frequencies in their own directions, so the direction of its fall
turns, even when their sideways parts happen to cancel. On a table that rings (the
background at least ``_RINGING_MG``) a fall is measured against the ringing's own
continuation, not a flat start: the ringing along up is fitted, over the last 16 samples
(running sums, least squares), as a damped swing x[n] = c1 x[n-1] + c2 x[n-2]; if the fit is
a swing and explains 15/16 of it, it is carried on from the two samples before the fall,
along up and on each axis with the same coefficients, and the energies, the turn and how far
below it went are measured from that (a swing up no longer hides a press, nor a swing's
sideways part spoils it). While the table rings the fit is also solved every
``_SOLVE_SAMPLES`` and kept, with its residual (RMS, at least 1/8 of the background): a fall
two samples below its prediction, five times that residual, starts a candidate too (a weak
press in a swing whose own falls are larger than half the press); such a candidate is measured
from the prediction (its depth how far below it went, 8 residuals, 16 over three samples) and
must keep its direction five times better. If a raw fall comes while it lasts, the candidate
starts again from there, so every candidate the raw trigger starts is judged as before. The
flat start is judged against the background from before the run-up (``_LEAD_DELAY``): a fresh
knock's first lobe up raises the background as it comes, a table ringing for a while raised it
long before.
After a press the dome's release snaps too (at most 30 % of the press, at most 1.5 s on): until
a weaker blow (the release) has been seen, or for at most ``_GUARD_SAMPLES``, a press must
reach 6/16 of the last one's depth.

Integer arithmetic only, and nothing allocated per sample: every value stays a small int on
a Pico (under 2**30; the largest, a sum of squares times a divisor, under 2**30 by the clamps
on each term), and ``samples`` counts modulo 2**30.
"""

from micropython import const

# --- every threshold and time constant (mg, samples at 400 Hz)
_ONE_G_MG = const(1000)
_GRAVITY_SHIFT = const(6)  # gravity follows over 64 samples (160 ms)
_GRAVITY_PULL_MG = const(256)  # one sample moves gravity by at most 256 >> 6 = 4 mg
_CATCH_UP_SHIFT = const(3)  # while settling gravity follows 8 times faster (20 ms)
_STILL_SHIFT = const(4)  # the stillness filter: two poles of 16 samples (40 ms)
_STILL_CAP_MG = const(16)  # a sample's part in the stillness filter, at most
_MOVING_MG = const(16)  # stillness filter above this...
_MOVING_SAMPLES = const(20)  # ...for 50 ms: moving (in a hand)
_SETTLE_SAMPLES = const(100)  # 250 ms still before presses count again
_BACKGROUND_SHIFT = const(5)  # the background of falls decays by 1/32 a sample (80 ms)
_FALL_MG = const(120)  # a fall over two samples this deep starts a candidate...
_ABOVE_BACKGROUND_X4 = const(8)  # ...if it is twice the background (in quarters)
_CLEAR_X4 = const(8)  # a press is twice the background (a table still ringing from a knock)
_DEPTH_MG = const(150)  # a press dips at least this far below where it started...
_FLAT_DIVISOR = const(16)  # ...from a flat start: the sample before moved under 1/16 of that
_LEAD_BACKGROUND_X8 = const(5)  # ...besides 5/8 of the background (the ringing moves it too)
_BELOW_X8 = const(6)  # ...and to at least 6/8 of it below gravity (not the far side of a swing)
_SIDEWAYS_DIVISOR = const(8)  # sideways energy at most 1/8 of the energy along up
_TURN_DIVISOR = const(80)  # energy off the fall's one direction at most 1/80 (a knock's turns)
_LEAD_DELAY = const(4)  # the lead is judged against the background of 4 samples before (a
# knock's first lobe up is no background)
_QUICK_FALL = const(2)  # a fall over at most 2 samples is a quick one; over 3...
_SLOW_FALL = const(3)  # ...it must be at least _SLOW_DEPTH_MG deep, with sideways energy
_SLOW_DEPTH_MG = const(300)  # at most 1/_SLOW_SIDEWAYS_DIVISOR; over 4 it is no press
_SLOW_SIDEWAYS_DIVISOR = const(12)
_STEP_DIVISOR = const(4)  # a step counts in the fall if it is over 1/4 of the depth
_WINDOW = const(4)  # the dip bottoms out within 4 samples of the trigger...
_BOTTOM_DIVISOR = const(8)  # ...or falls by under 1/8 of its depth in the last one
_REFRACTORY_SAMPLES = const(30)  # 75 ms after a press nothing counts
_GUARD_SAMPLES = const(620)  # for up to 1.55 s (the longest hold, a 2 % slow clock) a press
_GUARD_X16 = const(6)  # needs 6/16 of the last one's depth (its release is at most 30 %)
_RELEASE_FALL_MG = const(48)  # meanwhile a fall this deep is looked at: it may be the release
_ENERGY_SHIFT = const(3)  # energies in 8 mg units: every product stays a small int
_CLIP_MG = const(16000)  # motion terms are clamped to this before they are squared
_SAMPLES_MASK = const(0x3FFFFFFF)
_RINGING_MG = const(64)  # a background this large is a table ringing: predict it (AR(2))...
_FIT_DIVISOR = const(16)  # ...if the fit leaves at most 1/16 of its energy unexplained
_RING_SHIFT = const(4)  # the ringing's fit follows the last 16 samples (40 ms)
_RING_CLIP_MG = const(2047)  # samples in the fit are clamped to this (products stay small)
_RING_BITS = const(10)  # at the solve the fit's sums are scaled under 2**10...
_RING_ONE = const(256)  # ...and the coefficients come out in 1/256
_SOLVE_SAMPLES = const(8)  # while the table rings the fit is solved every 8 samples...
_FIT_FALL_X4 = const(20)  # ...and a fall 5 times the fit's residual (RMS) below its
# two-step prediction starts a candidate too (in quarters of the residual)
_FIT_CLEAR_X4 = const(32)  # such a candidate must end 8 residuals below the prediction...
_FIT_SLOW_CLEAR_X4 = const(64)  # ...16 if it fell over three samples...
_FIT_TURN_DIVISOR = const(400)  # ...and turn at most 1/400 of its energy
_FIT_FLOOR_SHIFT = const(3)  # the residual counts as at least 1/8 of the background

# --- states
SETTLING = const(0)
ARMED = const(1)
CANDIDATE = const(2)
REFRACTORY = const(3)


class PressDetector:
    def __init__(self):
        self.reset()

    def reset(self):
        """Forgets everything: the next sample is taken as gravity, and it settles again."""
        self.state = SETTLING
        self.samples = 0
        self.presses = 0
        self.rejected = 0
        self.releases = 0
        self.last_depth_mg = 0
        self._fresh = True
        self._old_background = 0
        self._gx = 0
        self._gy = 0
        self._gz = 0
        self._sx1 = 0
        self._sy1 = 0
        self._sz1 = 0
        self._sx2 = 0
        self._sy2 = 0
        self._sz2 = 0
        self._moving_for = 0
        # the two samples before this one: along, and the motion vector
        self._a1 = 0
        self._a2 = 0
        self._a3 = 0
        self._a4 = 0
        self._x3 = 0
        self._y3 = 0
        self._z3 = 0
        # the ringing's fit: running sums of products of along up at lags 0, 1, 2 (16 times
        # their mean), up to two samples back
        self._r00 = 0
        self._r11 = 0
        self._r22 = 0
        self._r12 = 0
        self._r01 = 0
        self._r02 = 0
        self._ringing = False
        self._low = 0
        # the fit kept while the table rings: coefficients (1/256), residual RMS (mg)
        self._c1 = 0
        self._c2 = 0
        self._fit = False
        self._residual = 0
        self._solve_in = 0
        self._by_fit = False  # the candidate was started by a fall below the fit
        # the ringing predicted through the candidate: along up and each axis
        self._pa = [0] * (_WINDOW + 1)
        self._px = [0] * (_WINDOW + 1)
        self._py = [0] * (_WINDOW + 1)
        self._pz = [0] * (_WINDOW + 1)
        self._x1 = 0
        self._x2 = 0
        self._y1 = 0
        self._y2 = 0
        self._z1 = 0
        self._z2 = 0
        self._fall1 = 0
        self._fall2 = 0
        self._background = 0
        self._backgrounds = [0] * _LEAD_DELAY  # the background of the last samples, a ring
        self._count = 0
        # the candidate: where it started, its bottom, its energies
        self._base = 0
        self._base_x = 0
        self._base_y = 0
        self._base_z = 0
        self._bottom = 0
        self._bottom_at = 0
        self._first_step = 0
        self._lead = 0
        self._floor = 0
        self._lead_floor = 0
        self._along_energy = 0
        self._sideways_energy = 0
        # the candidate's samples (8 mg units): along up since its start, and sideways
        self._ups = [0] * (_WINDOW + 1)
        self._side_x = [0] * (_WINDOW + 1)
        self._side_y = [0] * (_WINDOW + 1)
        self._side_z = [0] * (_WINDOW + 1)
        self._guard = 0
        self._guard_left = 0

    def moving_mg(self):
        """The stillness filter's reading: how much the unit moves as a whole (mg)."""
        return (abs(self._sx2) + abs(self._sy2) + abs(self._sz2)) >> 4

    def update(self, x, y, z):
        """Takes one sample (mg); True on the sample where a press is recognised."""
        self.samples = (self.samples + 1) & _SAMPLES_MASK
        if self._fresh:
            self._fresh = False
            self._gx = x << _GRAVITY_SHIFT
            self._gy = y << _GRAVITY_SHIFT
            self._gz = z << _GRAVITY_SHIFT
        gx = self._gx >> _GRAVITY_SHIFT
        gy = self._gy >> _GRAVITY_SHIFT
        gz = self._gz >> _GRAVITY_SHIFT
        ex = x - gx
        ey = y - gy
        ez = z - gz
        if self.state == SETTLING:
            # Just moved: gravity catches up fast (20 ms) with how the unit now lies.
            self._gx += min(max(ex, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG) << _CATCH_UP_SHIFT
            self._gy += min(max(ey, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG) << _CATCH_UP_SHIFT
            self._gz += min(max(ez, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG) << _CATCH_UP_SHIFT
        elif self.state == ARMED or self._by_fit:
            # (A candidate started below the fit is kept like the armed state it came from:
            # a raw fall may still start one of its own.)
            self._gx += min(max(ex, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
            self._gy += min(max(ey, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
            self._gz += min(max(ez, -_GRAVITY_PULL_MG), _GRAVITY_PULL_MG)
        if self.state < CANDIDATE or self._by_fit:
            # A press and its ringing are left out of gravity and of stillness.
            # Stillness: two low-pass poles over the capped motion, scaled by 16.
            cx = min(max(ex, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
            cy = min(max(ey, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
            cz = min(max(ez, -_STILL_CAP_MG), _STILL_CAP_MG) << 4
            self._sx1 += (cx - self._sx1) >> _STILL_SHIFT
            self._sy1 += (cy - self._sy1) >> _STILL_SHIFT
            self._sz1 += (cz - self._sz1) >> _STILL_SHIFT
            self._sx2 += (self._sx1 - self._sx2) >> _STILL_SHIFT
            self._sy2 += (self._sy1 - self._sy2) >> _STILL_SHIFT
            self._sz2 += (self._sz1 - self._sz2) >> _STILL_SHIFT
        if (abs(self._sx2) + abs(self._sy2) + abs(self._sz2)) >> 4 > _MOVING_MG:
            self._moving_for += 1
        else:
            self._moving_for = 0
        moving = self._moving_for >= _MOVING_SAMPLES

        along = (ex * gx + ey * gy + ez * gz) // _ONE_G_MG
        along = min(max(along, -_CLIP_MG), _CLIP_MG)
        fall = along - self._a2
        # The background holds falls up to three samples back: not the one starting now.
        background = self._background
        slot = self.samples % _LEAD_DELAY
        self._old_background = self._backgrounds[slot]
        self._backgrounds[slot] = background
        self._background = max(abs(self._fall2), background - (background >> _BACKGROUND_SHIFT))
        if self._guard_left:
            self._guard_left -= 1
            if not self._guard_left:
                self._guard = 0

        if self.state != CANDIDATE or self._by_fit:
            # The ringing's fit takes the sample two back and the two before it: the fall a
            # candidate starts with stays out of it.
            x0 = min(max(self._a2, -_RING_CLIP_MG), _RING_CLIP_MG)
            x1 = min(max(self._a3, -_RING_CLIP_MG), _RING_CLIP_MG)
            x2 = min(max(self._a4, -_RING_CLIP_MG), _RING_CLIP_MG)
            self._r00 += x0 * x0 - (self._r00 >> _RING_SHIFT)
            self._r11 += x1 * x1 - (self._r11 >> _RING_SHIFT)
            self._r22 += x2 * x2 - (self._r22 >> _RING_SHIFT)
            self._r12 += x1 * x2 - (self._r12 >> _RING_SHIFT)
            self._r01 += x0 * x1 - (self._r01 >> _RING_SHIFT)
            self._r02 += x0 * x2 - (self._r02 >> _RING_SHIFT)
        pressed = self._step(ex, ey, ez, along, fall, background, moving)
        self._a4 = self._a3
        self._a3 = self._a2
        self._a2 = self._a1
        self._a1 = along
        self._x3 = self._x2
        self._x2 = self._x1
        self._x1 = ex
        self._y3 = self._y2
        self._y2 = self._y1
        self._y1 = ey
        self._z3 = self._z2
        self._z2 = self._z1
        self._z1 = ez
        self._fall2 = self._fall1
        self._fall1 = fall
        return pressed

    def _step(self, ex, ey, ez, along, fall, background, moving):
        state = self.state
        if state == CANDIDATE and self._by_fit and self._falls(fall, background):
            # A fall that starts a candidate of its own: judged from there, as on a quiet table.
            return self._start(ex, ey, ez, along, background, False)
        if state == CANDIDATE:
            self._count += 1
            self._add_energy(ex, ey, ez, along)
            if along >= self._bottom:
                return self._decide(True)
            # Still falling: at the bottom once the last step is small against the depth (that
            # step is the landing, not part of the fall).
            slowed = (self._bottom - along) * _BOTTOM_DIVISOR <= self._base - along
            self._bottom = along
            if not slowed:
                self._bottom_at = self._count
            if slowed or self._count >= _WINDOW:
                return self._decide(slowed)
            return False
        if state == REFRACTORY:
            self._count -= 1
            if self._count <= 0:
                # The press's own falls are over: back to the background from before it.
                self._background = self._floor
                self.state = SETTLING if moving else ARMED
                self._count = 0
            return False
        if moving:
            self.state = SETTLING
            self._count = 0
            return False
        if state == SETTLING:
            self._count += 1
            if self._count >= _SETTLE_SAMPLES:
                self.state = ARMED
            return False
        trigger = _RELEASE_FALL_MG if self._guard else _FALL_MG
        if background >= _RINGING_MG:
            self._solve_in -= 1
            if self._solve_in <= 0:
                self._solve_in = _SOLVE_SAMPLES
                self._fit = self._solve()
        else:
            self._fit = False
            self._solve_in = 0
        if self._falls(fall, background):
            return self._start(ex, ey, ez, along, background, False)
        if self._fit:
            # The swing carried on two samples from the two before the fall, as _predict does.
            c1 = self._c1
            c2 = self._c2
            p1 = (c1 * self._a2 + c2 * self._a3) // _RING_ONE
            drop = (c1 * p1 + c2 * self._a2) // _RING_ONE - along
            if (
                drop < trigger
                or drop * 4 < max(self._residual, background >> _FIT_FLOOR_SHIFT) * _FIT_FALL_X4
            ):
                return False
            return self._start(ex, ey, ez, along, background, True)
        return False

    def _falls(self, fall, background):
        trigger = _RELEASE_FALL_MG if self._guard else _FALL_MG
        return -fall >= trigger and -fall * 4 >= background * _ABOVE_BACKGROUND_X4

    def _start(self, ex, ey, ez, along, background, by_fit):
        self.state = CANDIDATE
        self._lead = abs(self._a2 - self._a3)
        self._base = self._a2
        self._base_x = self._x2
        self._base_y = self._y2
        self._base_z = self._z2
        self._bottom = along
        self._bottom_at = 1
        self._first_step = abs(self._a1 - self._a2)
        self._floor = background
        self._lead_floor = min(background, self._old_background)
        self._along_energy = 0
        self._sideways_energy = 0
        self._ringing = background >= _RINGING_MG and self._predict()
        self._by_fit = by_fit
        if by_fit and not self._ringing:
            self.state = ARMED
            self._by_fit = False
            return False
        if by_fit:
            # The fall is measured from the prediction: its first step is how far the sample
            # before already left it.
            self._first_step = abs(self._a1 - self._pa[0])
        self._low = 0
        self._count = 0
        self._add_energy(self._x1, self._y1, self._z1, self._a1)
        self._count = 1
        self._add_energy(ex, ey, ez, along)
        return False

    def _predict(self):
        """Carries the fit (solved now), along up and on each axis, from the two samples
        before the fall through the candidate. False if there is no fit."""
        if not self._solve():
            return False
        c1 = self._c1
        c2 = self._c2
        self._carry(self._pa, c1, c2, self._a2, self._a3)
        self._carry(self._px, c1, c2, self._x2, self._x3)
        self._carry(self._py, c1, c2, self._y2, self._y3)
        self._carry(self._pz, c1, c2, self._z2, self._z3)
        return True

    def _solve(self):
        """Fits x[n] = c1 x[n-1] + c2 x[n-2] to the ringing along up (least squares over the
        running sums): keeps c1, c2 and the residual's RMS (mg). False if the sums leave no
        fit, or one that is no damped swing or explains under 15/16 of the ringing."""
        r00 = self._r00
        r11 = self._r11
        r22 = self._r22
        r12 = self._r12
        r01 = self._r01
        r02 = self._r02
        shift = 0
        while r11 >= 1 << _RING_BITS or r22 >= 1 << _RING_BITS or r00 >= 1 << _RING_BITS:
            r00 >>= 1
            r11 >>= 1
            r22 >>= 1
            r12 >>= 1
            r01 >>= 1
            r02 >>= 1
            shift += 1
        det = r11 * r22 - r12 * r12
        if det <= 0:
            return False
        c1 = (r01 * r22 - r02 * r12) * _RING_ONE // det
        c2 = (r02 * r11 - r01 * r12) * _RING_ONE // det
        c1 = min(max(c1, -2 * _RING_ONE), 2 * _RING_ONE)
        c2 = min(max(c2, -_RING_ONE), _RING_ONE)
        # A ringing is a damped swing (the fit's roots complex), not a drift, and fits well.
        if c1 * c1 >= -4 * _RING_ONE * c2:
            return False
        left = r00 - (c1 * r01 + c2 * r02) // _RING_ONE
        if left * _FIT_DIVISOR > r00:
            return False
        self._c1 = c1
        self._c2 = c2
        # The residual's RMS: the sums hold 16 times the mean of squares, scaled by 2**shift.
        left = max(left, 0) << shift >> _RING_SHIFT
        root = 0
        bit = 1 << 11
        while bit:
            if (root + bit) * (root + bit) <= left:
                root += bit
            bit >>= 1
        self._residual = root
        return True

    def _carry(self, out, c1, c2, a, b):
        for i in range(_WINDOW + 1):
            c = min(max((c1 * a + c2 * b) // _RING_ONE, -_CLIP_MG), _CLIP_MG)
            out[i] = c
            b = a
            a = c

    def _add_energy(self, ex, ey, ez, along):
        """Adds one sample's motion since the candidate's start, along up and sideways; on a
        ringing table, beyond what the ringing alone would have done."""
        at = self._count
        if self._ringing:
            up = min(max(along - self._pa[at], -_CLIP_MG), _CLIP_MG)
            self._low = min(self._low, up)
            bx = self._px[at]
            by = self._py[at]
            bz = self._pz[at]
        else:
            up = min(max(along - self._base, -_CLIP_MG), _CLIP_MG)
            bx = self._base_x
            by = self._base_y
            bz = self._base_z
        gx = self._gx >> _GRAVITY_SHIFT
        gy = self._gy >> _GRAVITY_SHIFT
        gz = self._gz >> _GRAVITY_SHIFT
        sx = min(max(ex - bx - up * gx // _ONE_G_MG, -_CLIP_MG), _CLIP_MG)
        sy = min(max(ey - by - up * gy // _ONE_G_MG, -_CLIP_MG), _CLIP_MG)
        sz = min(max(ez - bz - up * gz // _ONE_G_MG, -_CLIP_MG), _CLIP_MG)
        sx >>= _ENERGY_SHIFT
        sy >>= _ENERGY_SHIFT
        sz >>= _ENERGY_SHIFT
        up >>= _ENERGY_SHIFT
        self._along_energy += up * up
        self._sideways_energy += sx * sx + sy * sy + sz * sz
        self._ups[at] = up
        self._side_x[at] = sx
        self._side_y[at] = sy
        self._side_z[at] = sz

    def _turn(self):
        """How far the fall strays from one direction, its direction at its deepest: the energy
        of the sideways motion up to there that does not follow the motion along up."""
        at = 0
        for i in range(1, self._count + 1):
            if self._ups[i] < self._ups[at]:
                at = i
        up = self._ups[at]
        if up >= 0:
            return self._along_energy
        bx = self._side_x[at]
        by = self._side_y[at]
        bz = self._side_z[at]
        turn = 0
        for i in range(at):
            u = self._ups[i]
            rx = self._side_x[i] - u * bx // up
            ry = self._side_y[i] - u * by // up
            rz = self._side_z[i] - u * bz // up
            turn += rx * rx + ry * ry + rz * rz
        return turn

    def _decide(self, bottomed):
        by_fit = self._by_fit
        # Started by a fall below the fit: judged by how far below the prediction it went.
        depth = -self._low if by_fit else self._base - self._bottom
        # Samples the fall took: a press is over in two, a slower one must be cleaner.
        fall = self._bottom_at
        if self._first_step * _STEP_DIVISOR > depth:
            fall += 1
        if fall <= _QUICK_FALL:
            sideways_divisor = _SIDEWAYS_DIVISOR
            least = _DEPTH_MG
        else:
            sideways_divisor = _SLOW_SIDEWAYS_DIVISOR
            least = _SLOW_DEPTH_MG
        # How far the sample before the start moved, beyond what the background explains: an
        # upswing into the fall (a knock's first lobe) is no flat start, a table's ringing is.
        lead = self._lead - (self._lead_floor * _LEAD_BACKGROUND_X8 >> 3)
        # Below gravity, or on a ringing table below where the ringing alone would be: not the
        # far side of a swing.
        below = -self._low if self._ringing else -self._bottom
        clear = depth * 4 >= self._floor * _CLEAR_X4
        if by_fit:
            clear_x4 = _FIT_CLEAR_X4 if fall <= _QUICK_FALL else _FIT_SLOW_CLEAR_X4
            clear = depth * 4 >= max(self._residual, self._floor >> _FIT_FLOOR_SHIFT) * clear_x4
        is_press = (
            bottomed
            and fall <= _SLOW_FALL
            and depth >= least
            and lead * _FLAT_DIVISOR <= depth
            and below * 8 >= depth * _BELOW_X8
            and clear
            and self._sideways_energy * sideways_divisor <= self._along_energy
            and self._turn() * _TURN_DIVISOR <= self._along_energy
            and (not by_fit or self._turn() <= self._along_energy // _FIT_TURN_DIVISOR)
        )
        self.state = ARMED
        self._count = 0
        self._by_fit = False
        if depth < self._guard:
            # Much weaker than the last press, soon after it: that press's release. A press
            # needs the finger back up, so the guard ends here.
            self.releases += 1
            self._guard = 0
            return False
        if not is_press:
            self.rejected += 1
            return False
        self.presses += 1
        self.last_depth_mg = depth
        self._guard = depth * _GUARD_X16 >> 4
        self._guard_left = _GUARD_SAMPLES
        self.state = REFRACTORY
        self._count = _REFRACTORY_SAMPLES
        return True
