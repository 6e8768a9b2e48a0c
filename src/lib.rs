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
//! A rigid body is stepped the same way. Its forces callback returns (force, torque);
//! [`force_at_point`](rigid::Body::force_at_point) turns a force at a point into both. A
//! 2 kg box, 1 m on a side, pushed sideways at a top corner for one step at 60 Hz, moves
//! and starts to turn:
//!
//! ```
//! use timestep::rigid::{DRigidBody, Inertia};
//! use timestep::{Integrator, SemiImplicitEuler};
//! use glam::DVec3;
//!
//! let mut block = DRigidBody::new(2.0, Inertia::cube(2.0, 1.0));
//! let push = |body: &DRigidBody, _t: f64| {
//!     let corner = body.to_world_point(DVec3::new(0.5, 0.5, 0.5));
//!     body.force_at_point(DVec3::new(12.0, 0.0, 0.0), corner)
//! };
//! SemiImplicitEuler.step(&mut block, &push, 0.0, 1.0 / 60.0)?;
//! // 12 N on 2 kg for 1/60 s: 0.1 m/s along x.
//! assert!((block.velocity() - DVec3::new(0.1, 0.0, 0.0)).length() < 1e-15);
//! // The torque (0.5, 0.5, 0.5) × (12, 0, 0) = (0, 6, −6) N·m turns it about y and −z.
//! let spin = block.angular_velocity();
//! assert!(spin.x.abs() < 1e-15 && spin.y > 0.0 && spin.z < 0.0);
//! # Ok::<(), timestep::StepError>(())
//! ```
//!
//! Three things to choose: the **state** ([`Particle`] of any dimension, a rigid body, a
//! plain number or array for `y' = f(t, y)`, or your own type), the **forces** (a closure
//! `|state, t| force` does), and the **method** (a unit struct such as
//! [`SemiImplicitEuler`], or [`Method`] parsed from a name at run time). Then call
//! `step(&mut state, &forces, t, dt)` as often as you like, or let a [`Trajectory`] do it.
//!
//! # In a game loop
//!
//! Physics wants a fixed `dt`; frames come when they come. [`FixedTimestep`] turns each
//! frame's time into a whole number of fixed steps, caps runaway frames, and gives the
//! fraction `α` of a step still waiting, so the frame can draw the state blended
//! ([`Interpolate`]) between the last two physics states:
//!
//! ```
//! use timestep::{FixedTimestep, Interpolate, Particle, SemiImplicitEuler};
//! use glam::Vec3;
//!
//! let gravity = |p: &Particle<Vec3>, _t: f32| Vec3::new(0.0, -9.81, 0.0) * p.mass();
//! let mut clock = FixedTimestep::new(1.0_f32 / 60.0);
//! let mut previous = Particle::new(0.5, Vec3::ZERO, Vec3::new(2.0, 8.0, 0.0));
//! let mut current = previous;
//!
//! for frame_time in [0.016, 0.021, 0.009, 0.030] {
//!     // The three lines of the loop:
//!     let frame = clock.advance(frame_time)?;
//!     frame.run(&mut SemiImplicitEuler, &mut previous, &mut current, &gravity)?;
//!     let shown = previous.interpolate(&current, frame.alpha());
//!
//!     assert!(shown.position().y >= previous.position().y.min(current.position().y));
//! }
//! assert_eq!(clock.steps_taken(), 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The physics does not depend on the frame rate: step `k` starts at `k · dt` whatever the
//! frames were, so the states are bit for bit those of a plain loop. See
//! `examples/fixed_timestep.rs` (`cargo run --example fixed_timestep`), which prints one
//! CSV row per frame of random length and checks exactly that.
//!
//! # The model
//!
//! - [`SmallVector`]: what integrators add and scale, by value: `f32`, `f64`, glam vectors
//!   and quaternions, arrays, tuples, and your own types. [`Vector`] is the same for
//!   values of any size, combined in place: every `SmallVector`, `Vec<V>`, `Box<[V]>`,
//!   nalgebra's `DVector`.
//! - [`State`]: a physical state that knows its velocity, can **drift** (positions along a
//!   velocity) and **kick** (momenta along a force), and restores its own invariants after
//!   each. [`Particle`] is one, [`Particles`] (many interacting bodies) another; every
//!   `Vector` is one too, as a first-order system.
//! - [`Derivative`]: the rate of a whole state, (velocity, force).
//! - [`Forces`]: your dynamics, the force on a state at time `t`. Closures implement it;
//!   [`InPlace`] wraps a closure that writes the force into a buffer instead.
//! - [`Integrator`]: `step(&mut state, &forces, t, dt)`. Every method is a [`Scheme`]
//!   (settings, a workspace, one step's algorithm, and its [`Properties`]); a
//!   [`Stepper`] keeps a method's workspace between steps; [`Method`] picks any method by
//!   name at run time. Explicit Runge–Kutta methods are a [`Tableau`] each; implicit
//!   ones share the [`linalg`] module.
//! - [`Trajectory`]: steps from `t0` to `t1`, yielding every sample.
//! - [`batch`]: one step for a whole slice of states, serially or (feature `rayon`) in
//!   parallel.
//! - [`FixedTimestep`] and [`Interpolate`]: fixed steps under variable frames, and the
//!   blend to draw; [`InterpolateMotion`]: the blend along the velocities (cubic Hermite,
//!   error `O(dt⁴)` where the straight line's is `O(dt²)`), and extrapolation.
//! - [`sensitivity`]: forward sensitivities `∂y(t)/∂θ` with respect to parameters and
//!   initial values, integrated alongside the state by any method
//!   ([`sensitivity::Forward`] on an [`sensitivity::Augmented`] state).
//! - [`rigid`]: rigid bodies ([`rigid::RigidBody`], [`rigid::DRigidBody`]) with their
//!   [`rigid::Inertia`], forces at points, and a splitting integrator for free rotation
//!   with its 4th- and 6th-order compositions.
//!
//! # Error control in one call
//!
//! [`solve`] runs a method with error control ([`AdaptiveKind`] lists them by name) over
//! a span and hands back a [`Solution`]: the state at every step, the dense output at any
//! time, the events that fired, the [`Statistics`] with where and why the run stopped.
//! [`Adaptive`] sets tolerances and the rest; [`Adaptive::integrate`] adds samples,
//! events and an observer to the same run; [`Adaptive::start`] gives a
//! [`Run`](adaptive::Run) to step yourself, one controlled step at a time.
//!
//! ```
//! use timestep::{Adaptive, AdaptiveKind, Tolerances, solve};
//!
//! // The pendulum θ'' = −sin θ from rest at 2 rad swings back after one period,
//! // 4 K(sin 1) = 8.349 752 926 9 s (K the complete elliptic integral of the first kind).
//! let period = 8.349_752_926_9;
//! let pendulum = |y: &[f64; 2], _t: f64| [y[1], -y[0].sin()];
//! let solution = solve(timestep::Dopri5, &pendulum, [2.0, 0.0], 0.0, 10.0)?;
//! let back = solution.at(period).expect("inside the span");
//! assert!((back[0] - 2.0).abs() < 1e-4);
//!
//! // The same by name, tighter, to the end of the period.
//! let method: AdaptiveKind = "dop853".parse()?;
//! let mut y = [2.0, 0.0];
//! let statistics = Adaptive::new(method)
//!     .with_tolerances(Tolerances::new(1e-10, 1e-10))
//!     .solve(&mut y, &pendulum, 0.0, period)?;
//! assert!((y[0] - 2.0).abs() < 1e-8 && statistics.accepted < 200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layers
//!
//! The modules point one way, each using only those below it:
//!
//! ```text
//! adaptive      the driver: Adaptive, Run (a controlled step), events, Solution
//! integrators   the methods: tableaus, schemes, each method's error estimate and
//!               interpolant (EmbeddedPair, Rosenbrock, Radau5), Method and AdaptiveKind
//! control       what every controlled method uses: Tolerances, ErrorNorm, Controller,
//!               Statistics, the AdaptiveMethod trait
//! the model     State, Vector, SmallVector, Forces, Particle(s), rigid bodies; linalg
//! ```
//!
//! # Glossary
//!
//! | concept | type | when you touch it |
//! |---|---|---|
//! | a state | [`State`] ([`Particle`], [`Particles`], rigid bodies, any [`Vector`]) | always: what is stepped |
//! | a small value, added and scaled by value | [`SmallVector`] (`f64`, glam's vectors, arrays, tuples) | writing a small state of your own |
//! | a value combined in place, any size | [`Vector`] (every `SmallVector`, `Vec`, `DVector`) | writing a large state of your own |
//! | the dynamics | [`Forces`] (a closure), [`InPlace`], [`Positional`] | always |
//! | a method at a fixed step | [`Integrator`] (`step`) | always: `Rk4.step(...)` |
//! | a method's parts | [`Scheme`] (workspace, one step, [`Properties`]) | writing a method |
//! | a method's buffers kept between steps | [`Stepper`] | large states; methods with a history |
//! | any method by name | [`Method`] (a stepper of [`MethodKind`]) | choosing at run time |
//! | a method with error control | [`AdaptiveMethod`](control::AdaptiveMethod), by name [`AdaptiveKind`] | writing one; choosing at run time |
//! | error control's settings and parts | [`Tolerances`] (or [`ComponentTolerances`]), [`Controller`](control::Controller), [`ErrorNorm`](control::ErrorNorm) | tuning |
//! | the driver | [`Adaptive`] | every adaptive run |
//! | a controlled step you own | [`Run`](adaptive::Run) | game loops, custom drivers |
//! | a run's result | [`Solution`], [`Statistics`], [`Stop`] | every adaptive run |
//! | fixed-step runs and frames | [`Trajectory`], [`FixedTimestep`], [`Interpolate`] | games, plots |
//!
//! # Small states and large states
//!
//! Every method steps every state, whatever its size; what changes with size is where the
//! method's working values live.
//!
//! - **Small states** (a particle, a rigid body, an array or tuple, a few numbers: anything
//!   `Copy` of a size fixed at compile time) are stepped by value. Call a method directly,
//!   `Rk4.step(&mut particle, &forces, t, dt)`: its stage values are made on the stack for
//!   the step, in registers once inlined, and the step costs what the same arithmetic
//!   written by hand costs (BENCHMARKS.md). Forces are closures returning the force.
//! - **Large states** (`Vec<f64>`, `Vec<DVec3>`, `Box<[f64]>`, nalgebra's `DVector`,
//!   [`Particles`], your own struct of `Vec`s; from a few hundred unknowns to 10⁶ and more)
//!   are stepped in place. Step them through a [`Stepper`] (or [`Method`], which is one):
//!   its first step makes the method's workspace, sized from the state, and no step after
//!   allocates or uses stack in proportion to the state's size. Write the forces with
//!   [`InPlace`], into the buffer the stepper hands you: a closure returning a new `Vec`
//!   works too, but allocates at every evaluation.
//!
//! Stepping a large state directly (`Rk4.step(&mut vec, ...)`) works, but makes the
//! workspace anew at every step. Methods with a history ([`PositionVerlet`], [`Beeman`],
//! [`AdamsBashforthMoulton`]) are only stepped through a stepper, which keeps that
//! history.
//!
//! What a workspace holds, in copies of the state's size, measured on a `Vec<f64>` of 10⁶
//! unknowns (8 MB; `tests/no_allocation.rs` checks these figures):
//!
//! | method | workspace | for 10⁶ unknowns |
//! |---|---|---|
//! | [`SemiImplicitEuler`] | the force | 8 MB |
//! | [`ExplicitEuler`] | one rate, a probe state and a sum | 24 MB |
//! | [`Midpoint`], [`ImprovedEuler`] | two rates, a probe and a sum | 32 MB |
//! | [`Rk4`] | four rates, a probe and a sum | 48 MB |
//! | [`Verlet`] | the start force; from the first step with forces that read momenta (not [`Positional`] ones), also the end force and a probe | 8 MB; 24 MB from that step |
//! | [`PositionVerlet`] | the forces at both ends, a probe, and its memory of the last step | 24 MB |
//! | [`BackwardEuler`], tridiagonal Jacobian | six rates, a probe, four numbers per unknown, the band's LU (four diagonals) | 120 MB |
//! | [`BackwardEuler`], dense Jacobian | as above, with an `n × n` matrix instead of the band | `8n²` bytes: refused beyond [`Structure::DENSE_LIMIT`] (4096) unknowns |
//! | [`ImplicitMidpoint`], tridiagonal | as [`BackwardEuler`] | 120 MB |
//! | [`Trapezoid`], [`Newmark`], tridiagonal | as [`BackwardEuler`], and the explicit part of the step (a rate) | 128 MB |
//! | [`Leapfrog`], [`Composition::BLANES_MOAN4`] | the force | 8 MB |
//! | [`Beeman`] | the forces at the last two step ends and this one's, a sum, a probe | 40 MB |
//! | [`AdamsBashforthMoulton`] | four past rates, the predicted rate, a sum, a probe, and RK4's workspace for its starting steps | 104 MB |
//! | [`ExponentialEuler`] | the rate and the linear part's diagonal | 16 MB |
//! | [`PredictorCorrector`] | two rates, a probe and a sum | 32 MB |
//! | [`Bs3`]; [`Dopri5`], [`Tsit5`]; [`Dop853`] (at a fixed step) | one rate per stage, a probe and a sum | 48 MB; 72 MB; 112 MB |
//! | [`Rodas4`], tridiagonal | six stage increments, eight more rates (start and end, a stage, a sum, ∂f/∂t, the coordinates), a probe, the Jacobian (kept for the retries of a rejected step) and the band's LU (four diagonals each) and pivots, two numbers per unknown | 200 MB |
//! | [`Rodas5P`], tridiagonal | as [`Rodas4`] with eight stage increments | 216 MB |
//! | [`Ros3p`], tridiagonal | as [`Rodas4`] with three stage increments | 176 MB |
//! | [`Radau5`], tridiagonal | three stage values, increments and rates, the collocation polynomial, the start and end rates, a scratch rate, the coordinates, a probe; the Jacobian and the real and complex matrices (four diagonals each) and pivots | 320 MB |
//! | [`Seulex`] (under error control), tridiagonal | the extrapolation table (12 increments), the 78 linearly implicit Euler increments its dense output is made of, 12 derivative estimates and 12 coefficients, seven more rates, a probe; the Jacobian and the factored matrix (four diagonals each) and pivots, three numbers per unknown | 1.1 GB |
//! | [`Bdf`] (under error control), tridiagonal | the Nordsieck array and its prediction (six rates each), the correction and the one saved for an order increase, seven more rates, two probes; the Jacobian and the factored matrix (four diagonals each) and pivots, three numbers per unknown | 280 MB |
//! | [`Composition`] of [`Verlet`] (`forest-ruth` … `kahan-li8`) | the force and the state its kicks' forces are seen at | 16 MB |
//! | [`Compensated`] composition of [`Verlet`] | the composition's, the compensation, the step's increment and the probe it is seen at | 40 MB |
//!
//! A rate is a velocity and a force; for a second-order state such as [`Particles`] each
//! is as large as the positions. [`State`]'s docs show how to write a large state of your
//! own.
//!
//! # Which method should I use?
//!
//! | method | order | symplectic | forces per step | undamped spring (m = 1 kg) at dt = 0.01 s is stable for |
//! |---|---|---|---|---|
//! | [`ExplicitEuler`] | 1 | no | 1 | no k: it always gains energy |
//! | [`SemiImplicitEuler`] | 1 | yes | 1 | k up to 4m/dt² = 40 000 N/m (ω dt ≤ 2) |
//! | [`Midpoint`] | 2 | no | 2 | no k: it gains energy, slowly |
//! | [`ImprovedEuler`] | 2 | no | 2 | no k: it gains energy, slowly |
//! | [`Rk4`] | 4 | no | 4 | k up to 8m/dt² = 80 000 N/m (ω dt ≤ 2√2), losing energy |
//! | [`Verlet`] | 2 | yes | 2 | k up to 4m/dt² = 40 000 N/m (ω dt ≤ 2) |
//! | [`PositionVerlet`] | 2 | yes | 2 | k up to 4m/dt² = 40 000 N/m (ω dt ≤ 2) |
//! | [`BackwardEuler`] | 1 | no | 1 + one per coordinate per Newton iteration | every k, losing energy |
//! | [`Trapezoid`] | 2 | no | 1 + one per coordinate per Newton iteration | every k, keeping a linear spring's energy exactly |
//! | [`ImplicitMidpoint`] | 2 | yes | 1 + one per coordinate per Newton iteration | every k, keeping a linear spring's energy exactly |
//! | [`Newmark`] (`new()`: β = ¼, γ = ½) | 2 (1 when γ ≠ ½) | no | 1 + one per coordinate per Newton iteration | every k (average acceleration); ω dt ≤ 2√3 for `linear_acceleration()` |
//! | [`Radau5`] | 5 | no | 1 + 3 per Newton iteration, + one per coordinate per Jacobian | every k, damping stiff modes in a step (L-stable) |
//! | [`Leapfrog`] | 2 | yes | 1 | k up to 4m/dt² = 40 000 N/m (ω dt ≤ 2) |
//! | [`Beeman`] | 2 | no | 1 | k up to 4m/dt² = 40 000 N/m (ω dt ≤ 2) |
//! | [`AdamsBashforthMoulton`] | 4 | no | 2 | no k strictly: it gains energy by `0.16 (ω dt)⁶` per step, fast past ω dt ≈ 0.23 |
//! | [`ExponentialEuler`] | 1 | no | 1 | every k for the linear part it is given; otherwise explicit Euler's |
//! | [`PredictorCorrector`] | 1 | no | 2 | k up to m/dt² = 10 000 N/m (ω dt ≤ 1), losing energy |
//! | [`Composition`] (`forest-ruth`, `suzuki4`, `yoshida6`, `yoshida8`, `blanes-moan4`, `kahan-li8`) | 4, 4, 6, 8, 4, 8 | yes | 4, 6, 8, 16, 6, 16 | ω dt up to 1.57, 2.72, 2.82, 2.36, 8.03, 3.39 |
//!
//! The order is how the error shrinks with `dt`: halve `dt` and a method of order `p`
//! makes `2ᵖ` times less error over a fixed time. The limits are for `ω = √(k/m)`; at the
//! limit itself the motion is borderline (it neither settles nor stays bounded in
//! general), so keep clear of it. A method that "gains energy" does so for every `dt`,
//! however small: its oscillations grow, sooner or later without bound. The figures in
//! `docs/` (drawn by `cargo run --example figures`) show it on the second article's
//! spring: over 30 s at `dt = 1/100` explicit Euler's energy grows 4.5-fold where the
//! exact motion keeps 5% of it.
//!
//! - **Games**: [`SemiImplicitEuler`]. One force evaluation, stable up to `ω dt = 2`, and
//!   being symplectic its energy stays within a band instead of drifting, even pushed near
//!   its limit. What it gets wrong is the phase: on the oscillator at `dt = 0.1` it is a
//!   third of a period ahead after 90 s.
//! - **Accuracy on smooth problems**: [`Rk4`]. Error shrinks as `dt⁴`, and the phase stays
//!   right (0.06 rad off after 90 s of that oscillator at `dt = 0.1`), but energy leaks
//!   away steadily: 4% in those 90 s, 97% at `dt = 0.25`.
//! - **Long conservative runs** (orbits, molecules, cloth): [`Verlet`], second order and
//!   symplectic; [`PositionVerlet`] if you want the form with no stored velocity. When
//!   second order is not accurate enough, a [`Composition`]: `kahan-li8` keeps the energy
//!   of the unit oscillator at dt = 0.1 within 10⁻¹³ over 10⁶ steps, where Verlet's band is
//!   2.5·10⁻³. The more accuracy you want, the higher the order that pays for its
//!   evaluations; the compositions keep their order for forces of the positions and time
//!   (with drag they are second order).
//! - **Rods, pendulums, linkages of point masses** (holonomic constraints `g(q) = 0`):
//!   [`Rattle`] on [`Particles`] with [`Constraints`] (or [`Rods`]): velocity Verlet that
//!   keeps the positions on the constraints to a tolerance and the velocities tangent to
//!   them, symplectic and reversible (example `pendulum_dae`).
//! - **Accuracy to a tolerance, when the time scale varies** (an orbit fast at periapsis
//!   and slow at apoapsis, a transient, a research result to 10⁻¹⁰):
//!   [`Adaptive`] with [`Dopri5`] or [`Tsit5`] ([`Dop853`] for tolerances of
//!   10⁻⁸ and tighter, [`Bs3`] for loose ones; for forces of the positions alone, as
//!   gravitation, the Runge–Kutta–Nyström pair [`Dprkn6`], five evaluations a step for
//!   sixth order). Each step's error is estimated and the step follows the solution, so you
//!   set a tolerance instead of guessing `dt`; the dense output gives the state at any time,
//!   and events locate where a function of the state crosses zero. Fixed steps stay right
//!   for games (a frame is a frame), real-time budgets (a step's cost is known), and long
//!   symplectic runs (a varying step breaks symplecticity). The run's
//!   [`Statistics`] count evaluations and accepted and rejected steps: many
//!   rejections, or steps that collapse far below the time scale you expect, mean a
//!   discontinuity or **stiffness**: a component far faster than the motion you follow,
//!   which limits an explicit method's step by stability, not accuracy.
//! - **Stiff systems to a tolerance** (chemical kinetics, relaxation oscillations,
//!   method-of-lines PDEs): [`Adaptive`] with [`Radau5`] (Hairer and Wanner's
//!   Radau IIA: fifth order, L-stable, its Jacobian and factorisations kept across steps)
//!   or [`Rodas4`] ([`Ros3p`] for loose tolerances, [`Rodas5P`] for relaxation
//!   oscillations and 1-D PDEs from 10⁻⁶ on), or at tight tolerances [`Seulex`]
//!   (Hairer and Wanner's extrapolated linearly implicit Euler method: its order rises to
//!   12 as the tolerance tightens). A system is stiff when a component far
//!   faster than the motion you follow has decayed, yet still bounds an explicit method's
//!   step by stability: the step collapses to `ω dt ≈ 3` of the fast mode however smooth
//!   the solution, and the statistics show many short steps, many rejected. The driver
//!   tests for this as dopri5.f does ([`Statistics::stiff_from`]): on Van der
//!   Pol at μ = 100 [`Dopri5`] is found stiff at its 1 014th step, where each step sits at
//!   `h|λ| ≈ 3.3`, its stability boundary, and [`Radau5`] then takes 44 times fewer steps.
//!   A Rosenbrock
//!   method makes one Jacobian (analytic through [`WithJacobian`], or finite differences,
//!   dense, [banded](Structure::Banded) or, with the feature `sparse`,
//!   [sparse](Structure::Sparse)) and one LU per step, Radau5 a simplified Newton
//!   iteration on its three stages; both are stable for any stiffness. On Robertson's
//!   kinetics to t = 40 Radau5 needs 532 force evaluations where Dormand–Prince, held to its
//!   stability limit, needs 207 542; Van der Pol at μ = 1000, two periods at 10⁻⁶, takes
//!   Radau5 526 steps and Rodas4 909 where [`Dopri5`] runs out of 100 000 steps before a
//!   twentieth of the way (the `van_der_pol` and `robertson` examples); on Van der Pol at
//!   ε = 10⁻⁶ Radau5 takes radau5.f's own steps (242 accepted, 2248 evaluations), and
//!   SEULEX seulex.f's (136 accepted of 146 at 10⁻⁸). For large stiff systems at loose
//!   tolerances, [`Bdf`] (CVODE's variable-order BDF) takes the fewest force evaluations
//!   per step (about 1.4) and factors its matrix only every few steps: on Robertson as
//!   SUNDIALS' `cvRoberts_dns` sets it up, CVODE's counts within 10%.
//! - **Stiff springs at a fixed frame rate**: [`BackwardEuler`], stable for any stiffness;
//!   it pays with damping you did not ask for. With a [banded](Structure::Banded) Jacobian
//!   it solves chains ([`Structure::chain`]) and 1-D grids of 10⁵ unknowns in `O(n)` per
//!   Newton iteration (a dense Jacobian is refused beyond [`Structure::DENSE_LIMIT`]
//!   unknowns, a band too narrow for the forces by the first step), and with a
//!   [sparse](Structure::Sparse) Jacobian (feature `sparse`) 2-D grids and networks of
//!   10⁴–10⁶ unknowns, whose pattern the forces give
//!   (`Forces::jacobian_pattern`); forces
//!   that are linear with their Jacobian given (`with_linear_forces`: the heat equation,
//!   linear springs) take one solve per step, as fast as the Thomas algorithm by hand. To keep
//!   the oscillation instead, [`Trapezoid`] or [`ImplicitMidpoint`] (second order, stable for
//!   any stiffness, a k = 10⁶ spring at 60 Hz keeps its energy to 10⁻¹² over 10⁵ steps; the
//!   midpoint rule is symplectic), or [`Newmark`] for structural models; these keep stiff
//!   modes ringing (flipping sign each step) where backward Euler damps them.
//! - **Mass matrices and differential-algebraic systems**, `M y' = f(t, y)` with a
//!   constant `M`, singular allowed (a zero row is an algebraic equation `0 = fᵢ(t, y)`),
//!   given by [`Forces::mass_matrix`] or [`WithMass`], dense, banded or sparse:
//!   [`Radau5`] (index 1 to 3), [`Bdf`] (index 1 and 2), the Rosenbrock methods
//!   [`Rodas4`], [`Rodas5P`] and [`Ros3p`] (index 1), and [`BackwardEuler`] at fixed steps (index 1 to
//!   3). A start off its algebraic equations is refused
//!   ([`StepError::InconsistentStart`]), and so is an index above 1 where the method does
//!   not solve it or is not told the unknowns' index ([`StepError::IndexAboveOne`]). A mass
//!   `M(t, y)` that depends on the time or the state is solved through the rewrite
//!   documented on [`WithMass`] (the rates as unknowns `z = y'`, `0 = M(t, y) z − f`).
//! - **Free rotation of rigid bodies** (tumbling debris, satellites, thrown tools):
//!   [`rigid::Splitting`], kick, exact rotations about the principal axes, kick. On a
//!   torque-free body with `I = diag(1, 2, 3)` spun near its unstable intermediate axis
//!   (`ω = (0.001, 2, 0.001)`, 60 Hz, 60 s, four flips) its kinetic energy stays within
//!   7.7·10⁻⁶ of the start and `|L|` is exact, where semi-implicit Euler gains 83 % and
//!   flips the body 26 times; `docs/free_rigid_body_energy.svg` shows it, and the
//!   [`rigid`] module's docs have every method's numbers. Its compositions
//!   [`rigid::Splitting::ORDER4`] and [`ORDER6`](rigid::Splitting::ORDER6) keep that
//!   energy within 1.1·10⁻¹⁰ and 1.5·10⁻¹³ for 6 and 8 force evaluations per step.
//! - [`ExplicitEuler`], [`Midpoint`] and [`ImprovedEuler`] are here to learn from and to
//!   compare with: on anything that oscillates they gain energy.
//!
//! Those limits are easy to see. Semi-implicit Euler at `dt = 0.01` on a 1 kg mass,
//! just under and just over k = 40 000 N/m:
//!
//! ```
//! use timestep::{Integrator, Particle, SemiImplicitEuler};
//!
//! let largest_swing = |k: f64| -> Result<f64, timestep::StepError> {
//!     let spring = move |p: &Particle<f64>, _t: f64| -k * p.position();
//!     let mut mass = Particle::new(1.0, 1.0, 0.0);
//!     let mut largest = 0.0_f64;
//!     for i in 0..2000 {
//!         SemiImplicitEuler.step(&mut mass, &spring, i as f64 * 0.01, 0.01)?;
//!         largest = largest.max(mass.position().abs());
//!     }
//!     Ok(largest)
//! };
//! assert!(largest_swing(39_000.0)? < 10.0); // bounded
//! assert!(largest_swing(41_000.0)? > 1e10); // explodes
//! # Ok::<(), timestep::StepError>(())
//! ```
//!
//! Every implicit method takes one settings value, [`ImplicitSettings`]: the Jacobian's
//! [`Structure`] (dense, banded, sparse), the Newton tolerance and iterations, and the
//! linear-forces declaration, each left open meaning that method's own default. Each
//! method's `with_settings` takes what it uses (the Rosenbrock methods, SEULEX and the BDF
//! the structure alone, Radau5 all but the declaration; [`ImplicitSettings`] has the
//! table), and so do [`AdaptiveKind::with_settings`] and [`MethodKind::with_settings`]
//! for a method chosen by name, which keeps its name:
//!
//! ```
//! use timestep::{Adaptive, AdaptiveKind, ImplicitSettings, InPlace, Structure, Tolerances};
//!
//! // The heat equation on 200 points: a tridiagonal Jacobian.
//! let n = 200;
//! let dx = 1.0 / (n + 1) as f64;
//! let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
//!     for i in 0..n {
//!         let left = if i > 0 { u[i - 1] } else { 0.0 };
//!         let right = if i + 1 < n { u[i + 1] } else { 0.0 };
//!         du[i] = (left - 2.0 * u[i] + right) / (dx * dx);
//!     }
//! });
//! let settings = ImplicitSettings::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
//! let pi = std::f64::consts::PI;
//! for name in ["rodas4", "rodas5p", "radau5", "bdf", "seulex"] {
//!     let method = name.parse::<AdaptiveKind>()?.with_settings(settings);
//!     assert_eq!(method.to_string(), name);
//!     let mut u: Vec<f64> = (1..=n).map(|i| (pi * i as f64 * dx).sin()).collect();
//!     let statistics = Adaptive::new(method)
//!         .with_tolerances(Tolerances::new(1e-6, 1e-9))
//!         .solve(&mut u, &heat, 0.0, 0.1)?;
//!     // The slowest mode decays like e^(−π² t); a Jacobian costs 3 evaluations, not 200.
//!     let middle = u[n / 2] / (pi * (n / 2 + 1) as f64 * dx).sin();
//!     assert!((middle - (-pi * pi * 0.1_f64).exp()).abs() < 1e-4, "{name}");
//!     assert!(statistics.evaluations < 200 * statistics.jacobians.max(1), "{name}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Long runs
//!
//! Over many periods (orbits, molecules, spinning bodies) what matters is how errors
//! *accumulate*. A symplectic method ([`Verlet`], [`Leapfrog`], the [`Composition`]s,
//! [`rigid::Splitting`]) is the exact flow of a slightly different energy `H̃ = H + O(dtᵖ)`
//! (backward error analysis: Hairer–Lubich–Wanner, *Geometric Numerical Integration*,
//! IX), so `H` oscillates in a band of width `O(dtᵖ)` for exponentially long times instead
//! of drifting, and on orbits the position error grows only linearly with time (a phase
//! error) where other methods' grows quadratically. `tests/timestep/integrators/long_runs.rs` shows the band
//! over 10⁶ steps of the unit oscillator at `dt = 0.1`: 2.5·10⁻³ for Verlet, 7.7·10⁻⁶
//! Forest–Ruth, 2.8·10⁻⁸ Blanes–Moan, 4·10⁻⁹ Yoshida 6, 10⁻¹³ Kahan–Li 8, each the same
//! at the end as at the start, while RK4 loses 1.4 % and Adams–Bashforth–Moulton gains
//! 37 %.
//!
//! **When a higher order pays.** To reach an error `ε`, a method of order `p` with `e`
//! force evaluations per step needs about `e · ε^(−1/p)` evaluations per unit of time: the
//! smaller `ε`, the higher the order worth paying for. On Kepler's orbit with
//! eccentricity 0.9 over 1000 periods (BENCHMARKS.md), an energy error of 10⁻⁴ is
//! cheapest with `blanes-moan4` (700 steps per period, 6 evaluations each) and 10⁻⁶ with
//! `kahan-li8` (700 steps, 16 evaluations), where velocity Verlet would need 32 000 and
//! 320 000 steps per period. On so eccentric an orbit an adaptive method is faster still:
//! fixed steps pay the perihelion's step all the way round, where [`Dop853`] under
//! [error control](adaptive::Adaptive) follows the speed (19 times larger at perihelion
//! than at aphelion) and meets both targets seven to eight times faster than the
//! compositions. The compositions stay the choice when the energy must stay bounded for
//! ever, not just to the end of the run: an adaptive method's energy error drifts.
//!
//! **Rigid bodies.** Composing [`rigid::Splitting`] raises the order of the free rotation
//! too: [`rigid::Splitting::ORDER4`] (Suzuki's five steps: 6 force evaluations and 25
//! principal-axis rotations per step) and [`ORDER6`](rigid::Splitting::ORDER6) (Yoshida's
//! seven: 8 and 35), against 2 and 5 for the splitting itself. On the tumbling top at
//! 60 Hz they keep the energy within 1.1·10⁻¹⁰ and 1.5·10⁻¹³ where the splitting keeps
//! 7.7·10⁻⁶.
//!
//! # Conventions
//!
//! - SI units (metres, kilograms, seconds, newtons), angles in radians, right-handed
//!   coordinates (x × y = z; a positive rotation about an axis turns counter-clockwise when
//!   the axis points at you).
//! - Rigid bodies: angular velocity `ω` and angular momentum `L` are in the **world**
//!   frame ([`rigid::Body::angular_velocity_body`] and
//!   [`rigid::Body::angular_momentum_body`] give them along the body's axes), orientation is a unit quaternion taking body coordinates to world coordinates,
//!   and its rate is `dq/dt = ½ ω q` with `ω` written as the pure quaternion
//!   `(0, ωx, ωy, ωz)`. Torque is `r × F` with `r` from the centre of mass to the point
//!   where the force acts.
//! - glam's naming for precision: `Particle<Vec3>` is `f32`, `Particle<DVec3>` is `f64`.
//! - Time `t` and step `dt` have the state's precision. `dt = 0` leaves a state
//!   untouched, a negative `dt` integrates backwards, and a non-finite `t` or `dt` is
//!   refused with [`StepError::NonFiniteTime`], as is an end time `t + dt` that
//!   overflows ([`StepError::EndTimeOverflow`]). Masses must be finite and positive
//!   ([`MassError`]). [`FixedTimestep`] keeps its clock in `f64` whatever the state's
//!   precision, and refuses negative and non-finite frame times
//!   ([`FixedTimestepError`]).
//!
//! # What is refused, and what is not
//!
//! Bad input gets an error that names the value, never silent garbage, where the crate
//! can tell it is bad without slowing down every step:
//!
//! - constructors and setters: a mass that is not finite and positive or whose inverse
//!   overflows; a particle whose momentum `m·v` (or velocity `p/m`) overflows or
//!   underflows its precision ([`MassError::MomentumOutOfRange`]); an inertia tensor no
//!   body has, or whose inverse or trace overflows ([`rigid::InertiaError`]); an
//!   orientation that is zero or not finite (any other quaternion, however large or small
//!   its coordinates, is normalized);
//! - steps: a non-finite `t`, `dt` or `t + dt`; a [`Trajectory`] of more than
//!   [`Trajectory::MAX_STEPS`] steps ([`StepError::TooManySteps`]); a [`FixedTimestep`]
//!   whose frames could run more than [`FixedTimestep::MAX_STEPS_PER_FRAME`] steps;
//! - with `serde`, everything the constructors refuse, unknown fields, and non-finite
//!   states (on saving and on loading).
//!
//! What is **not** refused, because checking it would cost every step or because it is
//! legal:
//!
//! - **Finite forces that overflow the state.** A force of 10³⁰⁰ N for 10¹⁰ s makes the
//!   momentum infinite, and explicit methods return `Ok` with it (backward Euler refuses a
//!   non-finite residual). If your forces can be that large, check the state with
//!   [`SmallVector::is_finite`] after a step.
//! - **Torques that push a rigid body's `ω = I⁻¹ L` past the range of its floats**
//!   (`|L|` above the smallest moment times the largest float; the setters refuse such an
//!   `L`, but a kick can reach it). Its spin is then infinite and the orientation of the
//!   next drift `NaN`. [`rigid::Splitting`] refuses such a step with
//!   [`StepError::Overflow`]; the other methods carry it. (A finite `ω` whose `ω · dt`
//!   overflows still gives a unit quaternion.)
//! - **Near-degenerate inertia**, such as `diag(10⁻¹², 1, 1)`: a tensor a body can have
//!   (a thin rod), accepted, but a spin about its thin axis is far too fast for an
//!   ordinary `dt`: at 60 Hz RK4's energy is off 3000-fold within a second (see
//!   [`rigid::Inertia`]).
//! - **Non-finite values you set yourself** (a `NaN` position, an infinite angular
//!   momentum) are kept as given; non-finite results follow from them.
//! - **A force that panics**: the panic propagates out of `step`, and a state caught
//!   with `catch_unwind` may be left partly stepped (a partitioned method kicks and
//!   drifts it as it goes).
//!
//! # Implementing `State` for your own struct
//!
//! Anything with positions and momenta can be a [`State`]; an integrator then steps all of
//! it at once, so parts that push on each other are advanced consistently. Here, two
//! bodies joined by a spring: a dumbbell tumbling through space. The velocity and force
//! types are pairs of vectors, one per body (tuples of [`SmallVector`]s are vector
//! spaces), and the forces are the spring's pull, equal and opposite on the two bodies.
//!
//! ```
//! use glam::DVec3;
//! use timestep::{Integrator, Method, State, Verlet};
//!
//! /// Two point masses joined by a spring, integrated together.
//! #[derive(Clone, Debug)]
//! struct Dumbbell {
//!     // Primary: integrated.
//!     positions: (DVec3, DVec3),
//!     momenta: (DVec3, DVec3),
//!     // Constant.
//!     inverse_masses: (f64, f64),
//! }
//!
//! impl State for Dumbbell {
//!     type Scalar = f64;
//!     type Velocity = (DVec3, DVec3);
//!     type Force = (DVec3, DVec3);
//!
//!     // Secondary, computed from the primaries whenever it is asked for. (A state that
//!     // stores secondaries recalculates them at the end of `drift` and `kick`.)
//!     fn velocity(&self) -> (DVec3, DVec3) {
//!         (
//!             self.momenta.0 * self.inverse_masses.0,
//!             self.momenta.1 * self.inverse_masses.1,
//!         )
//!     }
//!
//!     fn drift(&mut self, velocity: (DVec3, DVec3), dt: f64) {
//!         self.positions.0 += velocity.0 * dt;
//!         self.positions.1 += velocity.1 * dt;
//!     }
//!
//!     fn kick(&mut self, force: (DVec3, DVec3), dt: f64) {
//!         self.momenta.0 += force.0 * dt;
//!         self.momenta.1 += force.1 * dt;
//!     }
//! }
//!
//! impl Dumbbell {
//!     fn momentum(&self) -> DVec3 {
//!         self.momenta.0 + self.momenta.1
//!     }
//!
//!     fn energy(&self, stiffness: f64, rest_length: f64) -> f64 {
//!         let (v0, v1) = self.velocity();
//!         let stretch = (self.positions.1 - self.positions.0).length() - rest_length;
//!         0.5 * v0.length_squared() / self.inverse_masses.0
//!             + 0.5 * v1.length_squared() / self.inverse_masses.1
//!             + 0.5 * stiffness * stretch * stretch
//!     }
//! }
//!
//! let (stiffness, rest_length) = (50.0, 1.0);
//! // Hooke's law along the bar: pulls body 0 towards body 1 when stretched, and body 1
//! // back by the same force.
//! let spring = |d: &Dumbbell, _t: f64| {
//!     let bar = d.positions.1 - d.positions.0;
//!     let length = bar.length();
//!     let pull = bar * (stiffness * (length - rest_length) / length);
//!     (pull, -pull)
//! };
//!
//! // 1 kg and 3 kg, stretched to 1.5 m, thrown sideways and spinning.
//! let start = Dumbbell {
//!     positions: (DVec3::ZERO, DVec3::new(1.5, 0.0, 0.0)),
//!     momenta: (DVec3::new(0.0, 2.0, 1.0), DVec3::new(0.0, -1.0, 1.0)),
//!     inverse_masses: (1.0, 1.0 / 3.0),
//! };
//! let mut dumbbell = start.clone();
//! let dt = 0.001;
//! for i in 0..10_000 {
//!     Verlet.step(&mut dumbbell, &spring, i as f64 * dt, dt)?;
//! }
//!
//! // Internal forces cancel, so total momentum is conserved (to rounding)...
//! assert!((dumbbell.momentum() - start.momentum()).length() < 1e-12);
//! // ...and Verlet, being symplectic, keeps the energy within a narrow band.
//! let (e0, e1) = (start.energy(stiffness, rest_length), dumbbell.energy(stiffness, rest_length));
//! assert!((e1 - e0).abs() < 1e-4 * e0);
//!
//! // Every method steps it, backward Euler included (12 unknowns per Newton solve).
//! for mut method in Method::all() {
//!     let mut copy = start.clone();
//!     method.step(&mut copy, &spring, 0.0, dt)?;
//!     assert!((copy.momentum() - start.momentum()).length() < 1e-9, "{method}");
//! }
//! # Ok::<(), timestep::StepError>(())
//! ```
//!
//! To draw such a state in a game loop, implement [`Interpolate`] for it too (blend each
//! position; tuples of vectors already implement it).
//!
//! # Determinism
//!
//! With the `deterministic` feature a run is a function of its inputs down to the last
//! bit: the same state, forces, times and settings give the same bits on any x86-64 CPU,
//! at any optimisation level (debug or release, any `-C target-cpu`), with any number of
//! rayon threads, with std or without. That is what lockstep networking and rollback need:
//! two machines stepping the same inputs stay in the same state, and a replay is exact.
//! On other architectures whose floating point is IEEE 754 (aarch64, RISC-V, wasm32) the
//! same bits are expected, but not measured here: `tests/determinism.rs` holds the x86-64
//! hashes of its scenarios, and `cargo test --features deterministic --test determinism`
//! checks a platform against them.
//!
//! How:
//!
//! - Every transcendental function the crate calls (`sin`, `cos`, `exp`, `exp_m1`, `powf`,
//!   `cbrt`; a rigid body's exponential map is the crate's own, not glam's) comes from the
//!   pure-Rust [`libm`](https://crates.io/crates/libm) crate instead of the platform's
//!   libm, which picks its code by CPU: glibc uses FMA variants on AVX2 machines, whose
//!   last bit may differ. (Without the feature, the step-size controller's `powf` alone
//!   changes the `arenstorf` example's output when glibc's AVX2 code is masked.)
//! - Arithmetic and `sqrt` are IEEE 754's, correctly rounded everywhere; Rust never fuses
//!   `a * b + c` into one FMA unless asked, and the crate never asks. `powi` is a
//!   square-and-multiply loop in a fixed order (LLVM leaves the order of its own
//!   unspecified).
//! - Every sum has a fixed order: norms, sums over bodies and coordinates are sequential
//!   loops, and `batch::par_step_all` (feature `rayon`) cuts a slice into chunks of
//!   [`batch::CHUNK`] states whatever the number of threads, each state's step depending
//!   on that state alone.
//!
//! Not covered:
//!
//! - Your forces are your code: a `sin` in them is the platform's. Call `libm` there too
//!   (`libm::sin(x)`, `libm::sinf(x)`), and switch on glam's `libm` feature if they call
//!   glam's rotations (`Quat::from_axis_angle`, `slerp`). The feature leaves glam's
//!   setting alone: it would change glam for the whole build.
//! - Other versions: another `libm`, glam or timestep (a `cargo update`) may change the
//!   last bits. Keep your Cargo.lock.
//! - Which NaN: a NaN stays a NaN everywhere, but its payload bits differ between CPUs.
//!   Nor which zero `min` or `max` returns when given `+0` and `−0` (IEEE 754 allows
//!   either).
//! - glam's `f32` SIMD types (`Vec3A`, `Vec4`, and `Quat`, a [`rigid::RigidBody`]'s
//!   orientation) add their dot products in SSE2's order on x86-64 and NEON's on aarch64:
//!   `f32` rigid bodies may differ between those two. The `f64` types are plain scalars.
//!
//! The price is in BENCHMARKS.md ("Deterministic functions"); without the feature, the
//! crate calls std's functions exactly as before.
//!
//! # Features
//!
//! - `std` (default): floating-point functions from the standard library. Implies `alloc`.
//! - `alloc`: states sized at run time (`Vec`, `Box<[T]>`, [`Particles`]) and heap
//!   workspaces for implicit solves of more than 16 unknowns. Without it (`no_std` with no
//!   allocator) everything else works, and nothing allocates.
//! - `libm`: floating-point functions from `libm`, for `no_std` targets:
//!   `cargo build --no-default-features --features libm`.
//! - `deterministic`: the same bits on every x86-64 CPU and build, from the pure-Rust
//!   `libm` for every transcendental function (see [Determinism](#determinism)). Works
//!   without `std`.
//! - `serde`: `Serialize` and `Deserialize` for the states ([`Particle`], [`Derivative`],
//!   [`NoVelocity`], the rigid bodies [`rigid::RigidBody`] and [`rigid::DRigidBody`],
//!   glam's types), the settings ([`BackwardEuler`], [`MethodKind`] and [`Method`] as
//!   the method's name, a [`Stepper`] as its method, [`FixedTimestep`], [`rigid::Inertia`],
//!   [`rigid::OrientationUpdate`], [`rigid::Splitting`]) and saved runs: a [`Stepper`]
//!   with its workspace (a method's history, an implicit method's kept matrix) and an
//!   adaptive run's [`adaptive::Snapshot`], which go on bit for bit once loaded (for states
//!   that are a `SerdeState`). Deserializing checks what the
//!   constructors check: a particle's mass must be finite and positive, a
//!   `FixedTimestep`'s `dt` too, a rigid body's inertia tensor must be one a body can have
//!   and its orientation a unit quaternion. Unknown fields are refused, and so are
//!   non-finite states, both when saving (JSON would write `null`, which reads back as no
//!   number) and when loading (a number out of the state's range, `1e39` in `f32`, reads
//!   as infinite). Round trips are bit-exact given a format that reads every float back
//!   to the same bits: with serde_json, switch on its `float_roundtrip` feature (its
//!   default parser can be one ulp off; what it reads still loads). Works without
//!   `std`.
//! - `rayon`: `batch::par_step_all`, which steps a slice of states on rayon's thread pool
//!   (implies `std`; rayon allocates to schedule its work, the stepping itself does not).
//! - `nalgebra`: nalgebra's vectors (0.34 or 0.35) as states: `SVector` (`Vector3<f64>`, …)
//!   a [`SmallVector`], stepped by value; `DVector` a [`Vector`], stepped in place.
//! - `sparse`: sparse Jacobians for every implicit method ([`Structure::Sparse`], the
//!   `Pattern` forces give through `Forces::jacobian_pattern`), factored by faer's sparse
//!   LU (implies `std`). Its LU picks its code by CPU: `deterministic` does not cover it.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

#[cfg(not(any(feature = "std", feature = "libm", feature = "deterministic")))]
compile_error!("timestep needs the `std` feature or, on no_std targets, the `libm` feature");

pub mod adaptive;
pub mod analytic;
pub mod batch;
#[cfg(feature = "alloc")]
mod constraints;
pub mod control;
mod error;
mod fixed_timestep;
mod integrators;
mod interpolate;
pub mod linalg;
mod math;
#[cfg(feature = "nalgebra")]
mod nalgebra_impls;
mod particle;
#[cfg(feature = "alloc")]
mod particles;
pub mod prelude;
pub mod rigid;
#[cfg(feature = "serde")]
mod saved;
mod scalar;
pub mod sensitivity;
mod small_vector;
mod state;
mod trajectory;
mod vector;

pub use adaptive::Adaptive;
#[cfg(feature = "alloc")]
pub use adaptive::{Solution, solve};
#[cfg(feature = "alloc")]
pub use constraints::{Constraints, Rod, RodLengthError, Rods};
#[cfg(feature = "alloc")]
pub use control::ComponentTolerances;
pub use control::{Statistics, Stop, Tolerances};
pub use error::{AdaptiveError, MassError, StepError};
pub use fixed_timestep::{FixedTimestep, FixedTimestepError, Frame, Overrun};
pub use integrators::{
    AdamsBashforthMoulton, AdaptiveKind, AdditiveDrift, BackwardEuler, Beeman, Bs3, Coefficients,
    Compensated, Composition, Dop853, Dopri5, EmbeddedPair, ExplicitEuler, ExponentialEuler,
    ImplicitMidpoint, ImplicitSettings, ImprovedEuler, Integrator, Leapfrog, Memoryless, Method,
    MethodKind, Midpoint, Newmark, NewmarkError, Pair, PairSource, ParseMethodError, PlainDrift,
    PositionVerlet, PredictorCorrector, Properties, Radau5, Rk4, Scheme, SemiImplicitEuler,
    Sequence, Stepper, SymmetricStep, Tableau, Trapezoid, Tsit5, Verlet, Vern6, Vern7, Vern8,
    Vern9, WithJacobian, WithLinearPart, WithMass,
};
pub use integrators::{Bdf, Seulex, StepSequence};
pub use integrators::{Dprkn6, Dprkn12, Nystrom, NystromDense, NystromPair};
#[cfg(feature = "alloc")]
pub use integrators::{Rattle, RattleSettingError};
pub use integrators::{Rodas4, Rodas5P, Ros3p, Rosenbrock, RosenbrockDense, RosenbrockTableau};
#[cfg(feature = "sparse")]
pub use linalg::Pattern;
pub use linalg::{Gmres, LinearSolver, Preconditioner, Side};
pub use linalg::{Jacobian, Structure};

/// The workspaces methods step in: what each keeps between steps inside a [`Stepper`].
///
/// Each holds buffers the size of the state's rate (a velocity and a force buffer each),
/// probe states and, for implicit methods, matrices. They are made by
/// [`Scheme::workspace`] and opaque otherwise.
pub mod workspace {
    pub use crate::integrators::BdfWorkspace;
    pub use crate::integrators::NystromWorkspace;
    pub use crate::integrators::RosenbrockWorkspace;
    pub use crate::integrators::SeulexWorkspace;
    pub use crate::integrators::{
        AdamsBashforthMoultonWorkspace, AdaptiveKindInterpolant, AdaptiveKindWorkspace,
        BackwardEulerWorkspace, BeemanWorkspace, CompensatedWorkspace, CompositionWorkspace,
        ExponentialEulerWorkspace, ImplicitWorkspace, MethodWorkspace, PairWorkspace,
        PositionVerletWorkspace, Radau5Workspace, RkWorkspace, SemiImplicitEulerWorkspace,
        VerletWorkspace,
    };
}
pub use interpolate::{Interpolate, InterpolateMotion};
pub use particle::Particle;
#[cfg(feature = "alloc")]
pub use particles::{Particles, ParticlesError};
#[cfg(feature = "serde")]
pub use saved::SerdeState;
pub use scalar::Scalar;
pub use small_vector::{NoVelocity, SmallVector};
pub use state::{Derivative, DerivativeOf, Forces, InPlace, Positional, State};
pub use trajectory::Trajectory;
pub use vector::Vector;

/// The glam the crate is built with (0.33 or 0.34, whichever your build resolved):
/// `timestep::glam::Vec3` is the type `Particle<Vec3>` and [`rigid::RigidBody`] are made
/// of, so a program can name it without a glam dependency of its own. When a build has one
/// glam (the README's "glam versions" says how), it is also Bevy's `bevy_math::Vec3`.
///
/// ```
/// use timestep::glam::Vec3;
/// use timestep::Particle;
///
/// let ball = Particle::new(1.0, Vec3::ZERO, Vec3::X);
/// assert_eq!(ball.position(), Vec3::ZERO);
/// ```
pub use glam;

/// The README's code, compiled and run as a doc test so that it cannot go stale.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
