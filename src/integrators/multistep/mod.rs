//! Linear multistep methods: a history of past rates, held in the workspace.

mod adams_bashforth_moulton;

pub use adams_bashforth_moulton::{AdamsBashforthMoulton, AdamsBashforthMoultonWorkspace};
