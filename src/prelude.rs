//! What every program needs, in one `use`: `use timestep::prelude::*;`.
//!
//! The traits whose methods you call ([`Integrator`] for `step`, [`State`] for
//! `velocity`, `drift` and `kick`, [`Interpolate`] for drawing between steps,
//! [`Forces`] and [`SmallVector`] for writing your own dynamics and states), the states
//! ([`Particle`], [`RigidBody`], [`DRigidBody`] and their [`Inertia`]), every method
//! ([`ExplicitEuler`], [`SemiImplicitEuler`], [`Midpoint`], [`ImprovedEuler`], [`Rk4`],
//! [`Verlet`], [`PositionVerlet`], [`BackwardEuler`], [`Dopri5`], [`Bs3`], and [`Method`]
//! and [`MethodKind`] to pick one by name, [`Scheme`] for their properties), what large
//! states need ([`Particles`], [`Vector`], [`InPlace`] forces, a [`Stepper`] to keep a
//! workspace), the drivers ([`Trajectory`], [`FixedTimestep`]), the error a step can
//! return ([`StepError`]), and what an adaptive solve needs ([`solve`], [`Adaptive`],
//! [`AdaptiveKind`], [`Tolerances`], [`Solution`], [`Statistics`]).
//!
//! Nothing else is in it, so it does not shadow names of your own; glam's types are not
//! in it either (use [`timestep::glam`](crate::glam) or your engine's).
//!
//! # Example
//!
//! A ball thrown at 45°, and a spinning box, stepped with nothing but the prelude:
//!
//! ```
//! use timestep::glam::{DVec3, Vec3};
//! use timestep::prelude::*;
//!
//! let gravity = |p: &Particle<Vec3>, _t: f32| Vec3::new(0.0, -9.81, 0.0) * p.mass();
//! let mut ball = Particle::new(0.5, Vec3::ZERO, Vec3::new(5.0, 5.0, 0.0));
//! for mut method in Method::<Particle<Vec3>>::all() {
//!     let mut copy = ball;
//!     method.step(&mut copy, &gravity, 0.0, 0.01)?;
//!     assert!(copy.velocity().y < 5.0, "{method}");
//! }
//! Verlet.step(&mut ball, &gravity, 0.0, 0.01)?;
//! // Verlet is exact under a constant force: y = v₀t − ½gt².
//! assert!((ball.position().y - (0.05 - 0.5 * 9.81e-4)).abs() < 1e-6);
//!
//! let mut block = DRigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 0.5, 0.25));
//! block.set_angular_velocity(DVec3::new(0.0, 0.0, 3.0));
//! let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
//! let before = block;
//! Rk4.step(&mut block, &free, 0.0, 0.1)?;
//! // About its z axis, a principal axis: it turns at a steady 3 rad/s.
//! let shown = before.interpolate(&block, 0.5);
//! assert!((shown.orientation().angle_between(before.orientation()) - 0.15).abs() < 1e-6);
//! # Ok::<(), StepError>(())
//! ```

#[cfg(feature = "alloc")]
pub use crate::Particles;
pub use crate::rigid::{DRigidBody, Inertia, RigidBody};
pub use crate::{
    Adaptive, AdaptiveKind, BackwardEuler, Bs3, Dopri5, ExplicitEuler, FixedTimestep, Forces,
    ImplicitSettings, ImprovedEuler, InPlace, Integrator, Interpolate, InterpolateMotion, Method,
    MethodKind, Midpoint, Particle, PositionVerlet, Positional, Rk4, Scheme, SemiImplicitEuler,
    SmallVector, State, Statistics, StepError, Stepper, Tolerances, Trajectory, Vector, Verlet,
};
#[cfg(feature = "alloc")]
pub use crate::{Solution, solve};
