//! [`Body`] ([`RigidBody`], [`DRigidBody`]): the state of a rigid body, and its
//! [`OrientationUpdate`].

use super::{Inertia, InertiaError, Matrix3, Precision, Quaternion, Vector3};
use crate::particle::{check_momentum, check_velocity};
use crate::{Derivative, MassError, SmallVector, State};
use core::fmt;
use num_traits::Float;

/// A rigid body in single precision: glam `Vec3`, `Quat`, `Mat3`. See [`Body`].
pub type RigidBody = Body<f32>;

/// A rigid body in double precision: glam `DVec3`, `DQuat`, `DMat3`. See [`Body`].
pub type DRigidBody = Body<f64>;

/// The state of a rigid body: where it is, how it is turned, and how it moves and spins.
///
/// Use it through its two names, [`RigidBody`] (`f32`) and [`DRigidBody`] (`f64`); `Body<S>`
/// is the one implementation behind both.
///
/// - **Primary** (integrated): the position `x` of the centre of mass, the momentum `p`, the
///   orientation `q` (a unit quaternion taking body coordinates to world coordinates) and
///   the angular momentum `L` (world frame).
/// - **Secondary** (derived by [`recalculate`](Body::recalculate) after every change of a
///   primary): the velocity `v = p / m`; the rotation matrix `R` of `q`, which with `x` is
///   the body-to-world transform `b ↦ R b + x` (and with `Rᵀ` the world-to-body one,
///   `w ↦ Rᵀ (w − x)`);
///   the world inverse inertia `I_world⁻¹ = R I⁻¹ Rᵀ`; the angular velocity
///   `ω = I_world⁻¹ L` (world frame); and the spin `dq/dt = ½ ω q`, with `ω` the pure
///   quaternion `(0, ωx, ωy, ωz)`.
/// - **Constant**: the mass `m` and `1/m`, the body-frame inertia tensor `I` and `I⁻¹`, and
///   the principal moments and axes of `I`.
///
/// It is a [`State`]: its velocity is the pair (linear velocity, spin) and its force the
/// pair (force, torque), both in world coordinates, so every integrator steps it. Runge–Kutta
/// methods combine the spins of their stages as quaternion rates, so [`Rk4`](crate::Rk4)
/// is fourth order in the orientation too (with [`OrientationUpdate::Additive`]). A drift
/// moves the position along the velocity and turns the orientation by the spin, as its
/// [`OrientationUpdate`] says; a kick adds `F dt` to the momentum and `τ dt` to the angular
/// momentum; each ends with a recalculation (once, for [`advance`](State::advance)). A
/// kick by a zero torque leaves `L` exactly as it was.
///
/// # Example
///
/// The article's cube (1 kg, 1 m sides), spun up about x by the torque `(1, 0, 0) − 0.1 ω`:
/// `⅙ ω' = 1 − 0.1 ω`, so `ω = 10 (1 − e^(−0.6 t))`.
///
/// ```
/// use timestep::rigid::{DRigidBody, Inertia};
/// use timestep::{Integrator, Rk4};
/// use glam::DVec3;
///
/// let mut cube = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
/// let spin_up = |body: &DRigidBody, _t: f64| {
///     (DVec3::ZERO, DVec3::X - 0.1 * body.angular_velocity())
/// };
/// let dt = 1.0 / 60.0;
/// for i in 0..600 {
///     Rk4.step(&mut cube, &spin_up, i as f64 * dt, dt)?;
/// }
/// let exact = 10.0 * (1.0 - (-6.0_f64).exp());
/// assert!((cube.angular_velocity().x - exact).abs() < 1e-9);
/// # Ok::<(), timestep::StepError>(())
/// ```
///
/// # Saving and loading
///
/// With the `serde` feature a body serializes as its mass, its inertia tensor (the six
/// entries of [`Inertia`], in the body's precision), its [`OrientationUpdate`] and its four
/// primary quantities (the orientation as `[x, y, z, w]`). Deserializing checks the mass
/// and the tensor as [`try_new`](Body::try_new) and [`Inertia::try_symmetric`] do, that
/// the orientation is a unit quaternion, and the momenta as the setters do, then computes
/// the rest again: a loaded body is the saved one, bit for bit, and steps on identically
/// (given a format that reads every float back to the same bits: serde_json needs its
/// `float_roundtrip` feature for that; its default parser can be one ulp off, and what
/// it reads still loads). A body whose state is not finite is refused both ways: saving
/// it is an error, rather than JSON's `null`, which would not load.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use timestep::rigid::{DRigidBody, Inertia};
///
/// let mut body = DRigidBody::new(2.0, Inertia::diagonal(1.0, 2.0, 3.0));
/// body.set_angular_velocity(glam::DVec3::new(0.1, 2.0, 0.1));
/// let json = serde_json::to_string(&body)?;
/// assert!(json.starts_with(r#"{"mass":2.0,"inertia":{"ixx":1.0,"iyy":2.0,"izz":3.0,"#));
/// assert_eq!(serde_json::from_str::<DRigidBody>(&json)?, body);
///
/// let weightless = json.replace(r#""mass":2.0"#, r#""mass":0.0"#);
/// let error = serde_json::from_str::<DRigidBody>(&weightless).unwrap_err();
/// assert_eq!(error.to_string(), "rigid body: mass must be positive, got 0");
/// # }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body<S: Precision> {
    // Primary.
    position: S::Vec3,
    momentum: S::Vec3,
    orientation: S::Quat,
    angular_momentum: S::Vec3,
    // Secondary.
    velocity: S::Vec3,
    rotation: S::Mat3,
    inverse_inertia_world: S::Mat3,
    angular_velocity: S::Vec3,
    spin: S::Quat,
    // Constant.
    mass: S,
    inverse_mass: S,
    inertia: S::Mat3,
    inverse_inertia: S::Mat3,
    principal_moments: S::Vec3,
    principal_rotation: S::Quat,
    orientation_update: OrientationUpdate,
}

impl<S: Precision> Body<S> {
    /// A body of `mass` and `inertia`, at rest at the origin in its body orientation
    /// (`q = 1`), with the [`Additive`](OrientationUpdate::Additive) orientation update.
    ///
    /// # Panics
    ///
    /// When [`try_new`](Body::try_new) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn new(mass: S, inertia: Inertia) -> Self {
        match Self::try_new(mass, inertia) {
            Ok(body) => body,
            Err(error) => panic!("rigid body: {error}"),
        }
    }

    /// A body of `mass` and `inertia` at rest at the origin, or why not: a mass that is
    /// zero, negative, infinite or `NaN` ([`BodyError::Mass`]), or, for an `f32` body, an
    /// inertia tensor whose moments or inverse do not fit in `f32` ([`BodyError::Inertia`]).
    /// (`Inertia` itself is checked when it is made.)
    ///
    /// An `f32` body keeps its tensor rounded to `f32`, and its inverse tensor and principal
    /// axes are those of that rounded tensor (computed in `f64`, then rounded), so that
    /// the body is consistent with itself and is determined by what it stores: its mass, its
    /// `f32` tensor and its state. (Which is also what lets a body survive a round trip
    /// through the `serde` feature bit for bit.)
    ///
    /// ```
    /// use timestep::rigid::{BodyError, DRigidBody, Inertia, RigidBody};
    /// use timestep::MassError;
    ///
    /// assert!(DRigidBody::try_new(2.0, Inertia::sphere(2.0, 0.5)).is_ok());
    /// assert_eq!(
    ///     DRigidBody::try_new(0.0, Inertia::cube(1.0, 1.0)),
    ///     Err(BodyError::Mass(MassError::NotPositive(0.0)))
    /// );
    /// // A mass whose inverse overflows is refused too.
    /// assert!(matches!(
    ///     RigidBody::try_new(1e-40, Inertia::cube(1.0, 1.0)),
    ///     Err(BodyError::Mass(MassError::InverseNotFinite(_)))
    /// ));
    /// // 10⁻⁴⁰ kg·m² is fine in f64 but its inverse overflows f32.
    /// let tiny = Inertia::diagonal(1e-40, 1e-40, 1e-40);
    /// assert!(DRigidBody::try_new(1.0, tiny).is_ok());
    /// assert!(matches!(RigidBody::try_new(1.0, tiny), Err(BodyError::Inertia(_))));
    /// ```
    pub fn try_new(mass: S, inertia: Inertia) -> Result<Self, BodyError> {
        let inverse_mass = MassError::inverse(mass)?;
        check_fits::<S>(&inertia)?;
        let rounded = S::widen_mat3(S::mat3(inertia.tensor()));
        let inertia = if rounded == inertia.tensor() {
            inertia
        } else {
            let own = Inertia::try_from_tensor(rounded, S::epsilon().to_f64())?;
            check_fits::<S>(&own)?;
            own
        };
        let inertia_tensor = S::mat3(inertia.tensor());
        let inverse_inertia = S::mat3(inertia.inverse());
        let zero = S::Vec3::zero();
        let mut body = Body {
            position: zero,
            momentum: zero,
            orientation: S::Quat::IDENTITY,
            angular_momentum: zero,
            velocity: zero,
            rotation: S::Mat3::from_quat(S::Quat::IDENTITY),
            inverse_inertia_world: inverse_inertia,
            angular_velocity: zero,
            spin: S::Quat::zero(),
            mass,
            inverse_mass,
            inertia: inertia_tensor,
            inverse_inertia,
            principal_moments: S::vec3(inertia.principal_moments()),
            principal_rotation: S::quat(inertia.principal_rotation()).normalize(),
            orientation_update: OrientationUpdate::default(),
        };
        body.recalculate();
        Ok(body)
    }

    /// Recomputes every secondary quantity from the primary ones and the constants:
    /// `v = p / m`, `R` from `q`, `I_world⁻¹ = R I⁻¹ Rᵀ`, `ω = I_world⁻¹ L`, spin `½ ω q`.
    ///
    /// The body does this itself after every change of a primary quantity (its setters,
    /// drifts and kicks), so you never need to. It changes no primary quantity, so calling
    /// it again changes nothing, which is how you can check that nothing is stale.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut body = DRigidBody::new(2.0, Inertia::diagonal(1.0, 2.0, 3.0));
    /// body.set_angular_momentum(DVec3::new(1.0, 2.0, 3.0));
    /// let fresh = body;
    /// body.recalculate();
    /// assert_eq!(body, fresh);
    /// assert_eq!(body.angular_velocity(), DVec3::ONE);
    /// ```
    // Always inlined, and so is `advance`: called out of line, or inlined into `advance`
    // but `advance` then left out of line, the body goes through memory between the stages
    // of a step, and RK4 on a body ran 17-20% slower than the same update written by hand
    // (semi-implicit Euler 35%); inlined, within 3% (RK4) and 9% (see BENCHMARKS.md).
    #[inline(always)]
    pub fn recalculate(&mut self) {
        self.rotation = S::Mat3::from_quat(self.orientation);
        self.inverse_inertia_world =
            self.rotation * self.inverse_inertia * self.rotation.transpose();
        self.recalculate_rates();
    }

    /// Recalculates the secondaries that follow the momenta (velocity, ω, spin) and not
    /// the ones that follow the orientation alone (R and `R I⁻¹ Rᵀ`): all a kick needs,
    /// since it leaves the orientation as it was. The result is the same, bit for bit.
    #[inline(always)]
    fn recalculate_rates(&mut self) {
        self.velocity = self.momentum * self.inverse_mass;
        self.angular_velocity = self.inverse_inertia_world * self.angular_momentum;
        self.spin = spin::<S>(self.angular_velocity, self.orientation);
    }

    /// The position `x` of the centre of mass (world).
    #[inline]
    #[must_use]
    pub fn position(&self) -> S::Vec3 {
        self.position
    }

    /// The momentum `p = m v` (world).
    #[inline]
    #[must_use]
    pub fn momentum(&self) -> S::Vec3 {
        self.momentum
    }

    /// The orientation `q`: the unit quaternion that turns body coordinates into world
    /// coordinates.
    #[inline]
    #[must_use]
    pub fn orientation(&self) -> S::Quat {
        self.orientation
    }

    /// The angular momentum `L` about the centre of mass (world).
    #[inline]
    #[must_use]
    pub fn angular_momentum(&self) -> S::Vec3 {
        self.angular_momentum
    }

    /// The velocity `v = p / m` of the centre of mass (world).
    #[inline]
    #[must_use]
    pub fn velocity(&self) -> S::Vec3 {
        self.velocity
    }

    /// The angular velocity `ω = I_world⁻¹ L` (world): its direction is the axis of
    /// rotation (right-hand rule) and its length the rate in radians per second.
    #[inline]
    #[must_use]
    pub fn angular_velocity(&self) -> S::Vec3 {
        self.angular_velocity
    }

    /// The angular velocity in **body** coordinates, `ω_body = Rᵀ ω`: the world angular
    /// velocity [`angular_velocity`](Body::angular_velocity) written along the body's own
    /// axes (what a gyroscope fixed to the body reads, and the `ω` of Euler's equations
    /// `I ω̇ + ω × I ω = τ_body`). It turns back into the world one by `R`:
    /// `ω = R ω_body`.
    ///
    /// A body turned a quarter turn about z (so its x axis points along world y) and spun
    /// about world x spins about its own −y axis:
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    /// body.set_orientation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
    /// body.set_angular_velocity(DVec3::new(3.0, 0.0, 0.0));
    /// assert!(body.angular_velocity_body().abs_diff_eq(DVec3::new(0.0, -3.0, 0.0), 1e-15));
    /// // L_body = I ω_body with the body-frame tensor diag(1, 2, 3).
    /// assert!(body.angular_momentum_body().abs_diff_eq(DVec3::new(0.0, -6.0, 0.0), 1e-14));
    /// ```
    #[inline]
    #[must_use]
    pub fn angular_velocity_body(&self) -> S::Vec3 {
        self.rotation.transpose_mul_vec3(self.angular_velocity)
    }

    /// The angular momentum in **body** coordinates, `L_body = Rᵀ L = I ω_body`, with `I`
    /// the body-frame [`inertia`](Body::inertia) tensor; `L = R L_body`. Unlike the world
    /// `L`, it changes under free rotation (its length does not). See
    /// [`angular_velocity_body`](Body::angular_velocity_body) for an example.
    #[inline]
    #[must_use]
    pub fn angular_momentum_body(&self) -> S::Vec3 {
        self.rotation.transpose_mul_vec3(self.angular_momentum)
    }

    /// The spin `dq/dt = ½ ω q`, with `ω` the pure quaternion `(0, ωx, ωy, ωz)`.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_angular_velocity(DVec3::new(0.0, 0.0, 2.0));
    /// // ½ (0, 0, 0, 2) · 1 = (0, 0, 0, 1) as (w, x, y, z).
    /// assert!(body.spin().abs_diff_eq(DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0), 1e-15));
    /// ```
    #[inline]
    #[must_use]
    pub fn spin(&self) -> S::Quat {
        self.spin
    }

    /// The rotation matrix `R` of the orientation: body directions to world directions.
    #[inline]
    #[must_use]
    pub fn rotation(&self) -> S::Mat3 {
        self.rotation
    }

    /// The inverse inertia tensor in world coordinates, `I_world⁻¹ = R I⁻¹ Rᵀ`.
    #[inline]
    #[must_use]
    pub fn inverse_inertia_world(&self) -> S::Mat3 {
        self.inverse_inertia_world
    }

    /// The mass `m`.
    #[inline]
    #[must_use]
    pub fn mass(&self) -> S {
        self.mass
    }

    /// The inverse mass `1 / m`.
    #[inline]
    #[must_use]
    pub fn inverse_mass(&self) -> S {
        self.inverse_mass
    }

    /// The inertia tensor `I` in body coordinates.
    #[inline]
    #[must_use]
    pub fn inertia(&self) -> S::Mat3 {
        self.inertia
    }

    /// The inverse inertia tensor `I⁻¹` in body coordinates.
    #[inline]
    #[must_use]
    pub fn inverse_inertia(&self) -> S::Mat3 {
        self.inverse_inertia
    }

    /// The principal moments of inertia, in the order of
    /// [`principal_rotation`](Body::principal_rotation)'s axes
    /// (see [`Inertia::principal_moments`]).
    #[inline]
    #[must_use]
    pub fn principal_moments(&self) -> S::Vec3 {
        self.principal_moments
    }

    /// The rotation from principal coordinates to body coordinates
    /// (see [`Inertia::principal_rotation`]); the identity for a diagonal tensor.
    #[inline]
    #[must_use]
    pub fn principal_rotation(&self) -> S::Quat {
        self.principal_rotation
    }

    /// How drifts turn the orientation.
    #[inline]
    #[must_use]
    pub fn orientation_update(&self) -> OrientationUpdate {
        self.orientation_update
    }

    /// Chooses how drifts turn the orientation; see [`OrientationUpdate`].
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_orientation_update(OrientationUpdate::Exponential);
    /// assert_eq!(body.orientation_update(), OrientationUpdate::Exponential);
    /// ```
    #[inline]
    pub fn set_orientation_update(&mut self, update: OrientationUpdate) {
        self.orientation_update = update;
    }

    /// Moves the centre of mass to `position` (world). Non-finite coordinates are kept as
    /// given.
    pub fn set_position(&mut self, position: S::Vec3) {
        self.position = position;
    }

    /// Sets the momentum, and so the velocity `p / m`. Non-finite coordinates are kept as
    /// given and make the velocity non-finite.
    ///
    /// # Panics
    ///
    /// When [`try_set_momentum`](Body::try_set_momentum) refuses it, with its message.
    #[track_caller]
    pub fn set_momentum(&mut self, momentum: S::Vec3) {
        if let Err(error) = self.try_set_momentum(momentum) {
            panic!("rigid body: {error}");
        }
    }

    /// Sets the momentum, or [`BodyError::Mass`] with
    /// [`MassError::MomentumOutOfRange`] when the velocity `p / m` of a finite non-zero
    /// coordinate overflows, or underflows to zero or a subnormal number; the body is
    /// then unchanged.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut speck = DRigidBody::new(1e-300, Inertia::cube(1.0, 1.0));
    /// assert!(speck.try_set_momentum(DVec3::new(1e10, 0.0, 0.0)).is_err()); // v = 10³¹⁰
    /// assert_eq!(speck.momentum(), DVec3::ZERO);
    /// ```
    pub fn try_set_momentum(&mut self, momentum: S::Vec3) -> Result<(), BodyError> {
        check_velocity(self.mass, momentum, momentum * self.inverse_mass)?;
        self.momentum = momentum;
        self.recalculate_rates();
        Ok(())
    }

    /// Sets the velocity of the centre of mass, by setting the momentum to `m v`; the
    /// velocity read back is `p / m`, which can differ from `velocity` in the last bit.
    /// Non-finite coordinates are kept as given.
    ///
    /// # Panics
    ///
    /// When [`try_set_velocity`](Body::try_set_velocity) refuses it, with its message.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut body = DRigidBody::new(2.0, Inertia::sphere(2.0, 1.0));
    /// body.set_velocity(DVec3::new(1.0, 0.0, -3.0));
    /// assert_eq!(body.momentum(), DVec3::new(2.0, 0.0, -6.0));
    /// assert_eq!(body.velocity(), DVec3::new(1.0, 0.0, -3.0));
    /// ```
    #[track_caller]
    pub fn set_velocity(&mut self, velocity: S::Vec3) {
        if let Err(error) = self.try_set_velocity(velocity) {
            panic!("rigid body: {error}");
        }
    }

    /// Sets the velocity, or [`BodyError::Mass`] with [`MassError::MomentumOutOfRange`]
    /// when the momentum `m v` of a finite non-zero coordinate overflows, or underflows to
    /// zero or a subnormal number; the body is then unchanged.
    ///
    /// ```
    /// use timestep::rigid::{RigidBody, Inertia};
    /// use glam::Vec3;
    ///
    /// let mut heavy = RigidBody::new(1e30, Inertia::cube(1e30, 1.0));
    /// assert!(heavy.try_set_velocity(Vec3::new(0.0, 1e10, 0.0)).is_err()); // p = 10⁴⁰ in f32
    /// ```
    pub fn try_set_velocity(&mut self, velocity: S::Vec3) -> Result<(), BodyError> {
        let momentum = velocity * self.mass;
        check_momentum(self.mass, velocity, momentum)?;
        self.momentum = momentum;
        self.recalculate_rates();
        Ok(())
    }

    /// Turns the body to `orientation`, normalized to unit length (any finite non-zero
    /// quaternion, however large or small its coordinates).
    ///
    /// # Panics
    ///
    /// If `orientation` is zero or has a non-finite coordinate: it names no rotation. The
    /// message gives the quaternion.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_orientation(DQuat::from_xyzw(0.0, 0.0, 2.0, 2.0)); // 90° about z, unnormalized
    /// assert!(body.to_world_direction(DVec3::X).abs_diff_eq(DVec3::Y, 1e-15));
    /// ```
    #[track_caller]
    pub fn set_orientation(&mut self, orientation: S::Quat) {
        let largest = orientation.max_abs();
        assert!(
            largest.is_finite() && largest > S::zero(),
            "rigid body: an orientation must be a finite, non-zero quaternion, got {orientation:?}"
        );
        self.orientation = orientation.normalize();
        self.recalculate();
    }

    /// Sets the angular momentum `L` (world), and so the angular velocity. Non-finite
    /// coordinates are kept as given.
    ///
    /// # Panics
    ///
    /// When [`try_set_angular_momentum`](Body::try_set_angular_momentum) refuses it, with
    /// its message.
    #[track_caller]
    pub fn set_angular_momentum(&mut self, angular_momentum: S::Vec3) {
        if let Err(error) = self.try_set_angular_momentum(angular_momentum) {
            panic!("rigid body: {error}");
        }
    }

    /// Sets the angular momentum, or [`BodyError::Overflow`] when `L` is finite but the
    /// angular velocity `ω = I_world⁻¹ L` overflows (a tiny moment of inertia and a large
    /// `L`); the body is then unchanged.
    ///
    /// ```
    /// use timestep::rigid::{BodyError, DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut needle = DRigidBody::new(1.0, Inertia::diagonal(1e-300, 1e-300, 1e-300));
    /// let error = needle.try_set_angular_momentum(DVec3::new(1e20, 0.0, 0.0)).unwrap_err();
    /// assert_eq!(
    ///     error.to_string(),
    ///     "the angular velocity I⁻¹ L overflows (from the angular momentum 1e20)"
    /// );
    /// ```
    pub fn try_set_angular_momentum(&mut self, angular_momentum: S::Vec3) -> Result<(), BodyError> {
        let angular_velocity = self.inverse_inertia_world * angular_momentum;
        if angular_momentum.is_finite() && !angular_velocity.is_finite() {
            return Err(BodyError::Overflow {
                quantity: "angular velocity I⁻¹ L",
                from: "angular momentum",
                value: angular_momentum.max_abs().to_f64(),
            });
        }
        self.angular_momentum = angular_momentum;
        self.recalculate_rates();
        Ok(())
    }

    /// Sets the angular velocity (world), by setting `L = R I Rᵀ ω`; the angular velocity
    /// read back is `I_world⁻¹ L`, equal to `angular_velocity` up to rounding. Non-finite
    /// coordinates make `L` non-finite.
    ///
    /// # Panics
    ///
    /// When [`try_set_angular_velocity`](Body::try_set_angular_velocity) refuses it, with
    /// its message.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    /// body.set_angular_velocity(DVec3::new(0.001, 2.0, 0.001));
    /// assert_eq!(body.angular_momentum(), DVec3::new(0.001, 4.0, 0.003));
    /// ```
    #[track_caller]
    pub fn set_angular_velocity(&mut self, angular_velocity: S::Vec3) {
        if let Err(error) = self.try_set_angular_velocity(angular_velocity) {
            panic!("rigid body: {error}");
        }
    }

    /// Sets the angular velocity, or [`BodyError::Overflow`] when `ω` is finite but the
    /// angular momentum `L = I_world ω` (or the `ω` read back from it) overflows; the body
    /// is then unchanged.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut planet = DRigidBody::new(1.0, Inertia::diagonal(1e300, 1e300, 1e300));
    /// assert!(planet.try_set_angular_velocity(DVec3::new(0.0, 0.0, 1e10)).is_err());
    /// ```
    pub fn try_set_angular_velocity(&mut self, angular_velocity: S::Vec3) -> Result<(), BodyError> {
        let world_inertia = self.rotation * self.inertia * self.rotation.transpose();
        let angular_momentum = world_inertia * angular_velocity;
        if angular_velocity.is_finite() && !angular_momentum.is_finite() {
            return Err(BodyError::Overflow {
                quantity: "angular momentum I ω",
                from: "angular velocity",
                value: angular_velocity.max_abs().to_f64(),
            });
        }
        self.try_set_angular_momentum(angular_momentum)
    }

    /// The kinetic energy, `½ p·v + ½ L·ω`.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut body = DRigidBody::new(2.0, Inertia::diagonal(1.0, 2.0, 3.0));
    /// body.set_velocity(DVec3::new(3.0, 0.0, 0.0));
    /// body.set_angular_velocity(DVec3::new(0.0, 0.0, 1.0));
    /// assert_eq!(body.kinetic_energy(), 9.0 + 1.5);
    /// ```
    #[must_use]
    pub fn kinetic_energy(&self) -> S {
        half::<S>() * self.momentum.dot(self.velocity) + self.rotational_kinetic_energy()
    }

    /// The kinetic energy of the rotation alone, `½ L·ω`.
    #[must_use]
    pub fn rotational_kinetic_energy(&self) -> S {
        half::<S>() * self.angular_momentum.dot(self.angular_velocity)
    }

    /// Sets every primary quantity as given (the orientation is expected to be a unit
    /// quaternion already), recalculating once.
    pub(crate) fn set_primaries(
        &mut self,
        position: S::Vec3,
        momentum: S::Vec3,
        orientation: S::Quat,
        angular_momentum: S::Vec3,
    ) {
        self.position = position;
        self.momentum = momentum;
        self.orientation = orientation;
        self.angular_momentum = angular_momentum;
        self.recalculate();
    }

    /// Sets position and orientation together (the orientation normalized), recalculating
    /// once: for integrators that move a body by other means than a drift.
    pub(crate) fn place(&mut self, position: S::Vec3, orientation: S::Quat) {
        self.position = position;
        self.orientation = orientation.normalize();
        self.recalculate();
    }

    /// The primary part of a drift: positions along `velocity`, orientation by `spin`.
    #[inline]
    fn move_along(&mut self, velocity: S::Vec3, spin: S::Quat, dt: S) {
        self.position = self.position.add_scaled(velocity, dt);
        self.orientation = self.orientation_update.turn(self.orientation, spin, dt);
    }

    /// The primary part of a kick.
    #[inline]
    fn push(&mut self, force: S::Vec3, torque: S::Vec3, dt: S) {
        self.momentum = self.momentum.add_scaled(force, dt);
        self.angular_momentum = self.angular_momentum.add_scaled(torque, dt);
    }
}

/// Refuses an inertia tensor whose moments, entries or inverse do not fit in `S`.
fn check_fits<S: Precision>(inertia: &Inertia) -> Result<(), InertiaError> {
    let moments = S::vec3(inertia.principal_moments()).to_array();
    let moments_fit = moments.iter().all(|&m| m.is_finite() && m > S::zero())
        && (moments[0] + moments[1] + moments[2]).is_finite();
    if moments_fit
        && S::mat3(inertia.tensor()).is_finite()
        && S::mat3(inertia.inverse()).is_finite()
    {
        Ok(())
    } else {
        Err(InertiaError::OutOfRange {
            moments: inertia.principal_moments().to_array(),
            precision: S::NAME,
        })
    }
}

/// The error for an orientation that overflowed (`ω · dt` beyond the range of the body's
/// floats, or `ω` not finite), out of line and cold.
#[cold]
#[inline(never)]
pub(super) fn orientation_overflow<V: SmallVector>(
    angular_velocity: V,
    dt: V::Scalar,
) -> crate::StepError {
    crate::StepError::Overflow {
        quantity: "orientation",
        value: crate::Scalar::to_f64(angular_velocity.max_abs() * dt.abs()),
    }
}

/// `½`, in the body's precision.
#[inline]
fn half<S: Precision>() -> S {
    S::from_f64(0.5)
}

/// The spin `½ ω q`, with `ω` as the pure quaternion `(0, ω)`.
#[inline]
fn spin<S: Precision>(omega: S::Vec3, orientation: S::Quat) -> S::Quat {
    let [x, y, z] = omega.to_array();
    (S::Quat::from_xyzw(x, y, z, S::zero()) * orientation).scale(half::<S>())
}

impl<S: Precision> State for Body<S> {
    type Scalar = S;
    /// (linear velocity, spin `dq/dt`), world frame.
    type Velocity = (S::Vec3, S::Quat);
    /// (force, torque about the centre of mass), world frame.
    type Force = (S::Vec3, S::Vec3);

    #[inline]
    fn velocity(&self) -> Self::Velocity {
        (self.velocity, self.spin)
    }

    #[inline]
    fn drift(&mut self, (velocity, spin): Self::Velocity, dt: S) {
        self.move_along(velocity, spin, dt);
        self.recalculate();
    }

    #[inline]
    fn kick(&mut self, (force, torque): Self::Force, dt: S) {
        self.push(force, torque, dt);
        self.recalculate_rates();
    }

    /// Drifts and kicks, then recalculates once.
    #[inline(always)]
    fn advance(&mut self, rate: &Derivative<Self::Velocity, Self::Force>, dt: S) {
        let ((velocity, spin), (force, torque)) = (rate.velocity, rate.force);
        self.move_along(velocity, spin, dt);
        self.push(force, torque, dt);
        self.recalculate();
    }

    /// (position, orientation) where the rate has (velocity, spin), and (momentum, angular
    /// momentum) where it has (force, torque): what error norms and finite differences
    /// measure against.
    #[inline]
    fn coordinates_into(&self, out: &mut Derivative<Self::Velocity, Self::Force>) -> bool {
        *out = Derivative::new(
            (self.position, self.orientation),
            (self.momentum, self.angular_momentum),
        );
        true
    }

    #[inline]
    fn has_coordinates(&self) -> bool {
        true
    }

    #[inline]
    fn coordinate(&self, index: usize) -> Self::Scalar {
        let coordinates = Derivative::new(
            (self.position, self.orientation),
            (self.momentum, self.angular_momentum),
        );
        crate::Vector::component(&coordinates, index)
    }
}

/// How a drift turns a body's orientation `q` by a spin `dq/dt` over `dt`.
///
/// Both keep `q` a unit quaternion: to within 10⁻⁶ in `f32` and 10⁻¹² in `f64`, after any
/// number of steps, because `q` is renormalized after every update, for every finite
/// spin and `dt`: a sum `q + spin·dt` whose squared length overflows is scaled before it
/// is normalized, and a turn `|ω| dt` too large to have a meaning (beyond 10¹⁵⁴ rad in
/// `f64`, 1.8·10¹⁹ in `f32`; its rounding alone is many turns) turns by half a turn, the
/// limit of the additive update. Only a spin that is not finite (an `ω` that overflowed)
/// gives a `NaN` orientation; [`Splitting`](super::Splitting) refuses such a step.
///
/// # Example
///
/// A quarter turn about z in one step of 1 s at `ω = π/2`: the exponential map lands on it
/// exactly, the additive update falls short by `π/2 − 2·atan(π/4)`, about 0.239 rad.
///
/// ```
/// use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate};
/// use timestep::{Integrator, SemiImplicitEuler};
/// use glam::{DQuat, DVec3};
/// use std::f64::consts::FRAC_PI_2;
///
/// let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
/// let quarter_turn = DQuat::from_rotation_z(FRAC_PI_2);
/// for (update, error) in [(OrientationUpdate::Exponential, 0.0), (OrientationUpdate::Additive, 0.2392)] {
///     let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
///     body.set_orientation_update(update);
///     body.set_angular_velocity(DVec3::new(0.0, 0.0, FRAC_PI_2));
///     SemiImplicitEuler.step(&mut body, &free, 0.0, 1.0)?;
///     assert!((body.orientation().angle_between(quarter_turn) - error).abs() < 1e-4);
/// }
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OrientationUpdate {
    /// The article's update: `q ← (q + spin·dt) / |q + spin·dt|`.
    ///
    /// Adding the rate keeps the Runge–Kutta combination of stage spins intact, so
    /// [`Rk4`](crate::Rk4) stays fourth order in the orientation. In a single step it
    /// turns by `2·atan(|ω| dt / 2)` instead of `|ω| dt`: short by `(|ω| dt)³/12`.
    #[default]
    Additive,
    /// The exponential map `q ← exp(½ ω dt) q`, a rotation by exactly `|ω| dt` about `ω`
    /// (what Jolt, Bullet, rapier and avian do).
    ///
    /// `ω` is recovered from the spin the drift is given, as `ω = 2·vec(spin q⁻¹)`. When
    /// that spin is the body's own, `½ ω q` at the orientation being turned (explicit and
    /// semi-implicit Euler, Verlet), this is `ω` exactly and the update is the exact
    /// rotation at constant `ω`. Other methods hand the drift spins taken at other
    /// orientations: the Runge–Kutta methods (midpoint, improved Euler, RK4) a weighted sum
    /// of their stages' spins, backward Euler the spin at the end of the step. Read back at
    /// the current orientation, a spin taken at an orientation turned by `α` gives its `ω`
    /// turned and shortened by about `α/2` (and a scalar part, which the map drops), and the
    /// orientation comes out second order whatever the method's order. Measured: at 60 Hz
    /// RK4 turns the spinning cube 0.08 rad wrong in 83 rad with this update, 10⁻⁵ rad with
    /// the additive one. Use [`Additive`](OrientationUpdate::Additive) with multi-stage
    /// methods when the orientation's accuracy matters.
    Exponential,
}

impl OrientationUpdate {
    /// `q` turned by `spin` over `dt`, normalized: a unit quaternion for every finite `q`,
    /// spin and `dt`.
    #[inline(always)]
    fn turn<Q: Quaternion>(self, q: Q, spin: Q, dt: Q::Scalar) -> Q {
        match self {
            // `Quaternion::normalize` is glam's, plus two comparisons; a sum whose square
            // overflows or underflows is scaled first (out of line), and one with infinite
            // coordinates (`spin · dt` overflowed: `|ω| dt` beyond the largest float)
            // turns to the limit of the update, half a turn (about the signs of the
            // overflowed coordinates: at such an angle no direction is better than
            // another). Inlined; the exponential update, which calls sine and cosine, is
            // not.
            OrientationUpdate::Additive => q.add_scaled(spin, dt).normalize(),
            OrientationUpdate::Exponential => {
                super::precision::rebuilt(exponential_turn(q, spin, dt))
            }
        }
    }
}

/// The exponential update: `q` turned by `exp(½ ω dt)`, `ω = 2·vec(spin q⁻¹)`.
///
/// Out of line, so that the stepping loop of a body on the additive update does not carry
/// its code; under `deterministic` inline, where its sine and cosine are inline too
/// (`crate::math`) for the small angles a step turns by: out of line there, its call to
/// libm beyond them (another crate's function, whose effects on memory LLVM does not
/// know) made the loop around it compile worse for the additive update as well (1.051 of
/// the default build's instructions on `rigid-rk4/timestep`; BENCHMARKS.md).
#[cfg_attr(not(feature = "deterministic"), inline(never))]
#[cfg_attr(feature = "deterministic", inline(always))]
fn exponential_turn<Q: Quaternion>(q: Q, spin: Q, dt: Q::Scalar) -> Q {
    let two = <Q::Scalar as crate::Scalar>::from_f64(2.0);
    let turn = (spin * q.conjugate()).xyz() * (two * dt);
    let turned = (Q::from_scaled_axis(turn) * q).normalize();
    // One comparison: an angle |ω dt| whose square overflows makes every coordinate NaN.
    if turned.w().is_nan() {
        half_turn(turn, q)
    } else {
        turned
    }
}

/// `(0, turn) q`, normalized: half a turn about `turn`, the limit of both updates as the
/// angle `|turn|` grows without bound (beyond `√MAX` radians, 10¹⁵⁴ in `f64` and 1.8·10¹⁹
/// in `f32`, an angle has no meaning: its rounding alone is many turns).
#[cold]
#[inline(never)]
fn half_turn<Q: Quaternion>(turn: Q::Vec3, q: Q) -> Q {
    let zero = <Q::Scalar as num_traits::Zero>::zero();
    let [x, y, z] = turn.to_array();
    // Normalized first, so that the product cannot overflow.
    let axis = Q::from_xyzw(x, y, z, zero).normalize();
    let [x, y, z] = axis.xyz().to_array();
    (Q::from_xyzw(x, y, z, zero) * q).normalize()
}

/// Why a rigid body could not be made.
///
/// # Example
///
/// ```
/// use timestep::rigid::{BodyError, DRigidBody, Inertia};
///
/// let error = DRigidBody::try_new(f64::INFINITY, Inertia::cube(1.0, 1.0)).unwrap_err();
/// assert_eq!(error.to_string(), "mass must be finite, got inf");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyError {
    /// The mass is zero, negative, infinite or `NaN`.
    Mass(MassError),
    /// The inertia tensor does not fit the body's precision.
    Inertia(InertiaError),
    /// A quantity derived from one being set overflows the body's precision.
    Overflow {
        /// What overflows, e.g. `"angular velocity I⁻¹ L"`.
        quantity: &'static str,
        /// What was being set, e.g. `"angular momentum"`.
        from: &'static str,
        /// The largest coordinate of the value set.
        value: f64,
    },
}

impl From<MassError> for BodyError {
    fn from(error: MassError) -> Self {
        BodyError::Mass(error)
    }
}

impl From<InertiaError> for BodyError {
    fn from(error: InertiaError) -> Self {
        BodyError::Inertia(error)
    }
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Mass(error) => error.fmt(f),
            BodyError::Inertia(error) => error.fmt(f),
            BodyError::Overflow {
                quantity,
                from,
                value,
            } => write!(
                f,
                "the {quantity} overflows (from the {from} {})",
                crate::error::Number(*value)
            ),
        }
    }
}

impl core::error::Error for BodyError {}

/// Serde goes through [`Inertia`]'s checks and [`Body::try_new`]. Non-finite states are
/// refused both ways: saving one is an error (JSON would write `null`, which no float
/// reads back), and so is loading one (a coordinate that overflows the body's precision
/// as it is read, such as `1e39` in an `f32` body, is infinite). In JSON, the bit-exact
/// round trip needs serde_json's `float_roundtrip` feature (its default parser may read
/// a float one ulp off; such a body still loads). Stored: the mass, the
/// tensor in the body's own precision (the six entries of [`Inertia`]'s own form), the
/// orientation update, and the four primary quantities, the orientation as `[x, y, z, w]`.
/// The constants and secondary quantities are computed again from them, exactly as the
/// body computed them, so a round trip is bit-exact (for `f32` bodies too: their
/// constants are those of their `f32` tensor). On the way in, the orientation must be a
/// unit quaternion to within `64 ε` (a hand-written one that is not can be normalized
/// first): a stored orientation is kept as it is, so that nothing changes in a round trip.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::{Body, BodyError, OrientationUpdate};
    use crate::SmallVector;
    use crate::rigid::inertia::serde_impl::Entries;
    use crate::rigid::{Inertia, InertiaError, Precision, Quaternion};
    use core::fmt;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    // Written out rather than derived on `Body` and `OrientationUpdate` (what
    // `#[serde(try_from)]` and `#[serde(rename_all = "kebab-case")]` would generate) so
    // that docs.rs labels them as needing the `serde` feature; saving refuses a non-finite
    // state (below).
    impl<'de, S> Deserialize<'de> for Body<S>
    where
        S: Precision + Deserialize<'de>,
        S::Vec3: Deserialize<'de>,
        S::Quat: Deserialize<'de>,
    {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let data = BodyData::deserialize(deserializer)?;
            Body::try_from(data).map_err(serde::de::Error::custom)
        }
    }

    /// [`OrientationUpdate`] as its kebab-case name.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "OrientationUpdate", rename_all = "kebab-case")]
    enum UpdateName {
        Additive,
        Exponential,
    }

    impl Serialize for OrientationUpdate {
        fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
            match self {
                OrientationUpdate::Additive => UpdateName::Additive,
                OrientationUpdate::Exponential => UpdateName::Exponential,
            }
            .serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for OrientationUpdate {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            Ok(match UpdateName::deserialize(deserializer)? {
                UpdateName::Additive => OrientationUpdate::Additive,
                UpdateName::Exponential => OrientationUpdate::Exponential,
            })
        }
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(
        rename = "Body",
        deny_unknown_fields,
        bound(
            serialize = "S: serde::Serialize, S::Vec3: serde::Serialize, S::Quat: serde::Serialize",
            deserialize = "S: serde::Deserialize<'de>, S::Vec3: serde::Deserialize<'de>, S::Quat: serde::Deserialize<'de>"
        )
    )]
    pub struct BodyData<S: Precision> {
        mass: S,
        inertia: Entries<S>,
        #[serde(default)]
        orientation_update: OrientationUpdate,
        position: S::Vec3,
        momentum: S::Vec3,
        orientation: S::Quat,
        angular_momentum: S::Vec3,
    }

    impl<S: Precision> serde::Serialize for Body<S>
    where
        S: serde::Serialize,
        S::Vec3: serde::Serialize,
        S::Quat: serde::Serialize,
    {
        fn serialize<Ser: serde::Serializer>(
            &self,
            serializer: Ser,
        ) -> Result<Ser::Ok, Ser::Error> {
            let data = BodyData::from(*self);
            if let Some(quantity) = data.not_finite() {
                return Err(<Ser::Error as serde::ser::Error>::custom(format_args!(
                    "rigid body: cannot save a {quantity} that is not finite"
                )));
            }
            data.serialize(serializer)
        }
    }

    impl<S: Precision> BodyData<S> {
        /// The first primary quantity with an infinite or `NaN` coordinate.
        fn not_finite(&self) -> Option<&'static str> {
            if !self.position.is_finite() {
                Some("position")
            } else if !self.momentum.is_finite() {
                Some("momentum")
            } else if !self.orientation.is_finite() {
                Some("orientation")
            } else if !self.angular_momentum.is_finite() {
                Some("angular momentum")
            } else {
                None
            }
        }
    }

    /// Why a serialized rigid body was refused.
    #[derive(Debug)]
    pub enum InvalidBody {
        Inertia(InertiaError),
        Body(BodyError),
        /// The length of the orientation quaternion.
        Orientation(f64),
        /// The quantity that is not finite.
        NotFinite(&'static str),
    }

    impl fmt::Display for InvalidBody {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                InvalidBody::Inertia(error) => write!(f, "rigid body: {error}"),
                InvalidBody::Body(error) => write!(f, "rigid body: {error}"),
                InvalidBody::Orientation(length) => write!(
                    f,
                    "rigid body: orientation must be a unit quaternion [x, y, z, w], got one of length {} (normalize it first)",
                    crate::error::Number(*length)
                ),
                InvalidBody::NotFinite(quantity) => write!(
                    f,
                    "rigid body: {quantity} must be finite (a number too large for the body's precision reads as infinite)"
                ),
            }
        }
    }

    impl<S: Precision> From<Body<S>> for BodyData<S> {
        fn from(body: Body<S>) -> Self {
            BodyData {
                mass: body.mass,
                inertia: Entries::of(S::widen_mat3(body.inertia)),
                orientation_update: body.orientation_update,
                position: body.position,
                momentum: body.momentum,
                orientation: body.orientation,
                angular_momentum: body.angular_momentum,
            }
        }
    }

    impl<S: Precision> TryFrom<BodyData<S>> for Body<S> {
        type Error = InvalidBody;

        fn try_from(data: BodyData<S>) -> Result<Self, Self::Error> {
            if let Some(quantity) = data.not_finite() {
                return Err(InvalidBody::NotFinite(quantity));
            }
            let inertia = Inertia::try_from_tensor(data.inertia.tensor(), S::epsilon().to_f64())
                .map_err(InvalidBody::Inertia)?;
            let mut body = Body::try_new(data.mass, inertia).map_err(InvalidBody::Body)?;
            let length = data.orientation.length();
            let tolerance = S::from_f64(64.0) * S::epsilon();
            // Written so that a NaN length is refused too.
            let unit = (length - S::one()).abs() <= tolerance;
            if !unit {
                return Err(InvalidBody::Orientation(length.to_f64()));
            }
            body.orientation_update = data.orientation_update;
            let zero = S::Vec3::zero();
            body.set_primaries(data.position, zero, data.orientation, zero);
            // As the setters check: velocity and angular velocity must fit too.
            body.try_set_momentum(data.momentum)
                .map_err(InvalidBody::Body)?;
            body.try_set_angular_momentum(data.angular_momentum)
                .map_err(InvalidBody::Body)?;
            Ok(body)
        }
    }
}
