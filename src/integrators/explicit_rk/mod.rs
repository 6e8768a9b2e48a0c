//! Explicit Runge–Kutta methods: a [`Tableau`] of coefficients, and one stage loop that
//! runs every tableau on every state.

mod dop853;
mod embedded;
mod methods;
mod pairs;
mod predictor_corrector;
mod vern6;
mod vern7;
mod vern8;
mod vern9;

pub use dop853::Dop853;
pub use embedded::{Pair, PairSource, PairWorkspace};
pub use methods::{ExplicitEuler, ImprovedEuler, Midpoint, Rk4};
pub use pairs::{Bs3, Dopri5, EmbeddedPair, Tsit5};
pub use predictor_corrector::PredictorCorrector;
pub use vern6::Vern6;
pub use vern7::Vern7;
pub use vern8::Vern8;
pub use vern9::Vern9;

use super::{Memoryless, Properties, Scheme};
use crate::vector::combination;
use crate::{DerivativeOf, Forces, Scalar, State, StepError};

/// The Butcher tableau of an explicit Runge–Kutta method with `N` stages:
///
/// ```text
/// kᵢ = f(t + cᵢ dt, y + dt Σⱼ₍ⱼ<ᵢ₎ aᵢⱼ kⱼ)      i = 1 … N
/// y(t + dt) = y + dt Σᵢ bᵢ kᵢ
/// ```
///
/// A tableau is a method: `&'static Tableau<N>` is a [`Scheme`], stepped by the same
/// loop as the crate's own ([`Rk4::TABLEAU`] and the others), so a method from a paper is
/// its coefficients and nothing else.
///
/// # Example
///
/// Ralston's second-order method (A. Ralston, "Runge–Kutta methods with minimum error
/// bounds", Math. Comp. 16 (1962) 431–437), from its coefficients:
///
/// ```
/// use timestep::{Integrator, Tableau};
///
/// static RALSTON: Tableau<2> = Tableau {
///     name: "ralston",
///     order: 2,
///     a: [[0.0, 0.0], [2.0 / 3.0, 0.0]],
///     b: [0.25, 0.75],
///     c: [0.0, 2.0 / 3.0],
/// };
/// let mut y = 1.0_f64;
/// (&RALSTON).step(&mut y, &|y: &f64, _t: f64| -y, 0.0, 0.1)?;
/// assert!((y - 0.905).abs() < 1e-15); // 1 − dt + dt²/2
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tableau<const N: usize> {
    /// The method's name.
    pub name: &'static str,
    /// Its order.
    pub order: u32,
    /// The stage coefficients `aᵢⱼ`, strictly lower triangular (`aᵢⱼ = 0` for `j ≥ i`).
    pub a: [[f64; N]; N],
    /// The weights `bᵢ`.
    pub b: [f64; N],
    /// The nodes `cᵢ`, the stage times as fractions of the step.
    pub c: [f64; N],
}

/// The buffers of an `N`-stage explicit Runge–Kutta step: one rate per stage, a probe
/// state, and a rate for sums of stages.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct RkWorkspace<S: State, const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::array"))]
    rates: [DerivativeOf<S>; N],
    probe: S,
    sum: DerivativeOf<S>,
}

impl<S: State, const N: usize> RkWorkspace<S, N> {
    /// Buffers for states of the size of `state`.
    #[inline(always)]
    pub(crate) fn new(state: &S) -> Self {
        let zero = state.zero_rate();
        RkWorkspace {
            rates: core::array::from_fn(|_| zero.clone()),
            probe: state.clone(),
            sum: zero,
        }
    }

    /// The rate at the start of the last step (its first stage).
    #[inline(always)]
    pub(crate) fn first_rate(&self) -> &DerivativeOf<S> {
        &self.rates[0]
    }
}

/// The most stages a [`Tableau`] may have: the stage loop is unrolled this far.
const MAX_STAGES: usize = 26;

impl<const N: usize> Tableau<N> {
    /// One step of this tableau; `t` and `dt` are finite, `dt ≠ 0`.
    #[inline(always)]
    pub(crate) fn step<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RkWorkspace<S, N>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) {
        let RkWorkspace { rates, probe, sum } = workspace;
        self.stages(rates, probe, sum, state, forces, t, dt, Stages::Needed);
        state.advance_by_sum(&self.b, rates, dt, sum);
    }

    /// The stage rates `kᵢ` of a step from `state` at `t` by `dt`, into `rates`.
    ///
    /// The stages are unrolled (up to [`MAX_STAGES`]), so that with a tableau known at
    /// compile time every coefficient is a constant and every zero coefficient costs
    /// nothing: left as a loop, RK4 on a particle ran 3× slower than written by hand.
    #[allow(clippy::too_many_arguments)]
    // Inlined only when optimised: unoptimised, every inlined copy of the unrolled stages keeps
    // its own stack slots, and dispatching over the pairs (`AdaptiveKind::attempt`) took a
    // 2.4 MB frame, past a test thread's 2 MiB stack.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn stages<S: State, F: Forces<S> + ?Sized>(
        &self,
        rates: &mut [DerivativeOf<S>; N],
        probe: &mut S,
        sum: &mut DerivativeOf<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
        which: Stages,
    ) {
        const { assert!(N >= 1 && N <= MAX_STAGES, "a tableau has 1 to 26 stages") };
        // The second stage probes along the first rate alone: a large state takes that
        // rate and writes the probe in one pass (for particles, the first rate's velocity
        // is copied on the way instead of in a pass of its own).
        let first_two =
            which.includes(0, self) && N > 1 && which.includes(1, self) && self.a[1 % N][0] != 0.0;
        if first_two {
            let (first, rest) = rates.split_at_mut(1);
            let h = dt * S::Scalar::from_f64(self.a[1][0]);
            state.derivative_and_probe_into(forces, t, &mut first[0], h, probe);
            let stage_time = t + dt * S::Scalar::from_f64(self.c[1]);
            probe.probe_derivative_into(forces, stage_time, &mut rest[0]);
        } else if which.includes(0, self) {
            state.derivative_into(forces, t, &mut rates[0]);
        }
        // A small state whose advance is linear forms its probes in two parts.
        let small = S::splits_probes();
        // A large array's rate is returned where a stage can read it, and goes to its
        // buffer in the pass that forms the next probe: copied there at once, it cost a
        // call to `memcpy` per stage.
        let by_value = S::rates_by_value() && forces.returns_forces() && forces.reads_momenta();
        let mut probe_formed = false;
        macro_rules! stages {
            ($($i:literal)*) => {$(
                if $i < N && which.includes($i, self) && !($i == 1 && first_two) {
                    let weights = &self.a[$i][..$i];
                    let (terms, newest) = newest_weight(weights);
                    let done = &rates[..$i];
                    if core::mem::take(&mut probe_formed) {
                    } else if small && terms >= 2 && forces.reads_momenta() {
                        // `(y + dt Σⱼ₍ⱼ<newest₎ aᵢⱼ kⱼ) + (dt aᵢ,newest) k_newest`: all but
                        // the newest rate is summed while that rate is evaluated, so that
                        // from it to the probe there is one multiply and one add, not a
                        // multiply and add into the sum, a multiply by `dt` and an add.
                        let (direction, factor) = combination(&weights[..newest], done, sum);
                        state.probe_into(direction, dt * S::Scalar::from_f64(factor), probe);
                        probe.advance(&done[newest], dt * S::Scalar::from_f64(weights[newest]));
                    } else if forces.reads_momenta() {
                        state.probe_by_sum(weights, done, dt, sum, probe);
                    } else {
                        let (direction, factor) = combination(weights, done, sum);
                        let h = dt * S::Scalar::from_f64(factor);
                        state.positional_probe_into(direction, h, probe);
                    }
                    let stage_time = t + dt * S::Scalar::from_f64(self.c[$i]);
                    if by_value {
                        let rate = forces.force(probe, stage_time);
                        let next = $i + 1;
                        if next < N && which.includes(next, self) {
                            let weights = &self.a[next % N][..next];
                            let (terms, newest) = newest_weight(weights);
                            if terms >= 2 && newest == $i {
                                let upto = &mut rates[..next];
                                state.probe_by_sum_storing(weights, upto, &rate, dt, sum, probe);
                                probe_formed = true;
                            }
                        }
                        if !probe_formed {
                            rates[$i].force = rate;
                        }
                    } else {
                        probe.probe_derivative_into(forces, stage_time, &mut rates[$i]);
                    }
                }
            )*};
        }
        stages!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    }

    /// Whether stage `i` matters to a step: it has a weight, or a later stage uses it. (An
    /// embedded pair's last stage, the rate at the new state, matters only to its error
    /// estimate and to the next step, so a fixed step skips it.)
    #[must_use]
    pub const fn needs(&self, i: usize) -> bool {
        if self.b[i] != 0.0 {
            return true;
        }
        let mut later = i + 1;
        while later < N {
            if self.a[later][i] != 0.0 {
                return true;
            }
            later += 1;
        }
        false
    }

    /// Force evaluations per fixed step: the stages that matter.
    #[must_use]
    pub const fn evaluations(&self) -> u32 {
        let mut count = 0;
        let mut i = 0;
        while i < N {
            if self.needs(i) {
                count += 1;
            }
            i += 1;
        }
        count
    }

    /// What the tableau says of itself.
    #[must_use]
    pub const fn properties(&self) -> Properties {
        Properties::explicit(self.name, self.order, self.evaluations())
    }

    /// The stability function `R(z) = 1 + z bᵀ(I − zA)⁻¹𝟙` at a real `z`: a step of `h`
    /// on `y′ = λy` multiplies `y` by `R(hλ)`. (For an explicit method a polynomial:
    /// RK4's is `1 + z + z²/2 + z³/6 + z⁴/24`.)
    #[must_use]
    pub fn stability_function(&self, z: f64) -> f64 {
        let mut stage = [0.0; N];
        let mut r = 1.0;
        for i in 0..N {
            let sum: f64 = (0..i).map(|j| self.a[i][j] * stage[j]).sum();
            stage[i] = 1.0 + z * sum;
            r += z * self.b[i] * stage[i];
        }
        r
    }

    /// Where the stability region ends on the negative real axis: the largest `x` with
    /// `|R(−x′)| ≤ 1` for every `x′` in `[0, x]`, so that a decaying mode of rate `λ` stays
    /// bounded while `h|λ| ≤ x` (2 for explicit Euler, 2.785 for RK4, 3.307 for
    /// Dormand–Prince 5(4)). Found by a scan in steps of 0.01 and bisection, to 10⁻¹⁵;
    /// infinite for a tableau that never grows up to `x = 10³` (no consistent explicit
    /// method).
    #[must_use]
    pub fn real_stability_boundary(&self) -> f64 {
        const STEP: f64 = 0.01;
        let grows = |x: f64| self.stability_function(-x).abs() > 1.0;
        let mut x = STEP;
        while !grows(x) {
            x += STEP;
            if x > 1e3 {
                return f64::INFINITY;
            }
        }
        let (mut stable, mut unstable) = (x - STEP, x);
        while unstable - stable > 1e-15 * unstable {
            let middle = 0.5 * (stable + unstable);
            if grows(middle) {
                unstable = middle;
            } else {
                stable = middle;
            }
        }
        stable
    }
}

/// `[0; N]` with the entries `(index, value)` set: a sparse row of a table.
const fn sparse<const N: usize>(entries: &[(usize, f64)]) -> [f64; N] {
    let mut row = [0.0; N];
    let mut k = 0;
    while k < entries.len() {
        row[entries[k].0] = entries[k].1;
        k += 1;
    }
    row
}

/// The first `M` stages of a tableau: the step of a pair whose later stages serve only its
/// error estimate, the next step or its dense output.
const fn leading<const N: usize, const M: usize>(tableau: &Tableau<N>) -> Tableau<M> {
    let mut a = [[0.0; M]; M];
    let mut b = [0.0; M];
    let mut c = [0.0; M];
    let mut i = 0;
    while i < M {
        let mut j = 0;
        while j < M {
            a[i][j] = tableau.a[i][j];
            j += 1;
        }
        b[i] = tableau.b[i];
        c[i] = tableau.c[i];
        i += 1;
    }
    Tableau {
        name: tableau.name,
        order: tableau.order,
        a,
        b,
        c,
    }
}

/// Which stages [`Tableau::stages`] evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stages {
    /// Those that matter to a fixed step.
    Needed,
    /// Those from the first index to before the second: an embedded pair evaluates the
    /// stages its error estimate needs, and later those of its dense output.
    Span(usize, usize),
}

impl Stages {
    /// Whether stage `i` of `tableau` is evaluated.
    #[inline(always)]
    const fn includes<const N: usize>(self, i: usize, tableau: &Tableau<N>) -> bool {
        match self {
            Stages::Needed => tableau.needs(i),
            Stages::Span(from, to) => from <= i && i < to,
        }
    }
}

/// How many weights are non-zero, and the index of the last of them (0 if none).
/// Unrolled like [`combination`], so that for constant weights both are constants.
#[cfg_attr(not(debug_assertions), inline(always))]
fn newest_weight(weights: &[f64]) -> (usize, usize) {
    let mut terms = 0;
    let mut last = 0;
    macro_rules! each {
        ($($index:literal)*) => {$(
            if $index < weights.len() && weights[$index] != 0.0 {
                terms += 1;
                last = $index;
            }
        )*};
    }
    each!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    (terms, last)
}

impl<const N: usize> Scheme for &'static Tableau<N> {
    type Workspace<S: State> = RkWorkspace<S, N>;

    #[inline(always)]
    fn workspace<S: State>(&self, state: &S) -> RkWorkspace<S, N> {
        RkWorkspace::new(state)
    }

    #[inline(always)]
    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RkWorkspace<S, N>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        self.step(workspace, state, forces, t, dt);
        Ok(())
    }

    fn properties(&self) -> Properties {
        Tableau::properties(self)
    }
}

impl<const N: usize> Memoryless for &'static Tableau<N> {}

/// A unit struct that is the method its `TABLEAU` describes.
macro_rules! explicit_rk {
    ($method:ident, $stages:literal) => {
        impl $crate::integrators::Scheme for $method {
            type Workspace<S: $crate::State> = $crate::integrators::RkWorkspace<S, $stages>;

            #[inline(always)]
            fn workspace<S: $crate::State>(&self, state: &S) -> Self::Workspace<S> {
                $crate::integrators::RkWorkspace::new(state)
            }

            #[inline(always)]
            fn advance<S: $crate::State, F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace<S>,
                state: &mut S,
                forces: &F,
                t: S::Scalar,
                dt: S::Scalar,
            ) -> Result<(), $crate::StepError> {
                Self::TABLEAU.step(workspace, state, forces, t, dt);
                Ok(())
            }

            fn properties(&self) -> $crate::integrators::Properties {
                Self::TABLEAU.properties()
            }
        }

        impl $crate::integrators::Memoryless for $method {}
    };
}
pub(crate) use explicit_rk;
