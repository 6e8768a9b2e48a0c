//! `src/adaptive/`: the driver under error control, and its stiffness test.

mod solver;
mod stiffness;
