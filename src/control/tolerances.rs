//! [`Tolerances`] and the error norm they define.

use crate::AdaptiveError;

/// The relative and absolute tolerances of an adaptive run, and the norm they measure a
/// step's error with (Hairer–Nørsett–Wanner I, II.4):
///
/// ```text
/// err = √( (1/n) Σᵢ ( eᵢ / (atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)) )² )
/// ```
///
/// over the `n` coordinates of the state's rate (positions and momenta), where `y₀` and
/// `y₁` are the state's coordinates before and after the step
/// ([`State::coordinate`](crate::State::coordinate); a state that does not give them is measured with the
/// absolute tolerance alone). A step is accepted when `err ≤ 1`. The tolerances are the
/// same for every coordinate ([`new`](Tolerances::new)) or one per coordinate
/// ([`per_component`](Tolerances::per_component)).
///
/// ```
/// use timestep::Tolerances;
///
/// let t = Tolerances::new(1e-8, 1e-10);
/// assert_eq!((t.relative(0), t.absolute(5)), (1e-8, 1e-10));
/// // Robertson's kinetics: y₂ is ten thousand times smaller than y₁ and y₃.
/// let t = Tolerances::per_component(vec![1e-8; 3], vec![1e-12, 1e-16, 1e-12]);
/// assert_eq!(t.absolute(1), 1e-16);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerances {
    pub(super) relative: Values,
    pub(super) absolute: Values,
}

/// One tolerance for all coordinates, or one each.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Values {
    Scalar(f64),
    #[cfg(feature = "alloc")]
    PerComponent(alloc::vec::Vec<f64>),
}

impl Values {
    #[inline]
    pub(super) fn at(&self, i: usize) -> f64 {
        let _ = i; // unused when only scalars exist (no `alloc`)
        match self {
            Values::Scalar(value) => *value,
            #[cfg(feature = "alloc")]
            Values::PerComponent(values) => values[i],
        }
    }

    fn all(&self, mut check: impl FnMut(f64) -> bool) -> bool {
        match self {
            Values::Scalar(value) => check(*value),
            #[cfg(feature = "alloc")]
            Values::PerComponent(values) => values.iter().all(|v| check(*v)),
        }
    }

    fn len(&self) -> Option<usize> {
        match self {
            Values::Scalar(_) => None,
            #[cfg(feature = "alloc")]
            Values::PerComponent(values) => Some(values.len()),
        }
    }
}

impl Tolerances {
    /// Tolerances `relative` and `absolute` for every coordinate, checked when a run starts
    /// (finite, not negative, not both zero).
    #[must_use]
    pub const fn new(relative: f64, absolute: f64) -> Self {
        Tolerances {
            relative: Values::Scalar(relative),
            absolute: Values::Scalar(absolute),
        }
    }

    /// One relative and one absolute tolerance per coordinate of the state's rate (in the
    /// order of [`Derivative`](crate::Derivative)'s coordinates), checked when a run starts:
    /// each finite and not negative, not both zero, and as many as the state has
    /// coordinates.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn per_component(relative: alloc::vec::Vec<f64>, absolute: alloc::vec::Vec<f64>) -> Self {
        Tolerances {
            relative: Values::PerComponent(relative),
            absolute: Values::PerComponent(absolute),
        }
    }

    /// The relative tolerance of coordinate `i`.
    ///
    /// # Panics
    ///
    /// If the tolerances are per component and `i` is beyond them.
    #[inline]
    #[must_use]
    pub fn relative(&self, i: usize) -> f64 {
        self.relative.at(i)
    }

    /// The absolute tolerance of coordinate `i`.
    ///
    /// # Panics
    ///
    /// If the tolerances are per component and `i` is beyond them.
    #[inline]
    #[must_use]
    pub fn absolute(&self, i: usize) -> f64 {
        self.absolute.at(i)
    }

    /// Checks the tolerances for a state whose rate has `dim` coordinates.
    pub(crate) fn check(&self, dim: usize) -> Result<(), AdaptiveError> {
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        let sizes_match = [self.relative.len(), self.absolute.len()]
            .into_iter()
            .all(|len| len.is_none_or(|len| len == dim));
        let positive = |i: usize| self.relative.at(i) > 0.0 || self.absolute.at(i) > 0.0;
        let per_component = self.relative.len().is_some() || self.absolute.len().is_some();
        let some_positive = sizes_match
            && if per_component {
                (0..dim).all(positive)
            } else {
                positive(0)
            };
        if sizes_match && self.relative.all(valid) && self.absolute.all(valid) && some_positive {
            Ok(())
        } else {
            Err(AdaptiveError::InvalidTolerance {
                relative: self.relative.at(0),
                absolute: self.absolute.at(0),
            })
        }
    }
}
