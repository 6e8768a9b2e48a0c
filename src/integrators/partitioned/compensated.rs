//! [`Compensated`]: a composition that adds each step to the state with compensated
//! summation, and [`AdditiveDrift`], the states it applies to.

use super::composition::{Composition, CompositionWorkspace, Moved, PlainDrift, Sequence};
use super::leapfrog::LEAPFROG;
use super::{Leapfrog, Verlet};
use crate::integrators::{Properties, Scheme, should_step};
use crate::{
    Coefficients, DerivativeOf, Forces, Integrator, Particle, SmallVector, State, StepError, Vector,
};
use num_traits::{One, Zero};

/// A [`State`] whose kicks and drifts add to its coordinates, which is what
/// [`Compensated`] needs to gather a step's increment apart from the state.
///
/// The contract, which the implementations here keep:
///
/// - [`coordinate`](State::coordinate) reads every coordinate
///   ([`has_coordinates`](State::has_coordinates) is `true`), each position where its
///   velocity goes and each momentum where its force goes;
/// - [`drift_by`](State::drift_by) adds `velocity · dt` to the positions,
///   [`kick_by`](State::kick_by) adds `force · dt` to the momenta, and
///   [`advance`](State::advance) by a rate with `dt = 1` sets each coordinate `yᵢ` to the
///   rounded sum `yᵢ + rateᵢ`, whatever it recalculates besides.
///
/// Implemented for [`Particle`], [`Particles`](crate::Particles) and every [`Vector`] (a
/// first-order system `y' = f(t, y)`). Not for rigid bodies: their drift turns the
/// orientation by the exponential of the spin, which no sum of increments gives.
///
/// ```
/// use timestep::{AdditiveDrift, Particle};
///
/// fn takes_additive<S: AdditiveDrift>(_: &S) {}
/// takes_additive(&Particle::new(1.0, 0.0, 1.0));
/// takes_additive(&vec![1.0_f64, 2.0]);
/// ```
///
/// A rigid body is refused at compile time:
///
/// ```compile_fail
/// use timestep::Composition;
/// use timestep::rigid::DRigidBody;
///
/// let kahan_li8 = Composition::KAHAN_LI8.compensated::<DRigidBody>();
/// ```
pub trait AdditiveDrift: State {}

impl<V: SmallVector> AdditiveDrift for Particle<V> {}
#[cfg(feature = "alloc")]
impl<V: SmallVector> AdditiveDrift for crate::Particles<V> {}
impl<V: Vector> AdditiveDrift for V {}

/// A [`Composition`] (or velocity [`Verlet`], or [`Leapfrog`]) whose steps are added to the
/// state with **compensated summation** (Kahan; Møller; Hairer–Lubich–Wanner, *Geometric
/// Numerical Integration*, 2nd ed. (2006), VIII.5 "Reducing round-off").
///
/// A plain step rounds every coordinate to the state's precision at every kick and drift,
/// and over many steps those roundings add up as a random walk: Kahan–Li 8 on Kepler's
/// problem (e = 0.9, `dt = 2π/6283`, about 10⁻³) has a largest energy error of 2.7·10⁻¹³
/// over its first ten periods and 5.6·10⁻¹² over 10⁴ periods. A compensated step gathers the
/// step's kicks and drifts in an increment `d` apart from the state, and adds it once,
/// keeping that one sum's rounding `c` for the next step:
///
/// ```text
/// d = c
/// for each kick and drift of the method:   d = d + (its change),
///     its force and velocity seen at the probe y + d
/// y_new = y + d  (rounded)
/// c = (y + d) − y_new  (exact, by TwoSum, coordinate by coordinate)
/// ```
///
/// so that `y + c` carries the trajectory to about twice the state's precision, and the
/// rounding each step leaves is that of the increment and of the forces (`ω dt` times
/// smaller than the state's), not of the state. On that Kepler orbit the largest energy
/// error over 10⁴ periods falls to 6.4·10⁻¹⁴, against 1.4·10⁻¹⁴ over the first ten (the
/// rounding of evaluating the energy at perihelion). At `dt = 10⁻³` exactly, where no step
/// lands where the last period's did, what is left walks further: 1.6·10⁻¹³ against
/// 5.0·10⁻¹² plain; see `BENCHMARKS.md`.
///
/// - **Order, stability, symplecticity**: the composition's: in exact arithmetic this is
///   the same method.
/// - **Cost**: per step, a probe of the state and a sum of the increment into it, plus a
///   TwoSum per coordinate; per kick or drift, an update of the increment beside that of
///   the probe. Kahan–Li 8 on Kepler: 1.3–1.4× the plain step's instructions (callgrind; see
///   `BENCHMARKS.md`).
/// - **States**: those whose kicks and drifts add to their coordinates ([`AdditiveDrift`]:
///   particles, [`Particles`](crate::Particles), first-order systems), enforced by the type
///   system; not rigid bodies.
/// - **Memory**: the composition's workspace plus the compensation, the increment and the
///   probe: three more copies of the state (five for a composition of Verlet; see
///   `tests/no_allocation.rs`). Nothing allocates after the first step, and nothing on the
///   stack grows with the state's size.
///
/// Like a [`Stepper`](crate::Stepper), it belongs to one trajectory: the compensation is
/// part of that trajectory's state (a replay from a saved state is bit for bit the same
/// only with the integrator saved beside it, `Clone`). After moving the state by hand or
/// resizing it, call [`reset`](Compensated::reset).
///
/// Pass each step's time as `t₀ + k·dt`, as [`Trajectory`](crate::Trajectory) does, rather
/// than accumulating `t += dt`, whose rounding grows in the same way (here it only
/// matters for forces that depend on time).
///
/// - `dt = 0`: nothing happens (the compensation is kept).
/// - `dt < 0`: integrates backwards, compensated too.
/// - `t` or `dt` not finite: [`StepError::NonFiniteTime`], state and compensation
///   untouched.
/// - forces that are not finite: carried into the state as by the plain method; the
///   compensation of a coordinate whose sum is not finite is 0 (TwoSum of an infinity is
///   `NaN`, which would otherwise spread into finite coordinates).
///
/// # Example
///
/// ```
/// use glam::DVec2;
/// use timestep::{Composition, Integrator, Particle};
///
/// // Kepler's problem, e = 0.5, ten periods of 500 steps each.
/// let gravity = |p: &Particle<DVec2>, _t: f64| -p.position() / p.position().length().powi(3);
/// let energy = |p: &Particle<DVec2>| {
///     0.5 * p.velocity().length_squared() - 1.0 / p.position().length()
/// };
/// let mut particle = Particle::new(1.0, DVec2::new(0.5, 0.0), DVec2::new(0.0, 3.0_f64.sqrt()));
/// let mut kahan_li8 = Composition::KAHAN_LI8.compensated();
/// let dt = std::f64::consts::TAU / 500.0;
/// for k in 0..5000 {
///     kahan_li8.step(&mut particle, &gravity, k as f64 * dt, dt)?;
/// }
/// assert!((energy(&particle) + 0.5).abs() < 1e-13);
/// # Ok::<(), timestep::StepError>(())
/// ```
pub struct Compensated<S: AdditiveDrift, B = Verlet> {
    composition: Composition<B>,
    workspace: Option<CompensatedWorkspace<S>>,
}

/// The buffers of a compensated step: the composition's, the compensation `c` carried from
/// one step to the next, the step's increment `d`, and the probe `y + d` where forces and
/// velocities are seen.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct CompensatedWorkspace<S: State> {
    composition: CompositionWorkspace<S>,
    compensation: DerivativeOf<S>,
    increment: DerivativeOf<S>,
    probe: S,
}

impl<S: State> CompensatedWorkspace<S> {
    fn new(state: &S, kick_first: bool) -> Self {
        let compensation = state.zero_rate();
        CompensatedWorkspace {
            composition: CompositionWorkspace::new(state, kick_first),
            increment: compensation.clone(),
            compensation,
            probe: state.clone(),
        }
    }
}

/// Velocity Verlet as a composition of one step.
static VERLET: Coefficients = Coefficients {
    name: "verlet",
    order: 2,
    sequence: Sequence::Composition(&[1.0]),
};

impl<B: PlainDrift> Composition<B> {
    /// This composition, compensated: see [`Compensated`].
    #[must_use]
    pub const fn compensated<S: AdditiveDrift>(self) -> Compensated<S, B> {
        Compensated::new(self)
    }
}

impl Verlet {
    /// Velocity Verlet, compensated: see [`Compensated`].
    ///
    /// ```
    /// use timestep::{Integrator, Verlet};
    ///
    /// // y' = −y as a first-order system: Verlet is improved Euler on it.
    /// let mut verlet = Verlet.compensated();
    /// let mut y = 1.0_f64;
    /// verlet.step(&mut y, &|y: &f64, _t: f64| -y, 0.0, 0.5)?;
    /// assert_eq!(y, 0.625);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[must_use]
    pub const fn compensated<S: AdditiveDrift>(self) -> Compensated<S, Verlet> {
        Compensated::new(Composition::new(self, &VERLET))
    }
}

impl Leapfrog {
    /// Leapfrog (drift–kick–drift), compensated: see [`Compensated`].
    ///
    /// ```
    /// use timestep::{Integrator, Leapfrog, Particle};
    ///
    /// let mut leapfrog = Leapfrog.compensated();
    /// let mut particle = Particle::new(1.0, 0.0, 1.0);
    /// leapfrog.step(&mut particle, &|_: &Particle<f64>, _t: f64| -2.0, 0.0, 1.0)?;
    /// assert_eq!((particle.position(), particle.velocity()), (0.0, -1.0));
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[must_use]
    pub const fn compensated<S: AdditiveDrift>(self) -> Compensated<S, Leapfrog> {
        Compensated::new(Composition::new(self, &LEAPFROG))
    }
}

impl<S: AdditiveDrift, B: PlainDrift> Compensated<S, B> {
    /// `composition`, compensated; the workspace is made on the first step.
    #[must_use]
    pub const fn new(composition: Composition<B>) -> Self {
        Compensated {
            composition,
            workspace: None,
        }
    }

    /// `composition`, compensated, with its workspace made now for states of the size of
    /// `template`, so that not even the first step allocates.
    #[must_use]
    pub fn for_state(composition: Composition<B>, template: &S) -> Self {
        let workspace = Some(new_workspace(&composition, template));
        Compensated {
            composition,
            workspace,
        }
    }

    /// The composition.
    pub const fn composition(&self) -> &Composition<B> {
        &self.composition
    }

    /// The composition's name, order and cost.
    pub fn properties(&self) -> Properties {
        self.composition.properties()
    }

    /// The compensation `c` the next step starts from, laid out as the state's rate (each
    /// position's where its velocity goes, each momentum's where its force goes): the state
    /// plus `c` is the trajectory to about twice the state's precision. `None` before the
    /// first step.
    ///
    /// ```
    /// use timestep::{Integrator, Vector, Verlet};
    ///
    /// // y' = 2⁻⁶⁰ from y = 1, 1024 steps of 1: each step's change is below half an ulp
    /// // of 1, so plain steps never move y; compensated ones keep every change.
    /// let rate = |_: &f64, _t: f64| 2f64.powi(-60);
    /// let (mut plain, mut compensated) = (1.0_f64, 1.0_f64);
    /// let mut verlet = Verlet.compensated();
    /// for k in 0..1024 {
    ///     Verlet.step(&mut plain, &rate, k as f64, 1.0)?;
    ///     verlet.step(&mut compensated, &rate, k as f64, 1.0)?;
    /// }
    /// assert_eq!(plain, 1.0);
    /// assert_eq!(compensated, 1.0 + 2f64.powi(-50));
    /// assert_eq!(verlet.compensation().unwrap().component(0), 0.0);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    pub fn compensation(&self) -> Option<&DerivativeOf<S>> {
        self.workspace.as_ref().map(|w| &w.compensation)
    }

    /// Forgets the workspace and the compensation: the next step starts from the state alone.
    pub fn reset(&mut self) {
        self.workspace = None;
    }
}

/// A workspace for `composition`, compensated, on states of the size of `state`.
fn new_workspace<S: State, B: PlainDrift>(
    composition: &Composition<B>,
    state: &S,
) -> CompensatedWorkspace<S> {
    let kick_first = matches!(
        composition.coefficients().sequence,
        Sequence::Composition(_)
    ) && B::KICK_FIRST;
    CompensatedWorkspace::new(state, kick_first)
}

impl<S: AdditiveDrift, B: PlainDrift> Integrator<S> for Compensated<S, B> {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let Compensated {
                composition: method,
                workspace,
            } = self;
            let CompensatedWorkspace {
                composition,
                compensation,
                increment,
                probe,
            } = workspace.get_or_insert_with(|| new_workspace(method, state));
            increment.assign(compensation);
            state.probe_into(increment, S::Scalar::one(), probe);
            method.run_on(
                composition,
                &mut Increment { probe, increment },
                forces,
                t,
                dt,
            );
            add_compensated(state, increment, compensation);
        }
        Ok(())
    }
}

/// The probe `y + d` moved by the kicks and drifts, with the increment `d` gathering them.
/// The probe rounds at its own scale, which only moves where forces are seen (by an ulp of
/// `y`, a change `ω dt` times smaller in the increment); `d` holds the changes.
struct Increment<'a, S: State> {
    probe: &'a mut S,
    increment: &'a mut DerivativeOf<S>,
}

impl<S: State> Moved<S> for Increment<'_, S> {
    #[inline(always)]
    fn at(&self) -> &S {
        self.probe
    }

    #[inline(always)]
    fn kick(&mut self, force: &S::Force, dt: S::Scalar) {
        self.probe.kick_by(force, dt);
        self.increment.force.add_scaled_assign(force, dt);
    }

    #[inline(always)]
    fn drift(&mut self, velocity: &mut S::Velocity, dt: S::Scalar) {
        self.probe.velocity_into(velocity);
        self.probe.drift_by(velocity, dt);
        self.increment.velocity.add_scaled_assign(velocity, dt);
    }
}

/// `state += increment`, keeping in `compensation` what each coordinate's sum rounded off
/// (TwoSum, exact for any two finite numbers: Fast2Sum would need `|yᵢ| ≥ |dᵢ|`, which a
/// coordinate crossing zero breaks).
#[inline(always)]
pub(crate) fn add_compensated<S: State>(
    state: &mut S,
    increment: &DerivativeOf<S>,
    compensation: &mut DerivativeOf<S>,
) {
    for i in 0..increment.dim() {
        let (y, d) = (state.coordinate(i), increment.component(i));
        let sum = y + d;
        let d_rounded = sum - y;
        let lost = (y - (sum - d_rounded)) + (d - d_rounded);
        let lost = if num_traits::Float::is_finite(lost) {
            lost
        } else {
            S::Scalar::zero()
        };
        compensation.set_component(i, lost);
    }
    state.advance(increment, S::Scalar::one());
}

impl<S: AdditiveDrift, B: Clone> Clone for Compensated<S, B> {
    fn clone(&self) -> Self {
        Compensated {
            composition: self.composition.clone(),
            workspace: self.workspace.clone(),
        }
    }
}

impl<S: AdditiveDrift, B: core::fmt::Debug> core::fmt::Debug for Compensated<S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Compensated")
            .field("composition", &self.composition)
            .field("has_workspace", &self.workspace.is_some())
            .finish()
    }
}
