//! What the stiff benches (`stiff.rs`, `brusselator.rs`) share: the counts each side
//! reports, the max-norm error, the ladder search for the tolerance that reaches an error,
//! and diffsol's BDF as they run it.

/// What a run counted: right-hand sides (diffsol: with its Jacobian-vector products in
/// brackets; `timestep`'s GMRES: with its linear iterations), Jacobians, LU factorisations,
/// steps.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub evaluations: u64,
    pub products: u64,
    pub linear_iterations: u64,
    pub jacobians: u64,
    pub decompositions: u64,
    pub steps: u64,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} evaluations", self.evaluations)?;
        if self.products > 0 {
            write!(f, " (+{} J·v)", self.products)?;
        }
        if self.linear_iterations > 0 {
            write!(f, ", {} linear iterations", self.linear_iterations)?;
        }
        write!(
            f,
            ", {} Jacobians, {} LU, {} steps",
            self.jacobians, self.decompositions, self.steps
        )
    }
}

/// The largest error relative to the largest |reference|.
pub fn max_norm_error(y: &[f64], reference: &[f64]) -> f64 {
    let scale = reference.iter().fold(0.0_f64, |m, r| m.max(r.abs()));
    y.iter()
        .zip(reference)
        .map(|(y, r)| (y - r).abs())
        .fold(0.0, f64::max)
        / scale
}

/// `timestep`'s statistics as [`Counts`].
pub fn timestep_counts(s: timestep::Statistics) -> Counts {
    Counts {
        evaluations: s.evaluations,
        products: 0,
        linear_iterations: s.linear_iterations,
        jacobians: s.jacobians,
        decompositions: s.decompositions,
        steps: s.steps(),
    }
}

/// The loosest rung `k` of `ks` at which `run(k)` and the runs at the next two tighter
/// rungs end within `target`: `run` gives a run's error and what else the caller keeps
/// (`None` for a run that failed, which counts as outside). Returns that rung, its error
/// and its payload, and the rungs that failed on the way; or, if none does, the rung with
/// the smallest error and that error.
#[allow(clippy::type_complexity)]
pub fn loosest_rung<T>(
    ks: std::ops::RangeInclusive<u32>,
    target: f64,
    mut run: impl FnMut(u32) -> Option<(f64, T)>,
) -> Result<((u32, f64, T), Vec<u32>), (u32, f64)> {
    let mut ladder: Vec<(u32, f64, T)> = Vec::new();
    let mut within = 0;
    let mut failed = Vec::new();
    for k in ks {
        let Some((error, payload)) = run(k) else {
            failed.push(k);
            within = 0;
            continue;
        };
        ladder.push((k, error, payload));
        within = if error <= target { within + 1 } else { 0 };
        if within == 3 {
            let found = ladder.swap_remove(ladder.len() - 3);
            return Ok((found, failed));
        }
    }
    let best = ladder
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or((0, f64::INFINITY), |best| (best.0, best.1));
    Err(best)
}

/// diffsol's BDF with matrix type `$m` and linear solver `$ls` on `$f(x, y)` (the rate,
/// in place on slices) with `$jv(x, v, out)` = `J(x) v`, from `$start` to `$end`: the
/// problem is built once (for a sparse matrix type, its sparsity found and coloured here);
/// each call of the closure it makes sets the tolerances `(rtol, atol)`, makes the solver
/// and steps to `$end`, returning the end state and the [`Counts`]. (A macro: the solver's
/// trait bounds, spelled out for a generic matrix type, run to a page.)
macro_rules! diffsol_runner {
    ($m:ty, $ls:ty, $f:expr, $jv:expr, $start:expr, $end:expr $(,)?) => {{
        use ::diffsol::{OdeBuilder, OdeSolverMethod, OdeSolverStopReason, Vector};
        use ::std::cell::{Cell, RefCell};
        use ::std::rc::Rc;
        let (f, jv, start, end) = ($f, $jv, $start, $end);
        let evaluations = Rc::new(Cell::new(0_u64));
        let products = Rc::new(Cell::new(0_u64));
        let (e, p) = (evaluations.clone(), products.clone());
        let n = start.len();
        let built = ::std::time::Instant::now();
        let problem = OdeBuilder::<$m>::new()
            .rhs_implicit(
                move |x: &[f64], _p: &[f64], _t: f64, y: &mut [f64]| {
                    e.set(e.get() + 1);
                    f(x, y);
                },
                move |x: &[f64], _p: &[f64], _t: f64, v: &[f64], y: &mut [f64]| {
                    p.set(p.get() + 1);
                    jv(x, v, y);
                },
            )
            .init(
                move |_p: &[f64], _t: f64, y: &mut [f64]| y.copy_from_slice(&start),
                n,
            )
            .build()
            .expect("a diffsol problem");
        if n > 100 {
            println!(
                "diffsol: problem of {n} unknowns built (sparsity and colouring) in {:.3} s",
                built.elapsed().as_secs_f64()
            );
        }
        let problem = RefCell::new(problem);
        move |(rtol, atol): (f64, f64)| {
            {
                let mut problem = problem.borrow_mut();
                if problem.rtol != rtol || problem.atol.clone_as_vec()[0] != atol {
                    let ctx = problem.context().clone();
                    problem.rtol = rtol;
                    problem.atol = Vector::from_element(n, atol, ctx);
                }
            }
            let problem = problem.borrow();
            evaluations.set(0);
            products.set(0);
            let mut solver = problem.bdf::<$ls>().expect("a BDF solver");
            solver.set_stop_time(end).expect("a stop time");
            loop {
                match solver.step().expect("a BDF step") {
                    OdeSolverStopReason::TstopReached => break,
                    OdeSolverStopReason::InternalTimestep => {}
                    OdeSolverStopReason::RootFound(..) => unreachable!("no roots"),
                }
            }
            let statistics = solver.get_statistics();
            let counts = $crate::shared::stiff::Counts {
                evaluations: evaluations.get(),
                products: products.get(),
                linear_iterations: 0,
                jacobians: statistics.number_of_linear_solver_setups as u64,
                decompositions: statistics.number_of_linear_solver_setups as u64,
                steps: statistics.number_of_steps as u64,
            };
            (solver.state().y.clone_as_vec(), counts)
        }
    }};
}
#[allow(unused_imports)] // the benches without diffsol
pub(crate) use diffsol_runner;

/// A diffsol run: `(rtol, atol)` to the end state and counts.
pub type DiffsolRun<'a> = dyn Fn((f64, f64)) -> (Vec<f64>, Counts) + 'a;
