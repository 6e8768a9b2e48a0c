//! `src/integrators/partitioned/`: compositions and splittings.

mod composition;
