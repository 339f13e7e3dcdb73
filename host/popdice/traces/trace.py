"""A labelled accelerometer trace: samples as the LIS3DH reports them, their instants, and the
onset of every press, the one data type every model of the popper produces."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Trace:
    """Samples as the LIS3DH reports them (g, 4 mg steps) at their instants (ms), with the
    onset of every press (ms, same clock)."""

    t_ms: list[float]
    samples_g: list[tuple[float, float, float]]
    press_times_ms: list[float]
    kind: str = ""
    seed: int = 0
    events: list[tuple[float, str]] = field(default_factory=list)  # (onset ms, what), all kinds

    @property
    def seconds(self) -> float:
        """First sample to last, and one period more."""
        return (self.t_ms[-1] - self.t_ms[0]) / 1000.0 + 0.0025 if self.t_ms else 0.0
