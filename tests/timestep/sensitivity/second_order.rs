//! Forward sensitivities of a particle (`src/sensitivity/second_order.rs`): the
//! variational equation `m sᵢ'' = J_x sᵢ + ∂F/∂θᵢ` stepped as a particle by the methods
//! for second-order states, the Nyström pairs included.
//!
//! What they are checked against:
//!
//! - a spring's closed form `x = x₀ cos ωt + (v₀/ω) sin ωt`, `ω = √(k/m)`, differentiated
//!   by hand;
//! - for every method on fixed steps, central differences of the same method's discrete
//!   map (as the first-order states' test in `sensitivity.rs`);
//! - central differences of tightly solved Kepler orbits.

use approx::assert_relative_eq;
use timestep::sensitivity::{Forward, Model, SensitivityError, WithRespectTo};
use timestep::{
    Adaptive, AdaptiveKind, Integrator, Method, MethodKind, Particle, Scheme, Tolerances,
};

/// The spring's force `−k x`.
struct Spring;
impl Model<f64> for Spring {
    fn rate(&self, x: &f64, p: &[f64], _t: f64, force: &mut f64) {
        *force = -p[0] * x;
    }
    fn tangent(&self, x: &f64, p: &[f64], _t: f64, dx: &f64, dp: &[f64], out: &mut f64) -> bool {
        *out = -p[0] * dx - dp[0] * x;
        true
    }
}

#[test]
fn nystrom_pairs_give_the_springs_closed_form_sensitivities() {
    let (m, k, x0, v0, t): (f64, f64, f64, f64, f64) = (2.0, 8.0, 1.0, 0.5, 3.0);
    let w = (k / m).sqrt();
    let (s, c) = (w * t).sin_cos();
    // x = x₀ cos ωt + (v₀/ω) sin ωt and x', with ∂/∂k = ∂/∂ω · 1/(2 m ω).
    let by_w = -x0 * t * s + v0 * (t * c / w - s / (w * w));
    let velocity_by_w = -x0 * (s + w * t * c) - v0 * t * s;
    let expected = [
        [x0 * c + v0 / w * s, -x0 * w * s + v0 * c],
        [by_w / (2.0 * m * w), velocity_by_w / (2.0 * m * w)],
        [c, -w * s],
        [s / w, c],
    ];
    let wrt = [
        WithRespectTo::Parameter(0),
        WithRespectTo::InitialValue(0),
        WithRespectTo::InitialValue(1),
    ];
    let forward = Forward::new(Spring, [k], wrt).unwrap();
    for name in ["dprkn6", "dprkn12"] {
        let kind: AdaptiveKind = name.parse().unwrap();
        let mut particle: Particle<[f64; 4]> =
            forward.initial_particle(&Particle::new(m, x0, v0)).unwrap();
        Adaptive::new(kind)
            .with_tolerances(Tolerances::new(1e-12, 1e-12))
            .solve(&mut particle, &forward, 0.0, t)
            .unwrap();
        for (i, [x, v]) in expected.iter().enumerate() {
            assert_relative_eq!(
                particle.position()[i],
                x,
                max_relative = 1e-8,
                epsilon = 1e-10
            );
            assert_relative_eq!(
                particle.velocity()[i],
                v,
                max_relative = 1e-8,
                epsilon = 1e-10
            );
        }
    }
}

/// A pendulum's force `−g sin x` (unit mass), with its tangent: the implicit methods'
/// finite-difference Jacobians of the augmented particle are then differences of exact
/// tangents (differences of differences stall Radau5's Newton iteration).
struct Pendulum;
impl Model<f64> for Pendulum {
    fn rate(&self, x: &f64, p: &[f64], _t: f64, force: &mut f64) {
        *force = -p[0] * x.sin();
    }
    fn tangent(&self, x: &f64, p: &[f64], _t: f64, dx: &f64, dp: &[f64], out: &mut f64) -> bool {
        *out = -p[0] * x.cos() * dx - dp[0] * x.sin();
        true
    }
}

#[test]
fn every_method_on_a_particle_steps_the_derivative_of_its_discrete_map() {
    // A pendulum x'' = −g sin x (unit mass) from x = 1 at rest.
    let (g, dt, steps) = (9.81, 0.02, 50);
    let wrt = [
        WithRespectTo::Parameter(0),
        WithRespectTo::InitialValue(0),
        WithRespectTo::InitialValue(1),
    ];
    let forward = Forward::new(Pendulum, [g], wrt).unwrap();
    for kind in MethodKind::all() {
        let name = kind.name();
        let plain = |g: f64, x0: f64, v0: f64| {
            let force = |p: &Particle<f64>, _t: f64| -g * p.position().sin();
            let mut stepper = Method::<Particle<f64>>::new(kind);
            let mut particle = Particle::new(1.0, x0, v0);
            for i in 0..steps {
                stepper
                    .step(&mut particle, &force, f64::from(i) * dt, dt)
                    .unwrap();
            }
            [particle.position(), particle.velocity()]
        };
        let mut stepper = Method::<Particle<[f64; 4]>>::new(kind);
        let mut particle: Particle<[f64; 4]> = forward
            .initial_particle(&Particle::new(1.0, 1.0, 0.0))
            .unwrap();
        for i in 0..steps {
            stepper
                .step(&mut particle, &forward, f64::from(i) * dt, dt)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let state = [particle.position()[0], particle.velocity()[0]];
        assert_relative_eq!(state[0], plain(g, 1.0, 0.0)[0], max_relative = 1e-9);
        assert_relative_eq!(state[1], plain(g, 1.0, 0.0)[1], max_relative = 1e-9);
        let h = 1e-5;
        let central = |plus: [f64; 2], minus: [f64; 2], j: usize| (plus[j] - minus[j]) / (2.0 * h);
        // Implicit methods solve with a Jacobian of the augmented particle by finite
        // differences (of exact tangents): a Newton iteration converges through its
        // error, but a Rosenbrock step is built on the matrix itself, and carries it.
        let tolerance = match (stepper.method().properties().implicit, name) {
            (true, "rodas4" | "ros3p") => 1e-4,
            (true, _) => 1e-5,
            (false, _) => 1e-7,
        };
        for j in 0..2 {
            let expected = [
                central(plain(g + h, 1.0, 0.0), plain(g - h, 1.0, 0.0), j),
                central(plain(g, 1.0 + h, 0.0), plain(g, 1.0 - h, 0.0), j),
                central(plain(g, 1.0, h), plain(g, 1.0, -h), j),
            ];
            for (i, expected) in expected.into_iter().enumerate() {
                let got = if j == 0 {
                    particle.position()[1 + i]
                } else {
                    particle.velocity()[1 + i]
                };
                assert!(
                    (got - expected).abs() <= tolerance * expected.abs().max(1e-3),
                    "{name}: sensitivity {i} of coordinate {j}: {got} against {expected}"
                );
            }
        }
    }
}

/// Kepler's problem with `GM` the parameter: `F = −GM x/|x|³` (unit mass).
struct Kepler;
impl Model<[f64; 2]> for Kepler {
    fn rate(&self, x: &[f64; 2], p: &[f64], _t: f64, force: &mut [f64; 2]) {
        let r3 = (x[0] * x[0] + x[1] * x[1]).powf(1.5);
        *force = [-p[0] * x[0] / r3, -p[0] * x[1] / r3];
    }
    #[allow(clippy::many_single_char_names)]
    fn tangent(
        &self,
        x: &[f64; 2],
        p: &[f64],
        _t: f64,
        dx: &[f64; 2],
        dp: &[f64],
        out: &mut [f64; 2],
    ) -> bool {
        // dF = −dGM x/r³ − GM (dx/r³ − 3 x (x·dx)/r⁵)
        let r2 = x[0] * x[0] + x[1] * x[1];
        let r3 = r2 * r2.sqrt();
        let radial = 3.0 * (x[0] * dx[0] + x[1] * dx[1]) / r2;
        for j in 0..2 {
            out[j] = -dp[0] * x[j] / r3 - p[0] * (dx[j] - radial * x[j]) / r3;
        }
        true
    }
}

#[test]
fn dprkn12_kepler_sensitivities_match_central_differences() {
    // e = 0.5 from perihelion, one period (GM = 1, a = 1: 2π).
    let (gm, e) = (1.0, 0.5);
    let start = |vy: f64| Particle::new(1.0, [1.0 - e, 0.0], [0.0, vy]);
    let vy = ((1.0 + e) / (1.0 - e)).sqrt();
    let t = 2.0 * core::f64::consts::PI;
    let solve = |gm: f64, vy: f64| {
        let force = |p: &Particle<[f64; 2]>, _t: f64| {
            let x = p.position();
            let r3 = (x[0] * x[0] + x[1] * x[1]).powf(1.5);
            [-gm * x[0] / r3, -gm * x[1] / r3]
        };
        let mut particle = start(vy);
        Adaptive::new("dprkn12".parse::<AdaptiveKind>().unwrap())
            .with_tolerances(Tolerances::new(1e-12, 1e-12))
            .solve(&mut particle, &force, 0.0, t)
            .unwrap();
        particle.position()
    };
    // The initial velocity's y coordinate is coordinate 2 + 1 of (position, velocity).
    let wrt = [WithRespectTo::Parameter(0), WithRespectTo::InitialValue(3)];
    let forward = Forward::new(Kepler, [gm], wrt).unwrap();
    let mut particle: Particle<[[f64; 2]; 3]> = forward.initial_particle(&start(vy)).unwrap();
    let statistics = Adaptive::new("dprkn12".parse::<AdaptiveKind>().unwrap())
        .with_tolerances(Tolerances::new(1e-12, 1e-12))
        .solve(&mut particle, &forward, 0.0, t)
        .unwrap();
    assert!(statistics.accepted > 0);
    // x(GM ± h) is flat at GM (the start is an apsis for every GM, reached again at
    // 2π/√GM): its central difference's h² term is 1.7·10⁴ h², so h is small and the
    // comparison absolute there.
    let h = 1e-6;
    for j in 0..2 {
        let by_gm = (solve(gm + h, vy)[j] - solve(gm - h, vy)[j]) / (2.0 * h);
        let by_vy = (solve(gm, vy + h)[j] - solve(gm, vy - h)[j]) / (2.0 * h);
        assert_relative_eq!(
            particle.position()[1][j],
            by_gm,
            max_relative = 1e-6,
            epsilon = 1e-5
        );
        assert_relative_eq!(
            particle.position()[2][j],
            by_vy,
            max_relative = 1e-6,
            epsilon = 1e-6
        );
    }
    // At t = T the orbit has moved along itself by the change of its period: with
    // `a = 1/(2/r − v²/GM)` (∂a/∂GM = −a² v²/GM² = −3) and `T = 2π a^(3/2)/√GM`,
    // ∂T/∂GM = 2π (3/2 ∂a/∂GM − 1/2) = −10π, so ∂y/∂GM = −v ∂T/∂GM = 10π√3.
    let closed_form = 10.0 * core::f64::consts::PI * 3f64.sqrt();
    assert_relative_eq!(particle.position()[1][1], closed_form, max_relative = 1e-8);
}

#[test]
fn an_initial_value_past_position_and_velocity_is_refused() {
    let forward = Forward::new(Spring, [1.0], [WithRespectTo::InitialValue(2)]).unwrap();
    assert_eq!(
        forward
            .initial_particle::<[f64; 2]>(&Particle::new(1.0, 1.0, 0.0))
            .unwrap_err(),
        SensitivityError::InitialValueOutOfRange { index: 2, dim: 2 }
    );
}
