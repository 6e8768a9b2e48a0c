//! Rigid bodies: position and momentum, orientation and angular momentum, stepped by every
//! integrator in the crate.
//!
//! A [`RigidBody`] (`f32`) or [`DRigidBody`] (`f64`) is a [`State`](crate::State): its
//! velocity is (linear velocity, spin `dq/dt = ½ ω q`) and its force is (force, torque),
//! so a forces callback `|body: &DRigidBody, t: f64| -> (DVec3, DVec3)` works with every
//! [`Integrator`](crate::Integrator). After every change of a primary quantity (position,
//! momentum, orientation, angular momentum) the body recalculates its secondary ones
//! (velocity, angular velocity, spin, rotation, world inverse inertia), so they are never
//! stale. Its constant [`Inertia`] is checked when it is made.
//!
//! - [`Body`]: the state, behind the names [`RigidBody`] and [`DRigidBody`].
//! - [`Inertia`]: the body-frame inertia tensor (cube, box, sphere, cylinder, any
//!   symmetric tensor), its inverse and principal axes; [`InertiaError`] says why one
//!   was refused.
//! - Points: [`Body::force_at_point`] (force and torque `(p − x) × F`),
//!   [`Body::velocity_at_point`] (`v + ω × (p − x)`), and body ↔ world conversions.
//! - [`OrientationUpdate`]: the article's `q + ½ ω q dt` renormalized, or the exponential
//!   map `exp(½ ω dt) q`.
//! - [`Precision`] and the glam operation traits [`Vector3`], [`Quaternion`],
//!   [`Matrix3`], [`Matrix4`]: how one implementation serves both precisions, and how to
//!   write forces generic over it.
//!
//! # Example
//!
//! A box pushed off-centre: the push both moves and turns it.
//!
//! ```
//! use timestep::rigid::{DRigidBody, Inertia};
//! use timestep::{Integrator, SemiImplicitEuler};
//! use glam::DVec3;
//!
//! let mut crate_box = DRigidBody::new(10.0, Inertia::cuboid(10.0, 1.0, 1.0, 1.0));
//! let push = |body: &DRigidBody, t: f64| {
//!     let corner = body.to_world_point(DVec3::new(0.5, 0.5, 0.0));
//!     let force = if t < 0.5 { DVec3::new(0.0, 0.0, 20.0) } else { DVec3::ZERO };
//!     body.force_at_point(force, corner)
//! };
//! let dt = 1.0 / 60.0;
//! for i in 0..60 {
//!     SemiImplicitEuler.step(&mut crate_box, &push, i as f64 * dt, dt)?;
//! }
//! assert!(crate_box.velocity().z > 0.9); // 20 N · 0.5 s / 10 kg = 1 m/s
//! assert!(crate_box.angular_velocity().length() > 0.1);
//! # Ok::<(), timestep::StepError>(())
//! ```

mod body;
mod eigen;
mod inertia;
mod points;
mod precision;

pub use body::{Body, BodyError, DRigidBody, OrientationUpdate, RigidBody};
pub use inertia::{Inertia, InertiaError};
pub use precision::{Matrix3, Matrix4, Precision, Quaternion, Vector3};
