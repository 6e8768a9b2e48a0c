#!/usr/bin/env python3
"""The reference end states of examples/problems/mod.rs, by Taylor series in 50-digit decimals.

Each problem starts from the f64 values the Rust code uses (taken exactly: `Decimal(float)` is
the double's exact binary value) and runs to the f64 end time the Rust code uses, so the
reference is the exact solution of the very problem the integrators are given, not of the
rounded one. The Taylor coefficients come from the usual recurrences (Cauchy products, and
`w = s^(-3/2)` from `s w' = -(3/2) s' w`); each step is `h = rho / e^2`, where `rho` estimates
the radius of convergence from the last two coefficients (Jorba and Zou 2005), so the
truncation error of a step is about `e^(-2 order)`.

Run twice, at (order 30, 40 digits) and (order 40, 50 digits): the two agree to the digits
printed as the estimate of accuracy. Takes about a minute.

    python3 examples/problems/reference.py
"""

import math
from decimal import Decimal, getcontext


def lorenz(series, k):
    """The k-th coefficient of y' for Lorenz (sigma 10, rho 28, beta the f64 nearest 8/3)."""
    x, y, z = series
    xz = sum(x[j] * z[k - j] for j in range(k + 1))
    xy = sum(x[j] * y[k - j] for j in range(k + 1))
    beta = Decimal(8.0 / 3.0)  # the f64 8/3 the Rust code multiplies by
    return [10 * (y[k] - x[k]), 28 * x[k] - xz - y[k], xy - beta * z[k]]


def power(s, w, k, alpha):
    """The k-th coefficient of w = s^alpha, given w's lower ones."""
    if k == 0:
        return s[0] ** alpha if alpha != Decimal(-1.5) else 1 / (s[0] * s[0].sqrt())
    total = sum(((alpha + 1) * j - k) * s[j] * w[k - j] for j in range(1, k + 1))
    return total / (k * s[0])


class Gravity:
    """Kepler (mu = None) or the Arenstorf orbit's rotating frame (mu = the Moon's share)."""

    def __init__(self, mu):
        self.mu = mu
        self.reset()

    def reset(self):
        self.s = [[], []]
        self.w = [[], []]

    def __call__(self, series, k):
        x, y, u, v = series
        # (centre, mass), the masses as the Rust code rounds them (`1.0 - MU` in f64).
        centres = [(Decimal(0), Decimal(1))] if self.mu is None else [
            (-self.mu, Decimal(1.0 - float(self.mu))), (1 - self.mu, self.mu)]
        ax = Decimal(0) if self.mu is None else x[k] + 2 * v[k]
        ay = Decimal(0) if self.mu is None else y[k] - 2 * u[k]
        for i, (cx, mass) in enumerate(centres):
            def dx(j):
                return x[j] - cx if j == 0 else x[j]
            s_k = sum(dx(j) * dx(k - j) + y[j] * y[k - j] for j in range(k + 1))
            self.s[i].append(s_k)
            self.w[i].append(power(self.s[i], self.w[i], k, Decimal(-1.5)))
            w = self.w[i]
            ax -= mass * sum(dx(j) * w[k - j] for j in range(k + 1))
            ay -= mass * sum(y[j] * w[k - j] for j in range(k + 1))
        return [u[k], v[k], ax, ay]


def solve(rhs, y0, t1, order):
    t, y = Decimal(0), list(y0)
    steps = 0
    while t < t1:
        if hasattr(rhs, "reset"):
            rhs.reset()
        series = [[c] for c in y]
        for k in range(order):
            rate = rhs(series, k)
            for s, r in zip(series, rate):
                s.append(r / (k + 1))
        norms = [max(abs(s[j]) for s in series) for j in (order - 1, order)]
        rho = min((1 / n) ** (Decimal(1) / j) for n, j in zip(norms, (order - 1, order)) if n > 0)
        h = rho / Decimal(math.e) ** 2
        if h >= t1 - t:
            h, t = t1 - t, t1  # the last step lands on t1 exactly, whatever the rounding
        else:
            t += h
        y = [sum_horner(s, h) for s in series]
        steps += 1
    return y, steps


def sum_horner(coefficients, h):
    total = Decimal(0)
    for c in reversed(coefficients):
        total = total * h + c
    return total


def problems():
    e = 0.9
    kepler_start = [1.0 - e, 0.0, 0.0, math.sqrt((1.0 + e) / (1.0 - e))]
    return [
        ("lorenz", lorenz, [1.0, 0.0, 0.0], 10.0),
        ("arenstorf", Gravity(Decimal(0.012277471)),
         [0.994, 0.0, 0.0, -2.0015851063790825], 17.06521656015796),
        ("kepler", Gravity(None), kepler_start, 10.0 * math.tau),
    ]


def main():
    for name, rhs, start, t1 in problems():
        ends = []
        for order, digits in [(30, 40), (40, 50)]:
            getcontext().prec = digits
            if isinstance(rhs, Gravity):
                rhs.mu = None if rhs.mu is None else Decimal(0.012277471)
            end, steps = solve(rhs, [Decimal(v) for v in start], Decimal(t1), order)
            ends.append(end)
            print(f"{name}: order {order}, {digits} digits, {steps} steps")
        agree = max(abs(a - b) for a, b in zip(*ends))
        print(f"{name}: the two runs differ by {agree:.1e}")
        for value in ends[1]:
            print(f"    {value:.30e}")
        print(f"    as f64: {[float(v) for v in ends[1]]}")


if __name__ == "__main__":
    main()
