//! [`Order`]: which row and column of a matrix each unknown of a state takes.

use crate::{Derivative, Vector};

/// Which row (and column) of the crate's matrices each unknown of a state's rate takes.
///
/// Unknowns are numbered as the state's [`Derivative`] numbers its coordinates: the
/// velocity part first, then the force part. That is what forces index a
/// [`Jacobian`](super::Jacobian) by, whatever the order; the order is only where the
/// entry is stored, and it decides which entries a [band](super::Structure::Banded) holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case", deny_unknown_fields)
)]
pub(crate) enum Order {
    /// Unknown `i` in row `i`: a first-order system, or a second-order state whose
    /// velocity and force parts differ in size (a rigid body: a spin of 4, a torque of 3).
    #[default]
    Natural,
    /// A second-order state with `half` velocity and `half` force coordinates: position
    /// coordinate `k` (unknown `k`) in row `2k`, momentum coordinate `k` (unknown
    /// `half + k`) in row `2k + 1`. A position's rate is its own momentum's velocity, and
    /// a momentum's rate depends on nearby positions, so a chain of bodies is banded in
    /// this order ([`Structure::chain`](super::Structure::chain)); in the state's own
    /// order every position is `half` columns from its momentum, and no band narrower
    /// than the matrix holds a chain.
    Interleaved {
        /// The number of velocity (and of force) coordinates.
        half: usize,
    },
}

impl Order {
    /// The order of the matrices of a state whose rate is `rate`: interleaved when its
    /// velocity and force parts have the same (non-zero) number of coordinates.
    pub(crate) fn of<V: Vector, F: Vector>(rate: &Derivative<V, F>) -> Order {
        let half = rate.velocity.dim();
        if half > 0 && rate.force.dim() == half {
            Order::Interleaved { half }
        } else {
            Order::Natural
        }
    }

    /// The row of `unknown`.
    #[inline]
    pub(crate) fn row(self, unknown: usize) -> usize {
        match self {
            Order::Natural => unknown,
            Order::Interleaved { half } if unknown < half => 2 * unknown,
            Order::Interleaved { half } => 2 * (unknown - half) + 1,
        }
    }

    /// The unknown in `row`.
    #[inline]
    pub(crate) fn unknown(self, row: usize) -> usize {
        match self {
            Order::Natural => row,
            Order::Interleaved { .. } if row % 2 == 0 => row / 2,
            Order::Interleaved { half } => half + row / 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Order;

    /// `row` and `unknown` are inverse permutations of `0..2·half`.
    #[test]
    fn interleaving_is_a_permutation() {
        for half in 1..6 {
            let order = Order::Interleaved { half };
            let mut seen = vec![false; 2 * half];
            for unknown in 0..2 * half {
                let row = order.row(unknown);
                assert!(!seen[row]);
                seen[row] = true;
                assert_eq!(order.unknown(row), unknown);
            }
            assert_eq!(order.row(0), 0);
            assert_eq!(order.row(half), 1);
        }
    }
}
