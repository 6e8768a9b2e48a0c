//! Differential-algebraic systems of index 2 and 3 on the pendulum of
//! `examples/problems/pendulum.rs` (`y = (x, y, vx, vy, λ)`, length 1, g = 9.81, from the
//! horizontal at rest): backward Euler's path (`BackwardEuler::with_higher_index`) and the
//! check of the start that Radau5, the BDF and backward Euler make at index 2 and 3.
//!
//! - Backward Euler is BDF1, which at a constant step converges at order 1 on Hessenberg
//!   systems of index 2 and 3 (Brenan, Campbell and Petzold 1996, ch. 3; Hairer, Lubich
//!   and Roche 1989, LNM 1409): the position's error at t = 1, against Radau5 at rtol
//!   10⁻¹², halves with the step. It is stiffly accurate, so at index 3 every step ends on
//!   the position constraint, to the Newton tolerance. It damps: the energy `½ v² + g y`
//!   (0 at the start) only falls, and by an amount of order 1 in the step.
//! - Untold, the index-2 and index-3 forms are refused at the start
//!   (`StepError::IndexAboveOne`).
//! - At index 2 and 3 the algebraic equation does not contain the unknown it determines,
//!   so there is no Newton step on it to measure a start by: its residual is measured
//!   against the least change of the unknowns that could cancel it, in tolerances. The
//!   pendulum released at `x² + y² = 1.01` is refused at index 3 by Radau5 and backward
//!   Euler, naming the algebraic equation (4); at index 2 the same start at rest satisfies
//!   the velocity constraint (it is a pendulum of length √1.01), so there the start with a
//!   velocity off the tangent, `vx = 0.1`, is refused, by the BDF too. The stretched start
//!   is refused by all three at index 2 in Gear–Gupta–Leimkuhler's stabilised form, whose
//!   algebraic equations are both constraints.

use super::pendulum_dae::pendulum::{self, Index, Pendulum};
use timestep::adaptive::Adaptive;
use timestep::control::IntoAdaptive;
use timestep::{
    AdaptiveError, BackwardEuler, Bdf, Integrator, Jacobian, Radau5, StepError, Stepper,
    Tolerances, WithMass,
};

/// Backward Euler told which unknowns are of index 2 and 3, as Radau5 is
/// (`pendulum::radau5`).
fn backward_euler(index: Index) -> BackwardEuler {
    let (index2, index3) = pendulum::radau5(index).higher_index();
    BackwardEuler::new().with_higher_index(index2, index3)
}

/// Radau5 at rtol = atol = 10⁻¹² to t = 1 from the start: the reference.
fn reference(index: Index) -> [f64; 5] {
    let mut state = pendulum::START;
    Adaptive::new(pendulum::radau5(index))
        .with_tolerances(Tolerances::new(1e-12, 1e-12))
        .solve(&mut state, &Pendulum(index), 0.0, 1.0)
        .unwrap();
    state
}

/// What a backward Euler run to t = 1 at `steps` steps measured.
struct Run {
    end: [f64; 5],
    /// The largest `|x² + y² − 1|` at the steps' ends.
    drift: f64,
    /// The largest energy at the steps' ends (0 at the start).
    highest_energy: f64,
}

fn run(index: Index, steps: usize) -> Run {
    let forces = Pendulum(index);
    let mut stepper = Stepper::new(backward_euler(index));
    let mut state = pendulum::START;
    let dt = 1.0 / steps as f64;
    let (mut drift, mut highest_energy) = (0.0_f64, f64::NEG_INFINITY);
    for i in 0..steps {
        stepper
            .step(&mut state, &forces, i as f64 * dt, dt)
            .unwrap();
        drift = drift.max(pendulum::constraint_error(&state).abs());
        highest_energy = highest_energy.max(pendulum::energy(&state));
    }
    Run {
        end: state,
        drift,
        highest_energy,
    }
}

/// The position's distance from the reference's.
fn position_error(end: &[f64; 5], reference: &[f64; 5]) -> f64 {
    (end[0] - reference[0]).hypot(end[1] - reference[1])
}

/// Order 1 in the position at both indices, from three step sizes; the energy never rises
/// and its loss at t = 1 halves with the step.
fn assert_order_one(index: Index) -> Vec<Run> {
    let exact = reference(index);
    let runs: Vec<Run> = [400, 800, 1600].iter().map(|&n| run(index, n)).collect();
    let errors: Vec<f64> = runs
        .iter()
        .map(|r| position_error(&r.end, &exact))
        .collect();
    for (run, error) in runs.iter().zip(&errors) {
        println!(
            "index {}: error {error:.3e}, drift {:.2e}, energy at t = 1 {:.4e}",
            index.number(),
            run.drift,
            pendulum::energy(&run.end)
        );
    }
    for pair in errors.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        println!("index {}: order {order:.3}", index.number());
        assert!(
            (order - 1.0).abs() < 0.1,
            "index {}: order {order}",
            index.number()
        );
    }
    for run in &runs {
        assert!(run.highest_energy <= 1e-9, "{:e}", run.highest_energy);
    }
    let losses: Vec<f64> = runs.iter().map(|r| -pendulum::energy(&r.end)).collect();
    for pair in losses.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        assert!((order - 1.0).abs() < 0.15, "energy loss order {order}");
    }
    runs
}

#[test]
fn backward_euler_converges_at_order_one_at_index_three_on_its_constraint() {
    let runs = assert_order_one(Index::Three);
    // The constraint is the algebraic equation: solved at every step's end to the
    // Newton tolerance, ε^(2/3) = 3.7·10⁻¹¹ (measured 5.9·10⁻¹², 2.2·10⁻¹², 1.2·10⁻¹²).
    let tolerance = f64::EPSILON.powf(2.0 / 3.0);
    for run in &runs {
        assert!(run.drift < tolerance, "{:e}", run.drift);
    }
}

/// The multiplier's Newton corrections, and the rounding in them, are `1/dt²` times the
/// positions' at index 3: with its tolerance not divided by `dt²` the iteration could not
/// resolve it at small steps (measured: at `dt = 10⁻⁴` and `10⁻⁵` the first steps
/// diverged, `θ` at 1.00004 after 13 iterations; at `dt = 1/1600` the run to t = 1 failed).
#[test]
fn backward_euler_resolves_the_multiplier_at_small_steps() {
    for dt in [1e-4, 1e-5, 1e-6] {
        let forces = Pendulum(Index::Three);
        let mut stepper = Stepper::new(backward_euler(Index::Three));
        let mut state = pendulum::START;
        for i in 0..20 {
            stepper
                .step(&mut state, &forces, i as f64 * dt, dt)
                .unwrap();
            assert!(
                pendulum::constraint_error(&state).abs() < 1e-14,
                "dt {dt:e}"
            );
        }
        // Free fall from rest, and the rod's tension λ = −3 g y ≈ 0 so far.
        let t = 20.0 * dt;
        assert!((state[1] + 0.5 * pendulum::G * t * t).abs() < 1.5 * pendulum::G * t * dt);
    }
}

#[test]
fn backward_euler_converges_at_order_one_at_index_two() {
    let runs = assert_order_one(Index::Two);
    // The position constraint only follows from the start, and drifts at order 1.
    let order = (runs[0].drift / runs[1].drift).log2();
    assert!((order - 1.0).abs() < 0.15, "drift order {order}");
}

#[test]
fn backward_euler_untold_refuses_index_two_and_three() {
    for index in [Index::Two, Index::Three] {
        let mut state = pendulum::START;
        let error = Stepper::new(BackwardEuler::new())
            .step(&mut state, &Pendulum(index), 0.0, 1e-3)
            .unwrap_err();
        assert_eq!(error, StepError::IndexAboveOne);
        assert_eq!(state, pendulum::START);
    }
}

/// Released at `x² + y² = 1.01`, at rest.
const STRETCHED: [f64; 5] = [1.004_987_562_112_089, 0.0, 0.0, 0.0, 0.0];

/// On the horizontal, pushed off the tangent: `x vx + y vy = 0.1`.
const PUSHED: [f64; 5] = [1.0, 0.0, 0.1, 0.0, 0.0];

/// The coordinate an adaptive run's refusal of its start names, and by how many
/// tolerances.
fn refused_by<M: IntoAdaptive>(method: M, index: Index, start: [f64; 5]) -> (usize, f64)
where
    M::Method: timestep::control::AdaptiveMethod<[f64; 5]>,
{
    let mut state = start;
    let error = Adaptive::new(method)
        .with_tolerances(Tolerances::new(1e-6, 1e-6))
        .solve(&mut state, &Pendulum(index), 0.0, 0.1)
        .unwrap_err();
    assert_eq!(state, start, "a refused run leaves the state alone");
    super::dae::inconsistent_start(error, "refused_by")
}

/// The coordinate backward Euler's refusal of its start names.
fn refused_by_backward_euler(index: Index, start: [f64; 5]) -> (usize, f64) {
    let mut state = start;
    let error = Stepper::new(backward_euler(index))
        .step(&mut state, &Pendulum(index), 0.0, 1e-3)
        .unwrap_err();
    assert_eq!(state, start, "a refused step leaves the state alone");
    match error {
        StepError::InconsistentStart {
            coordinate,
            correction,
        } => (coordinate, correction),
        other => panic!("{other:?}"),
    }
}

/// Each refusal names equation 4 and says by how much it is off: the residual over the
/// unknowns' tolerances weighted by the equation's derivatives, `|c| / Σⱼ |∂c/∂yⱼ| sⱼ`
/// (`sⱼ = atol + rtol |yⱼ|` under error control, `√ε (1 + |yⱼ|)` at a fixed step). At
/// index 3, `c = x² + y² − 1 = 0.01` and only `∂c/∂x = 2x` is not zero; at index 2,
/// `c = x vx + y vy = 0.1` with `∂c/∂x = vx`, `∂c/∂vx = x`.
#[test]
fn a_start_off_the_constraint_is_refused_at_index_two_and_three() {
    assert!((pendulum::constraint_error(&STRETCHED) - 0.01).abs() < 1e-15);
    let adaptive = |y: f64| 1e-6 + 1e-6 * y.abs();
    let fixed = |y: f64| f64::EPSILON.sqrt() * (1.0 + y.abs());
    let x = STRETCHED[0];
    let stretched = |s: &dyn Fn(f64) -> f64| 0.01 / (2.0 * x * s(x));
    let pushed = |s: &dyn Fn(f64) -> f64| 0.1 / (0.1 * s(1.0) + 1.0 * s(0.1));
    let refusals = [
        (
            refused_by(pendulum::radau5(Index::Three), Index::Three, STRETCHED),
            stretched(&adaptive),
        ),
        (
            refused_by_backward_euler(Index::Three, STRETCHED),
            stretched(&fixed),
        ),
        (
            refused_by(pendulum::bdf(Index::Two).unwrap(), Index::Two, PUSHED),
            pushed(&adaptive),
        ),
        (
            refused_by(pendulum::radau5(Index::Two), Index::Two, PUSHED),
            pushed(&adaptive),
        ),
        (
            refused_by_backward_euler(Index::Two, PUSHED),
            pushed(&fixed),
        ),
    ];
    for (k, ((coordinate, correction), expected)) in refusals.into_iter().enumerate() {
        println!("refusal {k}: equation {coordinate}, {correction:.4e} tolerances");
        assert_eq!(coordinate, 4, "refusal {k}");
        // The derivatives by finite differences, to about √ε.
        assert!(
            (correction / expected - 1.0).abs() < 1e-6,
            "refusal {k}: {correction:e} against {expected:e}"
        );
    }
}

#[test]
fn a_start_on_the_constraint_is_accepted_at_index_two_and_three() {
    let solve = |result: Result<timestep::Statistics, AdaptiveError>| result.unwrap();
    for index in [Index::Two, Index::Three] {
        let mut state = pendulum::START;
        solve(
            Adaptive::new(pendulum::radau5(index))
                .with_tolerances(Tolerances::new(1e-6, 1e-6))
                .solve(&mut state, &Pendulum(index), 0.0, 0.1),
        );
        let mut state = pendulum::START;
        Stepper::new(backward_euler(index))
            .step(&mut state, &Pendulum(index), 0.0, 1e-3)
            .unwrap();
    }
    let mut state = pendulum::START;
    solve(
        Adaptive::new(pendulum::bdf(Index::Two).unwrap())
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .solve(&mut state, &Pendulum(Index::Two), 0.0, 0.1),
    );
    // At index 2 the stretched pendulum at rest is a consistent start (of a longer
    // pendulum): the velocity constraint holds.
    let mut state = STRETCHED;
    solve(
        Adaptive::new(pendulum::bdf(Index::Two).unwrap())
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .solve(&mut state, &Pendulum(Index::Two), 0.0, 0.1),
    );
}

/// The pendulum in Gear, Gupta and Leimkuhler's stabilised index-2 form (J. Comput. Appl.
/// Math. 12–13 (1985) 77–90; Hairer–Wanner II, VII.1): `(x, y, vx, vy, λ, μ)` with
/// `q' = v − μ ∇c`, `v' = −λ q − g e_y`, `0 = c = x² + y² − 1`, `0 = x vx + y vy`: both
/// constraints algebraic, `λ` and `μ` of index 2 (`μ` vanishes along the solution).
fn stabilised(u: &[f64; 6], _t: f64) -> [f64; 6] {
    let [x, y, vx, vy, lambda, mu] = *u;
    [
        vx - 2.0 * x * mu,
        vy - 2.0 * y * mu,
        -lambda * x,
        -lambda * y - pendulum::G,
        x * x + y * y - 1.0,
        x * vx + y * vy,
    ]
}

/// `M = diag(1, 1, 1, 1, 0, 0)`.
fn stabilised_mass(m: &mut Jacobian<f64>) {
    (0..4).for_each(|i| m[(i, i)] = 1.0);
}

/// The stabilised pendulum released at `x² + y² = 1.01` is refused by Radau5, the BDF and
/// backward Euler, each naming the position constraint (equation 4); from `x² + y² = 1`
/// each solves it, `μ` staying 0 to the tolerance.
#[test]
fn the_stabilised_pendulum_off_its_constraint_is_refused_by_all_three() {
    let forces = WithMass::new(stabilised, stabilised_mass);
    let stretched = [STRETCHED[0], 0.0, 0.0, 0.0, 0.0, 0.0];
    let on = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let adaptive = |method: timestep::AdaptiveKind, start: [f64; 6]| {
        let mut state = start;
        let result = Adaptive::new(method)
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .solve(&mut state, &forces, 0.0, 0.1);
        (result, state)
    };
    let kinds = [
        timestep::AdaptiveKind::Radau5(Radau5::new().with_higher_index(4, 6)),
        timestep::AdaptiveKind::Bdf(Bdf::new().with_index_two(4)),
    ];
    for kind in kinds {
        let (refused, state) = adaptive(kind, stretched);
        assert!(
            matches!(
                refused,
                Err(AdaptiveError::StepFailed {
                    cause: StepError::InconsistentStart { coordinate: 4, .. },
                    ..
                })
            ),
            "{kind}: {refused:?}"
        );
        assert_eq!(state, stretched);
        let (solved, state) = adaptive(kind, on);
        solved.unwrap();
        let drift = pendulum::constraint_error(&[state[0], state[1], 0.0, 0.0, 0.0]);
        println!("{kind}: x² + y² − 1 = {drift:.1e}, μ = {:.1e}", state[5]);
        assert!(drift.abs() < 1e-6, "{kind}: {drift:e}");
        // μ, of index 2, is held to the tolerance over the step (its error weighs `|h|`
        // times less): about 10⁻⁶ / 10⁻² here.
        assert!(state[5].abs() < 1e-3, "{kind}: μ = {}", state[5]);
    }
    let euler = BackwardEuler::new().with_higher_index(4, 6);
    let mut state = stretched;
    let refused = Stepper::new(euler).step(&mut state, &forces, 0.0, 1e-3);
    assert!(
        matches!(
            refused,
            Err(StepError::InconsistentStart { coordinate: 4, .. })
        ),
        "{refused:?}"
    );
    let mut state = on;
    let mut stepper = Stepper::new(euler);
    for i in 0..100 {
        stepper
            .step(&mut state, &forces, i as f64 * 1e-3, 1e-3)
            .unwrap();
    }
    assert!(pendulum::constraint_error(&[state[0], state[1], 0.0, 0.0, 0.0]).abs() < 1e-10);
    // Backward Euler's μ is not 0 but what its step needs to land on the circle: with
    // `q₁ − q₀ = dt (v₁ − 2 μ q₁)`, `|q₀| = |q₁| = 1` and `q₁ · v₁ = 0`, the dot product
    // with `q₁` gives `μ = −(1 − q₀ · q₁)/(2 dt) = −dt (|v₁|² + 4 μ²)/4`.
    let (dt, mu, speed2) = (1e-3, state[5], state[2].powi(2) + state[3].powi(2));
    let expected = -dt * (speed2 + 4.0 * mu * mu) / 4.0;
    println!("backward Euler: μ = {mu:.6e}, −dt (|v|² + 4μ²)/4 = {expected:.6e}");
    assert!(
        (mu / expected - 1.0).abs() < 1e-6,
        "μ = {mu:e} against {expected:e}"
    );
}
