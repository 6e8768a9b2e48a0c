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
//! - [`Splitting`]: kick, exact free rotation about the principal axes, kick; the energy
//!   of free rotation stays bounded and `|L|` exact.
//! - Drawing and saving: [`Interpolate`](crate::Interpolate) blends two states of a body
//!   for rendering between the steps of a [`FixedTimestep`](crate::FixedTimestep); with
//!   the `serde` feature, bodies, [`Inertia`], [`OrientationUpdate`] and [`Splitting`]
//!   serialize, and are checked again on the way in.
//! - [`Precision`] and the glam operation traits [`Vector3`], [`Quaternion`],
//!   [`Matrix3`], [`Matrix4`]: how one implementation serves both precisions, and how to
//!   write forces generic over it.
//!
//! # Which method when
//!
//! A torque-free asymmetric body, `I = diag(1, 2, 3)` spun at `ω = (0.001, 2, 0.001)`
//! about its intermediate axis, in `f64` at 60 Hz for 60 s, with the additive orientation
//! update. In that minute the body turns over 4 times, every 14.97 s (the elliptic-integral
//! period of the Euler–Poinsot solution). "Energy" is the largest relative error of the
//! kinetic energy along the run, "|L|" the largest relative change of `|L|`
//! (`tests/timestep/rigid/free_body.rs` measures them):
//!
//! | method | energy | \|L\| | flips | force evaluations per step |
//! |---|---|---|---|---|
//! | [`ExplicitEuler`](crate::ExplicitEuler) | +83 % | 0 | 26 | 1 |
//! | [`SemiImplicitEuler`](crate::SemiImplicitEuler) | +83 % | 0 | 26 | 1 |
//! | [`Midpoint`](crate::Midpoint) | 4.0·10⁻⁵ | 0 | 5 | 2 |
//! | [`ImprovedEuler`](crate::ImprovedEuler) | 8.8·10⁻⁵ | 0 | 5 | 2 |
//! | [`Rk4`](crate::Rk4) | 5.1·10⁻⁹ | 0 | 4 | 4 |
//! | [`Verlet`](crate::Verlet) | +83 % | 0 | 26 | 2 |
//! | [`PositionVerlet`](crate::PositionVerlet) | 2.6·10⁻⁵ | 0 | 5 | 2 |
//! | [`BackwardEuler`](crate::BackwardEuler) | −31 % | 0 | 19 | 1 + 14 per Newton iteration |
//! | [`Trapezoid`](crate::Trapezoid), [`ImplicitMidpoint`](crate::ImplicitMidpoint), [`Newmark`](crate::Newmark) | 4.6·10⁻⁵, bounded | 0 | 4 | 1 + 14 per Newton iteration |
//! | [`Splitting`] | 7.7·10⁻⁶, bounded | 0 | 4 | 2 |
//! | [`Splitting::ORDER4`] (`splitting4`) | 1.1·10⁻¹⁰, bounded | 0 | 4 | 6 |
//! | [`Splitting::ORDER6`] (`splitting6`) | 1.5·10⁻¹³, bounded | 0 | 4 | 8 |
//! | [`AdamsBashforthMoulton`](crate::AdamsBashforthMoulton) | 8.9·10⁻⁸ | 0 | 4 | 2 |
//! | [`Beeman`](crate::Beeman), [`ExponentialEuler`](crate::ExponentialEuler) | +83 % | 0 | 26 | 1 |
//! | [`PredictorCorrector`](crate::PredictorCorrector) | −31 % | 0 | 19 | 2 |
//! | [`Leapfrog`](crate::Leapfrog) | +41 % | 0 | 20 | 1 |
//! | [`Composition`](crate::Composition)s of [`Verlet`](crate::Verlet): `forest-ruth` … `kahan-li8` | +21 % (`blanes-moan4`) to +100 % | 0 | 16 to 65 | 4 to 16 |
//!
//! The compositions of [`Verlet`](crate::Verlet) gain nothing here: a drift along the spin
//! is not the exact flow of the orientation, so their base step is not symmetric. Composed
//! from [`Splitting`] instead ([`Splitting::ORDER4`], [`Splitting::ORDER6`]), the free
//! rotation reaches 4th and 6th order: their flips land within 2·10⁻⁷ s of the closed
//! form (first at 8.0532570 s, then every 14.9659951 s).
//!
//! `|L|` never changes, for any method: `L` changes only in kicks, and a kick by a zero
//! torque adds nothing. Without torque the kicks of explicit Euler, semi-implicit Euler and
//! Verlet do nothing either, and all three turn the orientation by the spin at the start of
//! the drift (Euler's method on `q`): they gain energy fast and the body turns over far too
//! often. The exponential orientation update changes none of this for them; it costs
//! [`Rk4`](crate::Rk4) its fourth order in the orientation (5.4·10⁻⁶ on this test; see
//! [`OrientationUpdate::Exponential`]).
//!
//! - **Games**: [`SemiImplicitEuler`](crate::SemiImplicitEuler) is cheap and stable for
//!   linear motion and for bodies with (nearly) equal moments, such as a cube or a sphere,
//!   but it drifts on asymmetric bodies spinning freely; use [`Splitting`] for those.
//! - **Accuracy** under smooth forces and torques: [`Rk4`](crate::Rk4), with the additive
//!   orientation update (fourth order in the orientation too).
//! - **Long free rotation** (debris, satellites, molecules): [`Splitting`]: the energy error
//!   stays bounded for ever and the angular momentum is exact; [`Splitting::ORDER4`] or
//!   [`Splitting::ORDER6`] when its 10⁻⁵ is not small enough.
//! - **Stiff forces** (hard springs) at a fixed frame rate:
//!   [`BackwardEuler`](crate::BackwardEuler); it damps rotation too.
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
mod splitting;

pub use body::{Body, BodyError, DRigidBody, OrientationUpdate, RigidBody};
pub use inertia::{Inertia, InertiaError};
pub use precision::{Matrix3, Matrix4, Precision, Quaternion, Vector3};
pub use splitting::Splitting;
