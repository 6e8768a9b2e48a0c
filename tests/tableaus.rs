//! Every explicit Runge–Kutta tableau satisfies the order conditions of its stated order,
//! to rounding, and fails one of the next order's (so the stated order is the order): the
//! conditions for the rooted trees up to order 4 (Butcher; Hairer–Nørsett–Wanner I, II.2).
//! The measured orders are in tests/convergence.rs and tests/first_order.rs.

use timestep::{ExplicitEuler, ImprovedEuler, Midpoint, Rk4, Tableau};

/// `Σ bᵢ Φᵢ(tree) − 1/γ(tree)` for each tree of order 1 to 4, by order.
fn defects<const N: usize>(t: &Tableau<N>) -> Vec<(u32, &'static str, f64)> {
    let (a, b, c) = (&t.a, &t.b, &t.c);
    let dot = |w: &[f64; N], v: &[f64; N]| (0..N).map(|i| w[i] * v[i]).sum::<f64>();
    let times = |v: &[f64; N], w: &[f64; N]| -> [f64; N] { core::array::from_fn(|i| v[i] * w[i]) };
    let apply = |v: &[f64; N]| -> [f64; N] {
        core::array::from_fn(|i| (0..N).map(|j| a[i][j] * v[j]).sum())
    };
    let ones = [1.0; N];
    let c2 = times(c, c);
    let ac = apply(c);
    vec![
        (1, "Σ b = 1", dot(b, &ones) - 1.0),
        (2, "Σ b c = 1/2", dot(b, c) - 0.5),
        (3, "Σ b c² = 1/3", dot(b, &c2) - 1.0 / 3.0),
        (3, "Σ b a c = 1/6", dot(b, &ac) - 1.0 / 6.0),
        (4, "Σ b c³ = 1/4", dot(b, &times(&c2, c)) - 0.25),
        (4, "Σ b c a c = 1/8", dot(b, &times(c, &ac)) - 0.125),
        (4, "Σ b a c² = 1/12", dot(b, &apply(&c2)) - 1.0 / 12.0),
        (4, "Σ b a a c = 1/24", dot(b, &apply(&ac)) - 1.0 / 24.0),
    ]
}

fn check<const N: usize>(t: &Tableau<N>) {
    // Explicit: strictly lower triangular; the nodes are the row sums.
    for i in 0..N {
        for j in i..N {
            assert_eq!(t.a[i][j], 0.0, "{}: a[{i}][{j}]", t.name);
        }
        let row: f64 = t.a[i].iter().sum();
        assert!(
            (row - t.c[i]).abs() < 1e-15,
            "{}: c[{i}] = {} ≠ Σ a = {row}",
            t.name,
            t.c[i]
        );
    }
    let defects = defects(t);
    for (order, condition, defect) in &defects {
        if *order <= t.order {
            assert!(
                defect.abs() < 1e-15,
                "{} (order {}): {condition} off by {defect:e}",
                t.name,
                t.order
            );
        }
    }
    if t.order < 4 {
        assert!(
            defects
                .iter()
                .any(|(order, _, d)| *order == t.order + 1 && d.abs() > 1e-3),
            "{} meets every condition of order {}",
            t.name,
            t.order + 1
        );
    }
}

#[test]
fn the_classic_tableaus_meet_their_order_conditions() {
    check(&ExplicitEuler::TABLEAU);
    check(&Midpoint::TABLEAU);
    check(&ImprovedEuler::TABLEAU);
    check(&Rk4::TABLEAU);
}
