//! [`Event`]s: zero crossings of functions of the state, located on the dense output; and
//! the loop that watches them, with samples and an observer, over a [`Run`].

use super::Step;
use super::run::Run;
use crate::control::{AdaptiveMethod, Stop};
use crate::{AdaptiveError, Forces, Scalar, State};
use num_traits::Float;

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
/// After every accepted step, `g` is compared at the step's two ends and at eight points
/// evenly spaced between them on the pair's dense output; the first sign change in the
/// event's [`Direction`] is located by root finding on the dense output (Illinois regula
/// falsi, to a few ulps of `t`), the step is cut back to the event, the action applied,
/// and the run goes on from there (the next step's first stage evaluated anew, since the
/// state changed). The earliest crossing of all events in a step comes first. A crossing
/// and its return within one step are seen when they are at least a ninth of the step
/// apart: a ball that bounces and, in the next long step, flies up and back down through
/// the floor, bounces again. (Closer pairs, a zero touched and left within a ninth of a
/// step, are not: keep the steps shorter than nine times the events' spacing with
/// [`Adaptive::with_max_step`](super::Adaptive::with_max_step).) Watching events costs
/// eight dense-output evaluations per step, and eight of each event function.
/// A crossing and its [`Direction`] are in the run's order of time: integrating backwards,
/// a function that grows as `t` decreases rises. A function that is zero at the run's
/// start does not fire there (a crossing starts from a sign); one that reaches zero and
/// stays there fires once, where it first reaches it. Events that cross at the same
/// instant are all reported, in index order, their actions applied in that order. A value of `g` that is `NaN` where it is read (at the run's
/// start, a step's ends or its interior points, after an event) has no sign, so a
/// crossing through it could not be seen: the run stops with
/// [`AdaptiveError::EventNotANumber`](crate::AdaptiveError::EventNotANumber), the state at
/// the end of the step where it was read. (Infinite values are signs like any other.) The state at an event is the dense output's, which for a
/// differential-algebraic system does not satisfy the algebraic equations: before the
/// action the method completes it where it can ([`AdaptiveMethod::settle`]: Radau5 at
/// index 1), and the BDF and the Rosenbrock methods go on from it without checking it as
/// a run's start (their next step ends on the algebraic equations).
///
/// Under the [`Bdf`](crate::Bdf), when no watched event acts or stops the run, the step is
/// not cut: every crossing in it is located and reported from the dense output, in time
/// order, and the run goes on from the step's end with the BDF's history whole
/// ([`AdaptiveMethod::steps_through_events`], as CVODE's root finding does). Starting
/// again at each crossing cost it its order and, on a DAE of index 2, ended long runs
/// (the pendulum of `pendulum_dae`, an event at each `x = 0`: a step too small at
/// t = 196 to 7815 of 10⁴, at rtol 10⁻⁷ to 10⁻¹⁰).
///
/// # Example
///
/// A ball dropped from 10 m bounces with restitution 0.9; its first bounce is at
/// `√(2h/g)`, and in ten seconds it bounces four times (each flight `0.9` times as long
/// as the last):
///
/// ```
/// use timestep::adaptive::{Direction, Event};
/// use timestep::{Adaptive, Dopri5, Tolerances};
///
/// let gravity = |y: &[f64; 2], _t: f64| [y[1], -9.81];
/// let mut bounces = Vec::new();
/// let mut ground = Event::new(|y: &[f64; 2], _t: f64| y[0])
///     .direction(Direction::Falling)
///     .action(|y: &mut [f64; 2], _t: f64| y[1] = -0.9 * y[1]);
/// let mut y = [10.0, 0.0];
/// Adaptive::new(Dopri5)
///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
///     .solve_with_events(&mut y, &gravity, 0.0, 10.0, &mut ground, |_, t, _| bounces.push(t))?;
/// assert!((bounces[0] - (2.0 * 10.0 / 9.81_f64).sqrt()).abs() < 1e-9);
/// assert_eq!(bounces.len(), 4);
/// assert!(y[0] >= 0.0);
/// # Ok::<(), timestep::AdaptiveError>(())
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

    /// Whether [`apply`](Action::apply) may change the state: `true` (the default), and
    /// `false` for [`NoAction`], whose events a run may read from the dense output
    /// without stopping at them.
    #[must_use]
    fn acts(&self) -> bool {
        true
    }
}

/// An event that leaves the state as it is (only reported, or only stopping the run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoAction;

impl<S: State> Action<S> for NoAction {
    fn apply(&mut self, _: &mut S, _: S::Scalar) {}

    fn acts(&self) -> bool {
        false
    }
}

impl<S: State, F: FnMut(&mut S, S::Scalar)> Action<S> for F {
    fn apply(&mut self, state: &mut S, t: S::Scalar) {
        self(state, t);
    }
}

impl<G> Event<G> {
    /// An event at the zeros of `g`, in either direction, not terminal, with no action.
    #[must_use]
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

/// A set of events an adaptive run watches: one [`Event`], or a tuple of them (or of
/// tuples of them), up to [four in all](crate::AdaptiveError::TooManyEvents). Events are
/// numbered from 0 in the tuple's order, through a nested tuple's own events in turn:
/// `((a, b), c)` numbers `a`, `b`, `c` as 0, 1, 2.
pub trait Events<S: State> {
    /// How many events.
    #[must_use]
    fn count(&self) -> usize;
    /// `gᵢ(state, t)`.
    #[must_use]
    fn value(&self, index: usize, state: &S, t: S::Scalar) -> f64;
    /// The directions event `index` counts.
    #[must_use]
    fn direction(&self, index: usize) -> Direction;
    /// Whether event `index` stops the run.
    #[must_use]
    fn terminal(&self, index: usize) -> bool;
    /// Applies event `index`'s action, if it has one.
    fn act(&mut self, index: usize, state: &mut S, t: S::Scalar);
    /// Whether event `index` has an action that may change the state ([`Action::acts`]);
    /// `true` by default.
    #[must_use]
    fn acts(&self, index: usize) -> bool {
        let _ = index;
        true
    }
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
    fn acts(&self, _: usize) -> bool {
        self.action.acts()
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
    fn acts(&self, _: usize) -> bool {
        false
    }
}

/// Which member of a tuple of event sets, whose counts are `counts`, holds the tuple's
/// event `index`, and its index there: events are numbered through the members in order,
/// so that a tuple nested in a tuple watches all of its events.
fn member(counts: &[usize], index: usize) -> Option<(usize, usize)> {
    let mut first = 0;
    for (k, &count) in counts.iter().enumerate() {
        if index < first + count {
            return Some((k, index - first));
        }
        first += count;
    }
    None
}

macro_rules! impl_tuple {
    ($($name:ident $index:tt),+) => {
        impl<S: State, $($name: Events<S>),+> Events<S> for ($($name,)+) {
            fn count(&self) -> usize {
                [$(self.$index.count()),+].iter().sum()
            }
            fn value(&self, index: usize, state: &S, t: S::Scalar) -> f64 {
                match member(&[$(self.$index.count()),+], index) {
                    $(Some(($index, inner)) => self.$index.value(inner, state, t),)+
                    _ => f64::NAN,
                }
            }
            fn direction(&self, index: usize) -> Direction {
                match member(&[$(self.$index.count()),+], index) {
                    $(Some(($index, inner)) => self.$index.direction(inner),)+
                    _ => Direction::Either,
                }
            }
            fn terminal(&self, index: usize) -> bool {
                match member(&[$(self.$index.count()),+], index) {
                    $(Some(($index, inner)) => self.$index.terminal(inner),)+
                    _ => false,
                }
            }
            fn act(&mut self, index: usize, state: &mut S, t: S::Scalar) {
                match member(&[$(self.$index.count()),+], index) {
                    $(Some(($index, inner)) => self.$index.act(inner, state, t),)+
                    _ => {}
                }
            }
            fn acts(&self, index: usize) -> bool {
                match member(&[$(self.$index.count()),+], index) {
                    $(Some(($index, inner)) => self.$index.acts(inner),)+
                    _ => false,
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

/// Points inside each step, evenly spaced, where the events' values are read besides the
/// step's ends: a crossing whose return comes at least `1/(INTERIOR + 1)` of a step later
/// is seen (a ball that bounces and lands again within one long step: the step after a
/// bounce may grow tenfold and span a whole flight). Eight, a ninth of a step, for eight
/// dense-output evaluations per step, each about the cost of a stage's combination.
const INTERIOR: usize = 8;

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
    let mut looked_before_zero = false;
    for _ in 0..200 {
        if b - a <= tolerance {
            break;
        }
        let mut c = b - gb * (b - a) / (gb - ga);
        if gb == 0.0 && !looked_before_zero {
            // Not done at a zero: `g` may be zero on an interval, whose start is the
            // crossing. One look a tolerance before it: `a`'s sign there makes `b` the
            // crossing (a `g` linear in `t`, whose secant lands on its root); a zero there
            // leaves the bisection below to find where the zeros begin, at the cost of
            // some forty more reads, which every exact root paid before this look.
            looked_before_zero = true;
            c = b - tolerance;
        } else if !(c > a && c < b) {
            // Keep inside, and away from the ends (bisection when the secant stalls, and
            // from a zero at `b`, where it stays).
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

/// An event that fired: which, when, and the state before and after its action.
#[derive(Clone, Debug, PartialEq)]
pub struct Fired<S: State> {
    /// The event's index among those watched (0 for a single [`Event`]).
    pub index: usize,
    /// When it fired.
    pub t: S::Scalar,
    /// The state there, before the action.
    pub before: S,
    /// The state after the action (the state the run goes on from).
    pub after: S,
}

/// What a watched run hands out as it goes: samples, steps and events. Each has a
/// default that ignores it.
pub(super) trait Output<S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized> {
    /// The state at a requested sample time.
    fn sample(&mut self, t: S::Scalar, state: &S) {
        let _ = (t, state);
    }

    /// An accepted step (cut at an event, if one fired in it).
    fn step(&mut self, step: &mut Step<'_, '_, S, M, F>) {
        let _ = step;
    }

    /// An event, once its action has been applied.
    fn event(&mut self, fired: Fired<S>) {
        let _ = fired;
    }
}

impl<S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized> Output<S, M, F> for () {}

/// Steps `run` to its end, watching `events` on each accepted step's dense output and
/// reading the state at each of `times` (ordered from the run's start in its direction,
/// not before its start: checked by the caller) as the steps pass them, handing all to
/// `output` in time order. The run must have dense output on.
pub(super) fn watch<S, M, F, E, O>(
    run: &mut Run<'_, S, M, F>,
    events: &mut E,
    times: &[S::Scalar],
    output: &mut O,
) -> Result<(), AdaptiveError>
where
    S: State,
    M: AdaptiveMethod<S>,
    F: Forces<S> + ?Sized,
    E: Events<S>,
    O: Output<S, M, F>,
{
    let watched = events.count();
    if watched > MAX_EVENTS {
        return Err(AdaptiveError::TooManyEvents { count: watched });
    }
    let t0 = run.time();
    let direction = run.direction();
    let mut next = times.partition_point(|&t| t == t0);
    for &t in &times[..next] {
        output.sample(t, run.state());
    }
    let mut g_start = [0.0; MAX_EVENTS];
    read_events(events, watched, run.state(), t0, &mut g_start)?;
    // The events that acted where this step starts.
    let mut handled = [false; MAX_EVENTS];
    while run.step()? {
        let (start, h) = (run.step_start(), run.step_length());
        let t_end = run.time();
        let tolerance =
            (4.0 * S::Scalar::epsilon().to_f64() * (start.abs() + h.abs()) / h.abs()).max(1e-15);
        // Every event crossed in this step, located on the dense output: the earliest
        // instant, and which events cross there. The events' values at the step's ends
        // and at `INTERIOR` points between (the dense output read once per point for all
        // events), so that a crossing and its return inside one step are seen too.
        let mut g_end = [0.0; MAX_EVENTS];
        let mut samples = [[0.0; MAX_EVENTS]; INTERIOR + 2];
        let mut theta = [f64::INFINITY; MAX_EVENTS];
        if watched > 0 {
            samples[0] = g_start;
            for (k, sample) in samples.iter_mut().enumerate().take(INTERIOR + 1).skip(1) {
                let fraction = k as f64 / (INTERIOR + 1) as f64;
                let at = S::Scalar::from_f64(start + fraction * h);
                read_events(events, watched, run.dense_probe(fraction), at, sample)?;
            }
            read_events(events, watched, run.state(), t_end, &mut g_end)?;
            samples[INTERIOR + 1] = g_end;
        }
        // Events that only report, under a method that keeps its history through them
        // (`AdaptiveMethod::steps_through_events`): every crossing in the step is read
        // from the dense output, and the run goes on from the step's end.
        let through = run.steps_through_events()
            && (0..watched).all(|i| !events.terminal(i) && !events.acts(i));
        let mut roots = [(f64::INFINITY, 0); MAX_EVENTS * (INTERIOR + 1)];
        let mut found = 0;
        for i in 0..watched {
            // The first stretch between samples that crosses, located in it (every one
            // when going through).
            for k in 0..=INTERIOR {
                let (g0, g1) = (samples[k][i], samples[k + 1][i]);
                if !crosses(g0, g1, events.direction(i)) {
                    continue;
                }
                let (from, width) = (
                    k as f64 / (INTERIOR + 1) as f64,
                    1.0 / (INTERIOR + 1) as f64,
                );
                let part = locate(
                    |part| {
                        let theta = from + part * width;
                        let at = S::Scalar::from_f64(start + theta * h);
                        events.value(i, run.dense_probe(theta), at)
                    },
                    g0,
                    g1,
                    tolerance / width,
                );
                let root = from + part * width;
                // A root at the very start of the step after an event is that event again
                // (its function left near zero by the action), not a new one; after any
                // other step it is new: the last step ended a hair before the crossing.
                if !handled[i] || root > 2.0 * tolerance {
                    theta[i] = theta[i].min(root);
                    if !through {
                        break;
                    }
                    roots[found] = (root, i);
                    found += 1;
                }
            }
        }
        let earliest = theta.iter().copied().fold(f64::INFINITY, f64::min);
        let fired: [bool; MAX_EVENTS] =
            core::array::from_fn(|i| theta[i] <= earliest + 2.0 * tolerance);
        if through {
            let roots = &mut roots[..found];
            roots.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(root, index) in roots.iter() {
                let at = S::Scalar::from_f64(start + root * h);
                // In time order: the samples up to the event, the event, the rest below.
                while next < times.len() && (times[next] - at).to_f64() * direction <= 0.0 {
                    let theta = run.theta(times[next]);
                    output.sample(times[next], run.finite_dense_probe(theta)?);
                    next += 1;
                }
                let state = run.finite_dense_probe(root)?.clone();
                output.event(Fired {
                    index,
                    t: at,
                    before: state.clone(),
                    after: state,
                });
            }
        } else if earliest < 1.0 {
            run.cut_at(earliest)?;
        }
        let t = run.time();
        while next < times.len() && (times[next] - t).to_f64() * direction <= 0.0 {
            let theta = run.theta(times[next]);
            output.sample(times[next], run.finite_dense_probe(theta)?);
            next += 1;
        }
        output.step(&mut Step::new(run));
        if !earliest.is_finite() || through {
            g_start = g_end;
            handled = [false; MAX_EVENTS];
            continue;
        }
        let mut terminal = None;
        for i in (0..watched).filter(|&i| fired[i]) {
            let before = run.state().clone();
            events.act(i, run.state_mut(), t);
            output.event(Fired {
                index: i,
                t,
                before,
                after: run.state().clone(),
            });
            if events.terminal(i) && terminal.is_none() {
                terminal = Some(i);
            }
        }
        if let Some(index) = terminal {
            run.stop(Stop::Event(index));
            return Ok(());
        }
        // Going on from the event: its state may have changed, so the events' values are
        // taken anew.
        read_events(events, watched, run.state(), t, &mut g_start)?;
        handled = fired;
    }
    Ok(())
}

/// The values of the first `watched` of `events` at `state` and `t`, into `values`.
///
/// # Errors
///
/// [`AdaptiveError::EventNotANumber`] for a value that is `NaN`: it has no sign, so a
/// crossing through it could not be seen.
fn read_events<S: State, E: Events<S>>(
    events: &E,
    watched: usize,
    state: &S,
    t: S::Scalar,
    values: &mut [f64; MAX_EVENTS],
) -> Result<(), AdaptiveError> {
    for (index, g) in values.iter_mut().enumerate().take(watched) {
        *g = events.value(index, state, t);
        if g.is_nan() {
            return Err(AdaptiveError::EventNotANumber {
                index,
                t: t.to_f64(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::locate;

    /// A `g` linear in the step's fraction: the secant lands on its root, `θ = 0.3`, on its
    /// second try (the first is rounded to `0.3 + 2⁻⁵⁴`), and one look a tolerance before it
    /// confirms it is where `g` first reaches zero: three reads, where bisecting down to the
    /// tolerance from there took 38 more.
    #[test]
    fn an_exact_root_is_confirmed_by_one_look_before_it() {
        let mut reads = 0;
        let root = locate(
            |theta| {
                reads += 1;
                theta - 0.3
            },
            -0.3,
            0.7,
            1e-12,
        );
        assert_eq!(root, 0.3);
        assert_eq!(reads, 3);
    }

    /// Zero on `[0.25, 0.75]`, negative before it: the crossing is where the zeros begin,
    /// found by bisection to within the tolerance.
    #[test]
    fn a_zero_interval_is_located_at_its_start() {
        let g = |theta: f64| {
            if theta < 0.25 {
                theta - 0.25
            } else if theta > 0.75 {
                theta - 0.75
            } else {
                0.0
            }
        };
        let root = locate(g, -0.25, 0.25, 1e-12);
        assert!((root - 0.25).abs() <= 2e-12, "{root}");
        assert!(root >= 0.25);
    }
}
