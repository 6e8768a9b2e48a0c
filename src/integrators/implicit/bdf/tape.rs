//! [`Tape`]: what maps one accepted Nordsieck array to the next, kept for the discrete
//! adjoint ([`Adjoint`](crate::sensitivity::Adjoint)): every operation on the array
//! between two accepted steps but the correction is linear in its columns and the
//! saved correction (the rescalings by `ηʲ`, `cvIncreaseBDF`, `cvDecreaseBDF`), so their
//! composition over the attempts of a step is one small matrix, tracked here beside the
//! vectors at `O(q²)` operations on numbers per change.

use super::coefficients::MAX_ORDER;

/// Column `MAX_ORDER + 1` of a [`Tape`]'s transfer: the saved correction.
pub(crate) const SAVED: usize = MAX_ORDER + 1;

/// The linear history of the step being taken and what the last accepted one kept.
///
/// The transfer is tracked only once the adjoint asks ([`record`](Tape::record), after a
/// run's first step, which restarts and needs none), and written (from the identity) only
/// at a step's first rescaling or order change; an accepted step costs three flags.
/// (Tracked always and written out at every step, it made the plain BDF solve of
/// Robertson 7.8% longer, callgrind; tracked always but written at changes only, 2.4%;
/// untracked, 1.6%, mostly LLVM inlining `predict` and `solve_direct` differently.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Tape {
    /// Row `j` (`1 … q`): the step's column `zⱼ` before its prediction as `Σₖ Tⱼₖ z̄ₖ`
    /// over the last accepted array's columns `k = 1 … 5` and its saved correction
    /// (`k = SAVED`), while `touched`; else the identity. Row 0 is unused.
    transfer: [[f64; MAX_ORDER + 2]; MAX_ORDER + 1],
    touched: bool,
    /// The transfer is tracked (the adjoint records this run).
    recording: bool,
    /// The array was set up from the rate at the step's start, `z₁ = h f(t, y)` (a run's
    /// first step, or a restart at order 1 after repeated failures): `transfer` unused.
    restart: bool,
    /// The last accepted step's `touched`, `restart`, and whether it saved its correction
    /// for an order increase.
    last: [bool; 3],
}

impl Tape {
    /// A run's start: nothing tracked until [`record`](Tape::record).
    pub(super) fn begin(&mut self) {
        (self.touched, self.restart, self.recording) = (false, false, false);
    }

    /// The step is accepted, saving its correction or not: the next starts from the
    /// identity.
    pub(super) fn accept(&mut self, saved: bool) {
        self.last = [self.touched, self.restart, saved];
        (self.touched, self.restart) = (false, false);
    }

    /// Tracks the transfer from the next step on.
    #[cfg(feature = "alloc")]
    pub(crate) fn record(&mut self) {
        self.recording = true;
    }

    /// The last accepted step restarted its array from the rate.
    #[cfg(feature = "alloc")]
    pub(crate) fn restarted(&self) -> bool {
        self.last[1]
    }

    /// The last accepted step saved its correction.
    #[cfg(feature = "alloc")]
    pub(crate) fn saved(&self) -> bool {
        self.last[2]
    }

    /// The last accepted step's transfer, `None` for the identity (its rows above its
    /// order unused).
    #[cfg(feature = "alloc")]
    pub(crate) fn transfer(&self) -> Option<&[[f64; MAX_ORDER + 2]; MAX_ORDER + 1]> {
        self.last[0].then_some(&self.transfer)
    }

    /// The transfer of this step, from the identity at its first change, when tracked.
    fn open(&mut self) -> Option<&mut [[f64; MAX_ORDER + 2]; MAX_ORDER + 1]> {
        if !self.recording {
            return None;
        }
        if !self.touched {
            self.touched = true;
            for (j, row) in self.transfer.iter_mut().enumerate() {
                *row = [0.0; MAX_ORDER + 2];
                row[j] = 1.0;
            }
        }
        Some(&mut self.transfer)
    }

    /// The array set up from the rate (the transfer unused).
    pub(super) fn restart(&mut self) {
        self.restart = true;
    }

    /// Column `j` times `ηʲ`, `j = 1 … q`.
    pub(super) fn rescale(&mut self, eta: f64, q: usize) {
        let Some(transfer) = self.open() else {
            return;
        };
        let mut factor = 1.0;
        for row in &mut transfer[1..=q] {
            factor *= eta;
            row.iter_mut().for_each(|x| *x *= factor);
        }
    }

    /// `z_{q+1} = a₁ · saved`, then `zⱼ += cⱼ z_{q+1}` for `j = 2 … q`.
    pub(super) fn raise(&mut self, q: usize, a1: f64, c: &[f64]) {
        let Some(transfer) = self.open() else {
            return;
        };
        let mut new = [0.0; MAX_ORDER + 2];
        new[SAVED] = a1;
        transfer[q + 1] = new;
        for j in 2..=q {
            for (x, n) in transfer[j].iter_mut().zip(new) {
                *x += c[j] * n;
            }
        }
    }

    /// `zⱼ −= cⱼ z_q` for `j = 2 … q − 1`.
    pub(super) fn lower(&mut self, q: usize, c: &[f64]) {
        let Some(transfer) = self.open() else {
            return;
        };
        let last = transfer[q];
        for j in 2..q {
            for (x, n) in transfer[j].iter_mut().zip(last) {
                *x -= c[j] * n;
            }
        }
    }
}
