//! `src/linalg/`: banded and sparse Jacobians and LU.

mod banded;
mod gmres;
mod jacobian;
#[cfg(feature = "sparse")]
mod sparse;
mod structure;
