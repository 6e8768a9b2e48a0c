//! `src/linalg/`: banded Jacobians and LU.

mod banded;
mod structure;
