#!/usr/bin/env python3
"""Prints the medians and ratios of the last `cargo bench` runs as BENCHMARKS.md's tables.

Reads criterion's estimates in target/criterion, the workspace's, where the library's benches
and timestep-peers' (peers/) write (run the benches first; see BENCHMARKS.md):

    python3 benches/ratios.py
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "target" / "criterion"


def median_ns(group: str, function: str) -> float | None:
    """The median time of one iteration, in ns, or None if that bench has not been run."""
    path = ROOT / group.replace("/", "_") / function / "new" / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"]


def fmt(ns: float | None, per: int = 1) -> str:
    if ns is None:
        return "not run"
    ns /= per
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.2f} ns"


def ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a / b:.3f}"


def main() -> None:
    if not ROOT.exists():
        sys.exit("no target/criterion: run the benches first")

    print("| group | handwritten | timestep | timestep / handwritten |")
    print("|---|---|---|---|")
    for case in [
        "semi-implicit-euler-spring-f64",
        "rk4-spring-f64",
        "semi-implicit-euler-vec3-f32",
        "rk4-vec3-f32",
        "rigid-semi-implicit-euler",
        "rigid-rk4",
    ]:
        group = f"overhead/{case}"
        hand, ours = median_ns(group, "handwritten"), median_ns(group, "timestep")
        print(f"| `{group}` | {fmt(hand, 1000)}/step | {fmt(ours, 1000)}/step | {ratio(ours, hand)} |")
    print()

    group = "peers/rk4-spring"
    ours = median_ns(group, "timestep")
    print("| function | median (1000 RK4 steps) | peer / timestep |")
    print("|---|---|---|")
    for function in ["timestep", "ode_solvers", "differential_equations"]:
        t = median_ns(group, function)
        print(f"| `{group}/{function}` | {fmt(t)} | {ratio(t, ours)} |")
    print()

    print("| group | serial | parallel | memcpy | memcpy / serial (share of copy bandwidth) | serial / parallel |")
    print("|---|---|---|---|---|---|")
    for method in ["semi-implicit-euler", "rk4"]:
        group = f"batch/{method}"
        serial, parallel, copy = (median_ns(group, f) for f in ["serial", "parallel", "memcpy"])
        print(
            f"| `{group}` | {fmt(serial)} | {fmt(parallel)} | {fmt(copy)} "
            f"| {ratio(copy, serial)} | {ratio(serial, parallel)} |"
        )
    print()

    print("| bodies | time per step | ns per body |")
    print("|---|---|---|")
    for n in [1_000, 10_000, 100_000, 1_000_000, 10_000_000]:
        t = median_ns("scaling/semi-implicit-euler", str(n))
        print(f"| {n:,} | {fmt(t)} | {'—' if t is None else f'{t / n:.2f}'} |")
    print()

    # benches/large.rs: 10 steps per iteration for the chain and the heat equation, 2 for
    # the bodies.
    print("| group | handwritten | timestep | timestep / handwritten |")
    print("|---|---|---|---|")
    for case, steps in [("chain-rk4", 10), ("chain-verlet", 10), ("nbody-verlet", 2)]:
        group = f"large/{case}"
        hand, ours = median_ns(group, "handwritten"), median_ns(group, "timestep")
        print(f"| `{group}` | {fmt(hand, steps)}/step | {fmt(ours, steps)}/step | {ratio(ours, hand)} |")
    print()
    print("| N | handwritten (Thomas) | timestep (finite differences) | ratio | timestep (analytic Jacobian) | ratio | timestep (declared linear) | ratio | ns per unknown: hand, FD, analytic, linear |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in [1_000, 10_000, 100_000]:
        group = f"large/heat-backward-euler-{n}"
        hand, fd, jac, lin = (
            median_ns(group, f) for f in ["handwritten", "timestep", "timestep-jacobian", "timestep-linear"]
        )
        per = lambda t: "—" if t is None else f"{t / 10 / n:.1f}"
        print(
            f"| {n:,} | {fmt(hand, 10)}/step | {fmt(fd, 10)}/step | {ratio(fd, hand)} "
            f"| {fmt(jac, 10)}/step | {ratio(jac, hand)} | {fmt(lin, 10)}/step | {ratio(lin, hand)} "
            f"| {per(hand)}, {per(fd)}, {per(jac)}, {per(lin)} |"
        )
    print()

    # peers/benches/stiff.rs: one solve per iteration; peer / timestep (above 1: timestep faster).
    print("| group | function | median | peer / timestep |")
    print("|---|---|---|---|")
    for problem in ["van-der-pol", "robertson", "heat"]:
        for error in ["1e-3", "1e-6"]:
            group = f"stiff/{problem}-{error}"
            ours = median_ns(group, "timestep")
            for function in [
                "timestep",
                "differential_equations_radau5",
                "differential_equations_bdf",
                "diffsol_bdf",
            ]:
                t = median_ns(group, function)
                if t is not None:
                    print(f"| `{group}` | `{function}` | {fmt(t)} | {ratio(t, ours)} |")


if __name__ == "__main__":
    main()
