//! [`ErrorControl`]: whether the step-size control measures the sensitivities.

use super::Augmented;
use crate::{ComponentTolerances, Tolerances, Vector};
use alloc::vec::Vec;
use num_traits::Float;

/// Whether an adaptive run's error control measures the sensitivities as well as the
/// state (CVODES's `errconS`), turned into per-coordinate tolerances by
/// [`tolerances`](ErrorControl::tolerances).
///
/// - [`All`](ErrorControl::All): every coordinate with the same tolerances (the same as
///   giving the [`Tolerances`] themselves). The sensitivities are then as accurate as the
///   tolerances ask, at the cost of the steps they need.
/// - [`StateOnly`](ErrorControl::StateOnly): the sensitivities weigh nothing (an absolute
///   tolerance of [`EXCLUDED`](ErrorControl::EXCLUDED), 10¹⁰⁰), and the state's tolerances are scaled by `√(n/N)` (`n`
///   state coordinates out of `N`) so that the norm, a root mean square over all `N`
///   coordinates, is the plain solve's: the run takes the plain solve's steps, and the
///   sensitivities are as accurate as those steps make them.
///
/// ```
/// use timestep::sensitivity::{Augmented, ErrorControl};
/// use timestep::Tolerances;
///
/// let y = <[[f64; 2]; 3]>::stack([1.0, 0.0], 2)?;
/// let t = ErrorControl::StateOnly.tolerances(&y, Tolerances::new(1e-6, 1e-9));
/// assert_eq!(t.relative().len(), 6);
/// assert!((t.relative()[0] - 1e-6 / 3.0_f64.sqrt()).abs() < 1e-20);
/// assert_eq!(t.absolute()[2], ErrorControl::EXCLUDED);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErrorControl {
    /// The state and the sensitivities.
    #[default]
    All,
    /// The state alone.
    StateOnly,
}

impl ErrorControl {
    /// The absolute tolerance that leaves a coordinate out of the error control: so large
    /// that any error divided by it vanishes from the norm, and not `f64::MAX`, which
    /// overflows where methods scale by it (SEULEX's weights).
    pub const EXCLUDED: f64 = 1e100;

    /// Per-coordinate tolerances for `augmented` (for
    /// [`Adaptive::with_component_tolerances`](crate::Adaptive::with_component_tolerances)),
    /// from `tolerances` as this choice says. They are checked when the run starts.
    #[must_use]
    pub fn tolerances<B: Augmented>(
        self,
        augmented: &B,
        tolerances: Tolerances,
    ) -> ComponentTolerances {
        let n = augmented.state().dim();
        let total = augmented.dim();
        let (relative, absolute) = (tolerances.relative(), tolerances.absolute());
        let (relative, absolute): (Vec<f64>, Vec<f64>) = match self {
            ErrorControl::All => (alloc::vec![relative; total], alloc::vec![absolute; total]),
            ErrorControl::StateOnly => {
                // err² = (1/N) Σ (eᵢ / (c·scᵢ))² over the state = (1/n) Σ (eᵢ / scᵢ)².
                let c = Float::sqrt(n as f64 / total as f64);
                (0..total)
                    .map(|i| {
                        if i < n {
                            (relative * c, absolute * c)
                        } else {
                            (0.0, Self::EXCLUDED)
                        }
                    })
                    .unzip()
            }
        };
        ComponentTolerances::new(relative, absolute)
    }
}
