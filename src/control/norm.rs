//! [`ErrorNorm`]: the size of a step's error estimate, measured against the tolerances at
//! the step's two ends.

use super::Tolerances;
use super::tolerances::Values;
use crate::{DerivativeOf, Scalar, State, Vector};
use num_traits::Float;

/// The error norm of [`Tolerances`] for one step from `start` to `end`, reading the two
/// states' coordinates where they are ([`State::coordinate`]): build it once per attempt,
/// then take the [`norm`](ErrorNorm::norm) of any error estimate of that step.
///
/// ```text
/// err = √( (1/n) Σᵢ ( eᵢ / (atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)) )² )
/// ```
///
/// # Example
///
/// ```
/// use timestep::control::ErrorNorm;
/// use timestep::{State, Tolerances};
///
/// let tolerances = Tolerances::new(1e-3, 1e-6);
/// let (start, end) = ([1.0, 0.0], [2.0, 0.0]);
/// let norm = ErrorNorm::new(&tolerances, &start, &end);
/// // The scales are 1e-6 + 1e-3·2 and 1e-6: an error of one scale in the first
/// // coordinate is 1/√2 in the root mean square.
/// let mut error = start.zero_rate();
/// error.force = [2.001e-3, 0.0];
/// assert!((norm.norm(&error, 1.0) - 0.5_f64.sqrt()).abs() < 1e-12);
/// ```
pub struct ErrorNorm<'a, S: State> {
    tolerances: &'a Tolerances,
    start: &'a S,
    end: &'a S,
    has_coordinates: bool,
}

impl<'a, S: State> ErrorNorm<'a, S> {
    /// The norm of `tolerances` for the step from `start` to `end`.
    #[inline(always)]
    #[must_use]
    pub fn new(tolerances: &'a Tolerances, start: &'a S, end: &'a S) -> Self {
        ErrorNorm {
            tolerances,
            start,
            end,
            has_coordinates: start.has_coordinates(),
        }
    }

    /// The tolerances this norm measures with (Radau5 tightens them as radau5.f does).
    #[must_use]
    pub fn tolerances(&self) -> &Tolerances {
        self.tolerances
    }

    /// The norm of `error · factor`: `√((1/n) Σᵢ (factor · eᵢ / scaleᵢ)²)`, where
    /// `scaleᵢ = atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)`. Infinite or `NaN` when the error is.
    #[inline]
    #[must_use]
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
    #[must_use]
    pub fn norms(
        &self,
        first: &DerivativeOf<S>,
        first_factor: f64,
        second: &DerivativeOf<S>,
        second_factor: f64,
    ) -> (f64, f64) {
        let (first_sum, second_sum) = self.square_sums(first, first_factor, second, second_factor);
        let n = first.dim().max(1) as f64;
        ((first_sum / n).sqrt(), (second_sum / n).sqrt())
    }

    /// The sums of squares behind [`norms`](ErrorNorm::norms), `Σᵢ (first_factor ·
    /// firstᵢ / scaleᵢ)²` and the same of `second`, not yet divided by the number of
    /// coordinates nor rooted: a caller that combines the two before taking a root saves
    /// two roots and a division on the way from a step's error to the next step's size.
    #[inline]
    #[must_use]
    pub fn square_sums(
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
            #[cfg(feature = "alloc")]
            _ => (0..n).map(|i| term(i, 1.0 / self.scale(i))).sum(),
        }
    }

    /// `max(|y₀ᵢ|, |y₁ᵢ|)`, for a step whose ends have coordinates.
    #[inline(always)]
    fn size(&self, i: usize) -> f64 {
        let (a, b) = (self.start.coordinate(i), self.end.coordinate(i));
        a.abs().max(b.abs()).to_f64()
    }

    /// The norm of the start's `n` coordinates themselves (0 for a state without them).
    pub(crate) fn start_size(&self, n: usize) -> f64 {
        if !self.has_coordinates {
            return 0.0;
        }
        let mut sum = 0.0;
        for i in 0..n {
            let scaled = self.start.coordinate(i).to_f64() / self.scale(i);
            sum += scaled * scaled;
        }
        (sum / n.max(1) as f64).sqrt()
    }

    /// `atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)`.
    #[inline]
    #[must_use]
    pub fn scale(&self, i: usize) -> f64 {
        let size = if self.has_coordinates {
            self.size(i)
        } else {
            0.0
        };
        self.tolerances.absolute(i) + self.tolerances.relative(i) * size
    }
}
