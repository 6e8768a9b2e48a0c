//! timestep's DOP853 against ode_solvers' port of Hairer's dop853.f: the same steps. In the
//! peers' package so that the library's tests build no peer crate.

#[path = "../../examples/problems/mod.rs"]
mod problems;

use problems::{ARENSTORF_END as ARENSTORF_PERIOD, ARENSTORF_START, arenstorf, distance};
use timestep::{Adaptive, Dop853, Tolerances};

/// ode_solvers' `Dop853`, a line-by-line port of Hairer's dop853.f, on the Arenstorf orbit.
struct OdeSolversArenstorf;

impl ode_solvers::System<f64, ode_solvers::Vector4<f64>> for OdeSolversArenstorf {
    fn system(&self, _t: f64, y: &ode_solvers::Vector4<f64>, dy: &mut ode_solvers::Vector4<f64>) {
        let rate = arenstorf(&[y[0], y[1], y[2], y[3]], 0.0);
        for i in 0..4 {
            dy[i] = rate[i];
        }
    }
}

/// DOP853 takes the steps Hairer's dop853.f takes: the same accepted steps and the same
/// evaluations as ode_solvers' port of it, from the same automatic first step, at every
/// tolerance from 10⁻⁵ to 10⁻¹². (The port counts two evaluations for the first step's
/// choice, where one is made. Like dop853.f it counts no rejection before the first
/// accepted step, where the statistics here count every one; the evaluations, 11 per
/// attempt and one more per accepted step, show that the attempts are the same.) Its end
/// error falls with the tolerance.
#[test]
fn dop853_takes_the_reference_code_s_steps_on_the_arenstorf_orbit() {
    let mut previous_error = f64::INFINITY;
    for tol in [1e-5, 1e-7, 1e-9, 1e-12] {
        let mut y = ARENSTORF_START;
        let ours = Adaptive::new(Dop853)
            .with_tolerances(Tolerances::new(tol, tol))
            .solve(&mut y, &arenstorf, 0.0, ARENSTORF_PERIOD)
            .unwrap();
        let mut port = ode_solvers::Dop853::new(
            OdeSolversArenstorf,
            0.0,
            ARENSTORF_PERIOD,
            ARENSTORF_PERIOD,
            ode_solvers::Vector4::from(ARENSTORF_START),
            tol,
            tol,
        );
        port.set_output(ode_solvers::dop_shared::OutputType::Sparse);
        let theirs = port.integrate().unwrap();
        let error = distance(&y, &ARENSTORF_START);
        println!("tol {tol:e}: {ours:?}, error {error:e}; ode_solvers {theirs:?}");
        assert_eq!(ours.accepted, theirs.accepted_steps as u64, "tol {tol:e}");
        assert_eq!(ours.evaluations + 1, theirs.num_eval as u64, "tol {tol:e}");
        assert!(ours.rejected >= theirs.rejected_steps as u64, "tol {tol:e}");
        assert!(error < previous_error, "tol {tol:e}: error {error:e}");
        previous_error = error;
    }
}
