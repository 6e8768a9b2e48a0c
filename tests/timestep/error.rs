//! Bad input gets a clear answer and leaves the state alone: non-finite times, runs whose
//! step points away from their end, and method names that do not exist. And good names
//! pick the integrator they say.

use crate::common;

use common::spring;
use timestep::{
    AdamsBashforthMoulton, BackwardEuler, Beeman, Bs3, Composition, Dop853, Dopri5, ExplicitEuler,
    ExponentialEuler, ImplicitMidpoint, ImprovedEuler, Integrator, Leapfrog, Method, MethodKind,
    Midpoint, Newmark, Particle, PositionVerlet, PredictorCorrector, Radau5, Rk4, Rodas4, Rodas5P,
    Ros3p, SemiImplicitEuler, StepError, Stepper, Trajectory, Trapezoid, Tsit5, Verlet,
};

const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

fn is_non_finite_time(result: Result<(), StepError>, t: f64, dt: f64) -> bool {
    let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    matches!(result, Err(StepError::NonFiniteTime { t: et, dt: edt }) if same(et, t) && same(edt, dt))
}

/// A non-finite `t` or `dt` is refused by every method, on a particle in either precision
/// and on a first-order system, with the values given, and the state keeps every bit.
/// (One method at a time, parsed by name: the array of every method, each with room for
/// backward Euler's workspace, is 240 kB, three of them too much for a debug test thread.)
#[test]
fn non_finite_time_is_refused_by_every_method() {
    let mut cases = Vec::new();
    for bad in NON_FINITE {
        cases.push((bad, 0.01));
        cases.push((1.0, bad));
        cases.push((bad, bad));
    }
    let forces = spring(15.0, 0.1);
    let forces32 = |p: &Particle<f32>, _t: f32| -15.0 * p.position();
    let system = |y: &[f64; 2], _t: f64| [y[1], -y[0]];
    for (t, dt) in cases {
        for name in MethodKind::NAMES {
            let mut method: Method<Particle<f64>> = name.parse().unwrap();
            let start = Particle::new(2.0, 1.5, -0.5);
            let mut particle = start;
            let result = method.step(&mut particle, &forces, t, dt);
            assert!(
                is_non_finite_time(result, t, dt),
                "{method} ({t}, {dt}): {result:?}"
            );
            assert_eq!(particle.position().to_bits(), start.position().to_bits());
            assert_eq!(particle.momentum().to_bits(), start.momentum().to_bits());
        }
        for name in MethodKind::NAMES {
            let mut method: Method<Particle<f32>> = name.parse().unwrap();
            let start = Particle::new(2.0_f32, 1.5, -0.5);
            let mut particle = start;
            let (t32, dt32) = (t as f32, dt as f32);
            let result = method.step(&mut particle, &forces32, t32, dt32);
            assert!(
                is_non_finite_time(result, t32.into(), dt32.into()),
                "{method} f32: {result:?}"
            );
            assert_eq!(particle, start);
        }
        for name in MethodKind::NAMES {
            let mut method: Method<[f64; 2]> = name.parse().unwrap();
            let mut y = [0.3, 0.4];
            let result = method.step(&mut y, &system, t, dt);
            assert!(
                is_non_finite_time(result, t, dt),
                "{method} system: {result:?}"
            );
            assert_eq!(y, [0.3, 0.4]);
        }
    }
}

/// The concrete types refuse it too (not only through `Method`), and the message names the
/// values.
#[test]
fn non_finite_time_is_refused_by_each_concrete_integrator() {
    fn check<I: Integrator<Particle<f64>>>(mut integrator: I) {
        let forces = spring(4.0, 0.0);
        let start = Particle::new(1.0, 1.0, 0.0);
        let mut particle = start;
        let error = integrator
            .step(&mut particle, &forces, 0.0, f64::INFINITY)
            .unwrap_err();
        assert_eq!(
            error,
            StepError::NonFiniteTime {
                t: 0.0,
                dt: f64::INFINITY
            }
        );
        assert_eq!(
            error.to_string(),
            "time and time step must be finite (t = 0, dt = inf)"
        );
        assert_eq!(particle, start);
    }
    check(ExplicitEuler);
    check(SemiImplicitEuler);
    check(Midpoint);
    check(ImprovedEuler);
    check(Rk4);
    check(Verlet);
    check(PositionVerlet::new());
    check(BackwardEuler::new());
}

/// A refused step does not disturb position Verlet's memory: the run continues exactly as
/// if the bad call had not been made.
#[test]
fn a_refused_step_leaves_position_verlet_s_memory_alone() {
    let forces = spring(9.0, 0.0);
    let (mut with_errors, mut clean) = (PositionVerlet::new(), PositionVerlet::new());
    let (mut a, mut b) = (Particle::new(1.0, 1.0, 0.0), Particle::new(1.0, 1.0, 0.0));
    for i in 0..20 {
        let t = i as f64 * 0.05;
        assert!(with_errors.step(&mut a, &forces, f64::NAN, 0.05).is_err());
        with_errors.step(&mut a, &forces, t, 0.05).unwrap();
        clean.step(&mut b, &forces, t, 0.05).unwrap();
    }
    assert_eq!(a, b);
}

/// A run whose step points away from its end, or is zero, cannot reach it; the error says
/// so with the span and the step. A run of zero span yields its start only.
#[test]
fn trajectory_refuses_a_step_of_the_wrong_sign() {
    let decay = |y: &f64, _t: f64| -y;
    for (t0, t1, dt) in [
        (0.0, 1.0, -0.1),
        (1.0, 0.0, 0.1),
        (0.0, 1.0, 0.0),
        (2.0, -3.0, 0.5),
    ] {
        // (`unwrap_err` would need the closure to be `Debug`.)
        let Err(error) = Trajectory::new(Rk4, 1.0, &decay, t0, t1, dt) else {
            panic!("({t0}, {t1}, {dt}) accepted");
        };
        assert_eq!(error, StepError::TimeStepDirection { span: t1 - t0, dt });
        assert!(
            error
                .to_string()
                .contains("must be non-zero and have the span's sign")
        );
    }
    // Backwards in time with a negative step is legal: y' = −y from y(1) = e⁻¹ back to
    // t = 0 lands near 1 (RK4, 10 steps: error ~ dt⁴ ≈ 10⁻⁶).
    let start = (-1.0_f64).exp();
    let (t, y) = Trajectory::new(Rk4, start, &decay, 1.0, 0.0, -0.1)
        .unwrap()
        .last()
        .unwrap()
        .unwrap();
    assert_eq!(t, 0.0);
    assert!((y - 1.0).abs() < 1e-5, "{y}");

    let samples: Vec<_> = Trajectory::new(Rk4, 1.0, &decay, 3.0, 3.0, 0.1)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(samples, vec![(3.0, 1.0)]);
}

#[test]
fn trajectory_refuses_non_finite_times() {
    let decay = |y: &f64, _t: f64| -y;
    for bad in NON_FINITE {
        for (t0, t1, dt) in [(bad, 1.0, 0.1), (0.0, bad, 0.1), (0.0, 1.0, bad)] {
            let result = Trajectory::new(Rk4, 1.0, &decay, t0, t1, dt);
            assert!(
                matches!(result, Err(StepError::NonFiniteTime { .. })),
                "({t0}, {t1}, {dt})"
            );
        }
    }
}

/// A step that fails inside a run is yielded as the error and ends the run; the state the
/// run holds is the last good one.
#[test]
fn a_failing_step_ends_the_trajectory() {
    let stiff = |p: &Particle<f64>, _t: f64| -1.0e4 * p.position().powi(3);
    let solver = BackwardEuler::new().with_max_iterations(1);
    let start = Particle::new(1.0, 1.0, 0.0);
    let mut run = Trajectory::new(solver, start, &stiff, 0.0, 1.0, 0.1).unwrap();
    assert_eq!(run.next(), Some(Ok((0.0, start))));
    assert!(matches!(
        run.next(),
        Some(Err(StepError::NotConverged { iterations: 1, .. }))
    ));
    assert_eq!(run.next(), None);
    assert_eq!(*run.state(), start);
}

/// Every name parses, prints back as itself, and `all()` lists the methods in the order of
/// `NAMES`.
#[test]
fn method_names_round_trip() {
    type M = Method<Particle<f64>>;
    assert_eq!(
        M::NAMES,
        [
            "explicit-euler",
            "semi-implicit-euler",
            "midpoint",
            "improved-euler",
            "rk4",
            "verlet",
            "position-verlet",
            "backward-euler",
            "bs3",
            "dopri5",
            "tsit5",
            "dop853",
            "leapfrog",
            "beeman",
            "adams-bashforth-moulton",
            "exponential-euler",
            "predictor-corrector",
            "forest-ruth",
            "suzuki4",
            "yoshida6",
            "yoshida8",
            "blanes-moan4",
            "kahan-li8",
            "trapezoid",
            "implicit-midpoint",
            "newmark",
            "rodas4",
            "rodas5p",
            "ros3p",
            "radau5",
        ]
    );
    // Forest and Ruth's method is also Yoshida's 4th order, and parses by that name too.
    assert_eq!("yoshida4".parse::<M>().unwrap().name(), "forest-ruth");
    // `MethodKind::all()`, the settings `Method::all()` makes its steppers from: an array of
    // every `Method` holds room for backward Euler's workspace in each (240 kB), which
    // overflowed this debug test thread's stack next to the others here.
    for (name, listed) in M::NAMES.iter().zip(MethodKind::all()) {
        let parsed: M = name.parse().unwrap();
        assert_eq!(parsed.to_string(), *name);
        assert_eq!(parsed.name(), *name);
        assert_eq!(listed.to_string(), *name);
        assert_eq!(format!("{parsed:>20}"), format!("{name:>20}"));
    }
}

#[test]
fn unknown_method_names_are_rejected() {
    for bad in [
        "",
        "rk5",
        "RK4",
        "Rk4",
        " rk4",
        "rk4 ",
        "euler",
        "semi_implicit_euler",
        "backward euler",
        "verlet-position",
        "explicit-euler\n",
    ] {
        let error = bad.parse::<Method<Particle<f64>>>().unwrap_err();
        let message = error.to_string();
        for name in Method::<Particle<f64>>::NAMES {
            assert!(message.contains(name), "{message:?} should list {name}");
        }
    }
}

/// A parsed name steps exactly (bit for bit) as the integrator it names: a name mapped to
/// the wrong method would round-trip its string and still fail here.
///
/// The run is built to tell every method of the registry apart in exact arithmetic: the
/// force is nonlinear and driven in time (midpoint and improved Euler agree on linear
/// autonomous forces), and the velocity is set by hand halfway (position Verlet's positions
/// follow its memory of the last displacement, velocity Verlet's the new velocity;
/// otherwise they agree). Two pairs are one method here, step for step: exponential Euler
/// given no linear part is explicit Euler, and Newmark's average acceleration on a particle
/// solves the trapezoidal rule's equations.
#[test]
fn a_parsed_name_steps_as_the_integrator_it_names() {
    fn run<I: Integrator<Particle<f64>>>(mut integrator: I) -> Particle<f64> {
        let forces = |p: &Particle<f64>, t: f64| {
            let x = p.position();
            -15.0 * x - 4.0 * x * x * x - 0.3 * p.velocity() + 2.0 * (3.0 * t).sin()
        };
        let mut particle = Particle::new(1.3, 1.0, 0.5);
        for i in 0..10 {
            if i == 5 {
                particle.set_velocity(0.0);
            }
            integrator
                .step(&mut particle, &forces, i as f64 * 0.05, 0.05)
                .unwrap();
        }
        particle
    }
    // The implicit methods and those with a history through a stepper, as `Method` steps
    // them: a kept workspace keeps an implicit method's factored matrix from step to step,
    // which moves its answer within the Newton tolerance.
    let direct = [
        ("explicit-euler", run(ExplicitEuler)),
        ("semi-implicit-euler", run(SemiImplicitEuler)),
        ("midpoint", run(Midpoint)),
        ("improved-euler", run(ImprovedEuler)),
        ("rk4", run(Rk4)),
        ("verlet", run(Verlet)),
        ("position-verlet", run(PositionVerlet::new())),
        ("backward-euler", run(Stepper::new(BackwardEuler::new()))),
        ("bs3", run(Bs3)),
        ("dopri5", run(Dopri5)),
        ("tsit5", run(Tsit5)),
        ("dop853", run(Dop853)),
        ("leapfrog", run(Leapfrog)),
        ("beeman", run(Stepper::new(Beeman))),
        (
            "adams-bashforth-moulton",
            run(Stepper::new(AdamsBashforthMoulton)),
        ),
        ("exponential-euler", run(ExponentialEuler)),
        ("predictor-corrector", run(PredictorCorrector)),
        ("forest-ruth", run(Composition::FOREST_RUTH)),
        ("suzuki4", run(Composition::SUZUKI4)),
        ("yoshida6", run(Composition::YOSHIDA6)),
        ("yoshida8", run(Composition::YOSHIDA8)),
        ("blanes-moan4", run(Composition::BLANES_MOAN4)),
        ("kahan-li8", run(Composition::KAHAN_LI8)),
        ("trapezoid", run(Stepper::new(Trapezoid::new()))),
        (
            "implicit-midpoint",
            run(Stepper::new(ImplicitMidpoint::new())),
        ),
        ("newmark", run(Stepper::new(Newmark::new()))),
        ("rodas4", run(Stepper::new(Rodas4))),
        ("rodas5p", run(Stepper::new(Rodas5P))),
        ("ros3p", run(Stepper::new(Ros3p))),
        ("radau5", run(Stepper::new(Radau5::new()))),
    ];
    assert_eq!(direct.map(|(name, _)| name), Method::<Particle<f64>>::NAMES);
    for (name, expected) in direct {
        let by_name = run(name.parse::<Method<Particle<f64>>>().unwrap());
        assert_eq!(by_name, expected, "{name}");
    }
    // And they really are different methods, far beyond rounding (the closest, Dop853 and
    // Radau5, 5·10⁻⁹ apart), but for two pairs that are one method here.
    let same = [
        ("explicit-euler", "exponential-euler"),
        ("trapezoid", "newmark"),
    ];
    for (i, (a, x)) in direct.iter().enumerate() {
        for (b, y) in &direct[i + 1..] {
            let apart = (x.position() - y.position()).abs();
            if same.contains(&(a, b)) {
                assert_eq!(x, y, "{a} vs {b}");
            } else {
                assert!(apart > 1e-9, "{a} vs {b}: {apart:e}");
            }
        }
    }
}
