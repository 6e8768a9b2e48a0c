//! The pendulum in Cartesian coordinates as `M y' = f(t, y)` for `Radau5`, at index 1, 2
//! and 3 (Hairer–Wanner II, VII.1, (1.46)–(1.48); Hairer, Lubich and Roche 1989, LNM 1409):
//! the model of the `pendulum_dae` example and the `integrators::implicit::pendulum_dae`
//! tests.
//!
//! A bob of mass 1 on a rod of length L = 1, g = 9.81, `y = (x, y, vx, vy, λ)`,
//! `M = diag(1, 1, 1, 1, 0)`:
//!
//! ```text
//! x' = vx,   y' = vy,   vx' = −λ x,   vy' = −λ y − g,   0 = c(y)
//! ```
//!
//! with `λ` the rod's tension per unit mass and length. The algebraic equation `c` is the
//! position constraint `x² + y² − 1` (index 3), its time derivative, the velocity
//! constraint `x vx + y vy` (index 2), or its second derivative, `vx² + vy² + x vx' + y vy'`
//! with the equations of motion put in: `vx² + vy² − λ (x² + y²) − g y` (index 1, the
//! equation that gives `λ`). Released at rest from the horizontal, `x = 1, y = 0`: `λ(0) = 0`,
//! and by energy (`v² = −2 g y`) `λ = −3 g y` all along.
#![allow(dead_code)] // each user takes what it needs

use std::f64::consts::PI;
use timestep::{Bdf, Forces, Jacobian, Radau5};

/// Gravity.
pub const G: f64 = 9.81;

/// Which of the constraint's derivatives is the algebraic equation: the index of the DAE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// `0 = vx² + vy² − λ (x² + y²) − g y`: `λ` algebraic of index 1.
    One,
    /// `0 = x vx + y vy`: `λ` of index 2.
    Two,
    /// `0 = x² + y² − 1`: velocities of index 2, `λ` of index 3.
    Three,
}

impl Index {
    /// All three, lowest first.
    pub const ALL: [Index; 3] = [Index::One, Index::Two, Index::Three];

    /// The index from its number, 1, 2 or 3.
    pub fn from_number(number: u32) -> Option<Index> {
        match number {
            1 => Some(Index::One),
            2 => Some(Index::Two),
            3 => Some(Index::Three),
            _ => None,
        }
    }

    /// Its number.
    pub fn number(self) -> u32 {
        match self {
            Index::One => 1,
            Index::Two => 2,
            Index::Three => 3,
        }
    }
}

/// `f(t, y)` of the pendulum at `index`.
pub fn rate(index: Index, state: &[f64; 5]) -> [f64; 5] {
    let [x, y, vx, vy, lambda] = *state;
    let algebraic = match index {
        Index::One => vx * vx + vy * vy - lambda * (x * x + y * y) - G * y,
        Index::Two => x * vx + y * vy,
        Index::Three => x * x + y * y - 1.0,
    };
    [vx, vy, -lambda * x, -lambda * y - G, algebraic]
}

/// `M = diag(1, 1, 1, 1, 0)`: the fifth equation is algebraic.
pub fn mass(m: &mut Jacobian<f64>) {
    for i in 0..4 {
        m[(i, i)] = 1.0;
    }
}

/// The pendulum at an index as forces with their mass matrix, for `Radau5` (the Jacobian
/// by finite differences).
#[derive(Clone, Copy, Debug)]
pub struct Pendulum(pub Index);

impl Forces<[f64; 5]> for Pendulum {
    fn force(&self, state: &[f64; 5], _t: f64) -> [f64; 5] {
        rate(self.0, state)
    }

    fn mass_matrix(&self, m: &mut Jacobian<'_, f64>) -> bool {
        mass(m);
        true
    }
}

/// Radau5 told where the unknowns of index 2 and 3 start (radau5.f's NIND1, NIND2,
/// NIND3; `with_higher_index` takes the first unknown of each): at index 3 the positions
/// are of index 1, the velocities of index 2 and `λ` of index 3 (2, 4); at index 2 only
/// `λ` is of index 2 (4, 5); at index 1 none is above 1.
pub fn radau5(index: Index) -> Radau5 {
    match index {
        Index::One => Radau5::new(),
        Index::Two => Radau5::new().with_higher_index(4, 5),
        Index::Three => Radau5::new().with_higher_index(2, 4),
    }
}

/// The BDF told where the unknowns of index 2 start (`Bdf::with_index_two`): at index 2,
/// `λ` (4); at index 1 none. Index 3 it does not solve: `None`.
pub fn bdf(index: Index) -> Option<Bdf> {
    match index {
        Index::One => Some(Bdf::new()),
        Index::Two => Some(Bdf::new().with_index_two(4)),
        Index::Three => None,
    }
}

/// The start: at rest at `(1, 0)`, `λ = 0` (what the index-1 equation gives there).
pub const START: [f64; 5] = [1.0, 0.0, 0.0, 0.0, 0.0];

/// The start for the DAE of `index`: [`START`], its `λ` solved from the algebraic equation
/// by Radau5's helper at index 1 (0 at rest on the horizontal). At index 2 and 3 that
/// equation does not contain `λ`, and `START`'s is the index-1 equation's.
pub fn consistent_start(index: Index) -> Result<[f64; 5], timestep::StepError> {
    let mut start = START;
    if index == Index::One {
        radau5(index).consistent_start(&mut start, &Pendulum(index), 0.0)?;
    }
    Ok(start)
}

/// `x² + y² − 1`.
pub fn constraint_error(state: &[f64; 5]) -> f64 {
    state[0] * state[0] + state[1] * state[1] - 1.0
}

/// The energy `½ (vx² + vy²) + g y`, 0 at the start.
pub fn energy(state: &[f64; 5]) -> f64 {
    0.5 * (state[2] * state[2] + state[3] * state[3]) + G * state[1]
}

/// The complete elliptic integral of the first kind, `K(m) = π / (2 AGM(1, √(1 − m)))`.
pub fn elliptic_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    // Quadratic convergence: five iterations reach rounding from m = ½; ten are safe.
    for _ in 0..10 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// The exact period from the horizontal (amplitude π/2), `4 √(L/g) K(sin²(π/4))`,
/// 2.367842… s.
pub fn exact_period() -> f64 {
    let half_amplitude = PI / 4.0;
    4.0 / G.sqrt() * elliptic_k(half_amplitude.sin().powi(2))
}
