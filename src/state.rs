//! [`State`], [`Derivative`] and [`Forces`]: the model every integrator works on.

use crate::vector::{combination, sum_each, sum_each_of};
use crate::{Jacobian, NoVelocity, Scalar, SmallVector, Vector};
use num_traits::Float;

/// A physical state that integrators can advance.
///
/// A state has **positions**, advanced along a velocity by [`drift`](State::drift), and
/// **momenta**, advanced along a force by [`kick`](State::kick). Everything else it holds is
/// either constant (mass, inertia) or secondary: derived from the primaries and restored by
/// the state itself at the end of every `drift` and `kick` (velocity from momentum, a
/// renormalized orientation, …), so an integrator never sees a stale value.
///
/// Partitioned methods (semi-implicit Euler, Verlet) call `drift` and `kick` in their own
/// order; Runge–Kutta methods combine [`Derivative`]s and apply them with
/// [`advance`](State::advance).
///
/// Every [`Vector`] ([`SmallVector`]s, `Vec<f64>`, `Vec<DVec3>`, …) is a `State` too: a
/// first-order system `y' = f(t, y)` whose whole value is "momentum" and whose velocity is
/// [`NoVelocity`]. Its force is `f(t, y)`.
///
/// # Implementing `State`
///
/// A bead on a wire whose position `x` and momentum `p` are plain numbers:
///
/// ```
/// use timestep::{Integrator, SemiImplicitEuler, State};
///
/// #[derive(Clone)]
/// struct Bead {
///     x: f64,
///     p: f64,
///     inverse_mass: f64,
/// }
///
/// impl State for Bead {
///     type Scalar = f64;
///     type Velocity = f64;
///     type Force = f64;
///
///     fn velocity(&self) -> f64 {
///         self.p * self.inverse_mass
///     }
///     fn drift(&mut self, velocity: f64, dt: f64) {
///         self.x += velocity * dt;
///     }
///     fn kick(&mut self, force: f64, dt: f64) {
///         self.p += force * dt;
///     }
/// }
///
/// let mut bead = Bead { x: 0.0, p: 0.0, inverse_mass: 0.5 };
/// let push = |_: &Bead, _t: f64| 2.0; // 2 N on 2 kg
/// SemiImplicitEuler.step(&mut bead, &push, 0.0, 1.0)?;
/// assert_eq!((bead.x, bead.velocity()), (1.0, 1.0));
/// # Ok::<(), timestep::StepError>(())
/// ```
///
/// # Implementing a large `State`
///
/// A state sized at run time keeps its parts in `Vec`s and overrides the in-place methods,
/// which integrators call instead of the by-value ones; then a [`Stepper`](crate::Stepper)
/// steps it without allocating. Here, a chain of beads on a line, each joined to the next
/// by a spring, as one state:
///
/// - `Velocity` and `Force` are `Vec<f64>`s (any [`Vector`]), one entry per bead;
/// - the three by-value methods delegate to the in-place ones (they are for convenience,
///   and may allocate);
/// - [`velocity_into`](State::velocity_into), [`drift_by`](State::drift_by),
///   [`kick_by`](State::kick_by) write in place, and [`zero_force`](State::zero_force)
///   sizes the force buffers;
/// - `Clone::clone_from` reuses the buffers: the default probes copy the state into a
///   probe with it, and a derived `Clone` would allocate new `Vec`s there;
/// - optionally, [`probe_into`](State::probe_into) in one pass and
///   [`coordinates_into`](State::coordinates_into) for implicit methods' scaling; and, to
///   go over memory fewer times, [`advance_by_sum`](State::advance_by_sum),
///   [`kick_drift`](State::kick_drift), [`kick_into`](State::kick_into) and the others
///   `Particles` overrides.
///
/// ```
/// use timestep::{InPlace, Integrator, Rk4, State, Stepper, Vector};
///
/// #[derive(Debug)]
/// struct Chain {
///     positions: Vec<f64>,
///     momenta: Vec<f64>,
///     inverse_mass: f64,
/// }
///
/// impl Clone for Chain {
///     fn clone(&self) -> Self {
///         Chain { positions: self.positions.clone(), momenta: self.momenta.clone(), ..*self }
///     }
///     fn clone_from(&mut self, source: &Self) {
///         self.positions.clone_from(&source.positions);
///         self.momenta.clone_from(&source.momenta);
///         self.inverse_mass = source.inverse_mass;
///     }
/// }
///
/// impl State for Chain {
///     type Scalar = f64;
///     type Velocity = Vec<f64>;
///     type Force = Vec<f64>;
///
///     fn velocity(&self) -> Vec<f64> {
///         let mut velocity = self.zero_force();
///         self.velocity_into(&mut velocity);
///         velocity
///     }
///     fn drift(&mut self, velocity: Vec<f64>, dt: f64) {
///         self.drift_by(&velocity, dt);
///     }
///     fn kick(&mut self, force: Vec<f64>, dt: f64) {
///         self.kick_by(&force, dt);
///     }
///
///     fn velocity_into(&self, out: &mut Vec<f64>) {
///         for (v, p) in out.iter_mut().zip(&self.momenta) {
///             *v = p * self.inverse_mass;
///         }
///     }
///     fn drift_by(&mut self, velocity: &Vec<f64>, dt: f64) {
///         self.positions.add_scaled_assign(velocity, dt);
///     }
///     fn kick_by(&mut self, force: &Vec<f64>, dt: f64) {
///         self.momenta.add_scaled_assign(force, dt);
///     }
///     fn zero_force(&self) -> Vec<f64> {
///         vec![0.0; self.positions.len()]
///     }
/// }
///
/// // Springs of k = 1 between neighbours, both ends free, written in place.
/// let springs = InPlace(|chain: &Chain, _t: f64, force: &mut Vec<f64>| {
///     force.set_zero();
///     for i in 0..chain.positions.len() - 1 {
///         let pull = chain.positions[i + 1] - chain.positions[i] - 1.0;
///         force[i] += pull;
///         force[i + 1] -= pull;
///     }
/// });
/// let n = 1000;
/// let mut chain = Chain {
///     positions: (0..n).map(|i| 1.1 * i as f64).collect(), // stretched by 10%
///     momenta: vec![0.0; n],
///     inverse_mass: 1.0,
/// };
/// let mut rk4 = Stepper::new(Rk4);
/// for i in 0..100 {
///     rk4.step(&mut chain, &springs, i as f64 * 0.1, 0.1)?;
/// }
/// // Internal forces only: the total momentum stays zero, and the ends pull inwards.
/// assert!(chain.momenta.iter().sum::<f64>().abs() < 1e-9);
/// assert!(chain.positions[0] > 0.0 && chain.positions[n - 1] < 1.1 * (n - 1) as f64);
/// # Ok::<(), timestep::StepError>(())
/// ```
pub trait State: Clone {
    /// The floating-point type the state is made of.
    type Scalar: Scalar;

    /// The rate of the positions.
    type Velocity: Vector<Scalar = Self::Scalar>;

    /// The rate of the momenta.
    type Force: Vector<Scalar = Self::Scalar>;

    /// The current rate of the positions (a secondary quantity, never stale).
    #[must_use]
    fn velocity(&self) -> Self::Velocity;

    /// Advances the positions by `velocity · dt`, then restores the state's invariants.
    fn drift(&mut self, velocity: Self::Velocity, dt: Self::Scalar);

    /// Advances the momenta by `force · dt`, then restores the state's invariants.
    fn kick(&mut self, force: Self::Force, dt: Self::Scalar);

    /// Writes the current velocity into `out`, a buffer of the right size.
    ///
    /// Integrators call this, not [`velocity`](State::velocity). The default stores
    /// `velocity()`, which is right for small states; a large state overrides it to write
    /// in place without allocating.
    #[inline(always)]
    fn velocity_into(&self, out: &mut Self::Velocity) {
        *out = self.velocity();
    }

    /// [`drift`](State::drift) along a velocity held in a buffer. Integrators call this; the
    /// default copies the velocity and drifts, and a large state overrides it.
    #[inline(always)]
    fn drift_by(&mut self, velocity: &Self::Velocity, dt: Self::Scalar) {
        self.drift(velocity.clone(), dt);
    }

    /// [`kick`](State::kick) with a force held in a buffer. Integrators call this; the
    /// default copies the force and kicks, and a large state overrides it.
    #[inline(always)]
    fn kick_by(&mut self, force: &Self::Force, dt: Self::Scalar) {
        self.kick(force.clone(), dt);
    }

    /// Advances positions and momenta together by `rate · dt`: what Runge–Kutta stages do.
    ///
    /// The default drifts, then kicks. Override it when restoring invariants is costly
    /// and can be done once for both.
    #[inline]
    fn advance(&mut self, rate: &DerivativeOf<Self>, dt: Self::Scalar) {
        self.drift_by(&rate.velocity, dt);
        self.kick_by(&rate.force, dt);
    }

    /// Advances positions and momenta together by `dt · Σᵢ wᵢ kᵢ`, the `rates` `kᵢ` with the
    /// `weights` `wᵢ` (zero weights skipped): the end of a Runge–Kutta step. `sum` is a
    /// buffer of the right size.
    ///
    /// The default writes the weighted sum into `sum`, term by term from the left (a lone
    /// term is not copied: its weight joins `dt`), and [`advance`](State::advance)s along
    /// it. Override it to sum and advance in one pass over memory, rounding as the default
    /// does: a large state then reads each stage rate once, where the default goes over the
    /// sum once per term and again to advance.
    ///
    /// ```
    /// use timestep::{Derivative, State};
    ///
    /// let mut y = 1.0_f64; // y' = f(y): the force is f, there is no velocity
    /// let rates = [Derivative::new(Default::default(), 2.0), Derivative::new(Default::default(), 4.0)];
    /// let mut sum = y.zero_rate();
    /// y.advance_by_sum(&[0.5, 0.5], &rates, 0.1, &mut sum);
    /// assert!((y - 1.3).abs() < 1e-15); // 1 + 0.1 · (2 + 4)/2
    /// ```
    #[inline(always)]
    fn advance_by_sum(
        &mut self,
        weights: &[f64],
        rates: &[DerivativeOf<Self>],
        dt: Self::Scalar,
        sum: &mut DerivativeOf<Self>,
    ) {
        let (direction, factor) = combination(weights, rates, sum);
        self.advance(direction, dt * Self::Scalar::from_f64(factor));
    }

    /// Overwrites `probe` with this state advanced by `dt · Σᵢ wᵢ kᵢ`, the `rates` `kᵢ`
    /// with the `weights` `wᵢ` (zero weights skipped), for one Runge–Kutta stage whose
    /// weights are the method's constants. `sum` is a buffer of the right size.
    ///
    /// The default forms the sum as [`advance_by_sum`](State::advance_by_sum) does and
    /// [`probe_into`](State::probe_into)s along it. A [`Vector`] forms the probe in one pass
    /// over memory, summing each coordinate's terms in registers, with the same roundings;
    /// a large state may override it to do the same.
    ///
    /// ```
    /// use timestep::{Derivative, State};
    ///
    /// let y = [1.0_f64, 2.0];
    /// let rates = [Derivative::new(Default::default(), [2.0, 0.0]), Derivative::new(Default::default(), [4.0, 1.0])];
    /// let (mut sum, mut probe) = (y.zero_rate(), y);
    /// y.probe_by_sum(&[0.5, 0.5], &rates, 0.1, &mut sum, &mut probe);
    /// assert_eq!(probe, [1.0 + 0.1 * 3.0, 2.0 + 0.1 * 0.5]);
    /// ```
    #[inline(always)]
    fn probe_by_sum(
        &self,
        weights: &[f64],
        rates: &[DerivativeOf<Self>],
        dt: Self::Scalar,
        sum: &mut DerivativeOf<Self>,
        probe: &mut Self,
    ) {
        let (direction, factor) = combination(weights, rates, sum);
        self.probe_into(direction, dt * Self::Scalar::from_f64(factor), probe);
    }

    /// Overwrites `probe` with this state advanced by `rate · dt`, for one Runge–Kutta
    /// stage: a temporary whose derivative is taken and which never becomes the state.
    ///
    /// The default copies the state into `probe` ([`Clone::clone_from`], which reuses a
    /// large state's memory) and [`advance`](State::advance)s it. Override it when a probe's
    /// invariants can be restored along a shorter chain of dependent operations, with a
    /// result equal to `advance`'s in exact arithmetic (it may differ by rounding, since the
    /// probe never becomes the state), or when copying and advancing can be one pass over
    /// memory. A single body is stepped at the speed of that chain:
    /// [`Particle`](crate::Particle)'s probe velocity is `v + F · (dt/m)`, one
    /// multiplication after the force, where recalculating it as `(p + F·dt) / m` takes two,
    /// which makes RK4 on a spring 12–15% faster.
    ///
    /// ```
    /// use timestep::{Derivative, Particle, State};
    ///
    /// let particle = Particle::new(2.0, 1.0, 3.0);
    /// let mut probe = particle;
    /// particle.probe_into(&Derivative::new(3.0, -4.0), 0.5, &mut probe);
    /// assert_eq!(probe.position(), 2.5);
    /// assert_eq!(probe.momentum(), 4.0);
    /// assert_eq!(probe.velocity(), 2.0);
    /// ```
    // Always inlined, as the stage sampling that calls it: left out of line for a rigid
    // body, the probe went through memory and RK4 ran 25% slower than by hand.
    #[inline(always)]
    fn probe_into(&self, rate: &DerivativeOf<Self>, dt: Self::Scalar, probe: &mut Self) {
        probe.clone_from(self);
        probe.advance(rate, dt);
    }

    /// [`kick`](State::kick) by `force · kick_dt`, then [`drift`](State::drift) along the
    /// new velocity by `drift_dt`: the kick and drift of semi-implicit Euler and of velocity
    /// Verlet. `velocity` is a buffer of the right size, which the default fills with the
    /// velocity after the kick; override it to kick and drift in one pass over memory.
    ///
    /// ```
    /// use timestep::{Particle, State};
    ///
    /// let mut particle = Particle::new(2.0, 0.0, 1.0); // 2 kg at x = 0, moving at 1 m/s
    /// let mut velocity = 0.0;
    /// particle.kick_drift(&4.0, 0.5, 2.0, &mut velocity); // 4 N for 0.5 s, then 2 s
    /// assert_eq!((particle.velocity(), particle.position()), (2.0, 4.0));
    /// ```
    #[inline(always)]
    fn kick_drift(
        &mut self,
        force: &Self::Force,
        kick_dt: Self::Scalar,
        drift_dt: Self::Scalar,
        velocity: &mut Self::Velocity,
    ) {
        self.kick_by(force, kick_dt);
        self.velocity_into(velocity);
        self.drift_by(velocity, drift_dt);
    }

    /// Overwrites `out` with this state [`kick`](State::kick)ed by `force · dt`: velocity
    /// Verlet's prediction of the end of a step, whose force is evaluated and which never
    /// becomes the state. The default copies the state into `out` ([`Clone::clone_from`])
    /// and kicks it; override it to copy and kick in one pass over memory, with the same
    /// result.
    ///
    /// ```
    /// use timestep::{Particle, State};
    ///
    /// let particle = Particle::new(2.0, 3.0, 1.0);
    /// let mut kicked = particle;
    /// particle.kick_into(&4.0, 0.5, &mut kicked);
    /// assert_eq!((kicked.position(), kicked.velocity()), (3.0, 2.0));
    /// ```
    #[inline(always)]
    fn kick_into(&self, force: &Self::Force, dt: Self::Scalar, out: &mut Self) {
        out.clone_from(self);
        out.kick_by(force, dt);
    }

    /// Whether an explicit Runge–Kutta stage may form its probe in two parts, `(y + dt
    /// Σⱼ₍ⱼ<newest₎ aⱼ kⱼ) + (dt a_newest) k_newest`, which shortens the chain from each
    /// evaluation to the next: only for a state whose [`advance`](State::advance) is linear
    /// in the rate (two advances are one by their sum, to rounding: not a rotation, which
    /// composes) and small enough, its size fixed at compile time, to live in registers (a
    /// large one would take another pass over memory). `false` by default; `true` for the
    /// fixed-size [`Vector`]s of up to 64 bytes.
    #[doc(hidden)]
    #[inline(always)]
    #[must_use]
    fn splits_probes() -> bool {
        false
    }

    /// Whether a Runge–Kutta stage's probe ([`probe_by_sum`](State::probe_by_sum), or
    /// [`positional_probe_into`](State::positional_probe_into) along the sum of the
    /// rates) is bit for bit the state that
    /// [`advance_by_sum`](State::advance_by_sum) reaches with the same weights: then a pair
    /// whose rate at the step's end is one of an attempt's stages evaluates it at the end
    /// itself, without forming the same point a second time (as it does for a state that
    /// [splits its probes](State::splits_probes), whose probe is the end to rounding).
    /// `false` by default; `true` for the [`Vector`]s that do not split their probes.
    #[doc(hidden)]
    #[inline(always)]
    #[must_use]
    fn probe_is_advance() -> bool {
        false
    }

    /// Whether a Runge–Kutta stage takes this state's forces by value
    /// ([`Forces::force`]) and writes each into its rate in the pass that forms the next
    /// probe ([`probe_by_sum_storing`](State::probe_by_sum_storing)),
    /// instead of copying it there from where the right-hand side returned it: only for
    /// a state whose rate is its force alone. `false` by default; `true` for the
    /// [`Vector`]s of fixed size that do not [split their probes](State::splits_probes).
    #[doc(hidden)]
    #[inline(always)]
    #[must_use]
    fn rates_by_value() -> bool {
        false
    }

    /// [`probe_by_sum`](State::probe_by_sum) whose last rate's force is still `newest`,
    /// written into it on the way. The default copies it there first.
    #[doc(hidden)]
    #[inline(always)]
    fn probe_by_sum_storing(
        &self,
        weights: &[f64],
        rates: &mut [DerivativeOf<Self>],
        newest: &Self::Force,
        dt: Self::Scalar,
        sum: &mut DerivativeOf<Self>,
        probe: &mut Self,
    ) {
        if let Some(last) = rates.last_mut() {
            last.force.clone_from(newest);
        }
        self.probe_by_sum(weights, rates, dt, sum, probe);
    }

    /// Writes into `out` the rate of a Runge–Kutta–Nyström combination and returns `true`:
    /// the velocity `c·v + h Σⱼ wⱼ Fⱼ / m` and the force `Σⱼ w′ⱼ Fⱼ` (zero when
    /// `momentum_weights` is `None`), with `v` this state's velocity, `m` its masses, `Fⱼ`
    /// the forces of `rates` and `wⱼ`, `w′ⱼ` the weights (zero weights skipped, each sum
    /// term by term from the left). A Nyström stage, the step's end and its error are each
    /// this state moved by `h` along such a rate.
    ///
    /// The default writes nothing and returns `false`: a state that keeps momenta has its
    /// masses out of the integrator's reach, and the pair forms the velocity as `v(p +
    /// h Σⱼ wⱼ Fⱼ) + (c − 1) v` from a kick ([`probe_into`](State::probe_into)) and
    /// [`velocity_into`](State::velocity_into), in several passes over memory, and for
    /// the error estimate (`c = 0`) with the cancellation of `v(p + δ) − v(p)`. A state
    /// that knows its masses overrides it ([`Particle`](crate::Particle),
    /// [`Particles`](crate::Particles): DPRKN6 on six bodies in 30 % fewer instructions,
    /// and an error estimate without that cancellation).
    ///
    /// ```
    /// use timestep::{Derivative, Particles, State};
    ///
    /// let bodies = Particles::new(vec![2.0, 4.0], vec![0.0, 1.0], vec![1.0, -1.0]);
    /// let rates = [Derivative::new(vec![1.0, -1.0], vec![2.0, 8.0])];
    /// let mut out = bodies.zero_rate();
    /// assert!(bodies.nystrom_rate_into(&[0.5], Some(&[1.0]), &rates, 0.5, 0.1, &mut out));
    /// // 0.5·v + 0.1·(0.5 F)/m, and F itself.
    /// assert_eq!(out.velocity, [0.5 + 0.1 * 0.5, -0.5 + 0.1 * 1.0]);
    /// assert_eq!(out.force, [2.0, 8.0]);
    /// ```
    #[inline(always)]
    fn nystrom_rate_into(
        &self,
        position_weights: &[f64],
        momentum_weights: Option<&[f64]>,
        rates: &[DerivativeOf<Self>],
        c: Self::Scalar,
        h: Self::Scalar,
        out: &mut DerivativeOf<Self>,
    ) -> bool {
        let _ = (position_weights, momentum_weights, rates, c, h, out);
        false
    }

    /// [`probe_into`](State::probe_into) for forces that do not read momenta
    /// ([`Forces::reads_momenta`] is `false`): the probe's positions and velocity are
    /// written (a stage's rate is the probe's velocity), its momenta may be left as they
    /// were. The default is `probe_into`; a large state overrides it to skip a pass of
    /// writes the forces would never read.
    #[inline(always)]
    fn positional_probe_into(&self, rate: &DerivativeOf<Self>, dt: Self::Scalar, probe: &mut Self) {
        self.probe_into(rate, dt, probe);
    }

    /// Writes the rate of the state at time `t` into `out`
    /// ([`derivative_into`](State::derivative_into)), then `probe` as this state advanced
    /// by `out · dt` (as [`probe_into`](State::probe_into), or
    /// [`positional_probe_into`](State::positional_probe_into) for forces that do not
    /// read momenta): a Runge–Kutta step's first two stages, whose second probes along the
    /// first rate alone.
    ///
    /// The default does exactly that. A large state overrides it to write the probe in
    /// the pass that copies its velocity into the rate, with the same result.
    #[inline(always)]
    fn derivative_and_probe_into<F: Forces<Self> + ?Sized>(
        &self,
        forces: &F,
        t: Self::Scalar,
        out: &mut DerivativeOf<Self>,
        dt: Self::Scalar,
        probe: &mut Self,
    ) {
        self.derivative_into(forces, t, out);
        if forces.reads_momenta() {
            self.probe_into(out, dt, probe);
        } else {
            self.positional_probe_into(out, dt, probe);
        }
    }

    /// A zero force of the right size for this state: the buffer integrators have forces
    /// written into.
    ///
    /// The default is the zero of a [`Force`](State::Force) type whose size is fixed at
    /// compile time. A state whose force is sized at run time (a `Vec`) must override it.
    ///
    /// # Panics
    ///
    /// The default panics, with a message saying so, for a force type sized at run time.
    #[track_caller]
    #[must_use]
    fn zero_force(&self) -> Self::Force {
        match Self::Force::fixed_zero() {
            Some(zero) => zero,
            None => missing_zero_force(),
        }
    }

    /// A zero rate `(velocity, force)` of the right size for this state: the buffer an
    /// integrator keeps each stage value in. Made once per workspace, not per step.
    #[track_caller]
    #[must_use]
    fn zero_rate(&self) -> DerivativeOf<Self> {
        Derivative::new(self.velocity().zero_like(), self.zero_force())
    }

    /// The number of components of the state's rate (its velocity's and force's together),
    /// which every buffer made for the state holds: a solver compares it with its buffers'
    /// to see a state of another size. The default counts them in a
    /// [`zero_rate`](State::zero_rate), which allocates for a state sized at run time; such states
    /// should count without allocating, as `Vec`s and [`Particles`](crate::Particles) do.
    #[inline]
    #[must_use]
    fn rate_dim(&self) -> usize {
        self.zero_rate().dim()
    }

    /// Writes the state's own coordinates into `out`, laid out as its rate is: each
    /// position where its velocity goes, each momentum where its force goes. Returns
    /// `false` (the default) when the state does not say.
    ///
    /// Integrators use it to measure sizes: backward Euler scales its finite differences
    /// and its Newton test with it, so that a state far from the origin converges as well
    /// as one near it.
    #[inline]
    fn coordinates_into(&self, out: &mut DerivativeOf<Self>) -> bool {
        let _ = out;
        false
    }

    /// Whether the state gives its coordinates ([`coordinate`](State::coordinate),
    /// [`coordinates_into`](State::coordinates_into)); `false` by default.
    #[inline]
    #[must_use]
    fn has_coordinates(&self) -> bool {
        false
    }

    /// The state's own coordinate `index`, numbered as its rate's components (each
    /// position where its velocity goes, each momentum where its force goes), read where
    /// it is: error norms measure with it without copying the state. Zero (the default)
    /// when the state does not [say](State::has_coordinates).
    #[inline]
    #[must_use]
    fn coordinate(&self, index: usize) -> Self::Scalar {
        let _ = index;
        <Self::Scalar as num_traits::Zero>::zero()
    }

    /// Calls `each(yᵢ, zᵢ, [r¹ᵢ, …])` for every coordinate `i` in order, with `yᵢ` this
    /// state's [`coordinate`](State::coordinate), `zᵢ` `other`'s and `rᵏᵢ` the component
    /// `i` of each of `rates`, and returns `true`; `false` (the default), with nothing
    /// called. Error norms go over the coordinates this way where the state gives it: by
    /// index, each coordinate of a [`Particles`](crate::Particles) took four divisions of
    /// its index into a body and an axis (DPRKN6 on six bodies: a fifth of its
    /// instructions in the norm).
    #[doc(hidden)]
    #[inline(always)]
    fn zip_coordinates<const K: usize>(
        &self,
        other: &Self,
        rates: [&DerivativeOf<Self>; K],
        each: impl FnMut(Self::Scalar, Self::Scalar, [Self::Scalar; K]),
    ) -> bool {
        let _ = (other, rates, each);
        false
    }

    /// The rate of the whole state at time `t`: its velocity and the force `forces` gives.
    #[inline]
    #[must_use]
    fn derivative<F: Forces<Self> + ?Sized>(
        &self,
        forces: &F,
        t: Self::Scalar,
    ) -> DerivativeOf<Self> {
        Derivative {
            velocity: self.velocity(),
            force: forces.force(self, t),
        }
    }

    /// Writes the rate of the whole state at time `t` into `out`, in place.
    #[inline(always)]
    fn derivative_into<F: Forces<Self> + ?Sized>(
        &self,
        forces: &F,
        t: Self::Scalar,
        out: &mut DerivativeOf<Self>,
    ) {
        self.velocity_into(&mut out.velocity);
        crate::state::force_into(forces, self, t, &mut out.force);
    }

    /// Writes the rate of this probe at time `t` into `out`, as
    /// [`derivative_into`](State::derivative_into) does, for a probe that is overwritten
    /// (by [`probe_into`](State::probe_into)) before it is read again: it may hand its
    /// velocity buffer to `out` instead of copying it, and keep `out`'s old buffer.
    ///
    /// The default is `derivative_into`. A large state whose probes write every velocity
    /// overrides it to swap the buffers, which saves a copy of the velocities per stage.
    #[inline(always)]
    fn probe_derivative_into<F: Forces<Self> + ?Sized>(
        &mut self,
        forces: &F,
        t: Self::Scalar,
        out: &mut DerivativeOf<Self>,
    ) {
        self.derivative_into(forces, t, out);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn missing_zero_force() -> ! {
    panic!(
        "a state whose force is sized at run time must implement State::zero_force \
         (the default only knows forces whose size is fixed at compile time)"
    )
}

/// A first-order system `y' = f(t, y)`: the value is all momentum, and `kick` adds `f · dt`.
/// Any [`Vector`] is one: numbers, arrays, glam vectors, `Vec<f64>`, `Vec<DVec3>`, …
impl<V: Vector> State for V {
    type Scalar = V::Scalar;
    type Velocity = NoVelocity<V::Scalar>;
    type Force = V;

    #[inline(always)]
    fn velocity(&self) -> Self::Velocity {
        NoVelocity::zero()
    }

    #[inline(always)]
    fn rate_dim(&self) -> usize {
        self.dim()
    }

    #[inline(always)]
    fn drift(&mut self, _: Self::Velocity, _: V::Scalar) {}

    #[inline(always)]
    fn kick(&mut self, rate: V, dt: V::Scalar) {
        self.add_scaled_assign(&rate, dt);
    }

    #[inline(always)]
    fn drift_by(&mut self, _: &Self::Velocity, _: V::Scalar) {}

    #[inline(always)]
    fn kick_by(&mut self, rate: &V, dt: V::Scalar) {
        self.add_scaled_assign(rate, dt);
    }

    #[inline(always)]
    fn probe_into(&self, rate: &DerivativeOf<Self>, dt: V::Scalar, probe: &mut Self) {
        // One pass instead of a copy and an update, when all three are slices of one size.
        if let (Some(out), Some(y), Some(rate)) = (
            probe.as_scalars_mut(),
            self.as_scalars(),
            rate.force.as_scalars(),
        ) {
            if out.len() == y.len() && y.len() == rate.len() {
                for ((out, &y), &rate) in out.iter_mut().zip(y).zip(rate) {
                    *out = y + rate * dt;
                }
                return;
            }
        }
        probe.assign(self);
        probe.add_scaled_assign(&rate.force, dt);
    }

    // Inlined only when optimised, as `combination`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn advance_by_sum(
        &mut self,
        weights: &[f64],
        rates: &[DerivativeOf<Self>],
        dt: V::Scalar,
        sum: &mut DerivativeOf<Self>,
    ) {
        // One pass, the sum of each coordinate in registers: `y + (Σ wᵢ kᵢ) dt`, as the
        // default rounds it.
        if let Some(y) = self.as_scalars_mut() {
            let n = y.len();
            if sum_each(
                weights,
                rates,
                n,
                #[inline(always)]
                |i, sum| {
                    y[i] = y[i] + sum * dt;
                },
            ) {
                return;
            }
        }
        let (direction, factor) = combination(weights, rates, sum);
        self.advance(direction, dt * V::Scalar::from_f64(factor));
    }

    // Inlined only when optimised, as `combination`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn probe_by_sum(
        &self,
        weights: &[f64],
        rates: &[DerivativeOf<Self>],
        dt: V::Scalar,
        sum: &mut DerivativeOf<Self>,
        probe: &mut Self,
    ) {
        // One pass, as `advance_by_sum`: a stage of DOP853 on 36 unknowns wrote its sum
        // to memory and read it back to probe.
        if let (Some(out), Some(y)) = (probe.as_scalars_mut(), self.as_scalars()) {
            let n = y.len();
            if out.len() == n {
                let out = &mut out[..n];
                if sum_each(
                    weights,
                    rates,
                    n,
                    #[inline(always)]
                    |i, sum| {
                        out[i] = y[i] + sum * dt;
                    },
                ) {
                    return;
                }
            }
        }
        let (direction, factor) = combination(weights, rates, sum);
        self.probe_into(direction, dt * V::Scalar::from_f64(factor), probe);
    }

    #[inline(always)]
    fn rates_by_value() -> bool {
        V::fixed_zero().is_some() && !Self::splits_probes()
    }

    // Inlined only when optimised, as `combination`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn probe_by_sum_storing(
        &self,
        weights: &[f64],
        rates: &mut [DerivativeOf<Self>],
        newest: &V,
        dt: V::Scalar,
        sum: &mut DerivativeOf<Self>,
        probe: &mut Self,
    ) {
        let Some((last, older)) = rates.split_last_mut() else {
            return self.probe_by_sum(weights, rates, dt, sum, probe);
        };
        if let (Some(out), Some(y), Some(new), Some(stored)) = (
            probe.as_scalars_mut(),
            self.as_scalars(),
            newest.as_scalars(),
            last.force.as_scalars_mut(),
        ) {
            let n = y.len();
            if out.len() == n && new.len() == n && stored.len() == n {
                let (out, new, stored) = (&mut out[..n], &new[..n], &mut stored[..n]);
                let newest_index = older.len();
                let older = &*older;
                if sum_each_of::<V>(
                    weights,
                    |j| {
                        if j == newest_index {
                            Some(new)
                        } else {
                            older[j].as_scalars()
                        }
                    },
                    n,
                    #[inline(always)]
                    |i, sum| {
                        out[i] = y[i] + sum * dt;
                        stored[i] = new[i];
                    },
                ) {
                    return;
                }
            }
        }
        last.force.clone_from(newest);
        self.probe_by_sum(weights, rates, dt, sum, probe);
    }

    #[inline(always)]
    fn splits_probes() -> bool {
        // Up to eight `f64`: at 28, the second part's pass over memory cost DOP853 more
        // than the shorter chain saved.
        V::fixed_zero().is_some() && size_of::<V>() <= 64
    }

    #[inline(always)]
    fn probe_is_advance() -> bool {
        // `probe_by_sum` and `advance_by_sum` form `y + (Σ wⱼ kⱼ) dt` with the same
        // roundings (one loop per coordinate, or the same term-by-term sum and one update).
        !Self::splits_probes()
    }

    #[inline]
    fn zero_force(&self) -> V {
        self.zero_like()
    }

    #[inline]
    fn coordinates_into(&self, out: &mut DerivativeOf<Self>) -> bool {
        out.force.assign(self);
        true
    }

    #[inline]
    fn has_coordinates(&self) -> bool {
        true
    }

    #[inline(always)]
    fn coordinate(&self, index: usize) -> V::Scalar {
        self.component(index)
    }
}

/// The rate of a whole state: the velocity of its positions and the force on its momenta.
///
/// It is a [`Vector`] (velocity coordinates first, then force coordinates), which is
/// all Runge–Kutta methods need to combine samples.
///
/// # Example
///
/// ```
/// use timestep::{Derivative, Vector};
///
/// let mut a = Derivative::new(1.0_f64, -2.0);
/// a.add_scaled_assign(&Derivative::new(3.0, 4.0), 0.5);
/// assert_eq!(a, Derivative::new(2.5, 0.0));
/// assert_eq!(a.dim(), 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Derivative<V, F> {
    /// The rate of the positions.
    pub velocity: V,
    /// The rate of the momenta.
    pub force: F,
}

impl<V, F> Derivative<V, F> {
    /// Pairs a velocity with a force.
    #[must_use]
    pub const fn new(velocity: V, force: F) -> Self {
        Derivative { velocity, force }
    }
}

/// The [`Derivative`] type of a state `S`.
pub type DerivativeOf<S> = Derivative<<S as State>::Velocity, <S as State>::Force>;

impl<V: Vector, F: Vector<Scalar = V::Scalar>> Vector for Derivative<V, F> {
    type Scalar = V::Scalar;

    #[inline(always)]
    fn dim(&self) -> usize {
        self.velocity.dim() + self.force.dim()
    }
    #[inline]
    fn zero_like(&self) -> Self {
        Derivative::new(self.velocity.zero_like(), self.force.zero_like())
    }
    #[inline(always)]
    fn fixed_zero() -> Option<Self> {
        Some(Derivative::new(V::fixed_zero()?, F::fixed_zero()?))
    }
    #[inline(always)]
    fn assign(&mut self, other: &Self) {
        self.velocity.assign(&other.velocity);
        self.force.assign(&other.force);
    }
    #[inline(always)]
    fn add_scaled_assign(&mut self, other: &Self, factor: V::Scalar) {
        self.velocity.add_scaled_assign(&other.velocity, factor);
        self.force.add_scaled_assign(&other.force, factor);
    }
    #[inline(always)]
    fn scale_assign(&mut self, factor: V::Scalar) {
        self.velocity.scale_assign(factor);
        self.force.scale_assign(factor);
    }
    #[inline(always)]
    fn set_zero(&mut self) {
        self.velocity.set_zero();
        self.force.set_zero();
    }
    #[inline]
    fn component(&self, index: usize) -> V::Scalar {
        let split = self.velocity.dim();
        if index < split {
            self.velocity.component(index)
        } else {
            self.force.component(index - split)
        }
    }
    #[inline]
    fn set_component(&mut self, index: usize, value: V::Scalar) {
        let split = self.velocity.dim();
        if index < split {
            self.velocity.set_component(index, value);
        } else {
            self.force.set_component(index - split, value);
        }
    }
    fn max_abs(&self) -> V::Scalar {
        let (v, f) = (self.velocity.max_abs(), self.force.max_abs());
        if v.is_nan() { v } else { v.max(f) }
    }
    fn is_finite(&self) -> bool {
        self.velocity.is_finite() && self.force.is_finite()
    }
    /// The force's coordinates when there is no velocity (a first-order system).
    #[inline]
    fn as_scalars(&self) -> Option<&[V::Scalar]> {
        if self.velocity.dim() == 0 {
            self.force.as_scalars()
        } else {
            None
        }
    }
    #[inline]
    fn as_scalars_mut(&mut self) -> Option<&mut [V::Scalar]> {
        if self.velocity.dim() == 0 {
            self.force.as_scalars_mut()
        } else {
            None
        }
    }
}

/// The dynamics: the force on a state at time `t`.
///
/// "Force" is whatever drives the state's momenta: a force in newtons for a
/// [`Particle`](crate::Particle), force and torque for a rigid body, `f(t, y)` for a
/// first-order system. Closures `Fn(&S, t) -> S::Force` implement it.
///
/// # Example
///
/// ```
/// use timestep::{Forces, Particle};
///
/// let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position();
/// let particle = Particle::new(1.0, 2.0, 0.0);
/// assert_eq!(spring.force(&particle, 0.0), -30.0);
/// ```
pub trait Forces<S: State> {
    /// The force on `state` at time `t`.
    #[must_use]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force;

    /// Writes the force on `state` at time `t` into `out`, a buffer of the right size that
    /// still holds an earlier force: every coordinate must be written (start with
    /// [`set_zero`](Vector::set_zero) to accumulate). Integrators call this; the default
    /// stores [`force`](Forces::force), which allocates for a force sized at run time.
    /// [`InPlace`] gives a closure that writes in place.
    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        *out = self.force(state, t);
    }

    /// Writes the Jacobian `∂f/∂y` of the state's derivative at (`state`, `t`) into
    /// `jacobian` and returns `true`, or returns `false` (the default) to let implicit
    /// methods estimate it by finite differences.
    ///
    /// Rows and columns follow the coordinates of [`Derivative`]: first the velocity
    /// coordinates (rows: rates of the positions; columns: the positions), then the force
    /// coordinates (rows: rates of the momenta; columns: the momenta). Every entry starts
    /// at 0. See [`WithJacobian`](crate::WithJacobian) to give a closure one.
    #[inline]
    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        let _ = (state, t, jacobian);
        false
    }

    /// Writes the constant mass matrix `M` of `M y' = f(t, y)` into `mass` and returns
    /// `true`, or returns `false` (the default: `M = I`, the ordinary `y' = f(t, y)`).
    ///
    /// Rows and columns are numbered as the [`jacobian`](Forces::jacobian)'s, and the
    /// view has the Jacobian's [`Structure`](crate::Structure): a dense, banded
    /// (`M`'s band inside the Jacobian's, as radau5.f's `MLMAS ≤ MLJAC`) or sparse
    /// (`M`'s entries inside the forces' pattern) mass matrix. Every entry starts at 0;
    /// it is asked for once per workspace and kept. `M` may be singular: a zero row `i`
    /// makes equation `i` algebraic, `0 = fᵢ(t, y)` (an index-1 differential-algebraic
    /// system, with the algebraic unknown `i` determined by it; see
    /// [`Radau5::consistent_start`](crate::Radau5::consistent_start)). These methods read
    /// it: [`Radau5`](crate::Radau5) (index 1, and 2 or 3 with its index scaling),
    /// [`Bdf`](crate::Bdf) with its direct linear solver (index 1, and 2 with
    /// [`Bdf::with_index_two`](crate::Bdf::with_index_two); its GMRES refuses
    /// an `M` other than the identity) and the [`Rosenbrock`](crate::Rosenbrock) methods
    /// ([`Rodas4`](crate::Rodas4), [`Ros3p`](crate::Ros3p); index 1, as rodas.f with
    /// `IMAS = 1`) and [`BackwardEuler`](crate::BackwardEuler) (index 1, and 2 or 3 with
    /// [`BackwardEuler::with_higher_index`](crate::BackwardEuler::with_higher_index),
    /// solving `M (y₁ − y₀) = dt f(t₁, y₁)`). The trapezoidal and implicit midpoint rules,
    /// Newmark-β and [`Seulex`](crate::Seulex) refuse it ([`StepError::MassUnsupported`](crate::StepError::MassUnsupported));
    /// the explicit methods solve `y' = f(t, y)` and ignore it.
    /// See [`WithMass`](crate::WithMass) to give a closure one, and its section on a mass
    /// `M(t, y)` that depends on the time or the state (rewritten with `z = y'` as a
    /// constant-mass index-1 system).
    #[inline]
    fn mass_matrix(&self, mass: &mut Jacobian<'_, S::Scalar>) -> bool {
        let _ = mass;
        false
    }

    /// Writes which entries of the Jacobian `∂f/∂y` may be non-zero at `state` into
    /// `pattern` (empty when called) and returns `true`, or returns `false` (the default:
    /// no pattern is known). Implicit methods given a
    /// [sparse](crate::Structure::Sparse) Jacobian ask for it once, on their first step,
    /// and keep it: it must hold every entry of every later Jacobian. Entries are
    /// `(row, column)` in the numbering of [`jacobian`](Forces::jacobian) (velocity
    /// coordinates first, then force coordinates); the diagonal is always kept. A pattern
    /// that misses a dependence is refused by the first step
    /// ([`StepError::PatternTooSparse`](crate::StepError::PatternTooSparse)).
    ///
    /// ```
    /// use timestep::{BackwardEuler, Forces, Integrator, Pattern, Structure};
    ///
    /// /// Diffusion on a ring of `n` cells: `yᵢ' = yᵢ₋₁ − 2 yᵢ + yᵢ₊₁`.
    /// struct Ring;
    /// impl Forces<Vec<f64>> for Ring {
    ///     fn force(&self, y: &Vec<f64>, _t: f64) -> Vec<f64> {
    ///         let n = y.len();
    ///         (0..n).map(|i| y[(i + n - 1) % n] - 2.0 * y[i] + y[(i + 1) % n]).collect()
    ///     }
    ///     fn jacobian_pattern(&self, y: &Vec<f64>, pattern: &mut Pattern) -> bool {
    ///         let n = y.len();
    ///         for i in 0..n {
    ///             pattern.extend([(i, (i + n - 1) % n), (i, i), (i, (i + 1) % n)]);
    ///         }
    ///         true
    ///     }
    /// }
    ///
    /// let mut y: Vec<f64> = (0..8).map(|i| f64::from(i)).collect();
    /// let total: f64 = y.iter().sum();
    /// BackwardEuler::new().with_structure(Structure::Sparse).step(&mut y, &Ring, 0.0, 0.5)?;
    /// // Diffusion on a ring keeps the total.
    /// assert!((y.iter().sum::<f64>() - total).abs() < 1e-9);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[cfg(feature = "sparse")]
    #[inline]
    fn jacobian_pattern(&self, state: &S, pattern: &mut crate::Pattern) -> bool {
        let _ = (state, pattern);
        false
    }

    /// Writes the product `J v` of the Jacobian `∂f/∂y` at (`state`, `t`) with `v` into
    /// `out` and returns `true`, or returns `false` (the default) to let a matrix-free
    /// solver ([`Gmres`](crate::Gmres)) take it by a directional difference
    /// `(f(y + σv) − f(y))/σ` (one force evaluation). Laid out as
    /// [`jacobian`](Forces::jacobian)'s columns; every entry of `out` must be written.
    #[inline]
    fn jacobian_times(
        &self,
        state: &S,
        t: S::Scalar,
        v: &DerivativeOf<S>,
        out: &mut DerivativeOf<S>,
    ) -> bool {
        let _ = (state, t, v, out);
        false
    }

    /// Writes `z ≈ (I − γJ)⁻¹ r`, with `J` the Jacobian at (`state`, `t`), into `z` and
    /// returns `true`, or returns `false` (the default: no preconditioner is known): the
    /// preconditioner [`Gmres`](crate::Gmres) uses when told
    /// [`Preconditioner::User`](crate::Preconditioner::User) (CVODE's `psolve`, with its
    /// `psetup` folded in: forces that factor an approximation keep it themselves, and
    /// may refresh it when `gamma` or `state` changed). `z` must be written entirely;
    /// the closer to the inverse, the fewer Krylov iterations.
    #[inline]
    fn precondition(
        &self,
        state: &S,
        t: S::Scalar,
        gamma: S::Scalar,
        r: &DerivativeOf<S>,
        z: &mut DerivativeOf<S>,
    ) -> bool {
        let _ = (state, t, gamma, r, z);
        false
    }

    /// Writes the diagonal `λ` of a linear part `A = diag(λ)` of the state's derivative,
    /// `y' = A y + g(t, y)`, into `diagonal` and returns `true`, or returns `false` (the
    /// default: no linear part is known). Laid out as a [`Derivative`]: the velocity
    /// coordinates first, then the force coordinates.
    ///
    /// [`ExponentialEuler`](crate::ExponentialEuler) integrates that part exactly; other
    /// methods ignore it (the force still returns the whole rate, `A y + g`). See
    /// [`WithLinearPart`](crate::WithLinearPart) to give a closure one.
    #[inline]
    fn linear_part(&self, state: &S, t: S::Scalar, diagonal: &mut DerivativeOf<S>) -> bool {
        let _ = (state, t, diagonal);
        false
    }

    /// Whether the force may depend on the state's momenta, or on what is derived from them
    /// (velocities, angular velocities): `true` (the default) unless the forces say
    /// otherwise, as [`Positional`] does for forces of positions and time alone (springs,
    /// gravity, any potential).
    ///
    /// When it is `false`, [`Verlet`](crate::Verlet) evaluates its end-of-step force on the
    /// state itself rather than on a prediction of its end-of-step momenta, and Runge–Kutta
    /// stages probe with [`positional_probe_into`](State::positional_probe_into): the same
    /// forces, without passes over memory to write momenta they would not read. Forces that
    /// return `false` and read momenta anyway see stale ones, and give wrong results.
    #[inline(always)]
    #[must_use]
    fn reads_momenta(&self) -> bool {
        true
    }

    /// Whether these forces are computed by returning them ([`force`](Forces::force)), as
    /// a closure's are, rather than written into a buffer
    /// ([`force_into`](Forces::force_into)): then a Runge–Kutta stage on a large array reads
    /// each one where it was returned instead of copying it into its own buffer first.
    /// `false` by default (every method calls `force_into`); `true` for closures.
    #[doc(hidden)]
    #[inline(always)]
    #[must_use]
    fn returns_forces(&self) -> bool {
        false
    }
}

/// Writes the force on `state` at `t` into `out` by `forces`, as every method does: a
/// force of a size other than the buffer's (a closure that returns a `Vec` of the wrong
/// length, an [`InPlace`] closure that resizes `out`) panics here with its cause, instead
/// of deep inside a step with a bare "index out of bounds", or worse, zipping buffers of
/// different lengths into a silently shorter answer. `Forces::force_into` returns
/// nothing, so the panic is the only way to say it.
#[inline(always)]
#[track_caller]
pub(crate) fn force_into<S: State, F: Forces<S> + ?Sized>(
    forces: &F,
    state: &S,
    t: S::Scalar,
    out: &mut S::Force,
) {
    let size = out.dim();
    forces.force_into(state, t, out);
    if out.dim() != size {
        wrong_force_size(state, size, out.dim());
    }
}

/// The panic of [`force_into`]: the forces' fault when what they wrote is not the state's
/// size, the caller's when the state changed size under buffers made for it.
#[cold]
#[inline(never)]
#[track_caller]
fn wrong_force_size<S: State>(state: &S, buffer: usize, written: usize) -> ! {
    let expected = state.zero_force().dim();
    if written != expected {
        panic!(
            "the forces returned {written} components for a state of {expected}: a force \
             needs one component per momentum coordinate of the state"
        )
    }
    panic!(
        "the state has {expected} force components but the method's buffers {buffer}: a \
         state's size changed under buffers made for it; call `reset` on the stepper after \
         resizing a state"
    )
}

impl<S: State, F: Fn(&S, S::Scalar) -> S::Force> Forces<S> for F {
    #[inline(always)]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self(state, t)
    }

    #[inline(always)]
    fn returns_forces(&self) -> bool {
        true
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        let force = self(state, t);
        if S::Force::fixed_zero().is_some() {
            // A coordinate at a time: stored whole, a returned `[f64; 36]` went through two
            // 288-byte `memcpy`s on its way into the buffer.
            out.assign(&force);
        } else {
            // A `Vec` is moved in, not copied (and one of another size is reported by the
            // caller, `force_into` below).
            *out = force;
        }
    }
}

/// Forces written in place: a closure `|state, t, out|` that writes the force on `state` at
/// time `t` into `out`, for states sized at run time, where returning a new `Vec` per
/// evaluation would allocate.
///
/// `out` still holds the previous evaluation's force: write every coordinate, or start
/// with `out.set_zero()` (or `fill`) to accumulate pairwise forces.
///
/// # Example
///
/// Exponential decay of a thousand unknowns, `y' = −y`, stepped by RK4 with no allocation
/// after the first step:
///
/// ```
/// use timestep::{InPlace, Integrator, Rk4, Stepper};
///
/// let decay = InPlace(|y: &Vec<f64>, _t: f64, dy: &mut Vec<f64>| {
///     for (d, y) in dy.iter_mut().zip(y) {
///         *d = -y;
///     }
/// });
/// let mut y = vec![1.0; 1000];
/// let mut rk4 = Stepper::new(Rk4);
/// for i in 0..10 {
///     rk4.step(&mut y, &decay, i as f64 * 0.1, 0.1)?;
/// }
/// assert!(y.iter().all(|y| (y - (-1.0_f64).exp()).abs() < 1e-6));
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct InPlace<F>(pub F);

impl<S: State, F: Fn(&S, S::Scalar, &mut S::Force)> Forces<S> for InPlace<F> {
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        let mut out = state.zero_force();
        (self.0)(state, t, &mut out);
        out
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        (self.0)(state, t, out);
    }
}

/// Forces of positions and time alone, declared so: they never read the state's momenta or
/// velocities (springs, gravity, any potential), so methods may skip computing momenta for
/// them ([`Forces::reads_momenta`] is `false`). Everything else is `F`'s.
///
/// # Example
///
/// A chain of two springs whose force reads positions only, stepped by velocity Verlet:
/// the same step as without the declaration, with one pass over the state fewer.
///
/// ```
/// use timestep::{InPlace, Integrator, Particles, Positional, Stepper, Verlet};
///
/// let springs = InPlace(|bodies: &Particles<f64>, _t: f64, forces: &mut Vec<f64>| {
///     let x = bodies.positions();
///     forces[0] = -x[0] + (x[1] - x[0]);
///     forces[1] = -(x[1] - x[0]);
/// });
/// let start = Particles::new(vec![1.0, 2.0], vec![0.5, 1.0], vec![0.0, 0.0]);
/// let (mut declared, mut plain) = (start.clone(), start);
/// let (mut a, mut b) = (Stepper::new(Verlet), Stepper::new(Verlet));
/// for i in 0..100 {
///     a.step(&mut declared, &Positional(springs), i as f64 * 0.01, 0.01)?;
///     b.step(&mut plain, &springs, i as f64 * 0.01, 0.01)?;
/// }
/// assert_eq!(declared, plain);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Positional<F>(pub F);

impl<S: State, F: Forces<S>> Forces<S> for Positional<F> {
    #[inline(always)]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self.0.force(state, t)
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        self.0.force_into(state, t, out);
    }

    #[inline]
    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        self.0.jacobian(state, t, jacobian)
    }

    #[inline]
    fn jacobian_times(
        &self,
        state: &S,
        t: S::Scalar,
        v: &DerivativeOf<S>,
        out: &mut DerivativeOf<S>,
    ) -> bool {
        self.0.jacobian_times(state, t, v, out)
    }

    #[inline]
    fn precondition(
        &self,
        state: &S,
        t: S::Scalar,
        gamma: S::Scalar,
        r: &DerivativeOf<S>,
        z: &mut DerivativeOf<S>,
    ) -> bool {
        self.0.precondition(state, t, gamma, r, z)
    }

    #[inline]
    fn mass_matrix(&self, mass: &mut Jacobian<'_, S::Scalar>) -> bool {
        self.0.mass_matrix(mass)
    }

    #[inline]
    fn linear_part(&self, state: &S, t: S::Scalar, diagonal: &mut DerivativeOf<S>) -> bool {
        self.0.linear_part(state, t, diagonal)
    }

    #[cfg(feature = "sparse")]
    #[inline]
    fn jacobian_pattern(&self, state: &S, pattern: &mut crate::Pattern) -> bool {
        self.0.jacobian_pattern(state, pattern)
    }

    #[inline(always)]
    fn reads_momenta(&self) -> bool {
        false
    }
}
