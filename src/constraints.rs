//! [`Constraints`]: holonomic position constraints `g(q) = 0` on [`Particles`](crate::Particles),
//! and [`Rods`], the common kind (fixed distances), for [`Rattle`](crate::Rattle).

use crate::{Scalar, SmallVector};
use alloc::vec::Vec;
use core::fmt;
use num_traits::{Float, One, Zero};

/// Holonomic constraints `g(q) = 0` on the positions `q` of `n` point masses: `m` scalar
/// equations, each a smooth function of the positions (a pendulum's `|q|² − L² = 0`, the
/// rods of a chain, the bars of a rigid linkage of point masses).
///
/// The motion they allow is `M q'' = F(q) − G(q)ᵀ λ`, `g(q) = 0`, where `G = ∂g/∂q` is the
/// `m × (n·dim)` Jacobian and `λ` the `m` Lagrange multipliers (the constraint forces'
/// sizes). Differentiating `g(q(t)) = 0` gives the velocity constraint `G(q) v = 0`, which
/// [`Rattle`](crate::Rattle) holds too.
///
/// `G(q) M⁻¹ G(q)ᵀ` must be invertible near the motion: constraints that are independent
/// (no constraint is implied by the others). Redundant ones make a step fail with
/// [`StepError::SingularJacobian`](crate::StepError::SingularJacobian).
///
/// # Example
///
/// A pendulum of length 1 about the origin, `g(q) = |q|² − 1`, `G = 2 qᵀ`:
///
/// ```
/// use glam::DVec2;
/// use timestep::Constraints;
///
/// struct Pendulum;
///
/// impl Constraints<DVec2> for Pendulum {
///     fn count(&self) -> usize {
///         1
///     }
///     fn value(&self, q: &[DVec2], out: &mut [f64]) {
///         out[0] = q[0].length_squared() - 1.0;
///     }
///     fn jacobian(&self, q: &[DVec2], out: &mut [DVec2]) {
///         out[0] = 2.0 * q[0];
///     }
/// }
///
/// let mut g = [0.0];
/// Pendulum.value(&[DVec2::new(0.6, -0.8)], &mut g);
/// assert!(g[0].abs() < 1e-15);
/// ```
pub trait Constraints<V: SmallVector> {
    /// The number `m` of scalar constraints (the same for every state).
    fn count(&self) -> usize;

    /// Writes `g(q)` for the bodies' `positions` into `out` (`m` entries). Zero on the
    /// constraint surface; the solve stops when every entry's magnitude is within the
    /// [tolerance](crate::Rattle::with_tolerance), so `g` is best written in the units
    /// that tolerance is meant in (a length, for [`Rods`]).
    fn value(&self, positions: &[V], out: &mut [V::Scalar]);

    /// Writes the Jacobian `G(q) = ∂g/∂q` into `out`: `m` rows of `n` vectors, row-major,
    /// so that `out[k·n + i]` is the gradient of constraint `k` with respect to body `i`'s
    /// position. `out` is zero when called: write only the non-zero gradients.
    fn jacobian(&self, positions: &[V], out: &mut [V]);
}

/// Fixed distances: each [`Rod`] holds a body at its length from a fixed anchor or from
/// another body. Constraint `k` is `(|d|² − L²) / (2L)`, with `d` the rod's vector, which is
/// `|d| − L` to first order: a length, so the solve's tolerance is in metres.
///
/// ```
/// use glam::DVec2;
/// use timestep::{Constraints, Rod, Rods};
///
/// // A double pendulum: body 0 on a rod of 1 m from the origin, body 1 on one of 1 m from body 0.
/// let rods = Rods::new(vec![Rod::anchored(0, DVec2::ZERO, 1.0), Rod::between(0, 1, 1.0)]);
/// let mut g = [0.0; 2];
/// rods.value(&[DVec2::new(1.0, 0.0), DVec2::new(1.0, -1.0)], &mut g);
/// assert_eq!(g, [0.0, 0.0]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Rods<V: SmallVector> {
    rods: Vec<Rod<V>>,
}

/// One rod of [`Rods`]: a body held at `length` from an anchor or from another body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rod<V: SmallVector> {
    body: usize,
    other: End<V>,
    length: V::Scalar,
}

/// The far end of a [`Rod`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum End<V> {
    Anchor(V),
    Body(usize),
}

/// Why a [`Rod`] was refused: its length is zero, negative or not finite (its constraint
/// divides by the length).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RodLengthError(pub f64);

impl fmt::Display for RodLengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a rod's length must be positive and finite, got {}",
            self.0
        )
    }
}

impl core::error::Error for RodLengthError {}

impl<V: SmallVector> Rod<V> {
    /// Body `body` held at `length` from the fixed point `anchor`.
    ///
    /// # Panics
    ///
    /// If `length` is zero, negative or not finite ([`Rod::try_anchored`] returns the error).
    #[track_caller]
    #[must_use]
    pub fn anchored(body: usize, anchor: V, length: V::Scalar) -> Self {
        Self::try_anchored(body, anchor, length).unwrap_or_else(|error| panic!("Rod: {error}"))
    }

    /// Body `body` held at `length` from `anchor`, or why the length was refused.
    ///
    /// ```
    /// use timestep::{Rod, RodLengthError};
    ///
    /// assert_eq!(Rod::try_anchored(0, 0.0, -1.0), Err(RodLengthError(-1.0)));
    /// ```
    pub fn try_anchored(body: usize, anchor: V, length: V::Scalar) -> Result<Self, RodLengthError> {
        Self::checked(body, End::Anchor(anchor), length)
    }

    /// Bodies `a` and `b` held `length` apart.
    ///
    /// # Panics
    ///
    /// If `length` is zero, negative or not finite ([`Rod::try_between`] returns the error).
    #[track_caller]
    #[must_use]
    pub fn between(a: usize, b: usize, length: V::Scalar) -> Self {
        Self::try_between(a, b, length).unwrap_or_else(|error| panic!("Rod: {error}"))
    }

    /// Bodies `a` and `b` held `length` apart, or why the length was refused.
    pub fn try_between(a: usize, b: usize, length: V::Scalar) -> Result<Self, RodLengthError> {
        Self::checked(b, End::Body(a), length)
    }

    fn checked(body: usize, other: End<V>, length: V::Scalar) -> Result<Self, RodLengthError> {
        if length > V::Scalar::zero() && length.is_finite() {
            Ok(Rod {
                body,
                other,
                length,
            })
        } else {
            Err(RodLengthError(length.to_f64()))
        }
    }

    /// The rod's vector `d`, from its far end to its body.
    #[inline]
    fn vector(&self, positions: &[V]) -> V {
        let far = match self.other {
            End::Anchor(anchor) => anchor,
            End::Body(other) => positions[other],
        };
        positions[self.body].sub(far)
    }
}

impl<V: SmallVector> Rods<V> {
    /// The constraints of `rods`, one per rod, in order.
    #[must_use]
    pub fn new(rods: Vec<Rod<V>>) -> Self {
        Rods { rods }
    }

    /// The rods.
    #[must_use]
    pub fn rods(&self) -> &[Rod<V>] {
        &self.rods
    }
}

/// `d · d`.
#[inline]
pub(crate) fn dot<V: SmallVector>(a: V, b: V) -> V::Scalar {
    (0..V::DIM).fold(V::Scalar::zero(), |sum, c| {
        sum + a.component(c) * b.component(c)
    })
}

impl<V: SmallVector> Constraints<V> for Rods<V> {
    fn count(&self) -> usize {
        self.rods.len()
    }

    fn value(&self, positions: &[V], out: &mut [V::Scalar]) {
        let half = V::Scalar::from_f64(0.5);
        for (out, rod) in out.iter_mut().zip(&self.rods) {
            let d = rod.vector(positions);
            // No square root: |d|² is rounded to ε·L², so g is known to about ε·L (a
            // tolerance below that cannot be met).
            *out = (dot(d, d) - rod.length * rod.length) * half / rod.length;
        }
    }

    fn jacobian(&self, positions: &[V], out: &mut [V]) {
        let n = positions.len();
        for (k, rod) in self.rods.iter().enumerate() {
            let gradient = rod.vector(positions).scale(V::Scalar::one() / rod.length);
            out[k * n + rod.body] = gradient;
            if let End::Body(other) = rod.other {
                out[k * n + other] = gradient.scale(-V::Scalar::one());
            }
        }
    }
}
