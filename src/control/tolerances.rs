//! [`Tolerances`], [`ComponentTolerances`] and the [`ToleranceSet`] trait the error norm reads
//! them through.

use crate::AdaptiveError;

/// The relative and absolute tolerance of an adaptive run, the same for every coordinate,
/// and the norm they measure a step's error with (Hairer–Nørsett–Wanner I, II.4):
///
/// ```text
/// err = √( (1/n) Σᵢ ( eᵢ / (atol + rtol · max(|y₀ᵢ|, |y₁ᵢ|)) )² )
/// ```
///
/// over the `n` coordinates of the state's rate (positions and momenta), where `y₀` and
/// `y₁` are the state's coordinates before and after the step
/// ([`State::coordinate`](crate::State::coordinate); a state that does not give them is
/// measured with the absolute tolerance alone). A step is accepted when `err ≤ 1`.
///
/// `Copy`, so one value serves many runs. Coordinates of very different sizes (Robertson's
/// kinetics) want one tolerance each: [`ComponentTolerances`].
///
/// Zero, negative, infinite and `NaN` values are accepted here and refused when a run
/// starts ([`AdaptiveError::InvalidTolerance`]): each must be finite and not negative, and
/// not both zero. A zero relative tolerance (pure absolute error control) and a zero
/// absolute tolerance (pure relative, for a solution that never passes through zero) are
/// both valid.
///
/// ```
/// use timestep::Tolerances;
///
/// let tight = Tolerances::new(1e-8, 1e-10);
/// let copy = tight;
/// assert_eq!((tight.relative(), copy.absolute()), (1e-8, 1e-10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Tolerances {
    relative: f64,
    absolute: f64,
}

impl Tolerances {
    /// Tolerances `relative` and `absolute` for every coordinate, checked when a run starts.
    #[must_use]
    pub const fn new(relative: f64, absolute: f64) -> Self {
        Tolerances { relative, absolute }
    }

    /// The relative tolerance.
    #[must_use]
    pub const fn relative(&self) -> f64 {
        self.relative
    }

    /// The absolute tolerance.
    #[must_use]
    pub const fn absolute(&self) -> f64 {
        self.absolute
    }
}

impl Default for Tolerances {
    /// 10⁻⁶ relative and absolute, what [`Adaptive::new`](crate::Adaptive::new) starts with.
    fn default() -> Self {
        Tolerances::new(1e-6, 1e-6)
    }
}

/// One relative and one absolute tolerance per coordinate of the state's rate, in the
/// order of its coordinates ([`Vector::component`](crate::Vector::component)): for
/// solutions whose components differ by orders of magnitude. The norm is that of
/// [`Tolerances`], with `atolᵢ` and `rtolᵢ` in place of `atol` and `rtol`.
///
/// Checked when a run starts ([`AdaptiveError::InvalidTolerance`]): as many of each as the
/// state has coordinates (none is refused too), each finite and not negative, and not both
/// zero for any coordinate.
///
/// ```
/// use timestep::ComponentTolerances;
///
/// // Robertson's kinetics: y₂ is ten thousand times smaller than y₁ and y₃.
/// let t = ComponentTolerances::new(vec![1e-8; 3], vec![1e-12, 1e-16, 1e-12]);
/// assert_eq!((t.relative()[1], t.absolute()[1]), (1e-8, 1e-16));
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ComponentTolerances {
    relative: alloc::vec::Vec<f64>,
    absolute: alloc::vec::Vec<f64>,
}

#[cfg(feature = "alloc")]
impl ComponentTolerances {
    /// The tolerances `relative[i]` and `absolute[i]` for coordinate `i`, checked when a run
    /// starts.
    #[must_use]
    pub fn new(relative: alloc::vec::Vec<f64>, absolute: alloc::vec::Vec<f64>) -> Self {
        ComponentTolerances { relative, absolute }
    }

    /// The relative tolerances, one per coordinate.
    #[must_use]
    pub fn relative(&self) -> &[f64] {
        &self.relative
    }

    /// The absolute tolerances, one per coordinate.
    #[must_use]
    pub fn absolute(&self) -> &[f64] {
        &self.absolute
    }
}

/// What the error norm reads: a relative and an absolute tolerance for each coordinate.
/// [`Tolerances`] and [`ComponentTolerances`] are the two; a method with error control
/// takes any of them ([`AdaptiveMethod::attempt`](super::AdaptiveMethod::attempt)) and
/// measures with [`ErrorNorm`](super::ErrorNorm).
pub trait ToleranceSet {
    /// The relative tolerance of coordinate `i` (in range once [`check`](ToleranceSet::check)ed
    /// for the state's size).
    fn relative_at(&self, i: usize) -> f64;

    /// The absolute tolerance of coordinate `i`.
    fn absolute_at(&self, i: usize) -> f64;

    /// `(relative, absolute)` when every coordinate has the same: the norm's common case,
    /// measured in a loop of its own.
    fn uniform(&self) -> Option<(f64, f64)>;

    /// Checks the tolerances for a state whose rate has `dim` coordinates.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError::InvalidTolerance`] for a non-finite or negative tolerance, a
    /// coordinate whose two tolerances are both zero, or a count other than `dim`.
    fn check(&self, dim: usize) -> Result<(), AdaptiveError>;
}

/// A tolerance pair is valid when both are finite and not negative, and not both zero.
fn valid(relative: f64, absolute: f64) -> bool {
    let usable = |x: f64| x.is_finite() && x >= 0.0;
    usable(relative) && usable(absolute) && (relative > 0.0 || absolute > 0.0)
}

impl ToleranceSet for Tolerances {
    #[inline(always)]
    fn relative_at(&self, _: usize) -> f64 {
        self.relative
    }

    #[inline(always)]
    fn absolute_at(&self, _: usize) -> f64 {
        self.absolute
    }

    #[inline(always)]
    fn uniform(&self) -> Option<(f64, f64)> {
        Some((self.relative, self.absolute))
    }

    fn check(&self, _: usize) -> Result<(), AdaptiveError> {
        if valid(self.relative, self.absolute) {
            Ok(())
        } else {
            Err(AdaptiveError::InvalidTolerance {
                relative: self.relative,
                absolute: self.absolute,
            })
        }
    }
}

#[cfg(feature = "alloc")]
impl ToleranceSet for ComponentTolerances {
    #[inline]
    fn relative_at(&self, i: usize) -> f64 {
        self.relative[i]
    }

    #[inline]
    fn absolute_at(&self, i: usize) -> f64 {
        self.absolute[i]
    }

    #[inline]
    fn uniform(&self) -> Option<(f64, f64)> {
        None
    }

    fn check(&self, dim: usize) -> Result<(), AdaptiveError> {
        let count = |n: usize| if n == dim { None } else { Some(n) };
        if let Some(count) = count(self.relative.len()).or(count(self.absolute.len())) {
            return Err(AdaptiveError::ToleranceCount {
                count,
                coordinates: dim,
            });
        }
        let pairs = self.relative.iter().zip(&self.absolute);
        match pairs.map(|(&r, &a)| (r, a)).find(|&(r, a)| !valid(r, a)) {
            Some((relative, absolute)) => {
                Err(AdaptiveError::InvalidTolerance { relative, absolute })
            }
            None => Ok(()),
        }
    }
}

/// The tolerances a driver holds: the same for all coordinates, or one each.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AnyTolerances {
    Uniform(Tolerances),
    #[cfg(feature = "alloc")]
    PerComponent(ComponentTolerances),
}

impl ToleranceSet for AnyTolerances {
    #[inline]
    fn relative_at(&self, i: usize) -> f64 {
        match self {
            AnyTolerances::Uniform(tolerances) => tolerances.relative_at(i),
            #[cfg(feature = "alloc")]
            AnyTolerances::PerComponent(tolerances) => tolerances.relative_at(i),
        }
    }

    #[inline]
    fn absolute_at(&self, i: usize) -> f64 {
        match self {
            AnyTolerances::Uniform(tolerances) => tolerances.absolute_at(i),
            #[cfg(feature = "alloc")]
            AnyTolerances::PerComponent(tolerances) => tolerances.absolute_at(i),
        }
    }

    #[inline(always)]
    fn uniform(&self) -> Option<(f64, f64)> {
        match self {
            AnyTolerances::Uniform(tolerances) => tolerances.uniform(),
            #[cfg(feature = "alloc")]
            AnyTolerances::PerComponent(_) => None,
        }
    }

    fn check(&self, dim: usize) -> Result<(), AdaptiveError> {
        match self {
            AnyTolerances::Uniform(tolerances) => tolerances.check(dim),
            #[cfg(feature = "alloc")]
            AnyTolerances::PerComponent(tolerances) => tolerances.check(dim),
        }
    }
}
