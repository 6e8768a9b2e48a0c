//! The classic explicit Runge–Kutta methods, each its tableau: explicit Euler, midpoint,
//! improved Euler (Heun) and RK4.

use super::{Tableau, explicit_rk};

/// Explicit (forward) Euler: `y(t + dt) = y(t) + f(t, y(t)) · dt`.
///
/// Positions advance with the velocity at the start of the step, momenta with the force at
/// the start of the step.
///
/// - **Order** 1: the global error shrinks linearly with `dt`.
/// - **Stability**: on an undamped oscillator the one-step map has spectral radius
///   `√(1 + ω² dt²) > 1` for every `dt`: it gains energy, always. Damping `b` makes it stable
///   only while `b/m` outweighs `ω² dt`.
/// - **Cost**: one force evaluation per step.
///
/// Use it to learn from, or for forces that do not depend on position or velocity (there it
/// is exact for velocity). For anything that oscillates, prefer [`SemiImplicitEuler`](crate::SemiImplicitEuler).
///
/// # Example
///
/// The first article's experiment: 1 kg, 10 N, `dt = 1` s for 10 s lands at 450 m, not 500.
///
/// ```
/// use timestep::{ExplicitEuler, Integrator, Particle};
///
/// let mut car = Particle::new(1.0_f32, 0.0, 0.0);
/// let push = |_: &Particle<f32>, _t: f32| 10.0;
/// for i in 0..10 {
///     ExplicitEuler.step(&mut car, &push, i as f32, 1.0)?;
/// }
/// assert_eq!((car.position(), car.velocity()), (450.0, 100.0));
/// # use timestep::State;
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExplicitEuler;

/// The explicit midpoint method: an Euler half step finds the slope at the middle of the
/// interval, which then carries the state across the whole step.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt/2, y + k₁ dt/2)
/// y(t + dt) = y + k₂ dt
/// ```
///
/// - **Order** 2.
/// - **Stability**: on an undamped oscillator the spectral radius is `√(1 + (ω dt)⁴/4) > 1`:
///   it gains energy for every `dt`, though far more slowly than explicit Euler.
/// - **Cost**: two force evaluations per step.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Midpoint};
///
/// // y' = -y from y = 1: one step of 0.1 gives 1 - 0.1 + 0.005.
/// let mut y = 1.0_f64;
/// Midpoint.step(&mut y, &|y: &f64, _t: f64| -y, 0.0, 0.1)?;
/// assert!((y - 0.905).abs() < 1e-15);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Midpoint;

/// Improved Euler (Heun's method): average the slope at the start with the slope at an
/// Euler prediction of the end.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt, y + k₁ dt)
/// y(t + dt) = y + (k₁ + k₂) dt/2
/// ```
///
/// - **Order** 2.
/// - **Stability**: the same as [`Midpoint`] on an oscillator (the two share their
///   stability function `1 + z + z²/2`): spectral radius `√(1 + (ω dt)⁴/4) > 1`.
/// - **Cost**: two force evaluations per step.
///
/// # Example
///
/// ```
/// use timestep::{ImprovedEuler, Integrator};
///
/// // y' = t integrates exactly: the trapezoid rule is exact for a linear slope.
/// let mut y = 0.0_f64;
/// ImprovedEuler.step(&mut y, &|_: &f64, t: f64| t, 0.0, 2.0)?;
/// assert_eq!(y, 2.0);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ImprovedEuler;

/// The classic fourth-order Runge–Kutta method.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt/2, y + k₁ dt/2)
/// k₃ = f(t + dt/2, y + k₂ dt/2)
/// k₄ = f(t + dt, y + k₃ dt)
/// y(t + dt) = y + (k₁ + 2k₂ + 2k₃ + k₄) dt/6
/// ```
///
/// - **Order** 4.
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2√2`, i.e.
///   `k ≤ 8 m / dt²`, but below that bound it loses energy every step (spectral radius
///   `< 1`): the amplitude decays, while the phase stays accurate.
/// - **Cost**: four force evaluations per step.
///
/// The method for accuracy: research, reference solutions, smooth forces.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Rk4};
///
/// let mut y = 1.0_f64;
/// for i in 0..10 {
///     Rk4.step(&mut y, &|y: &f64, _t: f64| -y, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-6);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rk4;

impl ExplicitEuler {
    /// `y(t + dt) = y + dt f(t, y)`: one stage, weight 1.
    pub const TABLEAU: Tableau<1> = Tableau {
        name: "explicit-euler",
        order: 1,
        a: [[0.0]],
        b: [1.0],
        c: [0.0],
    };
}
explicit_rk!(ExplicitEuler, 1);

impl Midpoint {
    /// Runge's midpoint rule (C. Runge, "Über die numerische Auflösung von
    /// Differentialgleichungen", Math. Ann. 46 (1895) 167–178).
    pub const TABLEAU: Tableau<2> = Tableau {
        name: "midpoint",
        order: 2,
        a: [[0.0, 0.0], [0.5, 0.0]],
        b: [0.0, 1.0],
        c: [0.0, 0.5],
    };
}
explicit_rk!(Midpoint, 2);

impl ImprovedEuler {
    /// Heun's method (K. Heun, "Neue Methode zur approximativen Integration der
    /// Differentialgleichungen einer unabhängigen Veränderlichen", Z. Math. Phys. 45 (1900)
    /// 23–38): the trapezoid rule on an Euler prediction.
    pub const TABLEAU: Tableau<2> = Tableau {
        name: "improved-euler",
        order: 2,
        a: [[0.0, 0.0], [1.0, 0.0]],
        b: [0.5, 0.5],
        c: [0.0, 1.0],
    };
}
explicit_rk!(ImprovedEuler, 2);

impl Rk4 {
    /// Kutta's classic fourth-order method (W. Kutta, "Beitrag zur näherungsweisen
    /// Integration totaler Differentialgleichungen", Z. Math. Phys. 46 (1901) 435–453).
    pub const TABLEAU: Tableau<4> = Tableau {
        name: "rk4",
        order: 4,
        a: [
            [0.0, 0.0, 0.0, 0.0],
            [0.5, 0.0, 0.0, 0.0],
            [0.0, 0.5, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ],
        b: [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
        c: [0.0, 0.5, 0.5, 1.0],
    };
}
explicit_rk!(Rk4, 4);
