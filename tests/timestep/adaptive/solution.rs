//! One solve: a [`Solution`] from one call, a [`Run`] you step yourself, events that cross
//! at one instant all reported, adaptive methods by name, and statistics that say where
//! and why a run stopped.
//!
//! The reference values: the harmonic oscillator `x'' = −x` from `(x, v) = (1, 0)` is
//! `x = cos t`, whose zeros are at `t = (k + ½)π`, falling at even `k` and rising at odd;
//! `y' = −y` from 1 is `e^(−t)`.

use approx::assert_relative_eq;
use std::f64::consts::PI;
use timestep::adaptive::{Attempt, Direction, Event};
use timestep::{
    Adaptive, AdaptiveError, AdaptiveKind, Dop853, Dopri5, Radau5, StepError, Stop, Tolerances,
    solve,
};

fn oscillator(y: &[f64; 2], _t: f64) -> [f64; 2] {
    [y[1], -y[0]]
}

fn decay(y: &f64, _t: f64) -> f64 {
    -y
}

fn tight() -> Adaptive<[f64; 2], timestep::Pair<Dop853, 16>> {
    Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-12, 1e-12))
}

/// The zeros of `cos t` in `(0, 10)`: 0.5π, 1.5π, 2.5π.
const ZEROS: [f64; 3] = [0.5 * PI, 1.5 * PI, 2.5 * PI];

#[test]
fn events_crossing_at_the_same_instant_are_all_reported() {
    // The same function watched falling, rising and either way: each crossing is reported
    // by the event that watches its direction and by the either-way one, at one instant.
    let x = |y: &[f64; 2], _t: f64| y[0];
    let events = (
        Event::new(x).direction(Direction::Falling),
        Event::new(x).direction(Direction::Rising),
        Event::new(x),
    );
    let solution = tight()
        .integrate(&oscillator, [1.0, 0.0], 0.0, 10.0)
        .events(events)
        .solve()
        .unwrap();
    let fired: Vec<(usize, f64)> = solution.events.iter().map(|e| (e.index, e.t)).collect();
    assert_eq!(fired.len(), 6, "{fired:?}");
    for (k, zero) in ZEROS.iter().enumerate() {
        let watching = if k % 2 == 0 { 0 } else { 1 };
        assert_eq!((fired[2 * k].0, fired[2 * k + 1].0), (watching, 2));
        for (_, t) in &fired[2 * k..2 * k + 2] {
            assert_relative_eq!(*t, zero, max_relative = 1e-12);
        }
    }
    // `x` and `2x` cross together too.
    let events = (
        Event::new(x),
        Event::new(|y: &[f64; 2], _t: f64| 2.0 * y[0]),
    );
    let solution = tight()
        .integrate(&oscillator, [1.0, 0.0], 0.0, 10.0)
        .events(events)
        .solve()
        .unwrap();
    let indices: Vec<usize> = solution.events.iter().map(|e| e.index).collect();
    assert_eq!(indices, [0, 1, 0, 1, 0, 1]);
}

#[test]
fn events_in_one_step_are_reported_in_time_order() {
    // Steps of up to the whole span (tolerance 10⁻³ on the oscillator takes steps near
    // 1): the crossings of x = 0.5 (at π/3) and of x = 0 (at π/2) fall in one step.
    let events = (
        Event::new(|y: &[f64; 2], _t: f64| y[0]),
        Event::new(|y: &[f64; 2], _t: f64| y[0] - 0.5),
    );
    let solution = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-3, 1e-3))
        .integrate(&oscillator, [1.0, 0.0], 0.0, 2.0)
        .events(events)
        .solve()
        .unwrap();
    let fired: Vec<(usize, f64)> = solution.events.iter().map(|e| (e.index, e.t)).collect();
    assert_eq!(fired.len(), 2, "{fired:?}");
    assert_eq!((fired[0].0, fired[1].0), (1, 0));
    assert_relative_eq!(fired[0].1, PI / 3.0, max_relative = 1e-3);
    assert_relative_eq!(fired[1].1, PI / 2.0, max_relative = 1e-3);
}

#[test]
fn a_solution_has_samples_events_an_observer_and_dense_output_from_one_run() {
    // A bounce at every zero of x (v → −v): |x| = |cos t| throughout.
    let bounce = Event::new(|y: &[f64; 2], _t: f64| y[0])
        .direction(Direction::Falling)
        .action(|y: &mut [f64; 2], _t: f64| {
            y[0] = 0.0;
            y[1] = -y[1];
        });
    let times: Vec<f64> = (0..=20).map(|i| 0.5 * f64::from(i)).collect();
    let mut observed = 0;
    let solution = tight()
        .integrate(&oscillator, [1.0, 0.0], 0.0, 10.0)
        .at(&times)
        .events(bounce)
        .observe(|step| {
            assert!(step.end_time() > step.start_time());
            observed += 1;
        })
        .solve()
        .unwrap();
    assert_eq!(solution.times, times);
    for (t, y) in solution.times.iter().zip(&solution.states) {
        assert_relative_eq!(y[0].abs(), t.cos().abs(), epsilon = 1e-10);
    }
    // Each bounce sends x up again, so it falls through every zero of cos t.
    assert_eq!(solution.events.len(), 3);
    for (event, zero) in solution.events.iter().zip(ZEROS) {
        assert_relative_eq!(event.t, zero, max_relative = 1e-12);
        assert_eq!(event.after[1], -event.before[1]);
    }
    assert_eq!(observed as u64, solution.statistics.accepted);
    assert_eq!(
        (solution.statistics.t, solution.statistics.stop),
        (10.0, Stop::End)
    );
    // Dense output between the samples, on either side of a bounce.
    for t in [0.3, 1.7, 4.2, 9.9] {
        let y = solution.at(t).unwrap();
        assert_relative_eq!(y[0].abs(), f64::cos(t).abs(), epsilon = 1e-10);
    }
    assert!(solution.at(-0.1).is_none() && solution.at(10.1).is_none());
    assert!(solution.at(f64::NAN).is_none());
}

#[test]
fn the_dense_output_of_a_solution_is_the_method_s_own() {
    // Every step kept: the states at the step ends, and in between the pair's
    // interpolant, whose error is of its order (Dormand–Prince's: 4).
    let solution = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-8, 1e-8))
        .integrate(&decay, 1.0, 0.0, 5.0)
        .solve()
        .unwrap();
    assert_eq!(
        solution.times.len() as u64,
        solution.statistics.accepted + 1
    );
    assert_eq!(solution.times[0], 0.0);
    assert_eq!(*solution.times.last().unwrap(), 5.0);
    // At the steps' ends the interpolant is the propagated solution, to rounding.
    for (t, y) in solution.times.iter().zip(&solution.states) {
        assert_relative_eq!(solution.at(*t).unwrap(), *y, max_relative = 1e-15);
    }
    for i in 0..=100 {
        let t = 0.05 * f64::from(i);
        assert_relative_eq!(solution.at(t).unwrap(), (-t).exp(), epsilon = 1e-7);
    }
    let without = Adaptive::new(Dopri5)
        .integrate(&decay, 1.0, 0.0, 5.0)
        .keep_dense(false)
        .solve()
        .unwrap();
    assert!(without.at(1.0).is_none());
    // Backwards too.
    let back = solve(Dopri5, &decay, 1.0, 0.0, -2.0).unwrap();
    assert_relative_eq!(back.at(-1.0).unwrap(), 1.0_f64.exp(), max_relative = 1e-5);
    assert_eq!(back.statistics.t, -2.0);
}

#[test]
fn a_run_is_stepped_by_hand_and_its_state_may_change_between_steps() {
    let mut y = 1.0_f64;
    let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-9, 1e-9));
    let mut run = solver.start(&mut y, &decay, 0.0, 2.0).unwrap();
    let mut attempts = 0;
    let mut kicked = false;
    loop {
        match run.try_step().unwrap() {
            Attempt::Done => break,
            Attempt::Rejected => {}
            Attempt::Accepted => {
                // Halfway, double the state: from there y = 2 e^(−t).
                if !kicked && run.time() >= 1.0 {
                    *run.state_mut() *= 2.0;
                    kicked = true;
                }
            }
        }
        attempts += 1;
    }
    let statistics = run.statistics();
    assert_eq!(attempts, statistics.steps());
    assert_eq!((statistics.t, statistics.stop), (2.0, Stop::End));
    assert!(run.is_done() && !run.step().unwrap());
    assert_relative_eq!(y, 2.0 * (-2.0_f64).exp(), max_relative = 1e-8);
}

/// Kepler's orbit of eccentricity 0.9 from pericentre (`GM = 1`, period 2π).
const KEPLER_START: [f64; 4] = [0.1, 0.0, 0.0, 4.358898943540674]; // √19

fn kepler_rate(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let r3 = (y[0] * y[0] + y[1] * y[1]).powf(1.5);
    [y[2], y[3], -y[0] / r3, -y[1] / r3]
}

/// A rejected attempt writes its stages where the accepted step's dense output was: read
/// after it, `state_at` would interpolate a step that was never taken, so it refuses. On
/// Kepler's orbit of eccentricity 0.9, DOP853 at 10⁻⁹ rejects attempts at the pericentre.
#[test]
#[should_panic(expected = "after a rejected attempt")]
fn the_dense_output_is_not_read_after_a_rejected_attempt() {
    let mut y = KEPLER_START;
    let mut solver = Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-9, 1e-9));
    let mut run = solver
        .start(&mut y, &kepler_rate, 0.0, 2.0 * PI)
        .unwrap()
        .with_dense_output();
    kepler_run_until_a_rejection_after_an_acceptance(&mut run);
    let mut out = [0.0; 4];
    run.state_at(run.time(), &mut out);
}

#[test]
fn every_adaptive_method_is_chosen_by_name() {
    // y′ = −y²: y = 1/(1 + t).
    let f = |y: &f64, _t: f64| -y * y;
    assert_eq!(AdaptiveKind::NAMES.len(), AdaptiveKind::all().len());
    for name in AdaptiveKind::NAMES {
        let kind: AdaptiveKind = name.parse().unwrap();
        assert_eq!(kind.to_string(), name);
        if kind.needs_second_order() {
            // `x'' = −x` from (1, 0): `x = cos t`.
            let mut p = timestep::Particle::new(1.0, 1.0, 0.0);
            Adaptive::new(kind)
                .with_tolerances(Tolerances::new(1e-8, 1e-8))
                .solve(
                    &mut p,
                    &|p: &timestep::Particle<f64>, _t: f64| -p.position(),
                    0.0,
                    1.0,
                )
                .unwrap();
            assert_relative_eq!(p.position(), 1.0_f64.cos(), max_relative = 1e-7);
            continue;
        }
        let mut y = 1.0_f64;
        let statistics = Adaptive::new(kind)
            .with_tolerances(Tolerances::new(1e-8, 1e-8))
            .solve(&mut y, &f, 0.0, 1.0)
            .unwrap();
        assert_relative_eq!(y, 0.5, max_relative = 2e-7);
        assert!(statistics.accepted > 1, "{name}");
    }
    let error = "rk4".parse::<AdaptiveKind>().unwrap_err();
    assert!(error.to_string().contains("dop853"), "{error}");
    // By name, the same steps as by type.
    let by_type = Adaptive::new(Dopri5).solve(&mut 1.0, &f, 0.0, 1.0).unwrap();
    let by_name = Adaptive::new("dopri5".parse::<AdaptiveKind>().unwrap())
        .solve(&mut 1.0, &f, 0.0, 1.0)
        .unwrap();
    assert_eq!(by_type, by_name);
}

#[test]
fn a_newton_iteration_that_never_converges_is_the_cause_reported() {
    // Forces that jump to a rate of 10²⁰ at t = ½: the Jacobian, taken at a step's start
    // before the jump, is wrong by 10²⁰ for any step across it, and Radau5's simplified
    // Newton iteration diverges at every step size down to the precision of t. The run
    // says so, instead of "step too small".
    let jump = |y: &f64, t: f64| if t > 0.5 { -1e20 * (y - 2.0) } else { -y };
    let mut y = 1.0;
    let error = Adaptive::new(Radau5::new())
        .solve(&mut y, &jump, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::Diverged { .. },
                ..
            }
        ),
        "{error:?}"
    );
    let AdaptiveError::StepFailed { t, .. } = error else {
        unreachable!()
    };
    assert_relative_eq!(t, 0.5, max_relative = 1e-14);
    // The state is the last accepted one, there.
    assert_relative_eq!(y, (-t).exp(), max_relative = 1e-5);
}

#[test]
fn statistics_add_up_over_runs() {
    let mut solver = Adaptive::new(Dopri5);
    let mut y = 1.0_f64;
    let first = solver.solve(&mut y, &decay, 0.0, 1.0).unwrap();
    let second = solver.solve(&mut y, &decay, 1.0, 3.0).unwrap();
    let total = first + second;
    assert_eq!(total.accepted, first.accepted + second.accepted);
    assert_eq!(total.evaluations, first.evaluations + second.evaluations);
    assert_eq!((total.t, total.stop), (3.0, Stop::End));
    let mut sum = timestep::Statistics::default();
    sum += first;
    sum += second;
    assert_eq!(sum, total);
    assert_relative_eq!(y, (-3.0_f64).exp(), max_relative = 1e-5);
}

#[test]
fn a_terminal_event_stops_the_run_and_says_which() {
    let ground = Event::new(|y: &[f64; 2], _t: f64| y[0]).terminal();
    let solution = tight()
        .integrate(&oscillator, [1.0, 0.0], 0.0, 10.0)
        .events(ground)
        .solve()
        .unwrap();
    assert_eq!(solution.statistics.stop, Stop::Event(0));
    assert_relative_eq!(solution.statistics.t, ZEROS[0], max_relative = 1e-12);
    assert_eq!(*solution.times.last().unwrap(), solution.statistics.t);
}

/// With sample times, the last state kept is the last sample's, not the end of the span
/// (`y′ = −y`: `e^(−½)` at ½, the run still going on to 1); a run that takes no step
/// keeps its start and has no dense output.
#[test]
fn the_last_state_kept_is_the_last_sample_and_a_run_of_no_step_has_no_dense_output() {
    let times = [0.25, 0.5];
    let solution = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .integrate(&decay, 1.0, 0.0, 1.0)
        .at(&times)
        .solve()
        .unwrap();
    assert_relative_eq!(
        *solution.last().unwrap(),
        (-0.5_f64).exp(),
        max_relative = 1e-9
    );
    assert_eq!(
        (solution.statistics.t, solution.statistics.stop),
        (1.0, Stop::End)
    );

    let solution = solve(Dopri5, &decay, 2.0, 1.0, 1.0).unwrap();
    assert_eq!(
        (solution.times.as_slice(), solution.states.as_slice()),
        (&[1.0][..], &[2.0][..])
    );
    assert_eq!(solution.at(1.0), None);
}

/// Kepler's orbit of eccentricity 0.9 under DOP853 at 10⁻⁹, stepped by hand.
fn kepler_run_until_a_rejection_after_an_acceptance(
    run: &mut timestep::adaptive::Run<
        '_,
        [f64; 4],
        timestep::Pair<Dop853, 16>,
        impl Fn(&[f64; 4], f64) -> [f64; 4],
    >,
) {
    let mut accepted = false;
    loop {
        match run.try_step().unwrap() {
            Attempt::Accepted => accepted = true,
            Attempt::Rejected if accepted => return,
            Attempt::Rejected => {}
            Attempt::Done => panic!("no attempt was rejected after an accepted one"),
        }
    }
}

/// A rejected attempt writes its candidate where the last accepted step's start was:
/// read after it, `previous_state` returned the candidate (on this orbit
/// `[0.0967, 0.0353, …]` for the start `[0.1, 0, 0, √19]`), so it refuses.
#[test]
#[should_panic(expected = "previous_state after an attempt that was not accepted")]
fn the_previous_state_is_not_read_after_a_rejected_attempt() {
    let mut y = KEPLER_START;
    let mut solver = Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-9, 1e-9));
    let mut run = solver.start(&mut y, &kepler_rate, 0.0, 2.0 * PI).unwrap();
    kepler_run_until_a_rejection_after_an_acceptance(&mut run);
    let _ = run.previous_state();
}

/// Before its first step a run's previous state is its start, at its previous time `t0`;
/// it was the workspace's candidate, which a solver keeps between runs: on a second run,
/// the start of the first run's last step.
#[test]
fn before_the_first_step_the_previous_state_is_the_start() {
    let mut solver = Adaptive::new(Dopri5);
    let mut y = [1.0, 0.0];
    solver.solve(&mut y, &oscillator, 0.0, 1.0).unwrap();
    let mut z = [0.0, 1.0];
    let run = solver.start(&mut z, &oscillator, 5.0, 6.0).unwrap();
    assert_eq!(
        (*run.previous_state(), run.previous_time()),
        ([0.0, 1.0], 5.0)
    );
}
