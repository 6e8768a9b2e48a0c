//! The command line shared by the examples: `--flag value` pairs, `--help` with every flag
//! and its default, and a one-line message with exit status 2 for anything bad.
#![allow(dead_code)] // each example uses the helpers it needs

use std::fmt::Display;
use std::process::exit;
use timestep::Statistics;

/// The most steps an example runs: ten million (seconds of work, and for the examples
/// that print a row per step, about a gigabyte of CSV). A `--dt` and `--duration` that
/// ask for more are refused: they would look like a hang.
pub const MAX_STEPS: f64 = 1e7;

/// A flag an example takes.
pub struct Flag {
    /// `--name`.
    pub name: &'static str,
    /// What its value is, for the usage line: `DT`, `N`, `f32|f64`, …
    pub value: &'static str,
    /// One line on what it does.
    pub help: &'static str,
    /// Its default, as text.
    pub default: String,
}

impl Flag {
    /// A flag with its default.
    pub fn new(
        name: &'static str,
        value: &'static str,
        help: &'static str,
        default: impl Display,
    ) -> Self {
        Flag {
            name,
            value,
            help,
            default: default.to_string(),
        }
    }
}

/// The usage text: what the program does, then each flag with its default.
pub fn usage(program: &str, about: &str, flags: &[Flag]) -> String {
    let mut text = format!("{program}: {about}\n\nusage: {program}");
    for flag in flags {
        text += &format!(" [{} {}]", flag.name, flag.value);
    }
    text += " [--help]\n\n";
    let width = flags
        .iter()
        .map(|f| f.name.len() + 1 + f.value.len())
        .max()
        .unwrap_or(0)
        .max("--help".len());
    for flag in flags {
        let left = format!("{} {}", flag.name, flag.value);
        text += &format!(
            "  {left:width$}  {} (default {})\n",
            flag.help, flag.default
        );
    }
    text += &format!("  {:width$}  print this and exit\n", "--help");
    text
}

/// Prints `program: message` to stderr and exits with status 2 (bad input).
pub fn fail(program: &str, message: impl Display) -> ! {
    eprintln!("{program}: {message}");
    exit(2)
}

/// Exits with status 2 unless `method` is one of `names`.
pub fn known_method(program: &str, method: &str, names: &[&str]) {
    if !names.contains(&method) {
        fail(
            program,
            format!("unknown method {method:?} (methods: {})", names.join(", ")),
        );
    }
}

/// Exits with status 2 when the relative and absolute tolerances are both 0: no error
/// could meet them.
pub fn tolerances(program: &str, rtol: f64, atol: f64) {
    if rtol == 0.0 && atol == 0.0 {
        fail(program, "--rtol and --atol cannot both be 0");
    }
}

/// Reads the command line as `--flag value` pairs of `flags`, in order. `--help` (or `-h`)
/// prints the usage and exits 0; an unknown flag or a missing value exits 2 with one line.
pub fn parse(program: &str, about: &str, flags: &[Flag]) -> Vec<(&'static str, String)> {
    let mut pairs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            print!("{}", usage(program, about, flags));
            exit(0);
        }
        let Some(flag) = flags.iter().find(|f| f.name == arg) else {
            let known: Vec<&str> = flags.iter().map(|f| f.name).collect();
            if known.is_empty() {
                fail(
                    program,
                    format!("takes no arguments, got {arg:?} (try --help)"),
                );
            }
            fail(
                program,
                format!("unknown flag {arg:?} (flags: {}, --help)", known.join(", ")),
            );
        };
        let value = args.next().unwrap_or_else(|| {
            fail(
                program,
                format!("{} needs a value {}", flag.name, flag.value),
            )
        });
        pairs.push((flag.name, value));
    }
    pairs
}

/// `text` as a finite number, or exit 2 naming `flag`.
pub fn finite(program: &str, flag: &str, text: &str) -> f64 {
    match text.parse::<f64>() {
        Ok(number) if number.is_finite() => number,
        _ => fail(
            program,
            format!("{flag} must be a finite number, got {text:?}"),
        ),
    }
}

/// `text` as a finite number above 0, or exit 2 naming `flag`.
pub fn positive(program: &str, flag: &str, text: &str) -> f64 {
    match finite(program, flag, text) {
        number if number > 0.0 => number,
        _ => fail(
            program,
            format!("{flag} must be greater than 0, got {text:?}"),
        ),
    }
}

/// `text` as a finite number not below 0, or exit 2 naming `flag`.
pub fn not_negative(program: &str, flag: &str, text: &str) -> f64 {
    match finite(program, flag, text) {
        number if number >= 0.0 => number,
        _ => fail(
            program,
            format!("{flag} must not be negative, got {text:?}"),
        ),
    }
}

/// `text` as a whole number of at least `least`, or exit 2 naming `flag`.
pub fn whole(program: &str, flag: &str, text: &str, least: u64) -> u64 {
    match text.parse::<u64>() {
        Ok(number) if number >= least => number,
        _ => fail(
            program,
            format!("{flag} must be a whole number of at least {least}, got {text:?}"),
        ),
    }
}

/// Exits 2 when a run of `duration` in steps of `dt` takes more than [`MAX_STEPS`].
pub fn check_steps(program: &str, duration: f64, dt: f64) {
    let steps = duration / dt;
    if steps.is_nan() || steps > MAX_STEPS {
        fail(
            program,
            format!(
                "--dt {dt:e} and --duration {duration:e} make {steps:e} steps, more than the {MAX_STEPS:e} this example runs (raise --dt or lower --duration)"
            ),
        );
    }
}

/// The steps of a run from 0 to `duration`, for the examples that print a row every so
/// often (`nbody`, `cloth`, `heat`): step `i` starts at `i · dt`, and the last one ends
/// exactly at `duration` (a whole number of steps when `duration / dt` is one to rounding, as
/// [`timestep::Trajectory`] counts them, and otherwise one shorter last step).
pub struct Schedule {
    /// The number of steps.
    pub steps: usize,
    dt: f64,
    duration: f64,
    every: f64,
    next_row: f64,
}

impl Schedule {
    /// The steps of `duration` in steps of `dt`, with a row every `every` (and the first
    /// and last rows), or exit 2 naming the flags when that is more than `max_steps` steps.
    pub fn new(program: &str, duration: f64, dt: f64, every: f64, max_steps: f64) -> Schedule {
        let ratio = duration / dt;
        if !(ratio.is_finite() && ratio <= max_steps) {
            fail(
                program,
                format!(
                    "--dt {dt:e} and --duration {duration:e} make {ratio:e} steps, more than the {max_steps:e} this example runs (raise --dt or lower --duration)"
                ),
            );
        }
        let nearest = ratio.round();
        let slack = f64::EPSILON.sqrt() * ratio.max(1.0);
        let whole = if ratio == 0.0 || ((ratio - nearest).abs() <= slack && nearest >= 1.0) {
            nearest
        } else {
            ratio.ceil()
        };
        Schedule {
            steps: whole as usize,
            dt,
            duration,
            every,
            next_row: every,
        }
    }

    /// The time at the end of `steps` steps.
    pub fn time(&self, steps: usize) -> f64 {
        if steps >= self.steps {
            self.duration
        } else {
            steps as f64 * self.dt
        }
    }

    /// Whether the state after `steps` steps gets a row: the first, the last, and the first
    /// at or after each multiple of the row interval (to rounding).
    pub fn is_row(&mut self, steps: usize) -> bool {
        let t = self.time(steps);
        let due = t >= self.next_row * (1.0 - 1e-9);
        while self.next_row <= t * (1.0 + 1e-9) {
            self.next_row += self.every;
        }
        steps == 0 || steps == self.steps || due
    }
}

/// A number for CSV: the shortest text that reads back as the same `f64`, in exponent form
/// when tiny or huge, `inf`, `-inf` or `nan` when not finite.
pub fn csv(value: f64) -> String {
    let magnitude = value.abs();
    if value.is_nan() {
        "nan".to_string()
    } else if magnitude == 0.0 || value.is_infinite() || (1e-4..1e16).contains(&magnitude) {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

/// The stiff examples' statistics line for stderr:
/// `evaluations=N accepted=A rejected=R jacobians=J decompositions=D`.
pub fn stiff_statistics(statistics: &Statistics) -> String {
    format!(
        "evaluations={} accepted={} rejected={} jacobians={} decompositions={}",
        statistics.evaluations,
        statistics.accepted,
        statistics.rejected,
        statistics.jacobians,
        statistics.decompositions
    )
}
