//! [`SensitivityError`]: what sensitivities refuse.

use crate::error::Number;
use crate::{AdaptiveError, StepError};
use core::fmt;

/// Why a sensitivity problem was refused, or why an adjoint gradient's solve stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum SensitivityError {
    /// A sensitivity asked with respect to a parameter the model does not have.
    ParameterOutOfRange {
        /// The index asked for.
        index: usize,
        /// How many parameters there are.
        count: usize,
    },
    /// A sensitivity asked with respect to an initial value of a coordinate the state does
    /// not have.
    InitialValueOutOfRange {
        /// The coordinate asked for.
        index: usize,
        /// How many coordinates the state has.
        dim: usize,
    },
    /// A parameter is infinite or `NaN`.
    NonFiniteParameter {
        /// Its index.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// An augmented state of a fixed number of blocks (`[V; K]`) that is not one block
    /// for the state plus one per sensitivity.
    BlockCount {
        /// The blocks needed: one plus the number of sensitivities.
        needed: usize,
        /// The blocks the type holds.
        held: usize,
    },
    /// An adjoint gradient's sample times are empty, not finite, or not ordered forward
    /// from the start (each at or after the one before, the first at or after `t0`).
    InvalidTimes,
    /// An adjoint gradient's forward solve stopped: why.
    Solve(AdaptiveError),
    /// The backward sweep of an implicit method's adjoint could not solve the stage
    /// equations of the step from `time` again to round-off (Radau5: Newton's method did
    /// not converge in 20 iterations, met a non-finite value, or its matrix was singular;
    /// a Rosenbrock method: `I − hγJ` with the model's Jacobian was singular or not
    /// finite, or the stages were not): the forward solve's tolerances were too loose for
    /// the step to be well defined.
    StagesNotSolved {
        /// When the step began.
        time: f64,
    },
    /// The model of an adjoint gradient gives a mass matrix
    /// ([`Model::mass_matrix`](super::Model::mass_matrix)): the adjoint differentiates
    /// `y' = f(t, y, p)` only, not a differential-algebraic system. Use forward
    /// sensitivities ([`Forward`](super::Forward)), which take the mass matrix.
    MassMatrix,
    /// A fixed-step adjoint gradient's step is zero, negative or not finite: give a
    /// positive finite `dt` (the run goes forward from `t0` through the sample times).
    InvalidStep {
        /// The step given.
        dt: f64,
    },
    /// A fixed-step adjoint gradient would take more steps than its limit
    /// ([`Adjoint::with_max_steps`](super::Adjoint::with_max_steps)): `dt` is far smaller
    /// than the span needs, or the limit too low for the run.
    TooManySteps {
        /// The limit.
        limit: u64,
    },
    /// A fixed step of an adjoint gradient's forward run failed (a non-finite rate, a
    /// Newton iteration that did not converge: the error says which).
    Step(StepError),
    /// A fixed step of an adjoint gradient's forward run from `time` left the state
    /// infinite or `NaN` (a rate that overflows or is `NaN`, or an explicit method past
    /// its stability limit): shorten `dt`, or check the model there.
    NonFiniteState {
        /// When the step began.
        time: f64,
    },
}

impl fmt::Display for SensitivityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SensitivityError::ParameterOutOfRange { index, count } => write!(
                f,
                "sensitivity with respect to parameter {index} asked of a model with {count} parameters"
            ),
            SensitivityError::InitialValueOutOfRange { index, dim } => write!(
                f,
                "sensitivity with respect to the initial value of coordinate {index} asked of a state of {dim} coordinates"
            ),
            SensitivityError::NonFiniteParameter { index, value } => write!(
                f,
                "parameter {index} is {}: parameters must be finite",
                Number(value)
            ),
            SensitivityError::BlockCount { needed, held } => write!(
                f,
                "an augmented state of {held} blocks for {needed} (the state and one per sensitivity)"
            ),
            SensitivityError::InvalidTimes => f.write_str(
                "sample times must be finite, not empty, and ordered forward from the start",
            ),
            SensitivityError::Solve(error) => write!(f, "the forward solve stopped: {error}"),
            SensitivityError::StagesNotSolved { time } => write!(
                f,
                "the adjoint could not solve the stage equations of the step from t = {} again",
                Number(time)
            ),
            SensitivityError::MassMatrix => f.write_str(
                "the adjoint gradient does not take a mass matrix (a differential-algebraic system): use forward sensitivities",
            ),
            SensitivityError::InvalidStep { dt } => write!(
                f,
                "the fixed step is {}: it must be positive and finite",
                Number(dt)
            ),
            SensitivityError::TooManySteps { limit } => {
                write!(f, "the fixed-step run would take more than {limit} steps")
            }
            SensitivityError::Step(error) => write!(f, "a step of the forward run failed: {error}"),
            SensitivityError::NonFiniteState { time } => write!(
                f,
                "the forward run's step from t = {} left the state infinite or NaN",
                Number(time)
            ),
        }
    }
}

impl core::error::Error for SensitivityError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            SensitivityError::Solve(error) => Some(error),
            SensitivityError::Step(error) => Some(error),
            _ => None,
        }
    }
}

impl From<AdaptiveError> for SensitivityError {
    fn from(error: AdaptiveError) -> Self {
        SensitivityError::Solve(error)
    }
}
