//! The constant mass matrix `M` of `M y' = f(t, y)` ([`Forces::mass_matrix`]) as the
//! implicit methods that take one (Radau5, the BDF, the Rosenbrock methods, backward
//! Euler) hold and use it: [`Mass`], read once into the Jacobian's layout with its
//! algebraic equations (the zero rows of `M`) found once; one Newton step on the algebraic
//! equations; and the check that a run's start satisfies them.

use crate::linalg::{Buffer, Matrix};
use crate::{Forces, Scalar, State, StepError};

/// A mass matrix as a workspace holds it: on the heap with `alloc`, so that a workspace
/// without one stays the size it was (a dense matrix of 16 unknowns is 2 KiB inline).
#[cfg(feature = "alloc")]
type Held<T> = alloc::boxed::Box<T>;

/// A mass matrix as a workspace holds it: inline without `alloc`.
#[cfg(not(feature = "alloc"))]
#[derive(Clone, Debug)]
struct Held<T>(T);

#[cfg(not(feature = "alloc"))]
impl<T> core::ops::Deref for Held<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// `value`, held.
fn hold<T>(value: T) -> Held<T> {
    #[cfg(feature = "alloc")]
    return alloc::boxed::Box::new(value);
    #[cfg(not(feature = "alloc"))]
    return Held(value);
}

/// The forces' mass matrix as a workspace knows it: whether the forces have been asked,
/// `M` (none: the identity), which of its rows are zero (the algebraic equations, found
/// once when `M` is read: a Jacobian's difference steps and every step's algebraic
/// Newton step look them up), and whether a run's start has been checked against them.
/// Not saved with a workspace: read again after loading.
#[derive(Clone, Debug)]
pub(crate) struct Mass<T: Scalar> {
    given: Option<Held<Given<T>>>,
    read: bool,
    /// Whether the start of the run has been checked against the algebraic equations
    /// (set by the method once it has; true at once without a singular `M`).
    pub(crate) checked: bool,
}

impl<T: Scalar> Default for Mass<T> {
    fn default() -> Self {
        Mass {
            given: None,
            read: false,
            checked: false,
        }
    }
}

/// A mass matrix the forces gave.
#[derive(Clone, Debug)]
struct Given<T: Scalar> {
    matrix: Matrix<T>,
    /// `algebraic[i]`: row `i` of `M` is zero.
    algebraic: Buffer<bool>,
    /// Some row is zero: a differential-algebraic system.
    singular: bool,
}

impl<T: Scalar> Mass<T> {
    /// Asks `forces` for their mass matrix, once (a no-op afterwards), in the layout of
    /// `layout` (which must be [prepared](Matrix::prepare) already, so that a sparse one
    /// has its pattern).
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when the mask of algebraic equations cannot be
    /// made (no `alloc`).
    pub(crate) fn read<S: State<Scalar = T>, F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        layout: &Matrix<T>,
    ) -> Result<(), StepError> {
        if !self.read {
            self.set(read_mass(forces, layout))?;
        }
        Ok(())
    }

    /// Holds `matrix` (`None`: the identity) as the forces' mass matrix, read.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    #[inline]
    pub(crate) fn set(&mut self, matrix: Option<Matrix<T>>) -> Result<(), StepError> {
        self.read = true;
        match matrix {
            Some(matrix) => self.hold(matrix),
            None => {
                self.given = None;
                Ok(())
            }
        }
    }

    /// Holds `matrix`, with its algebraic equations found.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    fn hold(&mut self, matrix: Matrix<T>) -> Result<(), StepError> {
        let mut algebraic = Buffer::zeroed(matrix.dim())?;
        for (i, zero) in algebraic.iter_mut().enumerate() {
            *zero = matrix.is_zero_row(i);
        }
        let singular = algebraic.iter().any(|&zero| zero);
        self.given = Some(hold(Given {
            matrix,
            algebraic,
            singular,
        }));
        Ok(())
    }

    /// Whether the forces have been asked.
    #[inline]
    pub(crate) fn is_read(&self) -> bool {
        self.read
    }

    /// `M`, or `None` for the identity.
    #[inline]
    pub(crate) fn matrix(&self) -> Option<&Matrix<T>> {
        self.given.as_deref().map(|given| &given.matrix)
    }

    /// Which unknowns are algebraic (`algebraic[i]`: row `i` of `M` is zero), or `None`
    /// when none is.
    #[inline]
    pub(crate) fn algebraic(&self) -> Option<&[bool]> {
        self.given
            .as_deref()
            .filter(|given| given.singular)
            .map(|given| &given.algebraic[..])
    }

    /// Whether `M` has a zero row: an algebraic equation.
    #[inline]
    pub(crate) fn is_singular(&self) -> bool {
        self.algebraic().is_some()
    }
}

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
    mass: &Mass<T>,
    jacobian: &Matrix<T>,
    scratch: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) -> Result<bool, StepError> {
    let Some(algebraic) = mass.algebraic() else {
        return Ok(false);
    };
    scratch.factor_algebraic(jacobian, |i| algebraic[i])?;
    solve_algebraic(algebraic, scratch, rate, correction);
    Ok(true)
}

/// [`algebraic_correction`] with `jacobian` as its own scratch: it holds the factored
/// Newton matrix of the algebraic equations afterwards (the Jacobian is lost).
///
/// # Errors
///
/// As [`algebraic_correction`].
pub(crate) fn algebraic_correction_in_place<T: Scalar>(
    mass: &Mass<T>,
    jacobian: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) -> Result<bool, StepError> {
    let Some(algebraic) = mass.algebraic() else {
        return Ok(false);
    };
    jacobian.factor_algebraic_in_place(|i| algebraic[i])?;
    solve_algebraic(algebraic, jacobian, rate, correction);
    Ok(true)
}

/// The correction of [`algebraic_correction`] with `factored`, the algebraic equations'
/// factored Newton matrix, `algebraic` their rows.
fn solve_algebraic<T: Scalar>(
    algebraic: &[bool],
    factored: &mut Matrix<T>,
    rate: impl Fn(usize) -> T,
    correction: &mut [T],
) {
    for (i, value) in correction.iter_mut().enumerate() {
        *value = if algebraic[i] { -rate(i) } else { T::zero() };
    }
    factored.solve(correction);
    // Zero, up to rounding of a pivoted solve: exactly.
    for (i, value) in correction.iter_mut().enumerate() {
        if !algebraic[i] {
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

/// Where a differential-algebraic system's index-2 and index-3 unknowns start
/// (radau5.f's `NIND1`, `NIND1 + NIND2`): unknowns `index2..index3` are of index 2, and
/// `index3..` of index 3; [`NONE`](Self::NONE) (both `usize::MAX`) when every unknown is of
/// index 0 or 1. Radau5 and backward Euler take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct HigherIndex {
    pub(crate) index2: usize,
    pub(crate) index3: usize,
}

impl HigherIndex {
    /// Every unknown of index 0 or 1.
    pub(crate) const NONE: HigherIndex = HigherIndex {
        index2: usize::MAX,
        index3: usize::MAX,
    };

    /// Whether some unknown of a system of `n` is of index 2 or 3.
    #[inline]
    pub(crate) fn within(&self, n: usize) -> bool {
        self.index2 < n
    }

    /// The power of `|h|` that divides unknown `i`'s tolerance (radau5.f's
    /// `SCAL(I)/HHFAC`): 0 below index 2, 1 at index 2, 2 at index 3.
    #[inline]
    pub(crate) fn power(&self, i: usize) -> i32 {
        if i >= self.index3 {
            2
        } else if i >= self.index2 {
            1
        } else {
            0
        }
    }
}

/// [`StepError::InconsistentStart`] when some algebraic equation `0 = fᵢ(t, y)` (a zero
/// row `i` of `mass`, with `rate(i) = fᵢ(t, y)`) is further from holding than the
/// tolerances allow, naming the worst; `None` otherwise. The check of a start of index 2
/// or 3, whose algebraic equations do not determine their unknowns, so that
/// [`algebraic_correction`] has no Newton step to take: to first order a change `δ` of the
/// unknowns moves `fᵢ` by `Σⱼ ∂fᵢ/∂yⱼ δⱼ`, so `|fᵢ| / Σⱼ |∂fᵢ/∂yⱼ| scale(j)` (from
/// `jacobian` at the start) is the least any correction of the start must move some
/// unknown, in units of its tolerance `scale(j)`: above 1, no start within the
/// tolerances of this one satisfies equation `i`. An equation whose row of the Jacobian
/// is zero is judged by `|fᵢ| / scale(i)`. Only the algebraic equations are checked: the
/// hidden constraints of index 2 and 3 (the derivatives of `0 = g(y)` along the
/// solution) would need derivatives of `g` the forces do not give.
pub(crate) fn residual_inconsistency<T: Scalar>(
    mass: &Mass<T>,
    jacobian: &Matrix<T>,
    rate: impl Fn(usize) -> T,
    scale: impl Fn(usize) -> T,
) -> Option<StepError> {
    let algebraic = mass.algebraic()?;
    let relative = |i: usize| {
        if !algebraic[i] {
            return 0.0;
        }
        let reach = jacobian.weighted_row_sum(i, &scale);
        let reach = if reach > T::zero() { reach } else { scale(i) };
        // A non-finite residual is refused here too: no tolerance covers it.
        let residual = rate(i).abs();
        if residual.is_finite() {
            (residual / reach).to_f64()
        } else {
            f64::INFINITY
        }
    };
    inconsistency(algebraic.len(), relative)
}
