//! nalgebra's vectors are states (feature `nalgebra`): `Vector3<f64>` and `Vector2<f32>`
//! (fixed size, by value) step with every method to the same bits as glam's vectors do,
//! `DVector` (run-time size, in place) to their rounding, as `Vec`s do, and they interpolate.
#![cfg(feature = "nalgebra")]

use glam::{DVec3, Vec2};
use nalgebra::{DVector, Vector2, Vector3};
use timestep::{Integrator, Interpolate, Method, MethodKind, Particle, Scheme, Vector};

/// A rotation about z with a little decay, `y' = ẑ × y − 0.1 y`.
fn swirl(y: DVec3) -> DVec3 {
    DVec3::Z.cross(y) - 0.1 * y
}

#[test]
fn every_method_steps_nalgebra_vectors_as_glam_steps_its_own() {
    let by_glam = |y: &DVec3, _t: f64| swirl(*y);
    let by_nalgebra = |y: &Vector3<f64>, _t: f64| {
        let r = swirl(DVec3::new(y.x, y.y, y.z));
        Vector3::new(r.x, r.y, r.z)
    };
    let by_dvector = |y: &DVector<f64>, _t: f64| {
        let r = swirl(DVec3::new(y[0], y[1], y[2]));
        DVector::from_vec(vec![r.x, r.y, r.z])
    };
    for kind in MethodKind::all() {
        let mut glam_method = Method::<DVec3>::new(kind);
        let mut nalgebra_method = Method::<Vector3<f64>>::new(kind);
        let mut dvector_method = Method::<DVector<f64>>::new(kind);
        let mut a = DVec3::new(1.0, 0.5, -0.25);
        let mut b = Vector3::new(1.0, 0.5, -0.25);
        let mut c = DVector::from_vec(vec![1.0, 0.5, -0.25]);
        for i in 0..50 {
            let t = i as f64 * 0.05;
            glam_method.step(&mut a, &by_glam, t, 0.05).unwrap();
            nalgebra_method.step(&mut b, &by_nalgebra, t, 0.05).unwrap();
            dvector_method.step(&mut c, &by_dvector, t, 0.05).unwrap();
        }
        assert_eq!([a.x, a.y, a.z], [b.x, b.y, b.z], "{kind}");
        // A run-time-sized state forms each Runge–Kutta probe in one pass over memory, a
        // fixed-size one in two parts that shorten the chain from one evaluation to the
        // next (`State::splits_probes`): the same sums, rounded differently.
        for (glam, dvector) in [a.x, a.y, a.z].into_iter().zip(c.iter()) {
            assert!(
                (glam - dvector).abs() <= 1e-13 * (1.0 + glam.abs()),
                "{kind}: {glam} vs {dvector}"
            );
        }
        // 2.5 s of the exact motion: radius e^(−0.25) of the start's, to the method's
        // order at dt = 0.05.
        let radius = (a.x * a.x + a.y * a.y).sqrt();
        let exact = (1.25_f64).sqrt() * (-0.25_f64).exp();
        // The order on a first-order system (`integrators::first_order`): leapfrog and
        // Blanes–Moan 1, the compositions of Verlet 2, every other method its own.
        let properties = kind.properties();
        let order = match properties.name {
            "leapfrog" | "blanes-moan4" => 1,
            _ if properties.symplectic && properties.order > 2 => 2,
            _ => properties.order,
        };
        let bound = 0.05_f64.powi(order as i32) * 2.0;
        assert!(
            (radius - exact).abs() < bound,
            "{kind}: {radius} vs {exact}"
        );
    }
}

#[test]
fn f32_particles_on_nalgebra_vectors_match_glam() {
    let gravity_glam = |p: &Particle<Vec2>, _t: f32| Vec2::new(0.0, -9.81) * p.mass();
    let gravity_nalgebra =
        |p: &Particle<Vector2<f32>>, _t: f32| Vector2::new(0.0, -9.81) * p.mass();
    for kind in MethodKind::all() {
        let mut glam_method = Method::<Particle<Vec2>>::new(kind);
        let mut nalgebra_method = Method::<Particle<Vector2<f32>>>::new(kind);
        let mut a = Particle::new(2.0_f32, Vec2::ZERO, Vec2::new(3.0, 10.0));
        let mut b = Particle::new(2.0_f32, Vector2::zeros(), Vector2::new(3.0, 10.0));
        for i in 0..60 {
            let t = i as f32 / 60.0;
            glam_method
                .step(&mut a, &gravity_glam, t, 1.0 / 60.0)
                .unwrap();
            nalgebra_method
                .step(&mut b, &gravity_nalgebra, t, 1.0 / 60.0)
                .unwrap();
        }
        assert_eq!(
            a.position().to_array(),
            [b.position().x, b.position().y],
            "{kind}"
        );
    }
}

#[test]
fn nalgebra_vectors_interpolate_and_combine_in_place() {
    let a = Vector3::new(0.0, 2.0, 4.0);
    let b = Vector3::new(4.0, 2.0, 0.0);
    assert_eq!(a.interpolate(&b, 0.25), Vector3::new(1.0, 2.0, 3.0));
    let mut d = DVector::from_vec(vec![1.0_f64, 2.0]);
    d.add_scaled_assign(&DVector::from_vec(vec![1.0, 1.0]), 0.5);
    assert_eq!(d.as_slice(), &[1.5, 2.5]);
    assert_eq!(Vector::dim(&d), 2);
    assert_eq!(
        d.interpolate(&DVector::from_vec(vec![0.5, 0.5]), 1.0)
            .as_slice(),
        &[0.5, 0.5]
    );
}
