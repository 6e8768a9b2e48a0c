//! What the peer benches share: the tolerance ladder their searches climb, and a
//! `differential-equations` output that stores nothing.

use differential_equations::control::ControlFlag;
use differential_equations::interpolate::Interpolation;
use differential_equations::solout::Solout;
use differential_equations::solution::Solution;
use std::cell::Cell;

/// The tolerance `10^(−k/8)`: the searches' ladder, on which the groups' tolerances are
/// given exactly (at 10⁻¹⁰ a tolerance rounded to four digits can end several times farther
/// off).
pub fn rung(k: u32) -> f64 {
    10f64.powf(-f64::from(k) / 8.0)
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
