//! `src/rigid/`: rigid bodies, their inertia, orientation, points, interpolation, and
//! the methods on them.

mod free_body;
mod inertia;
mod interpolate;
mod orientation;
mod points;
mod recalculate;
mod spinning_cube;
