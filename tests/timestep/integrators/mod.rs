//! `src/integrators/`: what every method promises (order, energy, reversibility, long runs,
//! first-order systems), then each family's own checks.

mod convergence;
mod energy;
mod explicit_rk;
mod first_order;
mod implicit;
mod lecture_methods;
mod long_runs;
mod nystrom;
mod partitioned;
mod reversibility;
