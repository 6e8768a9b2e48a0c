//! [`Complex`] numbers and [`ComplexMatrix`]: the complex `n × n` system of Radau5's
//! transformed Newton iteration, `(α + iβ) I − h J`, factored by the same dense or banded
//! LU as real matrices.

use super::{
    Buffer, Matrix, Order, banded, dense, into_rows, out_of_rows, solve_stored, storage_len,
};
#[cfg(feature = "sparse")]
use super::{SparseLu, SparseParts};
use crate::{Scalar, StepError, Structure};
use core::ops::{Add, Div, Mul, Sub};

use super::buffer::INLINE_MATRIX;

/// A complex number `re + i·im`: as much of one as an LU factorisation needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Complex<T> {
    pub(crate) re: T,
    pub(crate) im: T,
}

impl<T> Complex<T> {
    pub(crate) const fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }
}

impl<T: Scalar> Add for Complex<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Complex::new(self.re + other.re, self.im + other.im)
    }
}

impl<T: Scalar> Sub for Complex<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Complex::new(self.re - other.re, self.im - other.im)
    }
}

impl<T: Scalar> Mul for Complex<T> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        Complex::new(
            self.re * other.re - self.im * other.im,
            self.re * other.im + self.im * other.re,
        )
    }
}

impl<T: Scalar> Div for Complex<T> {
    type Output = Self;
    /// Smith's division, which does not overflow where `|other|²` would.
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        if other.re.abs() >= other.im.abs() {
            let ratio = other.im / other.re;
            let denominator = other.re + other.im * ratio;
            Complex::new(
                (self.re + self.im * ratio) / denominator,
                (self.im - self.re * ratio) / denominator,
            )
        } else {
            let ratio = other.re / other.im;
            let denominator = other.re * ratio + other.im;
            Complex::new(
                (self.re * ratio + self.im) / denominator,
                (self.im * ratio - self.re) / denominator,
            )
        }
    }
}

/// A complex square matrix of a given [`Structure`], stored and factored as
/// [`Matrix`] is, made from a real Jacobian as `shift·I − J`.
#[derive(Clone, Debug)]
pub(crate) struct ComplexMatrix<T: Scalar> {
    pub(super) structure: Structure,
    pub(super) order: Order,
    pub(super) dim: usize,
    pub(super) entries: Buffer<Complex<T>, INLINE_MATRIX>,
    pub(super) pivots: Buffer<usize>,
    pub(super) reordered: Buffer<Complex<T>>,
    /// A sparse matrix's layout and LU (in `c64`), made from the real Jacobian's.
    #[cfg(feature = "sparse")]
    pub(super) sparse: Option<alloc::boxed::Box<SparseParts<faer::c64>>>,
}

impl<T: Scalar> ComplexMatrix<T> {
    /// A zero `dim × dim` matrix of `structure` with its rows in `order` (a band wider
    /// than the matrix is dense).
    ///
    /// # Errors
    ///
    /// As [`Matrix::new`].
    pub(crate) fn new(structure: Structure, order: Order, dim: usize) -> Result<Self, StepError> {
        let (structure, len) = storage_len(structure, dim)?;
        let sparse = structure == Structure::Sparse;
        let order = if sparse { Order::Natural } else { order };
        let reordered = if order == Order::Natural { 0 } else { dim };
        Ok(ComplexMatrix {
            structure,
            order,
            dim,
            entries: Buffer::zeroed(len)?,
            pivots: Buffer::zeroed(if sparse { 0 } else { dim })?,
            reordered: Buffer::zeroed(reordered)?,
            #[cfg(feature = "sparse")]
            sparse: None,
        })
    }

    /// Sets this matrix to `shift·I − scale·J` for the real `jacobian` (of the same
    /// structure and size) and factors it as `P A = L U`.
    ///
    /// # Errors
    ///
    /// [`StepError::SingularJacobian`] for a zero pivot, [`StepError::NonFiniteJacobian`]
    /// for a non-finite entry.
    pub(crate) fn factor_shifted(
        &mut self,
        jacobian: &Matrix<T>,
        scale: T,
        shift: Complex<T>,
        mass: Option<&Matrix<T>>,
    ) -> Result<(), StepError> {
        debug_assert_eq!(
            (self.dim, self.structure, self.order),
            (jacobian.dim, jacobian.structure, jacobian.order)
        );
        #[cfg(feature = "sparse")]
        if self.structure == Structure::Sparse {
            let from = jacobian
                .sparse
                .as_ref()
                .expect("a sparse Jacobian's layout");
            if self.sparse.is_none() {
                let layout = from.layout.clone();
                let lu = SparseLu::like(&layout, &from.lu)?;
                self.sparse = Some(alloc::boxed::Box::new(SparseParts { layout, lu }));
            }
            let parts = self.sparse.as_mut().expect("made above");
            let scale = -scale.to_f64();
            for (value, &j) in parts.lu.values.iter_mut().zip(jacobian.entries.iter()) {
                if !j.is_finite() {
                    return Err(StepError::NonFiniteJacobian);
                }
                *value = faer::c64::new(scale * j.to_f64(), 0.0);
            }
            let shift = faer::c64::new(shift.re.to_f64(), shift.im.to_f64());
            if let Some(mass) = mass {
                // The same layout as the Jacobian's: entry by entry.
                for (value, &m) in parts.lu.values.iter_mut().zip(mass.entries.iter()) {
                    *value += shift * m.to_f64();
                }
            } else {
                for i in 0..self.dim {
                    parts.lu.values[parts.layout.diagonal(i)] += shift;
                }
            }
            return parts.lu.factor(&parts.layout);
        }
        for (entry, &j) in self.entries.iter_mut().zip(jacobian.entries.iter()) {
            *entry = Complex::new(-(scale * j), T::zero());
        }
        let n = self.dim;
        if let Some(mass) = mass {
            // `shift·M − scale·J`, entry by entry (the mass has the Jacobian's layout).
            for (entry, &m) in self.entries.iter_mut().zip(mass.entries.iter()) {
                *entry = *entry + Complex::new(shift.re * m, shift.im * m);
            }
        }
        for i in (0..n).filter(|_| mass.is_none()) {
            let at = match self.structure {
                Structure::Dense => i * n + i,
                Structure::Banded { lower, upper } => banded::index(i, i, lower, upper),
                Structure::Sparse => unreachable!("factored above"),
            };
            self.entries[at] = self.entries[at] + shift;
        }
        match self.structure {
            Structure::Dense => dense::factor(&mut self.entries, &mut self.pivots, n),
            Structure::Banded { lower, upper } => {
                banded::factor(&mut self.entries, &mut self.pivots, n, lower, upper)
            }
            Structure::Sparse => unreachable!("factored above"),
        }
    }

    /// Solves `A x = b` with the last factorisation, `b` in `rhs`, `x` out, both over the
    /// unknowns.
    pub(crate) fn solve(&mut self, rhs: &mut [Complex<T>]) {
        #[cfg(feature = "sparse")]
        if let Some(parts) = &mut self.sparse {
            for (to, from) in parts.lu.rhs.iter_mut().zip(rhs.iter()) {
                *to = faer::c64::new(from.re.to_f64(), from.im.to_f64());
            }
            parts.lu.solve();
            for (to, from) in rhs.iter_mut().zip(parts.lu.rhs.iter()) {
                *to = Complex::new(T::from_f64(from.re), T::from_f64(from.im));
            }
            return;
        }
        let natural = self.order == Order::Natural;
        if !natural {
            into_rows(self.order, rhs, &mut self.reordered);
        }
        let rows = if natural {
            &mut *rhs
        } else {
            &mut self.reordered[..]
        };
        solve_stored(self.structure, &self.entries, &self.pivots, self.dim, rows);
        if !natural {
            out_of_rows(self.order, &self.reordered, rhs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Complex, ComplexMatrix};
    use crate::Structure;
    use crate::linalg::{Matrix, Order};

    /// `(s·I − J) x = b` solved in complex arithmetic matches the real `2n × 2n` system
    /// `[[Re s·I − J, −Im s·I], [Im s·I, Re s·I − J]] [Re x; Im x] = [Re b; Im b]`, for a
    /// dense and a tridiagonal `J`.
    #[test]
    fn complex_solve_matches_the_real_embedding() {
        let n = 5;
        let shift = Complex::new(2.5, -1.75);
        for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
            let mut jacobian = Matrix::<f64>::new(structure, Order::Natural, n).unwrap();
            let mut real = Matrix::<f64>::new(Structure::Dense, Order::Natural, 2 * n).unwrap();
            {
                let mut j = jacobian.as_jacobian();
                let mut r = real.as_jacobian();
                for row in 0..n {
                    for col in 0..n {
                        if j.contains((row, col)) {
                            let value = ((row * 7 + col * 3) as f64).sin() * 3.0;
                            j[(row, col)] = value;
                            r[(row, col)] = -value;
                            r[(row + n, col + n)] = -value;
                        }
                    }
                    r[(row, row)] += shift.re;
                    r[(row + n, row + n)] += shift.re;
                    r[(row, row + n)] = -shift.im;
                    r[(row + n, row)] = shift.im;
                }
            }
            let mut complex = ComplexMatrix::<f64>::new(structure, Order::Natural, n).unwrap();
            complex.factor_shifted(&jacobian, 1.0, shift, None).unwrap();
            real.factor().unwrap();
            let b: Vec<Complex<f64>> = (0..n)
                .map(|i| Complex::new((i as f64).cos(), (i as f64 * 0.5).sin()))
                .collect();
            let mut x = b.clone();
            complex.solve(&mut x);
            let mut y: Vec<f64> = b
                .iter()
                .map(|c| c.re)
                .chain(b.iter().map(|c| c.im))
                .collect();
            real.solve(&mut y);
            for i in 0..n {
                assert!((x[i].re - y[i]).abs() < 1e-12, "{structure:?} re {i}");
                assert!((x[i].im - y[i + n]).abs() < 1e-12, "{structure:?} im {i}");
            }
        }
    }

    /// Smith's division: `(a / b) · b = a`, whichever part of `b` is larger, and without
    /// overflow where `|b|²` would overflow.
    #[test]
    fn division() {
        let a = Complex::new(3.0_f64, -2.0);
        for b in [
            Complex::new(0.5, 4.0),
            Complex::new(-4.0, 0.25),
            Complex::new(1e300, 1e300),
        ] {
            let q = a / b;
            let back = q * b;
            assert!((back.re - a.re).abs() < 1e-12 && (back.im - a.im).abs() < 1e-12);
        }
    }
}
