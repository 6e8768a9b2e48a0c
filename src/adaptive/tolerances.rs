//! [`Tolerances`] and the error norm they define.

use super::AdaptiveError;
use crate::{DerivativeOf, Scalar, State, Vector};
use num_traits::Float;

/// The relative and absolute tolerances of an adaptive run, and the norm they measure a
/// step's error with (Hairer–Nørsett–Wanner I, II.4):
///
/// ```text
/// err = √( (1/n) Σᵢ ( eᵢ / (atol + rtol · max(|y₀ᵢ|, |y₁ᵢ|)) )² )
/// ```
///
/// over the `n` coordinates of the state's rate (positions and momenta), where `y₀` and
/// `y₁` are the state's coordinates before and after the step
/// ([`State::coordinates_into`]; a state that does not give them is measured with the
/// absolute tolerance alone). A step is accepted when `err ≤ 1`.
///
/// ```
/// use timestep::adaptive::Tolerances;
///
/// let t = Tolerances::new(1e-8, 1e-10);
/// assert_eq!((t.relative, t.absolute), (1e-8, 1e-10));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tolerances {
    /// The relative tolerance.
    pub relative: f64,
    /// The absolute tolerance.
    pub absolute: f64,
}

impl Tolerances {
    /// Tolerances `relative` and `absolute`, checked when a run starts (finite, not
    /// negative, not both zero).
    pub const fn new(relative: f64, absolute: f64) -> Self {
        Tolerances { relative, absolute }
    }

    pub(super) fn check(&self) -> Result<(), AdaptiveError> {
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        if valid(self.relative)
            && valid(self.absolute)
            && (self.relative > 0.0 || self.absolute > 0.0)
        {
            Ok(())
        } else {
            Err(AdaptiveError::InvalidTolerance {
                relative: self.relative,
                absolute: self.absolute,
            })
        }
    }

    /// The norm of the error `error · factor` of a step from `start` to `end`.
    pub(super) fn norm<S: State>(
        &self,
        error: &DerivativeOf<S>,
        factor: f64,
        start: &S,
        end: &S,
        start_coordinates: &mut DerivativeOf<S>,
        end_coordinates: &mut DerivativeOf<S>,
    ) -> f64 {
        let has_coordinates =
            start.coordinates_into(start_coordinates) && end.coordinates_into(end_coordinates);
        let n = error.dim();
        let mut sum = 0.0;
        for i in 0..n {
            let size = if has_coordinates {
                let (a, b) = (start_coordinates.component(i), end_coordinates.component(i));
                a.abs().max(b.abs()).to_f64()
            } else {
                0.0
            };
            let scaled =
                error.component(i).to_f64() * factor / (self.absolute + self.relative * size);
            sum += scaled * scaled;
        }
        (sum / n.max(1) as f64).sqrt()
    }
}
