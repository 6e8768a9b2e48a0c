//! The integration tests: one crate, one binary, whose modules mirror `src/`
//! (`integrators::implicit::radau5` checks `src/integrators/implicit/radau5/`,
//! `rigid::inertia` checks `src/rigid/inertia.rs`, …). The checks that cut across the whole
//! crate (`nothing_silent`, `properties`, `large_states`, `reference_solutions`) sit at the
//! top. Each file opens with the theory it checks.
//!
//! One binary links once: the 33 files here were 33 binaries, each linking the library and
//! its dependencies again. The allocation-counting suites (`tests/no_allocation.rs`,
//! `tests/no_allocation_large.rs`) stay binaries of their own: the global allocator they
//! install would count the allocations of every test here.
//!
//! Run a part by its module path: `cargo test --test timestep rigid::`; the `serde` and
//! `nalgebra` modules need their features (`cargo test --features serde --test timestep
//! serde`). proptest keeps the cases it finds failing in
//! `tests/proptest-regressions/<module path>.txt` (its default: beside the folder that holds
//! this `main.rs`) and replays them first.

mod adaptive;
mod common;
mod control;
mod error;
mod fixed_timestep;
mod integrators;
mod interpolate;
mod large_states;
mod linalg;
#[cfg(feature = "nalgebra")]
mod nalgebra;
mod nothing_silent;
mod properties;
mod reference_solutions;
mod rigid;
mod sensitivity;
#[cfg(feature = "serde")]
mod serde;
