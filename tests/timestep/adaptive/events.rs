//! Events located where their functions first cross: the theory is the event's definition,
//! the first time its function takes the sign it crosses to. The functions here are
//! closed forms of `t` along `y′ = 1` from `y = 0` (so `y = t`), whose zeros are known
//! exactly.

use timestep::adaptive::{Direction, Event, Events};
use timestep::{Adaptive, AdaptiveError, Dopri5};

/// `y′ = 1`: `y = t` from `y(0) = 0`.
fn clock(_y: &f64, _t: f64) -> f64 {
    1.0
}

/// The events `events` fire on `y = t` from 0 to `end` under Dopri5, as `(index, t)`.
fn fired_on_the_clock<E: Events<f64>>(events: &mut E, end: f64) -> Vec<(usize, f64)> {
    let mut fired = Vec::new();
    let mut y = 0.0;
    Adaptive::new(Dopri5)
        .solve_with_events(&mut y, &clock, 0.0, end, events, |i, t, _| {
            fired.push((i, t))
        })
        .unwrap();
    fired
}

/// An event function that is zero on a whole interval, `[0.75, 1.25]`, rising from below
/// into it: the crossing is where it first reaches zero, `t = 0.75`. Regula falsi stopped
/// at the first zero its secant hit inside the interval (t = 0.7778 on this run), a
/// plausible time a thirtieth of the way into it.
#[test]
fn an_event_function_zero_on_an_interval_fires_where_it_reaches_zero() {
    let plateau = |y: &f64, _t: f64| {
        if *y < 0.75 {
            y - 0.75
        } else if *y > 1.25 {
            y - 1.25
        } else {
            0.0
        }
    };
    let mut event = Event::new(plateau);
    let fired = fired_on_the_clock(&mut event, 2.0);
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert!((fired[0].1 - 0.75).abs() < 1e-12, "{fired:?}");
}

/// `g = √(0.5 − y) − 0.1` crosses zero at `t = 0.49` and is `NaN` from `t = 0.5` on. A
/// value without a sign hides every crossing next to it: the terminal event was never
/// seen and the run went on to its end, `Stop::End` at t = 2. It is an error, which says
/// which event and where.
#[test]
fn an_event_function_that_is_nan_is_an_error_not_a_missed_crossing() {
    let mut event = Event::new(|y: &f64, _t: f64| (0.5 - y).sqrt() - 0.1).terminal();
    let mut y = 0.0;
    let result =
        Adaptive::new(Dopri5).solve_with_events(&mut y, &clock, 0.0, 2.0, &mut event, |_, _, _| {});
    match result {
        Err(AdaptiveError::EventNotANumber { index: 0, t }) => {
            assert!(t > 0.5 && t <= 2.0, "{t}");
            // `y = t`: the state is at the end of the step where it was read.
            assert!(y >= t && y <= 2.0, "{y}");
        }
        other => panic!("{other:?}"),
    }
}

/// A crossing of `y = t` through `c`.
fn at(c: f64) -> Event<impl Fn(&f64, f64) -> f64 + Copy> {
    Event::new(move |y: &f64, _t: f64| y - c)
}

/// A tuple nested in a tuple is an event set too: its events are numbered in turn, and
/// all are watched. `((a, b), c)` crossing at 0.25, 0.5 and 0.75 fires three times; it
/// fired twice, the nested tuple counted as one event (its first), `b` never seen and `c`
/// reported as event 1.
#[test]
fn events_in_a_nested_tuple_are_all_watched_and_numbered_in_turn() {
    let mut events = ((at(0.25), at(0.5)), at(0.75));
    let fired = fired_on_the_clock(&mut events, 1.0);
    let indices: Vec<usize> = fired.iter().map(|&(i, _)| i).collect();
    assert_eq!(indices, [0, 1, 2], "{fired:?}");
    for (&(_, t), expected) in fired.iter().zip([0.25, 0.5, 0.75]) {
        assert!((t - expected).abs() < 1e-12, "{fired:?}");
    }
}

/// A run watches at most four events: a fifth was dropped without a word. More are
/// refused before the run starts, the state untouched.
#[test]
fn more_than_four_events_are_refused() {
    let mut events = ((at(0.1), at(0.2), at(0.3)), (at(0.4), at(0.5)));
    let mut y = 0.0;
    let result = Adaptive::new(Dopri5).solve_with_events(
        &mut y,
        &clock,
        0.0,
        1.0,
        &mut events,
        |_, _, _| {},
    );
    assert_eq!(result, Err(AdaptiveError::TooManyEvents { count: 5 }));
    assert_eq!(y, 0.0);
}

/// Run backwards from `t = 0` to `−1` (`y = t`): `g = −y − ½` grows as the run goes, so it
/// rises through zero at `t = −½`, in the run's order of time; `g = y`, zero at the start,
/// does not fire there.
#[test]
fn directions_are_in_the_run_s_order_of_time_and_a_zero_at_the_start_does_not_fire() {
    let mut events = (
        Event::new(|y: &f64, _t: f64| *y),
        Event::new(|y: &f64, _t: f64| -y - 0.5).direction(Direction::Rising),
        Event::new(|y: &f64, _t: f64| -y - 0.5).direction(Direction::Falling),
    );
    let fired = fired_on_the_clock(&mut events, -1.0);
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0].0, 1);
    assert!((fired[0].1 + 0.5).abs() < 1e-12, "{fired:?}");
}
