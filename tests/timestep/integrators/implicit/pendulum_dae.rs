//! Radau5 (and the BDF at index 1 and 2) on the pendulum in Cartesian coordinates, `M y' = f(t, y)` with
//! `y = (x, y, vx, vy, λ)` and `M = diag(1, 1, 1, 1, 0)`, at index 3 (the position
//! constraint `x² + y² = 1`), 2 (the velocity constraint) and 1 (the acceleration-level
//! equation that gives `λ`): the model of `examples/problems/pendulum.rs`, shared with the
//! `pendulum_dae` example.
//!
//! - Released at rest from the horizontal, the period is `4 √(L/g) K(sin²(π/4))`
//!   = 2.367842 s (K by the arithmetic-geometric mean); it is measured from the zero
//!   crossings of `x`, located by the adaptive driver's events on the dense output.
//! - Radau IIA is stiffly accurate: every step ends on its last stage, where the algebraic
//!   equation holds. At index 3 that is the position constraint itself; at index 2 and 1
//!   the position constraint only follows from the start, and drifts with the errors.
//! - A run cut at an event goes on from the dense output's state, whose algebraic unknown
//!   the collocation polynomial does not give consistently: at index 1 the driver
//!   completes it ([`AdaptiveMethod::settle`](timestep::control::AdaptiveMethod::settle)),
//!   without which a tight tolerance refused the state as an inconsistent start.

#[path = "../../../../examples/problems/pendulum.rs"]
pub(super) mod pendulum;

use pendulum::Index;
use timestep::adaptive::{Adaptive, Event};
use timestep::control::{AdaptiveMethod, IntoAdaptive};
use timestep::{AdaptiveError, Bdf, StepError, Tolerances};

/// What a run of the pendulum to t = 10 (three periods and a bit) measured.
struct Measured {
    /// The period from the first and the seventh zero crossing of `x`.
    period: f64,
    /// The largest `|x² + y² − 1|` at the steps' ends (and at the events, where the
    /// steps were cut).
    drift: f64,
}

/// Radau5 at `index` and rtol = atol = `rtol`, with the events at `x = 0`.
fn run(index: Index, rtol: f64) -> Result<Measured, AdaptiveError> {
    run_with(pendulum::radau5(index), index, rtol)
}

/// `method` at `index` and rtol = atol = `rtol`, with the events at `x = 0`, from a start
/// completed by Radau5's helper at index 1.
fn run_with<M: IntoAdaptive>(method: M, index: Index, rtol: f64) -> Result<Measured, AdaptiveError>
where
    M::Method: AdaptiveMethod<[f64; 5]> + Clone,
{
    let forces = pendulum::Pendulum(index);
    let start = pendulum::consistent_start(index).expect("λ is determined at index 1");
    let mut drift = 0.0_f64;
    let solution = Adaptive::new(method)
        .with_tolerances(Tolerances::new(rtol, rtol))
        .integrate(&forces, start, 0.0, 10.0)
        .events(Event::new(|state: &[f64; 5], _t: f64| state[0]))
        .observe(|step| drift = drift.max(pendulum::constraint_error(step.end()).abs()))
        .keep_dense(false)
        .solve()?;
    let crossings: Vec<f64> = solution.events.iter().map(|fired| fired.t).collect();
    // x = 0 every half period from T/4: eight crossings to t = 10.
    assert_eq!(crossings.len(), 8, "{crossings:?}");
    Ok(Measured {
        period: (crossings[6] - crossings[0]) / 3.0,
        drift,
    })
}

/// The relative error of a measured period.
fn period_error(period: f64) -> f64 {
    let exact = pendulum::exact_period();
    (period - exact).abs() / exact
}

#[test]
fn the_exact_period_by_the_agm() {
    // 4 √(1/9.81) K(1/2), K(1/2) = 1.854074677301372 (Abramowitz and Stegun, 17.3).
    assert!((pendulum::elliptic_k(0.5) - 1.854_074_677_301_372).abs() < 1e-15);
    assert!((pendulum::exact_period() - 2.367_842).abs() < 1e-6);
}

/// The target: the period to 10⁻⁶ at rtol 10⁻⁸ at every index. The drift bounds
/// are the runs' own (rtol 10⁻⁸, to t = 10, measured 2026-11 with this model) with a
/// margin of 2 to 3: index 3, 1.0·10⁻⁸ (at the events, read from the collocation
/// polynomial; the steps' ends hold it to the Newton tolerance, 2.6·10⁻⁹ in a run without
/// events); index 2, 6.0·10⁻⁷;
/// index 1, 4.2·10⁻⁷.
#[test]
fn the_period_at_every_index_and_the_position_drift() {
    for (index, bound) in [(Index::Three, 3e-8), (Index::Two, 2e-6), (Index::One, 2e-6)] {
        let measured = run(index, 1e-8).unwrap();
        let error = period_error(measured.period);
        println!(
            "index {}: period {:.10}, relative error {error:.2e}, drift {:.2e}",
            index.number(),
            measured.period,
            measured.drift
        );
        assert!(error < 1e-6, "index {}: {error:e}", index.number());
        assert!(
            measured.drift < bound,
            "index {}: {:e}",
            index.number(),
            measured.drift
        );
    }
}

/// At index 1 and rtol 10⁻¹⁰ the dense output's `λ` at the second crossing (t = 1.776)
/// was off by 5 tolerances: before the driver completed it, the run stopped there with
/// `InconsistentStart`. Completed, it goes on, and the period comes out to 1.1·10⁻⁹.
#[test]
fn a_run_cut_at_an_event_goes_on_from_a_consistent_state() {
    let measured = run(Index::One, 1e-10).unwrap();
    let error = period_error(measured.period);
    println!("index 1 at rtol 1e-10: relative error {error:.2e}");
    assert!(error < 1e-8, "{error:e}");
}

/// `consistent_start` solves the index-1 equation for `λ` (linear in it: one Newton
/// step, and a second to see it converged); at index 2 and 3 the algebraic equation does
/// not contain `λ`, and it is refused, the state kept.
#[test]
fn consistent_start_at_each_index() {
    // At rest 30° below the horizontal: λ = (v² − g y)/(x² + y²) = g/2.
    let (sin, cos) = (-0.5_f64, 0.75_f64.sqrt());
    let wrong = [cos, sin, 0.0, 0.0, 7.0];
    let mut state = wrong;
    let forces = pendulum::Pendulum(Index::One);
    let iterations = pendulum::radau5(Index::One)
        .consistent_start(&mut state, &forces, 0.0)
        .unwrap();
    assert!((1..=3).contains(&iterations), "{iterations}");
    assert_eq!(state[..4], wrong[..4]);
    assert!((state[4] - pendulum::G / 2.0).abs() < 1e-12, "{state:?}");
    for index in [Index::Two, Index::Three] {
        let mut state = wrong;
        let refused =
            pendulum::radau5(index).consistent_start(&mut state, &pendulum::Pendulum(index), 0.0);
        assert_eq!(refused, Err(StepError::SingularJacobian));
        assert_eq!(state, wrong);
    }
}

/// The BDF with the mass matrix on the index-1 form (the index it takes), through the same
/// events: the period to 10⁻⁶ at rtol 10⁻⁸ (measured 2.3·10⁻⁷; 1.2·10⁻⁹ at 10⁻¹⁰), the
/// drift 1.1·10⁻⁵ (bounded here at 2 times that). At rtol 10⁻⁶ the run used to stall at
/// t = 9.54, the step falling to 10⁻¹⁴: the Newton iteration at order 5 left `λ` off its
/// equation by 100 tolerances, which every shorter step's correction found again. With the
/// DAE's Newton tolerance held at order 1's it reaches t = 10 (period to 7.3·10⁻⁵).
#[test]
fn bdf_measures_the_period_at_index_one() {
    let measured = run_with(Bdf::new(), Index::One, 1e-8).unwrap();
    assert!(
        period_error(measured.period) < 1e-6,
        "{:e}",
        period_error(measured.period)
    );
    assert!(measured.drift < 2.5e-5, "{:e}", measured.drift);
    let tight = run_with(Bdf::new(), Index::One, 1e-10).unwrap();
    assert!(
        period_error(tight.period) < 1e-8,
        "{:e}",
        period_error(tight.period)
    );
    let loose = run_with(Bdf::new(), Index::One, 1e-6).unwrap();
    assert!(
        period_error(loose.period) < 2e-4,
        "{:e}",
        period_error(loose.period)
    );
}

/// The BDF at index 2 (the velocity constraint; `λ` of index 2, left out of its error test:
/// `Bdf::with_index_two`) to t = 10 at rtol 10⁻⁶, 10⁻⁸ and 10⁻¹⁰, without stalling (the run
/// helper asserts all eight crossings): the period to 10⁻⁶ at 10⁻⁸ (measured 6.0·10⁻⁵,
/// 3.7·10⁻⁷, 2.3·10⁻⁸; bounded at about 3 times those), the position constraint, which
/// only follows from the start, drifting by 2.1·10⁻⁴, 2.3·10⁻⁶, 7.5·10⁻⁸. And at no more
/// than 1.5 times the steps of the index-1 form (measured 2051 against 1715 at 10⁻⁸, 1.20;
/// the example's run, with its events, 2185 against 1731): with its Newton iteration
/// stopped at CVODE's order-5 tolerance (`DAE_NEWTON_TOLERANCE` not applied) the
/// example's run took 7873 against 2033.
#[test]
fn bdf_measures_the_period_at_index_two() {
    let bdf = pendulum::bdf(Index::Two).expect("the BDF takes index 2");
    for (rtol, period_bound, drift_bound) in
        [(1e-6, 2e-4, 5e-4), (1e-8, 1e-6, 5e-6), (1e-10, 7e-8, 2e-7)]
    {
        let measured = run_with(bdf, Index::Two, rtol).unwrap();
        let error = period_error(measured.period);
        println!(
            "rtol {rtol:e}: period error {error:.2e}, drift {:.2e}",
            measured.drift
        );
        assert!(error < period_bound, "rtol {rtol:e}: {error:e}");
        assert!(
            measured.drift < drift_bound,
            "rtol {rtol:e}: {:e}",
            measured.drift
        );
    }
    let steps = |method: Bdf, index| {
        let start = pendulum::consistent_start(index).unwrap();
        let mut state = start;
        Adaptive::new(method)
            .with_tolerances(Tolerances::new(1e-8, 1e-8))
            .solve(&mut state, &pendulum::Pendulum(index), 0.0, 10.0)
            .unwrap()
            .accepted
    };
    let (two, one) = (steps(bdf, Index::Two), steps(Bdf::new(), Index::One));
    println!("accepted steps to t = 10 at rtol 1e-8: index 2 {two}, index 1 {one}");
    assert!((two as f64) < 1.5 * one as f64, "{two} against {one}");
}

/// The BDF keeps its history through events that only report
/// (`AdaptiveMethod::steps_through_events`): at index 2, starting again at each crossing,
/// from the dense output off the velocity constraint, ended this run with a step too small
/// at t = 183. Over 300 time units (about 127 periods) every crossing of `x = 0` is
/// reported, in time order, half a period apart, and the bob keeps to its rod
/// (`|x² + y² − 1|` grows linearly at index 2: 2·10⁻⁴ here, measured 1.8·10⁻⁴).
#[test]
fn bdf_goes_through_events_at_index_two_over_a_long_run() {
    let bdf = pendulum::bdf(Index::Two).expect("the BDF takes index 2");
    let solution = Adaptive::new(bdf)
        .with_tolerances(Tolerances::new(1e-7, 1e-7))
        .with_max_steps(10_000_000)
        .integrate(
            &pendulum::Pendulum(Index::Two),
            pendulum::consistent_start(Index::Two).unwrap(),
            0.0,
            300.0,
        )
        .events(Event::new(|state: &[f64; 5], _t: f64| state[0]))
        .keep_dense(false)
        .solve()
        .unwrap();
    let crossings: Vec<f64> = solution.events.iter().map(|fired| fired.t).collect();
    let half = pendulum::exact_period() / 2.0;
    let expected = ((300.0 - half / 2.0) / half).floor() as usize + 1;
    assert_eq!(crossings.len(), expected, "{crossings:?}");
    for pair in crossings.windows(2) {
        assert!((pair[1] - pair[0] - half).abs() < 1e-2 * half, "{pair:?}");
    }
    let end = solution.states.last().unwrap();
    println!(
        "drift {:e}, steps {}",
        end[0] * end[0] + end[1] * end[1] - 1.0,
        solution.statistics.accepted
    );
    assert!(
        (end[0] * end[0] + end[1] * end[1] - 1.0).abs() < 1e-3,
        "{end:?}"
    );
}

/// Index 3 the BDF does not take (`pendulum::bdf` gives none, and the example refuses it);
/// untold, it refuses the index-3 form at the start, as any system of index above 1.
#[test]
fn bdf_refuses_the_index_three_form() {
    assert!(pendulum::bdf(Index::Three).is_none());
    let mut state = pendulum::START;
    let refused = Adaptive::new(Bdf::new())
        .solve(&mut state, &pendulum::Pendulum(Index::Three), 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            refused,
            AdaptiveError::StepFailed {
                cause: StepError::IndexAboveOne,
                ..
            }
        ),
        "{refused:?}"
    );
}
