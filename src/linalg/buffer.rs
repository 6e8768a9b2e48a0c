//! [`Buffer`]: numbers on the stack when few, on the heap when many.

use crate::StepError;
use core::ops::{Deref, DerefMut};

/// How many unknowns a [`Buffer`] keeps inline by default: enough for a rigid body (13) or
/// a particle in space (6), so that stepping such a state through a fresh workspace never
/// allocates. A dense matrix of that many unknowns takes [`INLINE_MATRIX`] entries.
pub(crate) const INLINE: usize = 16;

/// Entries of a dense [`INLINE`] × [`INLINE`] matrix.
pub(crate) const INLINE_MATRIX: usize = INLINE * INLINE;

/// A slice of numbers, inline up to `CAPACITY` of them and on the heap beyond.
#[derive(Clone, Debug)]
pub(crate) enum Buffer<T, const CAPACITY: usize = INLINE> {
    Inline([T; CAPACITY], usize),
    #[cfg(feature = "alloc")]
    Heap(alloc::vec::Vec<T>),
}

impl<T: Copy + Default, const CAPACITY: usize> Buffer<T, CAPACITY> {
    /// `len` zeros (`T::default()`).
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when `len` needs the heap and the crate was built
    /// without `alloc`; [`StepError::OutOfMemory`] when the heap cannot give it.
    pub(crate) fn zeroed(len: usize) -> Result<Self, StepError> {
        if len <= CAPACITY {
            return Ok(Buffer::Inline([T::default(); CAPACITY], len));
        }
        #[cfg(feature = "alloc")]
        {
            // Refused, not aborted, when the allocator says no.
            let mut values = alloc::vec::Vec::new();
            values
                .try_reserve_exact(len)
                .map_err(|_| StepError::OutOfMemory {
                    bytes: (len as u64).saturating_mul(core::mem::size_of::<T>() as u64),
                })?;
            values.resize(len, T::default());
            Ok(Buffer::Heap(values))
        }
        #[cfg(not(feature = "alloc"))]
        {
            Err(StepError::TooManyUnknowns {
                unknowns: len,
                capacity: CAPACITY,
            })
        }
    }
}

impl<T, const CAPACITY: usize> Deref for Buffer<T, CAPACITY> {
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

impl<T, const CAPACITY: usize> DerefMut for Buffer<T, CAPACITY> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Buffer::Inline(values, len) => &mut values[..*len],
            #[cfg(feature = "alloc")]
            Buffer::Heap(values) => values,
        }
    }
}

/// Saved as its numbers, a sequence.
#[cfg(feature = "serde")]
impl<T: serde::Serialize, const CAPACITY: usize> serde::Serialize for Buffer<T, CAPACITY> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Loaded as [`zeroed`](Buffer::zeroed) makes it: inline up to `CAPACITY` numbers, on the
/// heap beyond (refused without `alloc`).
#[cfg(feature = "serde")]
impl<'de, T, const CAPACITY: usize> serde::Deserialize<'de> for Buffer<T, CAPACITY>
where
    T: serde::Deserialize<'de> + Copy + Default,
{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Numbers<T, const CAPACITY: usize>(core::marker::PhantomData<T>);

        impl<'de, T, const CAPACITY: usize> serde::de::Visitor<'de> for Numbers<T, CAPACITY>
        where
            T: serde::Deserialize<'de> + Copy + Default,
        {
            type Value = Buffer<T, CAPACITY>;

            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a sequence of numbers")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut inline = [T::default(); CAPACITY];
                let mut len = 0;
                while len < CAPACITY {
                    match seq.next_element()? {
                        Some(value) => inline[len] = value,
                        None => return Ok(Buffer::Inline(inline, len)),
                    }
                    len += 1;
                }
                let Some(next) = seq.next_element::<T>()? else {
                    return Ok(Buffer::Inline(inline, len));
                };
                #[cfg(feature = "alloc")]
                {
                    let mut values = alloc::vec::Vec::from(inline);
                    values.push(next);
                    while let Some(value) = seq.next_element()? {
                        values.push(value);
                    }
                    Ok(Buffer::Heap(values))
                }
                #[cfg(not(feature = "alloc"))]
                {
                    let _ = next;
                    Err(serde::de::Error::custom(format_args!(
                        "more than {CAPACITY} numbers need the feature alloc"
                    )))
                }
            }
        }

        deserializer.deserialize_seq(Numbers(core::marker::PhantomData))
    }
}
