//! `src/integrators/partitioned/`: compositions and splittings.

mod compensated;
mod composition;
