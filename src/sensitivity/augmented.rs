//! [`Augmented`]: a state together with its sensitivities, as one state every method steps.

use super::SensitivityError;
use crate::{SmallVector, Vector};

/// A state `y` and its sensitivities `s₁ … s_P` (`sᵢ = ∂y/∂θᵢ`) stacked as one
/// [`Vector`], block 0 the state and block `i` the sensitivity `i − 1`: every [`Vector`]
/// is a [`State`](crate::State), so every method, explicit or implicit, fixed-step or
/// adaptive, steps it as a first-order system (the variational equations alongside the
/// state), and [`Forward`](super::Forward) gives its rate.
///
/// Two kinds, as for every state in the crate:
///
/// - `[V; K]` of a [`SmallVector`] `V` (`K = 1 + P`): stepped by value, on the stack;
/// - [`Stacked<V>`](super::Stacked) of any [`Vector`] `V` (`Vec<f64>`, …): in place, with
///   no allocation per step.
///
/// Coordinates are numbered block by block: the state's, then each sensitivity's.
///
/// ```
/// use timestep::sensitivity::Augmented;
///
/// let mut y = <[[f64; 2]; 3]>::stack([1.0, 2.0], 2)?;
/// assert_eq!(*y.state(), [1.0, 2.0]);
/// assert_eq!(*y.sensitivity(1), [0.0, 0.0]);
/// y.blocks_mut()[2][0] = 5.0;
/// assert_eq!(y.sensitivity(1)[0], 5.0);
/// assert_eq!(y.sensitivity_count(), 2);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
pub trait Augmented: Vector {
    /// The type of the state, and of each of its sensitivities.
    type Block: Vector<Scalar = Self::Scalar>;

    /// The blocks: the state, then the sensitivities.
    #[must_use]
    fn blocks(&self) -> &[Self::Block];

    /// The blocks, to write through. Each keeps its size.
    fn blocks_mut(&mut self) -> &mut [Self::Block];

    /// `state` followed by `sensitivities` zero blocks of its size.
    ///
    /// # Errors
    ///
    /// [`SensitivityError::BlockCount`] when the type holds a fixed number of blocks other
    /// than `1 + sensitivities`.
    fn stack(state: Self::Block, sensitivities: usize) -> Result<Self, SensitivityError>;

    /// The state `y` (block 0).
    #[inline]
    #[must_use]
    fn state(&self) -> &Self::Block {
        &self.blocks()[0]
    }

    /// Sensitivity `i`, `∂y/∂θᵢ`: coordinate `j` of it is `∂yⱼ/∂θᵢ`.
    ///
    /// # Panics
    ///
    /// If `i` is not below [`sensitivity_count`](Augmented::sensitivity_count).
    #[inline]
    #[must_use]
    fn sensitivity(&self, i: usize) -> &Self::Block {
        let count = self.sensitivity_count();
        match self.blocks().get(1 + i) {
            Some(block) => block,
            None => panic!("sensitivity {i} asked of an augmented state holding {count}"),
        }
    }

    /// The number of sensitivities (the blocks after the state).
    #[inline]
    #[must_use]
    fn sensitivity_count(&self) -> usize {
        self.blocks().len() - 1
    }
}

impl<V: SmallVector, const K: usize> Augmented for [V; K] {
    type Block = V;

    #[inline(always)]
    fn blocks(&self) -> &[V] {
        self
    }

    #[inline(always)]
    fn blocks_mut(&mut self) -> &mut [V] {
        self
    }

    fn stack(state: V, sensitivities: usize) -> Result<Self, SensitivityError> {
        if K != 1 + sensitivities {
            return Err(SensitivityError::BlockCount {
                needed: 1 + sensitivities,
                held: K,
            });
        }
        Ok(core::array::from_fn(
            |i| if i == 0 { state } else { V::zero() },
        ))
    }
}
