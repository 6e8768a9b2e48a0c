//! Time reversibility, and the identity of the two Verlet forms it rests on.
//!
//! A symmetric method's step of `−dt` is the exact inverse of its step of `dt` (theory:
//! velocity Verlet is the composition kick(dt/2) ∘ drift(dt) ∘ kick(dt/2) of maps each
//! undone by its own negative, in a palindromic order). So N steps forward and N back
//! return to the start up to rounding alone, on any force that depends on positions only,
//! linear or not. Non-symmetric methods (explicit Euler, RK4) leave an error of their
//! truncation order instead.

use timestep::{ExplicitEuler, Integrator, Particle, PositionVerlet, Rk4, Verlet};

const DT: f64 = 0.01;
const STEPS: usize = 1000;

/// A pendulum of length 1 m under g = 9.81 m/s², released at 2 rad (115°, far from the
/// small-angle regime) with 0.5 rad/s: the force on the angle is `−m (g/L) sin θ`.
fn pendulum(p: &Particle<f64>, _t: f64) -> f64 {
    -p.mass() * 9.81 * p.position().sin()
}

/// A hardening (Duffing) spring `F = −k x − c x³`, k 4, c 10, from x = 1.5.
fn hardening_spring(p: &Particle<f64>, _t: f64) -> f64 {
    let x = p.position();
    -4.0 * x - 10.0 * x * x * x
}

/// Steps `steps` times forward from t = 0, then `steps` times back with `−dt`, and returns
/// the largest distance from the start, relative to the size of the motion.
fn round_trip<I, F>(mut integrator: I, forces: &F, start: Particle<f64>, steps: usize) -> f64
where
    I: Integrator<Particle<f64>>,
    F: Fn(&Particle<f64>, f64) -> f64,
{
    let mut particle = start;
    let mut largest_x = start.position().abs();
    let mut largest_v = start.velocity().abs();
    for i in 0..steps {
        integrator
            .step(&mut particle, forces, i as f64 * DT, DT)
            .expect("finite step");
        largest_x = largest_x.max(particle.position().abs());
        largest_v = largest_v.max(particle.velocity().abs());
    }
    for i in (1..=steps).rev() {
        integrator
            .step(&mut particle, forces, i as f64 * DT, -DT)
            .expect("finite step");
    }
    let dx = (particle.position() - start.position()).abs() / largest_x;
    let dv = (particle.velocity() - start.velocity()).abs() / largest_v;
    dx.max(dv)
}

/// A force that depends on the position alone.
type Force = fn(&Particle<f64>, f64) -> f64;

fn starts() -> [(&'static str, Force, Particle<f64>); 2] {
    [
        ("pendulum", pendulum, Particle::new(0.7, 2.0, 0.5)),
        (
            "hardening spring",
            hardening_spring,
            Particle::new(1.3, 1.5, 0.0),
        ),
    ]
}

/// Rounding bound: each of the 2000 steps rounds a handful of operations at relative
/// ε ≈ 1.1·10⁻¹⁶; even if every rounding error added up, 2000 · 5 · ε ≈ 10⁻¹².
const ROUNDING: f64 = 1e-12;

#[test]
fn velocity_verlet_retraces_its_steps_to_rounding() {
    for (name, forces, start) in starts() {
        let error = round_trip(Verlet, &forces, start, STEPS);
        println!("verlet, {name}: relative return error {error:.2e}");
        assert!(error <= ROUNDING, "{name}: {error:e}");
    }
}

/// Position Verlet carries its memory of the last displacement through the reversal: the
/// first step back at t = 10 s continues from the step that ended there (a step of −dt
/// after one of +dt uses the displacement `u(t − dt/2)` unchanged, landing on x(t − dt)).
#[test]
fn position_verlet_retraces_its_steps_to_rounding() {
    for (name, forces, start) in starts() {
        let error = round_trip(PositionVerlet::new(), &forces, start, STEPS);
        println!("position-verlet, {name}: relative return error {error:.2e}");
        assert!(error <= ROUNDING, "{name}: {error:e}");
    }
}

/// The control: the same experiment with methods that are not symmetric does not return.
/// Explicit Euler's forward-then-back map is `I + O(dt²)` per step, so `O(N ω² dt²)`
/// (~10⁻² and more) in all; it is run for 100 steps only, because over 1000 its energy
/// growth overflows on the hardening spring. RK4's is `I + O(dt⁵)` per step: over the
/// full 1000 steps, ~10⁻⁸ to 10⁻⁵, four orders of magnitude and more above rounding.
#[test]
fn non_symmetric_methods_do_not_return() {
    for (name, forces, start) in starts() {
        let euler = round_trip(ExplicitEuler, &forces, start, STEPS / 10);
        let rk4 = round_trip(Rk4, &forces, start, STEPS);
        println!("{name}: explicit Euler {euler:.2e}, RK4 {rk4:.2e}");
        assert!(euler > 1e-3, "{name}: explicit Euler {euler:e}");
        assert!(rk4 > 1e4 * ROUNDING, "{name}: RK4 {rk4:e}");
    }
}

/// Position Verlet is velocity Verlet written without the velocity: with steps `hₙ`, velocity
/// Verlet's displacement per unit time `uₙ₊½ = (xₙ₊₁ − xₙ)/hₙ = vₙ + aₙ hₙ/2` obeys
/// `uₙ₊½ = uₙ₋½ + aₙ (hₙ₋₁ + hₙ)/2`, which is position Verlet's recurrence. So the two give
/// the same positions (to rounding) for any sequence of steps, here irregular ones,
/// including a reversal of direction in the middle of the run.
#[test]
fn position_verlet_follows_velocity_verlet_for_any_steps() {
    for (name, forces, start) in starts() {
        let mut by_velocity = start;
        let mut by_position = start;
        let mut integrator = PositionVerlet::new();
        let mut t = 0.0;
        for i in 0..600 {
            let dt = match i {
                0..300 => 0.01 * (1.0 + 0.5 * (i as f64 * 0.7).sin()),
                _ => -0.008 * (1.0 + 0.3 * (i as f64 * 1.3).cos()),
            };
            Verlet.step(&mut by_velocity, &forces, t, dt).unwrap();
            integrator.step(&mut by_position, &forces, t, dt).unwrap();
            t += dt;
            let scale = by_velocity.position().abs() + 1.0;
            assert!(
                (by_position.position() - by_velocity.position()).abs() < 1e-12 * scale,
                "{name}, step {i}: {} vs {}",
                by_position.position(),
                by_velocity.position()
            );
            assert!(
                (by_position.velocity() - by_velocity.velocity()).abs()
                    < 1e-12 * (by_velocity.velocity().abs() + 1.0),
                "{name}, step {i}"
            );
        }
    }
}

/// Position Verlet's memory is used only when a step starts where the last one ended, to
/// within the rounding of `t` and never as far as a whole step: a skipped frame at f32
/// t = 100 s (60 Hz) and a skipped step at f64 t = 10⁶ s (dt = 10⁻⁴) restart from the
/// velocity, exactly as a fresh stepper would, where a tolerance of √ε·|t| took the stale
/// memory for the next step's. (The velocity is changed by hand between the steps, so
/// that using the memory, which ignores it, would show.)
#[test]
fn position_verlet_never_takes_a_skipped_step_for_the_next() {
    let spring32 = |p: &Particle<f32>, _t: f32| -4.0 * p.position();
    let (t, dt) = (100.0_f32, 1.0_f32 / 60.0);
    let mut remembering = PositionVerlet::new();
    let mut particle = Particle::new(1.0_f32, 1.0, 0.5);
    remembering.step(&mut particle, &spring32, t, dt).unwrap();
    particle.set_velocity(-3.0);
    let mut fresh_copy = particle;
    remembering
        .step(&mut particle, &spring32, t + 2.0 * dt, dt)
        .unwrap();
    PositionVerlet::new()
        .step(&mut fresh_copy, &spring32, t + 2.0 * dt, dt)
        .unwrap();
    assert_eq!(particle, fresh_copy);

    let spring = |p: &Particle<f64>, _t: f64| -4.0 * p.position();
    let (t, dt) = (1e6_f64, 1e-4);
    let mut remembering = PositionVerlet::new();
    let mut particle = Particle::new(1.0, 1.0, 0.5);
    remembering.step(&mut particle, &spring, t, dt).unwrap();
    particle.set_velocity(-3.0);
    let mut fresh_copy = particle;
    remembering
        .step(&mut particle, &spring, t + 2.0 * dt, dt)
        .unwrap();
    PositionVerlet::new()
        .step(&mut fresh_copy, &spring, t + 2.0 * dt, dt)
        .unwrap();
    assert_eq!(particle, fresh_copy);

    // ...while the next step, at t + dt computed as a game computes it, does continue
    // from the memory (and so ignores the velocity set by hand).
    let t2 = t + 2.0 * dt;
    let mut continuing = particle;
    continuing.set_velocity(5.0);
    let mut bootstrapped = continuing;
    remembering
        .step(&mut continuing, &spring, t2 + dt, dt)
        .unwrap();
    PositionVerlet::new()
        .step(&mut bootstrapped, &spring, t2 + dt, dt)
        .unwrap();
    assert!((continuing.position() - bootstrapped.position()).abs() > 1e-4);
}
