//! Newton's method taken to round-off, as the implicit methods' adjoints take their steps
//! again (Radau5's stages, the BDF's corrector, a one-stage method's rate): when it stops,
//! when it takes a new matrix, and what it says when it cannot.

use crate::Scalar;
use crate::sensitivity::SensitivityError;

/// Newton iterations allowed to solve one step's equations to round-off.
pub(super) const MAX_ITERATIONS: usize = 20;

/// The equations are solved when Newton's update moves no coordinate by more than this
/// many units of round-off of the larger of it and the start.
const CONVERGED_ULPS: f64 = 4.0;

/// Updates that stop shrinking within this many units of round-off are rounding: solved.
const STALLED_ULPS: f64 = 1e3;

/// What the iteration does after an update.
pub(super) enum Next {
    /// The equations are solved.
    Solved,
    /// Iterate again; with a new matrix at the iterate when `refresh` (the update shrank by
    /// less than half).
    Again {
        /// Whether to take a new matrix.
        refresh: bool,
    },
}

/// After an update whose largest coordinate, relative to the larger of it and the start,
/// is `size` (the one before: `previous`), in the step from `time`.
///
/// # Errors
///
/// [`SensitivityError::StagesNotSolved`] for a size that is not finite.
pub(super) fn next<T: Scalar>(size: T, previous: T, time: T) -> Result<Next, SensitivityError> {
    let epsilon = T::epsilon();
    if !size.is_finite() {
        return Err(not_solved(time));
    }
    if size <= T::from_f64(CONVERGED_ULPS) * epsilon
        || (size >= previous && size <= T::from_f64(STALLED_ULPS) * epsilon)
    {
        return Ok(Next::Solved);
    }
    Ok(Next::Again {
        refresh: size > T::from_f64(0.5) * previous,
    })
}

/// The step from `time` whose equations could not be solved again.
pub(super) fn not_solved<T: Scalar>(time: T) -> SensitivityError {
    SensitivityError::StagesNotSolved {
        time: time.to_f64(),
    }
}
