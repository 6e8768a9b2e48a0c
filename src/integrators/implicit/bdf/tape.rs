//! [`Tape`]: what maps one accepted Nordsieck array to the next, kept for the discrete
//! adjoint ([`Adjoint`](crate::sensitivity::Adjoint)): every operation on the array
//! between two accepted steps but the correction is linear in its columns and the
//! saved correction (the rescalings by `ηʲ`, `cvIncreaseBDF`, `cvDecreaseBDF`), so their
//! composition over the attempts of a step is one small matrix, tracked here beside the
//! vectors at `O(q²)` operations on numbers per change.

use super::coefficients::MAX_ORDER;

/// Column `MAX_ORDER + 1` of a [`Tape`]'s transfer: the saved correction.
pub(crate) const SAVED: usize = MAX_ORDER + 1;

/// One step's linear history: the array it corrected as a combination of the last
/// accepted one, its order and its formula.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Tape {
    /// The array was set up from the rate at the step's start, `z₁ = h f(t, y)` (a run's
    /// first step, or a restart at order 1 after repeated failures): `transfer` unused.
    pub(crate) restart: bool,
    /// Row `j` (`1 … q`): the step's column `zⱼ` before its prediction as `Σₖ Tⱼₖ z̄ₖ`
    /// over the last accepted array's columns `k = 1 … 5` and its saved correction
    /// (`k = SAVED`). Row 0 is unused.
    pub(crate) transfer: [[f64; MAX_ORDER + 2]; MAX_ORDER + 1],
    /// The step's order and its formula's `l`.
    pub(crate) order: usize,
    pub(crate) l: [f64; MAX_ORDER + 1],
    /// The accepted step saved its correction for an order increase.
    pub(crate) saved: bool,
}

impl Tape {
    /// A new step: the identity map, nothing saved.
    pub(super) fn begin(&mut self) {
        self.restart = false;
        self.saved = false;
        for (j, row) in self.transfer.iter_mut().enumerate() {
            *row = [0.0; MAX_ORDER + 2];
            row[j] = 1.0;
        }
    }

    /// The array set up from the rate.
    pub(super) fn restart(&mut self) {
        self.begin();
        self.restart = true;
    }

    /// Column `j` times `ηʲ`, `j = 1 … q`.
    pub(super) fn rescale(&mut self, eta: f64, q: usize) {
        let mut factor = 1.0;
        for row in &mut self.transfer[1..=q] {
            factor *= eta;
            row.iter_mut().for_each(|x| *x *= factor);
        }
    }

    /// `z_{q+1} = a₁ · saved`, then `zⱼ += cⱼ z_{q+1}` for `j = 2 … q`.
    pub(super) fn raise(&mut self, q: usize, a1: f64, c: &[f64]) {
        let mut new = [0.0; MAX_ORDER + 2];
        new[SAVED] = a1;
        self.transfer[q + 1] = new;
        for j in 2..=q {
            for (x, n) in self.transfer[j].iter_mut().zip(new) {
                *x += c[j] * n;
            }
        }
    }

    /// `zⱼ −= cⱼ z_q` for `j = 2 … q − 1`.
    pub(super) fn lower(&mut self, q: usize, c: &[f64]) {
        let last = self.transfer[q];
        for j in 2..q {
            for (x, n) in self.transfer[j].iter_mut().zip(last) {
                *x -= c[j] * n;
            }
        }
    }
}
