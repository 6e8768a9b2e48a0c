//! Recognising stiffness: each explicit tableau's stability boundary on the negative real
//! axis against its closed form, and the adaptive driver's stiffness test (dopri5.f's) on
//! problems whose steps are held by stability, and on ones whose steps are not.

use approx::assert_relative_eq;
use timestep::Tolerances;
use timestep::adaptive::Adaptive;
use timestep::{Bs3, Dop853, Dopri5, ExplicitEuler, Radau5, Rk4, Tsit5};

/// A root of `p` by Newton's iteration from `x`.
fn root(p: impl Fn(f64) -> f64, slope: impl Fn(f64) -> f64, mut x: f64) -> f64 {
    for _ in 0..50 {
        x -= p(x) / slope(x);
    }
    x
}

#[test]
fn stability_boundaries_match_their_closed_forms() {
    // Euler: R(−x) = 1 − x reaches −1 at x = 2.
    assert_relative_eq!(
        ExplicitEuler::TABLEAU.real_stability_boundary(),
        2.0,
        max_relative = 1e-14
    );
    // Every 4-stage method of order 4: R(−x) = 1 − x + x²/2 − x³/6 + x⁴/24 returns to 1 at
    // the root of x³ − 4x² + 12x − 24 (2.7853).
    let rk4 = root(
        |x| x.powi(3) - 4.0 * x * x + 12.0 * x - 24.0,
        |x| 3.0 * x * x - 8.0 * x + 12.0,
        3.0,
    );
    assert_relative_eq!(
        Rk4::TABLEAU.real_stability_boundary(),
        rk4,
        max_relative = 1e-13
    );
    // Every 3-stage method of order 3 (Bogacki–Shampine's propagated solution): R(−x)
    // reaches −1 at the root of x³ − 3x² + 6x − 12 (2.5127).
    let third = root(
        |x| x.powi(3) - 3.0 * x * x + 6.0 * x - 12.0,
        |x| 3.0 * x * x - 6.0 * x + 6.0,
        2.5,
    );
    assert_relative_eq!(
        Bs3::PAIR.tableau.real_stability_boundary(),
        third,
        max_relative = 1e-13
    );
    // Dormand–Prince 5(4): R(z) = Σₖ₌₀⁵ zᵏ/k! + z⁶/600 (Hairer–Nørsett–Wanner I, IV.2),
    // which returns to 1 at x = 3.3066; dopri5.f calls a step stiff beyond 3.25.
    let dopri5 = |z: f64| {
        let taylor: f64 = (0..=5)
            .map(|k| z.powi(k) / (1..=k).product::<i32>() as f64)
            .sum();
        taylor + z.powi(6) / 600.0
    };
    for z in [-0.5, -1.0, -2.0, -3.0, 0.7] {
        assert_relative_eq!(
            Dopri5::PAIR.tableau.stability_function(z),
            dopri5(z),
            max_relative = 1e-13
        );
    }
    let boundary = Dopri5::PAIR.tableau.real_stability_boundary();
    assert_relative_eq!(dopri5(-boundary), 1.0, max_relative = 1e-12);
    assert!((3.30..3.31).contains(&boundary), "{boundary}");
    // DOP853: dop853.f calls a step stiff beyond 6.1, within 5% of its boundary.
    let boundary = Dop853::PAIR.tableau.real_stability_boundary();
    assert!((6.1..6.1 / 0.95).contains(&boundary), "{boundary}");
}

/// `y′ = −λ (y − cos t)` with λ = 10⁴: after a transient of 10⁻⁴ the solution follows
/// `cos t` smoothly, but an explicit pair must keep `h λ` within its stability boundary
/// `x`, so it takes about `λ/x` steps per unit of time whatever the tolerance, and the test
/// calls nearly every one stiff.
#[test]
fn a_step_held_at_the_stability_limit_is_found_stiff() {
    let lambda = 1e4;
    let stiff = move |y: &f64, t: f64| -lambda * (y - t.cos());
    fn run<M: timestep::control::IntoAdaptive<Method: timestep::control::AdaptiveMethod<f64>>>(
        method: M,
        forces: &impl Fn(&f64, f64) -> f64,
    ) -> timestep::Statistics {
        let mut y = 0.0;
        Adaptive::new(method)
            .with_stiffness_test(1)
            .solve(&mut y, forces, 0.0, 1.0)
            .unwrap()
    }
    for (name, statistics, boundary) in [
        (
            "dopri5",
            run(Dopri5, &stiff),
            Dopri5::PAIR.tableau.real_stability_boundary(),
        ),
        (
            "tsit5",
            run(Tsit5, &stiff),
            Tsit5::PAIR.tableau.real_stability_boundary(),
        ),
        (
            "dop853",
            run(Dop853, &stiff),
            Dop853::PAIR.tableau.real_stability_boundary(),
        ),
    ] {
        println!("{name}: {statistics:?}");
        let at_the_limit = lambda / boundary;
        let accepted = statistics.accepted as f64;
        assert!(
            (at_the_limit..1.03 * at_the_limit).contains(&accepted),
            "{name}: {accepted} steps, the stability limit allows {at_the_limit:.0}"
        );
        assert!(statistics.stiff_steps as f64 > 0.95 * accepted, "{name}");
        let from = statistics.stiff_from.unwrap();
        assert!(from < 0.02, "{name}: stiff from {from}");
    }
    // Bogacki–Shampine's stages are inside the step: no estimate, never called stiff.
    let statistics = run(Bs3, &stiff);
    assert_eq!((statistics.stiff_steps, statistics.stiff_from), (0, None));
}

/// Van der Pol with μ = 100 on its first slow branch (`x` from 2 towards 1.5, to t = 100,
/// before the jump at 161): an explicit pair's step is held near `3.3/|λ|` with
/// `λ ≈ −μ(x² − 1)` (100 to 300), and the default test (every 1000th step) finds it stiff
/// at its first chance, the 1000th step, and says so 14 steps later; Radau5, stable for
/// any `h λ`, has no such limit.
#[test]
fn van_der_pol_is_found_stiff_on_its_slow_branch() {
    let mu = 100.0;
    let van_der_pol = move |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
    let mut y = [2.0, 0.0];
    let mut ends = Vec::new();
    let statistics = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-6, 1e-6))
        .solve_with(&mut y, &van_der_pol, 0.0, 100.0, |step| {
            ends.push(step.end_time())
        })
        .unwrap();
    println!("dopri5: {statistics:?}");
    let explicit_steps = statistics.accepted;
    // Each step near the limit: ∫ μ(x² − 1)/3.3 dt over the branch is some 6000.
    assert!(statistics.accepted > 5000);
    assert_eq!(statistics.stiff_from, Some(ends[1014 - 1]));
    // Most of the tested steps; the controller lets some fall below the limit.
    assert!(statistics.stiff_steps as f64 > 0.8 * (statistics.accepted - 1000) as f64);

    let mut y = [2.0, 0.0];
    let statistics = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-6, 1e-6))
        .with_stiffness_test(1)
        .solve(&mut y, &van_der_pol, 0.0, 100.0)
        .unwrap();
    println!("radau5: {statistics:?}");
    assert_eq!((statistics.stiff_steps, statistics.stiff_from), (0, None));
    // Steps set by accuracy alone: some forty times longer.
    assert!(20 * statistics.accepted < explicit_steps);

    // Never tested: nothing reported.
    let mut y = [2.0, 0.0];
    let statistics = Adaptive::new(Dopri5)
        .with_stiffness_test(0)
        .solve(&mut y, &van_der_pol, 0.0, 100.0)
        .unwrap();
    assert_eq!((statistics.stiff_steps, statistics.stiff_from), (0, None));
}

/// The Arenstorf orbit's steps are set by accuracy through its close approaches: tested
/// at every step, no step is found stiff.
#[test]
fn the_arenstorf_orbit_is_not_stiff() {
    let mu = 0.012277471;
    let arenstorf = move |y: &[f64; 4], _t: f64| {
        let [x, y, vx, vy] = *y;
        let d1 = ((x + mu).powi(2) + y * y).powf(1.5);
        let d2 = ((x - 1.0 + mu).powi(2) + y * y).powf(1.5);
        [
            vx,
            vy,
            x + 2.0 * vy - (1.0 - mu) * (x + mu) / d1 - mu * (x - 1.0 + mu) / d2,
            y - 2.0 * vx - (1.0 - mu) * y / d1 - mu * y / d2,
        ]
    };
    let start = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
    let period = 17.065_216_560_157_96;
    for tolerance in [1e-7, 1e-12] {
        let tolerances = Tolerances::new(tolerance, tolerance);
        let mut y = start;
        let dopri5 = Adaptive::new(Dopri5)
            .with_tolerances(tolerances)
            .with_stiffness_test(1)
            .solve(&mut y, &arenstorf, 0.0, period)
            .unwrap();
        let mut y = start;
        let dop853 = Adaptive::new(Dop853)
            .with_tolerances(tolerances)
            .with_stiffness_test(1)
            .solve(&mut y, &arenstorf, 0.0, period)
            .unwrap();
        for statistics in [dopri5, dop853] {
            assert_eq!(
                (statistics.stiff_steps, statistics.stiff_from),
                (0, None),
                "{tolerance:e}"
            );
        }
    }
}
