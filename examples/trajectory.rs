//! The trajectory of a damped spring `m x'' + b x' + k x = 0`, stepped by any method in
//! `f32` or `f64` and printed as CSV next to the exact solution.
//!
//! By default it reproduces the second article's spring-damper (k = 15, b = 0.1, a 1 kg mass
//! released at rest from 1000 m, dt = 0.01 s for 10 s), here with RK4:
//!
//! ```text
//! cargo run --release --example trajectory
//! cargo run --release --example trajectory -- --method explicit-euler --every 100
//! cargo run --release --example trajectory -- --precision f32 --method semi-implicit-euler
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (one of `Method::NAMES`, default `rk4`),
//! `--k K` (15), `--b B` (0.1), `--mass M` (1), `--x0 X` (1000), `--v0 V` (0), `--dt DT`
//! (0.01), `--duration T` (10), `--precision f32|f64` (f64), `--every N` (1).
//!
//! Output: the header `t,x,v,energy,exact_x,error`, then the initial row, every N-th step
//! and always the last step, which lands exactly on `duration`. `t`, `x` and `v` are the
//! run's own values in its precision (so a time can read `0.35000000000000003` in f64 or
//! `0.29999998` in f32: the time the state was actually stepped to, as `i · dt`). `energy` is
//! `½ m v² + ½ k x²`, `exact_x` the closed-form solution and `error` is `x − exact_x`.
//! Non-finite values print as `inf`, `-inf` or `nan`. A bad flag or value exits with
//! status 2 and a one-line message on stderr; a step that fails (backward Euler's solve)
//! ends the output there and exits with status 1.

mod cli;

use cli::Flag;
use std::fmt::LowerExp;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::analytic::DampedOscillator;
use timestep::{Method, Particle, Scalar, SmallVector, Trajectory};

const FLAGS: [&str; 10] = [
    "--method",
    "--k",
    "--b",
    "--mass",
    "--x0",
    "--v0",
    "--dt",
    "--duration",
    "--precision",
    "--every",
];

/// The usage text: every flag with its default.
fn usage() -> String {
    let defaults = Options::default();
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "the integrator's name (listed above)",
            &defaults.method,
        ),
        Flag::new("--k", "K", "spring constant, N/m", defaults.stiffness),
        Flag::new("--b", "B", "damping, N·s/m", defaults.damping),
        Flag::new("--mass", "M", "mass, kg, > 0", defaults.mass),
        Flag::new("--x0", "X", "initial position, m", defaults.x0),
        Flag::new("--v0", "V", "initial velocity, m/s", defaults.v0),
        Flag::new("--dt", "DT", "time step, s, > 0", defaults.dt),
        Flag::new(
            "--duration",
            "T",
            "how long to run, s, >= 0",
            defaults.duration,
        ),
        Flag::new("--precision", "f32|f64", "the state's precision", "f64"),
        Flag::new(
            "--every",
            "N",
            "print every N-th step (and the last)",
            defaults.every,
        ),
    ];
    let names = Method::<Particle<f64>>::NAMES.join(", ");
    cli::usage(
        "trajectory",
        &format!(
            "CSV t,x,v,energy,exact_x,error of a damped spring m x'' + b x' + k x = 0\nNAME is one of: {names}"
        ),
        &flags,
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Precision {
    F32,
    F64,
}

#[derive(Clone, Debug)]
struct Options {
    method: String,
    stiffness: f64,
    damping: f64,
    mass: f64,
    x0: f64,
    v0: f64,
    dt: f64,
    duration: f64,
    precision: Precision,
    every: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: "rk4".to_string(),
            stiffness: 15.0,
            damping: 0.1,
            mass: 1.0,
            x0: 1000.0,
            v0: 0.0,
            dt: 0.01,
            duration: 10.0,
            precision: Precision::F64,
            every: 1,
        }
    }
}

/// What the command line asked for: a run, or the usage text.
enum Request {
    Run(Options),
    Help,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Request, String> {
    let mut options = Options::default();
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Ok(Request::Help);
        }
        if !FLAGS.contains(&flag.as_str()) {
            return Err(format!(
                "unknown flag {flag:?} (expected one of {}, or --help)",
                FLAGS.join(", ")
            ));
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--method" => {
                value
                    .parse::<Method<Particle<f64>>>()
                    .map_err(|error| format!("--method {value:?}: {error}"))?;
                options.method = value;
            }
            "--k" => options.stiffness = finite(&flag, &value)?,
            "--b" => options.damping = finite(&flag, &value)?,
            "--mass" => options.mass = positive(&flag, &value)?,
            "--x0" => options.x0 = finite(&flag, &value)?,
            "--v0" => options.v0 = finite(&flag, &value)?,
            "--dt" => options.dt = positive(&flag, &value)?,
            "--duration" => {
                options.duration = finite(&flag, &value)?;
                if options.duration < 0.0 {
                    return Err(format!("--duration must not be negative, got {value:?}"));
                }
            }
            "--precision" => {
                options.precision = match value.as_str() {
                    "f32" => Precision::F32,
                    "f64" => Precision::F64,
                    _ => return Err(format!("--precision must be f32 or f64, got {value:?}")),
                }
            }
            "--every" => {
                options.every = match value.parse::<usize>() {
                    Ok(every) if every > 0 => every,
                    _ => {
                        return Err(format!(
                            "--every must be a whole number of at least 1, got {value:?}"
                        ));
                    }
                }
            }
            _ => unreachable!("every known flag is handled above"),
        }
    }
    Ok(Request::Run(options))
}

fn finite(flag: &str, value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(number) if number.is_finite() => Ok(number),
        _ => Err(format!("{flag} must be a finite number, got {value:?}")),
    }
}

fn positive(flag: &str, value: &str) -> Result<f64, String> {
    match finite(flag, value)? {
        number if number > 0.0 => Ok(number),
        _ => Err(format!("{flag} must be greater than 0, got {value:?}")),
    }
}

/// Refuses `value` if it overflows in precision `S` (or, for a `positive` flag, underflows
/// to zero there): the f64 checks alone would let `--dt 1e-50` through to an f32 run.
fn fits<S: Scalar>(flag: &str, value: f64, positive: bool) -> Result<(), String> {
    let converted = S::from_f64(value);
    if !converted.is_finite() || (positive && converted <= S::from_f64(0.0)) {
        let precision = std::any::type_name::<S>();
        return Err(format!(
            "{flag} {value:e} is out of range for --precision {precision}"
        ));
    }
    Ok(())
}

/// A number for the CSV, in the shortest form that reads back to the same value: plain
/// decimals for moderate magnitudes, exponent notation for tiny or huge ones (where plain
/// decimals would spell out hundreds of zeros), and `inf`, `-inf` or `nan` when not finite.
fn csv<S: Scalar + LowerExp>(value: S) -> String {
    let magnitude = value.abs().to_f64();
    if value.is_nan() {
        "nan".to_string()
    } else if magnitude == 0.0 || value.is_infinite() || (1e-4..1e16).contains(&magnitude) {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

/// Why a run stopped early: the output went away, or a step failed.
enum RunError {
    Output(io::Error),
    Step(timestep::StepError),
}

impl From<io::Error> for RunError {
    fn from(error: io::Error) -> Self {
        RunError::Output(error)
    }
}

/// Integrates and prints the run in precision `S` (`f32` or `f64`); the exact solution and
/// the energy are computed in `f64` from the state's values.
fn run<S>(options: &Options, out: &mut impl Write) -> Result<(), RunError>
where
    S: Scalar + SmallVector<Scalar = S> + LowerExp,
{
    let [mass, k, b, x0, v0] = [
        options.mass,
        options.stiffness,
        options.damping,
        options.x0,
        options.v0,
    ]
    .map(S::from_f64);
    // The exact solution of the spring the run actually integrates: in f32 its parameters
    // are rounded (0.1 is not 0.1f32), and `error` should measure the method, not that.
    let exact = DampedOscillator::new(
        mass.to_f64(),
        k.to_f64(),
        b.to_f64(),
        x0.to_f64(),
        v0.to_f64(),
    );
    let spring = move |p: &Particle<S>, _t: S| -(k * p.position() + b * p.velocity());
    // The name, the mass and the particle were checked when the flags were read
    // (`check_precision`), so neither the parse nor `Particle::new` can fail here.
    let method: Method<Particle<S>> = options.method.parse().expect("method checked");
    let start = Particle::new(mass, x0, v0);
    let duration = S::from_f64(options.duration);
    let trajectory = Trajectory::new(
        method,
        start,
        &spring,
        S::from_f64(0.0),
        duration,
        S::from_f64(options.dt),
    )
    .map_err(RunError::Step)?;
    let last_step = trajectory.steps();

    writeln!(out, "t,x,v,energy,exact_x,error")?;
    for (step, sample) in trajectory.enumerate() {
        let (t, particle) = sample.map_err(RunError::Step)?;
        if step % options.every != 0 && step != last_step {
            continue;
        }
        let (x, v) = (particle.position(), particle.velocity());
        let exact_x = exact.position(t.to_f64());
        writeln!(
            out,
            "{},{},{},{},{},{}",
            csv(t),
            csv(x),
            csv(v),
            csv(exact.energy(x.to_f64(), v.to_f64())),
            csv(exact_x),
            csv(x.to_f64() - exact_x),
        )?;
    }
    Ok(())
}

/// Checks that every value survives conversion to `S`, that the particle can be made
/// (a mass whose inverse overflows, or a momentum `m·v` out of range, is refused), and
/// that the run has a sensible number of steps.
fn check_precision<S>(options: &Options) -> Result<(), String>
where
    S: Scalar + SmallVector<Scalar = S>,
{
    fits::<S>("--k", options.stiffness, false)?;
    fits::<S>("--b", options.damping, false)?;
    fits::<S>("--mass", options.mass, true)?;
    fits::<S>("--x0", options.x0, false)?;
    fits::<S>("--v0", options.v0, false)?;
    fits::<S>("--dt", options.dt, true)?;
    fits::<S>("--duration", options.duration, false)?;
    let [mass, x0, v0] = [options.mass, options.x0, options.v0].map(S::from_f64);
    Particle::try_new(mass, x0, v0).map_err(|error| error.to_string())?;
    let steps = options.duration / options.dt;
    if steps > cli::MAX_STEPS {
        return Err(format!(
            "--dt {:e} and --duration {:e} make {steps:e} steps, more than the {:e} this example runs (raise --dt or lower --duration)",
            options.dt,
            options.duration,
            cli::MAX_STEPS
        ));
    }
    Ok(())
}

/// Runs in precision `S`, turning what stopped the run into a message.
fn report_run<S>(options: &Options, out: &mut impl Write) -> Result<(), String>
where
    S: Scalar + SmallVector<Scalar = S> + LowerExp,
{
    match run::<S>(options, out) {
        Ok(()) => Ok(()),
        // A reader that stops early (`| head`) is not an error.
        Err(RunError::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(RunError::Output(error)) => Err(format!("cannot write the output: {error}")),
        Err(RunError::Step(error)) => Err(format!("{} stopped: {error}", options.method)),
    }
}

fn main() -> ExitCode {
    let parsed = parse_args(std::env::args().skip(1)).and_then(|request| match request {
        Request::Run(options) => match options.precision {
            Precision::F32 => check_precision::<f32>(&options),
            Precision::F64 => check_precision::<f64>(&options),
        }
        .map(|()| Request::Run(options)),
        Request::Help => Ok(Request::Help),
    });
    let options = match parsed {
        Ok(Request::Run(options)) => options,
        Ok(Request::Help) => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("trajectory: {message}");
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    let result = match options.precision {
        Precision::F32 => report_run::<f32>(&options, &mut out),
        Precision::F64 => report_run::<f64>(&options, &mut out),
    }
    .and_then(|()| match out.flush() {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the output: {error}"))
        }
        _ => Ok(()),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("trajectory: {message}");
            ExitCode::FAILURE
        }
    }
}
