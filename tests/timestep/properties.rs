//! Properties over random parameters, each with the theory that bounds it.
//!
//! Case counts are kept modest so the suite stays fast in a debug build.

use crate::common;

use common::{energy, spring};
use proptest::prelude::*;
use std::cell::Cell;
use timestep::MethodKind;
use timestep::analytic::DampedOscillator;
use timestep::{
    ExplicitEuler, Integrator, MassError, Method, Particle, PositionVerlet, Rk4, SemiImplicitEuler,
    Trajectory, Verlet,
};

/// Machine epsilon, the unit of the rounding bounds below.
const EPS: f64 = f64::EPSILON;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// RK4 against the closed-form damped oscillator, with a bound that scales as dt⁴.
    ///
    /// Derivation: in `Y = (√k x, √m v)` the system is `Y' = A Y` with
    /// `A = [[0, ω], [−ω, −b/m]]`, `‖A‖ ≤ L = ω + b/m`, and the exact flow never increases
    /// `|Y|` (the energy `½|Y|²` only decays). One RK4 step is the Taylor polynomial of
    /// `e^(dt A)` to degree 4, so its local error is at most
    /// `Σ_{j≥5} (θ^j / j!) |Y| ≤ θ⁵ e^θ / 120 · |Y|` with `θ = L dt`. Propagated by the
    /// non-expanding flow, N local errors add up to at most `N θ⁵ e^θ / 120 · max |Y|`
    /// (= `T L⁵ dt⁴ e^θ / 120` per unit of |Y|: the dt⁴ scaling). Numerical states stay
    /// within `|Y₀|` plus that error; a factor 2 covers it.
    #[test]
    fn rk4_matches_the_closed_form_within_a_dt4_bound(
        m in 0.1_f64..10.0,
        k in 0.1_f64..100.0,
        b in 0.0_f64..5.0,
        x0 in -10.0_f64..10.0,
        v0 in -10.0_f64..10.0,
        theta in 0.01_f64..0.5,
        steps in 10_usize..200,
    ) {
        let lipschitz = (k / m).sqrt() + b / m;
        let dt = theta / lipschitz;
        let exact = DampedOscillator::new(m, k, b, x0, v0);
        let forces = spring(k, b);
        let mut particle = Particle::new(m, x0, v0);
        let size = (k * x0 * x0 + m * v0 * v0).sqrt();
        let bound = 2.0 * steps as f64 * theta.powi(5) * theta.exp() / 120.0 * size;
        for i in 0..steps {
            Rk4.step(&mut particle, &forces, i as f64 * dt, dt).unwrap();
        }
        let t = steps as f64 * dt;
        let dx = particle.position() - exact.position(t);
        let dv = particle.velocity() - exact.velocity(t);
        let error = (k * dx * dx + m * dv * dv).sqrt();
        prop_assert!(error <= bound + 1e-12 * size, "error {error:e}, bound {bound:e}");
    }

    /// Velocity Verlet and position Verlet: a step of dt, then one of −dt from where it
    /// ended, returns to the start up to rounding (see `integrators::reversibility`), for any
    /// position-dependent force, here a hardening spring `−k x − c x³`.
    ///
    /// Rounding bound: the momentum passes through `p + F₀ dt/2 + F₁ dt/2 − F₁ dt/2 − F₀' dt/2`
    /// and the position through `x + v dt − v' dt`; each addition rounds at ε of its largest
    /// term, so a few ε of `|p| + |F dt|` and of `|x| + |v dt|` (16 ε covers them). The last
    /// kick's force `F₀'` is taken where the position came back to, so the position's
    /// rounding reaches the momentum too, amplified by the spring's stiffness
    /// `|∂F/∂x| = k + 3c x²` over `dt/2`: on a hard spring pushed far in one step that is the
    /// larger term.
    #[test]
    fn a_verlet_step_and_its_reverse_return_to_the_start(
        m in 0.1_f64..10.0,
        k in 0.0_f64..100.0,
        c in 0.0_f64..100.0,
        x0 in -5.0_f64..5.0,
        v0 in -5.0_f64..5.0,
        dt in prop_oneof![1e-4_f64..0.1, -0.1_f64..-1e-4],
        t in -100.0_f64..100.0,
    ) {
        let forces = move |p: &Particle<f64>, _t: f64| {
            let x = p.position();
            -k * x - c * x * x * x
        };
        let start = Particle::new(m, x0, v0);
        let f0 = forces(&start, t).abs();
        for name in ["verlet", "position-verlet"] {
            let mut particle = start;
            let mut integrator: Method<Particle<f64>> = name.parse().unwrap();
            integrator.step(&mut particle, &forces, t, dt).unwrap();
            let f1 = forces(&particle, t + dt).abs();
            let x1 = particle.position();
            integrator.step(&mut particle, &forces, t + dt, -dt).unwrap();

            let momentum_scale = (m * v0).abs() + (f0 + f1) * dt.abs();
            let position_scale = x0.abs() + x1.abs() + momentum_scale / m * dt.abs();
            let dp = (particle.momentum() - start.momentum()).abs();
            let dx = (particle.position() - x0).abs();
            let stiffness = k + 3.0 * c * x0 * x0;
            let momentum_bound = momentum_scale + stiffness * position_scale * dt.abs();
            prop_assert!(dp <= 16.0 * EPS * momentum_bound, "{name}: Δp {dp:e}");
            prop_assert!(dx <= 16.0 * EPS * position_scale, "{name}: Δx {dx:e}");
        }
    }

    /// Semi-implicit Euler on an undamped oscillator with `θ = ω dt < 2`: the modified energy
    /// `H̃ = ½(X² + V² − θXV)` (X = √k x, V = √m v) is conserved exactly by the step
    /// `V' = V − θX, X' = X + θV'`, and since `|XV| ≤ E`, the energy stays in
    /// `[H̃₀/(1 + θ/2), H̃₀/(1 − θ/2)]` forever. (For θ ≥ 2 H̃ is no longer positive
    /// definite and nothing bounds the energy: see the next property.)
    #[test]
    fn semi_implicit_euler_energy_is_bounded_below_the_stability_limit(
        m in 0.1_f64..10.0,
        k in 0.1_f64..100.0,
        theta in 0.01_f64..1.95,
        x0 in -10.0_f64..10.0,
        v0 in -10.0_f64..10.0,
    ) {
        prop_assume!(x0.abs() + v0.abs() > 1e-3);
        let dt = theta / (k / m).sqrt();
        let forces = spring(k, 0.0);
        let mut particle = Particle::new(m, x0, v0);
        let modified = |p: &Particle<f64>| {
            let (x, v) = (k.sqrt() * p.position(), m.sqrt() * p.velocity());
            0.5 * (x * x + v * v - theta * x * v)
        };
        let h0 = modified(&particle);
        let (low, high) = (h0 / (1.0 + theta / 2.0), h0 / (1.0 - theta / 2.0));
        for i in 0..1000 {
            SemiImplicitEuler.step(&mut particle, &forces, i as f64 * dt, dt).unwrap();
            let e = energy(&particle, k);
            // Rounding: ~1000 steps of ε each, amplified near θ = 2 by 1/(1 − θ/2) ≤ 40.
            let slack = 1e-10 * high;
            prop_assert!(e <= high + slack && e >= low - slack, "step {i}: E {e}, band [{low}, {high}]");
            prop_assert!((modified(&particle) - h0).abs() <= slack, "step {i}: H̃ drifted");
        }
    }

    /// Past the limit, θ > 2, the step matrix has trace `2 − θ² < −2` and determinant 1,
    /// so an eigenvalue of modulus `ρ = (θ² − 2 + √((θ² − 2)² − 4))/2 > 1`: the energy grows
    /// like ρ^(2n) (at θ = 2.05, ρ = 1.56: ×10^15.5 in 40 steps; at θ = 3, ρ = 6.85: ×10^67).
    #[test]
    fn semi_implicit_euler_explodes_past_the_stability_limit(
        m in 0.1_f64..10.0,
        k in 0.1_f64..100.0,
        theta in 2.05_f64..3.0,
        x0 in 0.1_f64..10.0,
    ) {
        let dt = theta / (k / m).sqrt();
        let forces = spring(k, 0.0);
        let mut particle = Particle::new(m, x0, 0.0);
        let e0 = energy(&particle, k);
        for i in 0..40 {
            SemiImplicitEuler.step(&mut particle, &forces, i as f64 * dt, dt).unwrap();
        }
        let half_trace = (theta * theta - 2.0) / 2.0;
        let rho = half_trace + (half_trace * half_trace - 1.0).sqrt();
        let decades = (energy(&particle, k) / e0).log10();
        let theory = 80.0 * rho.log10();
        prop_assert!((decades - theory).abs() < 2.0, "10^{decades} vs 10^{theory}");
    }
}

/// Every method's name, with a state of each kind: a particle and a first-order system.
fn every_method_on_both_kinds() -> impl Iterator<Item = (Method<Particle<f64>>, Method<[f64; 3]>)> {
    MethodKind::all()
        .into_iter()
        .map(Method::<Particle<f64>>::new)
        .zip(MethodKind::all().into_iter().map(Method::<[f64; 3]>::new))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// `dt = 0` is a step of nothing: every method returns Ok, leaves the state bit for bit
    /// as it was, and does not even evaluate the force.
    #[test]
    fn a_zero_step_changes_nothing(
        m in 1e-3_f64..1e3,
        x in -1e6_f64..1e6,
        v in -1e6_f64..1e6,
        y in prop::array::uniform3(-1e6_f64..1e6),
        t in -1e6_f64..1e6,
        dt in prop_oneof![Just(0.0_f64), Just(-0.0_f64)],
    ) {
        let calls = Cell::new(0);
        let counted = |p: &Particle<f64>, _t: f64| {
            calls.set(calls.get() + 1);
            -p.position()
        };
        let counted_system = |y: &[f64; 3], _t: f64| {
            calls.set(calls.get() + 1);
            [y[1], -y[0], 1.0]
        };
        for (mut on_particle, mut on_system) in every_method_on_both_kinds() {
            let start = Particle::new(m, x, v);
            let mut particle = start;
            prop_assert_eq!(on_particle.step(&mut particle, &counted, t, dt), Ok(()));
            prop_assert_eq!(particle.position().to_bits(), start.position().to_bits());
            prop_assert_eq!(particle.momentum().to_bits(), start.momentum().to_bits());
            prop_assert_eq!(particle.velocity().to_bits(), start.velocity().to_bits());

            let mut state = y;
            prop_assert_eq!(on_system.step(&mut state, &counted_system, t, dt), Ok(()));
            prop_assert_eq!(state.map(f64::to_bits), y.map(f64::to_bits));
            prop_assert_eq!(calls.get(), 0, "{} evaluated the force", on_particle);
        }
    }

    /// A run that `dt` does not divide: `ceil((t1 − t0)/dt)` steps, every one of length dt
    /// but the last, which is shortened to land exactly (bit for bit) on t1. A constant
    /// rate integrates exactly with any method, so y(t1) − y(t0) = t1 − t0 checks that the
    /// steps really cover the span. Runs forwards and backwards in time.
    #[test]
    fn a_trajectory_lands_exactly_on_t1(
        t0 in -100.0_f64..100.0,
        dt in 1e-3_f64..1.0,
        whole in 0_u32..300,
        fraction in 0.01_f64..0.99,
        backwards in any::<bool>(),
    ) {
        let ratio = f64::from(whole) + fraction;
        let (dt, t1) = if backwards { (-dt, t0 - ratio * dt) } else { (dt, t0 + ratio * dt) };
        let unit_rate = |_: &f64, _t: f64| 1.0;
        let trajectory = Trajectory::new(ExplicitEuler, 0.0_f64, &unit_rate, t0, t1, dt).unwrap();
        let expected_steps = ((t1 - t0) / dt).ceil() as usize;
        prop_assert_eq!(expected_steps, whole as usize + 1);
        prop_assert_eq!(trajectory.steps(), expected_steps);
        let samples: Vec<(f64, f64)> = trajectory.collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(samples.len(), expected_steps + 1);
        prop_assert_eq!(samples[0], (t0, 0.0));
        let (t_end, y_end) = samples[samples.len() - 1];
        prop_assert_eq!(t_end.to_bits(), t1.to_bits());
        let scale = t0.abs() + t1.abs();
        prop_assert!((y_end - (t1 - t0)).abs() <= 1e3 * EPS * scale);
        for (i, pair) in samples.windows(2).enumerate() {
            let step = pair[1].0 - pair[0].0;
            if i + 1 < expected_steps {
                prop_assert!((step - dt).abs() <= 4.0 * EPS * scale, "step {i}: {step}");
            } else {
                // The last step: the fraction of dt that is left, never more than dt.
                prop_assert!((step / dt - fraction).abs() <= 1e-9 * scale / dt.abs(), "{step}");
            }
        }
    }

    /// A span that is a whole number n of steps (computed in floating point, where
    /// `(t1 − t0)/dt` may come out as n + 10⁻¹⁵ and its ceiling as n + 1) takes exactly n
    /// steps, not n + 1 with a sliver at the end.
    #[test]
    fn a_whole_number_of_steps_takes_exactly_that_many(
        t0 in -100.0_f64..100.0,
        dt in 1e-3_f64..1.0,
        n in 1_u32..300,
    ) {
        let t1 = t0 + f64::from(n) * dt;
        let unit_rate = |_: &f64, _t: f64| 1.0;
        let trajectory = Trajectory::new(ExplicitEuler, 0.0_f64, &unit_rate, t0, t1, dt).unwrap();
        prop_assert_eq!(trajectory.steps(), n as usize);
        let (t_end, y_end) = trajectory.last().unwrap().unwrap();
        prop_assert_eq!(t_end.to_bits(), t1.to_bits());
        prop_assert!((y_end - (t1 - t0)).abs() <= 1e3 * EPS * (t0.abs() + t1.abs()));
    }

    /// A positive finite mass is accepted, with its inverse and the momentum `m v`.
    #[test]
    fn positive_finite_masses_are_accepted(
        m in 1e-300_f64..1e300,
        x in -1e3_f64..1e3,
        v in -1e3_f64..1e3,
    ) {
        let particle = Particle::try_new(m, x, v).unwrap();
        prop_assert_eq!(particle.mass(), m);
        prop_assert_eq!(particle.inverse_mass(), 1.0 / m);
        prop_assert_eq!(particle.velocity(), v);
        prop_assert_eq!(particle.momentum(), m * v);
        prop_assert_eq!(particle.position(), x);
    }

    /// Zero and negative masses are refused as not positive, in both precisions.
    #[test]
    fn non_positive_masses_are_refused(m in -1e300_f64..=0.0) {
        prop_assert_eq!(Particle::try_new(m, 1.0_f64, 2.0), Err(MassError::NotPositive(m)));
        let m32 = m as f32;
        let refused = Particle::try_new(m32, 1.0_f32, 2.0);
        if m32.is_finite() {
            prop_assert_eq!(refused, Err(MassError::NotPositive(f64::from(m32))));
        } else {
            // Below f32's range the mass is −∞: refused too, as not finite.
            prop_assert_eq!(refused, Err(MassError::NotFinite(f64::NEG_INFINITY)));
        }
    }
}

#[test]
fn non_finite_masses_are_refused() {
    for m in [f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(Particle::try_new(m, 0.0, 0.0), Err(MassError::NotFinite(m)));
    }
    assert!(matches!(
        Particle::try_new(f64::NAN, 0.0, 0.0),
        Err(MassError::NotFinite(m)) if m.is_nan()
    ));
    assert!(matches!(
        Particle::try_new(f32::NAN, glam::Vec3::ZERO, glam::Vec3::X),
        Err(MassError::NotFinite(m)) if m.is_nan()
    ));
}

#[test]
#[should_panic(expected = "mass must be positive, got 0")]
fn particle_new_panics_with_the_reason() {
    let _ = Particle::new(0.0, 1.0_f64, 0.0);
}

/// Position Verlet remembers its last step; a step of zero must not disturb that memory:
/// the next real step continues as if the zero step had not been taken, and the run keeps
/// matching velocity Verlet's positions (which it does in exact arithmetic).
#[test]
fn a_zero_step_does_not_disturb_position_verlet_s_memory() {
    let forces = spring(7.0, 0.0);
    let mut with_zero = PositionVerlet::new();
    let mut without = PositionVerlet::new();
    let mut a = Particle::new(1.0, 1.0, 0.0);
    let mut b = a;
    for i in 0..10 {
        let t = i as f64 * 0.1;
        with_zero.step(&mut a, &forces, t, 0.1).unwrap();
        with_zero.step(&mut a, &forces, t + 0.1, 0.0).unwrap();
        without.step(&mut b, &forces, t, 0.1).unwrap();
    }
    assert_eq!(a, b);
    let verlet_says = {
        let mut c = Particle::new(1.0, 1.0, 0.0);
        for i in 0..10 {
            Verlet.step(&mut c, &forces, i as f64 * 0.1, 0.1).unwrap();
        }
        c
    };
    assert!((a.position() - verlet_says.position()).abs() < 1e-14);
}
