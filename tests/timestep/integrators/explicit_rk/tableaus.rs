//! Every explicit Runge–Kutta tableau satisfies the order conditions of its stated order,
//! to rounding, and fails one of the next order's (so the stated order is the order): the
//! conditions for the rooted trees up to order 4 (Butcher; Hairer–Nørsett–Wanner I, II.2).
//! The measured orders are in `integrators::convergence` and `integrators::first_order`.

use timestep::{
    Bs3, Dop853, Dopri5, EmbeddedPair, ExplicitEuler, ImprovedEuler, Midpoint, Rk4, Tableau, Tsit5,
    Vern6, Vern7, Vern8, Vern9,
};

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

/// The rooted trees up to order `max`, each as its order, its density `γ` and its
/// children (indices of smaller trees, non-increasing so that each tree appears once):
/// 1, 1, 2, 4, 9, 20, 48, 115, 286, 719 trees of orders 1 to 10 (Butcher; Hairer–Nørsett–Wanner
/// I, II.2, Table 2.1).
fn rooted_trees(max: usize) -> Vec<(usize, f64, Vec<usize>)> {
    let mut trees: Vec<(usize, f64, Vec<usize>)> = vec![(1, 1.0, vec![])];
    for order in 2..=max {
        // Forests of order − 1 nodes, as non-increasing lists of tree indices.
        fn forests(
            trees: &[(usize, f64, Vec<usize>)],
            nodes: usize,
            largest: usize,
            prefix: &mut Vec<usize>,
            out: &mut Vec<Vec<usize>>,
        ) {
            if nodes == 0 {
                out.push(prefix.clone());
                return;
            }
            for index in (0..=largest.min(trees.len() - 1)).rev() {
                if trees[index].0 <= nodes {
                    prefix.push(index);
                    forests(trees, nodes - trees[index].0, index, prefix, out);
                    prefix.pop();
                }
            }
        }
        let mut found = Vec::new();
        forests(
            &trees,
            order - 1,
            trees.len() - 1,
            &mut Vec::new(),
            &mut found,
        );
        for children in found {
            let density = order as f64 * children.iter().map(|&c| trees[c].1).product::<f64>();
            trees.push((order, density, children));
        }
    }
    trees
}

/// `Φᵢ(τ)` of every tree at every stage: `Φ(•) = 𝟙`, and a tree with children `τ₁…τₘ`
/// has `Φᵢ = Πₖ (A Φ(τₖ))ᵢ`. The tree's order condition is `Σ bᵢ Φᵢ(τ) = 1/γ(τ)`.
fn elementary_weights<const N: usize>(
    a: &[[f64; N]; N],
    trees: &[(usize, f64, Vec<usize>)],
) -> Vec<[f64; N]> {
    let mut weights: Vec<[f64; N]> = Vec::new();
    for (_, _, children) in trees {
        let mut phi = [1.0; N];
        for &child in children {
            let applied: [f64; N] =
                core::array::from_fn(|i| (0..N).map(|j| a[i][j] * weights[child][j]).sum());
            for i in 0..N {
                phi[i] *= applied[i];
            }
        }
        weights.push(phi);
    }
    weights
}

/// The largest defect `|Σ wᵢ Φᵢ(τ) − θ^ρ(τ)/γ(τ)|` over the trees of each order 1 to 10 for
/// the weights `w` (a step's `b` with `θ = 1`, or a dense output's `w(θ)`), relative to
/// `θ^ρ/γ`.
fn defects_by_order<const N: usize>(a: &[[f64; N]; N], w: &[f64; N], theta: f64) -> [f64; 10] {
    let trees = rooted_trees(10);
    let phi = elementary_weights(a, &trees);
    let mut largest = [0.0_f64; 10];
    for ((order, density, _), phi) in trees.iter().zip(&phi) {
        let exact = theta.powi(*order as i32) / density;
        let sum: f64 = (0..N).map(|i| w[i] * phi[i]).sum();
        largest[order - 1] = largest[order - 1].max(((sum - exact) / exact).abs());
    }
    largest
}

/// The order the weights meet the conditions of, to `tolerance`.
fn conditions_met(defects: &[f64; 10], tolerance: f64) -> usize {
    defects.iter().take_while(|d| **d < tolerance).count()
}

#[test]
fn there_are_as_many_rooted_trees_as_butcher_counts() {
    let trees = rooted_trees(10);
    let counts: Vec<usize> = (1..=10)
        .map(|order| trees.iter().filter(|t| t.0 == order).count())
        .collect();
    assert_eq!(counts, [1, 1, 2, 4, 9, 20, 48, 115, 286, 719]);
}

/// Each pair's propagated weights meet exactly the conditions of its order, its embedded
/// weights `b − e` those of the embedded order, and its dense output `w(θ)` those of the
/// dense order across the step: DOP853 to order 8 (its fifth- and third-order estimates to 5
/// and 3, its interpolant to 7), Verner's 6(5) to 6 (5, 6), 7(6) to 7 (6, 6: see `Vern7`), 8(7) to 8 (7, 8) and 9(8) to 9 (8, 9),
/// Dormand–Prince and Tsitouras to
/// 5 (4, 4), Bogacki–Shampine to 3 (2, 3). The tolerance is relative, for tables printed to
/// 16–30 digits.
#[test]
fn the_embedded_pairs_meet_their_order_conditions() {
    fn check<const N: usize>(pair: &EmbeddedPair<N>, embedded: &[(usize, [f64; N])]) {
        let t = &pair.tableau;
        // Rounding in `Σ bᵢ (Σⱼ aᵢⱼ …)` grows with the coefficients' size: Verner's run to
        // 10², and their sums cancel to 10⁻¹⁰ relative (the first condition missed is off
        // by 10⁻³ or more).
        let row = (t.a.iter())
            .map(|row| row.iter().map(|a| a.abs()).sum::<f64>())
            .fold(1.0, f64::max);
        let size = row * t.b.iter().map(|b| b.abs()).sum::<f64>();
        let tolerance = f64::max(1e-12, 1e-14 * size);
        let propagated = defects_by_order(&t.a, &t.b, 1.0);
        assert_eq!(
            conditions_met(&propagated, tolerance),
            t.order as usize,
            "{}: {propagated:?}",
            t.name
        );
        for (order, weights) in embedded {
            let defects = defects_by_order(&t.a, weights, 1.0);
            assert_eq!(
                conditions_met(&defects, tolerance),
                *order,
                "{} embedded: {defects:?}",
                t.name
            );
        }
        // The interpolants' coefficients run to hundreds, so their sums cancel to ~10⁻¹³
        // absolute, up to 10⁻¹⁰ relative to θ^ρ/γ for the small θ^ρ/γ of order 7 (the
        // first condition missed is off by 10 or more).
        for theta in [0.37, 0.5, 0.81] {
            let defects = defects_by_order(&t.a, &pair.dense_weights(theta), theta);
            assert_eq!(
                conditions_met(&defects, 1e-6),
                pair.dense_order as usize,
                "{} dense output at θ = {theta}: {defects:?}",
                t.name
            );
        }
        // w(1) = b: the interpolant ends at the step's end (to the rounding of summing its
        // coefficients, up to 10⁵ in Verner's 6(5)).
        for ((w, b), row) in pair.dense_weights(1.0).iter().zip(&t.b).zip(&pair.dense) {
            let size: f64 = row.iter().map(|r| r.abs()).sum();
            approx::assert_abs_diff_eq!(w, b, epsilon = f64::max(1e-12, 4.0 * f64::EPSILON * size));
        }
    }
    let minus = |b: [f64; 16], e: [f64; 16]| -> [f64; 16] { core::array::from_fn(|i| b[i] - e[i]) };
    let dop853 = Dop853::PAIR;
    check(
        &dop853,
        &[
            (5, minus(dop853.tableau.b, dop853.error)),
            (3, minus(dop853.tableau.b, dop853.error_guard.unwrap())),
        ],
    );
    let embedded =
        |pair: &EmbeddedPair<12>| core::array::from_fn(|i| pair.tableau.b[i] - pair.error[i]);
    check(&Vern6::PAIR, &[(5, embedded(&Vern6::PAIR))]);
    let embedded =
        |pair: &EmbeddedPair<16>| core::array::from_fn(|i| pair.tableau.b[i] - pair.error[i]);
    check(&Vern7::PAIR, &[(6, embedded(&Vern7::PAIR))]);
    let embedded =
        |pair: &EmbeddedPair<21>| core::array::from_fn(|i| pair.tableau.b[i] - pair.error[i]);
    check(&Vern8::PAIR, &[(7, embedded(&Vern8::PAIR))]);
    let embedded =
        |pair: &EmbeddedPair<26>| core::array::from_fn(|i| pair.tableau.b[i] - pair.error[i]);
    check(&Vern9::PAIR, &[(8, embedded(&Vern9::PAIR))]);
    for pair in [Dopri5::PAIR, Tsit5::PAIR] {
        check(
            &pair,
            &[(
                4,
                core::array::from_fn(|i| pair.tableau.b[i] - pair.error[i]),
            )],
        );
    }
    let bs3 = Bs3::PAIR;
    check(
        &bs3,
        &[(2, core::array::from_fn(|i| bs3.tableau.b[i] - bs3.error[i]))],
    );
}
