//! [`ErrorNorm`]: the size of a step's error estimate, measured against the tolerances at
//! the step's two ends.

use super::ToleranceSet;
use crate::math::max_of;
use crate::{DerivativeOf, Scalar, State, Vector};
use num_traits::Float;

/// The error norm of a [`ToleranceSet`] ([`Tolerances`](super::Tolerances) or
/// [`ComponentTolerances`](super::ComponentTolerances)) for one step from `start` to `end`, reading the two
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
pub struct ErrorNorm<'a, S: State, T: ToleranceSet> {
    tolerances: &'a T,
    start: &'a S,
    end: &'a S,
    has_coordinates: bool,
}

impl<'a, S: State, T: ToleranceSet> ErrorNorm<'a, S, T> {
    /// The norm of `tolerances` for the step from `start` to `end`.
    #[inline(always)]
    #[must_use]
    pub fn new(tolerances: &'a T, start: &'a S, end: &'a S) -> Self {
        ErrorNorm {
            tolerances,
            start,
            end,
            has_coordinates: start.has_coordinates(),
        }
    }

    /// The tolerances this norm measures with (Radau5 tightens them as radau5.f does).
    #[must_use]
    pub fn tolerances(&self) -> &T {
        self.tolerances
    }

    /// The norm of `error · factor`: `√((1/n) Σᵢ (factor · eᵢ / scaleᵢ)²)`, where
    /// `scaleᵢ = atolᵢ + rtolᵢ · max(|y₀ᵢ|, |y₁ᵢ|)`. Infinite or `NaN` when the error is.
    #[inline]
    #[must_use]
    pub fn norm(&self, error: &DerivativeOf<S>, factor: f64) -> f64 {
        let n = error.dim();
        let sum = self.zipped_sums([error], [factor]).map_or_else(
            || {
                self.sum_over(n, |i, weight| {
                    let scaled = error.component(i).to_f64() * factor * weight;
                    scaled * scaled
                })
            },
            |[sum]| sum,
        );
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
        if let Some([first_sum, second_sum]) =
            self.zipped_sums([first, second], [first_factor, second_factor])
        {
            return (first_sum, second_sum);
        }
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

    /// The sums of squares of `errors · factors` over the coordinates as the state zips
    /// them with the errors ([`State::zip_coordinates`]), in order, with the roundings of
    /// [`sum_over`](Self::sum_over)'s loop for one tolerance pair (the first sum `NaN` when
    /// the end is not finite); `None` for a state that does not zip its coordinates or
    /// for other tolerances.
    #[inline(always)]
    fn zipped_sums<const K: usize>(
        &self,
        errors: [&DerivativeOf<S>; K],
        factors: [f64; K],
    ) -> Option<[f64; K]> {
        let (relative, absolute) = self.tolerances.uniform()?;
        if !(self.has_coordinates && absolute > 0.0) {
            return None;
        }
        let mut sums = [-0.0; K];
        let zipped = self
            .start
            .zip_coordinates(self.end, errors, |start, end, errors| {
                let end = end.to_f64();
                let weight = inverse_scale(relative, absolute, start.abs().to_f64(), end.abs());
                for (k, (sum, error)) in sums.iter_mut().zip(errors).enumerate() {
                    let scaled = error.to_f64() * factors[k] * weight;
                    let end = if k == 0 { 0.0 * end } else { 0.0 };
                    *sum += scaled * scaled + end;
                }
            });
        zipped.then_some(sums)
    }

    /// `Σᵢ term(i, 1/scaleᵢ)`, `NaN` when the step's end has a coordinate that is not
    /// finite: that coordinate's scale would be infinite and weigh nothing, and a step
    /// that overflowed would pass (`0 · yᵢ` added to each term is 0 or `NaN`). The common
    /// case, one tolerance pair for all coordinates with an absolute tolerance above zero,
    /// has a loop of its own: the norm runs once or twice per step, over every coordinate.
    #[inline(always)]
    fn sum_over(&self, n: usize, mut term: impl FnMut(usize, f64) -> f64) -> f64 {
        let end = |i: usize| 0.0 * self.end.coordinate(i).to_f64();
        match self.tolerances.uniform() {
            Some((relative, absolute)) if self.has_coordinates && absolute > 0.0 => {
                const BLOCK: usize = 8;
                let weight = |i: usize| {
                    let start = self.start.coordinate(i).abs().to_f64();
                    let end = self.end.coordinate(i).abs().to_f64();
                    inverse_scale(relative, absolute, start, end)
                };
                if DerivativeOf::<S>::fixed_zero().is_none() {
                    // A `Vec`, whose reads are checked: in blocks, DOP853 took 1–1.5 % more.
                    return (0..n).map(|i| term(i, weight(i)) + end(i)).sum();
                }
                // For a state of fixed size, the weights eight at a time in a loop of their
                // own, which vectorises (a division and a `max` for two coordinates at
                // once), then the terms added in order, as the sum must be: the roundings of
                // one loop over both (DOP853 on 28 to 1000 unknowns: 6–9 % fewer
                // instructions, Dopri5 9–13 %).
                let mut sum = -0.0;
                let whole = n - n % BLOCK;
                for from in (0..whole).step_by(BLOCK) {
                    let weights: [f64; BLOCK] = core::array::from_fn(|k| weight(from + k));
                    for (k, w) in weights.into_iter().enumerate() {
                        sum += term(from + k, w) + end(from + k);
                    }
                }
                for i in whole..n {
                    sum += term(i, weight(i)) + end(i);
                }
                sum
            }
            Some((_, absolute)) if !self.has_coordinates && absolute > 0.0 => {
                let weight = 1.0 / absolute;
                (0..n).map(|i| term(i, weight)).sum()
            }
            _ => (0..n)
                .map(|i| term(i, weight(self.scale(i))) + end(i))
                .sum(),
        }
    }

    /// `max(|y₀ᵢ|, |y₁ᵢ|)`, for a step whose ends have coordinates.
    #[inline(always)]
    fn size(&self, i: usize) -> f64 {
        let (a, b) = (self.start.coordinate(i), self.end.coordinate(i));
        a.abs().max(b.abs()).to_f64()
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
        self.tolerances.absolute_at(i) + self.tolerances.relative_at(i) * size
    }
}

/// `1/scale`, where a zero scale (a purely relative tolerance on a coordinate that is zero
/// at both ends) stands for the smallest positive one: an error of zero there counts zero
/// rather than `0 · ∞ = NaN`, and any other error fails the step.
#[inline(always)]
pub(crate) fn weight(scale: f64) -> f64 {
    1.0 / scale.max(f64::MIN_POSITIVE)
}

/// `1/(atol + rtol·max(|y₀ᵢ|, |y₁ᵢ|))` for one tolerance pair, the `max` as one comparison
/// ([`max_of`]), where `f64::max`'s tests for NaN took seven instructions: a NaN `|y₀ᵢ|`
/// gives `|y₁ᵢ|` as `max` does, and a NaN `|y₁ᵢ|` makes the norm's sum NaN through its
/// `0 · y₁ᵢ` term whichever is taken.
#[inline(always)]
fn inverse_scale(relative: f64, absolute: f64, start: f64, end: f64) -> f64 {
    1.0 / (absolute + relative * max_of(start, end))
}
