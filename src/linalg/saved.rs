//! Saving matrices with serde: a [`Matrix`] or [`ComplexMatrix`] is saved as its
//! structure, row order, size, stored entries (the LU factors once factored) and row
//! pivots, and loaded only when these fit together, so that a malformed save is refused
//! when it is read and never indexes out of bounds in a later solve.
//!
//! A sparse matrix's LU (faer's) is not saved: one that has been given its pattern refuses
//! to serialize, and a loaded sparse matrix must have no entries (as one made before its
//! first Jacobian).

use super::buffer::INLINE_MATRIX;
use super::{Buffer, Complex, ComplexMatrix, Matrix, Order, storage_len};
use crate::{Scalar, Structure};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser};

/// A matrix as saved, before it is checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved<E: Copy + Default> {
    structure: Structure,
    order: Order,
    dim: usize,
    entries: Buffer<E, INLINE_MATRIX>,
    pivots: Buffer<usize>,
    reordered: Buffer<E>,
}

/// The fields of [`Saved`], written from either matrix.
#[allow(clippy::too_many_arguments)]
fn save<E: Serialize, S: Serializer>(
    serializer: S,
    structure: Structure,
    order: Order,
    dim: usize,
    entries: &[E],
    pivots: &[usize],
    reordered: &[E],
    has_sparse_lu: bool,
) -> Result<S::Ok, S::Error> {
    if has_sparse_lu {
        return Err(ser::Error::custom(
            "a sparse matrix's LU factorisation cannot be saved",
        ));
    }
    let mut fields = serializer.serialize_struct("Matrix", 6)?;
    fields.serialize_field("structure", &structure)?;
    fields.serialize_field("order", &order)?;
    fields.serialize_field("dim", &dim)?;
    fields.serialize_field("entries", entries)?;
    fields.serialize_field("pivots", pivots)?;
    fields.serialize_field("reordered", reordered)?;
    fields.end()
}

impl<E: Copy + Default> Saved<E> {
    /// Why the parts do not make a matrix, if they do not: the storage its structure and
    /// size take, a pivot for each row within the matrix, and the reordering buffer an
    /// interleaved order needs.
    fn check(&self) -> Result<(), &'static str> {
        let dim = self.dim;
        match storage_len(self.structure, dim) {
            Ok((structure, len)) if structure == self.structure && len == self.entries.len() => {}
            _ => return Err("its entries do not fit its structure and size"),
        }
        if self.structure == Structure::Sparse {
            return if self.order == Order::Natural
                && self.pivots.is_empty()
                && self.reordered.is_empty()
            {
                Ok(())
            } else {
                Err("a sparse matrix is saved without its layout and LU")
            };
        }
        let reordered = match self.order {
            Order::Natural => 0,
            Order::Interleaved { half } if half.checked_mul(2) == Some(dim) => dim,
            Order::Interleaved { .. } => return Err("its row order does not fit its size"),
        };
        if self.reordered.len() != reordered || self.pivots.len() != dim {
            return Err("its pivots or reordering buffer do not fit its size");
        }
        // A pivot is a row a solve swaps with: any row of the matrix is safe (one never
        // factored holds zeros).
        if self.pivots.iter().all(|&pivot| pivot < dim) {
            Ok(())
        } else {
            Err("a row pivot is outside the matrix")
        }
    }

    fn load<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>
    where
        E: Deserialize<'de>,
    {
        let saved = Saved::deserialize(deserializer)?;
        saved
            .check()
            .map_err(|why| de::Error::custom(format_args!("invalid matrix: {why}")))?;
        Ok(saved)
    }
}

#[cfg(feature = "sparse")]
fn has_sparse_lu<P>(sparse: &Option<P>) -> bool {
    sparse.is_some()
}

impl<T: Scalar + Serialize> Serialize for Matrix<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[cfg(feature = "sparse")]
        let sparse = has_sparse_lu(&self.sparse);
        #[cfg(not(feature = "sparse"))]
        let sparse = false;
        let Matrix {
            structure,
            order,
            dim,
            ..
        } = *self;
        save(
            serializer,
            structure,
            order,
            dim,
            &self.entries,
            &self.pivots,
            &self.reordered,
            sparse,
        )
    }
}

impl<'de, T: Scalar + Deserialize<'de>> Deserialize<'de> for Matrix<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = Saved::<T>::load(deserializer)?;
        Ok(Matrix {
            structure: saved.structure,
            order: saved.order,
            dim: saved.dim,
            entries: saved.entries,
            pivots: saved.pivots,
            reordered: saved.reordered,
            #[cfg(feature = "sparse")]
            sparse: None,
        })
    }
}

impl<T: Scalar + Serialize> Serialize for ComplexMatrix<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[cfg(feature = "sparse")]
        let sparse = has_sparse_lu(&self.sparse);
        #[cfg(not(feature = "sparse"))]
        let sparse = false;
        save(
            serializer,
            self.structure,
            self.order,
            self.dim,
            &self.entries,
            &self.pivots,
            &self.reordered,
            sparse,
        )
    }
}

impl<'de, T: Scalar + Deserialize<'de>> Deserialize<'de> for ComplexMatrix<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = Saved::<Complex<T>>::load(deserializer)?;
        Ok(ComplexMatrix {
            structure: saved.structure,
            order: saved.order,
            dim: saved.dim,
            entries: saved.entries,
            pivots: saved.pivots,
            reordered: saved.reordered,
            #[cfg(feature = "sparse")]
            sparse: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_factored_matrix_round_trips_and_bad_pivots_are_refused() {
        let mut matrix = Matrix::<f64>::new(Structure::Dense, Order::Natural, 3).unwrap();
        let mut jacobian = matrix.as_jacobian();
        for (i, j, value) in [
            (0, 0, 1.0),
            (1, 0, 4.0),
            (1, 1, 2.0),
            (2, 2, 3.0),
            (0, 2, 1.0),
        ] {
            jacobian[(i, j)] = value;
        }
        let json = serde_json::to_string(&matrix).unwrap();
        let back: Matrix<f64> = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        let bad_pivot = json.replace(r#""pivots":[0,0,0]"#, r#""pivots":[0,0,7]"#);
        assert_ne!(bad_pivot, json);
        let error = serde_json::from_str::<Matrix<f64>>(&bad_pivot).unwrap_err();
        assert!(error.to_string().contains("row pivot"), "{error}");
        let short = json.replace(r#""dim":3"#, r#""dim":2"#);
        let error = serde_json::from_str::<Matrix<f64>>(&short).unwrap_err();
        assert!(error.to_string().contains("do not fit"), "{error}");
    }
}
