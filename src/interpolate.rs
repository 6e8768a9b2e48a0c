//! [`Interpolate`]: blending two states for rendering between physics steps.

use crate::rigid::{Body, Precision};
use crate::{Particle, Scalar, VectorSpace};
use glam::{DQuat, DVec2, DVec3, DVec4, Quat, Vec2, Vec3, Vec3A, Vec4};
use num_traits::One;

/// A value that can be blended between two of its instances: `a.interpolate(&b, α)` is
/// `a` at `α = 0`, `b` at `α = 1`, and in between for `0 < α < 1`.
///
/// Its use is rendering with a [`FixedTimestep`](crate::FixedTimestep): physics runs at a
/// fixed `dt`, frames come whenever they come, and a frame shows the state a fraction `α`
/// of the way from the previous physics state to the current one. Showing the current
/// state instead would make motion stutter whenever the number of steps per frame varies.
///
/// What it does:
///
/// - numbers and glam vectors: the linear blend `a·(1 − α) + b·α`, exactly `a` at `α = 0`
///   and exactly `b` at `α = 1` (for finite values);
/// - quaternions (`Quat`, `DQuat`): normalized lerp along the **shortest arc**; see below;
/// - [`Particle`]: position and momentum blended, velocity recalculated from the blended
///   momentum, mass and inverse mass taken from `self` (the two are meant to be the same
///   body at two times);
/// - rigid bodies ([`RigidBody`](crate::rigid::RigidBody),
///   [`DRigidBody`](crate::rigid::DRigidBody)): position, momentum and angular momentum
///   blended linearly, orientation by the quaternion blend below, constants (mass,
///   inertia, orientation update) taken from `self`, and every secondary quantity
///   (velocity, rotation matrix, world inverse inertia, angular velocity, spin)
///   recalculated from the blend;
/// - arrays and tuples: element by element.
///
/// Unusual `α`: `α < 0` or `α > 1` extrapolates along the same line (for quaternions, the
/// result is still normalized); a `NaN` or infinite `α` gives `NaN`/infinite coordinates.
/// [`FixedTimestep`](crate::FixedTimestep) only ever hands out `0 ≤ α < 1`.
///
/// **Quaternions: why normalized lerp.** Between two physics steps a body turns through a
/// small angle Θ. Normalized lerp returns both ends (to rounding) at `α = 0` and `α = 1`,
/// stays on the unit sphere, turns monotonically from one end to the other, and costs a
/// few multiplications and one square root. Compared with slerp it turns at a slightly
/// uneven rate; the largest angle between the two over `0 ≤ α ≤ 1` is below `Θ³/200`
/// radians for any turn up to 2 rad, about 2·10⁻⁵ rad for a 10° turn in one step. Because
/// `q` and `−q` are the same rotation, `other` is negated first when the two lie in
/// opposite hemispheres (`q₀·q₁ < 0`), so the blend takes the short way round instead of
/// spinning the long way for a frame. Inputs are expected to be unit quaternions; a zero
/// quaternion gives `NaN`.
///
/// # Example
///
/// ```
/// use timestep::Interpolate;
/// use glam::{Quat, Vec3};
///
/// assert_eq!(1.0_f64.interpolate(&3.0, 0.25), 1.5);
/// assert_eq!(Vec3::ZERO.interpolate(&Vec3::X, 0.5), Vec3::new(0.5, 0.0, 0.0));
///
/// // Halfway between no turn and a quarter turn about z is an eighth of a turn...
/// let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
/// let eighth = Quat::IDENTITY.interpolate(&quarter, 0.5);
/// assert!(eighth.angle_between(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4)) < 1e-6);
/// // ...and so it is when the quarter turn is written as its negative.
/// assert!(Quat::IDENTITY.interpolate(&-quarter, 0.5).angle_between(eighth) < 1e-6);
/// ```
pub trait Interpolate {
    /// The type of the blend factor `α`: the scalar the value is made of.
    type Scalar: Scalar;

    /// `self` blended towards `other` by `alpha`: `self` at 0, `other` at 1.
    fn interpolate(&self, other: &Self, alpha: Self::Scalar) -> Self;
}

/// `a·(1 − α) + b·α` for any vector space: exact at both ends.
#[inline]
fn lerp<V: VectorSpace>(a: V, b: V, alpha: V::Scalar) -> V {
    a.scale(V::Scalar::one() - alpha).add_scaled(b, alpha)
}

macro_rules! impl_lerp {
    ($($t:ty: $s:ty),*) => {$(
        impl Interpolate for $t {
            type Scalar = $s;

            #[inline]
            fn interpolate(&self, other: &Self, alpha: $s) -> Self {
                lerp(*self, *other, alpha)
            }
        }
    )*};
}
impl_lerp!(
    f32: f32, f64: f64,
    Vec2: f32, Vec3: f32, Vec3A: f32, Vec4: f32,
    DVec2: f64, DVec3: f64, DVec4: f64
);

macro_rules! impl_nlerp {
    ($($t:ty: $s:ty),*) => {$(
        impl Interpolate for $t {
            type Scalar = $s;

            #[inline]
            fn interpolate(&self, other: &Self, alpha: $s) -> Self {
                let other = if self.dot(*other) < 0.0 { -*other } else { *other };
                let blend = *self * (1.0 - alpha) + other * alpha;
                // Normalized after scaling when squaring would overflow (an extrapolation
                // far beyond α = 1 would otherwise give the zero quaternion).
                crate::rigid::Quaternion::normalize(blend)
            }
        }
    )*};
}
impl_nlerp!(Quat: f32, DQuat: f64);

impl<T: Interpolate, const N: usize> Interpolate for [T; N] {
    type Scalar = T::Scalar;

    #[inline]
    fn interpolate(&self, other: &Self, alpha: T::Scalar) -> Self {
        core::array::from_fn(|i| self[i].interpolate(&other[i], alpha))
    }
}

macro_rules! impl_tuple {
    ($($name:ident $field:tt),+) => {
        impl<S: Scalar, $($name: Interpolate<Scalar = S>),+> Interpolate for ($($name,)+) {
            type Scalar = S;

            #[inline]
            fn interpolate(&self, other: &Self, alpha: S) -> Self {
                ($(self.$field.interpolate(&other.$field, alpha),)+)
            }
        }
    };
}
impl_tuple!(A 0);
impl_tuple!(A 0, B 1);
impl_tuple!(A 0, B 1, C 2);
impl_tuple!(A 0, B 1, C 2, D 3);

/// Position and momentum blended, velocity recalculated, mass from `self`.
///
/// ```
/// use timestep::{Interpolate, Particle, State};
///
/// let before = Particle::new(2.0, 0.0_f64, 1.0);
/// let after = Particle::new(2.0, 1.0_f64, 3.0);
/// let shown = before.interpolate(&after, 0.25);
/// assert_eq!(shown.position(), 0.25);
/// assert_eq!(shown.velocity(), 1.5);
/// assert_eq!(before.interpolate(&after, 1.0), after);
/// ```
impl<V> Interpolate for Particle<V>
where
    V: VectorSpace + Interpolate<Scalar = <V as VectorSpace>::Scalar>,
{
    type Scalar = <V as VectorSpace>::Scalar;

    #[inline]
    fn interpolate(&self, other: &Self, alpha: Self::Scalar) -> Self {
        let mut blend = *self;
        blend.set_position(self.position().interpolate(&other.position(), alpha));
        // Unchecked, as a kick is: a blend of two states of one particle.
        blend.kick_to(self.momentum().interpolate(&other.momentum(), alpha));
        blend
    }
}

/// Position, momentum and angular momentum blended linearly, orientation by normalized
/// lerp along the shortest arc (as for `Quat` and `DQuat`), constants from `self`, then
/// [`recalculate`](Body::recalculate), so that the velocity, rotation matrix, world inverse
/// inertia, angular velocity and spin are those of the blended state.
///
/// For rendering, the blend's [`position`](Body::position) and
/// [`orientation`](Body::orientation) (or its [`rotation`](Body::rotation) matrix) are what
/// a frame needs. The orientation is `other`'s at `α = 1` up to rounding, or its negative
/// (the same rotation) when the two lie in opposite hemispheres.
///
/// ```
/// use timestep::rigid::{DRigidBody, Inertia};
/// use timestep::{Integrator, Interpolate, SemiImplicitEuler};
/// use glam::{DQuat, DVec3};
///
/// // A box spinning about z at 6 rad/s and drifting along x, stepped once at 60 Hz.
/// let mut before = DRigidBody::new(2.0, Inertia::cube(2.0, 1.0));
/// before.set_velocity(DVec3::new(3.0, 0.0, 0.0));
/// before.set_angular_velocity(DVec3::new(0.0, 0.0, 6.0));
/// let mut after = before;
/// let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
/// SemiImplicitEuler.step(&mut after, &free, 0.0, 1.0 / 60.0)?;
///
/// // A quarter of the way through the step: a quarter of the way along, and turned about
/// // a quarter of the step's turn (0.1 rad), on the arc from one orientation to the other.
/// let shown = before.interpolate(&after, 0.25);
/// assert!((shown.position().x - 0.25 * 3.0 / 60.0).abs() < 1e-15);
/// let turn = after.orientation().angle_between(before.orientation());
/// let turned = shown.orientation().angle_between(before.orientation());
/// let left = shown.orientation().angle_between(after.orientation());
/// assert!((turned + left - turn).abs() < 1e-7);
/// assert!((turned - 0.25 * turn).abs() < 1e-5); // nlerp, within turn³/200 of slerp
/// assert_eq!(shown.angular_velocity(), after.angular_velocity()); // L and I did not change
/// # Ok::<(), timestep::StepError>(())
/// ```
impl<S: Precision> Interpolate for Body<S>
where
    S::Quat: Interpolate<Scalar = S>,
{
    type Scalar = S;

    #[inline]
    fn interpolate(&self, other: &Self, alpha: S) -> Self {
        let mut blend = *self;
        blend.set_primaries(
            lerp(self.position(), other.position(), alpha),
            lerp(self.momentum(), other.momentum(), alpha),
            self.orientation().interpolate(&other.orientation(), alpha),
            lerp(self.angular_momentum(), other.angular_momentum(), alpha),
        );
        blend
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::State;

    #[test]
    fn lerp_is_exact_at_both_ends() {
        let (a, b) = (0.1_f64, 0.7_f64);
        assert_eq!(a.interpolate(&b, 0.0), a);
        assert_eq!(a.interpolate(&b, 1.0), b);
        let (a, b) = (DVec3::new(0.1, -3.3, 7.7), DVec3::new(1e-3, 2.2, -9.1));
        assert_eq!(a.interpolate(&b, 0.0), a);
        assert_eq!(a.interpolate(&b, 1.0), b);
        assert_eq!(a.interpolate(&b, 2.0), b + (b - a));
    }

    #[test]
    fn nlerp_takes_the_shortest_arc_and_stays_unit() {
        let a = DQuat::from_rotation_y(0.1);
        let b = DQuat::from_rotation_y(0.3);
        for i in 0..=10 {
            let alpha = f64::from(i) / 10.0;
            let q = a.interpolate(&-b, alpha);
            assert!((q.length() - 1.0).abs() < 1e-15);
            // Never further from either end than the two ends are from each other.
            assert!(q.angle_between(a) <= 0.2 + 1e-12 && q.angle_between(b) <= 0.2 + 1e-12);
            // And within Θ³/200 of slerp.
            assert!(q.angle_between(a.slerp(b, alpha)) < 0.2_f64.powi(3) / 200.0);
        }
        assert!(a.interpolate(&b, 1.0).angle_between(b) < 1e-7);
    }

    #[test]
    fn nan_alpha_is_not_hidden() {
        assert!(1.0_f32.interpolate(&2.0, f32::NAN).is_nan());
        assert!(
            Quat::IDENTITY
                .interpolate(&Quat::IDENTITY, f32::NAN)
                .is_nan()
        );
    }

    #[test]
    fn particle_velocity_follows_blended_momentum() {
        let a = Particle::new(4.0, DVec2::ZERO, DVec2::X);
        let b = Particle::new(4.0, DVec2::ONE, DVec2::Y);
        let m = a.interpolate(&b, 0.5);
        assert_eq!(m.velocity(), DVec2::new(0.5, 0.5));
        assert_eq!(m.momentum(), DVec2::new(2.0, 2.0));
        assert_eq!(m.mass(), 4.0);
    }
}
