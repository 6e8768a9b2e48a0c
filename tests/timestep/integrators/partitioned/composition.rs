//! Composition and splitting methods: their coefficient tables meet the order conditions,
//! and their orders are measured.
//!
//! The theory (Hairer–Lubich–Wanner, *Geometric Numerical Integration*, II.4, III.3 and
//! V.3): composing a symmetric second-order step `Φ` as `Φ(γₛ dt) ∘ … ∘ Φ(γ₁ dt)` with
//! symmetric `γ` gives order 4 when `Σγ = 1` and `Σγ³ = 0`. Orders 6 and 8 need more
//! conditions, among them `Σγ⁵ = 0` (and `Σγ⁷ = 0` for 8), which are all a linear problem
//! sees: on `x'' = −ω² x` the base step is `exp(dt A + c₃ dt³ A³ + c₅ dt⁵ A⁵ + …)` with
//! commuting terms, so the composition's error is led by the first non-zero `Σγ^(2k+1)`.
//! A splitting `D(a₁) K(b₁) … D(aₛ₊₁)` of order p integrates time-dependent kicks and
//! momentum-dependent drifts exactly for polynomials of degree below p: `Σ bᵢ cᵢᵏ =
//! 1/(k+1)` with `cᵢ` the drifts before kick i, and `Σ aᵢ dᵢᵏ = 1/(k+1)` with `dᵢ` the kicks
//! before drift i, for k < p.
//!
//! The measured orders are on Kepler's problem (eccentricity 0.5, one period, where the
//! exact solution returns to its start), a nonlinear problem that every order condition
//! matters for.

use glam::DVec2;
use timestep::{
    Coefficients, Composition, Integrator, Leapfrog, Particle, Scheme, Sequence, Verlet,
};

fn power_sum(gamma: &[f64], k: i32) -> f64 {
    gamma.iter().map(|g| g.powi(k)).sum()
}

/// Yoshida printed solution D of his 8th order to 15 digits; with `|γ|` up to 1.96 and
/// powers up to 7 the conditions hold to what those digits allow.
fn tolerance(table: &Coefficients) -> f64 {
    if table.name == "yoshida8" {
        3e-12
    } else {
        2e-15
    }
}

#[test]
fn composition_tables_meet_their_order_conditions() {
    for table in Coefficients::ALL {
        let Sequence::Composition(gamma) = table.sequence else {
            continue;
        };
        let tolerance = tolerance(table);
        let n = gamma.len();
        for i in 0..n {
            assert_eq!(gamma[i], gamma[n - 1 - i], "{}: symmetric", table.name);
        }
        assert!(
            (power_sum(gamma, 1) - 1.0).abs() <= tolerance,
            "{}: Σγ",
            table.name
        );
        let mut k = 3;
        while k < table.order as i32 {
            let sum = power_sum(gamma, k);
            println!("{}: Σγ^{k} = {sum:e}", table.name);
            assert!(sum.abs() <= tolerance, "{}: Σγ^{k} = {sum:e}", table.name);
            k += 2;
        }
        // ...and the next one does not vanish: the order on a linear problem is no higher.
        let next = power_sum(gamma, table.order as i32 + 1);
        assert!(
            next.abs() > 1e-3,
            "{}: Σγ^{} = {next:e}",
            table.name,
            table.order + 1
        );
    }
}

#[test]
fn blanes_moan_meets_its_quadrature_conditions() {
    let Sequence::DriftKick { drifts, kicks } = Coefficients::BLANES_MOAN4.sequence else {
        panic!("Blanes–Moan is a kick/drift table");
    };
    assert_eq!(drifts.len(), kicks.len() + 1);
    for k in 0..4 {
        // Kicks at the times the drifts before them reach.
        let mut time = 0.0;
        let mut kick_sum = 0.0;
        for (i, b) in kicks.iter().enumerate() {
            time += drifts[i];
            kick_sum += b * f64::powi(time, k);
        }
        // Drifts at the momenta the kicks before them reach.
        let mut momentum = 0.0;
        let mut drift_sum = 0.0;
        for (i, a) in drifts.iter().enumerate() {
            drift_sum += a * f64::powi(momentum, k);
            if i < kicks.len() {
                momentum += kicks[i];
            }
        }
        let exact = 1.0 / f64::from(k + 1);
        assert!((kick_sum - exact).abs() < 1e-14, "Σ b c^{k} = {kick_sum}");
        assert!((drift_sum - exact).abs() < 1e-14, "Σ a d^{k} = {drift_sum}");
    }
}

const ECCENTRICITY: f64 = 0.5;

fn kepler_start() -> Particle<DVec2> {
    let e = ECCENTRICITY;
    Particle::new(
        1.0,
        DVec2::new(1.0 - e, 0.0),
        DVec2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()),
    )
}

fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    let r = p.position();
    -r / r.length().powi(3)
}

/// The phase-space distance from the start after one period in `steps` steps.
fn kepler_error<I: Integrator<Particle<DVec2>>>(mut method: I, steps: usize) -> f64 {
    let start = kepler_start();
    let mut particle = start;
    let dt = std::f64::consts::TAU / steps as f64;
    for i in 0..steps {
        method
            .step(&mut particle, &gravity, i as f64 * dt, dt)
            .expect("a finite step");
    }
    (particle.position() - start.position()).length()
        + (particle.velocity() - start.velocity()).length()
}

/// The order from the errors at the coarsest and finest step counts.
fn measured_order<I: Integrator<Particle<DVec2>> + Clone>(method: I, steps: [usize; 3]) -> f64 {
    let errors: Vec<(f64, f64)> = steps
        .iter()
        .map(|&n| (n as f64, kepler_error(method.clone(), n)))
        .collect();
    -(errors[2].1 / errors[0].1).ln() / (errors[2].0 / errors[0].0).ln()
}

/// Steps per period where each table's error is asymptotic yet far above rounding
/// (errors between 10⁻⁴ and 10⁻¹⁰). Yoshida's 8th order, with steps of ±1.96, needs
/// smaller steps than Kahan–Li's to reach its asymptotic regime.
fn ladder(table: &Coefficients) -> [usize; 3] {
    match (table.order, table.name) {
        (4, _) => [400, 800, 1600],
        (6, _) => [100, 200, 400],
        (_, "yoshida8") => [150, 212, 300],
        _ => [60, 90, 135],
    }
}

#[test]
fn compositions_converge_at_their_order_on_kepler() {
    for table in Coefficients::ALL {
        for (base, order) in [
            (
                "verlet",
                measured_order(Composition::new(Verlet, table), ladder(table)),
            ),
            (
                "leapfrog",
                measured_order(Composition::new(Leapfrog, table), ladder(table)),
            ),
        ] {
            let theory = f64::from(table.order);
            println!(
                "{} over {base}: measured order {order:.3} (theory {theory})",
                table.name
            );
            assert!(
                (order - theory).abs() <= 0.15,
                "{} over {base}: measured order {order:.3}, theory {theory}",
                table.name
            );
        }
    }
    let order = measured_order(Leapfrog, [400, 800, 1600]);
    assert!((order - 2.0).abs() <= 0.15, "leapfrog: {order}");
}

/// Merging half kicks changes nothing but the cost: a composition steps as its base steps
/// one after another would, to rounding.
#[test]
fn a_composition_is_its_base_steps_in_turn() {
    let Sequence::Composition(gamma) = Coefficients::SUZUKI4.sequence else {
        unreachable!()
    };
    let dt = 0.05;
    let mut composed = kepler_start();
    let mut by_hand = composed;
    let mut suzuki4 = Composition::SUZUKI4;
    suzuki4.step(&mut composed, &gravity, 0.0, dt).unwrap();
    let mut t = 0.0;
    for g in gamma {
        Verlet.step(&mut by_hand, &gravity, t, g * dt).unwrap();
        t += g * dt;
    }
    assert!((composed.position() - by_hand.position()).length() < 1e-14);
    assert!((composed.velocity() - by_hand.velocity()).length() < 1e-14);
}

/// Properties say what the loop does: `s + 1` evaluations over Verlet, `s` over leapfrog
/// and for Blanes–Moan's six kicks.
#[test]
fn compositions_count_their_force_evaluations() {
    use std::cell::Cell;
    for table in Coefficients::ALL {
        let count = Cell::new(0);
        let counting = |p: &Particle<DVec2>, t: f64| {
            count.set(count.get() + 1);
            gravity(p, t)
        };
        let mut particle = kepler_start();
        let mut method = Composition::new(Verlet, table);
        method.step(&mut particle, &counting, 0.0, 0.01).unwrap();
        assert_eq!(
            count.get(),
            method.properties().evaluations,
            "{}",
            table.name
        );
        let expected = match table.sequence {
            Sequence::Composition(gamma) => gamma.len() as u32 + 1,
            Sequence::DriftKick { kicks, .. } => kicks.len() as u32,
        };
        assert_eq!(count.get(), expected, "{}", table.name);
    }
}

/// The rigid-body compositions raise the order of the free rotation: the largest energy
/// error of the tumbling top (`I = diag(1, 2, 3)`, ω = (0.001, 2, 0.001), 20 s, one flip)
/// falls like `dtᵖ` from 30 Hz to 60 Hz: by 2² for the splitting, 2⁴ and 2⁶ for its
/// compositions.
#[test]
fn rigid_compositions_raise_the_order_of_the_free_rotation() {
    use timestep::rigid::{DRigidBody, Inertia, Splitting};
    fn largest_energy_error<I: Integrator<DRigidBody>>(mut method: I, hz: f64) -> f64 {
        let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
        body.set_angular_velocity(glam::DVec3::new(0.001, 2.0, 0.001));
        let free = |_: &DRigidBody, _t: f64| (glam::DVec3::ZERO, glam::DVec3::ZERO);
        let e0 = body.kinetic_energy();
        let dt = 1.0 / hz;
        let mut largest = 0.0_f64;
        for i in 0..(20.0 * hz) as usize {
            method.step(&mut body, &free, i as f64 * dt, dt).unwrap();
            largest = largest.max((body.kinetic_energy() - e0).abs() / e0);
        }
        largest
    }
    let order = |coarse: f64, fine: f64| (coarse / fine).log2();
    let two = order(
        largest_energy_error(Splitting, 30.0),
        largest_energy_error(Splitting, 60.0),
    );
    let four = order(
        largest_energy_error(Splitting::ORDER4, 30.0),
        largest_energy_error(Splitting::ORDER4, 60.0),
    );
    let six = order(
        largest_energy_error(Splitting::ORDER6, 30.0),
        largest_energy_error(Splitting::ORDER6, 60.0),
    );
    println!("rigid: splitting {two:.3}, splitting4 {four:.3}, splitting6 {six:.3}");
    assert!((two - 2.0).abs() < 0.15, "splitting: {two}");
    assert!((four - 4.0).abs() < 0.15, "splitting4: {four}");
    assert!((six - 6.0).abs() < 0.15, "splitting6: {six}");
}
