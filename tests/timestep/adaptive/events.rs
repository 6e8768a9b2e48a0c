//! Events located where their functions first cross: the theory is the event's definition,
//! the first time its function takes the sign it crosses to. The functions here are
//! closed forms of `t` along `y′ = 1` from `y = 0` (so `y = t`), whose zeros are known
//! exactly.

use timestep::adaptive::Event;
use timestep::{Adaptive, Dopri5};

/// `y′ = 1`: `y = t` from `y(0) = 0`.
fn clock(_y: &f64, _t: f64) -> f64 {
    1.0
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
    let mut fired = Vec::new();
    let mut y = 0.0;
    Adaptive::new(Dopri5)
        .solve_with_events(&mut y, &clock, 0.0, 2.0, &mut event, |i, t, _| {
            fired.push((i, t))
        })
        .unwrap();
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert!((fired[0].1 - 0.75).abs() < 1e-12, "{fired:?}");
}
