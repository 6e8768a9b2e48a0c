//! [`Interpolate`]: blending two states for rendering between physics steps;
//! [`InterpolateMotion`]: the same with their velocities (Hermite), and extrapolation.

use crate::rigid::{Body, Precision, Quaternion};
use crate::{Particle, Scalar, SmallVector};
use glam::{DQuat, DVec2, DVec3, DVec4, Quat, Vec2, Vec3, Vec3A, Vec4};
use num_traits::{One, Zero};

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
/// assert!(Quat::IDENTITY.interpolate(&-quarter, 0.5).abs_diff_eq(eighth, 1e-6));
/// ```
///
/// The blend is the whole point of the call, so dropping it is a warning (`#[must_use]`):
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// use timestep::Interpolate;
///
/// let (previous, current) = (1.0_f64, 3.0);
/// previous.interpolate(&current, 0.5); // refused: the blend is lost
/// ```
pub trait Interpolate {
    /// The type of the blend factor `α`: the scalar the value is made of.
    type Scalar: Scalar;

    /// `self` blended towards `other` by `alpha`: `self` at 0, `other` at 1.
    #[must_use]
    fn interpolate(&self, other: &Self, alpha: Self::Scalar) -> Self;
}

/// `a·(1 − α) + b·α` for any vector space: exact at both ends.
#[inline]
fn lerp<V: SmallVector>(a: V, b: V, alpha: V::Scalar) -> V {
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
    V: SmallVector + Interpolate<Scalar = <V as SmallVector>::Scalar>,
{
    type Scalar = <V as SmallVector>::Scalar;

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

/// Drawing moving states between and beyond physics steps, with their velocities:
/// cubic Hermite interpolation and extrapolation. Implemented by [`Particle`] and the rigid
/// bodies ([`RigidBody`](crate::rigid::RigidBody), [`DRigidBody`](crate::rigid::DRigidBody)).
///
/// [`Interpolate`] blends two states along a straight line: for a body on a curved path
/// (anything under a force, anything turning) it cuts the corner, by up to
/// `|a| dt² / 8` for an acceleration `a`, an error that shrinks as `dt²`. Both states
/// also know their velocities, so a curve can match the positions **and** the velocities
/// at both ends: the cubic Hermite curve. Its error shrinks as `dt⁴` (halve `dt` and it is
/// 16 times smaller; `tests/timestep/interpolate.rs` measures it), and it is exact for any
/// motion under a constant force (a thrown ball). It costs a few more multiplications than
/// the straight line, no square roots beyond the quaternion's one.
///
/// When a frame must not lag a step behind, [`extrapolate`](InterpolateMotion::extrapolate)
/// moves the current state on along its velocity instead; it needs no previous state but
/// guesses wrong when the force changes (it overshoots a bounce, say).
///
/// # Example
///
/// A ball thrown up at 8 m/s, stepped at 10 Hz with [`Verlet`](crate::Verlet), which is
/// exact under gravity, drawn halfway through the step:
///
/// ```
/// use timestep::glam::DVec2;
/// use timestep::{Integrator, Interpolate, InterpolateMotion, Particle, Verlet};
///
/// let gravity = |p: &Particle<DVec2>, _t: f64| DVec2::new(0.0, -9.81) * p.mass();
/// let height = |t: f64| 8.0 * t - 0.5 * 9.81 * t * t;
/// let (t0, dt) = (0.5, 0.1);
/// let previous = Particle::new(1.0, DVec2::new(0.0, height(t0)), DVec2::new(0.0, 8.0 - 9.81 * t0));
/// let mut current = previous;
/// Verlet.step(&mut current, &gravity, t0, dt)?;
///
/// let exact = height(t0 + 0.5 * dt);
/// let line = previous.interpolate(&current, 0.5);
/// let curve = previous.hermite(&current, 0.5, dt);
/// // The straight line cuts the parabola's corner by g dt² / 8 at the middle...
/// assert!((line.position().y - (exact - 9.81 * dt * dt / 8.0)).abs() < 1e-12);
/// // ...the Hermite curve is the parabola.
/// assert!((curve.position().y - exact).abs() < 1e-12);
///
/// // Drawn ahead instead: on along the current velocity, which misses the fall by ½ g (α dt)².
/// let ahead = current.extrapolate(0.5, dt);
/// let late = height(t0 + 1.5 * dt);
/// assert!((ahead.position().y - (late + 0.5 * 9.81 * (0.5 * dt) * (0.5 * dt))).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
pub trait InterpolateMotion: Interpolate {
    /// The state between `self` (at time `t`) and `other` (at `t + dt`) at the fraction
    /// `alpha` of the step: `self` at 0, `other` at 1, on the cubic Hermite curve that
    /// passes through both positions with both velocities.
    ///
    /// With `h₀₀ = 1 − α²(3 − 2α)`, `h₀₁ = α²(3 − 2α)`, `h₁₀ = α(1 − α)²` and
    /// `h₁₁ = −α²(1 − α)`, the position is `h₀₀ x₀ + h₀₁ x₁ + dt (h₁₀ v₀ + h₁₁ v₁)`,
    /// exactly `x₀` at `α = 0` and `x₁` at `α = 1`. The momentum is `m` times the
    /// curve's own velocity (its time derivative), exactly `p₀` and `p₁` at the ends.
    /// What each state does with its other quantities is on its implementation.
    ///
    /// - `alpha` outside `[0, 1]` evaluates the same cubic beyond the ends: fine a little
    ///   way out, but it bends away fast; to draw ahead of the current state use
    ///   [`extrapolate`](InterpolateMotion::extrapolate).
    /// - A `NaN` or infinite `alpha` gives non-finite coordinates.
    /// - `dt` is the length of the step from `self` to `other` (negative when stepping
    ///   backwards in time). `dt = 0` says the two are at the same instant: the velocity
    ///   terms vanish, the position is blended by `h₀₀` and `h₀₁` (still exact at both
    ///   ends) and the momentum linearly.
    #[must_use]
    fn hermite(&self, other: &Self, alpha: Self::Scalar, dt: Self::Scalar) -> Self;

    /// `self` moved on for `alpha · dt` at its current velocity (and, for a rigid body, its
    /// current angular velocity), with its momenta unchanged: where it would be if no force
    /// or torque acted. Exact for uniform motion and for uniform rotation about a fixed
    /// axis; under a force `F` the position is off by `½ (F/m) (α dt)²`.
    ///
    /// Meant for `alpha ≥ 0` (with a [`FixedTimestep`](crate::FixedTimestep), its
    /// `alpha`, `0 ≤ α < 1`, and `dt`). A negative `alpha` moves the state back along the
    /// same line; a `NaN` or infinite `alpha` gives non-finite coordinates; `alpha = 0` or
    /// `dt = 0` returns `self` unchanged.
    #[must_use]
    fn extrapolate(&self, alpha: Self::Scalar, dt: Self::Scalar) -> Self;
}

/// The cubic Hermite basis at `α`: `[h₀₀, h₁₀, h₀₁, h₁₁]`, each exactly 0 or 1 at the ends.
#[inline]
fn hermite_basis<S: Scalar>(alpha: S) -> [S; 4] {
    let rest = S::one() - alpha;
    let h01 = alpha * alpha * (S::from_f64(3.0) - S::from_f64(2.0) * alpha);
    [
        S::one() - h01,
        alpha * rest * rest,
        h01,
        -(alpha * alpha * rest),
    ]
}

/// The point of the cubic Hermite curve through `x0` with velocity `v0` and `x1` with `v1`,
/// a step `dt` apart, at the fraction `alpha`.
#[inline]
fn hermite_point<V: SmallVector>(x0: V, v0: V, x1: V, v1: V, alpha: V::Scalar, dt: V::Scalar) -> V {
    let [h00, h10, h01, h11] = hermite_basis(alpha);
    x0.scale(h00)
        .add_scaled(x1, h01)
        .add_scaled(v0, h10 * dt)
        .add_scaled(v1, h11 * dt)
}

/// `mass` times the time derivative of that curve, written with the momenta `p0 = m v0` and
/// `p1 = m v1` so that it is exactly `p0` at `α = 0` and `p1` at `α = 1`:
/// `p₀ (1 − α)(1 − 3α) + p₁ α(3α − 2) + m (x₁ − x₀) 6α(1 − α) / dt`. Linear in the momenta
/// when `dt = 0`.
#[inline]
fn hermite_momentum<V: SmallVector>(
    (x0, p0): (V, V),
    (x1, p1): (V, V),
    mass: V::Scalar,
    alpha: V::Scalar,
    dt: V::Scalar,
) -> V {
    if dt == V::Scalar::zero() {
        return lerp(p0, p1, alpha);
    }
    let one = V::Scalar::one();
    let rest = one - alpha;
    let three = V::Scalar::from_f64(3.0);
    let chord = x1.add_scaled(x0, -one);
    p0.scale(rest * (one - three * alpha))
        .add_scaled(p1, alpha * (three * alpha - V::Scalar::from_f64(2.0)))
        .add_scaled(chord, mass * V::Scalar::from_f64(6.0) * alpha * rest / dt)
}

/// Position by the Hermite cubic from the positions and velocities, momentum by its
/// derivative; mass from `self`. Extrapolation moves the position along the velocity.
///
/// ```
/// use timestep::{Interpolate, InterpolateMotion, Particle};
///
/// // A mass on a spring x = cos t, at t = 0 and t = 0.1.
/// let before = Particle::new(1.0, 1.0_f64, 0.0);
/// let after = Particle::new(1.0, 0.1_f64.cos(), -0.1_f64.sin());
/// let shown = before.hermite(&after, 0.5, 0.1);
/// // Off by dt⁴/384 = 2.6·10⁻⁷ at the middle, where the straight line is off by 1.2·10⁻³.
/// assert!((shown.position() - 0.05_f64.cos()).abs() < 3e-7);
/// assert!((before.interpolate(&after, 0.5).position() - 0.05_f64.cos()).abs() > 1e-3);
/// assert!((shown.momentum() + 0.05_f64.sin()).abs() < 1e-8);
/// assert_eq!(before.hermite(&after, 1.0, 0.1), after);
///
/// assert_eq!(after.extrapolate(0.5, 0.1).position(), after.position() - 0.05 * 0.1_f64.sin());
/// ```
impl<V> InterpolateMotion for Particle<V>
where
    V: SmallVector + Interpolate<Scalar = <V as SmallVector>::Scalar>,
{
    #[inline]
    fn hermite(&self, other: &Self, alpha: Self::Scalar, dt: Self::Scalar) -> Self {
        let (x0, x1) = (self.position(), other.position());
        let mut blend = *self;
        blend.set_position(hermite_point(
            x0,
            self.velocity(),
            x1,
            other.velocity(),
            alpha,
            dt,
        ));
        blend.set_momentum(hermite_momentum(
            (x0, self.momentum()),
            (x1, other.momentum()),
            self.mass(),
            alpha,
            dt,
        ));
        blend
    }

    #[inline]
    fn extrapolate(&self, alpha: Self::Scalar, dt: Self::Scalar) -> Self {
        let mut ahead = *self;
        ahead.set_position(self.position().add_scaled(self.velocity(), alpha * dt));
        ahead
    }
}

/// Position and momentum as for a particle (the Hermite cubic from `x` and `v`, and its
/// derivative), the orientation by the Hermite cubic from `q` and its rate, the spin
/// `dq/dt = ½ ω q`, then normalized; the angular momentum linearly (its rate, the torque,
/// is not part of the state); constants from `self`; then every secondary quantity
/// recalculated.
///
/// **Why the orientation this way.** A unit quaternion moves on the unit sphere in four
/// dimensions, and its velocity there is the spin `½ ω q`, which both states carry. The
/// cubic through `q₀` and `q₁` with those two velocities is the Hermite curve of the
/// position, taken in 4D: it follows the true path to `O(dt⁴)`, like the position. The
/// normalized lerp of [`Interpolate`] follows the great circle from `q₀` to `q₁`, which is
/// the path only for a steady turn about a fixed axis (and then its error, a non-uniform
/// rate, is `O(dt³)`); a tumbling body leaves that circle, and nlerp is `O(dt²)`
/// (`tests/timestep/interpolate.rs`: 5.4·10⁻⁵ rad against 1.6·10⁻⁹ rad for Hermite at
/// `dt = 0.04` on a body with `I = diag(1, 2, 3)`). Normalizing projects it back onto
/// the sphere without spoiling that: the true orientation is on the sphere, and the
/// projection moves a point near the sphere by no more than its distance from it. Because
/// `q·(dq/dt) = 0` for a unit `q`, normalizing keeps the velocities at the ends too, so the
/// drawn body turns at `ω₀` leaving `q₀` and at `ω₁` arriving at `q₁`: no kink in the
/// rotation from one step to the next. It costs one square root, as the normalized lerp
/// does; a cubic in the rotation's logarithm (`log(q₀⁻¹ q₁)`, "squad") costs an `acos`
/// and a `sin` for the same order. When the two lie in opposite hemispheres
/// (`q₀·q₁ < 0`), `q₁` and its spin are negated first (the same rotation), so the curve
/// takes the short way round.
///
/// Extrapolation moves the position on along `v` and turns the orientation by the exact
/// rotation through `|ω| α dt` about `ω`, `q ← exp(½ ω α dt) q`; `p` and `L` stay, and
/// `ω` is recalculated from `L` at the new orientation (for a torque-free body, `L` is
/// what is conserved).
///
/// ```
/// use timestep::rigid::{DRigidBody, Inertia};
/// use timestep::InterpolateMotion;
/// use timestep::glam::{DQuat, DVec3};
///
/// // A cube turning steadily about z at 2 rad/s: its orientation at t is a turn of 2t.
/// let at = |t: f64| {
///     let mut cube = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
///     cube.set_orientation(DQuat::from_rotation_z(2.0 * t));
///     cube.set_angular_velocity(DVec3::new(0.0, 0.0, 2.0));
///     cube
/// };
/// let dt = 0.1;
/// let (before, after) = (at(0.0), at(dt));
/// let shown = before.hermite(&after, 0.3, dt);
/// assert!(shown.orientation().angle_between(at(0.3 * dt).orientation()) < 1e-7);
///
/// let ahead = after.extrapolate(0.5, dt);
/// assert!(ahead.orientation().angle_between(at(1.5 * dt).orientation()) < 1e-12);
/// ```
impl<S: Precision> InterpolateMotion for Body<S>
where
    S::Quat: Interpolate<Scalar = S>,
{
    #[inline]
    fn hermite(&self, other: &Self, alpha: S, dt: S) -> Self {
        let (x0, x1) = (self.position(), other.position());
        let (q0, s0) = (self.orientation(), self.spin());
        let (mut q1, mut s1) = (other.orientation(), other.spin());
        if q0.dot(q1) < S::zero() {
            q1 = q1.scale(-S::one());
            s1 = s1.scale(-S::one());
        }
        let mut blend = *self;
        blend.set_primaries(
            hermite_point(x0, self.velocity(), x1, other.velocity(), alpha, dt),
            hermite_momentum(
                (x0, self.momentum()),
                (x1, other.momentum()),
                self.mass(),
                alpha,
                dt,
            ),
            hermite_point(q0, s0, q1, s1, alpha, dt).normalize(),
            lerp(self.angular_momentum(), other.angular_momentum(), alpha),
        );
        blend
    }

    #[inline]
    fn extrapolate(&self, alpha: S, dt: S) -> Self {
        let ahead = alpha * dt;
        if ahead == S::zero() {
            return *self;
        }
        let turn = S::Quat::from_scaled_axis(self.angular_velocity() * ahead);
        let mut moved = *self;
        moved.set_primaries(
            self.position().add_scaled(self.velocity(), ahead),
            self.momentum(),
            (turn * self.orientation()).normalize(),
            self.angular_momentum(),
        );
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
