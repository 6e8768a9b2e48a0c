//! [`Buffer`]: numbers on the stack when few, on the heap when many.

use crate::StepError;
use core::ops::{Deref, DerefMut};

/// How many numbers a [`Buffer`] keeps inline: a dense 16 × 16 matrix, enough for a rigid
/// body (13 unknowns) or a particle in space (6), so that stepping such a state through a
/// fresh workspace never allocates.
const INLINE: usize = 256;

/// A slice of numbers, inline up to [`INLINE`] of them and on the heap beyond.
#[derive(Clone, Debug)]
pub(crate) enum Buffer<T> {
    Inline([T; INLINE], usize),
    #[cfg(feature = "alloc")]
    Heap(alloc::vec::Vec<T>),
}

impl<T: Copy + Default> Buffer<T> {
    /// `len` zeros (`T::default()`).
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when `len` needs the heap and the crate was built
    /// without `alloc`.
    pub(crate) fn zeroed(len: usize) -> Result<Self, StepError> {
        if len <= INLINE {
            return Ok(Buffer::Inline([T::default(); INLINE], len));
        }
        #[cfg(feature = "alloc")]
        {
            Ok(Buffer::Heap(alloc::vec![T::default(); len]))
        }
        #[cfg(not(feature = "alloc"))]
        {
            Err(StepError::TooManyUnknowns {
                unknowns: len,
                capacity: INLINE,
            })
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Buffer::Inline(values, len) => &values[..*len],
            #[cfg(feature = "alloc")]
            Buffer::Heap(values) => values,
        }
    }
}

impl<T> DerefMut for Buffer<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Buffer::Inline(values, len) => &mut values[..*len],
            #[cfg(feature = "alloc")]
            Buffer::Heap(values) => values,
        }
    }
}
