//! [`Tolerances`] and the error norm they define.

use super::AdaptiveError;
use crate::{DerivativeOf, Scalar, State, Vector};
use num_traits::Float;

/// The relative and absolute tolerances of an adaptive run, and the norm they measure a
/// step's error with (Hairer–Nørsett–Wanner I, II.4):
///
/// ```text
/// err = √( (1/n) Σᵢ ( eᵢ / (atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)) )² )
/// ```
///
/// over the `n` coordinates of the state's rate (positions and momenta), where `y₀` and
/// `y₁` are the state's coordinates before and after the step
/// ([`State::coordinates_into`]; a state that does not give them is measured with the
/// absolute tolerance alone). A step is accepted when `err ≤ 1`. The tolerances are the
/// same for every coordinate ([`new`](Tolerances::new)) or one per coordinate
/// ([`per_component`](Tolerances::per_component)).
///
/// ```
/// use timestep::adaptive::Tolerances;
///
/// let t = Tolerances::new(1e-8, 1e-10);
/// assert_eq!((t.relative(0), t.absolute(5)), (1e-8, 1e-10));
/// // Robertson's kinetics: y₂ is ten thousand times smaller than y₁ and y₃.
/// let t = Tolerances::per_component(vec![1e-8; 3], vec![1e-12, 1e-16, 1e-12]);
/// assert_eq!(t.absolute(1), 1e-16);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerances {
    relative: Values,
    absolute: Values,
}

/// One tolerance for all coordinates, or one each.
#[derive(Clone, Debug, PartialEq)]
enum Values {
    Scalar(f64),
    #[cfg(feature = "alloc")]
    PerComponent(alloc::vec::Vec<f64>),
}

impl Values {
    #[inline]
    fn at(&self, i: usize) -> f64 {
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
    pub fn relative(&self, i: usize) -> f64 {
        self.relative.at(i)
    }

    /// The absolute tolerance of coordinate `i`.
    ///
    /// # Panics
    ///
    /// If the tolerances are per component and `i` is beyond them.
    #[inline]
    pub fn absolute(&self, i: usize) -> f64 {
        self.absolute.at(i)
    }

    /// Checks the tolerances for a state whose rate has `dim` coordinates.
    pub(super) fn check(&self, dim: usize) -> Result<(), AdaptiveError> {
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

/// The error norm of [`Tolerances`] for one step, with the buffers it reads the state's
/// coordinates into: [`measure`](ErrorNorm::measure) the step's two ends once, then take
/// the [`norm`](ErrorNorm::norm) of any error estimate of that step.
pub struct ErrorNorm<'a, S: State> {
    tolerances: &'a Tolerances,
    start: &'a mut DerivativeOf<S>,
    end: &'a mut DerivativeOf<S>,
    has_coordinates: bool,
}

impl<'a, S: State> ErrorNorm<'a, S> {
    /// The norm of `tolerances`, reading coordinates into `start` and `end` (rates of the
    /// state's size).
    pub(crate) fn new(
        tolerances: &'a Tolerances,
        start: &'a mut DerivativeOf<S>,
        end: &'a mut DerivativeOf<S>,
    ) -> Self {
        ErrorNorm {
            tolerances,
            start,
            end,
            has_coordinates: false,
        }
    }

    /// The tolerances this norm measures with (Radau5 tightens them as radau5.f does).
    pub fn tolerances(&self) -> &Tolerances {
        self.tolerances
    }

    /// Takes the sizes the relative tolerance scales with from the step's two ends.
    pub fn measure(&mut self, start: &S, end: &S) {
        self.has_coordinates = start.coordinates_into(self.start) && end.coordinates_into(self.end);
    }

    /// The norm of `error · factor` for the step last [`measure`](ErrorNorm::measure)d:
    /// `√((1/n) Σᵢ (factor · eᵢ / scaleᵢ)²)`, where `scaleᵢ = atolᵢ + rtolᵢ · max(|y₀ᵢ|,
    /// |y₁ᵢ|)`. Infinite or `NaN` when the error is.
    #[inline]
    pub fn norm(&self, error: &DerivativeOf<S>, factor: f64) -> f64 {
        let n = error.dim();
        let sum = self.sum_over(n, |i, weight| {
            let scaled = error.component(i).to_f64() * factor * weight;
            scaled * scaled
        });
        (sum / n.max(1) as f64).sqrt()
    }

    /// The norms of two error estimates of the same step, in one pass (the scales computed
    /// once): [`norm`](ErrorNorm::norm)`(first, first_factor)` and
    /// `norm(second, second_factor)`.
    #[inline]
    pub fn norms(
        &self,
        first: &DerivativeOf<S>,
        first_factor: f64,
        second: &DerivativeOf<S>,
        second_factor: f64,
    ) -> (f64, f64) {
        let n = first.dim();
        let mut second_sum = 0.0;
        let first_sum = self.sum_over(n, |i, weight| {
            let a = first.component(i).to_f64() * first_factor * weight;
            let b = second.component(i).to_f64() * second_factor * weight;
            second_sum += b * b;
            a * a
        });
        let n = n.max(1) as f64;
        ((first_sum / n).sqrt(), (second_sum / n).sqrt())
    }

    /// The sums of squares behind [`norms`](ErrorNorm::norms), `Σᵢ (first_factor ·
    /// firstᵢ / scaleᵢ)²` and the same of `second`, not yet divided by the number of
    /// coordinates nor rooted: a caller that combines the two before taking a root saves
    /// two roots and a division on the way from a step's error to the next step's size.
    #[inline]
    pub(crate) fn square_sums(
        &self,
        first: &DerivativeOf<S>,
        first_factor: f64,
        second: &DerivativeOf<S>,
        second_factor: f64,
    ) -> (f64, f64) {
        let n = first.dim();
        let mut second_sum = 0.0;
        let first_sum = self.sum_over(n, |i, weight| {
            let a = first.component(i).to_f64() * first_factor * weight;
            let b = second.component(i).to_f64() * second_factor * weight;
            second_sum += b * b;
            a * a
        });
        (first_sum, second_sum)
    }

    /// `Σᵢ term(i, 1/scaleᵢ)`. The common case, one tolerance pair for all coordinates, has
    /// a loop of its own: the norm runs once or twice per step, over every coordinate.
    #[inline(always)]
    fn sum_over(&self, n: usize, mut term: impl FnMut(usize, f64) -> f64) -> f64 {
        match (&self.tolerances.relative, &self.tolerances.absolute) {
            (Values::Scalar(relative), Values::Scalar(absolute)) if self.has_coordinates => (0..n)
                .map(|i| term(i, 1.0 / (absolute + relative * self.size(i))))
                .sum(),
            (Values::Scalar(_), Values::Scalar(absolute)) => {
                let weight = 1.0 / absolute;
                (0..n).map(|i| term(i, weight)).sum()
            }
            _ => (0..n).map(|i| term(i, 1.0 / self.scale(i))).sum(),
        }
    }

    /// `max(|y₀ᵢ|, |y₁ᵢ|)`, for a step whose ends have coordinates.
    #[inline(always)]
    fn size(&self, i: usize) -> f64 {
        let (a, b) = (self.start.component(i), self.end.component(i));
        a.abs().max(b.abs()).to_f64()
    }

    /// The norm of the start's coordinates themselves (0 for a state without them).
    pub fn start_size(&self) -> f64 {
        if !self.has_coordinates {
            return 0.0;
        }
        let n = self.start.dim();
        let mut sum = 0.0;
        for i in 0..n {
            let scaled = self.start.component(i).to_f64() / self.scale(i);
            sum += scaled * scaled;
        }
        (sum / n.max(1) as f64).sqrt()
    }

    /// `atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)`.
    #[inline]
    pub fn scale(&self, i: usize) -> f64 {
        let size = if self.has_coordinates {
            self.size(i)
        } else {
            0.0
        };
        self.tolerances.absolute(i) + self.tolerances.relative(i) * size
    }
}
