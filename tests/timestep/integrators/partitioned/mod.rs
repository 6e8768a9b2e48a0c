//! `src/integrators/partitioned/`: compositions, splittings and RATTLE.

mod compensated;
mod composition;
mod rattle;
