//! `Snapshot`s and cloned steppers: a run saved at step k and resumed ends bit for bit where
//! the run that was never interrupted ends, for every method by name.

use glam::DVec3;
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{
    Adaptive, AdaptiveKind, Integrator, Method, MethodKind, Particle, Scheme, State, Statistics,
    Tolerances,
};

/// Van der Pol's oscillator at μ = 10: nonlinear and mildly stiff, so that every method's
/// memory is in play (the pairs' FSAL stage and controller, the stiff methods' kept
/// Jacobian and factorisation).
fn van_der_pol(y: &[f64; 2], _t: f64) -> [f64; 2] {
    [y[1], 10.0 * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

/// The end of a run of `kind` from `(2, 0)` over `[0, 3]`, straight through.
fn straight(kind: AdaptiveKind) -> ([f64; 2], Statistics) {
    let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-7, 1e-7));
    let mut y = [2.0, 0.0];
    let statistics = solver.solve(&mut y, &van_der_pol, 0.0, 3.0).unwrap();
    (y, statistics)
}

#[test]
fn every_adaptive_method_resumes_bit_for_bit() {
    // The Nyström pairs, for second-order states, are resumed in `integrators::nystrom`.
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        let (end, statistics) = straight(kind);
        // SEULEX, of order up to 11, takes fewer and longer steps than the others.
        let least = if kind.name() == "seulex" { 8 } else { 20 };
        assert!(statistics.accepted > least, "{kind}: {statistics:?}");
        for k in [0, 1, 7, 20] {
            let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-7, 1e-7));
            let mut y = [2.0, 0.0];
            let mut run = solver.start(&mut y, &van_der_pol, 0.0, 3.0).unwrap();
            for _ in 0..k {
                run.step().unwrap();
            }
            let saved = run.snapshot();
            assert_eq!((saved.state(), saved.time()), (run.state(), run.time()));
            // The original goes on, and is then thrown away with its solver.
            while run.step().unwrap() {}
            assert_eq!(
                (*run.state(), run.statistics()),
                (end, statistics),
                "{kind}"
            );

            // A fresh solver with the same settings, from a state that is not the saved
            // one, resumed twice from the same snapshot.
            let mut other = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-7, 1e-7));
            for _ in 0..2 {
                let mut z = [f64::NAN; 2];
                let mut resumed = other.resume(&saved, &mut z, &van_der_pol).unwrap();
                while resumed.step().unwrap() {}
                let got = (*resumed.state(), resumed.statistics());
                assert_eq!(
                    got.0.map(f64::to_bits),
                    end.map(f64::to_bits),
                    "{kind} at {k}"
                );
                assert_eq!(got.1, statistics, "{kind} at {k}");
            }
        }
    }
}

/// A cloned [`Method`] is a snapshot of a fixed-step run: its history (Beeman, position
/// Verlet, Adams–Bashforth–Moulton) goes with it. For every method by name, on a particle,
/// a rigid body and a `Vec` state, a clone taken at step 17 of 40 ends bit for bit where
/// the original ends; a fresh method started from the same state does not, for the methods
/// that remember (a history, or backward Euler's factored matrix).
#[test]
fn every_fixed_step_method_clones_bit_for_bit() {
    fn check<S: State<Scalar = f64> + PartialEq + core::fmt::Debug>(
        start: S,
        forces: &impl timestep::Forces<S>,
        dt: f64,
    ) {
        let mut forgetful = 0;
        for kind in MethodKind::all() {
            let (mut method, mut state) = (Method::<S>::new(kind), start.clone());
            let mut saved = None;
            for k in 0..40 {
                if k == 17 {
                    saved = Some((method.clone(), state.clone()));
                }
                method
                    .step(&mut state, forces, f64::from(k) * dt, dt)
                    .unwrap();
            }
            let (mut copy, copied) = saved.unwrap();
            let (mut resumed, mut restarted) = (copied.clone(), copied);
            let mut fresh = Method::<S>::new(kind);
            for k in 17..40 {
                let t = f64::from(k) * dt;
                copy.step(&mut resumed, forces, t, dt).unwrap();
                fresh.step(&mut restarted, forces, t, dt).unwrap();
            }
            assert_eq!(resumed, state, "{kind}");
            // What a method remembers: a history, or an implicit method's factored
            // matrix (kept from step to step, so a fresh one iterates differently).
            let remembers = kind.properties().implicit
                || ["position-verlet", "beeman", "adams-bashforth-moulton"]
                    .contains(&kind.properties().name);
            if restarted != state {
                assert!(
                    remembers,
                    "{kind} forgets nothing, but restarts differently"
                );
                forgetful += 1;
            }
        }
        // The three methods with a history differ on every state.
        assert!(forgetful >= 3, "{forgetful}");
    }
    let spring = |p: &Particle<DVec3>, t: f64| -4.0 * p.position() + DVec3::X * t.sin();
    check(
        Particle::new(1.5, DVec3::new(1.0, 0.5, 0.0), DVec3::Y),
        &spring,
        0.01,
    );
    let mut body = DRigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 0.5, 0.25));
    body.set_angular_velocity(DVec3::new(0.1, 3.0, 0.2));
    let torque = |b: &DRigidBody, _t: f64| (DVec3::ZERO, -0.1 * b.angular_velocity());
    check(body, &torque, 0.01);
    let decay = |y: &Vec<f64>, _t: f64| y.iter().map(|v| -v * v.abs()).collect::<Vec<_>>();
    check(vec![1.0, -0.5, 2.0], &decay, 0.01);
}

/// A run resumed by a solver with other settings uses them from there on, as
/// `Adaptive::resume` says. The largest step: the oscillator `y″ = −y` resumed with steps
/// of at most 0.01 takes no longer one, and still ends at `cos 10` (the saved run's, of
/// the whole span, had been kept: steps up to 0.36 after the resume). The stiffness test:
/// `y′ = −10⁴ (y − cos t)` is held by stability after its transient (Hairer–Wanner II,
/// IV.2), which a test at every step finds from a run saved with the test off.
#[test]
fn a_resumed_run_takes_the_resuming_solver_s_largest_step_and_stiffness_test() {
    use timestep::Dop853;
    let oscillator = |y: &[f64; 2], _t: f64| [y[1], -y[0]];
    let mut y = [1.0, 0.0];
    let mut solver = Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-10, 1e-10));
    let mut run = solver.start(&mut y, &oscillator, 0.0, 10.0).unwrap();
    run.step().unwrap();
    let saved = run.snapshot();
    let mut solver = Adaptive::new(Dop853)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .with_max_step(0.01);
    let mut z = [0.0; 2];
    let mut run = solver.resume(&saved, &mut z, &oscillator).unwrap();
    let mut longest = 0.0_f64;
    while run.step().unwrap() {
        longest = longest.max(run.time() - run.previous_time());
    }
    assert!(longest <= 0.01 * (1.0 + 1e-12), "{longest}");
    assert!((z[0] - 10f64.cos()).abs() < 1e-9, "{z:?}");

    let stiff = |y: &f64, t: f64| -1e4 * (y - t.cos());
    let mut y = 0.0_f64;
    let mut solver = Adaptive::new(timestep::Dopri5).with_stiffness_test(0);
    let mut run = solver.start(&mut y, &stiff, 0.0, 1.0).unwrap();
    run.step().unwrap();
    let saved = run.snapshot();
    let mut solver = Adaptive::new(timestep::Dopri5).with_stiffness_test(1);
    let mut z = 0.0;
    let mut run = solver.resume(&saved, &mut z, &stiff).unwrap();
    while run.step().unwrap() {}
    assert!(run.statistics().stiff_from.is_some());
}
