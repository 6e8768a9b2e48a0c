//! [`Event`]s: zero crossings of functions of the state, located on the dense output.

use crate::State;

/// Which zero crossings of an event function count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From negative to positive.
    Rising,
    /// From positive to negative.
    Falling,
    /// Either way.
    #[default]
    Either,
}

/// A function `g(state, t)` whose zero crossings an adaptive run locates, with what to do
/// there: an `action` that may change the state (a bounce: `v → −e·v`), and whether the run
/// stops (`terminal`).
///
/// After every accepted step, `g` is compared at the step's two ends; a sign change in the
/// event's [`Direction`] is located by root finding on the pair's dense output (Illinois
/// regula falsi, to a few ulps of `t`), the step is cut back to the event, the action
/// applied, and the run goes on from there (the next step's first stage evaluated anew,
/// since the state changed). The earliest crossing of all events in a step comes first.
/// (A crossing and its return within one step are not seen: keep the steps shorter than the
/// events' spacing with [`Adaptive::with_max_step`](super::Adaptive::with_max_step).)
///
/// # Example
///
/// A ball dropped from 10 m bounces with restitution 0.9; its first bounce is at
/// `√(2h/g)`:
///
/// ```
/// use timestep::adaptive::{Adaptive, Direction, Event, Tolerances};
/// use timestep::Dopri5;
///
/// let gravity = |y: &[f64; 2], _t: f64| [y[1], -9.81];
/// let mut bounces = Vec::new();
/// let mut ground = Event::new(|y: &[f64; 2], _t: f64| y[0])
///     .direction(Direction::Falling)
///     .action(|y: &mut [f64; 2], _t: f64| y[1] = -0.9 * y[1]);
/// let mut y = [10.0, 0.0];
/// Adaptive::new(Dopri5)
///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
///     .solve_with_events(&mut y, &gravity, 0.0, 3.0, &mut ground, |_, t, _| bounces.push(t))?;
/// assert!((bounces[0] - (2.0 * 10.0 / 9.81_f64).sqrt()).abs() < 1e-9);
/// # Ok::<(), timestep::adaptive::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Event<G, A = NoAction> {
    g: G,
    direction: Direction,
    terminal: bool,
    action: A,
}

/// What an [`Event`] does to the state where it happens: a closure
/// `FnMut(&mut state, t)`, or [`NoAction`].
pub trait Action<S: State> {
    /// Changes `state` at the event's time `t`.
    fn apply(&mut self, state: &mut S, t: S::Scalar);
}

/// An event that leaves the state as it is (only reported, or only stopping the run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAction;

impl<S: State> Action<S> for NoAction {
    fn apply(&mut self, _: &mut S, _: S::Scalar) {}
}

impl<S: State, F: FnMut(&mut S, S::Scalar)> Action<S> for F {
    fn apply(&mut self, state: &mut S, t: S::Scalar) {
        self(state, t);
    }
}

impl<G> Event<G> {
    /// An event at the zeros of `g`, in either direction, not terminal, with no action.
    pub fn new(g: G) -> Self {
        Event {
            g,
            direction: Direction::Either,
            terminal: false,
            action: NoAction,
        }
    }
}

impl<G, A> Event<G, A> {
    /// The same event, counting only crossings in `direction`.
    #[must_use]
    pub fn direction(self, direction: Direction) -> Self {
        Event { direction, ..self }
    }

    /// The same event, stopping the run where it happens.
    #[must_use]
    pub fn terminal(self) -> Self {
        Event {
            terminal: true,
            ..self
        }
    }

    /// The same event, changing the state where it happens with `action(state, t)`.
    #[must_use]
    pub fn action<B>(self, action: B) -> Event<G, B> {
        Event {
            g: self.g,
            direction: self.direction,
            terminal: self.terminal,
            action,
        }
    }
}

/// A set of events an adaptive run watches: one [`Event`], or a tuple of up to four.
/// Events are numbered from 0 in the tuple's order.
pub trait Events<S: State> {
    /// How many events.
    fn count(&self) -> usize;
    /// `gᵢ(state, t)`.
    fn value(&self, index: usize, state: &S, t: S::Scalar) -> f64;
    /// The directions event `index` counts.
    fn direction(&self, index: usize) -> Direction;
    /// Whether event `index` stops the run.
    fn terminal(&self, index: usize) -> bool;
    /// Applies event `index`'s action, if it has one.
    fn act(&mut self, index: usize, state: &mut S, t: S::Scalar);
}

impl<S, G, A> Events<S> for Event<G, A>
where
    S: State,
    G: Fn(&S, S::Scalar) -> f64,
    A: Action<S>,
{
    fn count(&self) -> usize {
        1
    }
    fn value(&self, _: usize, state: &S, t: S::Scalar) -> f64 {
        (self.g)(state, t)
    }
    fn direction(&self, _: usize) -> Direction {
        self.direction
    }
    fn terminal(&self, _: usize) -> bool {
        self.terminal
    }
    fn act(&mut self, _: usize, state: &mut S, t: S::Scalar) {
        self.action.apply(state, t);
    }
}

/// No events: what [`solve`](super::Adaptive::solve) watches.
impl<S: State> Events<S> for () {
    fn count(&self) -> usize {
        0
    }
    fn value(&self, _: usize, _: &S, _: S::Scalar) -> f64 {
        0.0
    }
    fn direction(&self, _: usize) -> Direction {
        Direction::Either
    }
    fn terminal(&self, _: usize) -> bool {
        false
    }
    fn act(&mut self, _: usize, _: &mut S, _: S::Scalar) {}
}

macro_rules! impl_tuple {
    ($($name:ident $index:tt),+) => {
        impl<S: State, $($name: Events<S>),+> Events<S> for ($($name,)+) {
            fn count(&self) -> usize {
                [$(self.$index.count()),+].len()
            }
            fn value(&self, index: usize, state: &S, t: S::Scalar) -> f64 {
                match index {
                    $($index => self.$index.value(0, state, t),)+
                    _ => f64::NAN,
                }
            }
            fn direction(&self, index: usize) -> Direction {
                match index {
                    $($index => self.$index.direction(0),)+
                    _ => Direction::Either,
                }
            }
            fn terminal(&self, index: usize) -> bool {
                match index {
                    $($index => self.$index.terminal(0),)+
                    _ => false,
                }
            }
            fn act(&mut self, index: usize, state: &mut S, t: S::Scalar) {
                match index {
                    $($index => self.$index.act(0, state, t),)+
                    _ => {}
                }
            }
        }
    };
}
impl_tuple!(A 0, B 1);
impl_tuple!(A 0, B 1, C 2);
impl_tuple!(A 0, B 1, C 2, D 3);

/// The most events one run watches.
pub(super) const MAX_EVENTS: usize = 4;

/// Whether going from `before` to `after` crosses zero in `direction`. A value of exactly
/// zero at the start does not count (the run is leaving an event it just handled).
pub(super) fn crosses(before: f64, after: f64, direction: Direction) -> bool {
    let rising = before < 0.0 && after >= 0.0;
    let falling = before > 0.0 && after <= 0.0;
    match direction {
        Direction::Rising => rising,
        Direction::Falling => falling,
        Direction::Either => rising || falling,
    }
}

/// The root of `g` on `[0, 1]` (in the step's fraction `θ`), given `g(0) = g0` and
/// `g(1) = g1` of opposite signs (or `g1 = 0`), by the Illinois variant of regula falsi:
/// the first `θ` at which `g` has crossed, to within `tolerance`.
pub(super) fn locate(mut g: impl FnMut(f64) -> f64, g0: f64, g1: f64, tolerance: f64) -> f64 {
    let (mut a, mut ga) = (0.0_f64, g0);
    let (mut b, mut gb) = (1.0_f64, g1);
    let mut side = 0;
    for _ in 0..200 {
        if b - a <= tolerance || gb == 0.0 {
            break;
        }
        let mut c = b - gb * (b - a) / (gb - ga);
        // Keep inside, and away from the ends (bisection when the secant stalls).
        if !(c > a && c < b) {
            c = 0.5 * (a + b);
        }
        let gc = g(c);
        if (gc > 0.0) == (ga > 0.0) && gc != 0.0 {
            (a, ga) = (c, gc);
            if side == -1 {
                gb *= 0.5;
            }
            side = -1;
        } else {
            (b, gb) = (c, gc);
            if side == 1 {
                ga *= 0.5;
            }
            side = 1;
        }
    }
    b
}
