//! Compensated summation (`Compensated`): the same method, with less round-off.
//!
//! The theory (Hairer–Lubich–Wanner, *Geometric Numerical Integration*, VIII.5): a plain
//! step rounds the state at every kick and drift, an error of an ulp of the state per step
//! whose sum over `N` steps is a random walk, `√N` ulps. A compensated step gathers the
//! step's change apart and adds it once, carrying that sum's rounding to the next step;
//! what it still rounds is the change itself, `ω dt` times smaller than the state. Once
//! the method's own error is below the rounding, the plain energy error grows like `√N`
//! and the compensated one stays at its start.
//!
//! In exact arithmetic both are one method: they agree to rounding over a short run, and
//! exactly where every sum is exact.

use glam::{DVec2, Vec2};
use std::f64::consts::TAU;
use timestep::{
    Coefficients, Compensated, Composition, Integrator, Leapfrog, Particle, Particles, Scalar,
    Stepper, Vector, Verlet,
};

/// Kepler's problem, `GM = 1`, from perihelion: the orbit of semi-major axis 1 (period 2π,
/// energy −½) with eccentricity `e`.
fn kepler<V: KeplerVector>(e: f64) -> Particle<V> {
    Particle::new(
        V::Scalar::from_f64(1.0),
        V::new(1.0 - e, 0.0),
        V::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()),
    )
}

/// `Vec2` and `DVec2`, for Kepler's problem in both precisions.
trait KeplerVector: timestep::SmallVector {
    fn new(x: f64, y: f64) -> Self;
    /// The relative energy error against −½, computed in `f64`.
    fn energy_error(p: &Particle<Self>) -> f64;
    /// `−r/|r|³`.
    fn gravity(p: &Particle<Self>, t: Self::Scalar) -> Self;
}

impl KeplerVector for DVec2 {
    fn new(x: f64, y: f64) -> Self {
        DVec2::new(x, y)
    }
    fn energy_error(p: &Particle<Self>) -> f64 {
        let e = 0.5 * p.velocity().length_squared() - 1.0 / p.position().length();
        (e + 0.5) / 0.5
    }
    /// As `examples/kepler.rs` writes it (`powi(3)` is `(x·x)·x` in debug and release).
    fn gravity(p: &Particle<Self>, _t: f64) -> Self {
        let r = p.position();
        -r / r.length().powi(3)
    }
}

impl KeplerVector for Vec2 {
    fn new(x: f64, y: f64) -> Self {
        Vec2::new(x as f32, y as f32)
    }
    fn energy_error(p: &Particle<Self>) -> f64 {
        let (v, x) = (p.velocity().as_dvec2(), p.position().as_dvec2());
        let e = 0.5 * v.length_squared() - 1.0 / x.length();
        (e + 0.5) / 0.5
    }
    fn gravity(p: &Particle<Self>, _t: f32) -> Self {
        let r = p.position();
        let r2 = r.length_squared();
        -r / (r2 * r2.sqrt())
    }
}

/// The largest relative energy error over the first ten periods and over the whole run of
/// `periods` periods of `per_period` steps, at `t = k·dt`.
fn energy_errors<V: KeplerVector, I: Integrator<Particle<V>>>(
    mut method: I,
    e: f64,
    per_period: u32,
    periods: u32,
) -> (f64, f64) {
    let dt = V::Scalar::from_f64(TAU / f64::from(per_period));
    let mut particle = kepler::<V>(e);
    let (mut first, mut all) = (0.0_f64, 0.0_f64);
    for period in 0..periods {
        for i in 0..per_period {
            let k = V::Scalar::from_f64(f64::from(period * per_period + i));
            method
                .step(&mut particle, &V::gravity, k * dt, dt)
                .expect("a finite step");
            all = all.max(V::energy_error(&particle).abs());
        }
        if period < 10 {
            first = all;
        }
    }
    (first, all)
}

/// In `f32`, where rounding (6·10⁻⁸) is far above Kahan–Li 8's own error at 100 steps per
/// period, 200 periods (2·10⁴ steps, a second in a debug build) separate the two: the
/// plain energy error walks to 4·10⁻⁵, the compensated one stays below 2.5·10⁻⁶, within
/// 1.6× of its first ten periods' largest.
#[test]
fn compensated_kahan_li8_in_f32_keeps_the_energy_error_of_its_start() {
    let (e, per_period, periods) = (0.5, 100, 200);
    let (plain_first, plain) =
        energy_errors::<Vec2, _>(Composition::KAHAN_LI8, e, per_period, periods);
    let (first, all) =
        energy_errors::<Vec2, _>(Composition::KAHAN_LI8.compensated(), e, per_period, periods);
    println!("plain: first ten periods {plain_first:e}, all {plain:e}");
    println!("compensated: first ten periods {first:e}, all {all:e}");
    assert!(all <= 3.0 * first, "compensated: {all:e} against {first:e}");
    assert!(all < 5e-6, "compensated: {all:e}");
    assert!(plain >= 10.0 * all, "plain {plain:e}, compensated {all:e}");
}

/// The long run: Kahan–Li 8 on Kepler with e = 0.9 at `dt = 2π/6283` (10⁻³), 10⁴ periods
/// (6.3·10⁷ steps), the force as `examples/kepler.rs` writes it, the energy error measured
/// after every step. Plain, it walks to 20× its first ten periods' largest; compensated,
/// it stays 87× below plain's and within 4.5× of its own start (1.4·10⁻¹⁴, the rounding of
/// `E = ½|v|² − 1/|x|` itself at perihelion, where both terms are near 10). What
/// compensation leaves is the rounding of the increments and of the forces, `ω dt` times
/// smaller than the state's, whose walk still reaches 5·10⁻¹⁴. The issue's target, within
/// 3× of the start, is not met. How the force is written moves it: as
/// `−r/(|r|²·√|r|²)` both drift further (plain to 1.9·10⁻¹¹, compensated to 1.7·10⁻¹³,
/// 16× its start). A force rounded once, from double-double, does not bring it within 3×
/// either (9.3×; 7.7× at `dt = 10⁻³`): each stage's increment is itself rounded, and
/// those roundings walk like `√N`. At `dt = 10⁻³` exactly (6283.185 steps a period) the
/// compensated error reaches 1.6·10⁻¹³, 14.7× its start (plain 5.0·10⁻¹², 20.8×). Over a
/// minute in release,
/// far too long for a debug build; run it with
///
/// ```text
/// cargo test --release --test timestep -- --ignored kepler_over_ten_thousand_periods --nocapture
/// ```
///
/// Measured results are in `BENCHMARKS.md` ("Compensated summation").
#[test]
#[ignore = "over a minute in release: cargo test --release --test timestep -- --ignored"]
fn compensated_kahan_li8_on_kepler_over_ten_thousand_periods() {
    let (e, per_period, periods) = (0.9, 6283, 10_000);
    let (first, all) =
        energy_errors::<DVec2, _>(Composition::KAHAN_LI8.compensated(), e, per_period, periods);
    let (plain_first, plain) =
        energy_errors::<DVec2, _>(Composition::KAHAN_LI8, e, per_period, periods);
    println!("compensated: first ten periods {first:e}, all {all:e}");
    println!("plain: first ten periods {plain_first:e}, all {plain:e}");
    assert!(all <= 8.0 * first, "compensated: {all:e} against {first:e}");
    assert!(
        plain >= 8.0 * plain_first,
        "plain: {plain:e} against {plain_first:e}"
    );
    assert!(plain >= 20.0 * all, "plain {plain:e}, compensated {all:e}");
}

/// Every composition, and velocity Verlet and leapfrog, compensated or not, take the same
/// steps to rounding: one period of Kepler (e = 0.5) in 200 steps ends within 10⁻¹¹ of the
/// plain method's end (6·10⁻¹³ at most, measured).
#[test]
fn compensated_methods_are_their_plain_methods_to_rounding() {
    fn both<I: Integrator<Particle<DVec2>>, J: Integrator<Particle<DVec2>>>(
        name: &str,
        mut plain: I,
        mut compensated: J,
    ) {
        let (mut a, mut b) = (kepler::<DVec2>(0.5), kepler::<DVec2>(0.5));
        let dt = TAU / 200.0;
        for k in 0..200 {
            let t = f64::from(k) * dt;
            plain.step(&mut a, &DVec2::gravity, t, dt).unwrap();
            compensated.step(&mut b, &DVec2::gravity, t, dt).unwrap();
        }
        let apart = (a.position() - b.position()).length() + (a.velocity() - b.velocity()).length();
        let error = (a.position() - kepler::<DVec2>(0.5).position()).length();
        println!("{name}: apart {apart:e}, its error {error:e}");
        assert!(apart < 1e-11, "{name}: {apart:e}");
    }
    for table in Coefficients::ALL {
        both(
            table.name,
            Composition::new(Verlet, table),
            Composition::new(Verlet, table).compensated(),
        );
        both(
            table.name,
            Composition::new(Leapfrog, table),
            Composition::new(Leapfrog, table).compensated(),
        );
    }
    both("verlet", Verlet, Verlet.compensated());
    both("leapfrog", Leapfrog, Leapfrog.compensated());
}

/// On a first-order system each step's change `2⁻⁶⁰` is below half an ulp of `y = 1`: the
/// plain method never moves, the compensated one gathers every change and lands exactly on
/// `1 + 2⁻⁵⁰` after 2¹⁰ steps, with no compensation left over. In a `Vec` through
/// `for_state`, so the workspace is made once.
#[test]
fn compensation_keeps_changes_below_the_rounding_of_the_state() {
    let tiny = 2f64.powi(-60);
    let rate = |y: &Vec<f64>, _t: f64| vec![tiny; y.len()];
    let (mut plain, mut compensated) = (vec![1.0, -1.0], vec![1.0, -1.0]);
    let mut stepper = Stepper::new(Composition::FOREST_RUTH);
    let mut method = Compensated::for_state(Composition::FOREST_RUTH, &compensated);
    let mut verlet = Verlet.compensated();
    let mut by_verlet = compensated.clone();
    for k in 0..1024 {
        stepper.step(&mut plain, &rate, f64::from(k), 1.0).unwrap();
        method
            .step(&mut compensated, &rate, f64::from(k), 1.0)
            .unwrap();
        verlet
            .step(&mut by_verlet, &rate, f64::from(k), 1.0)
            .unwrap();
    }
    assert_eq!(plain, vec![1.0, -1.0]);
    // Forest–Ruth's kicks of 2⁻⁶⁰ times its coefficients sum to 2⁻⁶⁰ to rounding.
    for (y, start) in compensated.iter().zip([1.0, -1.0]) {
        assert!((y - start - 2f64.powi(-50)).abs() <= 2f64.powi(-52), "{y}");
    }
    // Verlet's two half kicks are exact: every sum is.
    assert_eq!(by_verlet, vec![1.0 + 2f64.powi(-50), -1.0 + 2f64.powi(-50)]);
    let c = verlet.compensation().expect("made by the first step");
    assert_eq!((c.component(0), c.component(1)), (0.0, 0.0));
}

/// Particles (a state sized at run time, two bodies on springs to the origin) step as the
/// plain method does, to rounding.
#[test]
fn compensated_particles_follow_the_plain_method() {
    let springs = |p: &Particles<DVec2>, _t: f64| -> Vec<DVec2> {
        p.positions().iter().map(|x| -*x).collect()
    };
    let start = Particles::new(
        vec![1.0, 2.0],
        vec![DVec2::new(1.0, 0.0), DVec2::new(0.0, 2.0)],
        vec![DVec2::new(0.0, 1.0), DVec2::new(-1.0, 0.0)],
    );
    let (mut a, mut b) = (start.clone(), start.clone());
    let mut plain = Stepper::new(Composition::SUZUKI4);
    let mut compensated = Composition::SUZUKI4.compensated();
    for k in 0..100 {
        let t = f64::from(k) * 0.05;
        plain.step(&mut a, &springs, t, 0.05).unwrap();
        compensated.step(&mut b, &springs, t, 0.05).unwrap();
    }
    for (x, y) in a.positions().iter().zip(b.positions()) {
        assert!((*x - *y).length() < 1e-14, "{x} {y}");
    }
    // Body 0 (ω = 1, from (1, 0) at (0, 1)) is at (cos t, sin t).
    let exact = DVec2::new(5f64.cos(), 5f64.sin());
    let error = (b.positions()[0] - exact).length();
    println!("error {error:e}");
    assert!(error < 1e-7, "{error:e}");
}

/// What the docs promise for unusual input: `dt = 0` does nothing, non-finite times are
/// refused with the state and the compensation untouched, `dt < 0` goes back, and an
/// overflowing state leaves no `NaN` compensation behind.
#[test]
fn compensated_steps_handle_unusual_input() {
    let spring = |p: &Particle<f64>, _t: f64| -p.position();
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let mut method = Composition::KAHAN_LI8.compensated();
    method.step(&mut particle, &spring, 0.0, 0.1).unwrap();
    let (after, c) = (particle, *method.compensation().unwrap());
    method.step(&mut particle, &spring, 0.1, 0.0).unwrap();
    assert!(method.step(&mut particle, &spring, f64::NAN, 0.1).is_err());
    assert!(
        method
            .step(&mut particle, &spring, 0.1, f64::INFINITY)
            .is_err()
    );
    assert_eq!((particle, *method.compensation().unwrap()), (after, c));
    method.step(&mut particle, &spring, 0.1, -0.1).unwrap();
    assert!((particle.position() - 1.0).abs() < 1e-15 && particle.velocity().abs() < 1e-15);

    method.reset();
    assert!(method.compensation().is_none());

    // Half kicks of f64::MAX on a momentum of f64::MAX / 2: the momentum's sum overflows,
    // the position's (1 + MAX) rounds off the 1.
    let huge = |_: &Particle<f64>, _t: f64| f64::MAX;
    let mut particle = Particle::new(1.0, 1.0, f64::MAX / 2.0);
    let mut verlet = Verlet.compensated();
    verlet.step(&mut particle, &huge, 0.0, 1.0).unwrap();
    assert_eq!(
        (particle.position(), particle.momentum()),
        (f64::MAX, f64::INFINITY)
    );
    let c = verlet.compensation().unwrap();
    assert_eq!((c.velocity, c.force), (1.0, 0.0));
}
