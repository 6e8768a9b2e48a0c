//! The Jacobian `∂f/∂y` and the time derivative `∂f/∂t` of a state's rate at one point, as
//! linearly implicit methods (the Rosenbrock family) need them: from the forces when they
//! give the Jacobian ([`Forces::jacobian`]), by forward differences otherwise.
//!
//! Backward Euler differences its Newton residual instead (a function of the end-of-step
//! rate, not of the state), and Radau5 takes radau5.f's steps, so each sizes its own steps;
//! the column grouping for a band and the writing of the differences are shared
//! (`Matrix::column_groups`, `Matrix::set_differences`).

use crate::linalg::{Matrix, band_weight};
use crate::math;
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// The buffers a forward-difference Jacobian works in, borrowed from a method's workspace.
pub(crate) struct Differences<'w, S: State> {
    /// The state's own coordinates (for the size of each difference step).
    pub coordinates: &'w mut DerivativeOf<S>,
    /// The perturbation: zero but for the columns of one group.
    pub nudge: &'w mut DerivativeOf<S>,
    /// The rate at the perturbed state.
    pub nudged_rate: &'w mut DerivativeOf<S>,
    /// The perturbed state.
    pub probe: &'w mut S,
    /// The step actually taken in each coordinate, after rounding.
    pub steps: &'w mut [S::Scalar],
    /// Whether a banded matrix has been checked against the forces
    /// ([`Matrix::check_band`]), once per workspace; set when it passes.
    pub band_checked: &'w mut bool,
}

/// Writes `J = ∂f/∂y` at (`state`, `t`) into `matrix`, whose rate there is `rate`: the
/// forces' own Jacobian when they give one, else forward differences, one force evaluation
/// per column, or per diagonal of a [banded](crate::Structure::Banded) matrix (columns
/// `lower + upper + 1` apart share an evaluation: no row sees two of them), or per colour
/// of a [sparse](crate::Structure::Sparse) pattern. Returns the number of force
/// evaluations made.
///
/// Each difference step is `δⱼ = √ε · max(|yⱼ|, |h fⱼ|, floorⱼ)`: relative to the
/// coordinate, to what a step of `h` moves it by, and to `floor(j)` (the absolute tolerance
/// under error control), so that a coordinate far smaller than the others (Robertson's
/// `y₂ ≈ 10⁻¹³`) is differenced on its own scale (Hairer's `√(ε · max(10⁻⁵, |yⱼ|))`
/// steps 500 times past it there, and the wrong Jacobian then caps the step near 10³
/// where 10¹⁰ is right). All three zero: `√(10⁻⁵ ε)`, Hairer's floor. The step is taken
/// as the difference it makes after rounding, `(yⱼ + δⱼ) − yⱼ`; a state that does not give
/// its coordinates is differenced with `√ε · max(|h fⱼ|, floorⱼ, 1)`.
///
/// The first banded matrix of a workspace is checked against the forces with one more
/// evaluation ([`Matrix::check_band`]).
///
/// # Errors
///
/// [`StepError::BandTooNarrow`] when the forces have entries outside the band
/// ([`StepError::PatternTooSparse`] outside a sparse pattern); the errors of
/// [`Matrix::prepare`] for a sparse matrix without its pattern.
#[allow(clippy::too_many_arguments)]
pub(crate) fn jacobian<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    t: S::Scalar,
    h: S::Scalar,
    rate: &DerivativeOf<S>,
    floor: impl Fn(usize) -> S::Scalar,
    matrix: &mut Matrix<S::Scalar>,
    work: Differences<'_, S>,
) -> Result<u64, StepError> {
    let Differences {
        coordinates,
        nudge,
        nudged_rate,
        probe,
        steps,
        band_checked,
    } = work;
    matrix.prepare(forces, state)?;
    matrix.clear();
    let has_coordinates = state.coordinates_into(coordinates);
    let sqrt_epsilon = S::Scalar::epsilon().sqrt();
    let hairer_floor = (S::Scalar::epsilon() * S::Scalar::from_f64(1e-5)).sqrt();
    let step = |j: usize| {
        let moved = (h * rate.component(j)).abs().max(floor(j));
        if has_coordinates {
            let y = coordinates.component(j);
            let size = y.abs().max(moved);
            let delta = if size > S::Scalar::zero() {
                sqrt_epsilon * size
            } else {
                hairer_floor
            };
            (y + delta) - y
        } else {
            sqrt_epsilon * moved.max(S::Scalar::one())
        }
    };
    let mut evaluations = 0;
    if !forces.jacobian(state, t, &mut matrix.as_jacobian()) {
        nudge.set_zero();
        for columns in matrix.column_groups() {
            for j in matrix.unknowns(&columns) {
                steps[j] = step(j);
                nudge.set_component(j, steps[j]);
            }
            state.probe_into(nudge, S::Scalar::one(), probe);
            probe.derivative_into(forces, t, nudged_rate);
            evaluations += 1;
            let change = |i| nudged_rate.component(i) - rate.component(i);
            for j in matrix.unknowns(&columns) {
                nudge.set_component(j, S::Scalar::zero());
            }
            matrix.set_differences(columns, steps, change);
        }
    }
    if matrix.is_banded() && !*band_checked {
        for (j, step_j) in steps.iter_mut().enumerate() {
            let y = coordinates.component(j);
            let delta = step(j) * band_weight::<S::Scalar>(j);
            *step_j = if has_coordinates {
                (y + delta) - y
            } else {
                delta
            };
            nudge.set_component(j, *step_j);
        }
        state.probe_into(nudge, S::Scalar::one(), probe);
        probe.derivative_into(forces, t, nudged_rate);
        evaluations += 1;
        matrix.check_band(
            |j| steps[j],
            |i| {
                (
                    nudged_rate.component(i) - rate.component(i),
                    rate.component(i).abs(),
                )
            },
        )?;
        *band_checked = true;
    }
    Ok(evaluations)
}

/// Writes `∂f/∂t` at (`state`, `t`) into `out` by a central difference in time (two force
/// evaluations, `scratch` a rate buffer), with step `δ = ε^(1/3) · max(|t|, |h|)` for a
/// step of `h`: its error, `δ² |f‴|/6 + ε |f|/δ`, is about `ε^(2/3)` relative (4·10⁻¹¹ in
/// `f64`). A forward difference (rodas.f's) errs by `√ε` (10⁻⁸), which a fourth-order
/// method's error falls below at ordinary steps: its global error then stops falling like
/// `h⁴` (tests/timestep/integrators/first_order.rs saw order 3.3 on `y' = cos t`).
pub(crate) fn time_derivative<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    t: S::Scalar,
    h: S::Scalar,
    out: &mut DerivativeOf<S>,
    scratch: &mut DerivativeOf<S>,
) {
    let (later, earlier) = time_difference_times(t, h);
    state.derivative_into(forces, later, out);
    state.derivative_into(forces, earlier, scratch);
    out.add_scaled_assign(scratch, -S::Scalar::one());
    out.scale_assign(S::Scalar::one() / (later - earlier));
}

/// The two times `t ± δ`, `δ = ε^(1/3) · max(|t|, |h|)`, at which [`time_derivative`]
/// samples the rate, as rounded: the difference is taken over `later − earlier`. The
/// adjoint of a Rosenbrock step differentiates that same difference
/// (`src/sensitivity/adjoint/rosenbrock.rs`).
pub(crate) fn time_difference_times<T: Scalar>(t: T, h: T) -> (T, T) {
    let third = T::from_f64(1.0 / 3.0);
    let delta = math::powf(T::epsilon(), third) * t.abs().max(h.abs());
    (t + delta, t - delta)
}
