//! How stiff can a spring be before a method explodes? For every method, the largest spring
//! constant k (mass 1 kg, no damping) at dt = 0.01 s for which the method's one-step map on
//! the oscillator `x'' = −k x` has spectral radius at most 1, so no solution grows.
//!
//! The map is measured from the integrator itself, not taken from theory: run it three steps
//! from x = 0, v = 1 and read off positions x₀…x₃. The method's map is linear on a
//! 2-dimensional state ((x, v), or (xₙ, xₙ₋₁) for position Verlet, which carries its last
//! step), so by Cayley–Hamilton its positions obey `xₙ₊₁ = α xₙ + β xₙ₋₁` with α the trace
//! and −β the determinant of the map. The equations for n = 1 and 2 give α and β, and the
//! spectral radius is the largest |λ| with `λ² = α λ + β`. The threshold is then found by
//! doubling k and bisecting.
//!
//! Methods with a history need more care. Beeman's algorithm carries the last force as
//! well (a 3-dimensional map), but its positions obey Störmer–Verlet's two-term
//! recurrence from its third step on, so the same fit is made after `WARM_UP` steps (for
//! the one-step methods, where the fit holds from any start, that changes nothing).
//! Adams–Bashforth–Moulton carries three past rates (an 8-dimensional map) and starts
//! with RK4 steps: for it the radius is measured from growth instead, as the factor by
//! which `x² + v²/k` grows over `GROWTH_STEPS` steps after the start, which resolves
//! `ρ − 1` only down to `GROWTH_TOLERANCE`. Its row is therefore a practical bound, not a
//! stability bound: its characteristic polynomial puts `ρ` above 1 for every `k`, by
//! `0.16 (ω dt)⁶` for small `ω dt` (1.6·10⁻⁷ at `ω dt = 0.1`), too little to see below the
//! row's `k`, and steeply more beyond it.
//!
//! Leapfrog (drift–kick–drift) is stable up to exactly k = 40 000 (a run at 39 999 stays
//! bounded), but near there its position hardly depends on its velocity, the fit loses
//! digits and its row reads a little lower.
//!
//! Run with `cargo run --release --example stability`.
//!
//! Output: the header `method,dt,max_stable_k` and one row per method; `0` means unstable
//! even for the softest spring, `inf` stable for any spring. Theory: `ω dt ≤ 2`
//! (k ≤ 4/dt² = 40000) for semi-implicit Euler and both Verlets, `ω dt ≤ 2√2`
//! (k ≤ 80000) for RK4, never for explicit Euler, midpoint and improved Euler, always for
//! backward Euler, the trapezoidal and implicit midpoint rules and Newmark's average
//! acceleration (`newmark`; its linear acceleration member would be `ω dt ≤ 2√3`); `ω dt ≤ 1` (k ≤ 10000) for the lecture's predictor–corrector; for the
//! compositions, whatever their coefficients give (measured here).
//!
//! It takes no flags: `--help` prints what it does, and any other argument is refused
//! with a one-line message and exit status 2.

mod cli;

use timestep::{Integrator, Method, Particle, StepError};

const DT: f64 = 0.01;

/// Tolerance on the spectral radius: symplectic methods sit at exactly 1, which rounding
/// may nudge either way.
const RADIUS_TOLERANCE: f64 = 1e-12;

/// Springs stiffer than this count as "any spring".
const STIFFEST: f64 = 1e15;

/// Steps before the positions are read: past Beeman's start.
const WARM_UP: usize = 4;

/// The methods whose map is too large for the two-term fit, measured by growth.
const BY_GROWTH: [&str; 1] = ["adams-bashforth-moulton"];

/// Steps over which growth is measured, after the start.
const GROWTH_STEPS: usize = 20_000;

/// The smallest `ρ − 1` growth over `GROWTH_STEPS` steps shows (a factor 2 in `x² + v²/k`).
const GROWTH_TOLERANCE: f64 = 2e-5;

/// The spectral radius of `name`'s one-step map on the oscillator of stiffness `k`.
fn spectral_radius(name: &str, k: f64) -> Result<f64, StepError> {
    // A fresh method: position Verlet's first step starts from the velocity, its later
    // steps from its memory of the last one, and both must be this run's.
    let mut method: Method<Particle<f64>> = name.parse().expect("a name from Method::NAMES");
    let spring = move |p: &Particle<f64>, _t: f64| -k * p.position();
    // Starting at x = 0 with v = 1 makes x₀…x₃ of size dt, 2dt, 3dt for soft springs, so
    // α and β come out well conditioned; from x = 1, v = 0 they would be read off the tiny
    // differences between positions all close to 1.
    let mut particle = Particle::new(1.0, 0.0, 1.0);
    if BY_GROWTH.contains(&name) {
        return growth_radius(method, particle, &spring, k);
    }
    for n in 0..WARM_UP {
        method.step(&mut particle, &spring, n as f64 * DT, DT)?;
    }
    let mut x = [particle.position(); 4];
    for (n, position) in x.iter_mut().enumerate().skip(1) {
        method.step(&mut particle, &spring, (WARM_UP + n - 1) as f64 * DT, DT)?;
        *position = particle.position();
    }
    // x₂ = α x₁ + β x₀ and x₃ = α x₂ + β x₁, solved by Cramer's rule.
    let determinant = x[1] * x[1] - x[0] * x[2];
    let alpha = (x[2] * x[1] - x[0] * x[3]) / determinant;
    let beta = (x[1] * x[3] - x[2] * x[2]) / determinant;
    let discriminant = alpha * alpha + 4.0 * beta;
    Ok(if discriminant >= 0.0 {
        (alpha.abs() + discriminant.sqrt()) / 2.0
    } else {
        // Complex pair: |λ|² is their product, −β.
        (-beta).sqrt()
    })
}

/// The radius of a method with a long history, from growth: `(N_end / N_start)^(1/2n)`
/// with `N = x² + v²/k` taken as the largest over a window of steps (which spans more
/// than a period for the springs near a threshold).
fn growth_radius(
    mut method: Method<Particle<f64>>,
    mut particle: Particle<f64>,
    spring: &impl Fn(&Particle<f64>, f64) -> f64,
    k: f64,
) -> Result<f64, StepError> {
    const WINDOW: usize = 1000;
    let norm = |p: &Particle<f64>| p.position().powi(2) + p.velocity().powi(2) / k;
    let window_max = |method: &mut Method<Particle<f64>>,
                      particle: &mut Particle<f64>,
                      from: usize|
     -> Result<f64, StepError> {
        let mut largest = 0.0_f64;
        for n in from..from + WINDOW {
            method.step(particle, spring, n as f64 * DT, DT)?;
            let now = norm(particle);
            // A NaN (overflow) must count as growth.
            largest = if now.is_nan() {
                f64::INFINITY
            } else {
                largest.max(now)
            };
        }
        Ok(largest)
    };
    let start = window_max(&mut method, &mut particle, 0)?;
    for n in (WINDOW..GROWTH_STEPS).step_by(WINDOW) {
        let _ = window_max(&mut method, &mut particle, n)?;
    }
    let end = window_max(&mut method, &mut particle, GROWTH_STEPS)?;
    Ok((end / start).powf(0.5 / GROWTH_STEPS as f64))
}

fn is_stable(name: &str, k: f64) -> Result<bool, StepError> {
    // `<=` so that a NaN radius (a step that overflowed) counts as unstable.
    let tolerance = if BY_GROWTH.contains(&name) {
        GROWTH_TOLERANCE
    } else {
        RADIUS_TOLERANCE
    };
    Ok(spectral_radius(name, k)? <= 1.0 + tolerance)
}

/// The largest stable k, or 0 for never stable and infinity for always stable.
fn max_stable_k(name: &str) -> Result<f64, StepError> {
    // The methods that are never stable have ρ > 1 for every k > 0, but ρ − 1 shrinks with
    // k (like k dt² for explicit Euler, k² dt⁴ for midpoint and improved Euler), and for
    // tiny k it falls below rounding. At k = 1 it is still far above the tolerance, and no
    // method here is unstable at k = 1 yet stable for some stiffer spring.
    if !is_stable(name, 1.0)? {
        return Ok(0.0);
    }
    if is_stable(name, STIFFEST)? {
        return Ok(f64::INFINITY);
    }
    // Double k until it is unstable, for a bracket no wider than a factor of 2...
    let mut stable = 1.0;
    let mut unstable = 2.0;
    while is_stable(name, unstable)? {
        stable = unstable;
        unstable = (2.0 * unstable).min(STIFFEST);
    }
    // ...then bisect it to a relative width of 1e-9.
    while unstable - stable > 1e-9 * stable {
        let middle = 0.5 * (stable + unstable);
        if is_stable(name, middle)? {
            stable = middle;
        } else {
            unstable = middle;
        }
    }
    Ok(stable)
}

fn main() {
    cli::parse(
        "stability",
        "CSV method,dt,max_stable_k: the stiffest undamped spring each method keeps bounded at dt = 0.01; takes no flags",
        &[],
    );
    println!("method,dt,max_stable_k");
    for name in Method::<Particle<f64>>::NAMES {
        let column = match max_stable_k(name) {
            Ok(0.0) => "0".to_string(),
            Ok(k) if k.is_infinite() => "inf".to_string(),
            Ok(k) => format!("{k:.1}"),
            Err(error) => {
                eprintln!("stability: {name}: {error}");
                "nan".to_string()
            }
        };
        println!("{name},{DT},{column}");
    }
}
