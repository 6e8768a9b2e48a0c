//! [`Vector`]: values of any size that integrators combine in place.

use crate::{Scalar, SmallVector};
use num_traits::{Float, Zero};

/// A real vector of any size, combined in place: the velocities, forces and stage values of
/// a state, whether it is one particle or a million unknowns.
///
/// Every [`SmallVector`] is a `Vector` (its size is fixed at compile time and its operations
/// are by value), and so are `Vec<V>` and `Box<[V]>` of any `SmallVector` `V` (with the
/// `alloc` feature, on by default) and nalgebra's `DVector` (with the `nalgebra` feature).
/// Integrators only ever call these operations, so a value whose size is known at run time
/// is stepped without allocating: buffers are made once, with
/// [`zero_like`](Vector::zero_like), and then overwritten.
///
/// Coordinates are numbered from 0 in the order the type lists them (for `Vec<DVec3>`:
/// `x₀, y₀, z₀, x₁, …`).
///
/// # Example
///
/// ```
/// use glam::DVec3;
/// use timestep::Vector;
///
/// let mut y = vec![DVec3::X, DVec3::Y];
/// let x = vec![DVec3::ONE, DVec3::Z];
/// y.add_scaled_assign(&x, 2.0); // y += 2 x
/// assert_eq!(y, [DVec3::new(3.0, 2.0, 2.0), DVec3::new(0.0, 1.0, 2.0)]);
/// assert_eq!(y.dim(), 6);
/// assert_eq!(y.component(4), 1.0);
/// ```
pub trait Vector: Clone + core::fmt::Debug {
    /// The field the vector is over.
    type Scalar: Scalar;

    /// The number of coordinates.
    #[must_use]
    fn dim(&self) -> usize;

    /// A zero vector of the same size as `self`. (It may allocate; integrators call it only
    /// when they make their buffers.)
    #[must_use]
    fn zero_like(&self) -> Self;

    /// The zero vector, for types whose size is fixed at compile time; `None` for types
    /// whose size is known only at run time, which must be sized from an example with
    /// [`zero_like`](Vector::zero_like).
    #[must_use]
    fn fixed_zero() -> Option<Self> {
        None
    }

    /// Overwrites `self` with `other`, which has the same size.
    ///
    /// # Panics
    ///
    /// If the sizes differ.
    fn assign(&mut self, other: &Self);

    /// `self += other · factor`, the update at the heart of every integrator.
    ///
    /// # Panics
    ///
    /// If the sizes differ.
    fn add_scaled_assign(&mut self, other: &Self, factor: Self::Scalar);

    /// `self ·= factor`.
    fn scale_assign(&mut self, factor: Self::Scalar);

    /// Sets every coordinate to zero (also those that were infinite or `NaN`).
    fn set_zero(&mut self);

    /// Coordinate `index`.
    ///
    /// # Panics
    ///
    /// If `index >= self.dim()`.
    #[must_use]
    fn component(&self, index: usize) -> Self::Scalar;

    /// Sets coordinate `index`.
    ///
    /// # Panics
    ///
    /// If `index >= self.dim()`.
    fn set_component(&mut self, index: usize, value: Self::Scalar);

    /// The largest absolute coordinate (the ∞-norm); `NaN` if any coordinate is `NaN`.
    #[must_use]
    fn max_abs(&self) -> Self::Scalar {
        let mut largest = Self::Scalar::zero();
        for i in 0..self.dim() {
            let c = self.component(i).abs();
            if c.is_nan() {
                return c;
            }
            largest = largest.max(c);
        }
        largest
    }

    /// `true` when no coordinate is infinite or `NaN`.
    #[must_use]
    fn is_finite(&self) -> bool {
        (0..self.dim()).all(|i| self.component(i).is_finite())
    }

    /// The coordinates as one slice, in [`component`](Vector::component)'s order, when the
    /// vector keeps them so (`Vec<f64>`, `Box<[f32]>`, `Vec<[f64; 3]>`, numbers, arrays,
    /// nalgebra's `DVector`); `None` (the default) otherwise. Implicit methods run their
    /// per-coordinate loops over it instead of through `component`.
    ///
    /// ```
    /// use glam::DVec3;
    /// use timestep::Vector;
    ///
    /// let y = vec![1.0_f64, 2.0, 3.0];
    /// assert_eq!(y.as_scalars(), Some(&[1.0, 2.0, 3.0][..]));
    /// assert_eq!(vec![DVec3::X].as_scalars(), None);
    /// ```
    #[inline]
    #[must_use]
    fn as_scalars(&self) -> Option<&[Self::Scalar]> {
        None
    }

    /// [`as_scalars`](Vector::as_scalars), to write through.
    ///
    /// ```
    /// use timestep::Vector;
    ///
    /// let mut y = vec![1.0_f64, 2.0];
    /// y.as_scalars_mut().unwrap()[0] = 4.0;
    /// assert_eq!(y, [4.0, 2.0]);
    /// ```
    #[inline]
    fn as_scalars_mut(&mut self) -> Option<&mut [Self::Scalar]> {
        None
    }
}

impl<V: SmallVector> Vector for V {
    type Scalar = V::Scalar;

    #[inline(always)]
    fn dim(&self) -> usize {
        V::DIM
    }
    #[inline(always)]
    fn zero_like(&self) -> Self {
        V::zero()
    }
    #[inline(always)]
    fn fixed_zero() -> Option<Self> {
        Some(V::zero())
    }
    #[inline(always)]
    fn assign(&mut self, other: &Self) {
        // Numbers and arrays of them a coordinate at a time, which the compiler may fuse
        // with the code that computed `other`: copied whole, an array of 36 `f64` returned
        // by a right-hand side went through two `memcpy`s.
        if let (Some(y), Some(x)) = (
            V::slice_as_scalars_mut(core::slice::from_mut(self)),
            V::slice_as_scalars(core::slice::from_ref(other)),
        ) {
            for (y, &x) in y.iter_mut().zip(x) {
                *y = x;
            }
            return;
        }
        *self = *other;
    }
    #[inline(always)]
    fn add_scaled_assign(&mut self, other: &Self, factor: V::Scalar) {
        // Numbers and arrays of them in place: by value, an array of 28 `f64` went into an
        // out-of-line `add_scaled` as two copies and came back as a third (DOP853 on 28
        // unknowns: a third of a step). The same sums, so the same bits.
        if let (Some(y), Some(x)) = (
            V::slice_as_scalars_mut(core::slice::from_mut(self)),
            V::slice_as_scalars(core::slice::from_ref(other)),
        ) {
            for (y, &x) in y.iter_mut().zip(x) {
                *y = *y + x * factor;
            }
            return;
        }
        *self = self.add_scaled(*other, factor);
    }
    #[inline(always)]
    fn scale_assign(&mut self, factor: V::Scalar) {
        if let Some(y) = V::slice_as_scalars_mut(core::slice::from_mut(self)) {
            for y in y {
                *y = *y * factor;
            }
            return;
        }
        *self = self.scale(factor);
    }
    #[inline(always)]
    fn set_zero(&mut self) {
        *self = V::zero();
    }
    #[inline]
    fn component(&self, index: usize) -> V::Scalar {
        SmallVector::component(self, index)
    }
    #[inline]
    fn set_component(&mut self, index: usize, value: V::Scalar) {
        SmallVector::set_component(self, index, value);
    }
    #[inline]
    fn max_abs(&self) -> V::Scalar {
        SmallVector::max_abs(self)
    }
    #[inline]
    fn is_finite(&self) -> bool {
        SmallVector::is_finite(self)
    }
    #[inline]
    fn as_scalars(&self) -> Option<&[V::Scalar]> {
        V::slice_as_scalars(core::slice::from_ref(self))
    }
    #[inline]
    fn as_scalars_mut(&mut self) -> Option<&mut [V::Scalar]> {
        V::slice_as_scalars_mut(core::slice::from_mut(self))
    }
}

/// The same size, or a panic that says what went wrong: combining vectors of different
/// sizes is a bug in the caller (a state that changed size under a workspace made for it).
#[cfg(feature = "alloc")]
#[inline(always)]
#[track_caller]
fn same_len(a: usize, b: usize) {
    if a != b {
        different_lengths(a, b);
    }
}

#[cfg(feature = "alloc")]
#[cold]
#[inline(never)]
#[track_caller]
fn different_lengths(a: usize, b: usize) -> ! {
    panic!(
        "vectors of different lengths combined ({a} and {b} elements): a state's size changed \
         under buffers made for it; call `reset` on the stepper after resizing a state"
    )
}

/// `Vec<V>` and `Box<[V]>`: a run-time number of fixed-size elements, combined element by
/// element.
#[cfg(feature = "alloc")]
mod slices {
    use super::{Vector, same_len};
    use crate::SmallVector;
    use alloc::boxed::Box;
    use alloc::vec::Vec;
    use num_traits::Float;

    macro_rules! impl_slice_vector {
        ($($container:ty),*) => {$(
            impl<V: SmallVector> Vector for $container {
                type Scalar = V::Scalar;

                #[inline]
                fn dim(&self) -> usize {
                    self.len() * V::DIM
                }
                fn zero_like(&self) -> Self {
                    self.iter().map(|_| V::zero()).collect()
                }
                #[inline]
                #[track_caller]
                fn assign(&mut self, other: &Self) {
                    same_len(self.len(), other.len());
                    self.copy_from_slice(other);
                }
                #[inline]
                #[track_caller]
                fn add_scaled_assign(&mut self, other: &Self, factor: V::Scalar) {
                    same_len(self.len(), other.len());
                    for (y, x) in self.iter_mut().zip(other.iter()) {
                        *y = y.add_scaled(*x, factor);
                    }
                }
                #[inline]
                fn scale_assign(&mut self, factor: V::Scalar) {
                    for y in self.iter_mut() {
                        *y = y.scale(factor);
                    }
                }
                #[inline]
                fn set_zero(&mut self) {
                    self.fill(V::zero());
                }
                #[inline]
                #[track_caller]
                fn component(&self, index: usize) -> V::Scalar {
                    self[index / V::DIM].component(index % V::DIM)
                }
                #[inline]
                #[track_caller]
                fn set_component(&mut self, index: usize, value: V::Scalar) {
                    self[index / V::DIM].set_component(index % V::DIM, value);
                }
                fn max_abs(&self) -> V::Scalar {
                    let mut largest = <V::Scalar as num_traits::Zero>::zero();
                    for v in self.iter() {
                        let m = v.max_abs();
                        if m.is_nan() {
                            return m;
                        }
                        largest = largest.max(m);
                    }
                    largest
                }
                fn is_finite(&self) -> bool {
                    self.iter().all(|v| v.is_finite())
                }
                #[inline]
                fn as_scalars(&self) -> Option<&[V::Scalar]> {
                    V::slice_as_scalars(self)
                }
                #[inline]
                fn as_scalars_mut(&mut self) -> Option<&mut [V::Scalar]> {
                    V::slice_as_scalars_mut(self)
                }
            }
        )*};
    }
    impl_slice_vector!(Vec<V>, Box<[V]>);
}

/// Runs `$body` for each non-zero weight of `weights`, with its index `$j` and value `$w`,
/// unrolled over the indices so that constant weights fold away. Stops at the end of the
/// weights, which matters where they are read at run time (a Rosenbrock tableau's: 0.7% of
/// Rodas4 on Van der Pol).
macro_rules! each_weight {
    ($weights:ident, |$j:ident, $w:ident| $body:block) => {
        each_weight!(@ $weights, |$j, $w| $body;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25)
    };
    (@ $weights:ident, |$j:ident, $w:ident| $body:block; $($index:literal)*) => {'weights: {$(
        if $index >= $weights.len() {
            break 'weights;
        }
        if $weights[$index] != 0.0 {
            let ($j, $w) = ($index, $weights[$index]);
            $body
        }
    )*}};
}

/// The fewest scalars of a fixed-size vector whose sum of rates is formed in one pass
/// ([`fused_sum`], [`sum_each`]); below, term by term, which for a few numbers keeps the whole sum in
/// registers anyway. A vector sized at run time always takes the one pass.
const FUSED_FROM: usize = 8;

/// `out = Σⱼ wⱼ kⱼ` in one pass over memory, when every rate is a slice of scalars of
/// `out`'s length (`false`, and nothing written, otherwise): blocks of scalars summed in
/// registers, the terms added from `first` in the weights' order, so with the roundings of
/// the term-by-term sum. Term by term, an array of 28 `f64` went through memory once per
/// term (DOP853 on 28 unknowns: twice the instructions of a hand-written step).
#[inline(always)]
fn fused_sum<D: Vector>(weights: &[f64], rates: &[D], first: usize, out: &mut [D::Scalar]) -> bool {
    const BLOCK: usize = 8;
    let n = out.len();
    each_weight!(weights, |j, _w| {
        if rates[j].as_scalars().map(<[D::Scalar]>::len) != Some(n) {
            return false;
        }
    });
    let mut offset = 0;
    let mut blocks = out.chunks_exact_mut(BLOCK);
    for block in &mut blocks {
        sum_block::<D, BLOCK>(weights, rates, first, offset, as_array(block));
        offset += BLOCK;
    }
    let mut quarters = blocks.into_remainder().chunks_exact_mut(BLOCK / 2);
    for block in &mut quarters {
        sum_block::<D, { BLOCK / 2 }>(weights, rates, first, offset, as_array(block));
        offset += BLOCK / 2;
    }
    for value in quarters.into_remainder() {
        sum_block(weights, rates, first, offset, core::array::from_mut(value));
        offset += 1;
    }
    true
}

/// A chunk of exactly `B` scalars as an array.
#[inline(always)]
fn as_array<T, const B: usize>(chunk: &mut [T]) -> &mut [T; B] {
    chunk.try_into().expect("a chunk of the block's size")
}

/// [`fused_sum`]'s `B` scalars from `offset`.
#[inline(always)]
fn sum_block<D: Vector, const B: usize>(
    weights: &[f64],
    rates: &[D],
    first: usize,
    offset: usize,
    out: &mut [D::Scalar; B],
) {
    let mut acc = [D::Scalar::zero(); B];
    each_weight!(weights, |j, w| {
        let w = D::Scalar::from_f64(w);
        let Some(rate) = rates[j].as_scalars() else {
            return;
        };
        let rate: &[D::Scalar; B] = rate[offset..offset + B]
            .try_into()
            .expect("a block within the rate, whose length was checked");
        if j == first {
            for (a, &r) in acc.iter_mut().zip(rate) {
                *a = r * w;
            }
        } else {
            for (a, &r) in acc.iter_mut().zip(rate) {
                *a = *a + r * w;
            }
        }
    });
    *out = acc;
}

/// The most weights [`each_weight!`] unrolls over: as many as a tableau has stages.
const MAX_WEIGHTS: usize = 26;

/// Calls `each(i, Σⱼ wⱼ kⱼ[i])` for every coordinate `i < n`, in one loop over the
/// coordinates with every term of a coordinate's sum in its body, when at least two weights
/// are non-zero and every rate with one is a slice of `n` scalars (`false`, and nothing
/// called, otherwise). The terms are added from the first in the weights' order, so with
/// the roundings of the term-by-term sum.
///
/// For weights known at compile time (a method's own tableau, every test of a weight
/// folded away) this is the loop dop853.f writes, `Y1(I) = Y(I) + H*(A21*K1(I) + …)`,
/// vectorised along the coordinates: a stage of DOP853 on 36 unknowns (nine terms, summed
/// into the probe) takes 600 instructions, against 778 for [`fused_sum`]'s blocks and a
/// separate pass for the probe, and on 1000 unknowns in a `Vec` 16.6 k against 21.9 k. For
/// weights read at run time (an interpolant's, a Rosenbrock tableau's) it would test every
/// weight at every coordinate (3.7 times the instructions of the blocks there): those go
/// through [`combination`].
// Inlined only when optimised, as `combination`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn sum_each<D: Vector>(
    weights: &[f64],
    rates: &[D],
    n: usize,
    each: impl FnMut(usize, D::Scalar),
) -> bool {
    sum_each_of::<D>(weights, |j| rates[j].as_scalars(), n, each)
}

/// [`sum_each`] with the coordinates of the rate of weight `j` given by `rate(j)`: a
/// stage whose newest rate is still where the right-hand side returned it.
// Inlined only when optimised, as `combination`.
#[cfg_attr(not(debug_assertions), inline(always))]
// The coordinate indexes every term's rate at once.
#[allow(clippy::needless_range_loop)]
pub(crate) fn sum_each_of<'a, D: Vector + 'a>(
    weights: &[f64],
    rate: impl Fn(usize) -> Option<&'a [D::Scalar]>,
    n: usize,
    mut each: impl FnMut(usize, D::Scalar),
) -> bool {
    if D::fixed_zero().is_some() && n < FUSED_FROM {
        // A few numbers are summed term by term in registers anyway (the pairs on Lorenz,
        // three unknowns, took up to 1.6% more instructions through this loop).
        return false;
    }
    let mut slices: [&[D::Scalar]; MAX_WEIGHTS] = [&[]; MAX_WEIGHTS];
    let mut terms = 0;
    let mut first = usize::MAX;
    each_weight!(weights, |j, _w| {
        match rate(j) {
            Some(rate) if rate.len() == n => slices[j] = &rate[..n],
            _ => return false,
        }
        terms += 1;
        first = first.min(j);
    });
    if terms < 2 {
        return false;
    }
    for i in 0..n {
        let mut sum = D::Scalar::zero();
        each_weight!(weights, |j, w| {
            let term = slices[j][i] * D::Scalar::from_f64(w);
            sum = if j == first { term } else { sum + term };
        });
        each(i, sum);
    }
    true
}

/// `Σⱼ wⱼ kⱼ` as a direction and a factor: the one rate itself and its weight when only
/// one weight is non-zero (no copy: a classic RK4 stage probes along `k` by `dt/2`), and
/// otherwise the sum, written into `sum`, with factor 1. Unrolled like the stages, so that
/// constant weights fold away (as a loop it kept RK4 on a particle 3× slower than by hand).
/// For weights known only at run time; [`constant_combination`] for a method's own.
// Inlined only when optimised, as `Tableau::stages`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn combination<'a, D: Vector>(
    weights: &[f64],
    rates: &'a [D],
    sum: &'a mut D,
) -> (&'a D, f64) {
    weighted_sum(weights, rates, sum, false)
}

/// [`combination`] for weights known at compile time, summed by [`sum_each`]: the same
/// direction, factor and roundings.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn constant_combination<'a, D: Vector>(
    weights: &[f64],
    rates: &'a [D],
    sum: &'a mut D,
) -> (&'a D, f64) {
    weighted_sum(weights, rates, sum, true)
}

/// [`combination`], or with `constant` [`constant_combination`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn weighted_sum<'a, D: Vector>(
    weights: &[f64],
    rates: &'a [D],
    sum: &'a mut D,
    constant: bool,
) -> (&'a D, f64) {
    let mut terms = 0;
    let mut first = usize::MAX;
    let mut last = 0;
    each_weight!(weights, |j, _w| {
        terms += 1;
        first = first.min(j);
        last = j;
    });
    match terms {
        0 => {
            sum.set_zero();
            (sum, 0.0)
        }
        1 => (&rates[last], weights[last]),
        _ => {
            let sized_at_run_time = D::fixed_zero().is_none();
            if let Some(out) = sum.as_scalars_mut() {
                let n = out.len();
                let fused = if constant {
                    sum_each(
                        weights,
                        rates,
                        n,
                        #[inline(always)]
                        |i, value| out[i] = value,
                    )
                } else {
                    (sized_at_run_time || n >= FUSED_FROM) && fused_sum(weights, rates, first, out)
                };
                if fused {
                    return (sum, 1.0);
                }
            }
            each_weight!(weights, |j, w| {
                let weight = D::Scalar::from_f64(w);
                if j == first {
                    sum.assign(&rates[j]);
                    sum.scale_assign(weight);
                } else {
                    sum.add_scaled_assign(&rates[j], weight);
                }
            });
            (sum, 1.0)
        }
    }
}
