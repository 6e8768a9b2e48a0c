//! [`Radau5Workspace`] and the parts of a Radau IIA step both the fixed-step and the
//! adaptive Radau5 are made of: the Jacobian, the two factorisations, one simplified
//! Newton iteration on the transformed stage system, the error estimate, and the
//! collocation polynomial.

use super::coefficients::{Coefficients, T, T_INVERSE};
use super::memory::Memory;
use crate::integrators::implicit::jacobian::{self, DifferenceStep, Differences, Point};
use crate::integrators::implicit::mass::{self, Mass};
use crate::linalg::{Buffer, Complex, ComplexMatrix, Matrix, Order, Structure};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// The buffers of a Radau5 run: the three stage increments `Zᵢ = Yᵢ − y₀`, their
/// transformed `W = T⁻¹ Z`, the stage rates, the rates at the start and end of the step,
/// the collocation polynomial of the last accepted step, a probe state, and the Jacobian
/// with the factors of the real `n × n` matrix `(γ/h) I − J` and the complex one
/// `((α + iβ)/h) I − J`; and, for the adaptive method, what it remembers from step to
/// step (the last step size, the Newton iteration's contraction, the controller's last
/// error).
///
/// Made once per [`Stepper`](crate::Stepper) or [`Adaptive`](crate::adaptive::Adaptive)
/// run and reused: nothing in a step allocates. Up to 16 unknowns everything is on the
/// stack (11.7 kB for a rigid body's 13); beyond, the matrices are on the heap (without
/// `alloc`, a fixed step returns
/// [`StepError::TooManyUnknowns`](crate::StepError::TooManyUnknowns) and an adaptive run
/// [`AdaptiveError::NonFiniteError`](crate::AdaptiveError::NonFiniteError)).
///
/// ```
/// use timestep::workspace::Radau5Workspace;
/// use timestep::{Integrator, Radau5, Scheme, Stepper};
///
/// // A stepper makes one on its first step and keeps it.
/// let workspace: Radau5Workspace<[f64; 2]> = Radau5::new().workspace(&[1.0, 0.0]);
/// let mut stepper = Stepper::new(Radau5::new());
/// let mut y = [1.0, 0.0];
/// stepper.step(&mut y, &|y: &[f64; 2], _t: f64| [y[1], -y[0]], 0.0, 0.1)?;
/// assert!((y[0] - 0.1_f64.cos()).abs() < 1e-8);
/// # drop(workspace);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct Radau5Workspace<S: State> {
    pub(super) z: [DerivativeOf<S>; 3],
    pub(super) w: [DerivativeOf<S>; 3],
    pub(super) f: [DerivativeOf<S>; 3],
    pub(super) start_rate: DerivativeOf<S>,
    pub(super) end_rate: DerivativeOf<S>,
    /// The collocation polynomial of the last accepted step, in radau5.f's `CONT` form.
    pub(super) polynomial: [DerivativeOf<S>; 3],
    pub(super) scratch: DerivativeOf<S>,
    pub(super) coordinates: DerivativeOf<S>,
    pub(super) has_coordinates: bool,
    pub(super) probe: S,
    pub(super) linear: Result<Linear<S::Scalar>, StepError>,
    pub(super) coefficients: Coefficients,
    pub(super) memory: Memory,
}

/// The matrices and the solve buffers.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct Linear<T: Scalar> {
    jacobian: Matrix<T>,
    real: Matrix<T>,
    complex: ComplexMatrix<T>,
    real_rhs: Buffer<T>,
    complex_rhs: Buffer<Complex<T>>,
    /// The size each coordinate's Newton correction is measured against.
    pub(super) scale: Buffer<T>,
    /// The forces' mass matrix `M` of `M y' = f(t, y)`, with the Jacobian's layout (not
    /// saved: read again after loading).
    #[cfg_attr(feature = "serde", serde(skip))]
    mass: Mass<T>,
    /// Three products `M v`, when the forces give `M`.
    #[cfg_attr(feature = "serde", serde(skip))]
    products: Option<[Buffer<T>; 3]>,
}

impl<T: Scalar> Linear<T> {
    /// Asks the forces for their mass matrix, once (a no-op afterwards).
    fn read_mass<S: State<Scalar = T>, F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
    ) -> Result<(), StepError> {
        if self.mass.is_read() {
            return Ok(());
        }
        self.mass.read(forces, &self.jacobian)?;
        if let Some(matrix) = self.mass.matrix() {
            let n = matrix.dim();
            self.products = Some([Buffer::zeroed(n)?, Buffer::zeroed(n)?, Buffer::zeroed(n)?]);
        }
        Ok(())
    }
}

impl<T: Scalar> Linear<T> {
    fn new(structure: Structure, order: Order, n: usize) -> Result<Self, StepError> {
        Ok(Linear {
            jacobian: Matrix::new(structure, order, n)?,
            real: Matrix::new(structure, order, n)?,
            complex: ComplexMatrix::new(structure, order, n)?,
            real_rhs: Buffer::zeroed(n)?,
            complex_rhs: Buffer::zeroed(n)?,
            scale: Buffer::zeroed(n)?,
            mass: Mass::default(),
            products: None,
        })
    }
}

/// `x` in the state's precision.
#[inline(always)]
fn s<T: Scalar>(x: f64) -> T {
    T::from_f64(x)
}

impl<S: State> Radau5Workspace<S> {
    /// Buffers for states of the size of `state`, with a Jacobian of `structure`. A size
    /// the stack cannot hold without `alloc` is reported by the first step, not here.
    pub(super) fn new(state: &S, structure: Structure) -> Self {
        let zero = state.zero_rate();
        let (n, order) = (zero.dim(), Order::of(&zero));
        let three = || core::array::from_fn(|_| zero.clone());
        Radau5Workspace {
            z: three(),
            w: three(),
            f: three(),
            polynomial: three(),
            start_rate: zero.clone(),
            end_rate: zero.clone(),
            scratch: zero.clone(),
            coordinates: zero,
            has_coordinates: false,
            probe: state.clone(),
            linear: Linear::new(structure, order, n),
            coefficients: Coefficients::new(),
            memory: Memory::new(),
        }
    }

    /// The number of unknowns.
    pub(super) fn dim(&self) -> usize {
        self.start_rate.dim()
    }

    /// The linear algebra, or why it could not be made.
    pub(super) fn linear(&mut self) -> Result<&mut Linear<S::Scalar>, StepError> {
        self.linear.as_mut().map_err(|e| *e)
    }

    /// Asks the forces for their mass matrix, once per workspace (a no-op afterwards), in
    /// the Jacobian's layout.
    ///
    /// # Errors
    ///
    /// The matrices' errors: matrices that could not be made, a sparse Jacobian without
    /// its pattern.
    pub(super) fn read_mass<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
    ) -> Result<(), StepError> {
        let linear = self.linear.as_mut().map_err(|e| *e)?;
        if linear.mass.is_read() {
            return Ok(());
        }
        linear.jacobian.prepare(forces, state)?;
        linear.read_mass(forces)
    }

    /// Reads the state's coordinates (for the difference steps and the Newton scales).
    pub(super) fn read_coordinates(&mut self, state: &S) {
        self.has_coordinates = state.coordinates_into(&mut self.coordinates);
    }

    /// `|yᵢ|`, or 0 when the state does not give its coordinates.
    pub(super) fn coordinate(&self, i: usize) -> S::Scalar {
        if self.has_coordinates {
            self.coordinates.component(i).abs()
        } else {
            S::Scalar::zero()
        }
    }

    /// Evaluates the Jacobian `∂f/∂y` at time `t` and at `state` (or, `at_end_stage`, at
    /// `state` advanced by the last stage increment `Z₃`) into the kept matrix, by the
    /// crate's one [Jacobian source](jacobian::jacobian): from the forces when they give
    /// one, otherwise by forward differences with radau5.f's steps
    /// ([`DifferenceStep::Hairer`], sized by the coordinates of `state`), against
    /// `start_rate` at the state itself (at the end stage, against its rate, evaluated
    /// here into `f[1]` when the differences need it). Returns the force evaluations it
    /// made.
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when the matrices could not be made (no `alloc`);
    /// [`StepError::BandTooNarrow`] from the first banded Jacobian's check; a non-finite
    /// entry is reported by the factorisation that follows.
    pub(super) fn evaluate_jacobian<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        at_end_stage: bool,
    ) -> Result<u64, StepError> {
        let linear = self.linear.as_mut().map_err(|e| *e)?;
        linear.jacobian.prepare(forces, state)?;
        linear.read_mass(forces)?;
        let mut evaluations = 0;
        let [nudged_rate, end_rate, _] = &mut self.f;
        let (rate, offset) = if at_end_stage {
            linear.jacobian.clear();
            state.probe_into(&self.z[2], S::Scalar::one(), &mut self.probe);
            let check = linear.jacobian.is_banded() && !self.memory.band_checked;
            if !check && forces.jacobian(&self.probe, t, &mut linear.jacobian.as_jacobian()) {
                return Ok(0);
            }
            self.probe.derivative_into(forces, t, end_rate);
            evaluations += 1;
            (&*end_rate, Some(&self.z[2]))
        } else {
            (&self.start_rate, None)
        };
        evaluations += jacobian::jacobian(
            Point {
                state,
                t,
                rate,
                offset,
            },
            forces,
            DifferenceStep::Hairer,
            &mut linear.jacobian,
            Differences {
                coordinates: &mut self.coordinates,
                nudge: &mut self.scratch,
                nudged_rate,
                probe: &mut self.probe,
                steps: &mut linear.real_rhs,
                band_checked: &mut self.memory.band_checked,
            },
        )?;
        Ok(evaluations)
    }

    /// Factors `γ M − h J` and `(α + iβ) M − h J` for a step of `h` (`M = I` unless the
    /// forces give a mass matrix): radau5.f's `(γ/h) M − J` and `((α + iβ)/h) M − J`
    /// times `h`, as the crate's other implicit methods write theirs (`I − h J`), so that
    /// a tiny step does not overflow `γ/h` (the right-hand sides are scaled by `h` to
    /// match).
    ///
    /// # Errors
    ///
    /// [`StepError::SingularJacobian`] or [`StepError::NonFiniteJacobian`].
    pub(super) fn factor(&mut self, h: S::Scalar) -> Result<(), StepError> {
        let Coefficients {
            gamma, alpha, beta, ..
        } = self.coefficients;
        let linear = self.linear.as_mut().map_err(|e| *e)?;
        let mass = linear.mass.matrix();
        match mass {
            Some(mass) => {
                linear.real.factor_shifted_mass(
                    &linear.jacobian,
                    mass,
                    h,
                    s::<S::Scalar>(gamma),
                )?;
            }
            None => {
                linear
                    .real
                    .factor_shifted(&linear.jacobian, h, s::<S::Scalar>(gamma))?;
            }
        }
        linear.complex.factor_shifted(
            &linear.jacobian,
            h,
            Complex::new(s::<S::Scalar>(alpha), s::<S::Scalar>(beta)),
            mass,
        )
    }

    /// One Newton step on the algebraic equations `0 = fᵢ(t, y)` (the zero rows `i` of
    /// the mass matrix) for the algebraic unknowns `i`, the others held fixed, from
    /// `start_rate` and the Jacobian evaluated at the same state: the correction is left
    /// in the real right-hand side (0 at the differential unknowns). Returns `false`, and
    /// does nothing, when there is no algebraic equation.
    ///
    /// # Errors
    ///
    /// [`StepError::SingularJacobian`] when the algebraic equations do not determine the
    /// algebraic unknowns (an index above 1), or as [`Matrix::factor`].
    pub(super) fn algebraic_correction(&mut self) -> Result<bool, StepError> {
        let linear = self.linear.as_mut().map_err(|e| *e)?;
        let rate = |i| self.start_rate.component(i);
        mass::algebraic_correction(
            &linear.mass,
            &linear.jacobian,
            &mut linear.real,
            rate,
            &mut linear.real_rhs,
        )
    }

    /// Why the start does not satisfy its algebraic equations, judged without a Newton
    /// step on them (a start of index 2 or 3, [`mass::residual_inconsistency`]): from
    /// `start_rate` and the Jacobian evaluated at the same state, in units of the
    /// tolerances `scale(j)`; `None` when they hold, when there is none, or when the
    /// matrices could not be made (the step reports that).
    pub(super) fn residual_inconsistency(&self, scale: impl Fn(usize) -> f64) -> Option<StepError> {
        let linear = self.linear.as_ref().ok()?;
        mass::residual_inconsistency(
            &linear.mass,
            &linear.jacobian,
            |i| self.start_rate.component(i),
            |j| S::Scalar::from_f64(scale(j)),
        )
    }

    /// Whether the mass matrix read so far has a zero row: an algebraic equation.
    pub(super) fn has_algebraic_equations(&self) -> bool {
        self.linear
            .as_ref()
            .is_ok_and(|linear| linear.mass.is_singular())
    }

    /// The correction [`algebraic_correction`](Self::algebraic_correction) left at
    /// unknown `i`.
    pub(super) fn correction(&self, i: usize) -> S::Scalar {
        self.linear
            .as_ref()
            .map_or(S::Scalar::zero(), |linear| linear.real_rhs[i])
    }

    /// Zero stage increments (and transformed increments): the Newton iteration's start
    /// on the first step.
    pub(super) fn zero_start(&mut self) {
        for k in 0..3 {
            self.z[k].set_zero();
            self.w[k].set_zero();
        }
    }

    /// The Newton iteration's start extrapolated from the collocation polynomial of the
    /// last step, of length `h_old`, to the stages of the next, of length `h` (radau5.f).
    pub(super) fn extrapolated_start(&mut self, h: f64, h_old: f64) {
        let c = self.coefficients.c;
        let (c1m1, c2m1) = (c[0] - 1.0, c[1] - 1.0);
        let ratio = h / h_old;
        let q: [S::Scalar; 3] = core::array::from_fn(|k| s(c[k] * ratio));
        let (c1m1, c2m1) = (s::<S::Scalar>(c1m1), s::<S::Scalar>(c2m1));
        let ti = T_INVERSE.map(|row| row.map(s::<S::Scalar>));
        for i in 0..self.dim() {
            let a1 = self.polynomial[0].component(i);
            let a2 = self.polynomial[1].component(i);
            let a3 = self.polynomial[2].component(i);
            let z: [S::Scalar; 3] =
                core::array::from_fn(|k| q[k] * (a1 + (q[k] - c2m1) * (a2 + (q[k] - c1m1) * a3)));
            for k in 0..3 {
                self.z[k].set_component(i, z[k]);
                self.w[k].set_component(i, ti[k][0] * z[0] + ti[k][1] * z[1] + ti[k][2] * z[2]);
            }
        }
    }

    /// One simplified Newton iteration on the transformed stage system (Hairer–Wanner II,
    /// IV.8, (8.16)–(8.18); radau5.f's loop 40 and `SLVRAD`): the three stage rates, the
    /// right-hand sides `h T⁻¹ F(Z) − Λ W`, one real and one complex solve, and
    /// `W += ΔW`, `Z = T W`. Returns the root mean square of `ΔW` over the scales
    /// (`scale` in the linear algebra), `NaN` or infinite when a stage rate was.
    pub(super) fn newton_iteration<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
    ) -> f64 {
        let Coefficients {
            c,
            gamma,
            alpha,
            beta,
            ..
        } = self.coefficients;
        for ((z, rate), c) in self.z.iter().zip(&mut self.f).zip(c) {
            state.probe_into(z, S::Scalar::one(), &mut self.probe);
            self.probe
                .derivative_into(forces, t + s::<S::Scalar>(c) * h, rate);
        }
        let Ok(linear) = self.linear.as_mut() else {
            return f64::NAN;
        };
        // radau5.f's right-hand sides times h, for the matrices times h.
        let (fac1, alphn, betan) = (
            s::<S::Scalar>(gamma),
            s::<S::Scalar>(alpha),
            s::<S::Scalar>(beta),
        );
        let ti = T_INVERSE.map(|row| row.map(s::<S::Scalar>));
        let n = self.start_rate.dim();
        // With a mass matrix the right-hand sides take `Λ (M W)` instead of `Λ W`
        // (radau5.f's `SLVRAD` with `IJOB` 5).
        if let Some(products) = &mut linear.products {
            let matrix = linear
                .mass
                .matrix()
                .expect("products only with a mass matrix");
            for (w, product) in self.w.iter().zip(products.iter_mut()) {
                matrix.multiply(|i| w.component(i), product);
            }
        }
        for i in 0..n {
            let a = [
                self.f[0].component(i),
                self.f[1].component(i),
                self.f[2].component(i),
            ];
            let w = match &linear.products {
                Some(products) => [products[0][i], products[1][i], products[2][i]],
                None => [
                    self.w[0].component(i),
                    self.w[1].component(i),
                    self.w[2].component(i),
                ],
            };
            let g: [S::Scalar; 3] =
                core::array::from_fn(|k| h * (ti[k][0] * a[0] + ti[k][1] * a[1] + ti[k][2] * a[2]));
            linear.real_rhs[i] = g[0] - fac1 * w[0];
            linear.complex_rhs[i] = Complex::new(
                g[1] - alphn * w[1] + betan * w[2],
                g[2] - alphn * w[2] - betan * w[1],
            );
        }
        linear.real.solve(&mut linear.real_rhs);
        linear.complex.solve(&mut linear.complex_rhs);
        let t_matrix = T.map(|row| row.map(s::<S::Scalar>));
        let mut sum = 0.0;
        for i in 0..n {
            let delta = [
                linear.real_rhs[i],
                linear.complex_rhs[i].re,
                linear.complex_rhs[i].im,
            ];
            let scale = linear.scale[i];
            let mut w = [S::Scalar::zero(); 3];
            for k in 0..3 {
                let scaled = (delta[k] / scale).to_f64();
                sum += scaled * scaled;
                w[k] = self.w[k].component(i) + delta[k];
                self.w[k].set_component(i, w[k]);
            }
            for (z, row) in self.z.iter_mut().zip(&t_matrix) {
                z.set_component(i, row[0] * w[0] + row[1] * w[1] + row[2] * w[2]);
            }
        }
        (sum / (3 * n).max(1) as f64).sqrt()
    }

    /// radau5.f's error estimate (`ESTRAD`): `e = E₁⁻¹ (f(y₀) + M Σ dᵢ Zᵢ / h)` with
    /// `E₁ = (γ/h) M − J` (computed as `(γ M − h J)⁻¹ (h f(y₀) + M Σ dᵢ Zᵢ)`), its root
    /// mean square over the scales (`scale` in the linear algebra), at least 10⁻¹⁰; and
    /// when that is above 1 on a first or a retried step (where a stiff component can
    /// make the first estimate far too large), the filtered estimate
    /// `E₁⁻¹ (f(y₀ + e) + Σ dᵢ Zᵢ / h)` instead, at one more force evaluation. Returns
    /// the norm and the evaluations made.
    pub(super) fn error_estimate<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        second: bool,
    ) -> (f64, u64) {
        let d = self.coefficients.d.map(s::<S::Scalar>);
        let n = self.dim();
        let Ok(linear) = self.linear.as_mut() else {
            return (f64::NAN, 0);
        };
        for i in 0..n {
            let combination = d[0] * self.z[0].component(i)
                + d[1] * self.z[1].component(i)
                + d[2] * self.z[2].component(i);
            // Kept for the second estimate.
            self.scratch.set_component(i, combination);
            linear.real_rhs[i] = combination + h * self.start_rate.component(i);
        }
        // With a mass matrix, `M Σ dᵢ Zᵢ` (radau5.f's `ESTRAD` with `IJOB` 5).
        if let Some(products) = &mut linear.products {
            let matrix = linear
                .mass
                .matrix()
                .expect("products only with a mass matrix");
            let weighted = &mut products[0];
            matrix.multiply(|i| self.scratch.component(i), weighted);
            for (i, &product) in weighted.iter().enumerate() {
                self.scratch.set_component(i, product);
                linear.real_rhs[i] = product + h * self.start_rate.component(i);
            }
        }
        linear.real.solve(&mut linear.real_rhs);
        let norm = |linear: &Linear<S::Scalar>| {
            let mut sum = 0.0;
            for i in 0..n {
                let scaled = (linear.real_rhs[i] / linear.scale[i]).to_f64();
                sum += scaled * scaled;
            }
            (sum / n.max(1) as f64).sqrt().max(1e-10)
        };
        let error = norm(linear);
        if !(error >= 1.0 && second) {
            return (error, 0);
        }
        // y₀ + e into the probe (f[0] as the increment), its rate into f[1].
        for i in 0..n {
            self.f[0].set_component(i, linear.real_rhs[i]);
        }
        state.probe_into(&self.f[0], S::Scalar::one(), &mut self.probe);
        self.probe.derivative_into(forces, t, &mut self.f[1]);
        for i in 0..n {
            linear.real_rhs[i] = h * self.f[1].component(i) + self.scratch.component(i);
        }
        linear.real.solve(&mut linear.real_rhs);
        (norm(linear), 1)
    }

    /// Keeps the collocation polynomial of the step just accepted (radau5.f's `CONT`):
    /// `u(s) = y₁ + s (p₁ + (s − c₂ + 1)(p₂ + (s − c₁ + 1) p₃))` for `s = (t − t₁)/h`
    /// in `[−1, 0]`, through `y₀`, the stage values and `y₁`.
    pub(super) fn keep_polynomial(&mut self) {
        let c = self.coefficients.c.map(s::<S::Scalar>);
        let one = S::Scalar::one();
        let (c1m1, c2m1, c1mc2) = (c[0] - one, c[1] - one, c[0] - c[1]);
        for i in 0..self.dim() {
            let (z1, z2, z3) = (
                self.z[0].component(i),
                self.z[1].component(i),
                self.z[2].component(i),
            );
            let p1 = (z2 - z3) / c2m1;
            let ak = (z1 - z2) / c1mc2;
            let acont3 = (ak - z1 / c[0]) / c[1];
            let p2 = (ak - p1) / c1m1;
            self.polynomial[0].set_component(i, p1);
            self.polynomial[1].set_component(i, p2);
            self.polynomial[2].set_component(i, p2 - acont3);
        }
    }

    /// Writes the collocation polynomial of the accepted step from `start` at the
    /// fraction `theta` of the step into `out`.
    pub(super) fn dense(&mut self, start: &S, theta: f64, out: &mut S) {
        let [p1, p2, p3] = &self.polynomial;
        let c = self.coefficients.c;
        collocation_dense(
            c,
            [p1, p2, p3],
            &self.z[2],
            &mut self.scratch,
            start,
            theta,
            out,
        );
    }
}

/// The collocation polynomial `p` (radau5.f's `CONT`; `c` the nodes) of a step from `start` whose last
/// stage increment is `z3`, at the fraction `theta` of the step, into `out`:
/// `y₀ + Z₃ + (u(θ − 1) − y₁)`.
pub(super) fn collocation_dense<S: State>(
    c: [f64; 3],
    [p1, p2, p3]: [&DerivativeOf<S>; 3],
    z3: &DerivativeOf<S>,
    scratch: &mut DerivativeOf<S>,
    start: &S,
    theta: f64,
    out: &mut S,
) {
    let c = c.map(s::<S::Scalar>);
    let one = S::Scalar::one();
    let (c1m1, c2m1) = (c[0] - one, c[1] - one);
    let s = s::<S::Scalar>(theta - 1.0);
    for i in 0..z3.dim() {
        let (p1, p2, p3) = (p1.component(i), p2.component(i), p3.component(i));
        let increment = z3.component(i) + s * (p1 + (s - c2m1) * (p2 + (s - c1m1) * p3));
        scratch.set_component(i, increment);
    }
    start.probe_into(scratch, one, out);
}
