//! [`Composition`]: high-order symplectic methods as coefficient tables over one symmetric
//! second-order step, run by one kick/drift loop.

// The tables keep the digits their papers print, beyond what an f64 holds, so that they can
// be checked against the papers digit for digit; the compiler rounds them.
#![allow(clippy::excessive_precision)]

use super::{Leapfrog, Verlet};
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, Scalar, State, StepError};

/// The coefficients of a composition method: a name, an order, and the sequence of kicks
/// and drifts, as data.
///
/// Every table here is cited beside its digits, and `tests/timestep/integrators/partitioned/composition.rs` proves each:
/// its order conditions hold to the rounding of the printed digits and its measured order
/// of convergence matches [`order`](Coefficients::order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// The method's kebab-case name.
    pub name: &'static str,
    /// Its order.
    pub order: u32,
    /// The kicks and drifts.
    pub sequence: Sequence,
}

/// How a [`Coefficients`] table gives its kicks and drifts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sequence {
    /// `γ₁ … γₛ` of a composition of the base step: the base step of `γ₁ dt`, then of
    /// `γ₂ dt`, … For a symmetric (time-reversible) base of order 2, the composition has
    /// order 4 when `Σγ = 1`, `Σγ³ = 0` and the γ are symmetric (`γᵢ = γₛ₊₁₋ᵢ`); higher
    /// orders need further conditions (Hairer–Lubich–Wanner, *Geometric Numerical
    /// Integration*, 2nd ed. (2006), II.4 and V.3).
    Composition(&'static [f64]),
    /// An explicit sequence starting and ending with a drift:
    /// `D(a₁ dt) K(b₁ dt) D(a₂ dt) … K(bₛ dt) D(aₛ₊₁ dt)`, for splitting (partitioned
    /// Runge–Kutta) methods that are not compositions of one base step. The drifts must be
    /// exact flows (as a [`Verlet`] or [`Leapfrog`] base's are), whatever the base.
    DriftKick {
        /// `a₁ … aₛ₊₁`.
        drifts: &'static [f64],
        /// `b₁ … bₛ`.
        kicks: &'static [f64],
    },
}

// 2^(1/3) = 1.2599…; γ₁ = 1/(2 − 2^(1/3)), γ₂ = −2^(1/3)/(2 − 2^(1/3)).
const FOREST_RUTH: [f64; 3] = [
    1.351_207_191_959_657_6,
    -1.702_414_383_919_315_3,
    1.351_207_191_959_657_6,
];

// p = 1/(4 − 4^(1/3)); (p, p, 1 − 4p, p, p).
const SUZUKI4: [f64; 5] = [
    0.414_490_771_794_375_74,
    0.414_490_771_794_375_74,
    -0.657_963_087_177_502_95,
    0.414_490_771_794_375_74,
    0.414_490_771_794_375_74,
];

// Yoshida's solution A (his Table 1: w₁, w₂, w₃ to 15 digits; here the 26-digit values
// that agree with them, on which Σγ³ and Σγ⁵ vanish to 10⁻²⁵), w₀ = 1 − 2(w₁ + w₂ + w₃).
const YOSHIDA6_W: [f64; 4] = [
    0.784_513_610_477_557_263_819_497_63,  // w₃
    0.235_573_213_359_358_133_684_793_18,  // w₂
    -1.177_679_984_178_871_006_946_415_68, // w₁
    1.315_186_320_683_911_218_884_249_74,  // w₀
];
const YOSHIDA6: [f64; 7] = [
    YOSHIDA6_W[0],
    YOSHIDA6_W[1],
    YOSHIDA6_W[2],
    YOSHIDA6_W[3],
    YOSHIDA6_W[2],
    YOSHIDA6_W[1],
    YOSHIDA6_W[0],
];

// Yoshida's solution D (his Table 2, w₁ … w₇ as printed, 15 digits),
// w₀ = 1 − 2(w₁ + … + w₇) = 1.708453070786998.
const YOSHIDA8_W: [f64; 8] = [
    0.914_844_246_229_740,  // w₇
    0.253_693_336_566_229,  // w₆
    -1.444_852_236_860_48,  // w₅
    -0.158_240_635_368_243, // w₄
    1.938_139_137_622_76,   // w₃
    -1.960_610_232_975_49,  // w₂
    0.102_799_849_391_985,  // w₁
    1.708_453_070_786_998,  // w₀
];
const YOSHIDA8: [f64; 15] = [
    YOSHIDA8_W[0],
    YOSHIDA8_W[1],
    YOSHIDA8_W[2],
    YOSHIDA8_W[3],
    YOSHIDA8_W[4],
    YOSHIDA8_W[5],
    YOSHIDA8_W[6],
    YOSHIDA8_W[7],
    YOSHIDA8_W[6],
    YOSHIDA8_W[5],
    YOSHIDA8_W[4],
    YOSHIDA8_W[3],
    YOSHIDA8_W[2],
    YOSHIDA8_W[1],
    YOSHIDA8_W[0],
];

// Kahan and Li's s15odr8 (their 26-digit values, γ₁ … γ₈; γ₉ … γ₁₅ mirror γ₇ … γ₁).
const KAHAN_LI8_HALF: [f64; 8] = [
    0.741_670_364_350_612_953_448_227_80,
    -0.409_100_825_800_031_593_997_300_10,
    0.190_754_710_296_238_379_953_876_26,
    -0.573_862_471_116_082_266_656_387_73,
    0.299_064_181_303_655_923_844_463_54,
    0.334_624_918_245_298_183_784_957_98,
    0.315_293_092_396_766_596_632_056_66,
    -0.796_887_939_352_916_354_019_788_84,
];
const KAHAN_LI8: [f64; 15] = [
    KAHAN_LI8_HALF[0],
    KAHAN_LI8_HALF[1],
    KAHAN_LI8_HALF[2],
    KAHAN_LI8_HALF[3],
    KAHAN_LI8_HALF[4],
    KAHAN_LI8_HALF[5],
    KAHAN_LI8_HALF[6],
    KAHAN_LI8_HALF[7],
    KAHAN_LI8_HALF[6],
    KAHAN_LI8_HALF[5],
    KAHAN_LI8_HALF[4],
    KAHAN_LI8_HALF[3],
    KAHAN_LI8_HALF[2],
    KAHAN_LI8_HALF[1],
    KAHAN_LI8_HALF[0],
];

// Blanes and Moan's 6-stage 4th-order partitioned Runge–Kutta method (their Table 2, S₆,
// to the 15 digits printed): a₁, a₂, a₃, a₄ = 1 − 2(a₁ + a₂ + a₃), then mirrored;
// b₁, b₂, b₃ = ½ − (b₁ + b₂), then mirrored.
const BM_A: [f64; 3] = [
    0.079_203_696_431_195_7,
    0.353_172_906_049_774,
    -0.042_065_080_357_719_5,
];
const BM_A4: f64 = 1.0 - 2.0 * (BM_A[0] + BM_A[1] + BM_A[2]);
const BM_B: [f64; 2] = [0.209_515_106_613_362, -0.143_851_773_179_818];
const BM_B3: f64 = 0.5 - (BM_B[0] + BM_B[1]);
const BLANES_MOAN4_DRIFTS: [f64; 7] = [BM_A[0], BM_A[1], BM_A[2], BM_A4, BM_A[2], BM_A[1], BM_A[0]];
const BLANES_MOAN4_KICKS: [f64; 6] = [BM_B[0], BM_B[1], BM_B3, BM_B3, BM_B[1], BM_B[0]];

impl Coefficients {
    /// Forest–Ruth, the same as Yoshida's 4th order: three steps, `γ₁ = γ₃ =
    /// 1/(2 − 2^(1/3))`, `γ₂ = −2^(1/3)/(2 − 2^(1/3))`.
    ///
    /// E. Forest, R. D. Ruth, "Fourth-order symplectic integration", Physica D 43 (1990)
    /// 105–117; H. Yoshida, "Construction of higher order symplectic integrators",
    /// Phys. Lett. A 150 (1990) 262–268, eq. (4.14).
    pub const FOREST_RUTH: Coefficients = Coefficients {
        name: "forest-ruth",
        order: 4,
        sequence: Sequence::Composition(&FOREST_RUTH),
    };

    /// Suzuki's five-stage 4th order: `(p, p, 1 − 4p, p, p)` with `p = 1/(4 − 4^(1/3))`.
    /// Two more steps than Forest–Ruth, but none as long (the largest `|γ|` is 0.66, not
    /// 1.70), so its error constant is far smaller.
    ///
    /// M. Suzuki, "Fractal decomposition of exponential operators with applications to
    /// many-body theories and Monte Carlo simulations", Phys. Lett. A 146 (1990) 319–323.
    pub const SUZUKI4: Coefficients = Coefficients {
        name: "suzuki4",
        order: 4,
        sequence: Sequence::Composition(&SUZUKI4),
    };

    /// Yoshida's 6th order, **solution A** of his Table 1: seven steps,
    /// `(w₃, w₂, w₁, w₀, w₁, w₂, w₃)`.
    ///
    /// H. Yoshida, "Construction of higher order symplectic integrators", Phys. Lett. A
    /// 150 (1990) 262–268, Table 1.
    pub const YOSHIDA6: Coefficients = Coefficients {
        name: "yoshida6",
        order: 6,
        sequence: Sequence::Composition(&YOSHIDA6),
    };

    /// Yoshida's 8th order, **solution D** of his Table 2 (the one with the smallest error
    /// of his five): fifteen steps, `(w₇, …, w₁, w₀, w₁, …, w₇)`.
    ///
    /// H. Yoshida, "Construction of higher order symplectic integrators", Phys. Lett. A
    /// 150 (1990) 262–268, Table 2.
    pub const YOSHIDA8: Coefficients = Coefficients {
        name: "yoshida8",
        order: 8,
        sequence: Sequence::Composition(&YOSHIDA8),
    };

    /// Kahan and Li's 8th order in fifteen steps (`s15odr8`), whose steps are all shorter
    /// than one (Yoshida's 8th order has steps of ±1.96), hence a much smaller error.
    ///
    /// W. Kahan, R.-C. Li, "Composition constants for raising the orders of unconventional
    /// schemes for ordinary differential equations", Math. Comp. 66 (1997) 1089–1099,
    /// table of `s15odr8`.
    pub const KAHAN_LI8: Coefficients = Coefficients {
        name: "kahan-li8",
        order: 8,
        sequence: Sequence::Composition(&KAHAN_LI8),
    };

    /// Blanes and Moan's optimised 4th order: **not a composition** of one base step but a
    /// symmetric splitting (partitioned Runge–Kutta) method of six kicks between seven
    /// drifts, `D(a₁) K(b₁) D(a₂) K(b₂) D(a₃) K(b₃) D(a₄) K(b₃) D(a₃) K(b₂) D(a₂) K(b₁)
    /// D(a₁)`, whose coefficients make the 5th-order error terms small.
    ///
    /// S. Blanes, P. C. Moan, "Practical symplectic partitioned Runge–Kutta and
    /// Runge–Kutta–Nyström methods", J. Comput. Appl. Math. 142 (2002) 313–330, Table 2
    /// (the PRK method S₆ of order 4).
    pub const BLANES_MOAN4: Coefficients = Coefficients {
        name: "blanes-moan4",
        order: 4,
        sequence: Sequence::DriftKick {
            drifts: &BLANES_MOAN4_DRIFTS,
            kicks: &BLANES_MOAN4_KICKS,
        },
    };

    /// Every table, in the order of [`MethodKind::NAMES`](crate::MethodKind::NAMES).
    pub const ALL: [&'static Coefficients; 6] = [
        &Self::FOREST_RUTH,
        &Self::SUZUKI4,
        &Self::YOSHIDA6,
        &Self::YOSHIDA8,
        &Self::BLANES_MOAN4,
        &Self::KAHAN_LI8,
    ];
}

/// A time-symmetric second-order step that compositions are made of: [`Verlet`]
/// (kick–drift–kick), [`Leapfrog`] (drift–kick–drift), and
/// [`rigid::Splitting`](crate::rigid::Splitting) (kick–free flight–kick).
///
/// Sealed: the loop merges the half kicks (or half drifts) of consecutive steps, which it
/// can do for these three.
pub trait SymmetricStep: sealed::Sealed + Copy + core::fmt::Debug + PartialEq {
    /// Whether the step starts with a half kick (kick–drift–kick) rather than a half drift.
    const KICK_FIRST: bool;
}

/// The steps whose half kicks (or drifts) the loop may merge; `rigid::Splitting` is
/// sealed where it is defined.
pub(crate) mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Verlet {}
    impl Sealed for super::Leapfrog {}
}

impl SymmetricStep for Verlet {
    const KICK_FIRST: bool = true;
}

impl SymmetricStep for Leapfrog {
    const KICK_FIRST: bool = false;
}

/// A composition method: a symmetric second-order base step `Φ` applied with the steps
/// `γ₁ dt, γ₂ dt, …, γₛ dt` of a [`Coefficients`] table in turn,
///
/// ```text
/// Ψ(dt) = Φ(γₛ dt) ∘ … ∘ Φ(γ₂ dt) ∘ Φ(γ₁ dt)
/// ```
///
/// or, for a table given as kicks and drifts (Blanes–Moan), that sequence. One type and
/// one loop for all of them: the tables are data.
///
/// The half kicks that end one base step and start the next are merged into one kick,
/// `K(γᵢ dt/2) K(γᵢ₊₁ dt/2) = K((γᵢ + γᵢ₊₁) dt/2)`, so a composition of `s` velocity
/// Verlet steps costs `s + 1` force evaluations, not `2s` (of `s` leapfrog steps, `s`).
///
/// - **Order**: the table's (4, 6 or 8), for forces that depend on positions and time.
///   The orders rest on the base step being symmetric, which velocity Verlet is only when
///   the forces do not depend on velocities; with drag the kicks see a velocity predicted
///   as [`Verlet`]'s are and the method is of order 2, and a drift-first sequence (a
///   [`Leapfrog`] base, Blanes–Moan), whose kicks see the velocity of their start, of
///   order 1 (measured in `tests/timestep/integrators/convergence.rs`). On a first-order system `y' = f(t, y)`
///   (no positions to drift) the Verlet base is improved Euler, not symmetric, and the
///   compositions are of order 2 (`tests/timestep/integrators/first_order.rs`). Measured on Kepler's problem
///   (`tests/timestep/integrators/partitioned/composition.rs`): 4.00, 4.00, 5.99, 7.94, 4.00, 8.08.
/// - **Symplectic** and time-reversible: energy stays within a bound for exponentially
///   long times on conservative systems, and the error in position grows only linearly.
/// - **Stability**: an undamped oscillator is stable for `ω dt` up to 1.57 (Forest–Ruth),
///   2.72 (Suzuki), 2.82 (Yoshida 6), 2.36 (Yoshida 8), 8.03 (Blanes–Moan) and 3.39
///   (Kahan–Li 8), measured by `examples/stability.rs`: per force evaluation 0.39, 0.45,
///   0.35, 0.15, 1.34 and 0.21, against velocity Verlet's 2 per step.
/// - **Cost**: `s + 1` force evaluations (a Verlet base), `s` (a leapfrog base or a
///   kick/drift table): 4 (Forest–Ruth), 6 (Suzuki, Blanes–Moan), 8 (Yoshida 6), 16
///   (Yoshida 8, Kahan–Li 8).
///
/// # When a higher order pays
///
/// Per unit of time, a method of order `p` with `e` evaluations per step reaches an error
/// `ε` with about `e · ε^(−1/p)` evaluations: the higher the accuracy wanted, the higher the
/// order that pays. Kahan–Li 8 needs 16 evaluations per step but, on Hénon–Heiles at
/// `dt = 0.01`, keeps the energy error at rounding level (see `examples/henon_heiles.rs`).
///
/// # Example
///
/// ```
/// use timestep::{Composition, Integrator, Particle, State};
///
/// // A pendulum, 100 periods, Kahan–Li 8 at 20 steps per period.
/// let pendulum = |p: &Particle<f64>, _t: f64| -p.position().sin();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) - p.position().cos();
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// let e0 = energy(&particle);
/// let dt = 0.35;
/// let mut kahan_li8 = Composition::KAHAN_LI8;
/// for i in 0..2000 {
///     kahan_li8.step(&mut particle, &pendulum, i as f64 * dt, dt)?;
/// }
/// assert!((energy(&particle) - e0).abs() < 1e-8);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Composition<B = Verlet> {
    base: B,
    coefficients: &'static Coefficients,
}

impl<B: SymmetricStep> Composition<B> {
    /// The composition of `base` with the steps of `coefficients`.
    #[must_use]
    pub const fn new(base: B, coefficients: &'static Coefficients) -> Self {
        Composition { base, coefficients }
    }

    /// The base step.
    #[must_use]
    pub const fn base(&self) -> B {
        self.base
    }

    /// The coefficient table.
    #[must_use]
    pub const fn coefficients(&self) -> &'static Coefficients {
        self.coefficients
    }

    /// Force evaluations per step.
    #[must_use]
    pub const fn evaluations(&self) -> u32 {
        match self.coefficients.sequence {
            Sequence::Composition(gamma) if B::KICK_FIRST => gamma.len() as u32 + 1,
            Sequence::Composition(gamma) => gamma.len() as u32,
            Sequence::DriftKick { kicks, .. } => kicks.len() as u32,
        }
    }

    /// One step: the kicks and drifts of the table, `drift` moving the positions.
    #[inline(always)]
    pub(crate) fn run<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut CompositionWorkspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
        drift: impl FnMut(&mut S, &mut S::Velocity, S::Scalar),
    ) {
        self.run_on(workspace, &mut Itself { state, drift }, forces, t, dt);
    }

    /// One step of the table's kicks and drifts on `moved`.
    #[inline(always)]
    pub(crate) fn run_on<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut CompositionWorkspace<S>,
        moved: &mut impl Moved<S>,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) {
        match self.coefficients.sequence {
            Sequence::Composition(gamma) if B::KICK_FIRST => {
                let s = gamma.len();
                let kick = |i: usize| match i {
                    0 => 0.5 * gamma[0],
                    _ if i == s => 0.5 * gamma[s - 1],
                    _ => 0.5 * (gamma[i - 1] + gamma[i]),
                };
                kick_first(workspace, moved, forces, t, dt, s, kick, |i| gamma[i]);
            }
            Sequence::Composition(gamma) => {
                let s = gamma.len();
                let drift_of = |i: usize| match i {
                    0 => 0.5 * gamma[0],
                    _ if i == s => 0.5 * gamma[s - 1],
                    _ => 0.5 * (gamma[i - 1] + gamma[i]),
                };
                drift_first(workspace, moved, forces, t, dt, s, drift_of, |i| gamma[i]);
            }
            Sequence::DriftKick { drifts, kicks } => {
                let s = kicks.len();
                drift_first(
                    workspace,
                    moved,
                    forces,
                    t,
                    dt,
                    s,
                    |i| drifts[i],
                    |i| kicks[i],
                );
            }
        }
    }
}

/// What the kicks and drifts of a composition move, and where its forces are seen: the
/// state itself, or (compensated) a probe that the step's increment is gathered beside.
pub(crate) trait Moved<S: State> {
    /// Where forces are seen.
    fn at(&self) -> &S;
    /// Momenta along `force · dt`.
    fn kick(&mut self, force: &S::Force, dt: S::Scalar);
    /// Positions along the velocity (written into `velocity`) for `dt`.
    fn drift(&mut self, velocity: &mut S::Velocity, dt: S::Scalar);
}

/// The state itself, with the drift its base step gives it.
struct Itself<'a, S, D> {
    state: &'a mut S,
    drift: D,
}

impl<S: State, D: FnMut(&mut S, &mut S::Velocity, S::Scalar)> Moved<S> for Itself<'_, S, D> {
    #[inline(always)]
    fn at(&self) -> &S {
        self.state
    }

    #[inline(always)]
    fn kick(&mut self, force: &S::Force, dt: S::Scalar) {
        self.state.kick_by(force, dt);
    }

    #[inline(always)]
    fn drift(&mut self, velocity: &mut S::Velocity, dt: S::Scalar) {
        (self.drift)(self.state, velocity, dt);
    }
}

impl Composition<Verlet> {
    /// [`Coefficients::FOREST_RUTH`] over velocity Verlet: `forest-ruth` (also parsed as
    /// `yoshida4`).
    pub const FOREST_RUTH: Self = Composition::new(Verlet, &Coefficients::FOREST_RUTH);
    /// [`Coefficients::SUZUKI4`] over velocity Verlet: `suzuki4`.
    pub const SUZUKI4: Self = Composition::new(Verlet, &Coefficients::SUZUKI4);
    /// [`Coefficients::YOSHIDA6`] over velocity Verlet: `yoshida6`.
    pub const YOSHIDA6: Self = Composition::new(Verlet, &Coefficients::YOSHIDA6);
    /// [`Coefficients::YOSHIDA8`] over velocity Verlet: `yoshida8`.
    pub const YOSHIDA8: Self = Composition::new(Verlet, &Coefficients::YOSHIDA8);
    /// [`Coefficients::BLANES_MOAN4`]'s kicks and drifts: `blanes-moan4`.
    pub const BLANES_MOAN4: Self = Composition::new(Verlet, &Coefficients::BLANES_MOAN4);
    /// [`Coefficients::KAHAN_LI8`] over velocity Verlet: `kahan-li8`.
    pub const KAHAN_LI8: Self = Composition::new(Verlet, &Coefficients::KAHAN_LI8);
}

/// `K(b₀) D(a₀) K(b₁) D(a₁) … D(aₛ₋₁) K(bₛ)`: one force evaluation per kick, the first at
/// `t`, each later one after a drift, at the drifts' time, seen with the velocity predicted
/// by the last force over half the drift (as [`Verlet`] does).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn kick_first<S: State, F: Forces<S> + ?Sized>(
    workspace: &mut CompositionWorkspace<S>,
    moved: &mut impl Moved<S>,
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
    stages: usize,
    kick: impl Fn(usize) -> f64,
    drift_of: impl Fn(usize) -> f64,
) {
    let CompositionWorkspace {
        force,
        velocity,
        predicted,
    } = workspace;
    let predicted = predicted
        .as_mut()
        .expect("a kick-first workspace holds a predicted state");
    let mut elapsed = 0.0;
    crate::state::force_into(forces, moved.at(), t, force);
    for i in 0..stages {
        moved.kick(force, dt * S::Scalar::from_f64(kick(i)));
        let a = drift_of(i);
        moved.drift(velocity, dt * S::Scalar::from_f64(a));
        elapsed += a;
        predicted.clone_from(moved.at());
        predicted.kick_by(force, dt * S::Scalar::from_f64(0.5 * a));
        crate::state::force_into(
            forces,
            predicted,
            t + dt * S::Scalar::from_f64(elapsed),
            force,
        );
    }
    moved.kick(force, dt * S::Scalar::from_f64(kick(stages)));
}

/// `D(a₀) K(b₀) D(a₁) … K(bₛ₋₁) D(aₛ)`: one force evaluation per kick, at the drifts'
/// time.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn drift_first<S: State, F: Forces<S> + ?Sized>(
    workspace: &mut CompositionWorkspace<S>,
    moved: &mut impl Moved<S>,
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
    stages: usize,
    drift_of: impl Fn(usize) -> f64,
    kick: impl Fn(usize) -> f64,
) {
    let CompositionWorkspace {
        force, velocity, ..
    } = workspace;
    let mut elapsed = 0.0;
    for i in 0..stages {
        let a = drift_of(i);
        moved.drift(velocity, dt * S::Scalar::from_f64(a));
        elapsed += a;
        crate::state::force_into(
            forces,
            moved.at(),
            t + dt * S::Scalar::from_f64(elapsed),
            force,
        );
        moved.kick(force, dt * S::Scalar::from_f64(kick(i)));
    }
    moved.drift(velocity, dt * S::Scalar::from_f64(drift_of(stages)));
}

/// Moves the positions along the state's current velocity: the drift of a particle, of
/// `Particles`, of any state whose positions' rate depends on its momenta alone.
#[inline(always)]
pub(crate) fn drift_along_velocity<S: State>(
    state: &mut S,
    velocity: &mut S::Velocity,
    dt: S::Scalar,
) {
    state.velocity_into(velocity);
    state.drift_by(velocity, dt);
}

/// The buffers of a composition step: one force, one velocity, and (for a kick–drift–kick
/// base) the state at which a kick's force is seen.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct CompositionWorkspace<S: State> {
    force: S::Force,
    velocity: S::Velocity,
    predicted: Option<S>,
}

impl<S: State> CompositionWorkspace<S> {
    #[inline(always)]
    pub(crate) fn new(state: &S, kick_first: bool) -> Self {
        let rate = state.zero_rate();
        CompositionWorkspace {
            force: rate.force,
            velocity: rate.velocity,
            predicted: kick_first.then(|| state.clone()),
        }
    }
}

impl<B: SymmetricStep> Scheme for Composition<B>
where
    B: PlainDrift,
{
    type Workspace<S: State> = CompositionWorkspace<S>;

    #[inline(always)]
    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let kick_first =
            matches!(self.coefficients.sequence, Sequence::Composition(_)) && B::KICK_FIRST;
        CompositionWorkspace::new(state, kick_first)
    }

    #[inline(always)]
    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        self.run(workspace, state, forces, t, dt, drift_along_velocity);
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit(
            self.coefficients.name,
            self.coefficients.order,
            self.evaluations(),
        )
        .symplectic()
    }
}

impl<B: SymmetricStep + PlainDrift> Memoryless for Composition<B> {}

/// The bases whose drift moves positions along the state's velocity: every [`State`]
/// steps with them. (A rigid body's free flight is its own; see
/// [`rigid::Splitting`](crate::rigid::Splitting).)
pub trait PlainDrift: SymmetricStep {}
impl PlainDrift for Verlet {}
impl PlainDrift for Leapfrog {}
