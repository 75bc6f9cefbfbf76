"""Wilson score intervals for error rates estimated from small audits.

The normal approximation gives nonsense for the rates audits produce (6 wrong trees out of 50,
or 0 out of 12): negative lower bounds and zero-width intervals. Wilson's interval stays inside
[0, 1] and is honest about small samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Interval:
    successes: int
    n: int
    rate: float | None
    low: float
    high: float

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "successes": self.successes,
            "n": self.n,
            "rate": self.rate,
            "low": self.low,
            "high": self.high,
        }


def wilson_interval(successes: int, n: int, z: float = Z95) -> Interval:
    """The interval for `successes` out of `n`; with no observations every rate is possible."""
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(0, 0, None, 0.0, 1.0)
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 or n successes the bound is exactly 0 or 1; the formula only reaches it up to rounding.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(successes, n, p, low, high)
