//! Integrators for equations of motion: point masses, rigid bodies and any first-order
//! system `y' = f(t, y)`, stepped by the methods game physics and physics research use.
//!
//! # Quick start
//!
//! A 1 kg mass on a spring (k = 15 N/m), released at 1 m, stepped at 100 Hz for one second
//! with semi-implicit Euler and compared with the exact solution `x = cos(√15 t)`:
//!
//! ```
//! use timestep::{Integrator, Particle, SemiImplicitEuler};
//!
//! let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position();
//! let mut mass = Particle::new(1.0, 1.0, 0.0);
//! let dt = 0.01;
//! for i in 0..100 {
//!     SemiImplicitEuler.step(&mut mass, &spring, i as f64 * dt, dt)?;
//! }
//! assert!((mass.position() - 15.0_f64.sqrt().cos()).abs() < 0.02);
//! # Ok::<(), timestep::StepError>(())
//! ```
//!
//! # The model
//!
//! - [`VectorSpace`]: what integrators add and scale: `f32`, `f64`, glam vectors and
//!   quaternions, arrays, tuples, and your own types.
//! - [`State`]: a physical state that knows its velocity, can **drift** (positions along a
//!   velocity) and **kick** (momenta along a force), and restores its own invariants after
//!   each. [`Particle`] is one; every `VectorSpace` is one too, as a first-order system.
//! - [`Derivative`]: the rate of a whole state, (velocity, force).
//! - [`Forces`]: your dynamics, the force on a state at time `t`. Closures implement it.
//! - [`Integrator`]: `step(&mut state, &forces, t, dt)`. Every method is a type that
//!   implements it, and [`Method`] picks one by name at run time.
//! - [`Trajectory`]: steps from `t0` to `t1`, yielding every sample.
//! - [`rigid`]: rigid bodies ([`rigid::RigidBody`], [`rigid::DRigidBody`]) with their
//!   [`rigid::Inertia`], forces at points, and a splitting integrator for free rotation.
//!
//! # Methods
//!
//! | method | order | oscillator stable for | symplectic | forces per step |
//! |---|---|---|---|---|
//! | [`ExplicitEuler`] | 1 | never (gains energy) | no | 1 |
//! | [`SemiImplicitEuler`] | 1 | `ω dt ≤ 2` | yes | 1 |
//! | [`Midpoint`] | 2 | never (gains energy slowly) | no | 2 |
//! | [`ImprovedEuler`] | 2 | never (gains energy slowly) | no | 2 |
//! | [`Rk4`] | 4 | `ω dt ≤ 2√2` (loses energy) | no | 4 |
//! | [`Verlet`] | 2 | `ω dt ≤ 2` | yes | 2 |
//! | [`PositionVerlet`] | 2 | `ω dt ≤ 2` | yes | 2 |
//! | [`BackwardEuler`] | 1 | always (loses energy) | no | 1 + n per Newton iteration |
//!
//! For games, [`SemiImplicitEuler`]: cheap, stable up to `ω dt = 2`, and its energy stays
//! bounded. For accuracy on smooth problems, [`Rk4`]. For long conservative runs (orbits,
//! molecular dynamics), [`Verlet`]. For stiff springs at a fixed frame rate,
//! [`BackwardEuler`].
//!
//! # Conventions
//!
//! SI units, radians, right-handed coordinates. Time `t` and step `dt` have the state's
//! precision. `dt = 0` leaves a state untouched, a negative `dt` integrates backwards, and a
//! non-finite `t` or `dt` is refused with [`StepError::NonFiniteTime`]. Masses must be
//! finite and positive ([`MassError`]).
//!
//! # Features
//!
//! - `std` (default): floating-point functions from the standard library.
//! - `libm`: floating-point functions from `libm`, for `no_std` targets.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

#[cfg(not(any(feature = "std", feature = "libm")))]
compile_error!("timestep needs the `std` feature or, on no_std targets, the `libm` feature");

pub mod analytic;
mod error;
mod integrators;
mod particle;
pub mod rigid;
mod scalar;
mod state;
mod trajectory;
mod vector_space;

pub use error::{MassError, StepError};
pub use integrators::{
    BackwardEuler, ExplicitEuler, ImprovedEuler, Integrator, Jacobian, Method, Midpoint,
    ParseMethodError, PositionVerlet, Rk4, SemiImplicitEuler, Verlet, WithJacobian,
};
pub use particle::Particle;
pub use scalar::Scalar;
pub use state::{Derivative, DerivativeOf, Forces, State};
pub use trajectory::Trajectory;
pub use vector_space::{NoVelocity, VectorSpace};
