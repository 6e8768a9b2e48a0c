//! The reference end states of `examples/problems/mod.rs` (used by the `work_precision`
//! example and `benches/peers.rs`) are the exact solutions' ends.
//!
//! Theory: the Kepler and Arenstorf flows keep their first integrals (energy and angular
//! momentum; the Jacobi constant `C = x² + y² + 2(1−μ)/r₁ + 2μ/r₂ − |v|²`), and both orbits
//! are periodic, so the exact end state lies on the start's integrals and, up to the `f64`
//! rounding of the start and the end time, at the start. For every problem, a fifth-order
//! pair's end error against the reference falls steadily as the tolerance shrinks, which it
//! could not if the reference were off by more than the smallest error reached.

#[path = "../../examples/problems/mod.rs"]
mod problems;

use problems::*;
use timestep::Tolerances;
use timestep::Tsit5;
use timestep::adaptive::Adaptive;

fn kepler_integrals(y: &[f64; 4]) -> (f64, f64) {
    let [x, y, vx, vy] = *y;
    (
        0.5 * (vx * vx + vy * vy) - 1.0 / (x * x + y * y).sqrt(),
        x * vy - y * vx,
    )
}

fn jacobi(y: &[f64; 4]) -> f64 {
    let [x, y, vx, vy] = *y;
    let r1 = ((x + MU).powi(2) + y * y).sqrt();
    let r2 = ((x - 1.0 + MU).powi(2) + y * y).sqrt();
    x * x + y * y + 2.0 * (1.0 - MU) / r1 + 2.0 * MU / r2 - (vx * vx + vy * vy)
}

#[test]
fn kepler_reference_is_on_the_orbit_and_back_at_perihelion() {
    let (energy, momentum) = kepler_integrals(&KEPLER_REFERENCE);
    assert!((energy + 0.5).abs() < 1e-14, "energy {energy}");
    let exact = (1.0 - ECCENTRICITY * ECCENTRICITY).sqrt();
    assert!(
        (momentum - exact).abs() < 1e-14,
        "angular momentum {momentum}"
    );
    assert!(distance(&KEPLER_REFERENCE, &kepler_start()) < 1e-10);
}

#[test]
fn arenstorf_reference_keeps_the_jacobi_constant_and_closes_the_orbit() {
    let (start, end) = (jacobi(&ARENSTORF_START), jacobi(&ARENSTORF_REFERENCE));
    assert!((start - end).abs() < 1e-12, "C from {start} to {end}");
    assert!(distance(&ARENSTORF_REFERENCE, &ARENSTORF_START) < 1e-10);
}

/// The end errors of Tsitouras 5(4) at tolerances 10⁻⁶, 10⁻⁸, … 10⁻¹².
fn errors<const N: usize>(
    start: [f64; N],
    f: fn(&[f64; N], f64) -> [f64; N],
    end: f64,
    reference: [f64; N],
) -> Vec<f64> {
    [1e-6, 1e-8, 1e-10, 1e-12]
        .iter()
        .map(|&tolerance| {
            let mut y = start;
            Adaptive::new(Tsit5)
                .with_tolerances(Tolerances::new(tolerance, tolerance))
                .solve(&mut y, &f, 0.0, end)
                .expect("a run within the step budget");
            distance(&y, &reference)
        })
        .collect()
}

#[test]
fn a_fifth_order_pair_converges_to_each_reference() {
    let runs = [
        (
            "arenstorf",
            errors(
                ARENSTORF_START,
                arenstorf,
                ARENSTORF_END,
                ARENSTORF_REFERENCE,
            ),
        ),
        (
            "kepler",
            errors(kepler_start(), kepler, KEPLER_END, KEPLER_REFERENCE),
        ),
        (
            "lorenz",
            errors(LORENZ_START, lorenz, LORENZ_END, LORENZ_REFERENCE),
        ),
    ];
    for (name, errors) in runs {
        // Each hundredfold tighter tolerance cuts the error at least twentyfold (about
        // a hundredfold, error ∝ tolerance, is what the pair does).
        for pair in errors.windows(2) {
            assert!(pair[1] < pair[0] / 20.0, "{name}: errors {errors:?}");
        }
    }
}
