//! A square cloth of 64 × 64 point masses joined by springs, pinned at two corners, falling
//! under gravity: 4096 interacting bodies stepped as one [`Particles`] state, the spring
//! forces written in place into the integrator's buffer.
//!
//! ```text
//! cargo run --release --example cloth
//! cargo run --release --example cloth -- --method rk4 --steps-per-second 120
//! ```
//!
//! The cloth, 10 m on a side and 2 kg (a light sail or tarp), starts flat and at rest in the
//! horizontal plane `y = 0`, and hangs from the two corners of its edge `z = 0`, like a
//! curtain let go of along its other edges. Each mass is joined to its neighbours along the
//! grid (**structural** springs, rest length 10/63 m) and along the diagonals (**shear**
//! springs, rest length 10√2/63 m), all of stiffness k = 0.5 N/m with a dashpot of
//! c = 10⁻⁴ N·s/m along each. Gravity is 9.81 m/s² along −y, and air drag `−0.5 m v` on each
//! mass is the **light damping** that lets the swing settle. The two pinned masses have their
//! force set to zero and start at rest, so they stay where they are under every method (no
//! infinite mass needed).
//!
//! At 60 Hz an explicit method keeps springs stable only up to `ω dt < 2`; the stiffest mode
//! of this grid has `ω² = 8k/m` (m = 2/4096 kg per mass), so `ω dt` = 1.51. Springs that soft
//! make a very stretchy cloth (a rubber sheet rather than linen): after 10 s it hangs 32 m
//! below its pins. A stiffer cloth needs smaller steps (`--steps-per-second`) or an implicit
//! method. Verlet, position Verlet, semi-implicit Euler and RK4 agree on the last row to
//! within 0.1 m; explicit Euler and midpoint, which gain energy on every oscillation, blow
//! up (`nan`).
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (default `verlet`; any explicit method of `Method::NAMES`: backward Euler by name would
//! solve a dense 24 576 × 24 576 system and is refused), `--steps-per-second HZ` (60),
//! `--duration SECONDS` (10).
//!
//! Output: the header `t,kinetic,potential,total,corner_x,corner_y,corner_z`, then a row at
//! t = 0, every second (60 steps at the default rate) and at the end. `potential` is the
//! springs' `Σ ½ k (|d| − L)²` plus gravity's `Σ m g y`, so `total` falls as the dashpots
//! dissipate; `corner` is the free corner at the far end of the cloth from the pinned edge,
//! which starts at (10, 0, 10).

mod cli;

use cli::{Flag, Schedule, csv};
use glam::DVec3;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{InPlace, Integrator, Method, Particles, Scheme};

/// Masses along each side.
const SIDE: usize = 64;
/// The cloth's side, m.
const LENGTH: f64 = 10.0;
/// The cloth's mass, kg.
const MASS: f64 = 2.0;
/// Spring stiffness, N/m.
const STIFFNESS: f64 = 0.5;
/// Dashpot coefficient along each spring, N·s/m.
const DAMPING: f64 = 1e-4;
/// Air drag per unit mass, 1/s.
const DRAG: f64 = 0.5;
/// Gravity, m/s², along −y.
const GRAVITY: f64 = 9.81;
/// Seconds between rows.
const ROW_EVERY: f64 = 1.0;

const PROGRAM: &str = "cloth";

/// The index of the mass in row `row` (along z) and column `column` (along x).
const fn at(row: usize, column: usize) -> usize {
    row * SIDE + column
}

/// The two pinned masses: the corners of the edge `z = 0`.
const PINNED: [usize; 2] = [at(0, 0), at(0, SIDE - 1)];

/// The free corner reported: the far corner from the pinned edge.
const CORNER: usize = at(SIDE - 1, SIDE - 1);

/// A spring: the two masses it joins and its rest length.
#[derive(Clone, Copy)]
struct Spring {
    a: usize,
    b: usize,
    rest: f64,
}

/// Structural springs along the rows and columns, shear springs along both diagonals.
fn springs() -> Vec<Spring> {
    let spacing = LENGTH / (SIDE - 1) as f64;
    let diagonal = spacing * 2.0_f64.sqrt();
    let mut springs = Vec::new();
    for row in 0..SIDE {
        for column in 0..SIDE {
            let here = at(row, column);
            if column + 1 < SIDE {
                springs.push(Spring {
                    a: here,
                    b: at(row, column + 1),
                    rest: spacing,
                });
            }
            if row + 1 < SIDE {
                springs.push(Spring {
                    a: here,
                    b: at(row + 1, column),
                    rest: spacing,
                });
                if column + 1 < SIDE {
                    springs.push(Spring {
                        a: here,
                        b: at(row + 1, column + 1),
                        rest: diagonal,
                    });
                }
                if column > 0 {
                    springs.push(Spring {
                        a: here,
                        b: at(row + 1, column - 1),
                        rest: diagonal,
                    });
                }
            }
        }
    }
    springs
}

/// Gravity, and each spring's pull with its dashpot, into `forces`; zero on the pinned masses.
fn cloth_forces(cloth: &Particles<DVec3>, springs: &[Spring], forces: &mut [DVec3]) {
    let (positions, velocities) = (cloth.positions(), cloth.velocities());
    for ((force, &mass), &velocity) in forces.iter_mut().zip(cloth.masses()).zip(velocities) {
        *force = DVec3::new(0.0, -GRAVITY * mass, 0.0) - velocity * (DRAG * mass);
    }
    for spring in springs {
        let d = positions[spring.b] - positions[spring.a];
        let length = d.length();
        let along = d / length;
        let closing = (velocities[spring.b] - velocities[spring.a]).dot(along);
        let pull = along * (STIFFNESS * (length - spring.rest) + DAMPING * closing);
        forces[spring.a] += pull;
        forces[spring.b] -= pull;
    }
    for pinned in PINNED {
        forces[pinned] = DVec3::ZERO;
    }
}

/// The springs' energy plus gravity's.
fn potential(cloth: &Particles<DVec3>, springs: &[Spring]) -> f64 {
    let positions = cloth.positions();
    let elastic: f64 = springs
        .iter()
        .map(|s| 0.5 * STIFFNESS * (positions[s.b].distance(positions[s.a]) - s.rest).powi(2))
        .sum();
    let height: f64 = positions
        .iter()
        .zip(cloth.masses())
        .map(|(x, m)| m * GRAVITY * x.y)
        .sum();
    elastic + height
}

fn main() -> ExitCode {
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "the integrator, an explicit one of timestep::Method's names",
            "verlet",
        ),
        Flag::new(
            "--steps-per-second",
            "HZ",
            "steps per second of simulated time, > 0",
            60,
        ),
        Flag::new("--duration", "SECONDS", "how long to run, >= 0", 10),
    ];
    let (mut name, mut rate, mut duration) = ("verlet".to_string(), 60.0, 10.0);
    for (flag, value) in cli::parse(
        PROGRAM,
        "a 64 x 64 mass-spring cloth pinned at two corners, falling under gravity, CSV \
         t,kinetic,potential,total,corner_x,corner_y,corner_z, a row every second",
        &flags,
    ) {
        match flag {
            "--method" => name = value,
            "--steps-per-second" => rate = cli::positive(PROGRAM, flag, &value),
            _ => duration = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    let mut method: Method<Particles<DVec3>> = name
        .parse()
        .unwrap_or_else(|error| cli::fail(PROGRAM, format!("--method {name:?}: {error}")));
    if method.method().properties().implicit {
        cli::fail(
            PROGRAM,
            format!(
                "--method {method}: the cloth's {0} unknowns would need a dense {0} x {0} \
                 Newton matrix; choose an explicit method",
                SIDE * SIDE * 6
            ),
        );
    }
    let mut schedule = Schedule::new(PROGRAM, duration, 1.0 / rate, ROW_EVERY, cli::MAX_STEPS);

    let spacing = LENGTH / (SIDE - 1) as f64;
    let positions = (0..SIDE * SIDE)
        .map(|i| {
            DVec3::new(
                (i % SIDE) as f64 * spacing,
                0.0,
                (i / SIDE) as f64 * spacing,
            )
        })
        .collect();
    let mut cloth = Particles::new(
        vec![MASS / (SIDE * SIDE) as f64; SIDE * SIDE],
        positions,
        vec![DVec3::ZERO; SIDE * SIDE],
    );
    let springs = springs();
    let forces = InPlace(|cloth: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        cloth_forces(cloth, &springs, out);
    });

    let mut out = BufWriter::new(io::stdout().lock());
    let print = |out: &mut BufWriter<_>, t: f64, cloth: &Particles<DVec3>| {
        let (kinetic, potential) = (cloth.kinetic_energy(), potential(cloth, &springs));
        let corner = cloth.positions()[CORNER];
        writeln!(
            out,
            "{},{},{},{},{},{},{}",
            csv(t),
            csv(kinetic),
            csv(potential),
            csv(kinetic + potential),
            csv(corner.x),
            csv(corner.y),
            csv(corner.z)
        )
    };
    let mut result = writeln!(out, "t,kinetic,potential,total,corner_x,corner_y,corner_z")
        .and_then(|()| print(&mut out, 0.0, &cloth));
    for i in 0..schedule.steps {
        if result.is_err() {
            break;
        }
        let (t, t_next) = (schedule.time(i), schedule.time(i + 1));
        if let Err(error) = method.step(&mut cloth, &forces, t, t_next - t) {
            let _ = out.flush();
            eprintln!("cloth: {method} stopped at t = {t}: {error}");
            return ExitCode::FAILURE;
        }
        if schedule.is_row(i + 1) {
            result = print(&mut out, t_next, &cloth);
        }
    }
    match result.and_then(|()| out.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("cloth: cannot write the output: {error}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}
