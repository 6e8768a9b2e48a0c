//! The adaptive driver under hostile input: every method with error control, random
//! tolerances, spans, first and largest steps, problems that decay, oscillate, stiffen,
//! blow up or turn to `NaN`, with and without an event. No panic, no hang (a step limit
//! bounds each run), no non-finite `Ok`, settings refused before anything is evaluated,
//! and every other error leaves the last good state, finite.
//!
//! Cases: `PROPTEST_CASES` (64 here by default; CI runs the default, a longer local run
//! sets it, e.g. `PROPTEST_CASES=20000 cargo test --release --test timestep adaptive::fuzz`).

use proptest::prelude::*;
use timestep::adaptive::{Direction, Event};
use timestep::{Adaptive, AdaptiveError, AdaptiveKind, Tolerances};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(64)
}

/// Values from tiny to huge, both signs, zero, and now and then a non-finite one.
fn magnitude() -> BoxedStrategy<f64> {
    prop_oneof![
        4 => -10.0_f64..10.0,
        1 => Just(0.0),
        3 => (-300.0_f64..300.0, any::<bool>())
            .prop_map(|(e, negative)| if negative { -(10f64.powf(e)) } else { 10f64.powf(e) }),
        1 => prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::MAX),
            Just(5e-324),
        ],
    ]
    .boxed()
}

/// A tolerance: mostly usable, sometimes zero, negative, huge or not finite.
fn tolerance() -> BoxedStrategy<f64> {
    prop_oneof![
        6 => (-14.0_f64..0.0).prop_map(|e| 10f64.powf(e)),
        1 => Just(0.0),
        1 => magnitude(),
    ]
    .boxed()
}

/// The problems: `[x, v]` with a parameter `k`.
fn forces(problem: u8, k: f64) -> impl Fn(&[f64; 2], f64) -> [f64; 2] {
    move |y: &[f64; 2], t: f64| match problem {
        // Decay (stiff for large k, growing for negative k).
        0 => [-k * y[0], -y[1]],
        // An oscillator of frequency √|k|, driven.
        1 => [y[1], -k.abs() * y[0] + t.sin()],
        // Van der Pol with μ = |k| (stiff for large μ).
        2 => [y[1], k.abs() * (1.0 - y[0] * y[0]) * y[1] - y[0]],
        // Blow-up: y' = y², infinite at t = 1/y₀.
        3 => [y[0] * y[0], 0.0],
        // Forces that turn to NaN beyond |x| = 2.
        _ => {
            if y[0].abs() > 2.0 {
                [f64::NAN, f64::NAN]
            } else {
                [y[1], k * y[0]]
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    kind: AdaptiveKind,
    problem: u8,
    k: f64,
    start: [f64; 2],
    (t0, t1): (f64, f64),
    (rtol, atol): (f64, f64),
    (first, largest): (Option<f64>, Option<f64>),
    event: bool,
) {
    let f = forces(problem, k);
    let mut solver = Adaptive::new(kind)
        .with_tolerances(Tolerances::new(rtol, atol))
        .with_max_steps(2000);
    if let Some(h) = first {
        solver = solver.with_initial_step(h);
    }
    if let Some(h) = largest {
        solver = solver.with_max_step(h);
    }
    let mut y = start;
    let result = if event {
        let mut bounce = Event::new(|y: &[f64; 2], _t: f64| y[0])
            .direction(Direction::Falling)
            .action(|y: &mut [f64; 2], _t: f64| y[1] = -y[1]);
        solver.solve_with_events(&mut y, &f, t0, t1, &mut bounce, |_, _, _| {})
    } else {
        solver.solve(&mut y, &f, t0, t1)
    };
    let settings_valid = t0.is_finite()
        && t1.is_finite()
        && [rtol, atol].iter().all(|x| x.is_finite() && *x >= 0.0)
        && (rtol > 0.0 || atol > 0.0)
        && first.is_none_or(|h| h.is_finite() && h != 0.0)
        && largest.is_none_or(|h| !h.is_nan() && h != 0.0);
    let start_finite = start.iter().all(|x| x.is_finite());
    match result {
        Ok(statistics) => {
            assert!(settings_valid, "{kind}: invalid settings accepted");
            if start_finite {
                assert!(
                    y.iter().all(|x| x.is_finite()),
                    "{kind}: Ok({statistics:?}) with {y:?}"
                );
            }
        }
        Err(
            error @ (AdaptiveError::NonFiniteTime { .. }
            | AdaptiveError::InvalidTolerance { .. }
            | AdaptiveError::InvalidStep { .. }),
        ) => {
            assert!(!settings_valid, "{kind}: valid settings refused: {error}");
            assert_eq!(
                y.map(f64::to_bits),
                start.map(f64::to_bits),
                "{kind}: {error}"
            );
        }
        Err(error) => {
            assert!(settings_valid, "{kind}: {error} for invalid settings");
            if start_finite {
                assert!(
                    y.iter().all(|x| x.is_finite()),
                    "{kind}: {error} left {y:?}"
                );
            }
            // The message names a cause and is not empty.
            assert!(!error.to_string().is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn the_adaptive_driver_survives_hostile_input(
        kind in 0..AdaptiveKind::NAMES.len(),
        problem in 0_u8..5,
        k in magnitude(),
        start in prop::array::uniform2(prop_oneof![4 => -3.0_f64..3.0, 1 => magnitude()]),
        t0 in prop_oneof![4 => -10.0_f64..10.0, 1 => magnitude()],
        span in prop_oneof![4 => -20.0_f64..20.0, 1 => magnitude()],
        rtol in tolerance(),
        atol in tolerance(),
        first in prop::option::of(magnitude()),
        largest in prop::option::of(magnitude()),
        event in any::<bool>(),
    ) {
        let kind = AdaptiveKind::all()[kind];
        check(kind, problem, k, start, (t0, t0 + span), (rtol, atol), (first, largest), event);
    }
}
