//! `src/linalg/`: banded and sparse Jacobians and LU.

mod banded;
mod gmres;
#[cfg(feature = "sparse")]
mod sparse;
mod structure;
