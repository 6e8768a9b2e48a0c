//! Drawing between steps: the straight-line blend of `Interpolate` against the cubic
//! Hermite curve of `InterpolateMotion`, and extrapolation.
//!
//! Theory. Between two states a step `dt` apart, a curve that matches the two positions
//! only (the straight line) misses a smooth path by up to `max|x''| dt² / 8`: halve `dt`
//! and the error falls 4-fold. The cubic that also matches the two velocities (Hermite)
//! misses it by up to `max|x''''| dt⁴ / 384`: 16-fold. Both states here are taken from the
//! exact motion (or, for the tumbling body, from a reference run far more accurate than
//! either blend), so what is measured is the blend's error alone. Orientations: normalized
//! lerp follows the great circle between the two ends, which a tumbling body's orientation
//! leaves by `O(dt²)` (4-fold); the Hermite cubic in quaternion space with the spin `½ ω q`
//! as velocity is `dt⁴` again.
//! Extrapolation at the current velocity misses a path under a constant force `F` by
//! exactly `½ (F/m) (α dt)²`, and is exact for a steady turn about a fixed axis.

use approx::{assert_abs_diff_eq, assert_relative_eq};
use timestep::glam::{DQuat, DVec2, DVec3};
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{Integrator, Interpolate, InterpolateMotion, Particle, Rk4};

/// The steps at which errors are measured; each half the one before.
const STEPS: [f64; 4] = [0.04, 0.02, 0.01, 0.005];

/// The fractions of a step at which the blends are compared with the exact motion.
fn fractions() -> impl Iterator<Item = f64> {
    (0..=16).map(|i| f64::from(i) / 16.0)
}

/// The ratios of successive errors: about `2ᵖ` for an error of order `dtᵖ`.
fn ratios(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|pair| pair[0] / pair[1]).collect()
}

/// Asserts every ratio is within 6% of `expected`, printing them (`--nocapture`).
fn assert_ratios(what: &str, errors: &[f64], expected: f64) {
    let ratios = ratios(errors);
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
    println!("{what}: errors {shown:?}, ratios {ratios:.3?}");
    for ratio in ratios {
        assert!(
            (ratio / expected - 1.0).abs() < 0.06,
            "{what}: error ratio {ratio} when dt halves, expected {expected}"
        );
    }
}

/// A mass on a spring, k = 15 N/m, m = 1 kg: x = cos(√15 t), exactly.
fn spring_at(t: f64) -> Particle<f64> {
    let omega = 15.0_f64.sqrt();
    Particle::new(1.0, (omega * t).cos(), -omega * (omega * t).sin())
}

#[test]
fn on_a_spring_lerp_error_falls_as_dt2_and_hermite_as_dt4() {
    let t0 = 0.1;
    let (mut line, mut curve) = (Vec::new(), Vec::new());
    for dt in STEPS {
        let (before, after) = (spring_at(t0), spring_at(t0 + dt));
        let (mut worst_line, mut worst_curve) = (0.0_f64, 0.0_f64);
        for alpha in fractions() {
            let exact = spring_at(t0 + alpha * dt).position();
            worst_line =
                worst_line.max((before.interpolate(&after, alpha).position() - exact).abs());
            worst_curve =
                worst_curve.max((before.hermite(&after, alpha, dt).position() - exact).abs());
        }
        line.push(worst_line);
        curve.push(worst_curve);
    }
    assert_ratios("spring, lerp", &line, 4.0);
    assert_ratios("spring, hermite", &curve, 16.0);
    // And the bounds themselves: ω² dt² / 8 and ω⁴ dt⁴ / 384 (|x''| ≤ ω², |x''''| ≤ ω⁴).
    let omega2 = 15.0;
    for ((dt, line), curve) in STEPS.iter().zip(&line).zip(&curve) {
        assert!(*line <= omega2 * dt * dt / 8.0);
        assert!(*line > 0.5 * omega2 * dt * dt / 8.0);
        assert!(*curve <= omega2 * omega2 * dt.powi(4) / 384.0);
    }
}

#[test]
fn the_hermite_momentum_is_the_curves_own_velocity_and_falls_as_dt3() {
    // The derivative of a cubic that matches x to O(dt⁴) matches v to O(dt³).
    let t0 = 0.1;
    let mut errors = Vec::new();
    for dt in STEPS {
        let (before, after) = (spring_at(t0), spring_at(t0 + dt));
        let worst = fractions()
            .map(|alpha| {
                let exact = spring_at(t0 + alpha * dt).momentum();
                (before.hermite(&after, alpha, dt).momentum() - exact).abs()
            })
            .fold(0.0, f64::max);
        errors.push(worst);
    }
    assert_ratios("spring momentum, hermite", &errors, 8.0);
}

/// Uniform circular motion in the plane, radius 2 m at 3 rad/s, as a 2D particle.
fn orbit_at(t: f64) -> Particle<DVec2> {
    let (radius, omega) = (2.0, 3.0);
    let (sin, cos) = (omega * t).sin_cos();
    Particle::new(
        1.5,
        DVec2::new(cos, sin) * radius,
        DVec2::new(-sin, cos) * (radius * omega),
    )
}

#[test]
fn on_a_circle_the_same_orders_hold_in_the_plane() {
    let t0 = 1.1;
    let (mut line, mut curve) = (Vec::new(), Vec::new());
    for dt in STEPS {
        let (before, after) = (orbit_at(t0), orbit_at(t0 + dt));
        let (mut worst_line, mut worst_curve) = (0.0_f64, 0.0_f64);
        for alpha in fractions() {
            let exact = orbit_at(t0 + alpha * dt).position();
            let line = before.interpolate(&after, alpha).position();
            let curve = before.hermite(&after, alpha, dt).position();
            worst_line = worst_line.max((line - exact).length());
            worst_curve = worst_curve.max((curve - exact).length());
        }
        line.push(worst_line);
        curve.push(worst_curve);
    }
    assert_ratios("circle, lerp", &line, 4.0);
    assert_ratios("circle, hermite", &curve, 16.0);
}

#[test]
fn under_a_constant_force_hermite_is_exact() {
    // A ball thrown at (3, 12) m/s: x = v₀t + ½gt² is a quadratic, which the cubic reproduces.
    let g = DVec2::new(0.0, -9.81);
    let at = |t: f64| {
        Particle::new(
            0.2,
            DVec2::new(3.0, 12.0) * t + 0.5 * g * t * t,
            DVec2::new(3.0, 12.0) + g * t,
        )
    };
    let dt = 0.25;
    let (before, after) = (at(1.0), at(1.0 + dt));
    for alpha in fractions() {
        let drawn = before.hermite(&after, alpha, dt);
        let exact = at(1.0 + alpha * dt);
        assert_abs_diff_eq!(drawn.position().x, exact.position().x, epsilon = 1e-13);
        assert_abs_diff_eq!(drawn.position().y, exact.position().y, epsilon = 1e-13);
        assert_abs_diff_eq!(drawn.momentum().y, exact.momentum().y, epsilon = 1e-12);
        // The straight line (the chord) runs below the parabola by ½|g| α(1 − α) dt².
        let line = before.interpolate(&after, alpha).position().y;
        assert_relative_eq!(
            exact.position().y - line,
            0.5 * 9.81 * alpha * (1.0 - alpha) * dt * dt,
            epsilon = 1e-12
        );
    }
}

/// The reference run for the tumbling body: RK4 at 1/64 of the coarsest blend step.
struct Tumbling {
    /// States every `h` seconds from `t0`.
    states: Vec<DRigidBody>,
    h: f64,
}

impl Tumbling {
    /// A torque-free body, I = diag(1, 2, 3), tumbling at ω₀ = (1, 0.5, 0.3) rad/s, from
    /// t = 0 to `t0`, then sampled every `h` until `t0 + span`.
    fn new(t0: f64, span: f64, h: f64) -> Self {
        let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
        let mut body = DRigidBody::new(2.0, Inertia::diagonal(1.0, 2.0, 3.0));
        body.set_angular_velocity(DVec3::new(1.0, 0.5, 0.3));
        body.set_velocity(DVec3::new(1.0, 2.0, 0.0));
        let mut t = 0.0;
        while t < t0 - 0.5 * h {
            Rk4.step(&mut body, &free, t, h).unwrap();
            t += h;
        }
        let mut states = vec![body];
        for _ in 0..(span / h).round() as usize {
            Rk4.step(&mut body, &free, t, h).unwrap();
            t += h;
            states.push(body);
        }
        Tumbling { states, h }
    }
}

/// The angle between two orientations, accurate for small angles too (glam's
/// `angle_between` goes through `acos` and reads 0 below about 2·10⁻⁸ rad).
fn angle(a: DQuat, b: DQuat) -> f64 {
    let chord = (a - b).length().min((a + b).length());
    4.0 * (0.5 * chord).asin()
}

#[test]
fn a_tumbling_body_turns_within_dt4_with_hermite_and_dt2_with_nlerp() {
    // ω changes direction all the time here, so the orientation's path is no great circle,
    // and normalized lerp, which follows the great circle between the two ends, is off by
    // O(dt²); about a fixed axis it would be O(dt³).
    let coarsest = STEPS[0];
    let h = coarsest / 64.0;
    let reference = Tumbling::new(0.7, coarsest, h);
    let (mut nlerp, mut curve) = (Vec::new(), Vec::new());
    for dt in STEPS {
        let samples = (dt / h).round() as usize; // 64, 32, 16, 8 reference steps a step
        let (before, after) = (reference.states[0], reference.states[samples]);
        let (mut worst_nlerp, mut worst_curve) = (0.0_f64, 0.0_f64);
        for k in 0..=8_u32 {
            let alpha = f64::from(k) / 8.0;
            let exact = reference.states[k as usize * samples / 8].orientation();
            let line = before.interpolate(&after, alpha).orientation();
            let cubic = before.hermite(&after, alpha, dt).orientation();
            worst_nlerp = worst_nlerp.max(angle(line, exact));
            worst_curve = worst_curve.max(angle(cubic, exact));
        }
        nlerp.push(worst_nlerp);
        curve.push(worst_curve);
        assert_eq!(reference.h, h);
    }
    assert_ratios("tumbling orientation, nlerp", &nlerp, 4.0);
    assert_ratios("tumbling orientation, hermite", &curve, 16.0);
}

#[test]
fn a_body_on_a_spring_moves_within_dt4_with_hermite() {
    // The body's position uses the same cubic as a particle's.
    let omega = 15.0_f64.sqrt();
    let at = |t: f64| {
        let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
        body.set_position(DVec3::new((omega * t).cos(), 0.0, 0.0));
        body.set_velocity(DVec3::new(-omega * (omega * t).sin(), 0.0, 0.0));
        body
    };
    let mut errors = Vec::new();
    for dt in STEPS {
        let (before, after) = (at(0.1), at(0.1 + dt));
        let worst = fractions()
            .map(|alpha| {
                let drawn = before.hermite(&after, alpha, dt).position();
                (drawn - at(0.1 + alpha * dt).position()).length()
            })
            .fold(0.0, f64::max);
        errors.push(worst);
    }
    assert_ratios("body on a spring, hermite", &errors, 16.0);
}

#[test]
fn hermite_returns_both_ends_and_takes_the_short_way_round() {
    let mut before = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    before.set_angular_velocity(DVec3::new(0.3, 1.0, -0.2));
    before.set_velocity(DVec3::new(1.0, 0.0, 2.0));
    let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
    let dt = 0.05;
    let mut after = before;
    Rk4.step(&mut after, &free, 0.0, dt).unwrap();

    let start = before.hermite(&after, 0.0, dt);
    assert_eq!(start.position(), before.position());
    assert_eq!(start.momentum(), before.momentum());
    assert!(start.orientation().angle_between(before.orientation()) < 1e-7);
    let end = before.hermite(&after, 1.0, dt);
    assert_eq!(end.position(), after.position());
    assert_eq!(end.momentum(), after.momentum());
    assert!(end.orientation().angle_between(after.orientation()) < 1e-7);

    // The same end orientation written as its negative: the same rotation, the same curve.
    let mut flipped = after;
    flipped.set_orientation(-after.orientation());
    let turn = after.orientation().angle_between(before.orientation());
    for alpha in fractions() {
        let plain = before.hermite(&after, alpha, dt).orientation();
        let other = before.hermite(&flipped, alpha, dt).orientation();
        assert!(plain.angle_between(other) < 1e-7);
        // Never further from the start than the whole turn (no detour the long way round).
        assert!(other.angle_between(before.orientation()) <= turn + 1e-7);
    }
}

#[test]
fn extrapolation_misses_a_constant_force_by_half_a_t_squared() {
    let g = DVec2::new(0.0, -9.81);
    let at = |t: f64| {
        Particle::new(
            0.5,
            DVec2::new(2.0, 8.0) * t + 0.5 * g * t * t,
            DVec2::new(2.0, 8.0) + g * t,
        )
    };
    let dt = 1.0 / 60.0;
    for alpha in [0.0, 0.25, 0.5, 1.0, 3.0] {
        let ahead = at(1.0).extrapolate(alpha, dt);
        let exact = at(1.0 + alpha * dt);
        let gap = ahead.position() - exact.position();
        assert_abs_diff_eq!(gap.x, 0.0, epsilon = 1e-14);
        assert_relative_eq!(gap.y, 0.5 * 9.81 * (alpha * dt).powi(2), epsilon = 1e-14);
        // Momentum is kept: the velocity is still the current one.
        assert_eq!(ahead.momentum(), at(1.0).momentum());
    }
}

#[test]
fn extrapolation_is_exact_for_a_steady_turn_about_a_fixed_axis() {
    // A cube spins steadily about any axis: ω = (1, 2, 2)/3 · 4 rad/s, and moves at (0, 1, 0).
    let axis = DVec3::new(1.0, 2.0, 2.0) / 3.0;
    let at = |t: f64| {
        let mut cube = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
        cube.set_orientation(DQuat::from_axis_angle(axis, 4.0 * t));
        cube.set_angular_velocity(axis * 4.0);
        cube.set_position(DVec3::new(0.0, t, 0.0));
        cube.set_velocity(DVec3::Y);
        cube
    };
    let dt = 0.1;
    for alpha in [0.25, 0.5, 1.0, 2.0] {
        let ahead = at(0.5).extrapolate(alpha, dt);
        let exact = at(0.5 + alpha * dt);
        assert!(ahead.orientation().angle_between(exact.orientation()) < 1e-7);
        assert!((ahead.position() - exact.position()).length() < 1e-15);
        assert!((ahead.angular_velocity() - exact.angular_velocity()).length() < 1e-14);
    }
}

#[test]
fn zero_dt_non_finite_alpha_and_alpha_outside_the_step() {
    let before = Particle::new(1.0, 0.0_f64, 5.0);
    let after = Particle::new(1.0, 1.0_f64, 7.0);
    // dt = 0: the two are at the same instant; smoothstep in position, linear in momentum.
    let same_instant = before.hermite(&after, 0.5, 0.0);
    assert_eq!(same_instant.position(), 0.5);
    assert_eq!(same_instant.momentum(), 6.0);
    assert_eq!(before.hermite(&after, 0.25, 0.0).position(), 0.15625); // 3α² − 2α³
    assert_eq!(before.extrapolate(0.7, 0.0), before);
    assert_eq!(before.extrapolate(0.0, 0.1), before);

    assert!(before.hermite(&after, f64::NAN, 0.1).position().is_nan());
    assert!(
        !before
            .hermite(&after, f64::INFINITY, 0.1)
            .position()
            .is_finite()
    );
    assert!(before.extrapolate(f64::NAN, 0.1).position().is_nan());

    // α outside [0, 1]: the same cubic continued. For motion the cubic describes exactly
    // (here constant velocity), it stays right.
    let uniform = |t: f64| Particle::new(1.0, 2.0 * t, 2.0);
    let drawn = uniform(0.0).hermite(&uniform(0.1), 1.5, 0.1);
    assert_abs_diff_eq!(drawn.position(), 0.3, epsilon = 1e-15);
    assert_abs_diff_eq!(
        uniform(0.0).extrapolate(-1.0, 0.1).position(),
        -0.2,
        epsilon = 1e-15
    );

    let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    body.set_angular_velocity(DVec3::Z);
    assert_eq!(body.extrapolate(0.5, 0.0), body);
    assert!(body.extrapolate(f64::NAN, 0.1).orientation().is_nan());
}
