//! Error control: Dormand–Prince 5(4) reproduces dopri5.f's step counts on the Arenstorf
//! orbit; the error at the end follows the tolerance; dense output has its pair's order;
//! runs go backwards, land exactly on the end, step every kind of state, refuse bad
//! settings and stop with a clear error where the problem has no solution.

use approx::assert_relative_eq;
use glam::DVec3;
use timestep::adaptive::Adaptive;
use timestep::control::Controller;
use timestep::{
    AdaptiveError, AdaptiveKind, ComponentTolerances, Statistics, StepError, Tolerances,
};
use timestep::{Bs3, Dop853, Dopri5, InPlace, Particle};

const MU: f64 = 0.012277471;
const ARENSTORF_START: [f64; 4] = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
const ARENSTORF_PERIOD: f64 = 17.065_216_560_157_96;

/// The restricted three-body problem of the Arenstorf orbit (Hairer–Nørsett–Wanner I, II.0).
fn arenstorf(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let [x, y, vx, vy] = *y;
    let d1 = ((x + MU).powi(2) + y * y).powf(1.5);
    let d2 = ((x - 1.0 + MU).powi(2) + y * y).powf(1.5);
    [
        vx,
        vy,
        x + 2.0 * vy - (1.0 - MU) * (x + MU) / d1 - MU * (x - 1.0 + MU) / d2,
        y - 2.0 * vx - (1.0 - MU) * y / d1 - MU * y / d2,
    ]
}

fn distance(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// dopri5.f's test driver (rtol = atol = 10⁻⁷, h₀ = 10⁻⁴, one period) reports 1430
/// evaluations (it counts two before the first step even when h₀ is given; one is made
/// here), 238 steps, 217 accepted and 21 rejected.
#[test]
fn dopri5_reproduces_the_reference_code_s_counts_on_the_arenstorf_orbit() {
    let mut y = ARENSTORF_START;
    let mut solver = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-7, 1e-7))
        .with_initial_step(1e-4);
    let statistics = solver
        .solve(&mut y, &arenstorf, 0.0, ARENSTORF_PERIOD)
        .unwrap();
    println!(
        "{statistics:?}, end error {:e}",
        distance(&y, &ARENSTORF_START)
    );
    assert_eq!(
        statistics,
        Statistics {
            evaluations: 1 + 6 * 238,
            accepted: 217,
            rejected: 21,
            t: ARENSTORF_PERIOD,
            stop: timestep::Stop::End,
            ..Statistics::default()
        }
    );
    // The orbit closes to within the tolerance's effect over one period.
    assert!(distance(&y, &ARENSTORF_START) < 1e-2);
}

/// The same run on a `Vec<f64>` written in place takes dopri5.f's steps too: there the
/// seventh stage, the rate at the step's end, is evaluated at the end itself (whose sum is
/// its probe's bit for bit), not at a probe formed in a pass of its own.
#[test]
fn dopri5_reproduces_the_reference_code_s_counts_on_a_vec() {
    let mut y = ARENSTORF_START.to_vec();
    let forces = InPlace(|y: &Vec<f64>, t: f64, out: &mut Vec<f64>| {
        out.copy_from_slice(&arenstorf(&y[..].try_into().unwrap(), t));
    });
    let statistics = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-7, 1e-7))
        .with_initial_step(1e-4)
        .solve(&mut y, &forces, 0.0, ARENSTORF_PERIOD)
        .unwrap();
    assert_eq!(
        (
            statistics.accepted,
            statistics.rejected,
            statistics.evaluations
        ),
        (217, 21, 1 + 6 * 238)
    );
    let end: [f64; 4] = y[..].try_into().unwrap();
    assert!(distance(&end, &ARENSTORF_START) < 1e-2);
}

/// Tightening the tolerance tightens the error at the end, at the rate the pair's order
/// says: for a pair of order p the global error scales like tol^(p/(p+1)) (about 10^−0.83
/// per decade for 5(4), 10^−0.75 for 3(2)).
#[test]
fn the_error_follows_the_tolerance() {
    for (name, exponent) in [("dopri5", 5.0 / 6.0), ("bs3", 3.0 / 4.0)] {
        let mut errors = Vec::new();
        for tol in [1e-6, 1e-8, 1e-10] {
            let mut y = ARENSTORF_START;
            let tolerances = Tolerances::new(tol, tol);
            let statistics = match name {
                "dopri5" => Adaptive::new(Dopri5).with_tolerances(tolerances).solve(
                    &mut y,
                    &arenstorf,
                    0.0,
                    ARENSTORF_PERIOD,
                ),
                _ => Adaptive::new(Bs3)
                    .with_tolerances(tolerances)
                    .with_max_steps(1_000_000)
                    .solve(&mut y, &arenstorf, 0.0, ARENSTORF_PERIOD),
            }
            .unwrap();
            let error = distance(&y, &ARENSTORF_START);
            println!("{name} tol {tol:e}: error {error:e}, {statistics:?}");
            errors.push(error);
        }
        for pair in errors.windows(2) {
            let per_decade = (pair[0] / pair[1]).log10() / 2.0;
            assert!(
                per_decade > 0.5 * exponent,
                "{name}: error fell by 10^{per_decade:.2} per decade of tolerance"
            );
        }
    }
}

/// One step of length `h` (the tolerances so loose that it is accepted) from
/// `y(0) = (1, 0)` on the oscillator `y'' = −y`, shown to `observe`.
fn one_oscillator_step(
    kind: AdaptiveKind,
    h: f64,
    observe: impl FnMut(&mut timestep::adaptive::Step<'_, '_, [f64; 2], AdaptiveKind, Oscillator>),
) {
    let mut y = [1.0, 0.0];
    Adaptive::new(kind)
        .with_tolerances(Tolerances::new(1.0, 1.0))
        .with_initial_step(h)
        .with_max_step(h)
        .solve_with(&mut y, &(oscillator as Oscillator), 0.0, h, observe)
        .unwrap();
}

/// The oscillator `y'' = −y` as a first-order system.
type Oscillator = fn(&[f64; 2], f64) -> [f64; 2];

fn oscillator(y: &[f64; 2], _t: f64) -> [f64; 2] {
    [y[1], -y[0]]
}

/// One step of length `h` from `y(0) = (1, 0)` on the oscillator `y'' = −y`, sampled at
/// `θ = 0.3` by the dense output: the local error is `O(h^(q+1))` for an interpolant of
/// order `q`, so halving `h` divides it by about `2^(q+1)`.
fn dense_output_error(kind: AdaptiveKind, h: f64) -> f64 {
    let mut sample = [0.0; 2];
    one_oscillator_step(kind, h, |step| step.state_at(0.3 * h, &mut sample));
    let t: f64 = 0.3 * h;
    ((sample[0] - t.cos()).powi(2) + (sample[1] + t.sin()).powi(2)).sqrt()
}

/// Every explicit pair of the registry; the implicit methods' dense outputs are checked in
/// `integrators::implicit::rosenbrock`, `integrators::implicit::radau5`,
/// `integrators::implicit::seulex` and `integrators::implicit::bdf`, on problems and steps where theirs are asymptotic.
#[test]
fn dense_output_has_its_pair_s_order() {
    for kind in AdaptiveKind::all() {
        let name = kind.name();
        let (order, steps) = match name {
            "bs3" => (3.0, [0.4, 0.2, 0.1]),
            "dopri5" | "tsit5" => (4.0, [0.4, 0.2, 0.1]),
            "dop853" => (7.0, [1.6, 0.8, 0.4]),
            "rodas4" | "rodas5p" | "ros3p" | "radau5" | "seulex" | "bdf" => continue,
            // A Nyström pair's is measured in `integrators::nystrom`, on a second-order state.
            "dprkn6" | "dprkn12" => continue,
            // Verner's interpolants are measured in `integrators::explicit_rk::verner`, over
            // steps where their errors stay above rounding (and above their theory's order).
            "vern6" | "vern7" | "vern8" | "vern9" => continue,
            other => panic!("{other}: give its dense output's order here"),
        };
        let errors = steps.map(|h| dense_output_error(kind, h));
        for pair in errors.windows(2) {
            let measured = (pair[0] / pair[1]).log2() - 1.0;
            println!("{name}: dense output order {measured:.2}");
            assert!(
                (measured - order).abs() < 0.3,
                "{name}: dense output order {measured}, theory {order}"
            );
        }
    }
}

/// A run backwards in time undoes a run forwards, to the tolerance, and lands exactly on
/// its end time.
#[test]
fn runs_go_backwards_and_land_exactly_on_the_end() {
    let mut y = ARENSTORF_START;
    let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-12, 1e-12));
    solver.solve(&mut y, &arenstorf, 0.0, 3.0).unwrap();
    let mut last_end = f64::NAN;
    solver
        .solve_with(&mut y, &arenstorf, 3.0, 0.0, |step| {
            last_end = step.end_time()
        })
        .unwrap();
    assert_eq!(last_end, 0.0);
    assert!(
        distance(&y, &ARENSTORF_START) < 1e-8,
        "{}",
        distance(&y, &ARENSTORF_START)
    );
}

/// Any state: a particle in space under gravity and linear drag lands where the closed form
/// puts it, and a `Vec` of a thousand decaying unknowns, with forces written in place.
#[test]
fn particles_and_large_states_step_under_error_control() {
    let (b, g) = (0.5, DVec3::new(0.0, 0.0, -9.81));
    let drag = move |p: &Particle<DVec3>, _t: f64| g * p.mass() - b * p.velocity();
    let v0 = DVec3::new(3.0, 0.0, 10.0);
    let mut ball = Particle::new(1.0, DVec3::ZERO, v0);
    Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .solve(&mut ball, &drag, 0.0, 2.0)
        .unwrap();
    // x(t) = (v₀ − g/b)(1 − e^(−bt))/b + g t / b, for m = 1.
    let t = 2.0;
    let exact = (v0 - g / b) * (1.0 - (-b * t).exp()) / b + g * t / b;
    assert!((ball.position() - exact).length() < 1e-8);

    let decay = InPlace(|y: &Vec<f64>, _t: f64, dy: &mut Vec<f64>| {
        for (i, (d, y)) in dy.iter_mut().zip(y).enumerate() {
            *d = -(1.0 + i as f64 / 1000.0) * y;
        }
    });
    let mut y = vec![1.0; 1000];
    Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-9, 1e-12))
        .solve(&mut y, &decay, 0.0, 1.0)
        .unwrap();
    for (i, y) in y.iter().enumerate() {
        let exact = (-(1.0 + i as f64 / 1000.0)).exp();
        assert!((y - exact).abs() < 1e-8 * exact, "{i}: {y} vs {exact}");
    }
}

/// Bad settings are refused before anything is evaluated; a solution that blows up
/// (`y' = y²` from `y = 1`, infinite at `t = 1`) stops with an error and the last good
/// state; forces that return NaN stop it too.
#[test]
fn bad_settings_and_singular_problems_are_errors() {
    let square = |y: &f64, _t: f64| y * y;
    let mut y = 1.0_f64;
    for (solver, expected) in [
        (
            Adaptive::new(Dopri5).with_tolerances(Tolerances::new(-1.0, 1e-6)),
            "InvalidTolerance",
        ),
        (
            Adaptive::new(Dopri5).with_tolerances(Tolerances::new(0.0, 0.0)),
            "InvalidTolerance",
        ),
        (Adaptive::new(Dopri5).with_initial_step(0.0), "InvalidStep"),
        // A controller that cannot shrink a rejected step would retry it forever.
        (
            Adaptive::new(Dopri5).with_controller(Controller {
                min_factor: 1.0,
                ..Controller::DOPRI5
            }),
            "InvalidController",
        ),
        (Adaptive::new(Dopri5).with_max_step(f64::NAN), "InvalidStep"),
    ] {
        let mut solver = solver;
        let error = solver.solve(&mut y, &square, 0.0, 0.5).unwrap_err();
        assert!(format!("{error:?}").starts_with(expected), "{error:?}");
        assert_eq!(y, 1.0);
    }
    let error = Adaptive::new(Dopri5)
        .solve(&mut y, &square, 0.0, f64::INFINITY)
        .unwrap_err();
    assert!(matches!(error, AdaptiveError::NonFiniteTime { .. }));

    let error = Adaptive::new(Dopri5)
        .solve(&mut y, &square, 0.0, 2.0)
        .unwrap_err();
    let t = match error {
        AdaptiveError::StepTooSmall { t, .. }
        | AdaptiveError::NonFiniteError { t, .. }
        | AdaptiveError::TooManySteps { t, .. } => t,
        other => panic!("{other:?}"),
    };
    // Stopped at the singularity (to within the last step), with the last good state:
    // finite, and huge, as y = 1/(1 − t) is there.
    assert!((t - 1.0).abs() < 1e-3, "{t}");
    assert!(y.is_finite() && y > 1e3, "y = {y} at {t}");

    let mut y = 1.0_f64;
    let poisoned = |y: &f64, t: f64| if t > 0.5 { f64::NAN } else { -y };
    let error = Adaptive::new(Dopri5)
        .solve(&mut y, &poisoned, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(error, AdaptiveError::NonFiniteError { .. }),
        "{error:?}"
    );
    assert!(y.is_finite());
}

/// Purely relative tolerances (`atol = 0`, valid) on coordinates that start at zero, for
/// every method with error control: the harmonic oscillator from `(x, v) = (0, 1)` follows
/// `x = sin t`, and a coordinate that stays zero (`y' = (0, −y₁)`) neither poisons the
/// first step's guess nor the error norm (`0/0`). Radau5, SEULEX and the BDF, which
/// measure against the step's start as radau5.f, seulex.f and CVODE do, say which
/// coordinate needs an absolute tolerance.
#[test]
fn purely_relative_tolerances_on_zero_coordinates() {
    let oscillator = |y: &[f64; 2], _t: f64| [y[1], -y[0]];
    let decay = |y: &[f64; 2], _t: f64| [0.0, -y[1]];
    // First-order problems: the Nyström pairs refuse them (`integrators::nystrom`).
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-8, 0.0));
        let (mut oscillating, mut decaying) = ([0.0, 1.0], [0.0, 1.0]);
        let results = [
            solver.solve(&mut oscillating, &oscillator, 0.0, 1.0),
            solver.solve(&mut decaying, &decay, 0.0, 1.0),
        ];
        match kind {
            AdaptiveKind::Radau5(_) | AdaptiveKind::Seulex(_) | AdaptiveKind::Bdf(_) => {
                for result in results {
                    let Err(AdaptiveError::StepFailed { t, cause, .. }) = result else {
                        panic!("{result:?}");
                    };
                    assert_eq!((t, cause), (0.0, StepError::ZeroScale { coordinate: 0 }));
                }
            }
            // Ros3p's error estimate vanishes on linear problems (see its docs).
            AdaptiveKind::Ros3p(_) => {}
            _ => {
                assert!(results.iter().all(Result::is_ok), "{kind}: {results:?}");
                let [x, v] = oscillating;
                let error = (x - 1.0_f64.sin()).abs().max((v - 1.0_f64.cos()).abs());
                assert!(error < 1e-5, "{kind}: {error:e}");
                assert_eq!(decaying[0], 0.0);
                assert_relative_eq!(decaying[1], (-1.0_f64).exp(), max_relative = 1e-5);
            }
        }
    }
}

/// One solver reused on states of other sizes makes the buffers each needs: `y' = −y²`
/// on three coordinates, then five, then three again, each to `1/(1 + t)`.
#[test]
fn a_solver_reused_on_states_of_other_sizes() {
    let square = |y: &Vec<f64>, _t: f64| y.iter().map(|v| -v * v).collect::<Vec<_>>();
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-9, 1e-9));
        for n in [3, 5, 3] {
            let mut y = vec![1.0; n];
            solver.solve(&mut y, &square, 0.0, 1.0).unwrap();
            for v in y {
                assert_relative_eq!(v, 0.5, max_relative = 1e-6);
            }
        }
    }
}

/// A rigid body under error control: the torque-free body spun near its unstable
/// intermediate axis (I = diag(1, 2, 3)) keeps its orientation a unit quaternion at every
/// accepted step, its angular momentum exactly, and its energy to the tolerance's order
/// over a minute of flips.
#[test]
fn a_tumbling_rigid_body_under_error_control() {
    use timestep::rigid::{DRigidBody, Inertia};
    let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_angular_velocity(DVec3::new(0.001, 2.0, 0.001));
    let energy = |b: &DRigidBody| 0.5 * b.angular_velocity().dot(b.angular_momentum());
    let (e0, l0) = (energy(&body), body.angular_momentum());
    let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
    let mut worst_norm: f64 = 0.0;
    let statistics = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .solve_with(&mut body, &free, 0.0, 60.0, |step| {
            worst_norm = worst_norm.max((step.end().orientation().length() - 1.0).abs());
        })
        .unwrap();
    println!(
        "{statistics:?}, energy error {:e}",
        (energy(&body) - e0).abs() / e0
    );
    assert!(worst_norm < 1e-15);
    assert_eq!(body.angular_momentum(), l0);
    assert!((energy(&body) - e0).abs() < 1e-8 * e0);
}

/// Per-component tolerances: a tight absolute tolerance on one coordinate of two decoupled
/// decays makes that one accurate (and costs steps), and tolerances of the wrong count
/// (none included), all zero on a coordinate, or not finite are refused with their cause.
#[test]
fn per_component_tolerances() {
    let decay = |y: &[f64; 2], _t: f64| [-y[0], -2.0 * y[1]];
    let exact = [(-2.0_f64).exp(), (-4.0_f64).exp()];
    let errors = |y: [f64; 2]| [(y[0] - exact[0]).abs(), (y[1] - exact[1]).abs()];
    let mut loose = [1.0, 1.0];
    let loose_cost = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(0.0, 1e-4))
        .solve(&mut loose, &decay, 0.0, 2.0)
        .unwrap();
    let mut mixed = [1.0, 1.0];
    let mixed_cost = Adaptive::new(Dopri5)
        .with_component_tolerances(ComponentTolerances::new(vec![0.0, 0.0], vec![1e-4, 1e-10]))
        .solve(&mut mixed, &decay, 0.0, 2.0)
        .unwrap();
    let (loose, mixed) = (errors(loose), errors(mixed));
    assert!(mixed[1] < 1e-3 * loose[1], "{mixed:?} vs {loose:?}");
    assert!(mixed_cost.accepted > loose_cost.accepted);

    let mut y = [1.0, 1.0];
    let refuse = |bad: ComponentTolerances, y: &mut [f64; 2]| {
        Adaptive::new(Dopri5)
            .with_component_tolerances(bad)
            .solve(y, &decay, 0.0, 1.0)
            .unwrap_err()
    };
    for (count, bad) in [
        (3, ComponentTolerances::new(vec![1e-6; 3], vec![1e-6; 3])),
        (0, ComponentTolerances::new(vec![], vec![])),
        (1, ComponentTolerances::new(vec![1e-6; 2], vec![1e-6])),
    ] {
        let error = refuse(bad, &mut y);
        assert_eq!(
            error,
            AdaptiveError::ToleranceCount {
                count,
                coordinates: 2
            }
        );
    }
    for bad in [
        ComponentTolerances::new(vec![1e-6, 0.0], vec![1e-6, 0.0]),
        ComponentTolerances::new(vec![1e-6, f64::NAN], vec![1e-6, 1e-6]),
        ComponentTolerances::new(vec![1e-6, 1e-6], vec![-1e-6, 1e-6]),
    ] {
        let error = refuse(bad, &mut y);
        assert!(
            matches!(error, AdaptiveError::InvalidTolerance { .. }),
            "{error:?}"
        );
    }
    assert_eq!(y, [1.0, 1.0]);
}

/// The first ten bounces of a ball dropped from 10 m (g = 9.81, restitution 0.9), as events
/// on the height with the bounce `v → −0.9 v` as their action: each within 10⁻⁶ s of the
/// closed form (the first at `√(2h/g)`, then every `2 eᵏ v₁/g` later).
#[test]
fn bounces_are_located_on_the_dense_output() {
    use timestep::adaptive::{Direction, Event};
    let (h0, g, e): (f64, f64, f64) = (10.0, 9.81, 0.9);
    let falling = |y: &[f64; 2], _t: f64| [y[1], -g];
    let v1 = (2.0 * g * h0).sqrt();
    let mut exact = vec![(2.0 * h0 / g).sqrt()];
    for k in 1..10 {
        exact.push(exact[k - 1] + 2.0 * e.powi(k as i32) * v1 / g);
    }
    let mut ground = Event::new(|y: &[f64; 2], _t: f64| y[0])
        .direction(Direction::Falling)
        .action(move |y: &mut [f64; 2], _t: f64| y[1] *= -e);
    let mut bounces = Vec::new();
    let mut y = [h0, 0.0];
    Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .with_max_step(0.1)
        .solve_with_events(
            &mut y,
            &falling,
            0.0,
            exact[9] + 0.01,
            &mut ground,
            |_, t, y| {
                bounces.push((t, *y));
            },
        )
        .unwrap();
    assert_eq!(bounces.len(), 10);
    for (k, ((t, y), exact)) in bounces.iter().zip(&exact).enumerate() {
        println!(
            "bounce {}: t = {t}, exact {exact}, error {:e}",
            k + 1,
            t - exact
        );
        assert!((t - exact).abs() < 1e-6, "bounce {}: {t} vs {exact}", k + 1);
        assert!(y[0].abs() < 1e-6 && y[1] > 0.0);
    }
}

/// A step that ends a hair before a crossing (here `x = 2⁻⁵⁰` at `t = 1`, the steps exact in
/// binary) leaves the root at the very start of the next step: it is a new event, reported
/// once, not mistaken for the one just handled.
#[test]
fn a_crossing_just_after_a_step_s_end_is_an_event() {
    use timestep::adaptive::{Direction, Event};
    let falling = |_: &f64, _t: f64| -1.0;
    let mut ground = Event::new(|x: &f64, _t: f64| *x).direction(Direction::Falling);
    let mut crossings = Vec::new();
    let mut x = 1.0 + 2.0_f64.powi(-50);
    Adaptive::new(Dopri5)
        .with_initial_step(0.25)
        .with_max_step(0.25)
        .solve_with_events(&mut x, &falling, 0.0, 2.0, &mut ground, |_, t, _| {
            crossings.push(t)
        })
        .unwrap();
    assert_eq!(crossings.len(), 1, "{crossings:?}");
    assert!((crossings[0] - 1.0).abs() < 1e-14, "{crossings:?}");
    assert!((x + 1.0).abs() < 1e-14, "{x}");
}

/// A terminal event stops the run with the state at the event; of two events, the earlier
/// one fires first, and each is reported with its index.
#[test]
fn terminal_and_several_events() {
    use timestep::adaptive::{Direction, Event};
    // x' = 1 from 0: crosses 0.3 (event 1, reported only) before 0.5 (event 0, terminal).
    let drift = |_: &f64, _t: f64| 1.0;
    let mut events = (
        Event::new(|x: &f64, _t: f64| x - 0.5).terminal(),
        Event::new(|x: &f64, _t: f64| x - 0.3).direction(Direction::Rising),
    );
    let mut log = Vec::new();
    let mut x = 0.0_f64;
    Adaptive::new(Dopri5)
        .with_max_step(0.07)
        .solve_with_events(&mut x, &drift, 0.0, 2.0, &mut events, |i, t, x| {
            log.push((i, t, *x))
        })
        .unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].0, 1);
    assert!((log[0].1 - 0.3).abs() < 1e-12);
    assert_eq!(log[1].0, 0);
    assert!((log[1].1 - 0.5).abs() < 1e-12);
    assert!((x - 0.5).abs() < 1e-12, "stopped at the event: {x}");
}

/// Sampling at requested times reads the dense output and never shortens a step: a
/// thousand samples over the oscillator's run take exactly the steps of the run without
/// them (for DOP853 too, whose dense output costs three more evaluations per step), and
/// each sample is the exact solution to the tolerance's order. Times out of order, or
/// before the start, are refused.
#[test]
fn sampling_at_requested_times_never_shortens_steps() {
    let oscillator = |y: &[f64; 2], _t: f64| [y[1], -y[0]];
    let times: Vec<f64> = (0..=1000).map(|i| 0.01 * i as f64).collect();
    for (name, plain, sampled, samples) in [
        {
            let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-9, 1e-9));
            let plain = solver
                .solve(&mut [1.0, 0.0], &oscillator, 0.0, 10.0)
                .unwrap();
            let mut samples = Vec::new();
            let sampled = solver
                .solve_at(&mut [1.0, 0.0], &oscillator, 0.0, &times, |t, y| {
                    samples.push((t, *y))
                })
                .unwrap();
            ("dopri5", plain, sampled, samples)
        },
        {
            let mut solver = Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-9, 1e-9));
            let plain = solver
                .solve(&mut [1.0, 0.0], &oscillator, 0.0, 10.0)
                .unwrap();
            let mut samples = Vec::new();
            let sampled = solver
                .solve_at(&mut [1.0, 0.0], &oscillator, 0.0, &times, |t, y| {
                    samples.push((t, *y))
                })
                .unwrap();
            ("dop853", plain, sampled, samples)
        },
    ] {
        println!("{name}: {plain:?} without samples, {sampled:?} with");
        assert_eq!(
            (sampled.accepted, sampled.rejected),
            (plain.accepted, plain.rejected),
            "{name}"
        );
        assert!(sampled.accepted < 200, "{name}: {sampled:?}");
        assert_eq!(samples.len(), times.len());
        for ((t, y), expected) in samples.iter().zip(&times) {
            assert_eq!(t, expected);
            assert!(
                (y[0] - t.cos()).abs() < 1e-7 && (y[1] + t.sin()).abs() < 1e-7,
                "{name} at {t}: {y:?}"
            );
        }
    }
    let mut y = [1.0, 0.0];
    let mut solver = Adaptive::new(Dopri5);
    for bad in [vec![], vec![1.0, 0.5], vec![-1.0, 1.0], vec![0.5, f64::NAN]] {
        let error = solver
            .solve_at(&mut y, &oscillator, 0.0, &bad, |_, _| {})
            .unwrap_err();
        assert_eq!(error, AdaptiveError::InvalidSampleTimes, "{bad:?}");
    }
    assert_eq!(y, [1.0, 0.0]);
}

/// A span of a few ulps of `t` is one step that lands on its end: `y′ = −y` from 1 over
/// `Δt` ends at `e^(−Δt) = 1 − Δt` to rounding. Spans under ten ulps of `t` were refused
/// with `StepTooSmall`, though the step that lands on the end was never too small to take.
#[test]
fn a_span_of_a_few_ulps_is_one_step() {
    let decay = |y: &f64, _t: f64| -y;
    for ulps in 1..=9 {
        let t1 = 1.0 + f64::from(ulps) * f64::EPSILON;
        let mut y = 1.0_f64;
        let statistics = Adaptive::new(Dopri5)
            .solve(&mut y, &decay, 1.0, t1)
            .unwrap_or_else(|error| panic!("{ulps} ulps: {error}"));
        assert_eq!((statistics.accepted, statistics.t), (1, t1));
        assert_relative_eq!(y, (1.0 - t1).exp(), max_relative = 2.0 * f64::EPSILON);
        // Backwards too.
        let mut y = 1.0_f64;
        let statistics = Adaptive::new(Dopri5)
            .solve(&mut y, &decay, t1, 1.0)
            .unwrap();
        assert_eq!((statistics.accepted, statistics.t), (1, 1.0));
        assert_relative_eq!(y, (t1 - 1.0).exp(), max_relative = 2.0 * f64::EPSILON);
    }
}

/// The dense output at a step's end against the step's end itself, on the oscillator: a
/// pair whose interpolant matches its solution at `θ = 1` differs there only by the
/// rounding of its weights, `C h ‖f‖` with `C` fixed by the size of the interpolant's
/// coefficients. Measured `C`: 7·10⁻¹⁶ (Dopri5), 6·10⁻¹⁵ (Tsit5), 2.5·10⁻¹⁴ (DOP853), 6.2·10⁻¹² (Vern6),
/// 1.8·10⁻¹³ (Vern7), 4.0·10⁻¹⁰ (Vern8, whose coefficients run to 1.4·10⁶), 6·10⁻¹³
/// (Vern9); the bounds are twice these. Read a step's end from the step (`Step::end`).
#[test]
fn the_dense_output_at_a_step_s_end_is_the_end_to_its_weights_rounding() {
    let bounds = [
        ("dopri5", 2e-15),
        ("tsit5", 1.2e-14),
        ("dop853", 5e-14),
        ("vern6", 1.3e-11),
        ("vern7", 4e-13),
        ("vern8", 8e-10),
        ("vern9", 1.3e-12),
    ];
    for (name, bound) in bounds {
        let kind: AdaptiveKind = name.parse().unwrap();
        for h in [0.8, 0.4, 0.2, 0.1] {
            let (mut at_end, mut end) = ([0.0_f64; 2], [0.0_f64; 2]);
            one_oscillator_step(kind, h, |step| {
                step.state_at(h, &mut at_end);
                end = *step.end();
            });
            // ‖f‖ = 1 on the unit circle.
            let apart = ((at_end[0] - end[0]).powi(2) + (at_end[1] - end[1]).powi(2)).sqrt();
            println!("{name} h {h}: {apart:.2e}, {:.2e} h‖f‖", apart / h);
            assert!(apart <= bound * h, "{name} h {h}: {apart:e}");
        }
    }
}
