//! [`Particle`]: a point mass of any dimension.

use crate::{Derivative, MassError, Scalar, SmallVector, State};
use num_traits::{Float, Zero};

/// A point mass in any number of dimensions: `Particle<f64>` on a line, `Particle<Vec2>` in
/// the plane, `Particle<Vec3>` or `Particle<DVec3>` in space.
///
/// Primary: position and momentum. Secondary: velocity `v = p / m`, recalculated whenever
/// the momentum changes. Constants: mass and its inverse. Forces given to it are forces, in
/// newtons: the particle divides by its mass.
///
/// # Example
///
/// A ball thrown up at 10 m/s under gravity, stepped at 60 Hz for one second:
///
/// ```
/// use timestep::{Integrator, Particle, Verlet};
/// use glam::DVec2;
///
/// let mut ball = Particle::new(0.5, DVec2::ZERO, DVec2::new(2.0, 10.0));
/// let gravity = |p: &Particle<DVec2>, _t: f64| DVec2::new(0.0, -9.81) * p.mass();
/// let dt = 1.0 / 60.0;
/// for i in 0..60 {
///     Verlet.step(&mut ball, &gravity, i as f64 * dt, dt)?;
/// }
/// // Verlet is exact under constant force: y = v₀t − ½gt².
/// assert!((ball.position().y - (10.0 - 0.5 * 9.81)).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
///
/// # Saving and loading
///
/// With the `serde` feature a particle serializes as `{"mass", "position", "momentum",
/// "velocity"}` and deserializes through the checks of [`try_new`](Particle::try_new):
/// a mass that is refused, a velocity that does not match `momentum / mass`, unknown
/// fields and non-finite coordinates are errors. The round trip is bit-exact given a
/// format that reads every float back to the same bits (serde_json: its
/// `float_roundtrip` feature; its default parser can be one ulp off, and what it reads
/// still loads). A particle that is not finite cannot be saved: JSON would write `null`,
/// which no float reads back, so saving it is an error that says what is not finite.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use timestep::Particle;
///
/// let ball = Particle::new(0.5, 1.0_f64, -2.0);
/// let json = serde_json::to_string(&ball)?;
/// assert_eq!(json, r#"{"mass":0.5,"position":1.0,"momentum":-1.0,"velocity":-2.0}"#);
/// assert_eq!(serde_json::from_str::<Particle<f64>>(&json)?, ball);
///
/// let mut lost = ball;
/// lost.set_position(f64::NAN);
/// let error = serde_json::to_string(&lost).unwrap_err();
/// assert_eq!(error.to_string(), "particle: cannot save a position that is not finite");
/// # }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle<V: SmallVector> {
    position: V,
    momentum: V,
    velocity: V,
    mass: V::Scalar,
    inverse_mass: V::Scalar,
}

impl<V: SmallVector> Particle<V> {
    /// A particle of `mass` at `position` moving at `velocity`.
    ///
    /// # Panics
    ///
    /// If `mass` is zero, negative, infinite, `NaN` or too small to invert; the message
    /// says which.
    /// [`try_new`](Particle::try_new) returns the error instead.
    #[track_caller]
    #[must_use]
    pub fn new(mass: V::Scalar, position: V, velocity: V) -> Self {
        match Self::try_new(mass, position, velocity) {
            Ok(particle) => particle,
            Err(error) => panic!("Particle::new: {error}"),
        }
    }

    /// A particle of `mass` at `position` moving at `velocity`, or the reason `mass` is
    /// refused (zero, negative, infinite, `NaN`, or so small that `1 / mass` overflows), or
    /// [`MassError::MomentumOutOfRange`] when the momentum `m·v` of a finite velocity
    /// coordinate overflows or underflows (to zero or a subnormal number, which would lose
    /// the velocity at the next recalculation `v = p / m`). Non-finite positions and
    /// velocities are kept as given.
    ///
    /// ```
    /// use timestep::{MassError, Particle};
    ///
    /// assert!(Particle::try_new(2.0_f32, 0.0_f32, 1.0).is_ok());
    /// assert_eq!(Particle::try_new(0.0_f32, 0.0_f32, 1.0), Err(MassError::NotPositive(0.0)));
    /// assert!(matches!(Particle::try_new(f64::NAN, 0.0, 1.0), Err(MassError::NotFinite(_))));
    /// // 1 / 1e-40 overflows f32.
    /// assert!(matches!(
    ///     Particle::try_new(1e-40_f32, 0.0_f32, 0.0),
    ///     Err(MassError::InverseNotFinite(_))
    /// ));
    /// // 10³⁰ kg at 10¹⁰ m/s: the momentum overflows f32.
    /// assert_eq!(
    ///     Particle::try_new(1e30_f32, 0.0_f32, 1e10),
    ///     Err(MassError::MomentumOutOfRange { mass: 1e30_f32.into(), velocity: 1e10_f32.into() })
    /// );
    /// ```
    pub fn try_new(mass: V::Scalar, position: V, velocity: V) -> Result<Self, MassError> {
        let inverse_mass = MassError::inverse(mass)?;
        let momentum = velocity.scale(mass);
        check_momentum(mass, velocity, momentum)?;
        Ok(Particle {
            position,
            momentum,
            velocity,
            mass,
            inverse_mass,
        })
    }

    /// A particle from parts already checked together (a body of
    /// [`Particles`](crate::Particles)).
    #[cfg(feature = "alloc")]
    pub(crate) fn from_parts(
        mass: V::Scalar,
        inverse_mass: V::Scalar,
        position: V,
        momentum: V,
        velocity: V,
    ) -> Self {
        Particle {
            position,
            momentum,
            velocity,
            mass,
            inverse_mass,
        }
    }

    /// The position.
    #[inline]
    #[must_use]
    pub fn position(&self) -> V {
        self.position
    }

    /// The velocity `v = p / m` (the same as [`State::velocity`], without needing the
    /// trait in scope).
    #[inline]
    #[must_use]
    pub fn velocity(&self) -> V {
        self.velocity
    }

    /// The momentum `p = m v`.
    #[inline]
    #[must_use]
    pub fn momentum(&self) -> V {
        self.momentum
    }

    /// The mass.
    #[inline]
    #[must_use]
    pub fn mass(&self) -> V::Scalar {
        self.mass
    }

    /// The inverse mass `1 / m`.
    #[inline]
    #[must_use]
    pub fn inverse_mass(&self) -> V::Scalar {
        self.inverse_mass
    }

    /// Moves the particle to `position`.
    #[inline]
    pub fn set_position(&mut self, position: V) {
        self.position = position;
    }

    /// Sets the velocity (and so the momentum `m·v`).
    ///
    /// # Panics
    ///
    /// When [`try_set_velocity`](Particle::try_set_velocity) refuses it, with its message.
    #[inline]
    #[track_caller]
    pub fn set_velocity(&mut self, velocity: V) {
        if let Err(error) = self.try_set_velocity(velocity) {
            panic!("Particle::set_velocity: {error}");
        }
    }

    /// Sets the velocity (and so the momentum `m·v`), or
    /// [`MassError::MomentumOutOfRange`] if the momentum of a finite coordinate overflows
    /// or underflows; the particle is then unchanged.
    ///
    /// ```
    /// use timestep::{MassError, Particle, State};
    ///
    /// let mut heavy = Particle::new(1e300, 0.0, 0.0);
    /// assert!(heavy.try_set_velocity(1e10).is_err()); // 10³¹⁰ kg·m/s
    /// let mut light = Particle::new(1e-300, 0.0, 0.0);
    /// assert!(light.try_set_velocity(1e-30).is_err()); // 10⁻³³⁰: underflows to 0
    /// light.try_set_velocity(2.0)?;
    /// assert_eq!(light.velocity(), 2.0);
    /// # Ok::<(), MassError>(())
    /// ```
    #[inline]
    pub fn try_set_velocity(&mut self, velocity: V) -> Result<(), MassError> {
        let momentum = velocity.scale(self.mass);
        check_momentum(self.mass, velocity, momentum)?;
        self.momentum = momentum;
        self.velocity = velocity;
        Ok(())
    }

    /// Sets the momentum (and so the velocity `p / m`).
    ///
    /// # Panics
    ///
    /// When [`try_set_momentum`](Particle::try_set_momentum) refuses it, with its message.
    #[inline]
    #[track_caller]
    pub fn set_momentum(&mut self, momentum: V) {
        if let Err(error) = self.try_set_momentum(momentum) {
            panic!("Particle::set_momentum: {error}");
        }
    }

    /// Sets the momentum (and so the velocity `p / m`), or
    /// [`MassError::MomentumOutOfRange`] (naming the velocity) if the velocity of a finite
    /// coordinate overflows, or underflows to zero or a subnormal number; the particle is
    /// then unchanged.
    ///
    /// ```
    /// use timestep::Particle;
    ///
    /// let mut light = Particle::new(1e-300, 0.0, 0.0);
    /// assert!(light.try_set_momentum(1e10).is_err()); // v = 10³¹⁰ m/s
    /// ```
    #[inline]
    pub fn try_set_momentum(&mut self, momentum: V) -> Result<(), MassError> {
        let velocity = momentum.scale(self.inverse_mass);
        check_velocity(self.mass, momentum, velocity)?;
        self.momentum = momentum;
        self.velocity = velocity;
        Ok(())
    }

    /// The kinetic energy `½ m v²`.
    ///
    /// ```
    /// use timestep::Particle;
    /// use glam::Vec2;
    ///
    /// assert_eq!(Particle::new(2.0, Vec2::ZERO, Vec2::new(3.0, 4.0)).kinetic_energy(), 25.0);
    /// ```
    #[must_use]
    pub fn kinetic_energy(&self) -> V::Scalar {
        let squared = (0..V::DIM)
            .map(|i| self.velocity.component(i))
            .map(|v| v * v)
            .fold(V::Scalar::zero(), |a, b| a + b);
        V::Scalar::from_f64(0.5) * self.mass * squared
    }

    /// Sets the momentum and recalculates, unchecked, as a kick does.
    #[inline]
    pub(crate) fn kick_to(&mut self, momentum: V) {
        self.momentum = momentum;
        self.recalculate();
    }

    #[inline]
    fn recalculate(&mut self) {
        self.velocity = self.momentum.scale(self.inverse_mass);
    }
}

/// Refuses a velocity `p / m` of which a coordinate overflowed, or underflowed to zero or a
/// subnormal number, from a finite non-zero momentum; the error names the velocity `p / m`
/// as computed in `f64`.
pub(crate) fn check_velocity<V: SmallVector>(
    mass: V::Scalar,
    momentum: V,
    velocity: V,
) -> Result<(), MassError> {
    for i in 0..V::DIM {
        let (p, v) = (momentum.component(i), velocity.component(i));
        if p.is_finite() && p != V::Scalar::zero() && !(v.is_finite() && v.is_normal()) {
            return Err(MassError::MomentumOutOfRange {
                mass: mass.to_f64(),
                velocity: p.to_f64() / mass.to_f64(),
            });
        }
    }
    Ok(())
}

/// Refuses a momentum `m·v` of which a coordinate overflowed, or underflowed to zero or a
/// subnormal number, from a finite non-zero velocity.
pub(crate) fn check_momentum<V: SmallVector>(
    mass: V::Scalar,
    velocity: V,
    momentum: V,
) -> Result<(), MassError> {
    for i in 0..V::DIM {
        let (v, p) = (velocity.component(i), momentum.component(i));
        if v.is_finite() && v != V::Scalar::zero() && !(p.is_finite() && p.is_normal()) {
            return Err(MassError::MomentumOutOfRange {
                mass: mass.to_f64(),
                velocity: v.to_f64(),
            });
        }
    }
    Ok(())
}

impl<V: SmallVector> State for Particle<V> {
    type Scalar = V::Scalar;
    type Velocity = V;
    type Force = V;

    /// The velocity `v = p / m`.
    #[inline]
    fn velocity(&self) -> V {
        self.velocity
    }

    #[inline]
    fn drift(&mut self, velocity: V, dt: V::Scalar) {
        self.position = self.position.add_scaled(velocity, dt);
    }

    #[inline]
    fn kick(&mut self, force: V, dt: V::Scalar) {
        self.momentum = self.momentum.add_scaled(force, dt);
        self.recalculate();
    }

    /// The particle advanced by `rate · dt` for a Runge–Kutta stage, with its velocity
    /// advanced as `v + F · (dt/m)` rather than recalculated as `(p + F·dt) · (1/m)`: equal in
    /// exact arithmetic, within rounding in floating point, and one multiplication shorter
    /// after the force, on the chain of dependent operations that sets the speed of a step.
    /// (The state itself is always recalculated from its momentum.)
    #[inline(always)]
    fn probe_into(&self, rate: &Derivative<V, V>, dt: V::Scalar, probe: &mut Self) {
        *probe = Particle {
            position: self.position.add_scaled(rate.velocity, dt),
            momentum: self.momentum.add_scaled(rate.force, dt),
            velocity: self.velocity.add_scaled(rate.force, dt * self.inverse_mass),
            ..*self
        };
    }

    /// Both sums at once, the velocity's without a kick's cancellation (see
    /// [`State::nystrom_rate_into`]).
    #[inline(always)]
    fn nystrom_rate_into(
        &self,
        position_weights: &[f64],
        momentum_weights: Option<&[f64]>,
        rates: &[Derivative<V, V>],
        c: V::Scalar,
        h: V::Scalar,
        out: &mut Derivative<V, V>,
    ) -> bool {
        // Term by term from the left, from zero (`0 + w F` is `w F`).
        let sum = |weights: &[f64]| {
            (weights.iter().zip(rates))
                .filter(|(weight, _)| **weight != 0.0)
                .fold(V::zero(), |sum, (&weight, rate)| {
                    sum.add_scaled(rate.force, V::Scalar::from_f64(weight))
                })
        };
        let kick = sum(position_weights);
        *out = Derivative::new(
            self.velocity
                .scale(c)
                .add_scaled(kick, h * self.inverse_mass),
            momentum_weights.map_or(V::zero(), sum),
        );
        true
    }

    #[inline]
    fn coordinates_into(&self, out: &mut Derivative<V, V>) -> bool {
        *out = Derivative::new(self.position, self.momentum);
        true
    }

    #[inline]
    fn has_coordinates(&self) -> bool {
        true
    }

    #[inline(always)]
    fn coordinate(&self, index: usize) -> V::Scalar {
        // Read in place: a `Derivative` of copies, as `coordinates_into` writes, cost two
        // calls to `memcpy` per coordinate for a `Particle<[f64; 18]>`.
        if index < V::DIM {
            self.position.component(index)
        } else {
            self.momentum.component(index - V::DIM)
        }
    }
}

/// Serde goes through [`Particle::try_new`]'s mass check. Momentum (primary) and velocity
/// (secondary) are both stored so that a round trip is bit-exact (`m · v` and `p / m` can
/// differ in the last bit; in JSON, serde_json needs its `float_roundtrip` feature to read
/// every float back to the same bits, its default parser may be one ulp off, which loads
/// too); on the way in the velocity must agree with `momentum / mass` to within rounding,
/// so a hand-edited file cannot smuggle in a stale velocity.
///
/// Non-finite states are refused both ways: saving one is an error (JSON would write
/// `null`, which no float reads back), and so is loading one (a coordinate that overflows
/// the particle's precision as it is read, such as `1e39` for an `f32` particle, is
/// infinite).
#[cfg(feature = "serde")]
mod serde_impl {
    use super::Particle;
    use crate::{MassError, Scalar, SmallVector};
    use core::fmt;
    use num_traits::Float;
    use serde::{Deserialize, Deserializer};

    // Written out rather than derived on `Particle` (what `#[serde(try_from)]` would
    // generate) so that docs.rs labels them as needing the `serde` feature.
    impl<'de, V> Deserialize<'de> for Particle<V>
    where
        V: SmallVector + Deserialize<'de>,
        V::Scalar: Deserialize<'de>,
    {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let data = ParticleData::deserialize(deserializer)?;
            Particle::try_from(data).map_err(serde::de::Error::custom)
        }
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "Particle", deny_unknown_fields)]
    pub struct ParticleData<V: SmallVector> {
        mass: V::Scalar,
        position: V,
        momentum: V,
        velocity: V,
    }

    impl<V> serde::Serialize for Particle<V>
    where
        V: SmallVector + serde::Serialize,
        V::Scalar: serde::Serialize,
    {
        fn serialize<Ser: serde::Serializer>(
            &self,
            serializer: Ser,
        ) -> Result<Ser::Ok, Ser::Error> {
            if let Some(quantity) = not_finite(self.position, self.momentum, self.velocity) {
                return Err(<Ser::Error as serde::ser::Error>::custom(format_args!(
                    "particle: cannot save a {quantity} that is not finite"
                )));
            }
            ParticleData::from(*self).serialize(serializer)
        }
    }

    /// The first of the state's quantities with an infinite or `NaN` coordinate.
    fn not_finite<V: SmallVector>(position: V, momentum: V, velocity: V) -> Option<&'static str> {
        [
            ("position", position),
            ("momentum", momentum),
            ("velocity", velocity),
        ]
        .into_iter()
        .find(|(_, value)| !value.is_finite())
        .map(|(quantity, _)| quantity)
    }

    /// Why a serialized particle was refused.
    #[derive(Debug)]
    pub enum InvalidParticle {
        Mass(MassError),
        Velocity,
        NotFinite(&'static str),
    }

    impl fmt::Display for InvalidParticle {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                InvalidParticle::Mass(error) => write!(f, "{error}"),
                InvalidParticle::Velocity => {
                    f.write_str("particle velocity does not match momentum / mass")
                }
                InvalidParticle::NotFinite(quantity) => write!(
                    f,
                    "particle {quantity} must be finite (a number too large for the particle's precision reads as infinite)"
                ),
            }
        }
    }

    impl<V: SmallVector> From<Particle<V>> for ParticleData<V> {
        fn from(particle: Particle<V>) -> Self {
            ParticleData {
                mass: particle.mass,
                position: particle.position,
                momentum: particle.momentum,
                velocity: particle.velocity,
            }
        }
    }

    impl<V: SmallVector> TryFrom<ParticleData<V>> for Particle<V> {
        type Error = InvalidParticle;

        fn try_from(data: ParticleData<V>) -> Result<Self, Self::Error> {
            if let Some(quantity) = not_finite(data.position, data.momentum, data.velocity) {
                return Err(InvalidParticle::NotFinite(quantity));
            }
            let mut particle = Particle::try_new(data.mass, data.position, V::zero())
                .map_err(InvalidParticle::Mass)?;
            // Through the setter, so that loading refuses what it refuses (a velocity
            // `p / m` that overflows or underflows).
            particle
                .try_set_momentum(data.momentum)
                .map_err(InvalidParticle::Mass)?;
            let expected = particle.velocity;
            let tolerance = V::Scalar::from_f64(8.0) * V::Scalar::epsilon();
            let agrees = (0..V::DIM).all(|i| {
                let (v, e) = (data.velocity.component(i), expected.component(i));
                v == e || (v - e).abs() <= tolerance * v.abs().max(e.abs())
            });
            if !agrees {
                return Err(InvalidParticle::Velocity);
            }
            particle.velocity = data.velocity;
            Ok(particle)
        }
    }
}
