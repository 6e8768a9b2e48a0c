//! [`Particles`]: many point masses whose forces are computed together.

use crate::particle::check_momentum;
use crate::{DerivativeOf, MassError, Particle, Scalar, SmallVector, State, Vector};
// Shared constants: `Arc` where the target has pointer atomics (so that `Particles` is
// `Send` for rayon), `Rc` on the few `no_std` targets without them (thumbv6m), which
// would otherwise not build the crate at all.
#[cfg(not(target_has_atomic = "ptr"))]
use alloc::rc::Rc as Arc;
#[cfg(target_has_atomic = "ptr")]
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use num_traits::Zero;

/// `N` point masses in any number of dimensions, stepped as one state: the forces on all of
/// them are computed at once, so bodies that push on each other (gravity, springs between
/// them, a cloth, a molecule) are advanced consistently by every method, the partitioned
/// ones included (semi-implicit Euler and both Verlets kick and drift the whole system).
///
/// The layout is a structure of arrays: positions, momenta and velocities each in their own
/// `Vec`, so each stage of a method is a few passes over contiguous memory. Primary:
/// positions and momenta. Secondary: velocities `vᵢ = pᵢ / mᵢ`, recalculated after every
/// kick. Constants: masses and their inverses, each checked as [`Particle`]'s is.
///
/// Its velocity and force are `Vec<V>` of one entry per body, so a forces function writes
/// one force per body; with [`InPlace`](crate::InPlace) it writes them into the buffer the
/// integrator hands it, and a [`Stepper`](crate::Stepper) steps without allocating.
///
/// # Example
///
/// Two bodies joined by a spring (k = 10, rest length 1), one heavy, one light, stepped by
/// velocity Verlet. The spring's forces are equal and opposite, so the total momentum is
/// conserved exactly:
///
/// ```
/// use glam::DVec2;
/// use timestep::{InPlace, Integrator, Particles, Stepper, Verlet};
///
/// let spring = InPlace(|bodies: &Particles<DVec2>, _t: f64, forces: &mut Vec<DVec2>| {
///     let [a, b] = [bodies.positions()[0], bodies.positions()[1]];
///     let bar = b - a;
///     let pull = bar * (10.0 * (bar.length() - 1.0) / bar.length());
///     forces[0] = pull;
///     forces[1] = -pull;
/// });
/// let mut bodies = Particles::new(
///     vec![3.0, 1.0],
///     vec![DVec2::ZERO, DVec2::new(1.5, 0.0)],
///     vec![DVec2::new(0.0, 1.0), DVec2::new(0.0, -3.0)],
/// );
/// let start = bodies.total_momentum();
/// let mut verlet = Stepper::new(Verlet);
/// for i in 0..1000 {
///     verlet.step(&mut bodies, &spring, i as f64 * 0.01, 0.01)?;
/// }
/// assert!((bodies.total_momentum() - start).length() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct Particles<V: SmallVector> {
    positions: Vec<V>,
    momenta: Vec<V>,
    velocities: Vec<V>,
    // The constants never change after construction, so clones share them: a probe or a
    // prediction copied from the state copies only what moves.
    masses: Arc<[V::Scalar]>,
    inverse_masses: Arc<[V::Scalar]>,
}

/// `clone_from` reuses the buffers, so that the probes and predictions integrators copy
/// into cost no allocation (a derived `Clone` would make new `Vec`s each time).
impl<V: SmallVector> Clone for Particles<V> {
    fn clone(&self) -> Self {
        Particles {
            positions: self.positions.clone(),
            momenta: self.momenta.clone(),
            velocities: self.velocities.clone(),
            masses: Arc::clone(&self.masses),
            inverse_masses: Arc::clone(&self.inverse_masses),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.positions.clone_from(&source.positions);
        self.momenta.clone_from(&source.momenta);
        self.velocities.clone_from(&source.velocities);
        self.share_constants(source);
    }
}

/// Why [`Particles`] were refused.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ParticlesError {
    /// The masses, positions and velocities given have different lengths.
    Lengths {
        /// Masses given.
        masses: usize,
        /// Positions given.
        positions: usize,
        /// Velocities given.
        velocities: usize,
    },
    /// The mass of body `index` was refused, or its momentum `m·v`
    /// ([`MassError::MomentumOutOfRange`]).
    Mass {
        /// The body.
        index: usize,
        /// Why.
        error: MassError,
    },
}

impl fmt::Display for ParticlesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParticlesError::Lengths {
                masses,
                positions,
                velocities,
            } => write!(
                f,
                "particles need as many masses as positions and velocities, got {masses} masses, {positions} positions and {velocities} velocities"
            ),
            ParticlesError::Mass { index, error } => write!(f, "body {index}: {error}"),
        }
    }
}

impl core::error::Error for ParticlesError {}

impl<V: SmallVector> Particles<V> {
    /// Bodies of `masses` at `positions` moving at `velocities` (one of each per body).
    ///
    /// # Panics
    ///
    /// If the lengths differ, or a mass is zero, negative, infinite, `NaN` or too small to
    /// invert, or a momentum `m·v` overflows or underflows; the message says which body. [`try_new`](Particles::try_new) returns the
    /// error instead.
    #[track_caller]
    #[must_use]
    pub fn new(masses: Vec<V::Scalar>, positions: Vec<V>, velocities: Vec<V>) -> Self {
        match Self::try_new(masses, positions, velocities) {
            Ok(particles) => particles,
            Err(error) => panic!("Particles::new: {error}"),
        }
    }

    /// Bodies of `masses` at `positions` moving at `velocities`, or why they were refused:
    /// the checks of [`Particle::try_new`] for each body (a mass that is zero, negative,
    /// not finite or too small to invert; a momentum `m·v` that overflows or underflows,
    /// [`MassError::MomentumOutOfRange`]), and lengths that differ. No bodies at all is
    /// allowed (a step then does nothing).
    ///
    /// ```
    /// use timestep::{MassError, Particles, ParticlesError};
    ///
    /// let refused = Particles::try_new(vec![1.0, -2.0], vec![0.0, 1.0], vec![0.0, 0.0]);
    /// assert_eq!(
    ///     refused,
    ///     Err(ParticlesError::Mass { index: 1, error: MassError::NotPositive(-2.0) })
    /// );
    /// assert!(Particles::try_new(vec![1.0], vec![0.0, 1.0], vec![0.0]).is_err());
    /// ```
    pub fn try_new(
        masses: Vec<V::Scalar>,
        positions: Vec<V>,
        velocities: Vec<V>,
    ) -> Result<Self, ParticlesError> {
        if masses.len() != positions.len() || masses.len() != velocities.len() {
            return Err(ParticlesError::Lengths {
                masses: masses.len(),
                positions: positions.len(),
                velocities: velocities.len(),
            });
        }
        let inverse_masses = masses
            .iter()
            .enumerate()
            .map(|(index, &mass)| {
                MassError::inverse(mass).map_err(|error| ParticlesError::Mass { index, error })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let momenta = velocities
            .iter()
            .zip(&masses)
            .enumerate()
            .map(|(index, (&v, &m))| {
                let p = v.scale(m);
                check_momentum(m, v, p).map_err(|error| ParticlesError::Mass { index, error })?;
                Ok(p)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Particles {
            positions,
            momenta,
            velocities,
            masses: masses.into(),
            inverse_masses: inverse_masses.into(),
        })
    }

    /// The same bodies as a slice of [`Particle`]s.
    ///
    /// ```
    /// use timestep::{Particle, Particles};
    ///
    /// let one = [Particle::new(2.0, 1.0, 3.0), Particle::new(1.0, -1.0, 0.0)];
    /// let many = Particles::from_particles(&one);
    /// assert_eq!(many.len(), 2);
    /// assert_eq!(many.particle(0), one[0]);
    /// ```
    #[must_use]
    pub fn from_particles(particles: &[Particle<V>]) -> Self {
        Particles {
            positions: particles.iter().map(Particle::position).collect(),
            momenta: particles.iter().map(Particle::momentum).collect(),
            velocities: particles.iter().map(|p| p.velocity()).collect(),
            masses: particles.iter().map(Particle::mass).collect(),
            inverse_masses: particles.iter().map(Particle::inverse_mass).collect(),
        }
    }

    /// [`State::probe_into`] along `rate`, the momenta only if `momenta`.
    #[inline(always)]
    fn probe(&self, rate: &DerivativeOf<Self>, dt: V::Scalar, probe: &mut Self, momenta: bool) {
        let n = self.len();
        assert!(
            rate.velocity.len() == n && rate.force.len() == n,
            "a rate of {n} bodies"
        );
        self.probe_along(&rate.velocity, &rate.force, dt, probe, momenta, None);
    }

    /// The probe `self + (velocity, force) · dt`, the momenta only if `momenta`; in the
    /// same pass, this state's velocities copied into `copy`, if given.
    #[inline(always)]
    fn probe_along(
        &self,
        velocity: &[V],
        force: &[V],
        dt: V::Scalar,
        probe: &mut Self,
        momenta: bool,
        copy: Option<&mut [V]>,
    ) {
        let n = self.len();
        assert!(probe.len() == n, "a probe of {n} bodies");
        probe.share_constants(self);
        let (x, p, v) = (
            &self.positions[..n],
            &self.momenta[..n],
            &self.velocities[..n],
        );
        let (rate_v, rate_f) = (&velocity[..n], &force[..n]);
        let inverse = &self.inverse_masses[..n];
        let (probe_x, probe_p, probe_v) = (
            &mut probe.positions[..n],
            &mut probe.momenta[..n],
            &mut probe.velocities[..n],
        );
        let mut copy = copy.map(|copy| &mut copy[..n]);
        for i in 0..n {
            if let Some(copy) = &mut copy {
                copy[i] = v[i];
            }
            probe_x[i] = x[i].add_scaled(rate_v[i], dt);
            if momenta {
                probe_p[i] = p[i].add_scaled(rate_f[i], dt);
            }
            probe_v[i] = v[i].add_scaled(rate_f[i], dt * inverse[i]);
        }
    }

    /// Overwrites the positions and momenta (one of each per body) and recalculates the
    /// velocities: how [`Rattle`](crate::Rattle) writes a step it has finished.
    pub(crate) fn set_positions_and_momenta(&mut self, positions: &[V], momenta: &[V]) {
        let n = self.len();
        assert!(
            positions.len() == n && momenta.len() == n,
            "positions and momenta of {n} bodies"
        );
        self.positions.copy_from_slice(positions);
        self.momenta.copy_from_slice(momenta);
        for ((v, p), &inverse) in self
            .velocities
            .iter_mut()
            .zip(momenta)
            .zip(self.inverse_masses.iter())
        {
            *v = p.scale(inverse);
        }
    }

    /// Makes this state's constants `source`'s, without copying them.
    #[inline]
    fn share_constants(&mut self, source: &Self) {
        if !Arc::ptr_eq(&self.masses, &source.masses) {
            self.masses = Arc::clone(&source.masses);
        }
        if !Arc::ptr_eq(&self.inverse_masses, &source.inverse_masses) {
            self.inverse_masses = Arc::clone(&source.inverse_masses);
        }
    }

    /// The number of bodies.
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there are no bodies.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Body `index` on its own.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[track_caller]
    #[must_use]
    pub fn particle(&self, index: usize) -> Particle<V> {
        Particle::from_parts(
            self.masses[index],
            self.inverse_masses[index],
            self.positions[index],
            self.momenta[index],
            self.velocities[index],
        )
    }

    /// The positions.
    #[must_use]
    pub fn positions(&self) -> &[V] {
        &self.positions
    }

    /// The momenta `pᵢ = mᵢ vᵢ`.
    #[must_use]
    pub fn momenta(&self) -> &[V] {
        &self.momenta
    }

    /// The velocities.
    #[must_use]
    pub fn velocities(&self) -> &[V] {
        &self.velocities
    }

    /// The masses.
    #[must_use]
    pub fn masses(&self) -> &[V::Scalar] {
        &self.masses
    }

    /// The inverse masses `1 / mᵢ`.
    #[must_use]
    pub fn inverse_masses(&self) -> &[V::Scalar] {
        &self.inverse_masses
    }

    /// Moves body `index` to `position`.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[track_caller]
    pub fn set_position(&mut self, index: usize, position: V) {
        self.positions[index] = position;
    }

    /// Sets the velocity (and so the momentum) of body `index`.
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`, or when
    /// [`try_set_velocity`](Particles::try_set_velocity) refuses the velocity, with its
    /// message.
    #[track_caller]
    pub fn set_velocity(&mut self, index: usize, velocity: V) {
        if let Err(error) = self.try_set_velocity(index, velocity) {
            panic!("Particles::set_velocity: {error}");
        }
    }

    /// Sets the velocity (and so the momentum `m·v`) of body `index`, or
    /// [`MassError::MomentumOutOfRange`] (in [`ParticlesError::Mass`]) if the momentum of a
    /// finite coordinate overflows or underflows, as
    /// [`Particle::try_set_velocity`] refuses it; the bodies are then unchanged.
    ///
    /// ```
    /// use timestep::Particles;
    ///
    /// let mut heavy = Particles::new(vec![f64::MAX], vec![0.0], vec![0.0]);
    /// assert!(heavy.try_set_velocity(0, 2.0).is_err()); // 3.6·10³⁰⁸ kg·m/s
    /// assert!(heavy.try_set_velocity(0, 0.5).is_ok());
    /// ```
    ///
    /// # Panics
    ///
    /// If `index >= self.len()`.
    #[track_caller]
    pub fn try_set_velocity(&mut self, index: usize, velocity: V) -> Result<(), ParticlesError> {
        let mass = self.masses[index];
        let momentum = velocity.scale(mass);
        check_momentum(mass, velocity, momentum)
            .map_err(|error| ParticlesError::Mass { index, error })?;
        self.momenta[index] = momentum;
        self.velocities[index] = velocity;
        Ok(())
    }

    /// The total momentum `Σ pᵢ`.
    #[must_use]
    pub fn total_momentum(&self) -> V {
        self.momenta.iter().fold(V::zero(), |sum, &p| sum.add(p))
    }

    /// The total kinetic energy `Σ ½ mᵢ vᵢ²`.
    #[must_use]
    pub fn kinetic_energy(&self) -> V::Scalar {
        let half = V::Scalar::from_f64(0.5);
        self.velocities
            .iter()
            .zip(self.masses.iter())
            .map(|(v, &m)| {
                let squared = (0..V::DIM)
                    .map(|i| {
                        let c = v.component(i);
                        c * c
                    })
                    .fold(V::Scalar::zero(), |a, b| a + b);
                half * m * squared
            })
            .fold(V::Scalar::zero(), |a, b| a + b)
    }
}

/// `out ← Σⱼ wⱼ Fⱼ` over the forces of `rates` (each of `out`'s length), zero weights
/// skipped, term by term from the left (from zero: `0 + w F` is `w F`): a pass over the
/// bodies per term, without a bounds check or a test of the weight per body.
#[inline(always)]
fn sum_forces<V: SmallVector>(
    weights: &[f64],
    rates: &[DerivativeOf<Particles<V>>],
    out: &mut [V],
) {
    out.fill(V::zero());
    for (&weight, rate) in weights.iter().zip(rates) {
        if weight != 0.0 {
            let weight = V::Scalar::from_f64(weight);
            for (sum, &force) in out.iter_mut().zip(&rate.force) {
                *sum = sum.add_scaled(force, weight);
            }
        }
    }
}

impl<V: SmallVector> State for Particles<V> {
    type Scalar = V::Scalar;
    /// One velocity per body.
    type Velocity = Vec<V>;
    /// One force per body.
    type Force = Vec<V>;

    fn velocity(&self) -> Vec<V> {
        self.velocities.clone()
    }

    fn drift(&mut self, velocity: Vec<V>, dt: V::Scalar) {
        self.drift_by(&velocity, dt);
    }

    fn kick(&mut self, force: Vec<V>, dt: V::Scalar) {
        self.kick_by(&force, dt);
    }

    #[inline]
    fn velocity_into(&self, out: &mut Vec<V>) {
        out.assign(&self.velocities);
    }

    #[inline]
    fn drift_by(&mut self, velocity: &Vec<V>, dt: V::Scalar) {
        self.positions.add_scaled_assign(velocity, dt);
    }

    /// Momenta along the forces and velocities recalculated, in one pass.
    #[inline]
    fn kick_by(&mut self, force: &Vec<V>, dt: V::Scalar) {
        assert_eq!(force.len(), self.len(), "one force per body");
        for (((p, v), f), &inverse) in self
            .momenta
            .iter_mut()
            .zip(&mut self.velocities)
            .zip(force)
            .zip(self.inverse_masses.iter())
        {
            *p = p.add_scaled(*f, dt);
            *v = p.scale(inverse);
        }
    }

    /// As `probe_into`, without the momenta: a third of its writes.
    #[inline]
    fn positional_probe_into(&self, rate: &DerivativeOf<Self>, dt: V::Scalar, probe: &mut Self) {
        self.probe(rate, dt, probe, false);
    }

    /// Kick, velocity and drift of each body in one pass.
    #[inline]
    fn kick_drift(
        &mut self,
        force: &Vec<V>,
        kick_dt: V::Scalar,
        drift_dt: V::Scalar,
        _: &mut Vec<V>,
    ) {
        let n = self.len();
        assert_eq!(force.len(), n, "one force per body");
        let (x, p, v) = (&mut self.positions, &mut self.momenta, &mut self.velocities);
        let (x, p, v, inverse) = (
            &mut x[..n],
            &mut p[..n],
            &mut v[..n],
            &self.inverse_masses[..n],
        );
        for i in 0..n {
            p[i] = p[i].add_scaled(force[i], kick_dt);
            v[i] = p[i].scale(inverse[i]);
            x[i] = x[i].add_scaled(v[i], drift_dt);
        }
    }

    /// One pass: positions copied, momenta kicked and velocities recalculated; the
    /// constants shared, not copied.
    #[inline]
    fn kick_into(&self, force: &Vec<V>, dt: V::Scalar, out: &mut Self) {
        let n = self.len();
        assert!(
            force.len() == n && out.len() == n,
            "a force and a state of {n} bodies"
        );
        out.share_constants(self);
        let (x, p, inverse) = (
            &self.positions[..n],
            &self.momenta[..n],
            &self.inverse_masses[..n],
        );
        let (out_x, out_p, out_v) = (
            &mut out.positions[..n],
            &mut out.momenta[..n],
            &mut out.velocities[..n],
        );
        for i in 0..n {
            out_x[i] = x[i];
            out_p[i] = p[i].add_scaled(force[i], dt);
            out_v[i] = out_p[i].scale(inverse[i]);
        }
    }

    /// One pass: each probe body's position, momentum and velocity (`v + F·(dt/m)`, as
    /// [`Particle`]'s probe) from this state's; the constants shared, not copied.
    #[inline]
    fn probe_into(&self, rate: &DerivativeOf<Self>, dt: V::Scalar, probe: &mut Self) {
        self.probe(rate, dt, probe, true);
    }

    /// The sums of the forces, then each body's velocity from its own: a stage formed
    /// from a kicked probe went over the bodies three times more, and lost digits to
    /// `v(p + δ) − v(p)`.
    #[inline]
    fn nystrom_rate_into(
        &self,
        position_weights: &[f64],
        momentum_weights: Option<&[f64]>,
        rates: &[DerivativeOf<Self>],
        c: V::Scalar,
        h: V::Scalar,
        out: &mut DerivativeOf<Self>,
    ) -> bool {
        let n = self.len();
        assert!(
            out.velocity.len() == n
                && out.force.len() == n
                && rates.iter().all(|rate| rate.force.len() == n),
            "rates of {n} bodies"
        );
        let (v, inverse) = (&self.velocities[..n], &self.inverse_masses[..n]);
        let (out_v, out_f) = (&mut out.velocity[..n], &mut out.force[..n]);
        sum_forces(position_weights, rates, out_v);
        match momentum_weights {
            Some(weights) => sum_forces(weights, rates, out_f),
            None => out_f.fill(V::zero()),
        }
        for i in 0..n {
            out_v[i] = v[i].scale(c).add_scaled(out_v[i], h * inverse[i]);
        }
        true
    }

    /// The force, then in one pass the velocities copied into the rate and the probe
    /// written along them.
    #[inline]
    fn derivative_and_probe_into<F: crate::Forces<Self> + ?Sized>(
        &self,
        forces: &F,
        t: V::Scalar,
        out: &mut DerivativeOf<Self>,
        dt: V::Scalar,
        probe: &mut Self,
    ) {
        crate::state::force_into(forces, self, t, &mut out.force);
        let n = self.len();
        assert!(
            out.velocity.len() == n && out.force.len() == n,
            "a rate of {n} bodies"
        );
        let momenta = forces.reads_momenta();
        let force = &out.force;
        self.probe_along(
            &self.velocities,
            force,
            dt,
            probe,
            momenta,
            Some(&mut out.velocity),
        );
    }

    /// Each body's share of the sum, then its advance, in one pass: the stage rates are read
    /// once and the state written once, where summing rate by rate went over the sum once
    /// per term (RK4: seven passes over the rates' 480 kB per 10⁴ bodies in 3-D).
    // Body by body, weights and all: summing blocks of 64 or 512 bodies term by term ran 5%
    // fewer instructions and 15% slower on that chain (the rates' streams broken up).
    #[inline]
    fn advance_by_sum(
        &mut self,
        weights: &[f64],
        rates: &[DerivativeOf<Self>],
        dt: V::Scalar,
        sum: &mut DerivativeOf<Self>,
    ) {
        let n = self.len();
        let terms = weights.iter().filter(|&&w| w != 0.0).count();
        // A lone term is not summed (its weight joins `dt`), nor is an empty sum: rounded
        // as the default does.
        if terms < 2 {
            let (direction, factor) = crate::vector::combination(weights, rates, sum);
            return self.advance(direction, dt * V::Scalar::from_f64(factor));
        }
        assert!(
            rates
                .iter()
                .all(|rate| rate.velocity.len() == n && rate.force.len() == n),
            "rates of {n} bodies"
        );
        for i in 0..n {
            // Term by term from the left, as the default's sum.
            let mut sum: Option<(V, V)> = None;
            for (rate, &weight) in rates.iter().zip(weights) {
                if weight == 0.0 {
                    continue;
                }
                let weight = V::Scalar::from_f64(weight);
                let (velocity, force) = (rate.velocity[i], rate.force[i]);
                sum = Some(match sum {
                    None => (velocity.scale(weight), force.scale(weight)),
                    Some((v, f)) => (v.add_scaled(velocity, weight), f.add_scaled(force, weight)),
                });
            }
            let (velocity, force) = sum.unwrap_or((V::zero(), V::zero()));
            self.positions[i] = self.positions[i].add_scaled(velocity, dt);
            self.momenta[i] = self.momenta[i].add_scaled(force, dt);
            self.velocities[i] = self.momenta[i].scale(self.inverse_masses[i]);
        }
    }

    /// The force, and the probe's velocities handed over rather than copied: a probe writes
    /// all of them again before it is read.
    #[inline]
    fn probe_derivative_into<F: crate::Forces<Self> + ?Sized>(
        &mut self,
        forces: &F,
        t: V::Scalar,
        out: &mut DerivativeOf<Self>,
    ) {
        crate::state::force_into(forces, self, t, &mut out.force);
        assert_eq!(
            out.velocity.len(),
            self.len(),
            "a rate of {} bodies",
            self.len()
        );
        core::mem::swap(&mut self.velocities, &mut out.velocity);
    }

    fn zero_force(&self) -> Vec<V> {
        self.positions.zero_like()
    }

    fn coordinates_into(&self, out: &mut DerivativeOf<Self>) -> bool {
        out.velocity.assign(&self.positions);
        out.force.assign(&self.momenta);
        true
    }

    fn has_coordinates(&self) -> bool {
        true
    }

    fn rate_dim(&self) -> usize {
        self.positions.dim() + self.momenta.dim()
    }

    #[inline(always)]
    fn zip_coordinates<const K: usize>(
        &self,
        other: &Self,
        rates: [&DerivativeOf<Self>; K],
        mut each: impl FnMut(V::Scalar, V::Scalar, [V::Scalar; K]),
    ) -> bool {
        let n = self.len();
        assert!(
            other.len() == n
                && rates
                    .iter()
                    .all(|rate| rate.velocity.len() == n && rate.force.len() == n),
            "states and rates of {n} bodies"
        );
        let parts = [
            (
                &self.positions,
                &other.positions,
                rates.map(|rate| &rate.velocity),
            ),
            (&self.momenta, &other.momenta, rates.map(|rate| &rate.force)),
        ];
        for (mine, theirs, rates) in parts {
            for i in 0..n {
                for k in 0..V::DIM {
                    let rate = rates.map(|rate| rate[i].component(k));
                    each(mine[i].component(k), theirs[i].component(k), rate);
                }
            }
        }
        true
    }

    #[inline]
    fn coordinate(&self, index: usize) -> V::Scalar {
        let positions = self.positions.dim();
        if index < positions {
            self.positions.component(index)
        } else {
            self.momenta.component(index - positions)
        }
    }
}
