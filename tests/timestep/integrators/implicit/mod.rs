//! `src/integrators/implicit/`: backward Euler, the trapezoidal and implicit midpoint rules,
//! Newmark-β, Rosenbrock methods (Rodas4, Rodas5P, ROS3P), Radau5, SEULEX and the BDF (and the 2-D Brusselator's
//! model that its benchmarks use).

mod backward_euler;
mod backward_euler_dae;
mod backward_euler_gmres;
mod bdf;
mod bdf_dae;
mod bdf_gmres;
mod brusselator_model;
mod contraction;
mod dae;
mod higher_index;
mod jacobian_source;
mod lecture_methods;
mod pendulum_dae;
mod radau5;
mod rodas4;
mod rodas5p;
mod rosenbrock;
mod rosenbrock_dae;
mod settings;
mod seulex;
mod state_dependent_mass;
mod stiff;
mod torsion_spring;
