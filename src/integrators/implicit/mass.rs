//! The constant mass matrix `M` of `M y' = f(t, y)` ([`Forces::mass_matrix`]) as the
//! implicit methods that take one (Radau5, the BDF, the Rosenbrock methods, backward
//! Euler) read and use it: read once into the Jacobian's layout, one Newton step on the
//! algebraic equations (the zero rows of `M`), and the check that a run's start satisfies
//! them.

use crate::linalg::Matrix;
use crate::{Forces, Scalar, State, StepError};

/// Asks `forces` for their mass matrix, in the layout of `jacobian` (which must be
/// [prepared](Matrix::prepare) already, so that a sparse one has its pattern): the matrix,
/// or `None` for `M = I` (forces that give none).
pub(crate) fn read_mass<S: State, F: Forces<S> + ?Sized>(
    forces: &F,
    jacobian: &Matrix<S::Scalar>,
) -> Option<Matrix<S::Scalar>> {
    let mut matrix = jacobian.clone();
    matrix.clear();
    forces
        .mass_matrix(&mut matrix.as_jacobian())
        .then_some(matrix)
}

/// One Newton step on the algebraic equations `0 = fᵢ(t, y)` (the zero rows `i` of
/// `mass`) for the algebraic unknowns `i`, the others held fixed, from the rate `rate(i)`
/// and `jacobian` at the same state: the correction is left in `correction` (0 at the
/// differential unknowns), `scratch` holds the factored Newton matrix afterwards. Returns
/// `false`, and does nothing, when there is no algebraic equation.
///
/// # Errors
///
/// [`StepError::SingularJacobian`] when the algebraic equations do not determine the
/// algebraic unknowns (an index above 1), or as [`Matrix::factor`].
pub(crate) fn algebraic_correction<T: Scalar>(
    mass: &Matrix<T>,
    jacobian: &Matrix<T>,
    scratch: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) -> Result<bool, StepError> {
    if !has_algebraic_equations(mass) {
        return Ok(false);
    }
    scratch.factor_algebraic(jacobian, |i| mass.is_zero_row(i))?;
    solve_algebraic(mass, scratch, rate, correction);
    Ok(true)
}

/// [`algebraic_correction`] with `jacobian` as its own scratch: it holds the factored
/// Newton matrix of the algebraic equations afterwards (the Jacobian is lost).
///
/// # Errors
///
/// As [`algebraic_correction`].
pub(crate) fn algebraic_correction_in_place<T: Scalar>(
    mass: &Matrix<T>,
    jacobian: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) -> Result<bool, StepError> {
    if !has_algebraic_equations(mass) {
        return Ok(false);
    }
    jacobian.factor_algebraic_in_place(|i| mass.is_zero_row(i))?;
    solve_algebraic(mass, jacobian, rate, correction);
    Ok(true)
}

/// Whether `mass` has a zero row: an algebraic equation.
pub(crate) fn has_algebraic_equations<T: Scalar>(mass: &Matrix<T>) -> bool {
    (0..mass.dim()).any(|i| mass.is_zero_row(i))
}

/// The correction of [`algebraic_correction`] with `factored`, the algebraic equations'
/// factored Newton matrix.
fn solve_algebraic<T: Scalar>(
    mass: &Matrix<T>,
    factored: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) {
    let algebraic = |i| mass.is_zero_row(i);
    for (i, value) in correction.iter_mut().enumerate() {
        *value = if algebraic(i) { -rate(i) } else { T::zero() };
    }
    factored.solve(correction);
    // Zero, up to rounding of a pivoted solve: exactly.
    for (i, value) in correction.iter_mut().enumerate() {
        if !algebraic(i) {
            *value = T::zero();
        }
    }
}

/// [`StepError::InconsistentStart`] when some algebraic unknown's correction
/// ([`algebraic_correction`]), `relative(i)` in units of its error tolerance, is above 1
/// (naming the largest); `None` otherwise.
pub(crate) fn inconsistency(n: usize, relative: impl Fn(usize) -> f64) -> Option<StepError> {
    let mut worst = (0, 0.0_f64);
    for i in 0..n {
        let correction = relative(i);
        if correction > worst.1 {
            worst = (i, correction);
        }
    }
    (worst.1 > 1.0).then_some(StepError::InconsistentStart {
        coordinate: worst.0,
        correction: worst.1,
    })
}
