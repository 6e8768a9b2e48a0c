//! [`State`], [`Derivative`] and [`Forces`]: the model every integrator works on.

use crate::{Jacobian, NoVelocity, Scalar, VectorSpace};

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
/// Every [`VectorSpace`] is a `State` too: a first-order system `y' = f(t, y)` whose whole
/// value is "momentum" and whose velocity is [`NoVelocity`]. Its force is `f(t, y)`.
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
pub trait State: Clone {
    /// The floating-point type the state is made of.
    type Scalar: Scalar;

    /// The rate of the positions.
    type Velocity: VectorSpace<Scalar = Self::Scalar>;

    /// The rate of the momenta.
    type Force: VectorSpace<Scalar = Self::Scalar>;

    /// The current rate of the positions (a secondary quantity, never stale).
    fn velocity(&self) -> Self::Velocity;

    /// Advances the positions by `velocity · dt`, then restores the state's invariants.
    fn drift(&mut self, velocity: Self::Velocity, dt: Self::Scalar);

    /// Advances the momenta by `force · dt`, then restores the state's invariants.
    fn kick(&mut self, force: Self::Force, dt: Self::Scalar);

    /// Advances positions and momenta together by `rate · dt`: what Runge–Kutta stages do.
    ///
    /// The default drifts, then kicks. Override it when restoring invariants is costly
    /// and can be done once for both.
    #[inline]
    fn advance(&mut self, rate: &Derivative<Self::Velocity, Self::Force>, dt: Self::Scalar) {
        self.drift(rate.velocity, dt);
        self.kick(rate.force, dt);
    }

    /// The state advanced by `rate · dt` for one Runge–Kutta stage: a temporary whose
    /// [`derivative`](State::derivative) is taken and which is then dropped.
    ///
    /// The default clones the state and [`advance`](State::advance)s the clone. Override it
    /// when a probe's invariants can be restored along a shorter chain of dependent
    /// operations, with a result equal to `advance`'s in exact arithmetic (it may differ by
    /// rounding, since the probe never becomes the state). A single body is stepped at the
    /// speed of that chain: [`Particle`](crate::Particle)'s probe velocity is
    /// `v + F · (dt/m)`, one multiplication after the force, where recalculating it as
    /// `(p + F·dt) / m` takes two, which makes RK4 on a spring 12–15% faster.
    ///
    /// ```
    /// use timestep::{Derivative, Particle, State};
    ///
    /// let particle = Particle::new(2.0, 1.0, 3.0);
    /// let probe = particle.probe(&Derivative::new(3.0, -4.0), 0.5);
    /// assert_eq!(probe.position(), 2.5);
    /// assert_eq!(probe.momentum(), 4.0);
    /// assert_eq!(probe.velocity(), 2.0);
    /// ```
    // Always inlined, as the stage sampling that calls it: left out of line for a rigid
    // body, the probe went through memory and RK4 ran 25% slower than by hand.
    #[inline(always)]
    fn probe(&self, rate: &Derivative<Self::Velocity, Self::Force>, dt: Self::Scalar) -> Self {
        let mut probe = self.clone();
        probe.advance(rate, dt);
        probe
    }

    /// The rate of the whole state at time `t`: its velocity and the force `forces` gives.
    #[inline]
    fn derivative<F: Forces<Self> + ?Sized>(
        &self,
        forces: &F,
        t: Self::Scalar,
    ) -> Derivative<Self::Velocity, Self::Force> {
        Derivative {
            velocity: self.velocity(),
            force: forces.force(self, t),
        }
    }
}

/// A first-order system `y' = f(t, y)`: the value is all momentum, and `kick` adds `f · dt`.
impl<V: VectorSpace> State for V {
    type Scalar = V::Scalar;
    type Velocity = NoVelocity<V::Scalar>;
    type Force = V;

    #[inline]
    fn velocity(&self) -> Self::Velocity {
        NoVelocity::zero()
    }

    #[inline]
    fn drift(&mut self, _: Self::Velocity, _: V::Scalar) {}

    #[inline]
    fn kick(&mut self, rate: V, dt: V::Scalar) {
        *self = self.add_scaled(rate, dt);
    }
}

/// The rate of a whole state: the velocity of its positions and the force on its momenta.
///
/// It is a [`VectorSpace`] (velocity coordinates first, then force coordinates), which is
/// all Runge–Kutta methods need to combine samples.
///
/// # Example
///
/// ```
/// use timestep::{Derivative, VectorSpace};
///
/// let a = Derivative::new(1.0_f64, -2.0);
/// let b = Derivative::new(3.0_f64, 4.0);
/// assert_eq!(a.add_scaled(b, 0.5), Derivative::new(2.5, 0.0));
/// assert_eq!(Derivative::<f64, f64>::DIM, 2);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Derivative<V, F> {
    /// The rate of the positions.
    pub velocity: V,
    /// The rate of the momenta.
    pub force: F,
}

impl<V, F> Derivative<V, F> {
    /// Pairs a velocity with a force.
    pub const fn new(velocity: V, force: F) -> Self {
        Derivative { velocity, force }
    }
}

/// The [`Derivative`] type of a state `S`.
pub type DerivativeOf<S> = Derivative<<S as State>::Velocity, <S as State>::Force>;

impl<S: Scalar, V: VectorSpace<Scalar = S>, F: VectorSpace<Scalar = S>> VectorSpace
    for Derivative<V, F>
{
    type Scalar = S;
    const DIM: usize = V::DIM + F::DIM;

    #[inline]
    fn zero() -> Self {
        Derivative::new(V::zero(), F::zero())
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        Derivative::new(
            self.velocity.add(other.velocity),
            self.force.add(other.force),
        )
    }
    #[inline]
    fn scale(self, factor: S) -> Self {
        Derivative::new(self.velocity.scale(factor), self.force.scale(factor))
    }
    #[inline]
    fn add_scaled(self, other: Self, factor: S) -> Self {
        Derivative::new(
            self.velocity.add_scaled(other.velocity, factor),
            self.force.add_scaled(other.force, factor),
        )
    }
    fn component(&self, index: usize) -> S {
        (self.velocity, self.force).component(index)
    }
    fn set_component(&mut self, index: usize, value: S) {
        let mut pair = (self.velocity, self.force);
        pair.set_component(index, value);
        (self.velocity, self.force) = pair;
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
    fn force(&self, state: &S, t: S::Scalar) -> S::Force;

    /// Writes the Jacobian `∂f/∂y` of the state's derivative at (`state`, `t`) into
    /// `jacobian` and returns `true`, or returns `false` (the default) to let
    /// [`BackwardEuler`](crate::BackwardEuler) estimate it by finite differences.
    ///
    /// Rows and columns follow the coordinates of [`Derivative`]: first the velocity
    /// coordinates (rows: rates of the positions; columns: the positions), then the force
    /// coordinates (rows: rates of the momenta; columns: the momenta). See
    /// [`WithJacobian`](crate::WithJacobian) to give a closure one.
    #[inline]
    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        let _ = (state, t, jacobian);
        false
    }
}

impl<S: State, F: Fn(&S, S::Scalar) -> S::Force> Forces<S> for F {
    #[inline]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self(state, t)
    }
}
