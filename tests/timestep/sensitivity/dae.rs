//! Forward sensitivities of a differential-algebraic system: Robertson's kinetics with the
//! conservation law `y₁ + y₂ + y₃ = 1` as its third equation (a singular mass matrix),
//! against the same sensitivities of the ordinary form. Differentiating the law, the
//! sensitivities sum to zero at every time.

use approx::assert_relative_eq;
use timestep::sensitivity::{Augmented, Forward, Model, WithRespectTo};
use timestep::{Adaptive, AdaptiveError, AdaptiveKind, Jacobian, Radau5, StepError, Tolerances};

use super::robertson::{ROBERTSON_K, Robertson};

/// Robertson's kinetics on log rate constants, with `0 = y₁ + y₂ + y₃ − 1` for the third
/// rate: `M = diag(1, 1, 0)`.
struct RobertsonDae;

impl Model<[f64; 3]> for RobertsonDae {
    fn rate(&self, y: &[f64; 3], theta: &[f64], t: f64, out: &mut [f64; 3]) {
        Robertson.rate(y, theta, t, out);
        out[2] = y[0] + y[1] + y[2] - 1.0;
    }

    fn tangent(
        &self,
        y: &[f64; 3],
        theta: &[f64],
        t: f64,
        dy: &[f64; 3],
        dtheta: &[f64],
        out: &mut [f64; 3],
    ) -> bool {
        Robertson.tangent(y, theta, t, dy, dtheta, out);
        out[2] = dy[0] + dy[1] + dy[2];
        true
    }

    fn mass_matrix(&self, mass: &mut Jacobian<'_, f64>) -> bool {
        mass[(0, 0)] = 1.0;
        mass[(1, 1)] = 1.0;
        true
    }
}

const END: f64 = 40.0;
const PARAMETERS: [WithRespectTo; 3] = [
    WithRespectTo::Parameter(0),
    WithRespectTo::Parameter(1),
    WithRespectTo::Parameter(2),
];

fn log_k() -> [f64; 3] {
    ROBERTSON_K.map(f64::ln)
}

/// The state and its three sensitivities at `END`, by `method` at `rtol` (atol 10⁻⁶ rtol).
fn solve<M: Model<[f64; 3]>>(model: M, method: AdaptiveKind, rtol: f64) -> [[f64; 3]; 4] {
    let forward = Forward::new(model, log_k(), PARAMETERS).unwrap();
    let mut y: [[f64; 3]; 4] = forward.initial([1.0, 0.0, 0.0]).unwrap();
    Adaptive::new(method)
        .with_tolerances(Tolerances::new(rtol, 1e-6 * rtol))
        .solve(&mut y, &forward, 0.0, END)
        .unwrap_or_else(|error| panic!("{method}: {error}"));
    [
        *y.state(),
        *y.sensitivity(0),
        *y.sensitivity(1),
        *y.sensitivity(2),
    ]
}

#[test]
fn dae_sensitivities_match_the_ordinary_form_and_sum_to_zero() {
    let reference = solve(Robertson, AdaptiveKind::Radau5(Radau5::new()), 1e-11);
    for name in ["radau5", "bdf", "rodas4"] {
        let method: AdaptiveKind = name.parse().unwrap();
        let dae = solve(RobertsonDae, method, 1e-9);
        for i in 1..4 {
            let scale = reference[i].iter().fold(0.0_f64, |m, s| m.max(s.abs()));
            for j in 0..3 {
                assert!(
                    (dae[i][j] - reference[i][j]).abs() <= 1e-5 * scale,
                    "{name}: ∂y{}/∂ln k{} = {:e}, the ODE form's {:e}",
                    j + 1,
                    i,
                    dae[i][j],
                    reference[i][j]
                );
            }
            // The law y₁ + y₂ + y₃ = 1, differentiated: the sensitivities sum to zero (the
            // algebraic row holds it to Newton's tolerance).
            assert!(
                dae[i].iter().sum::<f64>().abs() <= 1e-10 * scale,
                "{name}: Σ ∂y/∂ln k{i} = {:e}",
                dae[i].iter().sum::<f64>()
            );
        }
        assert_relative_eq!(dae[0].iter().sum::<f64>(), 1.0, epsilon = 1e-14);
    }
}

#[test]
fn an_initial_value_sensitivity_against_the_law_is_refused() {
    // s(0) = e₁ breaks the differentiated law s₁ + s₂ + s₃ = 0.
    let forward = Forward::new(RobertsonDae, log_k(), [WithRespectTo::InitialValue(0)]).unwrap();
    let mut y: [[f64; 3]; 2] = forward.initial([1.0, 0.0, 0.0]).unwrap();
    let error = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-6, 1e-12))
        .solve(&mut y, &forward, 0.0, END)
        .unwrap_err();
    // The sensitivity block's algebraic unknown (coordinate 3 + 2) is off by 1.
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::InconsistentStart { coordinate: 5, .. },
                ..
            }
        ),
        "{error:?}"
    );
}
