//! [`Stacked`]: a state sized at run time and its sensitivities, stepped in place.

use super::{Augmented, SensitivityError};
use crate::Vector;
use alloc::vec::Vec;
use num_traits::Float;

/// A state of any [`Vector`] type (`Vec<f64>`, `Vec<DVec3>`, nalgebra's `DVector`, …)
/// and its sensitivities, one block each: the [`Augmented`] state for large systems,
/// combined in place block by block, so that a [`Stepper`](crate::Stepper) steps it with
/// no allocation after the first step. All blocks have the state's size.
///
/// ```
/// use timestep::sensitivity::{Augmented, Stacked};
/// use timestep::Vector;
///
/// let y = Stacked::stack(vec![1.0, 2.0, 3.0], 2)?;
/// assert_eq!(y.dim(), 9);
/// assert_eq!(y.component(4), 0.0); // ∂y₁/∂θ₀
/// assert_eq!(y.state(), &vec![1.0, 2.0, 3.0]);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
#[derive(Debug, PartialEq)]
pub struct Stacked<V> {
    blocks: Vec<V>,
}

impl<V: Clone> Clone for Stacked<V> {
    fn clone(&self) -> Self {
        Stacked {
            blocks: self.blocks.clone(),
        }
    }

    // Reuses every block's memory: methods copy states into probes this way each stage.
    fn clone_from(&mut self, source: &Self) {
        self.blocks.clone_from(&source.blocks);
    }
}

impl<V: Vector> Stacked<V> {
    /// The size of one block.
    #[inline(always)]
    fn block_dim(&self) -> usize {
        self.blocks[0].dim()
    }
}

impl<V: Vector> Vector for Stacked<V> {
    type Scalar = V::Scalar;

    #[inline]
    fn dim(&self) -> usize {
        self.blocks.len() * self.block_dim()
    }

    fn zero_like(&self) -> Self {
        Stacked {
            blocks: self.blocks.iter().map(Vector::zero_like).collect(),
        }
    }

    #[inline]
    #[track_caller]
    fn assign(&mut self, other: &Self) {
        same_blocks(self, other);
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            a.assign(b);
        }
    }

    #[inline]
    #[track_caller]
    fn add_scaled_assign(&mut self, other: &Self, factor: V::Scalar) {
        same_blocks(self, other);
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            a.add_scaled_assign(b, factor);
        }
    }

    #[inline]
    fn scale_assign(&mut self, factor: V::Scalar) {
        for a in &mut self.blocks {
            a.scale_assign(factor);
        }
    }

    #[inline]
    fn set_zero(&mut self) {
        for a in &mut self.blocks {
            a.set_zero();
        }
    }

    #[inline]
    #[track_caller]
    fn component(&self, index: usize) -> V::Scalar {
        let n = self.block_dim();
        self.blocks[index / n].component(index % n)
    }

    #[inline]
    #[track_caller]
    fn set_component(&mut self, index: usize, value: V::Scalar) {
        let n = self.block_dim();
        self.blocks[index / n].set_component(index % n, value);
    }

    fn max_abs(&self) -> V::Scalar {
        let mut largest = <V::Scalar as num_traits::Zero>::zero();
        for block in &self.blocks {
            let m = block.max_abs();
            if m.is_nan() {
                return m;
            }
            largest = largest.max(m);
        }
        largest
    }

    fn is_finite(&self) -> bool {
        self.blocks.iter().all(Vector::is_finite)
    }
}

/// Combining augmented states of different block counts is a caller's bug (a state
/// resized under buffers made for it); say so rather than zip into a shorter answer.
#[inline(always)]
#[track_caller]
fn same_blocks<V>(a: &Stacked<V>, b: &Stacked<V>) {
    assert!(
        a.blocks.len() == b.blocks.len(),
        "augmented states of {} and {} blocks combined: a state's size changed under \
         buffers made for it; call `reset` on the stepper after resizing a state",
        a.blocks.len(),
        b.blocks.len()
    );
}

impl<V: Vector> Augmented for Stacked<V> {
    type Block = V;

    #[inline(always)]
    fn blocks(&self) -> &[V] {
        &self.blocks
    }

    #[inline(always)]
    fn blocks_mut(&mut self) -> &mut [V] {
        &mut self.blocks
    }

    fn stack(state: V, sensitivities: usize) -> Result<Self, SensitivityError> {
        let mut blocks = Vec::with_capacity(1 + sensitivities);
        blocks.extend((0..sensitivities).map(|_| state.zero_like()));
        blocks.insert(0, state);
        Ok(Stacked { blocks })
    }
}
