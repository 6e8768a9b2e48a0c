//! Runge–Kutta–Nyström pairs (`src/integrators/nystrom/`): the orders of the step, of the
//! error estimate and of the continuous extension, measured on problems with closed forms;
//! first same as last; error control, dense output and events through the driver; and the
//! refusal of a first-order state.

use glam::DVec2;
use timestep::adaptive::Adaptive;
use timestep::control::{AdaptiveMethod, IntoAdaptive, Statistics};
use timestep::{
    AdaptiveError, AdaptiveKind, Dprkn6, Dprkn12, Particle, Particles, State, StepError, Tolerances,
};

/// `x'' = −x` from `x = 1, v = 0`: `x = cos t`, `v = −sin t`.
fn oscillator(p: &Particle<f64>, _t: f64) -> f64 {
    -p.position()
}

/// Kepler's problem, `x'' = −x/|x|³`.
fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    -p.position() / p.position().length().powi(3)
}

/// Kepler's orbit of eccentricity 0.5 from perihelion: period 2π.
fn planet() -> Particle<DVec2> {
    Particle::new(1.0, DVec2::new(0.5, 0.0), DVec2::new(0.0, 3.0_f64.sqrt()))
}

/// `steps` steps of `h` by the pair's own attempt, accepted whatever their error, and
/// the evaluations they took.
fn fixed_steps_of<M: AdaptiveMethod<Particle<DVec2>>>(
    method: M,
    steps: usize,
    h: f64,
) -> (Particle<DVec2>, u64) {
    let mut state = planet();
    let mut end = state;
    let mut workspace = AdaptiveMethod::<Particle<DVec2>>::workspace(&method, &state);
    let mut statistics = Statistics::default();
    let tolerances = Tolerances::default();
    method.begin(&mut workspace, &state, &gravity, 0.0, &mut statistics);
    for i in 0..steps {
        let t = i as f64 * h;
        method
            .attempt(
                &mut workspace,
                &state,
                &gravity,
                t,
                h,
                &tolerances,
                &mut end,
                &mut statistics,
            )
            .unwrap();
        method.accept(
            &mut workspace,
            &state,
            &end,
            &gravity,
            t,
            h,
            false,
            &mut statistics,
        );
        method.step_on(&mut workspace);
        state = end;
    }
    (state, statistics.evaluations)
}

fn fixed_steps(steps: usize, h: f64) -> Particle<DVec2> {
    let (state, evaluations) = fixed_steps_of(Dprkn6.into_adaptive(), steps, h);
    // First same as last: five evaluations a step, and the start's.
    assert_eq!(evaluations, 5 * steps as u64 + 1);
    state
}

/// `log₂(e(h) / e(h/2))`.
fn slope(coarse: f64, fine: f64) -> f64 {
    (coarse / fine).log2()
}

/// Half a period of Kepler's orbit of eccentricity 0.5 in `n` fixed steps ends at
/// aphelion, `x = (−1.5, 0)`, `v = (0, −1/√3)`: the error falls like `h⁶`.
#[test]
fn dprkn6_is_sixth_order_on_keplers_orbit() {
    let half_period = std::f64::consts::PI;
    let aphelion = (
        DVec2::new(-1.5, 0.0),
        DVec2::new(0.0, -1.0 / 3.0_f64.sqrt()),
    );
    let errors: Vec<f64> = [50, 100, 200, 400]
        .iter()
        .map(|&n| {
            let end = fixed_steps(n, half_period / n as f64);
            (end.position() - aphelion.0)
                .length()
                .max((end.velocity() - aphelion.1).length())
        })
        .collect();
    for pair in errors.windows(2) {
        let order = slope(pair[0], pair[1]);
        assert!(
            (5.7..6.4).contains(&order),
            "order {order}: errors {errors:?}"
        );
    }
}

/// One step of `h` of `method` from `start` (`x'' = −x`, at t = 0), accepted with dense
/// output: the end and the dense output at mid-step and at the end.
fn oscillator_step<M: AdaptiveMethod<Particle<f64>>>(
    method: &M,
    start: Particle<f64>,
    h: f64,
) -> [Particle<f64>; 3] {
    let absolute = Tolerances::new(0.0, 1.0);
    let mut end = start;
    let mut workspace = method.workspace(&start);
    let mut statistics = Statistics::default();
    method.begin(&mut workspace, &start, &oscillator, 0.0, &mut statistics);
    method
        .attempt(
            &mut workspace,
            &start,
            &oscillator,
            0.0,
            h,
            &absolute,
            &mut end,
            &mut statistics,
        )
        .unwrap();
    method.accept(
        &mut workspace,
        &start,
        &end,
        &oscillator,
        0.0,
        h,
        true,
        &mut statistics,
    );
    let (mut middle, mut at_end) = (start, start);
    method.dense(&mut workspace, &start, h, 0.5, &mut middle);
    method.dense(&mut workspace, &start, h, 1.0, &mut at_end);
    [end, middle, at_end]
}

/// The error estimate (absolute, unit tolerance) of one step of `h` of `method` on
/// Kepler's orbit from perihelion.
fn kepler_estimate<M: AdaptiveMethod<Particle<DVec2>>>(method: &M, h: f64) -> f64 {
    let start = planet();
    let mut end = start;
    let mut workspace = method.workspace(&start);
    let mut statistics = Statistics::default();
    method.begin(&mut workspace, &start, &gravity, 0.0, &mut statistics);
    let absolute = Tolerances::new(0.0, 1.0);
    method
        .attempt(
            &mut workspace,
            &start,
            &gravity,
            0.0,
            h,
            &absolute,
            &mut end,
            &mut statistics,
        )
        .unwrap()
}

/// One step of `h` from the exact state at 0 of `x'' = −x`: the step's local error
/// shrinks like `h⁷` and the continuous extension's at mid-step like `h⁷` (order 6), and its
/// ends are the step's. On Kepler's orbit from perihelion the error estimate shrinks like
/// `h⁵` (the embedded member's order 4; on the linear oscillator some of its terms vanish).
#[test]
fn dprkn6_estimate_and_dense_output_have_their_orders() {
    let method = Dprkn6.into_adaptive();
    let one_step = |h: f64| {
        let [end, middle, at_end] = oscillator_step(&method, Particle::new(1.0, 1.0, 0.0), h);
        // The dense output's ends are the step's.
        approx::assert_relative_eq!(at_end.position(), end.position(), max_relative = 1e-14);
        approx::assert_relative_eq!(at_end.momentum(), end.momentum(), max_relative = 1e-14);
        let local = (end.position() - h.cos())
            .abs()
            .max((end.velocity() + h.sin()).abs());
        let dense = (middle.position() - (0.5 * h).cos())
            .abs()
            .max((middle.velocity() + (0.5 * h).sin()).abs());
        (local, dense)
    };
    let (coarse, fine) = (one_step(0.4), one_step(0.2));
    let local = slope(coarse.0, fine.0);
    let dense = slope(coarse.1, fine.1);
    assert!((6.6..7.6).contains(&local), "local error order {local}");
    assert!((6.5..7.6).contains(&dense), "dense output order {dense}");

    let order = slope(
        kepler_estimate(&method, 0.1),
        kepler_estimate(&method, 0.05),
    );
    assert!((4.6..5.5).contains(&order), "estimate order {order}");
}

/// Under error control, one period of Kepler's orbit returns to the start within the
/// tolerance, and the energy `v²/2 − 1/|x|` (−½) is kept to it; the dense output between
/// steps is on the orbit too.
#[test]
fn dprkn6_under_error_control_closes_the_orbit() {
    let period = 2.0 * std::f64::consts::PI;
    for tolerance in [1e-6, 1e-9, 1e-12] {
        let solution = Adaptive::new(Dprkn6)
            .with_tolerances(Tolerances::new(tolerance, tolerance))
            .integrate(&gravity, planet(), 0.0, period)
            .solve()
            .unwrap();
        let end = solution.at(period).unwrap();
        let error = (end.position() - planet().position()).length();
        assert!(
            error < 300.0 * tolerance,
            "tolerance {tolerance:e}: error {error:e}"
        );
        for i in 1..50 {
            let p = solution.at(period * i as f64 / 50.0).unwrap();
            let energy: f64 = 0.5 * p.velocity().length_squared() - 1.0 / p.position().length();
            assert!(
                (energy + 0.5).abs() < 300.0 * tolerance,
                "tolerance {tolerance:e}, sample {i}: energy {energy}"
            );
        }
    }
}

#[test]
fn a_first_order_state_is_refused() {
    let mut y = 1.0_f64;
    let error = Adaptive::new(Dprkn6)
        .solve(&mut y, &|y: &f64, _t: f64| -y, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::NotSecondOrder,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(y, 1.0);
}

/// `x'' = −x − 10 x³`: a hardening spring, whose energy `v²/2 + x²/2 + 5x⁴/2` is kept.
fn duffing(p: &Particle<f64>, _t: f64) -> f64 {
    let x = p.position();
    -x - 10.0 * x * x * x
}

/// By name, a run saved at step k and resumed from the snapshot by another solver ends bit
/// for bit where the uninterrupted run ends, and the energy is kept to the tolerance.
#[test]
fn nystrom_pairs_by_name_resume_bit_for_bit() {
    for name in ["dprkn6", "dprkn12"] {
        let kind: AdaptiveKind = name.parse().unwrap();
        assert!(kind.needs_second_order());
        let tolerances = Tolerances::new(1e-9, 1e-9);
        let energy = |p: &Particle<f64>| {
            let (x, v) = (p.position(), p.velocity());
            0.5 * v * v + 0.5 * x * x + 2.5 * x.powi(4)
        };
        let mut straight = Particle::new(1.0, 1.0, 0.0);
        let statistics = Adaptive::new(kind)
            .with_tolerances(tolerances)
            .solve(&mut straight, &duffing, 0.0, 10.0)
            .unwrap();
        assert!(statistics.accepted > 20, "{name}: {statistics:?}");
        approx::assert_abs_diff_eq!(energy(&straight), 3.0, epsilon = 1e-7);
        for k in [0, 1, 7, 20] {
            let mut solver = Adaptive::new(kind).with_tolerances(tolerances);
            let mut p = Particle::new(1.0, 1.0, 0.0);
            let mut run = solver.start(&mut p, &duffing, 0.0, 10.0).unwrap();
            for _ in 0..k {
                run.step().unwrap();
            }
            let saved = run.snapshot();
            let mut other = Adaptive::new(kind).with_tolerances(tolerances);
            let mut q = Particle::new(1.0, 5.0, 5.0);
            let mut resumed = other.resume(&saved, &mut q, &duffing).unwrap();
            while resumed.step().unwrap() {}
            assert_eq!(
                resumed.state().position().to_bits(),
                straight.position().to_bits()
            );
            assert_eq!(
                resumed.state().momentum().to_bits(),
                straight.momentum().to_bits()
            );
            assert_eq!(resumed.statistics(), statistics, "{name}, k = {k}");
        }
    }
}

/// A ball dropped from 10 m bounces on the floor (restitution 0.9): the event on the dense
/// output finds each bounce at its closed-form time, `t₁ = √(2h/g)` and flights of
/// `2 eᵏ g t₁ / g` after bounce `k`.
#[test]
fn dprkn6_bounces_a_ball_at_the_closed_form_times() {
    use timestep::adaptive::{Direction, Event};
    let (g, height, restitution): (f64, f64, f64) = (9.81, 10.0, 0.9);
    let first = (2.0 * height / g).sqrt();
    let mut exact = vec![first];
    let mut speed = g * first;
    while exact.len() < 4 {
        speed *= restitution;
        exact.push(exact.last().unwrap() + 2.0 * speed / g);
    }
    let weight = move |p: &Particle<f64>, _t: f64| -g * p.mass();
    let ground = Event::new(|p: &Particle<f64>, _t: f64| p.position())
        .direction(Direction::Falling)
        .action(move |p: &mut Particle<f64>, _t: f64| p.set_velocity(-restitution * p.velocity()));
    let solution = Adaptive::new(Dprkn6)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .integrate(&weight, Particle::new(2.0, height, 0.0), 0.0, 10.0)
        .events(ground)
        .solve()
        .unwrap();
    let bounces: Vec<f64> = solution.events.iter().map(|fired| fired.t).collect();
    assert_eq!(bounces.len(), 4, "{bounces:?}");
    for (found, expected) in bounces.iter().zip(&exact) {
        approx::assert_abs_diff_eq!(*found, *expected, epsilon = 1e-8);
    }
}

/// DPRKN12 on the half orbit: the error falls like `h¹²` (16 to 24 steps, where it stays
/// above rounding), with 17 evaluations a step.
#[test]
fn dprkn12_is_twelfth_order_on_keplers_orbit() {
    let half_period = std::f64::consts::PI;
    let aphelion = (
        DVec2::new(-1.5, 0.0),
        DVec2::new(0.0, -1.0 / 3.0_f64.sqrt()),
    );
    let runs: Vec<(f64, f64)> = [16, 20, 24]
        .iter()
        .map(|&n| {
            let (end, evaluations) =
                fixed_steps_of(Dprkn12.into_adaptive(), n, half_period / n as f64);
            assert_eq!(evaluations, 17 * n as u64 + 1);
            let error = (end.position() - aphelion.0)
                .length()
                .max((end.velocity() - aphelion.1).length());
            (n as f64, error)
        })
        .collect();
    for pair in runs.windows(2) {
        let order = (pair[0].1 / pair[1].1).ln() / (pair[1].0 / pair[0].0).ln();
        assert!((11.3..13.0).contains(&order), "order {order}: {runs:?}");
    }
}

/// DPRKN12's error estimate shrinks like `h¹¹` (its embedded member's order 10) on one step
/// of Kepler's orbit from perihelion; its Hermite dense output meets the step's ends and
/// errs at mid-step like `h⁶` on the oscillator (quintic in the position).
#[test]
fn dprkn12_estimate_and_hermite_dense_output() {
    let method = Dprkn12.into_adaptive();
    let order = slope(kepler_estimate(&method, 0.2), kepler_estimate(&method, 0.1));
    assert!((10.4..11.6).contains(&order), "estimate order {order}");

    let dense = |h: f64| {
        let [end, middle, at_end] = oscillator_step(&method, Particle::new(1.0, 1.0, 0.0), h);
        approx::assert_relative_eq!(at_end.position(), end.position(), max_relative = 1e-14);
        approx::assert_relative_eq!(at_end.momentum(), end.momentum(), max_relative = 1e-14);
        (middle.position() - (0.5 * h).cos()).abs()
    };
    let order = slope(dense(0.4), dense(0.2));
    assert!((5.5..6.6).contains(&order), "dense output order {order}");
}

/// Kepler's problem on `Particles`.
fn gravity_on_bodies(bodies: &Particles<DVec2>, _t: f64) -> Vec<DVec2> {
    let x = bodies.positions()[0];
    vec![-x / x.length().powi(3)]
}

/// A body that keeps its momentum and does not give its masses to the pairs: they form
/// its stages by `State::nystrom_rate_into`'s default, a kick and its velocity read back.
#[derive(Clone, Debug)]
struct Bead {
    x: DVec2,
    p: DVec2,
    inverse_mass: f64,
}

impl State for Bead {
    type Scalar = f64;
    type Velocity = DVec2;
    type Force = DVec2;

    fn velocity(&self) -> DVec2 {
        self.p * self.inverse_mass
    }
    fn drift(&mut self, velocity: DVec2, dt: f64) {
        self.x += velocity * dt;
    }
    fn kick(&mut self, force: DVec2, dt: f64) {
        self.p += force * dt;
    }
}

/// `Particle` and `Particles` form the stages, the step's end, its error and the dense
/// output in one pass (`State::nystrom_rate_into`), a body at a time: on Kepler's orbit
/// (e = 0.5, one period) both pairs take the same steps on one and on the other, to the
/// bit, between steps too.
#[test]
fn particles_take_the_steps_of_a_particle() {
    let period = 2.0 * std::f64::consts::PI;
    let planet = planet();
    let bodies = Particles::from_particles(&[planet]);
    for tolerance in [1e-5, 1e-8, 1e-11] {
        let tolerances = Tolerances::new(tolerance, tolerance);
        macro_rules! compare {
            ($pair:expr) => {{
                let one = Adaptive::new($pair)
                    .with_tolerances(tolerances)
                    .integrate(&gravity, planet, 0.0, period)
                    .solve()
                    .unwrap();
                let many = Adaptive::new($pair)
                    .with_tolerances(tolerances)
                    .integrate(&gravity_on_bodies, bodies.clone(), 0.0, period)
                    .solve()
                    .unwrap();
                assert_eq!(one.statistics, many.statistics, "{tolerance:e}");
                for i in 0..=40 {
                    let t = period * f64::from(i) / 40.0;
                    let (a, b) = (one.at(t).unwrap(), many.at(t).unwrap().particle(0));
                    assert_eq!((a.position(), a.velocity()), (b.position(), b.velocity()));
                }
            }};
        }
        compare!(Dprkn6);
        compare!(Dprkn12);
    }
}

/// The default, for a state without its masses in reach, is the same formula rounded
/// otherwise: 50 steps of 0.05 on Kepler's orbit (every step accepted) end where a
/// `Particle` does, to rounding, and so does the dense output inside the last step.
#[test]
fn a_state_without_masses_takes_the_steps_of_a_particle() {
    let h = 0.05;
    let planet = planet();
    let bead = Bead {
        x: planet.position(),
        p: planet.momentum(),
        inverse_mass: 1.0,
    };
    let on_bead = |b: &Bead, _t: f64| -b.x / b.x.length().powi(3);
    macro_rules! compare {
        ($pair:expr) => {{
            let loose = Tolerances::new(1.0, 1.0);
            let one = Adaptive::new($pair)
                .with_tolerances(loose)
                .with_initial_step(h)
                .with_max_step(h)
                .integrate(&gravity, planet, 0.0, 50.0 * h)
                .solve()
                .unwrap();
            let other = Adaptive::new($pair)
                .with_tolerances(loose)
                .with_initial_step(h)
                .with_max_step(h)
                .integrate(&on_bead, bead.clone(), 0.0, 50.0 * h)
                .solve()
                .unwrap();
            assert_eq!((one.statistics.accepted, one.statistics.rejected), (50, 0));
            assert_eq!(one.statistics, other.statistics);
            for t in [49.5 * h, 50.0 * h] {
                let (a, b) = (one.at(t).unwrap(), other.at(t).unwrap());
                let gap = (a.position() - b.x).length() + (a.momentum() - b.p).length();
                assert!(gap < 1e-13, "t = {t}: {gap:e}");
            }
        }};
    }
    compare!(Dprkn6);
    compare!(Dprkn12);
}

#[path = "../../../examples/problems/outer.rs"]
#[allow(dead_code)]
mod outer;

/// Many bodies as one flat `Particle<[f64; 18]>` of unit mass (its momentum the
/// velocities, its force the accelerations), as dop853.f's `Y` holds them: both pairs
/// converge to the outer solar system's end state computed in quadruple precision
/// (`examples/problems/outer.rs`), the error falling with the tolerance, and each
/// coordinate is read in place by the error norm.
#[test]
fn a_flat_array_of_bodies_converges_to_the_outer_solar_systems_reference() {
    let forces = |body: &Particle<[f64; 18]>, _t: f64| {
        let mut accelerations = [0.0; 18];
        outer::accelerations_into(&body.position(), &mut accelerations);
        accelerations
    };
    let error = |method: &str, tolerance: f64| {
        let method: AdaptiveKind = method.parse().expect("a pair by name");
        let (x, v) = outer::OUTER_START.split_at(18);
        let mut body = Particle::new(1.0, x.try_into().unwrap(), v.try_into().unwrap());
        Adaptive::new(method)
            .with_tolerances(Tolerances::new(tolerance, tolerance))
            .solve(&mut body, &forces, 0.0, outer::OUTER_END)
            .expect("a run within the step budget");
        let end = [body.position(), body.velocity()].concat();
        end.iter()
            .zip(outer::OUTER_REFERENCE)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    for (method, loose, tight) in [("dprkn6", 1e-6, 1e-9), ("dprkn12", 1e-5, 1e-8)] {
        let (coarse, fine) = (error(method, loose), error(method, tight));
        assert!(coarse < 10.0 * loose, "{method} at {loose}: {coarse:e}");
        assert!(fine < 10.0 * tight, "{method} at {tight}: {fine:e}");
        assert!(fine < 1e-2 * coarse, "{method}: {coarse:e} then {fine:e}");
    }
}
