//! `src/linalg/`: banded and sparse Jacobians and LU.

mod banded;
#[cfg(feature = "sparse")]
mod sparse;
mod structure;
