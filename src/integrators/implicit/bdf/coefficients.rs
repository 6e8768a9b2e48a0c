//! The coefficients of the fixed-leading-coefficient BDF formulas in Nordsieck form at
//! variable steps (Jackson and Sacks-Davis, ACM TOMS 6 (1980) 295–318; Byrne and
//! Hindmarsh, ACM TOMS 1 (1975) 71–96), as CVODE computes them (Hindmarsh et al.,
//! "SUNDIALS", ACM TOMS 31 (2005) 363–396, §2.1; CVODE's `cvSetBDF`, `cvSetTqBDF`,
//! `cvIncreaseBDF`, `cvDecreaseBDF`).
//!
//! `tau[i]` is the `i`-th last step (`tau[1]` the most recent) and `ξᵢ = (tₙ − tₙ₋ᵢ)/h`.

/// The highest order.
pub(super) const MAX_ORDER: usize = 5;

/// The step history: `tau[i]`, `i = 1 … MAX_ORDER + 1`, the `i`-th last step (`tau[0]`
/// unused, CVODE's numbering).
pub(super) type Steps = [f64; MAX_ORDER + 2];

/// The constant of the Newton iteration's convergence test (CVODE's `CORTES`): the
/// iteration stops once its estimated error is below a tenth of the local error test.
const CONVERGENCE_COEFFICIENT: f64 = 0.1;

/// What a step of order `q` and length `h` needs: the corrector polynomial's coefficients
/// `l` (the correction `Δ` of the predicted Nordsieck array is `lⱼ Δ` in column `j`) and
/// the test quantities `tq` (CVODE's numbering: `tq[1]`, `tq[2]`, `tq[3]` turn the
/// correction into the local error estimates at orders `q − 1`, `q`, `q + 1`, `tq[4]` is
/// the Newton tolerance, `tq[5]` relates the saved correction to the order `q + 2`
/// derivative).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct Formula {
    pub(super) l: [f64; MAX_ORDER + 1],
    pub(super) tq: [f64; 6],
}

impl Formula {
    /// The formula of order `q` for a step `h` after the steps `tau` (CVODE's `cvSetBDF`
    /// and `cvSetTqBDF`): `Λ(x) = (1 + x/ξ*_q) Π_{i<q} (1 + x/ξᵢ)`, with `ξ*_q` fixing the
    /// leading coefficient, gives `l`.
    pub(super) fn new(q: usize, h: f64, tau: &Steps) -> Self {
        let mut l = [0.0; MAX_ORDER + 1];
        l[0] = 1.0;
        l[1] = 1.0;
        let (mut alpha0, mut alpha0_hat) = (-1.0, -1.0);
        let (mut xi_inv, mut xistar_inv) = (1.0, 1.0);
        let mut hsum = h;
        if q > 1 {
            for j in 2..q {
                hsum += tau[j - 1];
                xi_inv = h / hsum;
                alpha0 -= 1.0 / j as f64;
                for i in (1..=j).rev() {
                    l[i] += l[i - 1] * xi_inv;
                }
            }
            alpha0 -= 1.0 / q as f64;
            xistar_inv = -l[1] - alpha0;
            hsum += tau[q - 1];
            xi_inv = h / hsum;
            alpha0_hat = -l[1] - xi_inv;
            for i in (1..=q).rev() {
                l[i] += l[i - 1] * xistar_inv;
            }
        }
        let qf = q as f64;
        let mut tq = [0.0; 6];
        let a1 = 1.0 - alpha0_hat + alpha0;
        let a2 = 1.0 + qf * a1;
        tq[2] = (a1 / (alpha0 * a2)).abs();
        tq[5] = (a2 * xistar_inv / (l[q] * xi_inv)).abs();
        tq[1] = if q > 1 {
            let c = xistar_inv / l[q];
            let a3 = alpha0 + 1.0 / qf;
            let a4 = alpha0_hat + xi_inv;
            (c * (1.0 - a4 + a3) / a3).abs()
        } else {
            1.0
        };
        // CVODE computes tq[1] and tq[3] only when an order change may follow; they
        // are read only then, so computing them always changes nothing.
        let xi_next = h / (hsum + tau[q]);
        let a5 = alpha0 - 1.0 / (qf + 1.0);
        let a6 = alpha0_hat - xi_next;
        tq[3] = ((1.0 - a6 + a5) / a2 / (xi_next * (qf + 2.0) * a5)).abs();
        tq[4] = CONVERGENCE_COEFFICIENT / tq[2];
        Formula { l, tq }
    }
}

/// The order rises from `q` to `q + 1` after a step of `h` (CVODE's `cvIncreaseBDF`):
/// the new column `z_{q+1}` is `A₁` times the last step's correction, and each
/// `zⱼ` (`j = 2 … q`) gains `cⱼ z_{q+1}`, the `cⱼ` the coefficients of
/// `x² Π_{i<q} (x + ξᵢ)`. Returns `(A₁, c)`.
pub(super) fn increase(q: usize, h: f64, tau: &Steps) -> (f64, [f64; MAX_ORDER + 2]) {
    let mut l = [0.0; MAX_ORDER + 2];
    l[2] = 1.0;
    let (mut alpha0, mut alpha1, mut prod, mut xiold) = (-1.0, 1.0, 1.0, 1.0);
    let mut hsum = h;
    for j in 1..q {
        hsum += tau[j + 1];
        let xi = hsum / h;
        prod *= xi;
        alpha0 -= 1.0 / (j + 1) as f64;
        alpha1 += 1.0 / xi;
        for i in (2..=j + 2).rev() {
            l[i] = l[i] * xiold + l[i - 1];
        }
        xiold = xi;
    }
    ((-alpha0 - alpha1) / prod, l)
}

/// The order falls from `q` to `q − 1` after a step of `h` (CVODE's `cvDecreaseBDF`):
/// each `zⱼ` (`j = 2 … q − 1`) loses `cⱼ z_q`, the `cⱼ` the coefficients of
/// `x² Π_{i≤q−2} (x + ξᵢ)`. Returns `c`.
pub(super) fn decrease(q: usize, h: f64, tau: &Steps) -> [f64; MAX_ORDER + 2] {
    let mut l = [0.0; MAX_ORDER + 2];
    l[2] = 1.0;
    let mut hsum = 0.0;
    for (j, step) in tau.iter().enumerate().take(q.saturating_sub(1)).skip(1) {
        hsum += step;
        let xi = hsum / h;
        for i in (2..=j + 2).rev() {
            l[i] = l[i] * xi + l[i - 1];
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At constant steps the fixed-leading-coefficient BDF is the classical BDF: `l` are
    /// the Nordsieck coefficients of Byrne and Hindmarsh (1975), Table I, and `l₁` the
    /// classical `1/β₀`: 1, 3/2, 11/6, 25/12, 137/60.
    #[test]
    fn constant_steps_give_the_classical_formulas() {
        let tau = [1.0; MAX_ORDER + 2];
        let expected: [&[f64]; 5] = [
            &[1.0, 1.0],
            &[1.0, 3.0 / 2.0, 1.0 / 2.0],
            &[1.0, 11.0 / 6.0, 1.0, 1.0 / 6.0],
            &[1.0, 25.0 / 12.0, 35.0 / 24.0, 5.0 / 12.0, 1.0 / 24.0],
            &[
                1.0,
                137.0 / 60.0,
                15.0 / 8.0,
                17.0 / 24.0,
                1.0 / 8.0,
                1.0 / 120.0,
            ],
        ];
        for (q, l) in (1..=MAX_ORDER).zip(expected) {
            let formula = Formula::new(q, 1.0, &tau);
            for (i, &value) in l.iter().enumerate() {
                assert!((formula.l[i] - value).abs() < 1e-14, "q {q}, l[{i}]");
            }
            // At constant steps ξ*_q = ξ_q: the error coefficient `A1/(α₀ A2)` is
            // `1/((q + 1) l₁)`, the classical BDF's error constant `1/(q + 1)` times `β₀`.
            let error = 1.0 / ((q as f64 + 1.0) * l[1]);
            assert!(
                (formula.tq[2] - error).abs() < 1e-14,
                "q {q}: {}",
                formula.tq[2]
            );
        }
    }
}
