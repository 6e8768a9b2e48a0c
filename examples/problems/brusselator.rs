//! The 2-D Brusselator with diffusion (Hairer–Wanner II, IV.10, problem BRUSS without its
//! inhomogeneity): the model of the `brusselator_2d` example and of
//! `peers/benches/brusselator.rs`.
//!
//! ```text
//! u' = A + u²v − (B + 1) u + α Δu,     v' = B u − u²v + α Δv,
//! ```
//!
//! A = 1, B = 3.4, α = 0.002 on the unit square with periodic boundaries, on an N × N grid
//! (spacing 1/N, the 5-point Laplacian): 2N² unknowns, `u` and `v` of each point stored
//! together. From u(x, y, 0) = 22·y(1 − y)^{3/2}, v(x, y, 0) = 27·x(1 − x)^{3/2}.
//!
//! Each user writes its own `Forces` impl from these pieces (the example's pattern is
//! behind the library's `sparse` feature, which the bench package always has).
#![allow(dead_code)] // each user takes what it needs

use timestep::{Bdf, Gmres, Jacobian, LinearSolver, Preconditioner, Side, Structure};

/// The end of the run.
pub const END: f64 = 11.5;

/// A, B, α.
pub const A: f64 = 1.0;
pub const B: f64 = 3.4;
pub const ALPHA: f64 = 0.002;

/// The Brusselator on an `n × n` periodic grid: `y[2k] = u`, `y[2k + 1] = v` at point
/// `k = i n + j` (row `i` at y = i/n, column `j` at x = j/n).
pub struct Brusselator {
    /// Grid points per side.
    pub n: usize,
}

impl Brusselator {
    /// The four neighbours of point `k`, periodic.
    pub fn neighbours(&self, k: usize) -> [usize; 4] {
        let n = self.n;
        let (i, j) = (k / n, k % n);
        [
            ((i + n - 1) % n) * n + j,
            ((i + 1) % n) * n + j,
            i * n + (j + n - 1) % n,
            i * n + (j + 1) % n,
        ]
    }

    /// `α N²`: the diffusion's weight of a neighbour in the 5-point Laplacian.
    fn diffusion(&self) -> f64 {
        ALPHA * (self.n * self.n) as f64
    }

    /// `f(y)` into `out`.
    pub fn rate(&self, y: &[f64], out: &mut [f64]) {
        let diffusion = self.diffusion();
        for k in 0..self.n * self.n {
            let (u, v) = (y[2 * k], y[2 * k + 1]);
            let (mut lu, mut lv) = (-4.0 * u, -4.0 * v);
            for m in self.neighbours(k) {
                lu += y[2 * m];
                lv += y[2 * m + 1];
            }
            let uuv = u * u * v;
            out[2 * k] = A + uuv - (B + 1.0) * u + diffusion * lu;
            out[2 * k + 1] = B * u - uuv + diffusion * lv;
        }
    }

    /// The entries of `∂f/∂y` that may be non-zero: each point's 2 × 2 reaction block, and
    /// each species coupled to itself at the four neighbours (12 per point).
    pub fn pattern(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n * self.n).flat_map(move |k| {
            let block = [
                (2 * k, 2 * k),
                (2 * k, 2 * k + 1),
                (2 * k + 1, 2 * k),
                (2 * k + 1, 2 * k + 1),
            ];
            let coupling = self
                .neighbours(k)
                .into_iter()
                .flat_map(move |m| [(2 * k, 2 * m), (2 * k + 1, 2 * m + 1)]);
            block.into_iter().chain(coupling)
        })
    }

    /// The analytic `∂f/∂y` at `y`, the entries `jacobian` holds (all of them when sparse;
    /// when banded, the reaction blocks and the diffusion's diagonal).
    pub fn write_jacobian(&self, y: &[f64], jacobian: &mut Jacobian<'_, f64>) {
        let diffusion = self.diffusion();
        for k in 0..self.n * self.n {
            let (u, v) = (y[2 * k], y[2 * k + 1]);
            let (ru, rv) = (2 * k, 2 * k + 1);
            jacobian[(ru, ru)] = 2.0 * u * v - (B + 1.0) - 4.0 * diffusion;
            jacobian[(ru, rv)] = u * u;
            jacobian[(rv, ru)] = B - 2.0 * u * v;
            jacobian[(rv, rv)] = -u * u - 4.0 * diffusion;
            for m in self.neighbours(k) {
                for (row, column) in [(ru, 2 * m), (rv, 2 * m + 1)] {
                    if jacobian.contains((row, column)) {
                        jacobian[(row, column)] = diffusion;
                    }
                }
            }
        }
    }
}

impl Brusselator {
    /// `J(y) v` into `out`, analytic.
    pub fn jacobian_times(&self, y: &[f64], v: &[f64], out: &mut [f64]) {
        let diffusion = self.diffusion();
        for k in 0..self.n * self.n {
            let (u, w) = (y[2 * k], y[2 * k + 1]);
            let (du, dv) = (v[2 * k], v[2 * k + 1]);
            let (mut lu, mut lv) = (-4.0 * du, -4.0 * dv);
            for m in self.neighbours(k) {
                lu += v[2 * m];
                lv += v[2 * m + 1];
            }
            out[2 * k] = (2.0 * u * w - (B + 1.0)) * du + u * u * dv + diffusion * lu;
            out[2 * k + 1] = (B - 2.0 * u * w) * du - u * u * dv + diffusion * lv;
        }
    }
}

/// The BDF with `solver`: `"gmres"`, matrix-free GMRES preconditioned on the left by the
/// 2 × 2 reaction blocks (a band of one diagonal each side, factored by the banded LU), or
/// anything else, the sparse LU.
pub fn bdf(solver: &str) -> Bdf {
    match solver {
        "gmres" => {
            let blocks = Preconditioner::Banded { lower: 1, upper: 1 };
            Bdf::new().with_linear_solver(LinearSolver::Gmres(
                Gmres::new().with_preconditioner(blocks, Side::Left),
            ))
        }
        _ => Bdf::new().with_structure(Structure::Sparse),
    }
}

/// The start: u = 22·y(1 − y)^{3/2}, v = 27·x(1 − x)^{3/2}.
pub fn start(n: usize) -> Vec<f64> {
    let mut y = vec![0.0; 2 * n * n];
    for k in 0..n * n {
        let (row, column) = ((k / n) as f64 / n as f64, (k % n) as f64 / n as f64);
        y[2 * k] = 22.0 * row * (1.0 - row).powf(1.5);
        y[2 * k + 1] = 27.0 * column * (1.0 - column).powf(1.5);
    }
    y
}
