//! Sensitivities: how a solution changes with its parameters and initial values, forward
//! ([`Forward`]: every derivative of the state, one more system per parameter) or by the
//! adjoint ([`Adjoint`]: the gradient of one scalar function of the solution, one backward
//! sweep for all parameters).
//!
//! A [`Model`] is a first-order system `y' = f(t, y, p)` with parameters `p`. The
//! sensitivity of the solution with respect to a parameter or an initial value `θᵢ`,
//! `sᵢ(t) = ∂y(t)/∂θᵢ`, solves the variational equation
//!
//! ```text
//! sᵢ' = J_y sᵢ + ∂f/∂θᵢ,    sᵢ(0) = ∂y(0)/∂θᵢ,
//! ```
//!
//! (`J_y = ∂f/∂y`; `∂f/∂θᵢ` is zero for an initial value, whose `sᵢ(0)` is a unit vector).
//! [`Forward`] integrates these alongside the state, as one [`Augmented`] state (`[V; K]`
//! by value for small states, [`Stacked`] in place for large ones), so that every method
//! steps them with no change: explicit and implicit, fixed-step ([`Method`](crate::Method))
//! and adaptive ([`Adaptive`](crate::Adaptive), [`solve`](crate::solve)). [`ErrorControl`]
//! says whether the error control measures the sensitivities. For the methods that need a
//! second-order state (the Nyström pairs), a [`Particle`](crate::Particle) of augmented
//! position and velocity blocks is the augmented state, the model its force of the position
//! ([`Forward::initial_particle`]).
//!
//! # Example
//!
//! A damped spring `x'' = −k x − b x'` (unit mass) from `x = 1` at rest, and how its
//! position at `t = 2` moves with `k` and `b`, against central differences of two solves:
//!
//! ```
//! use timestep::sensitivity::{Augmented, ErrorControl, Forward, Model, WithRespectTo};
//! use timestep::{Adaptive, Dopri5, Tolerances};
//!
//! struct Spring;
//! impl Model<[f64; 2]> for Spring {
//!     fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
//!         *out = [y[1], -p[0] * y[0] - p[1] * y[1]];
//!     }
//!     fn tangent(&self, y: &[f64; 2], p: &[f64], _t: f64, dy: &[f64; 2], dp: &[f64], out: &mut [f64; 2]) -> bool {
//!         *out = [dy[1], -p[0] * dy[0] - p[1] * dy[1] - dp[0] * y[0] - dp[1] * y[1]];
//!         true
//!     }
//! }
//!
//! let tolerances = Tolerances::new(1e-11, 1e-13);
//! let position = |k: f64, b: f64| -> Result<f64, Box<dyn std::error::Error>> {
//!     let forward = Forward::new(Spring, [k, b], [WithRespectTo::Parameter(0), WithRespectTo::Parameter(1)])?;
//!     let mut y: [[f64; 2]; 3] = forward.initial([1.0, 0.0])?;
//!     Adaptive::new(Dopri5).with_tolerances(tolerances).solve(&mut y, &forward, 0.0, 2.0)?;
//!     Ok(y.state()[0])
//! };
//!
//! let forward = Forward::new(Spring, [4.0, 0.5], [WithRespectTo::Parameter(0), WithRespectTo::Parameter(1)])?;
//! let mut y: [[f64; 2]; 3] = forward.initial([1.0, 0.0])?;
//! Adaptive::new(Dopri5)
//!     .with_component_tolerances(ErrorControl::All.tolerances(&y, tolerances))
//!     .solve(&mut y, &forward, 0.0, 2.0)?;
//! let (dx_dk, dx_db) = (y.sensitivity(0)[0], y.sensitivity(1)[0]);
//!
//! let h = 1e-5;
//! let by_k = (position(4.0 + h, 0.5)? - position(4.0 - h, 0.5)?) / (2.0 * h);
//! let by_b = (position(4.0, 0.5 + h)? - position(4.0, 0.5 - h)?) / (2.0 * h);
//! assert!((dx_dk - by_k).abs() < 1e-6 * by_k.abs());
//! assert!((dx_db - by_b).abs() < 1e-6 * by_b.abs());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "alloc")]
mod adjoint;
mod augmented;
mod error;
mod forward;
mod model;
mod second_order;
#[cfg(feature = "alloc")]
mod stacked;
#[cfg(feature = "alloc")]
mod tolerances;

#[cfg(feature = "alloc")]
pub use adjoint::{Adjoint, AdjointMethod, FixedAdjointMethod, Gradient};
pub use augmented::Augmented;
pub use error::SensitivityError;
pub use forward::{Forward, WithRespectTo};
pub use model::Model;
#[cfg(feature = "alloc")]
pub use stacked::Stacked;
#[cfg(feature = "alloc")]
pub use tolerances::ErrorControl;
