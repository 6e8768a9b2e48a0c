//! The torque-free asymmetric body: `I = diag(1, 2, 3)` spun at `ω = (0.001, 2, 0.001)`, close
//! to its intermediate axis, which it flips over about every 15 s (the Dzhanibekov effect).
//! Conservation of angular momentum and energy, the flips against the closed-form period,
//! and the measured energy error of every method at 60 Hz over 60 s.

use glam::{DQuat, DVec3};
use timestep::MethodKind;
use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate, Splitting};
use timestep::{Integrator, Method, Rk4};

const MOMENTS: [f64; 3] = [1.0, 2.0, 3.0];
const OMEGA: [f64; 3] = [0.001, 2.0, 0.001];

fn free(_: &DRigidBody, _t: f64) -> (DVec3, DVec3) {
    (DVec3::ZERO, DVec3::ZERO)
}

fn tumbling(update: OrientationUpdate) -> DRigidBody {
    let [a, b, c] = MOMENTS;
    let mut body = DRigidBody::new(1.0, Inertia::diagonal(a, b, c));
    body.set_orientation_update(update);
    body.set_angular_velocity(DVec3::from(OMEGA));
    body
}

/// The angular momentum in principal body coordinates (`m = I ω` in the body frame).
fn principal_momentum(body: &DRigidBody) -> DVec3 {
    body.principal_rotation().conjugate() * body.to_body_direction(body.angular_momentum())
}

/// What a run of 60 s measured.
struct Run {
    /// Largest relative error of the kinetic energy.
    energy: f64,
    /// Relative change of the energy at the end (signed).
    energy_end: f64,
    /// Largest relative change of |L|.
    momentum: f64,
    /// Times the intermediate axis turned over (zero crossings of m₂, interpolated).
    flips: Vec<f64>,
}

fn run<I: Integrator<DRigidBody>>(
    mut integrator: I,
    mut body: DRigidBody,
    hz: f64,
    intermediate_axis: usize,
) -> Run {
    let dt = 1.0 / hz;
    let energy = body.kinetic_energy();
    let momentum = body.angular_momentum().length();
    let mut worst = (0.0_f64, 0.0_f64);
    let mut flips = Vec::new();
    let mut last = principal_momentum(&body)[intermediate_axis];
    for i in 0..(60.0 * hz).round() as usize {
        integrator
            .step(&mut body, &free, i as f64 * dt, dt)
            .unwrap();
        worst.0 = worst.0.max((body.kinetic_energy() - energy).abs() / energy);
        worst.1 = worst
            .1
            .max((body.angular_momentum().length() - momentum).abs() / momentum);
        let now = principal_momentum(&body)[intermediate_axis];
        if (now > 0.0) != (last > 0.0) {
            flips.push((i as f64 + last / (last - now)) * dt);
        }
        last = now;
    }
    Run {
        energy: worst.0,
        energy_end: (body.kinetic_energy() - energy) / energy,
        momentum: worst.1,
        flips,
    }
}

#[test]
fn angular_momentum_is_bit_for_bit_constant_without_torque() {
    // L changes only in kicks, and a kick by a zero torque adds 0·dt: nothing. Runge–Kutta
    // stages combine zero torques into zero; backward Euler's Newton solve finds the torque
    // part of its rate exactly at zero; Splitting's free flight does not touch L at all.
    for update in [OrientationUpdate::Additive, OrientationUpdate::Exponential] {
        let start = tumbling(update);
        let bits = start.angular_momentum().to_array().map(f64::to_bits);
        let dt = 1.0 / 60.0;
        let check = |name: &str, body: &DRigidBody| {
            let now = body.angular_momentum().to_array().map(f64::to_bits);
            assert_eq!(now, bits, "{name}, {update:?}: L changed");
        };
        for mut method in MethodKind::all().into_iter().map(Method::<DRigidBody>::new) {
            let mut body = start;
            for i in 0..600 {
                method.step(&mut body, &free, i as f64 * dt, dt).unwrap();
                check(method.name(), &body);
            }
        }
        let mut body = start;
        for i in 0..600 {
            Splitting.step(&mut body, &free, i as f64 * dt, dt).unwrap();
            check("splitting", &body);
        }
    }
}

/// Each method's largest relative energy error at 60 Hz over 60 s, the additive orientation
/// update, and the band it must stay in. The numbers are the table in the `rigid` module docs.
///
/// The compositions of velocity Verlet (`forest-ruth` … `kahan-li8`) are no better than
/// Verlet on a rigid body: a drift along the spin `½ ω q` is not the exact flow of the
/// orientation, so their base step is not symmetric and composing it raises nothing. The
/// compositions of [`Splitting`] (`splitting4`, `splitting6`) are the ones for rigid bodies.
const ENERGY_BOUNDS: [(&str, f64, f64); 33] = [
    ("explicit-euler", 0.80, 0.86),
    ("semi-implicit-euler", 0.80, 0.86),
    ("midpoint", 3e-5, 5e-5),
    ("improved-euler", 7e-5, 1e-4),
    ("rk4", 3e-9, 7e-9),
    ("verlet", 0.80, 0.86),
    ("position-verlet", 2e-5, 3e-5),
    ("backward-euler", 0.28, 0.34),
    ("bs3", 1e-5, 1.5e-5),
    ("dopri5", 4e-11, 7e-11),
    ("tsit5", 5e-13, 1.2e-12),
    // At rounding: 3.3·10⁻¹⁵.
    ("dop853", 0.0, 1e-14),
    ("leapfrog", 0.38, 0.43),
    ("beeman", 0.80, 0.86),
    ("adams-bashforth-moulton", 7e-8, 1.1e-7),
    ("exponential-euler", 0.80, 0.86),
    ("predictor-corrector", 0.28, 0.34),
    ("forest-ruth", 0.95, 1.05),
    ("suzuki4", 0.85, 0.92),
    ("yoshida6", 0.95, 1.05),
    ("yoshida8", 0.95, 1.05),
    ("blanes-moan4", 0.19, 0.24),
    ("kahan-li8", 0.95, 1.05),
    // The one-stage implicit rules keep quadratic invariants of linear systems; here the
    // energy swings at each flip and comes back (−4·10⁻¹¹ at the end): no drift.
    ("trapezoid", 4e-5, 5.5e-5),
    ("implicit-midpoint", 4e-5, 5.5e-5),
    ("newmark", 4e-5, 5.5e-5),
    ("rodas4", 8e-10, 1.5e-9),
    ("rodas5p", 5e-10, 9e-10),
    ("ros3p", 3e-5, 5e-5),
    // Order 5 and dissipative (L-stable, not symplectic): the energy only falls, by
    // 5·10⁻¹¹ over the minute.
    ("radau5", 4e-11, 6e-11),
    ("splitting", 6e-6, 1e-5),
    ("splitting4", 8e-11, 1.5e-10),
    ("splitting6", 1e-13, 2.5e-13),
];

#[test]
fn energy_error_of_every_method_at_60_hz_over_60_s() {
    let body = tumbling(OrientationUpdate::Additive);
    let mut runs: Vec<(String, Run)> = MethodKind::all()
        .into_iter()
        .map(Method::<DRigidBody>::new)
        .map(|method| (method.to_string(), run(method, body, 60.0, 1)))
        .collect();
    runs.push(("splitting".into(), run(Splitting, body, 60.0, 1)));
    runs.push(("splitting4".into(), run(Splitting::ORDER4, body, 60.0, 1)));
    runs.push(("splitting6".into(), run(Splitting::ORDER6, body, 60.0, 1)));

    println!("| method | energy | energy at 60 s | |L| | flips |");
    for (name, run) in &runs {
        println!(
            "| {name} | {:.2e} | {:+.2e} | {:.1e} | {} |",
            run.energy,
            run.energy_end,
            run.momentum,
            run.flips.len(),
        );
    }
    assert_eq!(runs.len(), ENERGY_BOUNDS.len(), "a band for every method");
    for ((name, run), (expected, low, high)) in runs.iter().zip(ENERGY_BOUNDS) {
        assert_eq!(name, expected);
        assert!(
            (low..high).contains(&run.energy),
            "{name}: energy error {:e} outside [{low:e}, {high:e})",
            run.energy
        );
        assert_eq!(run.momentum, 0.0, "{name}: |L| changed");
    }
}

#[test]
fn exponential_update_energy_errors() {
    // The exponential map changes nothing for the single-sample methods (same bands as the
    // additive update), and costs RK4 its fourth order in the orientation.
    let body = tumbling(OrientationUpdate::Exponential);
    let rk4 = run(Rk4, body, 60.0, 1);
    println!("rk4, exponential update: energy {:.2e}", rk4.energy);
    assert!((3e-6..8e-6).contains(&rk4.energy), "{:e}", rk4.energy);
    let euler = run(timestep::SemiImplicitEuler, body, 60.0, 1);
    assert!((0.80..0.86).contains(&euler.energy), "{:e}", euler.energy);
    let splitting = run(Splitting, body, 60.0, 1);
    assert!(splitting.energy < 1e-5, "{:e}", splitting.energy);
}

/// The arithmetic–geometric mean of `a` and `b`.
fn agm(mut a: f64, mut b: f64) -> f64 {
    while (a - b).abs() > 1e-15 * a {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    a
}

/// Carlson's symmetric elliptic integral `R_F(x, y, z)`, by the duplication theorem.
fn carlson_rf(mut x: f64, mut y: f64, mut z: f64) -> f64 {
    for _ in 0..60 {
        let l = (x * y).sqrt() + (y * z).sqrt() + (z * x).sqrt();
        (x, y, z) = (0.25 * (x + l), 0.25 * (y + l), 0.25 * (z + l));
    }
    1.0 / x.sqrt()
}

/// The Euler–Poinsot solution for the flips of the intermediate axis (Landau & Lifshitz,
/// Mechanics §37), for `I₁ < I₂ < I₃` and `L² > 2E I₂` (the body circles the `I₃` axis):
/// `ω₁ = A cn τ`, `ω₂ = B sn τ`, `ω₃ = C dn τ`, `τ = λ t + τ₀`. `ω₂` changes sign every
/// `2K(k)` in `τ`: returns (time of the first flip, time between flips).
fn analytic_flips(moments: [f64; 3], omega: [f64; 3]) -> (f64, f64) {
    let [i1, i2, i3] = moments;
    let l2: f64 = (0..3).map(|i| (moments[i] * omega[i]).powi(2)).sum();
    let e2: f64 = (0..3).map(|i| moments[i] * omega[i].powi(2)).sum();
    // L² − 2E I₂ = Σ Iᵢ ωᵢ² (Iᵢ − I₂): the ω₂ term drops out, no cancellation.
    let excess: f64 = (0..3)
        .map(|i| moments[i] * omega[i].powi(2) * (moments[i] - i2))
        .sum();
    assert!(excess > 0.0, "this solution needs L² > 2E I₂");
    let lambda = ((i3 - i2) * (l2 - e2 * i1) / (i1 * i2 * i3)).sqrt();
    // k² = (I₂ − I₁)(2E I₃ − L²) / ((I₃ − I₂)(L² − 2E I₁)); k'² = 1 − k² without cancellation.
    let k_prime2 = (i3 - i1) * excess / ((i3 - i2) * (l2 - e2 * i1));
    let k2 = 1.0 - k_prime2;
    let quarter = std::f64::consts::FRAC_PI_2 / agm(1.0, k_prime2.sqrt());
    assert!((quarter - carlson_rf(0.0, k_prime2, 1.0)).abs() < 1e-12 * quarter);
    // τ₀ = F(φ₀, k) with cos φ₀ = ω₁ / A and sn τ₀ = sin φ₀ > 0 (ω₂ > 0).
    let a = ((e2 * i3 - l2) / (i1 * (i3 - i1))).sqrt();
    let cos_phi = omega[0] / a;
    let sin_phi = (1.0 - cos_phi * cos_phi).sqrt();
    let tau0 = sin_phi * carlson_rf(cos_phi * cos_phi, k_prime2 + k2 * cos_phi * cos_phi, 1.0);
    ((2.0 * quarter - tau0) / lambda, 2.0 * quarter / lambda)
}

fn check_flips(name: &str, flips: &[f64], tolerance: f64) {
    let (first, period) = analytic_flips(MOMENTS, OMEGA);
    println!("{name}: flips at {flips:?}; analytic: first {first}, then every {period}");
    let expected: Vec<f64> = (0..4).map(|n| first + n as f64 * period).collect();
    assert_eq!(
        flips.len(),
        4,
        "{name}: flips {flips:?}, expected {expected:?}"
    );
    // Errors in the period add up from flip to flip.
    for (n, (flip, expected)) in flips.iter().zip(&expected).enumerate() {
        assert!(
            (flip - expected).abs() < (n + 1) as f64 * tolerance * period,
            "{name}: flip at {flip}, expected {expected}"
        );
    }
    for pair in flips.windows(2) {
        let interval = pair[1] - pair[0];
        assert!(
            (interval - period).abs() < tolerance * period,
            "{name}: {interval} between flips, expected {period}"
        );
    }
}

#[test]
fn analytic_flip_period() {
    let (first, period) = analytic_flips(MOMENTS, OMEGA);
    // K(k) ≈ ln(4/k') for k → 1: with k'² = 5·10⁻⁷, K = 8.6406…, λ = √(4/3) rad/s.
    assert!((period - 14.965_995_135_6).abs() < 1e-9, "{period}");
    assert!((first - 8.053_257_016_2).abs() < 1e-9, "{first}");
}

#[test]
fn intermediate_axis_flips_follow_the_elliptic_period() {
    // RK4 at 600 Hz follows the closed form to 10⁻⁷ s.
    let body = tumbling(OrientationUpdate::Additive);
    check_flips("rk4, 600 Hz", &run(Rk4, body, 600.0, 1).flips, 1e-7);
    // At 60 Hz the methods' small energy errors show in the period, which near the
    // separatrix is very sensitive to the energy. RK4's energy decays slowly, and its
    // intervals shorten by 2.4, 4.8 and 7.1·10⁻⁴ of a period; Splitting's error is bounded,
    // and its intervals are a steady 5·10⁻⁵ too long.
    check_flips("rk4, 60 Hz", &run(Rk4, body, 60.0, 1).flips, 1e-3);
    check_flips(
        "splitting, 60 Hz",
        &run(Splitting, body, 60.0, 1).flips,
        1e-4,
    );
    // Its 4th- and 6th-order compositions keep the energy to 10⁻¹⁰ and 10⁻¹³, and their
    // flips land within 2·10⁻⁷ s of the closed form, about what reading a sign change off
    // 60 Hz samples by linear interpolation can resolve.
    for (name, method) in [
        ("splitting4", Splitting::ORDER4),
        ("splitting6", Splitting::ORDER6),
    ] {
        check_flips(name, &run(method, body, 60.0, 1).flips, 2e-8);
    }
}

#[test]
fn a_body_with_a_non_diagonal_tensor_flips_about_its_principal_axes() {
    // The same body, its tensor written in axes turned by P: I' = P diag(1, 2, 3) Pᵀ. Started
    // at the orientation P⁻¹, its principal axes sit where the diagonal body's do.
    let p = DQuat::from_euler(glam::EulerRot::ZYX, 0.4, -1.1, 2.3);
    let matrix = glam::DMat3::from_quat(p)
        * glam::DMat3::from_diagonal(DVec3::from(MOMENTS))
        * glam::DMat3::from_quat(p).transpose();
    let inertia = Inertia::symmetric(
        matrix.x_axis.x,
        matrix.y_axis.y,
        matrix.z_axis.z,
        matrix.y_axis.x,
        matrix.z_axis.x,
        matrix.z_axis.y,
    );
    let mut body = DRigidBody::new(1.0, inertia);
    body.set_orientation(p.conjugate());
    body.set_angular_velocity(DVec3::from(OMEGA));
    // Its principal moments are 1, 2, 3 in some order; find the intermediate one.
    let moments = body.principal_moments().to_array();
    let middle = (0..3).find(|&i| (moments[i] - 2.0).abs() < 1e-12).unwrap();
    // Diagonalization moves the energy by rounding only; the flips keep their times.
    check_flips(
        "rk4, 600 Hz, turned tensor",
        &run(Rk4, body, 600.0, middle).flips,
        1e-6,
    );
    check_flips(
        "splitting, 60 Hz, turned tensor",
        &run(Splitting, body, 60.0, middle).flips,
        1e-4,
    );
}

#[test]
fn splitting_is_time_reversible() {
    // Under forces that depend on time, position and orientation (not on velocities, which
    // the kicks change between force evaluations), a step of −dt undoes a step of dt.
    let mut body = tumbling(OrientationUpdate::Additive);
    body.set_velocity(DVec3::new(1.0, -2.0, 0.5));
    let forces = |b: &DRigidBody, t: f64| {
        let spring = -2.0 * b.position();
        let upright = b.to_world_direction(DVec3::Y).cross(DVec3::Y);
        (spring, upright + DVec3::new(t.sin(), 0.3, -0.2))
    };
    let start = body;
    let dt = 1.0 / 60.0;
    for i in 0..600 {
        Splitting
            .step(&mut body, &forces, i as f64 * dt, dt)
            .unwrap();
    }
    assert!(!body.orientation().abs_diff_eq(start.orientation(), 0.1));
    for i in (0..600).rev() {
        Splitting
            .step(&mut body, &forces, (i + 1) as f64 * dt, -dt)
            .unwrap();
    }
    assert!(body.position().abs_diff_eq(start.position(), 1e-12));
    assert!(body.momentum().abs_diff_eq(start.momentum(), 1e-12));
    assert!(body.orientation().abs_diff_eq(start.orientation(), 1e-12));
    assert!(
        body.angular_momentum()
            .abs_diff_eq(start.angular_momentum(), 1e-12)
    );
}

/// The orientation error at t = 1 s against a fine RK4 reference, at steps `dt` and `dt/2`:
/// their ratio is `2^order`.
fn orientation_order<I: Integrator<DRigidBody> + Copy>(
    integrator: I,
    update: OrientationUpdate,
) -> f64 {
    let reference = {
        let mut body = tumbling(OrientationUpdate::Additive);
        body.set_angular_velocity(DVec3::new(1.0, 2.0, -1.5));
        for i in 0..4000 {
            Rk4.step(&mut body, &free, i as f64 / 4000.0, 1.0 / 4000.0)
                .unwrap();
        }
        body.orientation()
    };
    let error = |steps: usize| {
        let mut body = tumbling(update);
        body.set_angular_velocity(DVec3::new(1.0, 2.0, -1.5));
        let mut integrator = integrator;
        for i in 0..steps {
            integrator
                .step(
                    &mut body,
                    &free,
                    i as f64 / steps as f64,
                    1.0 / steps as f64,
                )
                .unwrap();
        }
        body.orientation().angle_between(reference)
    };
    (error(20) / error(40)).log2()
}

#[test]
fn rk4_is_fourth_order_in_the_orientation_with_the_additive_update() {
    let additive = orientation_order(Rk4, OrientationUpdate::Additive);
    let exponential = orientation_order(Rk4, OrientationUpdate::Exponential);
    let splitting = orientation_order(Splitting, OrientationUpdate::Additive);
    println!(
        "orders: rk4 additive {additive:.2}, rk4 exponential {exponential:.2}, splitting {splitting:.2}"
    );
    assert!((3.7..4.3).contains(&additive), "{additive}");
    assert!((1.7..2.3).contains(&exponential), "{exponential}");
    assert!((1.8..2.2).contains(&splitting), "{splitting}");
}
