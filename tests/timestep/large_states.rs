//! States sized at run time step exactly as the small states they hold.
//!
//! Every method of [`MethodKind::all`] does the same arithmetic on a `Vec<f64>` of three
//! unknowns as on a `[f64; 3]`, on a `Vec<DVec3>` as on a `[DVec3; 2]`, on a `Box<[f64]>` as
//! on a `[f64; 3]`, and on [`Particles`] of three bodies as on three [`Particle`]s stepped
//! one by one, so the results agree to rounding (explicit methods) or to the Newton
//! tolerance (backward Euler, which solves the coupled system as one). Runtime-sized
//! states are stepped through [`Method<S>`], which keeps their buffers between steps, with
//! forces both returned by value and written in place.
//!
//! And size is limited only by the heap: a chain of 200 000 masses (6·10⁵ position
//! coordinates) steps with RK4 and Verlet inside a thread with a 2 MiB stack, and follows
//! its exact normal mode `xᵢ(t) = a sin(jπi/(N+1)) cos(ω t)`,
//! `ω = 2 √(k/m) sin(jπ/(2(N+1)))`, to each method's accuracy.

use glam::DVec3;
use timestep::{
    InPlace, Integrator, Method, MethodKind, Particle, Particles, Positional, Rk4, State, Verlet,
};

/// Steps taken in each comparison.
const STEPS: usize = 50;
const DT: f64 = 0.02;

/// How close a large state's result must be to the small state's: rounding for explicit
/// methods, and for backward Euler the Newton tolerance (it may take other iterations on
/// the coupled system).
fn tolerance(method: &str) -> f64 {
    if method == "backward-euler" {
        1e-8
    } else {
        1e-13
    }
}

fn assert_close(large: &[f64], small: &[f64], method: &str, what: &str) {
    assert_eq!(large.len(), small.len());
    for (i, (a, b)) in large.iter().zip(small).enumerate() {
        assert!(
            (a - b).abs() <= tolerance(method) * (1.0 + b.abs()),
            "{method} on {what}: coordinate {i} is {a}, the small state's {b}"
        );
    }
}

/// A damped, driven, coupled linear system in three unknowns, `y′ = A y + g(t)`: an
/// oscillator (`y₀`, `y₁`) pushed by `sin t`, driving a decay `y₂`.
fn rate(y: &[f64], t: f64) -> [f64; 3] {
    [y[1], -4.0 * y[0] - 0.1 * y[1] + t.sin(), -y[2] + y[0]]
}

const START: [f64; 3] = [1.0, 0.0, 0.5];

/// `steps` steps of `method` on `state`, `t = i·dt`.
fn run<S: State<Scalar = f64>, F: timestep::Forces<S>>(
    method: &mut Method<S>,
    state: &mut S,
    forces: &F,
) {
    for i in 0..STEPS {
        method
            .step(state, forces, i as f64 * DT, DT)
            .unwrap_or_else(|e| panic!("{method}: {e}"));
    }
}

/// The array's result for `kind`.
fn array_result(kind: MethodKind) -> [f64; 3] {
    let mut y = START;
    run(&mut Method::new(kind), &mut y, &|y: &[f64; 3], t: f64| {
        rate(y, t)
    });
    y
}

#[test]
fn vec_of_f64_steps_as_an_array_does() {
    for kind in MethodKind::all() {
        let small = array_result(kind);

        // Forces in place: the large-state path.
        let mut y = START.to_vec();
        let in_place = InPlace(|y: &Vec<f64>, t: f64, out: &mut Vec<f64>| {
            out.copy_from_slice(&rate(y, t));
        });
        run(&mut Method::new(kind), &mut y, &in_place);
        assert_close(&y, &small, kind.name(), "Vec<f64>, forces in place");

        // Forces by value: the simple path, allocating a Vec per evaluation.
        let mut y = START.to_vec();
        let by_value = |y: &Vec<f64>, t: f64| rate(y, t).to_vec();
        run(&mut Method::new(kind), &mut y, &by_value);
        assert_close(&y, &small, kind.name(), "Vec<f64>, forces by value");
    }
}

#[test]
#[allow(clippy::borrowed_box)] // the state is the box itself
fn boxed_slice_steps_as_an_array_does() {
    for kind in MethodKind::all() {
        let small = array_result(kind);
        let mut y: Box<[f64]> = START.into();
        let in_place = InPlace(|y: &Box<[f64]>, t: f64, out: &mut Box<[f64]>| {
            out.copy_from_slice(&rate(y, t));
        });
        run(&mut Method::new(kind), &mut y, &in_place);
        assert_close(&y, &small, kind.name(), "Box<[f64]>");
    }
}

/// Two coupled 3-D oscillators with drag, pushed along a turning direction.
fn pair_rate(y: &[DVec3], t: f64) -> [DVec3; 2] {
    let push = DVec3::new(t.cos(), t.sin(), 0.5);
    [y[1], -3.0 * y[0] - 0.2 * y[1] + push]
}

#[test]
fn vec_of_dvec3_steps_as_an_array_does() {
    let start = [DVec3::new(1.0, -0.5, 0.25), DVec3::new(0.0, 0.3, -0.1)];
    for kind in MethodKind::all() {
        let mut small = start;
        run(
            &mut Method::new(kind),
            &mut small,
            &|y: &[DVec3; 2], t: f64| pair_rate(y, t),
        );

        let mut large = start.to_vec();
        let in_place = InPlace(|y: &Vec<DVec3>, t: f64, out: &mut Vec<DVec3>| {
            out.copy_from_slice(&pair_rate(y, t));
        });
        run(&mut Method::new(kind), &mut large, &in_place);

        let flat = |v: &[DVec3]| v.iter().flat_map(|v| v.to_array()).collect::<Vec<f64>>();
        assert_close(&flat(&large), &flat(&small), kind.name(), "Vec<DVec3>");
    }
}

/// The force on one body: a spring to the origin of stiffness `k`, drag, and a push that
/// turns with time.
fn body_force(k: f64, position: DVec3, velocity: DVec3, t: f64) -> DVec3 {
    -k * position - 0.3 * velocity + DVec3::new(t.sin(), 0.0, t.cos())
}

const STIFFNESS: [f64; 3] = [2.0, 5.0, 11.0];

#[test]
fn particles_step_as_particles_one_by_one() {
    let bodies = [
        Particle::new(1.0, DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 0.0)),
        Particle::new(0.5, DVec3::new(0.0, -2.0, 1.0), DVec3::new(0.5, 0.0, 0.0)),
        Particle::new(3.0, DVec3::new(0.2, 0.2, -0.7), DVec3::new(0.0, 0.0, -1.0)),
    ];
    for kind in MethodKind::all() {
        // Each body alone.
        let mut one_by_one = bodies;
        for (body, k) in one_by_one.iter_mut().zip(STIFFNESS) {
            let force =
                move |p: &Particle<DVec3>, t: f64| body_force(k, p.position(), p.velocity(), t);
            run(&mut Method::new(kind), body, &force);
        }

        // All three as one state, forces in place.
        let mut together = Particles::from_particles(&bodies);
        let forces = InPlace(|p: &Particles<DVec3>, t: f64, out: &mut Vec<DVec3>| {
            for i in 0..p.len() {
                out[i] = body_force(STIFFNESS[i], p.positions()[i], p.velocities()[i], t);
            }
        });
        run(&mut Method::new(kind), &mut together, &forces);

        for (i, body) in one_by_one.iter().enumerate() {
            let large = together.particle(i);
            let what = format!("Particles, body {i}");
            assert_close(
                &[large.position(), large.momentum(), large.velocity()]
                    .map(|v| v.to_array())
                    .concat(),
                &[body.position(), body.momentum(), body.velocity()]
                    .map(|v| v.to_array())
                    .concat(),
                kind.name(),
                &what,
            );
        }
    }
}

#[test]
fn one_body_of_particles_steps_as_a_particle() {
    let body = Particle::new(2.0, DVec3::new(0.5, 1.0, -1.0), DVec3::new(1.0, 0.0, 0.5));
    for kind in MethodKind::all() {
        let mut single = body;
        let force = |p: &Particle<DVec3>, t: f64| body_force(4.0, p.position(), p.velocity(), t);
        run(&mut Method::new(kind), &mut single, &force);

        let mut many = Particles::from_particles(&[body]);
        let by_value = |p: &Particles<DVec3>, t: f64| {
            vec![body_force(4.0, p.positions()[0], p.velocities()[0], t)]
        };
        run(&mut Method::new(kind), &mut many, &by_value);

        let large = many.particle(0);
        assert_close(
            &[large.position(), large.velocity()]
                .map(|v| v.to_array())
                .concat(),
            &[single.position(), single.velocity()]
                .map(|v| v.to_array())
                .concat(),
            kind.name(),
            "Particles of one body, forces by value",
        );
    }
}

/// Forces declared [`Positional`] never read momenta, so methods may skip writing them:
/// velocity Verlet evaluates the end force on the state instead of on its prediction (which
/// differs in momenta and velocities only), and Runge–Kutta probes leave their momenta
/// alone. A force of positions alone is the same force either way, so every method gives
/// the same trajectory bit for bit, declared or not, on `Particles` stepped in place as on a
/// `Particle`. A drag force declared positional (wrongly) is evaluated at stale velocities
/// or momenta by Verlet and RK4, and its trajectory moves away: the declaration is what
/// decides.
#[test]
fn positional_forces_step_as_undeclared_ones() {
    let start = Particles::from_particles(&[
        Particle::new(1.0, DVec3::new(1.0, 0.0, 0.0), DVec3::new(0.0, 1.0, 0.0)),
        Particle::new(2.5, DVec3::new(-0.5, 0.5, 0.0), DVec3::new(0.0, 0.0, -1.0)),
    ]);
    type InPlaceForce<'a> = &'a dyn Fn(&Particles<DVec3>, f64, &mut Vec<DVec3>);
    let stepped = |kind: MethodKind, forces: InPlaceForce<'_>, positional: bool| {
        let mut state = start.clone();
        let forces = InPlace(forces);
        if positional {
            run(&mut Method::new(kind), &mut state, &Positional(forces));
        } else {
            run(&mut Method::new(kind), &mut state, &forces);
        }
        state
    };
    let springs = |p: &Particles<DVec3>, t: f64, out: &mut Vec<DVec3>| {
        for (i, x) in p.positions().iter().enumerate() {
            out[i] = body_force(4.0, *x, DVec3::ZERO, t);
        }
    };
    let drag = |p: &Particles<DVec3>, t: f64, out: &mut Vec<DVec3>| {
        for ((out, x), momentum) in out.iter_mut().zip(p.positions()).zip(p.momenta()) {
            *out = body_force(4.0, *x, *momentum, t);
        }
    };
    for kind in MethodKind::all() {
        assert_eq!(
            stepped(kind, &springs, true),
            stepped(kind, &springs, false),
            "{}",
            kind.name()
        );
    }
    for kind in [MethodKind::Verlet(Verlet), MethodKind::Rk4(Rk4)] {
        assert_ne!(
            stepped(kind, &drag, true).positions(),
            stepped(kind, &drag, false).positions(),
            "{}",
            kind.name()
        );
    }

    let mut body = start.particle(0);
    let mut declared = body;
    let spring = |p: &Particle<DVec3>, t: f64| body_force(4.0, p.position(), DVec3::ZERO, t);
    for i in 0..STEPS {
        let t = i as f64 * DT;
        Verlet
            .step(&mut body, &spring, t, DT)
            .expect("a finite step");
        Verlet
            .step(&mut declared, &Positional(spring), t, DT)
            .expect("a finite step");
    }
    assert_eq!(declared, body);
}

/// Masses in the long chain: `N + 1 = 3j`, so mode `j` has `ω = 2 sin(π/6) = 1`.
const CHAIN: usize = 200_000;
const MODE: usize = 66_667;

/// `steps` steps of `name` on the chain's normal mode `MODE`, in a thread with a 2 MiB
/// stack; returns the largest distance from the exact solution at the end, and how far the
/// exact solution moved the masses (so the test cannot pass by standing still).
fn chain_in_small_thread(name: &'static str, steps: usize, dt: f64) -> (f64, f64) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            assert_eq!(CHAIN + 1, 3 * MODE);
            let amplitude = DVec3::new(1.0, 0.5, -0.25);
            let shape = |i: usize| {
                let phase = std::f64::consts::PI * (MODE * (i + 1)) as f64 / (CHAIN + 1) as f64;
                phase.sin()
            };
            let start: Vec<DVec3> = (0..CHAIN).map(|i| amplitude * shape(i)).collect();
            let mut chain =
                Particles::new(vec![1.0; CHAIN], start.clone(), vec![DVec3::ZERO; CHAIN]);
            // Springs of stiffness 1 and zero rest length, both ends tied to the origin.
            let springs = InPlace(|c: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
                let x = c.positions();
                for i in 0..x.len() {
                    let left = if i > 0 { x[i - 1] } else { DVec3::ZERO };
                    let right = if i + 1 < x.len() {
                        x[i + 1]
                    } else {
                        DVec3::ZERO
                    };
                    out[i] = left - 2.0 * x[i] + right;
                }
            });
            let mut method: Method<Particles<DVec3>> = name.parse().expect("a method");
            for i in 0..steps {
                method
                    .step(&mut chain, &springs, i as f64 * dt, dt)
                    .expect("the step succeeds");
            }
            let t = steps as f64 * dt;
            let mut error = 0.0_f64;
            let mut moved = 0.0_f64;
            for (x, x0) in chain.positions().iter().zip(&start) {
                let exact = *x0 * t.cos();
                error = error.max((*x - exact).abs().max_element());
                moved = moved.max((exact - *x0).abs().max_element());
            }
            (error, moved)
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic")
}

#[test]
fn a_chain_of_200_000_masses_steps_in_a_2_mib_thread() {
    // RK4's error on ω dt = 0.1 over one time unit: about t ω⁵ dt⁴ / 120 ≈ 10⁻⁶ (measured:
    // 5.7·10⁻⁷). The masses sit where sin(πi/3) is 0 or ±0.866, so the exact motion moves them by up
    // to 0.866 (1 − cos 1) = 0.40.
    let (error, moved) = chain_in_small_thread("rk4", 10, 0.1);
    assert!(moved > 0.3, "the mode moved by {moved}");
    assert!(error < 2e-6, "RK4 is {error} from the normal mode");

    // Verlet's phase error: about t ω³ dt² / 24 ≈ 4·10⁻⁴, times sin t.
    let (error, moved) = chain_in_small_thread("verlet", 10, 0.1);
    assert!(moved > 0.3, "the mode moved by {moved}");
    assert!(
        error < 1e-3 && error > 1e-5,
        "Verlet is {error} from the normal mode"
    );
}

/// A chain of 14 masses with cubic springs, `[positions, velocities]`.
fn cubic_chain(y: &[f64], out: &mut [f64]) {
    let n = y.len() / 2;
    let (x, v) = y.split_at(n);
    let (dx, dv) = out.split_at_mut(n);
    dx.copy_from_slice(v);
    let spring = |d: f64| d + d * d * d;
    for i in 0..n {
        let left = spring(x[i] - if i > 0 { x[i - 1] } else { 0.0 });
        let right = spring(if i + 1 < n { x[i + 1] } else { 0.0 } - x[i]);
        dv[i] = right - left;
    }
}

/// An array of 28 `f64` takes each rate its right-hand side returns by value and writes it
/// to its buffer in the pass that forms the next probe; a `Vec` has its rates written in
/// place. Both form every probe in one pass, the same sums in the same order: every
/// explicit pair takes the same steps and ends on the same bits, and so do the dense
/// output's samples between steps.
#[test]
fn a_large_array_steps_as_a_vec_does_to_the_bit() {
    use timestep::adaptive::Adaptive;
    use timestep::{AdaptiveKind, Tolerances};
    let mut start = [0.0; 28];
    for (i, x) in start[..14].iter_mut().enumerate() {
        *x = 0.3 * (2.1 * (i + 1) as f64).sin();
    }
    let times: Vec<f64> = (1..=20).map(|k| 0.75 * k as f64).collect();
    for name in [
        "bs3", "dopri5", "tsit5", "dop853", "vern6", "vern7", "vern8", "vern9",
    ] {
        let method: AdaptiveKind = name.parse().expect("a pair by name");
        let tolerances = Tolerances::new(1e-7, 1e-7);
        let mut array = start;
        let mut array_samples = Vec::new();
        let array_run = Adaptive::new(method)
            .with_tolerances(tolerances)
            .solve_at(
                &mut array,
                &|y: &[f64; 28], _t: f64| {
                    let mut out = [0.0; 28];
                    cubic_chain(y, &mut out);
                    out
                },
                0.0,
                &times,
                |_t, y| array_samples.push(*y),
            )
            .expect("a run within the step budget");
        let mut vec = start.to_vec();
        let mut vec_samples = Vec::new();
        let vec_run = Adaptive::new(method)
            .with_tolerances(tolerances)
            .solve_at(
                &mut vec,
                &InPlace(|y: &Vec<f64>, _t: f64, out: &mut Vec<f64>| cubic_chain(y, out)),
                0.0,
                &times,
                |_t, y| vec_samples.push(y.clone()),
            )
            .expect("a run within the step budget");
        assert!(array_run.accepted > 20, "{name}: {array_run:?}");
        assert_eq!(
            (
                array_run.accepted,
                array_run.rejected,
                array_run.evaluations
            ),
            (vec_run.accepted, vec_run.rejected, vec_run.evaluations),
            "{name}"
        );
        assert_eq!(array.as_slice(), vec.as_slice(), "{name}");
        assert_eq!((array_samples.len(), vec_samples.len()), (20, 20), "{name}");
        for (a, v) in array_samples.iter().zip(&vec_samples) {
            assert_eq!(a.as_slice(), v.as_slice(), "{name}");
        }
    }
}
