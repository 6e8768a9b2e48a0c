//! Helpers shared by the integration tests: the damped spring and its energy, and the
//! theory each test compares with (orders, stability functions).
#![allow(dead_code)]

use core::ops::{Add, Div, Mul, Sub};
use timestep::{Dop853, Dopri5, Method, MethodKind, Particle, Scheme, Sequence, Tableau, Tsit5};

/// The force of a damped spring, `F = −k x − b v`, on a particle on a line.
pub fn spring(k: f64, b: f64) -> impl Fn(&Particle<f64>, f64) -> f64 + Copy {
    move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity()
}

/// The mechanical energy `½ m v² + ½ k x²` of a particle on a spring of constant `k`.
pub fn energy(p: &Particle<f64>, k: f64) -> f64 {
    0.5 * p.mass() * p.velocity() * p.velocity() + 0.5 * k * p.position() * p.position()
}

/// Every method, freshly made, for a particle on a line: one at a time, since an array of
/// every `Method` (each with room for backward Euler's workspace, 12.6 kB) overflows a
/// debug test thread's stack next to a test's own values.
pub fn methods() -> impl Iterator<Item = Method<Particle<f64>>> {
    MethodKind::all().into_iter().map(Method::new)
}

/// The theoretical order of accuracy of a method, as the method states it
/// ([`Scheme::properties`]): the same on first- and second-order systems.
pub fn order(method: &str) -> f64 {
    let kind: MethodKind = method.parse().expect("a method's name");
    f64::from(kind.properties().order)
}

/// The least-squares slope of `ln y` against `ln x`.
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let mx = lx.iter().sum::<f64>() / n;
    let my = ly.iter().sum::<f64>() / n;
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

/// The coefficients of an explicit Runge–Kutta method's stability polynomial,
/// `R(z) = 1 + Σₖ (bᵀ Aᵏ⁻¹ 𝟙) zᵏ`, read from its tableau.
pub fn rk_polynomial<const N: usize>(tableau: &Tableau<N>) -> Vec<f64> {
    let mut coefficients = vec![1.0];
    let mut power = [1.0; N]; // Aᵏ⁻¹ 𝟙
    for _ in 0..N {
        coefficients.push((0..N).map(|i| tableau.b[i] * power[i]).sum());
        power = core::array::from_fn(|i| (0..N).map(|j| tableau.a[i][j] * power[j]).sum());
    }
    coefficients
}

/// A complex number, to evaluate stability functions off the real axis.
#[derive(Clone, Copy, Debug)]
pub struct C(pub f64, pub f64);

impl C {
    pub fn abs(self) -> f64 {
        self.0.hypot(self.1)
    }
}

impl From<f64> for C {
    fn from(x: f64) -> C {
        C(x, 0.0)
    }
}

impl Add for C {
    type Output = C;
    fn add(self, w: C) -> C {
        C(self.0 + w.0, self.1 + w.1)
    }
}

impl Sub for C {
    type Output = C;
    fn sub(self, w: C) -> C {
        C(self.0 - w.0, self.1 - w.1)
    }
}

impl Mul for C {
    type Output = C;
    fn mul(self, w: C) -> C {
        C(self.0 * w.0 - self.1 * w.1, self.0 * w.1 + self.1 * w.0)
    }
}

impl Mul<f64> for C {
    type Output = C;
    fn mul(self, s: f64) -> C {
        C(self.0 * s, self.1 * s)
    }
}

impl Div for C {
    type Output = C;
    fn div(self, w: C) -> C {
        let n = w.0 * w.0 + w.1 * w.1;
        C(
            (self.0 * w.0 + self.1 * w.1) / n,
            (self.1 * w.0 - self.0 * w.1) / n,
        )
    }
}

/// The stability function `R(z)` of each method on a first-order system
/// (`integrators::first_order`); `None` for the multistep methods (no one-step map).
pub fn stability_function(name: &str, z: C) -> Option<C> {
    let one = C::from(1.0);
    Some(match name {
        "explicit-euler" | "semi-implicit-euler" | "leapfrog" | "exponential-euler" => {
            polynomial(&[1.0, 1.0], z)
        }
        "midpoint" | "improved-euler" | "verlet" | "position-verlet" => {
            polynomial(&[1.0, 1.0, 0.5], z)
        }
        "predictor-corrector" => polynomial(&[1.0, 1.0, 1.0], z),
        "rk4" => polynomial(&[1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0], z),
        "backward-euler" => one / (one - z),
        // Newmark on a first-order system is the θ-method with θ = γ = ½ (its docs).
        "trapezoid" | "implicit-midpoint" | "newmark" => {
            polynomial(&[1.0, 0.5], z) / polynomial(&[1.0, -0.5], z)
        }
        // Radau IIA with three stages: the (2, 3) Padé approximation of eᶻ (Hairer–Wanner
        // II, IV.5).
        "radau5" => {
            polynomial(&[1.0, 2.0 / 5.0, 1.0 / 20.0], z)
                / polynomial(&[1.0, -3.0 / 5.0, 3.0 / 20.0, -1.0 / 60.0], z)
        }
        "bs3" => polynomial(&[1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0], z),
        // Six stages of order five: the degree-six term is each pair's own (600 for
        // Dormand–Prince, from its tableau; Tsitouras' from its).
        "dopri5" => polynomial(&rk_polynomial(&Dopri5::TABLEAU), z),
        "tsit5" => polynomial(&rk_polynomial(&Tsit5::TABLEAU), z),
        "dop853" => polynomial(&rk_polynomial(&Dop853::TABLEAU), z),
        "rodas4" => rosenbrock_stability(&timestep::Rodas4::TABLEAU, z),
        "rodas5p" => rosenbrock_stability(&timestep::Rodas5P::TABLEAU, z),
        "ros3p" => rosenbrock_stability(&timestep::Ros3p::TABLEAU, z),
        "beeman" | "adams-bashforth-moulton" => return None,
        _ if is_composition(name) => match composition_sequence(name) {
            // Verlet's steps of `γᵢ dt` with their touching half kicks merged, each force after
            // the first seen at the state predicted over half the drift (`Composition`'s
            // kick-first loop); `w` is that state: on `y' = λ y`, `(1 + γ z/2) y` after a kick.
            Sequence::Composition(gamma) => {
                let (mut y, mut w, mut last) = (one, one, 0.0);
                for &g in gamma {
                    y = y + C::from((last + g) / 2.0) * z * w;
                    w = y + C::from(g / 2.0) * z * w;
                    last = g;
                }
                y + C::from(last / 2.0) * z * w
            }
            // Drift first: each kick is explicit Euler's, of `b dt`.
            Sequence::DriftKick { kicks, .. } => {
                kicks.iter().fold(one, |r, &b| r * polynomial(&[1.0, b], z))
            }
        },
        other => panic!("{other}: no stability function; add it here"),
    })
}

/// The kicks and drifts of a composition method, from the registry.
pub fn composition_sequence(name: &str) -> Sequence {
    match name.parse().expect("a method's name") {
        MethodKind::ForestRuth(c)
        | MethodKind::Suzuki4(c)
        | MethodKind::Yoshida6(c)
        | MethodKind::Yoshida8(c)
        | MethodKind::BlanesMoan4(c)
        | MethodKind::KahanLi8(c) => c.coefficients().sequence,
        other => panic!("{other} is not a composition"),
    }
}

/// The stability function of a Rosenbrock method, from its (transformed) tableau: on
/// `y' = λ y` with `z = hλ`, each stage is `uᵢ = (z (1 + Σⱼ aᵢⱼ uⱼ) + Σⱼ cᵢⱼ uⱼ) / (1/γ − z)`
/// (Hairer–Wanner II, IV.7, (7.4′) divided by `y`), and `R(z) = 1 + Σᵢ bᵢ uᵢ`.
pub fn rosenbrock_stability<const S: usize>(tableau: &timestep::RosenbrockTableau<S>, z: C) -> C {
    let mut u = [C::from(0.0); S];
    for i in 0..S {
        let (mut state, mut earlier) = (C::from(0.0), C::from(0.0));
        for (j, &u) in u[..i].iter().enumerate() {
            state = state + C::from(tableau.a[i][j]) * u;
            earlier = earlier + C::from(tableau.c[i][j]) * u;
        }
        u[i] = (z * (C::from(1.0) + state) + earlier) / (C::from(1.0 / tableau.gamma) - z);
    }
    (0..S).fold(C::from(1.0), |r, i| r + C::from(tableau.b[i]) * u[i])
}

/// `Σₖ cₖ zᵏ`.
pub fn polynomial(coefficients: &[f64], z: C) -> C {
    coefficients
        .iter()
        .rev()
        .fold(C::from(0.0), |sum, &c| sum * z + C::from(c))
}

/// The high-order compositions and splittings (symplectic, of order above 2).
pub fn is_composition(name: &str) -> bool {
    let kind: timestep::MethodKind = name.parse().expect("a method's name");
    let properties = timestep::Scheme::properties(&kind);
    properties.symplectic && properties.order > 2
}

/// Solves `A z = r` for the tridiagonal `A` with every off-diagonal entry `off` and
/// diagonal entries `diagonal(i)`, by Thomas' algorithm (no pivoting: for a diagonally
/// dominant `A`, as `I − γJ` of a diffusion is): the preconditioners of the GMRES tests.
pub fn thomas(off: f64, diagonal: impl Fn(usize) -> f64, r: &[f64], z: &mut [f64]) {
    let n = r.len();
    let mut upper = vec![0.0; n];
    let mut pivot = diagonal(0);
    z[0] = r[0] / pivot;
    for i in 1..n {
        upper[i - 1] = off / pivot;
        pivot = diagonal(i) - off * upper[i - 1];
        z[i] = (r[i] - off * z[i - 1]) / pivot;
    }
    for i in (0..n - 1).rev() {
        z[i] -= upper[i] * z[i + 1];
    }
}
