//! Gradients against the complex-step derivative (Squire and Trapp, *Using complex
//! variables to estimate derivatives of real functions*, SIAM Review 40 (1998) 110–112):
//! for an analytic `L(θ)`, `∂L/∂θ = Im L(θ + ih) / h + O(h²)`, with no difference of
//! nearby numbers, so `h = 10⁻²⁰` leaves only the error of computing `L` itself.
//!
//! The crate's scalars are real, so `L` is computed here by classical Runge–Kutta 4 in
//! complex arithmetic at a step small enough that the reference is converged (checked
//! against half the step): the derivative of the exact flow, which the adjoint and forward
//! gradients of tightly solved runs must reach, on two nonlinear problems with no closed
//! form: Lotka–Volterra and Van der Pol. Asserted to 10⁻⁹ relative (the bound asked for is
//! 10⁻⁷); measured 7·10⁻¹³–10⁻¹¹ for Dop853's adjoint and forward sensitivities, 8·10⁻¹²
//! for Radau5's adjoint, 3·10⁻¹¹ for Rodas4's and 1.8·10⁻¹¹ for SEULEX's.

use crate::common::C as Complex;
use approx::assert_relative_eq;
use core::ops::{Add, Mul, Sub};
use timestep::sensitivity::{Adjoint, Forward, Model, WithRespectTo};
use timestep::{Adaptive, Dop853, Radau5, Rodas4, Seulex, Tolerances};

/// `y(t_end)` of `y' = f(y, p)` by classical RK4 in `steps` equal steps, in complex
/// arithmetic.
fn rk4(
    f: impl Fn([Complex; 2], &[Complex]) -> [Complex; 2],
    y0: [Complex; 2],
    p: &[Complex],
    t_end: f64,
    steps: usize,
) -> [Complex; 2] {
    let h = t_end / steps as f64;
    let along = |y: [Complex; 2], k: [Complex; 2], s: f64| [y[0] + k[0] * s, y[1] + k[1] * s];
    let mut y = y0;
    for _ in 0..steps {
        let k1 = f(y, p);
        let k2 = f(along(y, k1, h / 2.0), p);
        let k3 = f(along(y, k2, h / 2.0), p);
        let k4 = f(along(y, k3, h), p);
        for i in 0..2 {
            y[i] = y[i] + (k1[i] + (k2[i] + k3[i]) * 2.0 + k4[i]) * (h / 6.0);
        }
    }
    y
}

/// `∂x(t_end)/∂θ` for every parameter, then every initial value, by the complex step on
/// [`rk4`]; asserts that halving the step changes none by more than 10⁻⁹ relative (so
/// the finer one is within 10⁻⁹/15 of the exact derivative: RK4's error falls 16-fold).
fn complex_step(
    f: impl Fn([Complex; 2], &[Complex]) -> [Complex; 2] + Copy,
    y0: [f64; 2],
    p: &[f64],
    t_end: f64,
    steps: usize,
) -> Vec<f64> {
    const H: f64 = 1e-20;
    let derivative = |which: usize, steps: usize| {
        let mut y = y0.map(Complex::from);
        let mut q: Vec<Complex> = p.iter().map(|&v| Complex::from(v)).collect();
        match which.checked_sub(p.len()) {
            None => q[which].1 = H,
            Some(i) => y[i].1 = H,
        }
        rk4(f, y, &q, t_end, steps)[0].1 / H
    };
    (0..p.len() + 2)
        .map(|which| {
            let fine = derivative(which, steps);
            let coarse = derivative(which, steps / 2);
            assert_relative_eq!(fine, coarse, max_relative = 1e-9);
            fine
        })
        .collect()
}

/// Lotka–Volterra `x' = αx − βxy`, `y' = δxy − γy`, `p = (α, β, γ, δ)`.
#[derive(Debug)]
struct LotkaVolterra;

fn lotka_volterra<T>(y: [T; 2], p: &[T]) -> [T; 2]
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
{
    let xy = y[0] * y[1];
    [p[0] * y[0] - p[1] * xy, p[3] * xy - p[2] * y[1]]
}

impl Model<[f64; 2]> for LotkaVolterra {
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        *out = lotka_volterra(*y, p);
    }

    fn tangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        dy: &[f64; 2],
        dp: &[f64],
        out: &mut [f64; 2],
    ) -> bool {
        let [x, v] = *y;
        let dxy = dy[0] * v + x * dy[1];
        out[0] = dp[0] * x + p[0] * dy[0] - dp[1] * x * v - p[1] * dxy;
        out[1] = dp[3] * x * v + p[3] * dxy - dp[2] * v - p[2] * dy[1];
        true
    }

    fn cotangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        w: &[f64; 2],
        out_y: &mut [f64; 2],
        out_p: &mut [f64],
    ) -> bool {
        let [x, v] = *y;
        out_y[0] = w[0] * (p[0] - p[1] * v) + w[1] * p[3] * v;
        out_y[1] = -w[0] * p[1] * x + w[1] * (p[3] * x - p[2]);
        out_p.copy_from_slice(&[w[0] * x, -w[0] * x * v, -w[1] * v, w[1] * x * v]);
        true
    }
}

/// Van der Pol `x' = v`, `v' = μ (1 − x²) v − x`, `p = (μ)`.
#[derive(Debug)]
struct VanDerPol;

impl Model<[f64; 2]> for VanDerPol {
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        *out = [y[1], p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0]];
    }

    fn cotangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        w: &[f64; 2],
        out_y: &mut [f64; 2],
        out_p: &mut [f64],
    ) -> bool {
        let [x, v] = *y;
        out_y[0] = w[1] * (-2.0 * p[0] * x * v - 1.0);
        out_y[1] = w[0] + w[1] * p[0] * (1.0 - x * x);
        out_p[0] = w[1] * (1.0 - x * x) * v;
        true
    }
}

fn van_der_pol_complex(y: [Complex; 2], p: &[Complex]) -> [Complex; 2] {
    let one = Complex::from(1.0);
    [y[1], p[0] * (one - y[0] * y[0]) * y[1] - y[0]]
}

/// The adjoint gradient of `L = x(t_end)`: every parameter, then every initial value.
fn adjoint_gradient<A>(
    solver: &mut Adaptive<[f64; 2], A>,
    model: impl Model<[f64; 2]>,
    p: &[f64],
    y0: [f64; 2],
    t_end: f64,
) -> Vec<f64>
where
    A: timestep::sensitivity::AdjointMethod<[f64; 2]>,
{
    let gradient = Adjoint::new(model, p)
        .unwrap()
        .gradient(solver, &y0, 0.0, &[t_end], |_, _, _, out| *out = [1.0, 0.0])
        .unwrap();
    let mut all = gradient.parameters.clone();
    all.extend(gradient.initial_value);
    all
}

const LV_P: [f64; 4] = [1.5, 1.0, 3.0, 1.0];
const LV_Y0: [f64; 2] = [1.0, 1.0];
/// About two and a half periods of the predator–prey cycle.
const LV_END: f64 = 12.0;

#[test]
fn lotka_volterra_adjoint_and_forward_gradients_match_the_complex_step() {
    let reference = complex_step(lotka_volterra, LV_Y0, &LV_P, LV_END, 24_000);
    let tight = Tolerances::new(1e-13, 1e-13);

    let adjoint = adjoint_gradient(
        &mut Adaptive::new(Dop853).with_tolerances(tight),
        LotkaVolterra,
        &LV_P,
        LV_Y0,
        LV_END,
    );

    let wrt = [
        WithRespectTo::Parameter(0),
        WithRespectTo::Parameter(1),
        WithRespectTo::Parameter(2),
        WithRespectTo::Parameter(3),
        WithRespectTo::InitialValue(0),
        WithRespectTo::InitialValue(1),
    ];
    let forward = Forward::new(LotkaVolterra, LV_P, wrt).unwrap();
    let mut y: [[f64; 2]; 7] = forward.initial(LV_Y0).unwrap();
    Adaptive::new(Dop853)
        .with_tolerances(tight)
        .solve(&mut y, &forward, 0.0, LV_END)
        .unwrap();
    let forward: Vec<f64> = y[1..].iter().map(|s| s[0]).collect();

    for ((a, f), r) in adjoint.iter().zip(&forward).zip(&reference) {
        assert_relative_eq!(*a, *r, max_relative = 1e-9);
        assert_relative_eq!(*f, *r, max_relative = 1e-9);
    }
    // Not a trivial agreement: the gradient is of order one in every direction.
    assert!(reference.iter().all(|g| g.abs() > 1e-2), "{reference:?}");
}

#[test]
fn van_der_pol_gradients_under_radau5_rodas4_and_seulex_match_the_complex_step() {
    // μ = 5: stiff enough for the implicit methods to matter, mild enough for RK4 at
    // 2·10⁻⁴ to give the converged reference.
    let (p, y0, t_end) = ([5.0], [2.0, 0.0], 4.0);
    let reference = complex_step(van_der_pol_complex, y0, &p, t_end, 20_000);

    let radau5 = adjoint_gradient(
        &mut Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-12, 1e-12)),
        VanDerPol,
        &p,
        y0,
        t_end,
    );
    let rodas4 = adjoint_gradient(
        &mut Adaptive::new(Rodas4).with_tolerances(Tolerances::new(1e-11, 1e-11)),
        VanDerPol,
        &p,
        y0,
        t_end,
    );
    let seulex = adjoint_gradient(
        &mut Adaptive::new(Seulex::new()).with_tolerances(Tolerances::new(1e-12, 1e-12)),
        VanDerPol,
        &p,
        y0,
        t_end,
    );
    for (((a, b), c), r) in radau5.iter().zip(&rodas4).zip(&seulex).zip(&reference) {
        assert_relative_eq!(*a, *r, max_relative = 1e-9);
        assert_relative_eq!(*b, *r, max_relative = 1e-9);
        assert_relative_eq!(*c, *r, max_relative = 1e-9);
    }
    assert!(reference.iter().all(|g| g.abs() > 1e-2), "{reference:?}");
}
