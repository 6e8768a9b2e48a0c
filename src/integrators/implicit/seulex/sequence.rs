//! The step-number sequence of SEULEX's extrapolation table, and the work each line of
//! the table costs (seulex.f's `NJ` and `A`), as data.

/// How many lines the extrapolation table may have (seulex.f's default `KM = 12`): the
/// step sizes the order controller aims at are of lines 2 to 11, a step may try one line
/// more.
pub(crate) const MAX_COLUMNS: usize = 12;

/// The number of increments the dense output keeps from a table of [`MAX_COLUMNS`] lines:
/// line `j` keeps its last `j`.
pub(super) const KEPT_INCREMENTS: usize = MAX_COLUMNS * (MAX_COLUMNS + 1) / 2;

/// The work of one force evaluation, of one Jacobian, of one LU factorisation and of one
/// forward-backward substitution, relative to each other: seulex.f's defaults `WKFCN = 1`,
/// `WKJAC = 5`, `WKDEC = 1`, `WKSOL = 1`.
const WORK_EVALUATION: f64 = 1.0;
const WORK_JACOBIAN: f64 = 5.0;
const WORK_DECOMPOSITION: f64 = 1.0;
const WORK_SOLVE: f64 = 1.0;

/// The number of linearly implicit Euler steps `nⱼ` line `j` of the extrapolation table
/// divides a step into: every line `Tⱼ₁` is the step of `H` taken as `nⱼ` steps of
/// `H/nⱼ`.
///
/// Both sequences double every other term (`nⱼ = 2 nⱼ₋₂`), so that the work grows
/// slowly with the order and the extrapolation stays stable (Hairer–Wanner II, IV.9);
/// they are seulex.f's `IWORK(4) = 1` and `IWORK(4) = 2`.
///
/// ```
/// use timestep::StepSequence;
///
/// assert_eq!(StepSequence::FromOne.numbers()[..8], [1, 2, 3, 4, 6, 8, 12, 16]);
/// assert_eq!(StepSequence::FromTwo.numbers()[..8], [2, 3, 4, 6, 8, 12, 16, 24]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum StepSequence {
    /// 1, 2, 3, 4, 6, 8, 12, 16, 24, …: the sequence of Hairer–Wanner II, IV.9
    /// (seulex.f's `IWORK(4) = 1`). The first line is a single linearly implicit Euler
    /// step, the cheapest low-order line, which the stability check cannot watch: on Van
    /// der Pol at `ε = 10⁻⁶` and tolerance 10⁻⁸ it takes 5034 steps (1510 halved on
    /// instability) where [`FromTwo`](StepSequence::FromTwo) takes 146, as seulex.f does.
    FromOne,
    /// 2, 3, 4, 6, 8, 12, 16, 24, …: seulex.f's default (`IWORK(4) = 0` or 2), and this
    /// crate's. Every line's first Euler step is checked for stability (lines 1 and 2
    /// each with a second solve).
    #[default]
    FromTwo,
}

impl StepSequence {
    /// `n₁, …, n₁₂`.
    #[must_use]
    pub const fn numbers(self) -> [u32; MAX_COLUMNS] {
        let mut numbers = [0; MAX_COLUMNS];
        let start = match self {
            StepSequence::FromOne => {
                numbers[0] = 1;
                numbers[1] = 2;
                numbers[2] = 3;
                3
            }
            StepSequence::FromTwo => {
                numbers[0] = 2;
                numbers[1] = 3;
                2
            }
        };
        let mut j = start;
        while j < MAX_COLUMNS {
            numbers[j] = 2 * numbers[j - 2];
            j += 1;
        }
        numbers
    }

    /// The work `Aⱼ` of the lines 1 to `j` of a step (seulex.f's `A`): one Jacobian, and
    /// for each line one factorisation and per linearly implicit Euler step one
    /// evaluation and one solve,
    ///
    /// ```text
    /// A₁ = w_jac + n₁ (w_f + w_sol) + w_dec        Aⱼ = Aⱼ₋₁ + (nⱼ − 1)(w_f + w_sol) + w_dec
    /// ```
    ///
    /// (as seulex.f counts: one evaluation of each line is shared by all). The order
    /// controller compares the work per unit step `Aⱼ/Hⱼ` of the lines.
    ///
    /// ```
    /// use timestep::StepSequence;
    ///
    /// let work = StepSequence::FromOne.work();
    /// assert_eq!(work[..4], [8.0, 11.0, 16.0, 23.0]);
    /// let work = StepSequence::FromTwo.work();
    /// assert_eq!(work[..4], [10.0, 15.0, 22.0, 33.0]);
    /// ```
    #[must_use]
    pub const fn work(self) -> [f64; MAX_COLUMNS] {
        let numbers = self.numbers();
        let row = WORK_EVALUATION + WORK_SOLVE;
        let mut work = [0.0; MAX_COLUMNS];
        work[0] = WORK_JACOBIAN + numbers[0] as f64 * row + WORK_DECOMPOSITION;
        let mut j = 1;
        while j < MAX_COLUMNS {
            work[j] = work[j - 1] + (numbers[j] - 1) as f64 * row + WORK_DECOMPOSITION;
            j += 1;
        }
        work
    }
}

/// The step numbers and works of a sequence, computed once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table {
    /// `nⱼ` (index `j − 1`).
    pub numbers: [u32; MAX_COLUMNS],
    /// `Aⱼ` (index `j − 1`).
    pub work: [f64; MAX_COLUMNS],
}

impl Table {
    pub(super) const fn new(sequence: StepSequence) -> Self {
        Table {
            numbers: sequence.numbers(),
            work: sequence.work(),
        }
    }

    /// `nⱼ` of line `j` (from 1).
    pub(crate) fn n(&self, j: usize) -> f64 {
        f64::from(self.numbers[j - 1])
    }
}

/// The index of the first of the increments line `j` (from 1) keeps for the dense output:
/// lines `1, …, j − 1` keep `j(j − 1)/2` before it.
pub(super) const fn first_kept(j: usize) -> usize {
    j * (j - 1) / 2
}
