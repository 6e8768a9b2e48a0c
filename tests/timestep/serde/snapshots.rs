//! Saved runs through JSON: an adaptive run's [`Snapshot`] and a fixed-step [`Method`]
//! with its history, written at step k, read back and stepped on, end bit for bit where
//! the run that was never interrupted ends, for every method by name (the adaptive ones
//! at k = 0, after some steps, and right after a rejected attempt; the fixed-step ones on
//! a particle, a rigid body and a `Vec`). What does not fit is refused when it is read or
//! when it is resumed, never by a panic later.

use glam::DVec3;
use serde::{Serialize, de::DeserializeOwned};
use timestep::adaptive::{Attempt, Snapshot};
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{
    Adaptive, AdaptiveError, AdaptiveKind, Forces, Integrator, Method, MethodKind, Particle,
    Radau5, SerdeState, StepError, Tolerances,
};

/// Through JSON and back.
fn through_json<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("does not load: {e}\n{json}"))
}

/// Van der Pol's oscillator at μ = 10 (mildly stiff: the pairs' FSAL stage and
/// controller, the stiff methods' kept Jacobian and LU all matter).
fn van_der_pol(y: &[f64; 2], _t: f64) -> [f64; 2] {
    [y[1], 10.0 * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

/// The same on a `Vec` of two (forces take the state as it is: `&Vec`).
#[allow(clippy::ptr_arg)]
fn van_der_pol_vec(y: &Vec<f64>, t: f64) -> Vec<f64> {
    van_der_pol(&[y[0], y[1]], t).to_vec()
}

/// A run of `kind` from `start` over `[0, 3]`, saved through JSON at each of the points
/// `save_at` picks (k = 0, after 1, 7 and 20 steps, after the first rejected attempt) and
/// resumed by a fresh solver: the same end and statistics, to the bit.
fn resumes_through_json<S>(kind: AdaptiveKind, start: S, forces: &impl Forces<S>)
where
    S: SerdeState<Scalar = f64> + PartialEq + core::fmt::Debug,
{
    // A first step far too long, so that every method rejects it.
    let new_solver = || {
        Adaptive::<S, AdaptiveKind>::new(kind)
            .with_tolerances(Tolerances::new(1e-7, 1e-7))
            .with_initial_step(0.5)
    };
    let mut y = start.clone();
    let statistics = new_solver().solve(&mut y, forces, 0.0, 3.0).unwrap();
    let end = y;
    assert!(
        statistics.rejected > 0,
        "{kind}: nothing rejected, {statistics:?}"
    );

    // (attempts before saving, whether to save right after the first rejected one)
    for (attempts, after_rejection) in [(0, false), (1, false), (7, false), (20, false), (0, true)]
    {
        let mut solver = new_solver();
        let mut y = start.clone();
        let mut run = solver.start(&mut y, forces, 0.0, 3.0).unwrap();
        let mut made = 0;
        while made < attempts || after_rejection {
            let attempt = run.try_step().unwrap();
            made += 1;
            if after_rejection && attempt == Attempt::Rejected {
                break;
            }
        }
        let json = serde_json::to_string(&run.snapshot()).expect("serializes");
        let saved: Snapshot<S, AdaptiveKind> = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{kind} does not load: {e}\n{json}"));
        assert_eq!(saved.time(), run.time());
        assert_eq!(saved.statistics(), run.statistics());

        let mut other = new_solver();
        let mut z = start.clone();
        let at = if after_rejection {
            "a rejection".to_string()
        } else {
            format!("{attempts}")
        };
        let mut resumed = other
            .resume(&saved, &mut z, forces)
            .unwrap_or_else(|e| panic!("{kind} saved at {at}: {e}"));
        while resumed.step().unwrap() {}
        let got = (resumed.state().clone(), resumed.statistics());
        assert_eq!(got.0, end, "{kind} saved at {at}");
        assert_eq!(got.1, statistics, "{kind} saved at {at}");
        // And saving again what was loaded gives the same JSON.
        assert_eq!(serde_json::to_string(&saved).unwrap(), json, "{kind}");
    }
}

#[test]
fn every_adaptive_method_resumes_bit_for_bit_through_json() {
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        resumes_through_json(kind, [2.0, 0.0], &van_der_pol);
        resumes_through_json(kind, vec![2.0, 0.0], &van_der_pol_vec);
    }
}

/// A differential-algebraic run (`y₁' = −y₁ + y₂`, `0 = y₂ − sin t`, a singular mass
/// matrix, which a saved workspace does not hold: it is read again when the run goes on)
/// resumes bit for bit, by the BDF and by Radau5; without the mass matrix read again the
/// BDF would go on solving `y₂' = y₂ − sin t`.
#[test]
fn a_dae_run_resumes_bit_for_bit_through_json() {
    let dae = timestep::WithMass::new(
        |y: &[f64; 2], t: f64| [-y[0] + y[1], y[1] - t.sin()],
        |m: &mut timestep::Jacobian<f64>| m[(0, 0)] = 1.0,
    );
    for kind in [
        AdaptiveKind::Bdf(timestep::Bdf::new()),
        AdaptiveKind::Radau5(timestep::Radau5::new()),
    ] {
        resumes_through_json(kind, [0.0, 0.0], &dae);
    }
}

/// The Nyström pairs step second-order states: a particle on an anharmonic spring with a
/// driving force, hard enough that steps are rejected.
#[test]
fn nystrom_pairs_resume_bit_for_bit_through_json() {
    let spring = |p: &Particle<DVec3>, t: f64| {
        let x = p.position();
        -40.0 * x * (1.0 + x.length_squared()) + DVec3::X * (5.0 * t).sin()
    };
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(AdaptiveKind::needs_second_order)
    {
        let start = Particle::new(1.5, DVec3::new(1.0, 0.5, 0.0), DVec3::new(0.0, 3.0, 1.0));
        resumes_through_json(kind, start, &spring);
    }
}

/// A [`Method`] saved mid-run (with its workspace: Beeman's, position Verlet's and
/// Adams–Bashforth–Moulton's history, the implicit methods' kept matrix and LU) and loaded
/// goes on bit for bit, for every method by name on a particle, a rigid body and a `Vec`;
/// for the methods that remember, a fresh method from the same state does not.
#[test]
fn every_fixed_step_method_resumes_bit_for_bit_through_json() {
    fn check<S: SerdeState<Scalar = f64> + PartialEq + core::fmt::Debug>(
        start: S,
        forces: &impl Forces<S>,
        dt: f64,
    ) -> usize {
        let mut remembering = 0;
        for kind in MethodKind::all() {
            let (mut method, mut state) = (Method::<S>::new(kind), start.clone());
            // Saved before its first step: the method's name alone.
            let json = serde_json::to_string(&method).unwrap();
            assert!(
                json.starts_with(&format!("\"{kind}\"")) || json.contains(&format!("\"{kind}\":")),
                "{json}"
            );
            let mut saved = None;
            for k in 0..40 {
                if k == 17 {
                    saved = Some((through_json(&method), through_json(&state)));
                }
                method
                    .step(&mut state, forces, f64::from(k) * dt, dt)
                    .unwrap();
            }
            let (mut loaded, mut resumed) = saved.unwrap();
            assert!(loaded.workspace().is_some(), "{kind}");
            let mut fresh = Method::<S>::new(kind);
            let mut restarted = resumed.clone();
            for k in 17..40 {
                let t = f64::from(k) * dt;
                loaded.step(&mut resumed, forces, t, dt).unwrap();
                fresh.step(&mut restarted, forces, t, dt).unwrap();
            }
            assert_eq!(resumed, state, "{kind}");
            if restarted != state {
                remembering += 1;
            }
        }
        remembering
    }
    // Position Verlet, Beeman and Adams–Bashforth–Moulton at least (and the implicit
    // methods, with their kept matrices) go on otherwise from a fresh start.
    let spring = |p: &Particle<DVec3>, t: f64| -4.0 * p.position() + DVec3::X * t.sin();
    let particle = Particle::new(1.5, DVec3::new(1.0, 0.5, 0.0), DVec3::Y);
    assert!(check(particle, &spring, 0.01) >= 3);
    let mut body = DRigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 0.5, 0.25));
    body.set_angular_velocity(DVec3::new(0.1, 3.0, 0.2));
    let torque = |b: &DRigidBody, _t: f64| (DVec3::ZERO, -0.1 * b.angular_velocity());
    assert!(check(body, &torque, 0.01) >= 3);
    let decay = |y: &Vec<f64>, _t: f64| y.iter().map(|v| -v * v.abs()).collect::<Vec<_>>();
    assert!(check(vec![1.0, -0.5, 2.0], &decay, 0.01) >= 3);
}

/// A Radau5 snapshot of the Van der Pol run after `k` steps, as JSON.
fn radau5_json(k: usize) -> String {
    let mut solver = Adaptive::new(Radau5::new());
    let mut y = [2.0, 0.0];
    let mut run = solver.start(&mut y, &van_der_pol, 0.0, 3.0).unwrap();
    for _ in 0..k {
        run.step().unwrap();
    }
    serde_json::to_string(&run.snapshot()).unwrap()
}

#[test]
fn malformed_snapshots_are_refused_when_read() {
    let json = radau5_json(5);
    let load = |json: &str| serde_json::from_str::<Snapshot<[f64; 2], Radau5>>(json).map(drop);
    load(&json).unwrap();
    // Unknown fields, at the top and deep inside.
    let extra = json.replacen('{', r#"{"version":2,"#, 1);
    assert!(
        load(&extra)
            .unwrap_err()
            .to_string()
            .contains("unknown field `version`")
    );
    let deep = json.replacen(r#""band_checked""#, r#""band_checkd""#, 1);
    assert!(
        load(&deep)
            .unwrap_err()
            .to_string()
            .contains("unknown field")
    );
    // A factored matrix's pivot outside the matrix (two unknowns: rows 0 and 1).
    let pivots = json.find(r#""pivots":["#).expect("a saved LU") + r#""pivots":["#.len();
    let mut bad = json.clone();
    bad.replace_range(pivots..pivots + 1, "9");
    let error = load(&bad).unwrap_err().to_string();
    assert!(error.contains("row pivot is outside the matrix"), "{error}");
    // A matrix whose size does not fit its entries.
    let dim = json.replacen(r#""dim":2"#, r#""dim":3"#, 1);
    let error = load(&dim).unwrap_err().to_string();
    assert!(error.contains("do not fit"), "{error}");
    // An array of stage values one short.
    let short = json.replacen(r#""z":[{"#, r#""z":[{"velocity":[],"force":[]},{"#, 1);
    assert!(load(&short).is_err());
    // Not JSON of a snapshot at all.
    assert!(load("[1,2]").is_err());
    assert!(load(&json[..json.len() / 2]).is_err());
}

#[test]
fn snapshots_that_do_not_fit_the_solver_are_refused_on_resuming() {
    // Saved by DOPRI5 on two unknowns, resumed by Radau5: its workspace is another method's.
    let dopri5: AdaptiveKind = "dopri5".parse().unwrap();
    let mut y = [2.0, 0.0];
    let mut solver = Adaptive::new(dopri5);
    let mut run = solver.start(&mut y, &van_der_pol, 0.0, 3.0).unwrap();
    run.step().unwrap();
    let json = serde_json::to_string(&run.snapshot()).unwrap();
    let saved: Snapshot<[f64; 2], AdaptiveKind> = serde_json::from_str(&json).unwrap();
    let mut radau5 = Adaptive::new("radau5".parse::<AdaptiveKind>().unwrap());
    let mut z = [0.0; 2];
    let error = radau5.resume(&saved, &mut z, &van_der_pol).err();
    assert_eq!(error, Some(AdaptiveError::SnapshotMismatch));
    // The same snapshot resumes under its own method.
    let mut own = Adaptive::new(dopri5);
    assert!(own.resume(&saved, &mut z, &van_der_pol).is_ok());

    // A `Vec` state of three unknowns whose workspace was saved for two.
    let mut y = vec![2.0, 0.0];
    let mut vec_solver = Adaptive::<Vec<f64>, _>::new(Radau5::new());
    let mut run = vec_solver
        .start(&mut y, &van_der_pol_vec, 0.0, 3.0)
        .unwrap();
    run.step().unwrap();
    let json = serde_json::to_string(&run.snapshot()).unwrap();
    let state = json.find(r#""state":["#).unwrap() + r#""state":["#.len();
    let mut grown = json.clone();
    grown.insert_str(state, "0.5,");
    let saved: Snapshot<Vec<f64>, Radau5> = serde_json::from_str(&grown).unwrap();
    let mut z = Vec::new();
    let error = vec_solver.resume(&saved, &mut z, &van_der_pol_vec).err();
    assert_eq!(error, Some(AdaptiveError::SnapshotMismatch));

    // A run whose next step points against its direction.
    let json = radau5_json(3);
    let progress = json.find(r#""progress":{"#).unwrap();
    let step = progress + json[progress..].find(r#""h":"#).unwrap() + r#""h":"#.len();
    let mut backwards = json.clone();
    backwards.insert(step, '-');
    let saved: Snapshot<[f64; 2], Radau5> = serde_json::from_str(&backwards).unwrap();
    let mut solver = Adaptive::new(Radau5::new());
    let error = solver.resume(&saved, &mut [0.0; 2], &van_der_pol).err();
    assert_eq!(error, Some(AdaptiveError::SnapshotMismatch));
}

#[test]
fn a_loaded_stepper_refuses_a_state_its_workspace_does_not_fit() {
    let decay = |y: &Vec<f64>, _t: f64| y.iter().map(|v| -v).collect::<Vec<_>>();
    for name in ["beeman", "backward-euler", "rk4"] {
        let mut method: Method<Vec<f64>> = name.parse().unwrap();
        let mut y = vec![1.0, 2.0, 3.0];
        method.step(&mut y, &decay, 0.0, 0.1).unwrap();
        let mut loaded: Method<Vec<f64>> = through_json(&method);
        let mut longer = vec![1.0, 2.0, 3.0, 4.0];
        let error = loaded.step(&mut longer, &decay, 0.1, 0.1).unwrap_err();
        assert_eq!(error, StepError::WorkspaceMismatch, "{name}");
        assert_eq!(longer, [1.0, 2.0, 3.0, 4.0], "{name}: the state moved");
        // Another method's workspace.
        let json = serde_json::to_string(&method).unwrap();
        let other = json.replacen(
            &format!(r#""method":"{name}""#),
            r#""method":"midpoint""#,
            1,
        );
        let mut loaded: Method<Vec<f64>> = serde_json::from_str(&other).unwrap();
        let error = loaded.step(&mut y, &decay, 0.1, 0.1).unwrap_err();
        assert_eq!(error, StepError::WorkspaceMismatch, "{name}");
    }
}
