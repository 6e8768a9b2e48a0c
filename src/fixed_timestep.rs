//! [`FixedTimestep`]: physics at a fixed `dt`, rendering at whatever rate frames come.

use crate::error::Number;
use crate::{Forces, Integrator, Scalar, State, StepError};
use core::fmt;
use num_traits::Float;

/// The accumulator of a game loop: frames of any length in, a whole number of fixed-`dt`
/// physics steps out, plus the blend factor `α` for drawing between the last two states.
///
/// Stepping physics by the frame time itself makes the simulation depend on the frame
/// rate: a spring at 30 fps and at 144 fps ends in different places, and a long frame can
/// make it explode. Instead, each frame's time is added to an accumulator, and as many
/// steps of the fixed `dt` as fit are taken out of it. The remainder, less than one `dt`,
/// carries over to the next frame; divided by `dt` it is `α ∈ [0, 1)`, how far real time
/// has got from the current physics state towards the next one. Rendering
/// `previous.interpolate(&current, α)` (see [`Interpolate`](crate::Interpolate)) then
/// shows motion that is smooth whatever the frame rate, at the cost of showing the world
/// up to one step late.
///
/// The physics is the same whatever the frame times: step `k` always starts at
/// `t = k · dt` and always advances by the same `dt`, so after `n` steps the state is bit
/// for bit what `n` plain calls of the integrator give.
///
/// # The spiral of death
///
/// If a step costs more wall time than `dt`, each frame is longer than the last and asks
/// for more steps, which take longer still. The frame time is therefore capped at
/// [`max_frame_time`](Self::max_frame_time) (0.25 s by default,
/// [`DEFAULT_MAX_FRAME_TIME`](Self::DEFAULT_MAX_FRAME_TIME)), so one frame runs at most
/// [`max_steps`](Self::max_steps) steps (15 at 60 Hz). Time beyond the cap is dropped (the
/// simulation runs slower than real time instead of freezing) and reported by
/// [`Frame::dropped_time`], or carried to the following frames until the simulation has
/// caught up ([`Overrun`], [`with_overrun`](Self::with_overrun)). The clock counts what
/// the budget cost: [`dropped_time`](Self::dropped_time),
/// [`frames_over_budget`](Self::frames_over_budget), [`behind`](Self::behind). The cap can be set as a frame time
/// ([`with_max_frame_time`](Self::with_max_frame_time)) or as a step count
/// ([`with_max_steps`](Self::with_max_steps)); they are one limit seen two ways.
///
/// # Time in `f64`
///
/// The accumulator and the clock are `f64` whatever the state's scalar. An `f32` clock
/// stops being able to tell frames apart: after a day of play (86 400 s) neighbouring
/// `f32` values are 7.8 ms apart, half a 60 Hz frame, so frame times would be rounded
/// away or doubled. In `f64` the same spacing is 1.5·10⁻¹¹ s after a century. `dt` itself
/// is kept in the state's scalar, the precision the integrator steps with, and widened
/// exactly to `f64` for the accumulator, so the clock counts precisely the `dt` the
/// integrator uses (for `f32`, `1/60` is 0.016 666 668 s, and that is what is counted).
///
/// # Unusual input
///
/// - `dt` zero, negative, infinite or `NaN`: refused by [`try_new`](Self::try_new) with
///   [`FixedTimestepError::InvalidTimeStep`] ([`new`](Self::new) panics with that message).
/// - `dt`, or a cap, that would let one frame run more than
///   [`MAX_STEPS_PER_FRAME`](Self::MAX_STEPS_PER_FRAME) steps (`dt = 5·10⁻³²⁴` would be
///   10³²³): refused with [`FixedTimestepError::TooManyStepsPerFrame`]. Each `advance`
///   then does at most that many subtractions.
/// - frame time 0: no step; `α` is unchanged.
/// - frame time negative, infinite or `NaN`: refused by [`advance`](Self::advance) with
///   [`FixedTimestepError::InvalidFrameTime`]; the clock is left unchanged. (Clocks that
///   can go backwards, such as a wall clock after a time-zone change, need clamping to 0
///   by the caller, who knows whether that is what they want.)
/// - frame time above the cap: counted as the cap; the rest is dropped, as above.
///
/// # Example
///
/// A game loop in three lines: advance the clock by the frame time, run the steps it asks
/// for (each saving the previous state), draw the blend.
///
/// ```
/// use timestep::{FixedTimestep, Interpolate, Particle, SemiImplicitEuler};
///
/// let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position();
/// let mut clock = FixedTimestep::new(1.0 / 60.0);
/// let mut previous = Particle::new(1.0, 1.0, 0.0);
/// let mut current = previous;
///
/// for frame_time in [0.016, 0.017, 0.033, 0.004, 0.1] {
///     let frame = clock.advance(frame_time)?;
///     frame.run(&mut SemiImplicitEuler, &mut previous, &mut current, &spring)?;
///     let shown = previous.interpolate(&current, frame.alpha());
///     # let _ = shown;
/// }
/// // 0.17 s of frames is 10 whole steps of 1/60 s, with 0.2 of a step left over.
/// assert_eq!(clock.steps_taken(), 10);
/// assert!((clock.alpha() - 0.2).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Without an integrator, the frame says how many steps to run and when each starts:
///
/// ```
/// use timestep::FixedTimestep;
///
/// let mut clock = FixedTimestep::new(0.01_f32);
/// let frame = clock.advance(0.035)?;
/// assert_eq!(frame.steps(), 3);
/// let starts: Vec<f32> = frame.times().collect();
/// assert_eq!(starts, [0.0, 0.01, 0.02]);
/// assert!((frame.alpha() - 0.5).abs() < 1e-5);
/// # Ok::<(), timestep::FixedTimestepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        try_from = "serde_impl::FixedTimestepData<S>",
        into = "serde_impl::FixedTimestepData<S>",
        bound(
            serialize = "S: serde::Serialize",
            deserialize = "S: serde::Deserialize<'de>"
        )
    )
)]
pub struct FixedTimestep<S: Scalar = f64> {
    dt: S,
    /// `dt` widened to `f64`, exactly.
    dt_seconds: f64,
    max_frame_time: f64,
    max_steps: u32,
    /// What a frame does with time beyond its budget.
    overrun: Overrun,
    /// Real time not yet simulated: in `[0, dt)` between frames, or up to the carry limit
    /// more when time is carried.
    accumulator: f64,
    steps_taken: u64,
    /// Seconds dropped since the clock was made or reset.
    dropped_time: f64,
    /// Frames that could not simulate all their time within the budget.
    frames_over_budget: u64,
}

/// What a frame longer than the budget ([`FixedTimestep::max_frame_time`], or
/// [`max_steps`](FixedTimestep::max_steps) steps) does with the time beyond it.
///
/// A game chooses between slowing down and catching up: after a hitch (a level load, a
/// dragged window) the simulation either stays behind real time for good (the game ran in
/// slow motion while frames were long) or runs its full budget of steps in the frames
/// that follow until it has caught up (the world jumps ahead, at the cost of those frames'
/// CPU). Either way each frame runs at most [`max_steps`](FixedTimestep::max_steps) steps,
/// so a slow machine cannot fall into the spiral of death.
///
/// ```
/// use timestep::{FixedTimestep, Overrun};
///
/// // 1/64 s steps, at most 4 a frame; a half-second hitch, then frames of one step each.
/// let mut clock = FixedTimestep::new(1.0 / 64.0)
///     .with_max_steps(4)
///     .with_overrun(Overrun::Carry { limit: 1.0 });
/// assert_eq!(clock.advance(0.5)?.steps(), 4);
/// assert_eq!(clock.behind(), 0.4375); // 28 steps carried
/// let mut frames = 0;
/// while clock.behind() > 0.0 {
///     let frame = clock.advance(1.0 / 64.0)?; // a step of real time, up to four run
///     assert!(frame.steps() > 1);
///     frames += 1;
/// }
/// assert_eq!(frames, 10); // 28 steps behind, caught up by three a frame
/// assert_eq!(clock.dropped_time(), 0.0);
/// assert_eq!(clock.time(), 0.5 + 10.0 / 64.0); // every second of real time simulated
/// # Ok::<(), timestep::FixedTimestepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub enum Overrun {
    /// The time beyond the budget is dropped: the simulation falls behind real time and
    /// stays behind (the game slows down while frames are too long). The default.
    #[default]
    Drop,
    /// The time beyond the budget is carried to the following frames, which run their
    /// full budget until the simulation has caught up; what would leave it more than
    /// `limit` seconds behind is dropped. `limit` must be finite and not negative (refused
    /// with [`FixedTimestepError::InvalidCarryLimit`]); with 0, nothing is carried beyond
    /// the fraction of a step `α` draws.
    Carry {
        /// The most real time, in seconds, the simulation may be behind after a frame.
        limit: f64,
    },
}

impl Overrun {
    /// The seconds that may be carried beyond the fraction of a step `α` draws.
    fn limit(self) -> f64 {
        match self {
            Overrun::Drop => 0.0,
            Overrun::Carry { limit } => limit,
        }
    }
}

impl<S: Scalar> FixedTimestep<S> {
    /// The default cap on one frame's time, in seconds: 0.25 s, or 15 steps at 60 Hz.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let clock = FixedTimestep::new(1.0_f64 / 60.0);
    /// assert_eq!(clock.max_frame_time(), FixedTimestep::<f64>::DEFAULT_MAX_FRAME_TIME);
    /// assert_eq!(clock.max_steps(), 15);
    /// ```
    pub const DEFAULT_MAX_FRAME_TIME: f64 = 0.25;

    /// A clock that steps physics by `dt` seconds, with the default cap of
    /// [`DEFAULT_MAX_FRAME_TIME`](Self::DEFAULT_MAX_FRAME_TIME) per frame.
    ///
    /// # Panics
    ///
    /// If `dt` is zero, negative, infinite or `NaN`; the message says which value was
    /// given. [`try_new`](Self::try_new) returns the error instead.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let clock = FixedTimestep::new(1.0 / 120.0);
    /// assert_eq!(clock.dt(), 1.0 / 120.0);
    /// assert_eq!(clock.max_steps(), 30);
    /// ```
    #[track_caller]
    #[must_use]
    pub fn new(dt: S) -> Self {
        match Self::try_new(dt) {
            Ok(clock) => clock,
            Err(error) => panic!("FixedTimestep::new: {error}"),
        }
    }

    /// The most steps one frame may run: 2²⁰ = 1 048 576 (a microsecond step under a
    /// one-second cap). A `dt` or cap that would let a frame run more is refused with
    /// [`FixedTimestepError::TooManyStepsPerFrame`]: a frame of millions of steps is a
    /// frozen game, not a slow one.
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError};
    ///
    /// assert_eq!(FixedTimestep::<f64>::MAX_STEPS_PER_FRAME, 1 << 20);
    /// // 0.25 s in steps of 10⁻⁹ s would be 2.5·10⁸ steps in a frame.
    /// assert!(matches!(
    ///     FixedTimestep::try_new(1e-9),
    ///     Err(FixedTimestepError::TooManyStepsPerFrame { .. })
    /// ));
    /// ```
    pub const MAX_STEPS_PER_FRAME: u32 = 1 << 20;

    /// The most steps a clock counts, 2⁵³ (4.7 million years at 60 Hz): up to there every
    /// step's start time `k · dt` is computed from the exact `k`. A frame that would go
    /// past it is refused with [`FixedTimestepError::ClockExhausted`].
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// // 2⁵³ steps of 1/60 s: about 4.76 million years of play.
    /// let years = FixedTimestep::<f64>::MAX_STEPS_TAKEN as f64 / 60.0 / (365.25 * 86_400.0);
    /// assert!((years / 4.76e6 - 1.0).abs() < 0.01);
    /// ```
    pub const MAX_STEPS_TAKEN: u64 = 1 << 53;

    /// A clock that steps physics by `dt` seconds, or why not:
    /// [`FixedTimestepError::InvalidTimeStep`] if `dt` is zero, negative, infinite or
    /// `NaN`, [`FixedTimestepError::TooManyStepsPerFrame`] if it is so small that the
    /// default cap of 0.25 s would hold more than
    /// [`MAX_STEPS_PER_FRAME`](Self::MAX_STEPS_PER_FRAME) steps (`dt` below about
    /// 2.4·10⁻⁷ s).
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError};
    ///
    /// assert!(FixedTimestep::try_new(0.01).is_ok());
    /// assert_eq!(FixedTimestep::try_new(0.0), Err(FixedTimestepError::InvalidTimeStep(0.0)));
    /// assert!(FixedTimestep::try_new(-0.01).is_err());
    /// assert!(FixedTimestep::try_new(f32::NAN).is_err());
    /// assert!(FixedTimestep::try_new(5e-324).is_err()); // 10³²³ steps a frame
    /// ```
    pub fn try_new(dt: S) -> Result<Self, FixedTimestepError> {
        let dt_seconds = dt.to_f64();
        if !(dt_seconds.is_finite() && dt_seconds > 0.0) {
            return Err(FixedTimestepError::InvalidTimeStep(dt_seconds));
        }
        let max_frame_time = Self::DEFAULT_MAX_FRAME_TIME;
        Ok(FixedTimestep {
            dt,
            dt_seconds,
            max_frame_time,
            max_steps: capped_steps(max_frame_time, dt_seconds)?,
            overrun: Overrun::Drop,
            accumulator: 0.0,
            steps_taken: 0,
            dropped_time: 0.0,
            frames_over_budget: 0,
        })
    }

    /// The same clock with frames capped at `seconds`: a longer frame counts as `seconds`
    /// long. [`max_steps`](Self::max_steps) becomes the number of steps that can then fit
    /// in one frame, `⌈seconds / dt⌉`. A cap below `dt` is legal: frames then never run
    /// more than one step, and the simulation cannot keep up with frames longer than the
    /// cap.
    ///
    /// # Panics
    ///
    /// If `seconds` is zero, negative, infinite or `NaN`, or so long that a frame would
    /// hold more than [`MAX_STEPS_PER_FRAME`](Self::MAX_STEPS_PER_FRAME) steps;
    /// [`try_with_max_frame_time`](Self::try_with_max_frame_time) returns the error
    /// instead.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.125).with_max_frame_time(0.5);
    /// assert_eq!(clock.max_steps(), 4);
    /// let frame = clock.advance(2.0)?; // a two-second hitch
    /// assert_eq!(frame.steps(), 4);
    /// assert_eq!(frame.dropped_time(), 1.5);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[track_caller]
    #[must_use = "with_max_frame_time returns a new clock and leaves this one as it was"]
    pub fn with_max_frame_time(self, seconds: f64) -> Self {
        match self.try_with_max_frame_time(seconds) {
            Ok(clock) => clock,
            Err(error) => panic!("FixedTimestep::with_max_frame_time: {error}"),
        }
    }

    /// [`with_max_frame_time`](Self::with_max_frame_time), returning the error instead of
    /// panicking: [`FixedTimestepError::InvalidMaxFrameTime`] for a cap that is zero,
    /// negative, infinite or `NaN`, [`FixedTimestepError::TooManyStepsPerFrame`] for one
    /// that holds too many steps.
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError};
    ///
    /// let clock = FixedTimestep::new(0.01);
    /// assert_eq!(clock.try_with_max_frame_time(0.5)?.max_steps(), 50);
    /// assert!(matches!(
    ///     clock.try_with_max_frame_time(1e9), // 10¹¹ steps in one frame
    ///     Err(FixedTimestepError::TooManyStepsPerFrame { .. })
    /// ));
    /// # Ok::<(), FixedTimestepError>(())
    /// ```
    #[must_use = "try_with_max_frame_time returns a new clock and leaves this one as it was"]
    pub fn try_with_max_frame_time(self, seconds: f64) -> Result<Self, FixedTimestepError> {
        if !(seconds.is_finite() && seconds > 0.0) {
            return Err(FixedTimestepError::InvalidMaxFrameTime(seconds));
        }
        Ok(FixedTimestep {
            max_frame_time: seconds,
            max_steps: capped_steps(seconds, self.dt_seconds)?,
            ..self
        })
    }

    /// The same clock running at most `steps` steps per frame: frames are capped at
    /// `steps · dt`.
    ///
    /// # Panics
    ///
    /// If `steps` is 0 (a clock that may never step would freeze the simulation) or above
    /// [`MAX_STEPS_PER_FRAME`](Self::MAX_STEPS_PER_FRAME);
    /// [`try_with_max_steps`](Self::try_with_max_steps) returns the error instead.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(1.0 / 60.0).with_max_steps(4);
    /// assert_eq!(clock.advance(0.5)?.steps(), 4);
    /// assert_eq!(clock.max_frame_time(), 4.0 / 60.0);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[track_caller]
    #[must_use = "with_max_steps returns a new clock and leaves this one as it was"]
    pub fn with_max_steps(self, steps: u32) -> Self {
        match self.try_with_max_steps(steps) {
            Ok(clock) => clock,
            Err(error) => panic!("FixedTimestep::with_max_steps: {error}"),
        }
    }

    /// [`with_max_steps`](Self::with_max_steps), returning the error instead of panicking:
    /// [`FixedTimestepError::ZeroMaxSteps`] for 0,
    /// [`FixedTimestepError::TooManyStepsPerFrame`] above
    /// [`MAX_STEPS_PER_FRAME`](Self::MAX_STEPS_PER_FRAME).
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError};
    ///
    /// let clock = FixedTimestep::new(0.01);
    /// assert_eq!(clock.try_with_max_steps(0), Err(FixedTimestepError::ZeroMaxSteps));
    /// assert!(clock.try_with_max_steps(u32::MAX).is_err());
    /// assert_eq!(clock.try_with_max_steps(8)?.max_steps(), 8);
    /// # Ok::<(), FixedTimestepError>(())
    /// ```
    #[must_use = "try_with_max_steps returns a new clock and leaves this one as it was"]
    pub fn try_with_max_steps(self, steps: u32) -> Result<Self, FixedTimestepError> {
        if steps == 0 {
            return Err(FixedTimestepError::ZeroMaxSteps);
        }
        if steps > Self::MAX_STEPS_PER_FRAME {
            return Err(FixedTimestepError::TooManyStepsPerFrame {
                steps: f64::from(steps),
            });
        }
        Ok(FixedTimestep {
            max_frame_time: f64::from(steps) * self.dt_seconds,
            max_steps: steps,
            ..self
        })
    }

    /// The same clock with another policy for time beyond the frame budget: dropped (the
    /// default) or carried to later frames ([`Overrun`]).
    ///
    /// # Panics
    ///
    /// If a carry limit is negative, infinite or `NaN`;
    /// [`try_with_overrun`](Self::try_with_overrun) returns the error instead.
    #[track_caller]
    #[must_use = "with_overrun returns a new clock and leaves this one as it was"]
    pub fn with_overrun(self, overrun: Overrun) -> Self {
        match self.try_with_overrun(overrun) {
            Ok(clock) => clock,
            Err(error) => panic!("FixedTimestep::with_overrun: {error}"),
        }
    }

    /// [`with_overrun`](Self::with_overrun), returning
    /// [`FixedTimestepError::InvalidCarryLimit`] for a carry limit that is negative,
    /// infinite or `NaN` instead of panicking.
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError, Overrun};
    ///
    /// let clock = FixedTimestep::new(0.01);
    /// assert!(clock.try_with_overrun(Overrun::Carry { limit: 0.5 }).is_ok());
    /// assert_eq!(
    ///     clock.try_with_overrun(Overrun::Carry { limit: -1.0 }),
    ///     Err(FixedTimestepError::InvalidCarryLimit(-1.0))
    /// );
    /// ```
    #[must_use = "try_with_overrun returns a new clock and leaves this one as it was"]
    pub fn try_with_overrun(self, overrun: Overrun) -> Result<Self, FixedTimestepError> {
        let limit = overrun.limit();
        if !(limit.is_finite() && limit >= 0.0) {
            return Err(FixedTimestepError::InvalidCarryLimit(limit));
        }
        Ok(FixedTimestep { overrun, ..self })
    }

    /// Adds one frame's time (in seconds) to the accumulator and takes out as many whole
    /// steps of `dt` as fit, up to [`max_steps`](Self::max_steps). The returned [`Frame`]
    /// says how many steps to run, when each starts, and the blend factor `α` to draw
    /// with. The steps count as taken as soon as this returns; run them with
    /// [`Frame::run`] or [`Frame::times`].
    ///
    /// # Errors
    ///
    /// [`FixedTimestepError::InvalidFrameTime`] if `frame_time` is negative, infinite or
    /// `NaN`, and [`FixedTimestepError::ClockExhausted`] once the count is within
    /// [`max_steps`](Self::max_steps) of [`MAX_STEPS_TAKEN`](Self::MAX_STEPS_TAKEN) (so
    /// that no frame can take it past); the clock is then unchanged. A
    /// frame time of 0 is fine (no step, same `α`), and one above
    /// [`max_frame_time`](Self::max_frame_time) is capped.
    ///
    /// ```
    /// use timestep::{FixedTimestep, FixedTimestepError};
    ///
    /// let mut clock = FixedTimestep::new(0.1_f64);
    /// assert_eq!(clock.advance(0.25)?.steps(), 2);
    /// assert_eq!(clock.advance(0.0)?.steps(), 0);
    /// assert!((clock.alpha() - 0.5).abs() < 1e-12);
    /// assert_eq!(clock.advance(-0.1), Err(FixedTimestepError::InvalidFrameTime(-0.1)));
    /// assert!(clock.advance(f64::INFINITY).is_err());
    /// assert!(clock.advance(f64::NAN).is_err());
    /// assert!((clock.alpha() - 0.5).abs() < 1e-12); // unchanged by the refused frames
    /// assert_eq!(clock.steps_taken(), 2);
    /// # Ok::<(), FixedTimestepError>(())
    /// ```
    pub fn advance(&mut self, frame_time: f64) -> Result<Frame<S>, FixedTimestepError> {
        if !(frame_time.is_finite() && frame_time >= 0.0) {
            return Err(FixedTimestepError::InvalidFrameTime(frame_time));
        }
        if self.steps_taken > Self::MAX_STEPS_TAKEN - u64::from(self.max_steps) {
            return Err(FixedTimestepError::ClockExhausted(self.steps_taken));
        }
        let counted = match self.overrun {
            Overrun::Drop => frame_time.min(self.max_frame_time),
            Overrun::Carry { .. } => frame_time,
        };
        let mut dropped = frame_time - counted;
        self.accumulator += counted;
        let first_step = self.steps_taken;
        let mut steps = 0;
        // One dt at a time rather than `floor(accumulator / dt)` at once: whatever the
        // rounding, the remainder ends in [0, dt), never negative (a rounded-up quotient
        // could leave it so). The loop is bounded by `max_steps`, at most
        // `MAX_STEPS_PER_FRAME`.
        while self.accumulator >= self.dt_seconds && steps < self.max_steps {
            self.accumulator -= self.dt_seconds;
            steps += 1;
        }
        let carried = self.overrun.limit();
        if self.accumulator >= self.dt_seconds + carried {
            // Beyond what may be carried (when dropping, only reachable through rounding at
            // the cap): drop whole steps, keeping the phase.
            let excess = self.accumulator - carried;
            let whole = Float::floor(excess / self.dt_seconds) * self.dt_seconds;
            let mut kept = self.accumulator - whole;
            if !(0.0..self.dt_seconds + carried).contains(&kept) {
                kept = carried;
            }
            dropped += self.accumulator - kept;
            self.accumulator = kept;
        }
        self.steps_taken += u64::from(steps);
        self.dropped_time += dropped;
        if dropped > 0.0 || self.accumulator >= self.dt_seconds {
            self.frames_over_budget += 1;
        }
        Ok(Frame {
            dt: self.dt,
            dt_seconds: self.dt_seconds,
            first_step,
            steps,
            alpha: self.alpha(),
            dropped_time: dropped,
            behind: self.behind(),
        })
    }

    /// The blend factor `α = accumulator / dt ∈ [0, 1)`: how far real time has got past
    /// the current physics state, as a fraction of a step. Draw
    /// `previous.interpolate(&current, α)`. Strictly below 1 in `S` too: an `f32` `α` that
    /// would round up to 1 is given as the largest `f32` below 1.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.02_f32);
    /// assert_eq!(clock.alpha(), 0.0);
    /// clock.advance(0.03)?;
    /// assert!((clock.alpha() - 0.5).abs() < 1e-5);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn alpha(&self) -> S {
        let alpha = S::from_f64(self.accumulator / self.dt_seconds);
        let below_one = S::one() - S::epsilon() / (S::one() + S::one());
        alpha.min(below_one)
    }

    /// The fixed physics step.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// assert_eq!(FixedTimestep::new(0.5_f32).dt(), 0.5);
    /// ```
    #[must_use]
    pub fn dt(&self) -> S {
        self.dt
    }

    /// The longest frame counted, in seconds; longer frames are capped to it.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// assert_eq!(FixedTimestep::new(0.01).max_frame_time(), 0.25);
    /// ```
    #[must_use]
    pub fn max_frame_time(&self) -> f64 {
        self.max_frame_time
    }

    /// The most steps one frame runs.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// assert_eq!(FixedTimestep::new(1.0 / 60.0).max_steps(), 15);
    /// ```
    #[must_use]
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// Real time, in seconds, that has been counted but not yet simulated: `α · dt`.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.125);
    /// clock.advance(0.1875)?;
    /// assert_eq!(clock.accumulator(), 0.0625);
    /// assert_eq!(clock.alpha(), 0.5);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn accumulator(&self) -> f64 {
        self.accumulator
    }

    /// The number of steps handed out since the clock was made or [`reset`](Self::reset).
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.0625);
    /// clock.advance(0.125)?;
    /// clock.advance(0.125)?;
    /// assert_eq!(clock.steps_taken(), 4);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn steps_taken(&self) -> u64 {
        self.steps_taken
    }

    /// Seconds of real time dropped by the frame budget since the clock was made or
    /// [`reset`](Self::reset): how far the simulation has fallen behind for good.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.125).with_max_steps(2);
    /// clock.advance(0.5)?; // two steps run, 0.25 s dropped
    /// clock.advance(0.375)?; // two steps run, 0.125 s dropped
    /// assert_eq!((clock.dropped_time(), clock.frames_over_budget()), (0.375, 2));
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn dropped_time(&self) -> f64 {
        self.dropped_time
    }

    /// The number of frames, since the clock was made or [`reset`](Self::reset), that
    /// could not simulate all their time within the budget (time dropped, or carried).
    #[must_use]
    pub fn frames_over_budget(&self) -> u64 {
        self.frames_over_budget
    }

    /// The policy for time beyond the frame budget.
    #[must_use]
    pub fn overrun(&self) -> Overrun {
        self.overrun
    }

    /// Seconds of real time carried to later frames: how far the simulation is behind
    /// beyond the fraction of a step `α` draws (`accumulator − α · dt`, in whole steps).
    /// Always 0 when time beyond the budget is [dropped](Overrun::Drop).
    #[must_use]
    pub fn behind(&self) -> f64 {
        if self.accumulator < self.dt_seconds {
            0.0
        } else {
            Float::floor(self.accumulator / self.dt_seconds) * self.dt_seconds
        }
    }

    /// The simulated time, in seconds: the end of the last step handed out,
    /// `steps_taken · dt`, computed by one multiplication (no drift from summing).
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.0625_f64);
    /// clock.advance(0.2)?;
    /// assert_eq!(clock.time(), 0.1875); // three steps
    /// assert!((clock.alpha() - 0.2).abs() < 1e-12);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn time(&self) -> f64 {
        self.steps_taken as f64 * self.dt_seconds
    }

    /// Starts over: no time accumulated, no step taken, nothing dropped, `α = 0`; `dt`, the
    /// cap and the overrun policy stay.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.0625);
    /// clock.advance(0.2)?;
    /// clock.reset();
    /// assert_eq!((clock.steps_taken(), clock.alpha()), (0, 0.0));
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    pub fn reset(&mut self) {
        self.accumulator = 0.0;
        self.steps_taken = 0;
        self.dropped_time = 0.0;
        self.frames_over_budget = 0;
    }
}

/// [`steps_in`], refused above [`FixedTimestep::MAX_STEPS_PER_FRAME`].
fn capped_steps(seconds: f64, dt: f64) -> Result<u32, FixedTimestepError> {
    let steps = steps_in(seconds, dt);
    if steps > FixedTimestep::<f64>::MAX_STEPS_PER_FRAME {
        Err(FixedTimestepError::TooManyStepsPerFrame {
            steps: Float::max(seconds / dt, f64::from(steps)),
        })
    } else {
        Ok(steps)
    }
}

/// `⌈seconds / dt⌉`, at least 1, saturating at `u32::MAX`: the most steps a frame of at
/// most `seconds` can hold when less than one `dt` is carried over from the last frame.
/// A ratio within rounding of a whole number counts as that number, so that 0.25 s at
/// `dt = 1/60` is 15 steps, not 16 (`1/60` rounds down in `f64`).
fn steps_in(seconds: f64, dt: f64) -> u32 {
    let ratio = seconds / dt;
    let nearest = Float::round(ratio);
    let steps = if Float::abs(ratio - nearest) <= 4.0 * f64::EPSILON * ratio {
        nearest
    } else {
        Float::ceil(ratio)
    };
    if steps >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        (steps as u32).max(1)
    }
}

/// What one frame asks of the physics: [`steps`](Frame::steps) fixed steps starting at
/// [`times`](Frame::times), then drawing with [`alpha`](Frame::alpha). Made by
/// [`FixedTimestep::advance`].
///
/// # Example
///
/// ```
/// use timestep::FixedTimestep;
///
/// let mut clock = FixedTimestep::new(0.0625);
/// clock.advance(0.09375)?; // one step and a half
/// let frame = clock.advance(0.09375)?;
/// assert_eq!(frame.steps(), 2);
/// assert_eq!(frame.times().collect::<Vec<_>>(), [0.0625, 0.125]);
/// assert_eq!(frame.alpha(), 0.0);
/// assert_eq!(frame.dropped_time(), 0.0);
/// # Ok::<(), timestep::FixedTimestepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use = "the clock counts the frame's steps as taken: run them (Frame::run or Frame::times), or the physics falls behind the clock"]
pub struct Frame<S: Scalar = f64> {
    dt: S,
    dt_seconds: f64,
    first_step: u64,
    steps: u32,
    alpha: S,
    dropped_time: f64,
    behind: f64,
}

impl<S: Scalar> Frame<S> {
    /// The number of fixed steps to run this frame (0 when the frame was shorter than
    /// what was missing for the next step).
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.25_f64);
    /// assert_eq!(clock.advance(0.125)?.steps(), 0);
    /// assert_eq!(clock.advance(0.125)?.steps(), 1);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The blend factor for drawing, in `[0, 1)`: see [`FixedTimestep::alpha`].
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.25_f64);
    /// assert_eq!(clock.advance(0.1875)?.alpha(), 0.75);
    /// assert_eq!(clock.advance(0.125)?.alpha(), 0.25);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn alpha(&self) -> S {
        self.alpha
    }

    /// The fixed step `dt`: every step of the frame is this long.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let frame = FixedTimestep::new(0.01_f32).advance(0.1)?;
    /// assert_eq!(frame.dt(), 0.01_f32);
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn dt(&self) -> S {
        self.dt
    }

    /// Seconds of this frame dropped by the cap (0 unless the frame was longer than
    /// [`FixedTimestep::max_frame_time`]): the simulation fell that far behind real time.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(1.0 / 64.0_f64); // default cap: 0.25 s, 16 steps
    /// let frame = clock.advance(1.0)?; // the window was dragged for a second
    /// assert_eq!((frame.steps(), frame.dropped_time()), (16, 0.75));
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn dropped_time(&self) -> f64 {
        self.dropped_time
    }

    /// Seconds of real time carried to later frames after this one
    /// ([`FixedTimestep::behind`]; 0 unless time beyond the budget is
    /// [carried](Overrun::Carry)).
    #[must_use]
    pub fn behind(&self) -> f64 {
        self.behind
    }

    /// The start time of each step, in order: step `k` of the clock starts at `k · dt`
    /// (computed in `f64`, then rounded once to `S`), so times never drift however long
    /// the game runs.
    ///
    /// ```
    /// use timestep::FixedTimestep;
    ///
    /// let mut clock = FixedTimestep::new(0.125_f64);
    /// let mut t_end = 0.0;
    /// for _ in 0..3 {
    ///     for t in clock.advance(0.2)?.times() {
    ///         assert_eq!(t, t_end); // each step starts where the last one ended
    ///         t_end = t + 0.125;
    ///     }
    /// }
    /// assert_eq!(t_end, clock.time());
    /// # Ok::<(), timestep::FixedTimestepError>(())
    /// ```
    #[must_use]
    pub fn times(&self) -> impl ExactSizeIterator<Item = S> + DoubleEndedIterator + use<S> {
        let (first, dt) = (self.first_step, self.dt_seconds);
        (0..self.steps).map(move |i| S::from_f64((first + u64::from(i)) as f64 * dt))
    }

    /// Runs this frame's steps on `current` with `integrator` under `forces`, copying
    /// `current` into `previous` before each, so that afterwards
    /// `previous.interpolate(&current, frame.alpha())` is the state to draw. With no step
    /// to run, neither is touched.
    ///
    /// # Errors
    ///
    /// The first [`StepError`] of the integrator. The steps after it are not run (they
    /// were already counted by the clock); `current` is as the failed step left it
    /// (unchanged, for this crate's integrators) and `previous` is the state before it.
    ///
    /// ```
    /// use timestep::{FixedTimestep, Particle, Verlet};
    ///
    /// let gravity = |_: &Particle<f64>, _t: f64| -9.81;
    /// let mut clock = FixedTimestep::new(0.01);
    /// let (mut previous, mut current) = (Particle::new(1.0, 0.0, 0.0), Particle::new(1.0, 0.0, 0.0));
    /// let frame = clock.advance(0.1)?;
    /// frame.run(&mut Verlet, &mut previous, &mut current, &gravity)?;
    /// // Verlet is exact under constant force; `previous` is one step behind.
    /// assert!((current.position() + 0.5 * 9.81 * 0.1 * 0.1).abs() < 1e-12);
    /// assert!((previous.position() + 0.5 * 9.81 * 0.09 * 0.09).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<St, I, F>(
        &self,
        integrator: &mut I,
        previous: &mut St,
        current: &mut St,
        forces: &F,
    ) -> Result<(), StepError>
    where
        St: State<Scalar = S>,
        I: Integrator<St> + ?Sized,
        F: Forces<St> + ?Sized,
    {
        for t in self.times() {
            previous.clone_from(current);
            integrator.step(current, forces, t, self.dt)?;
        }
        Ok(())
    }
}

/// Why a [`FixedTimestep`] refused a setting or a frame.
///
/// # Example
///
/// ```
/// use timestep::{FixedTimestep, FixedTimestepError};
///
/// let error = FixedTimestep::new(0.01).advance(f64::NAN).unwrap_err();
/// assert!(matches!(error, FixedTimestepError::InvalidFrameTime(t) if t.is_nan()));
/// assert_eq!(
///     FixedTimestepError::InvalidFrameTime(-1.0).to_string(),
///     "frame time must be finite and not negative, got -1 s"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum FixedTimestepError {
    /// The step `dt` is zero, negative, infinite or `NaN` (the value, widened to `f64`).
    InvalidTimeStep(f64),
    /// The frame time is negative, infinite or `NaN`.
    InvalidFrameTime(f64),
    /// The cap on the frame time is zero, negative, infinite or `NaN`.
    InvalidMaxFrameTime(f64),
    /// The cap on steps per frame is 0.
    ZeroMaxSteps,
    /// The step and the cap on the frame time would let one frame run more than
    /// [`FixedTimestep::MAX_STEPS_PER_FRAME`] steps (`dt` far too small for the cap).
    TooManyStepsPerFrame {
        /// The steps one frame could run.
        steps: f64,
    },
    /// A saved clock's `max_steps` is more than its `max_frame_time` holds.
    InconsistentMaxSteps {
        /// The cap on steps per frame.
        max_steps: u32,
        /// The cap on the frame time, in seconds.
        max_frame_time: f64,
    },
    /// A saved clock's accumulator is negative, not finite, or a whole step or more beyond
    /// what it may carry.
    InvalidAccumulator(f64),
    /// A carry limit ([`Overrun::Carry`]) that is negative, infinite or `NaN`.
    InvalidCarryLimit(f64),
    /// The clock has counted [`FixedTimestep::MAX_STEPS_TAKEN`] steps (or a saved clock
    /// claims more): the step count given.
    ClockExhausted(u64),
}

impl fmt::Display for FixedTimestepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FixedTimestepError::InvalidTimeStep(dt) => write!(
                f,
                "time step must be finite and positive, got dt = {} s",
                Number(dt)
            ),
            FixedTimestepError::InvalidFrameTime(t) => write!(
                f,
                "frame time must be finite and not negative, got {} s",
                Number(t)
            ),
            FixedTimestepError::InvalidMaxFrameTime(t) => write!(
                f,
                "max frame time must be finite and positive, got {} s",
                Number(t)
            ),
            FixedTimestepError::ZeroMaxSteps => {
                write!(f, "at least one step per frame is needed, got a cap of 0")
            }
            FixedTimestepError::TooManyStepsPerFrame { steps } => write!(
                f,
                "one frame could run {} steps, more than the {} allowed: the time step is too small for the cap on the frame time",
                Number(steps),
                FixedTimestep::<f64>::MAX_STEPS_PER_FRAME
            ),
            FixedTimestepError::InconsistentMaxSteps {
                max_steps,
                max_frame_time,
            } => write!(
                f,
                "max steps per frame {max_steps} is more than the max frame time {} s holds",
                Number(max_frame_time)
            ),
            FixedTimestepError::InvalidAccumulator(a) => write!(
                f,
                "accumulator must be finite, not negative and less than one step beyond what may be carried, got {} s",
                Number(a)
            ),
            FixedTimestepError::InvalidCarryLimit(limit) => write!(
                f,
                "the most time carried to later frames must be finite and not negative, got {} s",
                Number(limit)
            ),
            FixedTimestepError::ClockExhausted(steps) => write!(
                f,
                "the clock has counted {steps} steps and can count at most {}",
                FixedTimestep::<f64>::MAX_STEPS_TAKEN
            ),
        }
    }
}

impl core::error::Error for FixedTimestepError {}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::{FixedTimestep, FixedTimestepError, Overrun, steps_in};
    use crate::Scalar;
    use num_traits::Float;

    /// The serialized form: the settings and the clock's progress. Everything is checked
    /// again on the way in: `dt` and the caps as the constructor and builders check them,
    /// `max_steps` against `max_frame_time`, `steps_taken` against
    /// [`FixedTimestep::MAX_STEPS_TAKEN`], and the accumulator against `[0, dt)`. An
    /// accumulator a few ulps above that range, as a parser that rounds the last digit
    /// (serde_json without `float_roundtrip`) reads back `dt − 1 ulp`, is taken as the
    /// largest value below `dt`.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "FixedTimestep", deny_unknown_fields)]
    pub struct FixedTimestepData<S> {
        dt: S,
        max_frame_time: f64,
        max_steps: u32,
        // The fields added with the frame budget default to a clock saved before it.
        #[serde(default)]
        overrun: Overrun,
        accumulator: f64,
        steps_taken: u64,
        #[serde(default)]
        dropped_time: f64,
        #[serde(default)]
        frames_over_budget: u64,
    }

    impl<S: Scalar> From<FixedTimestep<S>> for FixedTimestepData<S> {
        fn from(clock: FixedTimestep<S>) -> Self {
            FixedTimestepData {
                dt: clock.dt,
                max_frame_time: clock.max_frame_time,
                max_steps: clock.max_steps,
                overrun: clock.overrun,
                accumulator: clock.accumulator,
                steps_taken: clock.steps_taken,
                dropped_time: clock.dropped_time,
                frames_over_budget: clock.frames_over_budget,
            }
        }
    }

    impl<S: Scalar> TryFrom<FixedTimestepData<S>> for FixedTimestep<S> {
        type Error = FixedTimestepError;

        fn try_from(data: FixedTimestepData<S>) -> Result<Self, Self::Error> {
            // Not `try_new`: its default cap may hold too many steps for a small `dt` whose
            // saved cap is fine.
            let dt_seconds = data.dt.to_f64();
            if !(dt_seconds.is_finite() && dt_seconds > 0.0) {
                return Err(FixedTimestepError::InvalidTimeStep(dt_seconds));
            }
            let max_frame_time = data.max_frame_time;
            if !(max_frame_time.is_finite() && max_frame_time > 0.0) {
                return Err(FixedTimestepError::InvalidMaxFrameTime(max_frame_time));
            }
            if data.max_steps == 0 {
                return Err(FixedTimestepError::ZeroMaxSteps);
            }
            // The cap was set either as a time or as a step count; either way the count
            // cannot exceed what the time allows.
            if data.max_steps > FixedTimestep::<S>::MAX_STEPS_PER_FRAME {
                return Err(FixedTimestepError::TooManyStepsPerFrame {
                    steps: f64::from(data.max_steps),
                });
            }
            if data.max_steps > steps_in(max_frame_time, dt_seconds) {
                return Err(FixedTimestepError::InconsistentMaxSteps {
                    max_steps: data.max_steps,
                    max_frame_time,
                });
            }
            if data.steps_taken > FixedTimestep::<S>::MAX_STEPS_TAKEN {
                return Err(FixedTimestepError::ClockExhausted(data.steps_taken));
            }
            let carried = data.overrun.limit();
            if !(carried.is_finite() && carried >= 0.0) {
                return Err(FixedTimestepError::InvalidCarryLimit(carried));
            }
            let top = dt_seconds + carried;
            let mut accumulator = data.accumulator;
            let rounding = 4.0 * f64::EPSILON * top;
            if !(accumulator.is_finite() && (-rounding..top + rounding).contains(&accumulator)) {
                return Err(FixedTimestepError::InvalidAccumulator(accumulator));
            }
            // Within rounding of the range: brought into it.
            accumulator = Float::max(accumulator, 0.0);
            if accumulator >= top {
                accumulator = f64::from_bits(top.to_bits() - 1);
            }
            Ok(FixedTimestep {
                max_frame_time,
                max_steps: data.max_steps,
                overrun: data.overrun,
                accumulator,
                steps_taken: data.steps_taken,
                dropped_time: data.dropped_time,
                frames_over_budget: data.frames_over_budget,
                dt: data.dt,
                dt_seconds,
            })
        }
    }
}
