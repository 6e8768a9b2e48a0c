//! `src/control/`: the parts of error control below the methods.

mod norm;
