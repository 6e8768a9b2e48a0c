//! The coefficients of the 3-stage Radau IIA method of order 5 and of the transformation
//! that splits its Newton system into one real and one complex system.
//!
//! Sources: E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, 2nd ed.
//! (1996), IV.5 (Table 5.6, the method) and IV.8 (the transformation, eq. (8.17)–(8.19),
//! and the error estimate, (8.19)–(8.20)); and Hairer's code radau5.f (version of
//! 2002-01-18), subroutine `RADCOR`, from which the digits of `T` and `T⁻¹` are taken.
//!
//! ```text
//!  c₁ = (4 − √6)/10 │ (88 − 7√6)/360     (296 − 169√6)/1800  (−2 + 3√6)/225
//!  c₂ = (4 + √6)/10 │ (296 + 169√6)/1800 (88 + 7√6)/360      (−2 − 3√6)/225
//!  c₃ = 1           │ (16 − √6)/36       (16 + √6)/36        1/9
//!  ─────────────────┼──────────────────────────────────────────────────────
//!                   │ (16 − √6)/36       (16 + √6)/36        1/9
//! ```
//!
//! `A⁻¹` has one real eigenvalue `γ` and a complex pair `α ± iβ`:
//!
//! ```text
//! γ = 30 / (6 + ∛81 − ∛9)                          ≈ 3.637834252744496
//! α + iβ = 1 / (a + ib),  a = (12 − ∛81 + ∛9)/60,
//!                         b = (∛81 + ∛9) √3 / 60    ≈ 2.681082873627752 + 3.050430199247411 i
//! T⁻¹ A⁻¹ T = [[γ, 0, 0], [0, α, −β], [0, β, α]]
//! ```
//!
//! (the roots of `det(λ A − I) = 0`, Cardano's formula for the cubic); `T` and `T⁻¹` are
//! radau5.f's, which chose the eigenvectors so that `T₃₂ = 1`, `T₃₃ = 0`. The tests check
//! the block diagonal form and `T T⁻¹ = I` to rounding.
//!
//! The error estimate is `(I − h γ₀ J)⁻¹ (γ₀ h f(y₀) + Σ eᵢ Zᵢ)` with `γ₀ = 1/γ`; radau5.f
//! writes it with `E₁ = (γ/h) I − J` as `E₁⁻¹ (f(y₀) + Σ dᵢ Zᵢ / h)`, where
//! `d = (−(13 + 7√6)/3, (−13 + 7√6)/3, −1/3)`.

// radau5.f's 20 digits, kept as printed so that they can be checked against the source;
// the compiler rounds them to the nearest double.
#![allow(clippy::excessive_precision)]

use crate::math;
use num_traits::Float;

/// `√6`, `∛81` and `∛9`, in `f64`.
fn roots() -> (f64, f64, f64) {
    (
        Float::sqrt(6.0_f64),
        math::cbrt(81.0_f64),
        math::cbrt(9.0_f64),
    )
}

/// The nodes `c₁, c₂` (and `c₃ = 1`).
pub(crate) fn nodes() -> [f64; 3] {
    let (sq6, _, _) = roots();
    [(4.0 - sq6) / 10.0, (4.0 + sq6) / 10.0, 1.0]
}

/// The Runge–Kutta matrix `A`, from its closed form (the tests check the
/// transformation against it; a step never needs it, the discrete adjoint does).
#[cfg(any(test, feature = "alloc"))]
pub(crate) fn matrix() -> [[f64; 3]; 3] {
    let (sq6, _, _) = roots();
    [
        [
            (88.0 - 7.0 * sq6) / 360.0,
            (296.0 - 169.0 * sq6) / 1800.0,
            (-2.0 + 3.0 * sq6) / 225.0,
        ],
        [
            (296.0 + 169.0 * sq6) / 1800.0,
            (88.0 + 7.0 * sq6) / 360.0,
            (-2.0 - 3.0 * sq6) / 225.0,
        ],
        [(16.0 - sq6) / 36.0, (16.0 + sq6) / 36.0, 1.0 / 9.0],
    ]
}

/// The eigenvalues of `A⁻¹`: `(γ, α, β)`, the real one and the complex pair `α ± iβ`.
pub(crate) fn eigenvalues() -> (f64, f64, f64) {
    let (_, c81, c9) = roots();
    let gamma = 30.0 / (6.0 + c81 - c9);
    let a = (12.0 - c81 + c9) / 60.0;
    let b = (c81 + c9) * Float::sqrt(3.0_f64) / 60.0;
    let size = a * a + b * b;
    (gamma, a / size, b / size)
}

/// The weights `dᵢ` of the stages in the error estimate `E₁⁻¹ (f(y₀) + Σ dᵢ Zᵢ / h)`.
pub(crate) fn error_weights() -> [f64; 3] {
    let (sq6, _, _) = roots();
    [
        -(13.0 + 7.0 * sq6) / 3.0,
        (-13.0 + 7.0 * sq6) / 3.0,
        -1.0 / 3.0,
    ]
}

/// `T`: the eigenvector basis of `A⁻¹` (radau5.f's `T11 … T31`, with `T₃₂ = 1` and
/// `T₃₃ = 0`).
pub(crate) const T: [[f64; 3]; 3] = [
    [
        9.1232394870892942792e-02,
        -0.14125529502095420843,
        -3.0029194105147424492e-02,
    ],
    [
        0.24171793270710701896,
        0.20412935229379993199,
        0.38294211275726193779,
    ],
    [0.96604818261509293619, 1.0, 0.0],
];

/// `T⁻¹` (radau5.f's `TI11 … TI33`).
pub(crate) const T_INVERSE: [[f64; 3]; 3] = [
    [
        4.3255798900631553510,
        0.33919925181580986954,
        0.54177053993587487119,
    ],
    [
        -4.1787185915519047273,
        -0.32768282076106238708,
        0.47662355450055045196,
    ],
    [
        -0.50287263494578687595,
        2.5719269498556054292,
        -0.59603920482822492497,
    ],
];

/// The coefficients a step uses, worked out once per workspace.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Coefficients {
    /// `c₁, c₂, c₃`.
    pub(crate) c: [f64; 3],
    /// `γ, α, β`.
    pub(crate) gamma: f64,
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
    /// `d₁, d₂, d₃`.
    pub(crate) d: [f64; 3],
}

impl Coefficients {
    pub(crate) fn new() -> Self {
        let (gamma, alpha, beta) = eigenvalues();
        Coefficients {
            c: nodes(),
            gamma,
            alpha,
            beta,
            d: error_weights(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
        core::array::from_fn(|i| core::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
    }

    fn inverse(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
        let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
        core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                // Cofactor of (j, i).
                let (r0, r1) = match j {
                    0 => (1, 2),
                    1 => (0, 2),
                    _ => (0, 1),
                };
                let (c0, c1) = match i {
                    0 => (1, 2),
                    1 => (0, 2),
                    _ => (0, 1),
                };
                let minor = a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0];
                let sign = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
                sign * minor / det
            })
        })
    }

    /// `T⁻¹ A⁻¹ T = [[γ, 0, 0], [0, α, −β], [0, β, α]]` with `A` and the eigenvalues from
    /// their closed forms and `T`, `T⁻¹` radau5.f's digits; and `T T⁻¹ = I`.
    #[test]
    fn transformation_block_diagonalises_the_inverse_of_a() {
        let (gamma, alpha, beta) = eigenvalues();
        let block = product(&T_INVERSE, &product(&inverse(&matrix()), &T));
        let expected = [[gamma, 0.0, 0.0], [0.0, alpha, -beta], [0.0, beta, alpha]];
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    (block[i][j] - expected[i][j]).abs() < 1e-13,
                    "({i}, {j}): {} vs {}",
                    block[i][j],
                    expected[i][j]
                );
            }
        }
        let identity = product(&T, &T_INVERSE);
        for (i, row) in identity.iter().enumerate() {
            for (j, entry) in row.iter().enumerate() {
                let one = if i == j { 1.0 } else { 0.0 };
                assert!((entry - one).abs() < 1e-15, "T T⁻¹ ({i}, {j})");
            }
        }
        // Hairer–Wanner II, IV.8: γ ≈ 3.6378, α ± iβ ≈ 2.6811 ± 3.0504 i.
        assert!((gamma - 3.637834252744496).abs() < 1e-14);
        assert!((alpha - 2.681082873627752).abs() < 1e-14);
        assert!((beta - 3.050430199247411).abs() < 1e-14);
    }

    /// The method is the collocation method at the Radau points: `A` integrates the
    /// polynomials of degree < 3 exactly (`Σⱼ aᵢⱼ cⱼ^(k−1) = cᵢ^k / k`), its last row is `b`
    /// (stiffly accurate), and `c` are the roots of `P₃(2x − 1) − P₂(2x − 1)`.
    #[test]
    fn radau_iia_conditions() {
        let a = matrix();
        let c = nodes();
        for i in 0..3 {
            for k in 1..=3 {
                let sum: f64 = (0..3).map(|j| a[i][j] * c[j].powi(k - 1)).sum();
                assert!(
                    (sum - c[i].powi(k) / f64::from(k)).abs() < 1e-15,
                    "C({k}) row {i}"
                );
            }
        }
        // b integrates up to degree 4 (order 5 = 2s − 1): Σ bⱼ cⱼ^(k−1) = 1/k.
        for k in 1..=5 {
            let sum: f64 = (0..3).map(|j| a[2][j] * c[j].powi(k - 1)).sum();
            assert!((sum - 1.0 / f64::from(k)).abs() < 1e-15, "B({k})");
        }
        // The error weights: for y = t^k with k = 1, 2, 3, where h f(y₀) = h·[k = 1] and
        // Zᵢ = (cᵢ h)^k, the estimate's combination h f₀ + Σ dᵢ Zᵢ vanishes: the estimate
        // is O(h⁴) (radau5.f's `ESTRAD`).
        let d = error_weights();
        let (gamma, _, _) = eigenvalues();
        for k in 1..=3 {
            let f0 = if k == 1 { 1.0 } else { 0.0 };
            let sum: f64 = f0 + (0..3).map(|i| d[i] * c[i].powi(k)).sum::<f64>();
            assert!(
                (sum / gamma).abs() < 1e-13,
                "error weights, degree {k}: {sum}"
            );
        }
    }
}
