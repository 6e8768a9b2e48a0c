//! What the peer benches share: the tolerance ladder their searches climb, the bound on a
//! problem's right-hand side, `ode_solvers`' DOP853 as they run it, and a
//! `differential-equations` output that stores nothing; and for the stiff benches, in
//! [`stiff`], their counts, tolerance search and diffsol runner.

// The benches other than stiff.rs and brusselator.rs use none of it.
#[allow(dead_code, unused_macros)]
pub mod stiff;

use differential_equations::control::ControlFlag;
use differential_equations::interpolate::Interpolation;
use differential_equations::solout::Solout;
use differential_equations::solution::Solution;
use ode_solvers::dop_shared::{OutputType, Stats};
use ode_solvers::{SVector, System};
use std::cell::Cell;

/// The tolerance `10^(−k/8)`: the searches' ladder, on which the groups' tolerances are
/// given exactly (at 10⁻¹⁰ a tolerance rounded to four digits can end several times farther
/// off).
pub fn rung(k: u32) -> f64 {
    10f64.powf(-f64::from(k) / 8.0)
}

/// A problem's right-hand side `f(y, t)` on `[f64; N]`, as the benches pass it around.
pub trait Rhs<const N: usize>: Fn(&[f64; N], f64) -> [f64; N] + Copy {}
impl<const N: usize, F: Fn(&[f64; N], f64) -> [f64; N] + Copy> Rhs<N> for F {}

/// `ode_solvers`' system: the problem's `f` on its `SVector`.
pub struct OdeSolversIvp<F>(pub F);

impl<const N: usize, F: Rhs<N>> System<f64, SVector<f64, N>> for OdeSolversIvp<F> {
    fn system(&self, t: f64, y: &SVector<f64, N>, dy: &mut SVector<f64, N>) {
        *dy = SVector::from((self.0)(&(*y).into(), t));
    }
}

/// `ode_solvers`' `Dop853` on `y' = f(y, t)` from 0 to `end` at `rtol = atol = tolerance`,
/// with the controller settings its `new` uses (dop853.f's) but `OutputType::Sparse`: it
/// then forms no dense output (its default, `Dense`, builds the continuous extension every
/// step) and stores each accepted step, which it always does. The end state and its
/// statistics.
pub fn ode_solvers_dop853<const N: usize, F: Rhs<N>>(
    f: F,
    start: [f64; N],
    end: f64,
    tolerance: f64,
) -> ([f64; N], Stats) {
    let mut solver = ode_solvers::Dop853::from_param(
        OdeSolversIvp(f),
        0.0,
        end,
        end,
        SVector::from(start),
        tolerance,
        tolerance,
        0.9,
        0.0,
        0.333,
        6.0,
        end,
        0.0,
        1_000_000,
        1000,
        OutputType::Sparse,
    );
    let stats = solver.integrate().expect("Dop853 within its step budget");
    let y = *solver.y_out().last().expect("the end state");
    (y.into(), stats)
}

/// A `differential-equations` output that keeps the last state and stores nothing.
pub struct Last<'a, const N: usize>(pub &'a Cell<[f64; N]>);

impl<const N: usize> Solout<f64, [f64; N]> for Last<'_, N> {
    fn solout<I>(
        &mut self,
        _t: f64,
        _t_prev: f64,
        y: &[f64; N],
        _y_prev: &[f64; N],
        _interpolator: &mut I,
        _solution: &mut Solution<f64, [f64; N]>,
    ) -> ControlFlag<f64, [f64; N]>
    where
        I: Interpolation<f64, [f64; N]> + ?Sized,
    {
        self.0.set(*y);
        ControlFlag::Continue
    }
}
