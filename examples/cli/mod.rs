//! The command line of the large-state examples (`nbody`, `cloth`, `heat`): flags that each
//! take one value, listed with their defaults by `--help`, and the schedule of a fixed-step
//! run (how many steps, the time of each, which ones print a row).
//!
//! A bad flag or value prints one line, `program: message`, on stderr and exits with status
//! 2, as `trajectory` and the rigid-body examples do.

// Each example uses the part it needs.
#![allow(dead_code)]

use std::fmt::Display;
use std::process::exit;
use timestep::{Method, State};

/// A flag that takes a value: `--dt 10`.
pub struct Flag {
    /// The flag, with its dashes: `"--dt"`.
    pub name: &'static str,
    /// What the value is, for the usage line: `"DAYS"`.
    pub value: &'static str,
    /// The value when the flag is not given, as typed on the command line.
    pub default: &'static str,
    /// What it sets.
    pub help: &'static str,
}

/// The flags as given (or defaulted), checked one by one as the example reads them.
pub struct Args {
    program: &'static str,
    flags: &'static [Flag],
    values: Vec<String>,
}

impl Args {
    /// Reads `std::env::args()`. `--help` (or `-h`) prints the usage, every flag with its
    /// default, and exits with status 0; an unknown flag or a missing value exits with
    /// status 2.
    pub fn parse(program: &'static str, about: &str, flags: &'static [Flag]) -> Args {
        let mut args = Args {
            program,
            flags,
            values: flags.iter().map(|flag| flag.default.to_string()).collect(),
        };
        let mut given = std::env::args().skip(1);
        while let Some(name) = given.next() {
            if name == "--help" || name == "-h" {
                println!("{}", args.usage(about));
                exit(0);
            }
            let Some(index) = flags.iter().position(|flag| flag.name == name) else {
                let names: Vec<&str> = flags.iter().map(|flag| flag.name).collect();
                args.fail(format!(
                    "unknown flag {name:?} (flags: {}, --help)",
                    names.join(", ")
                ));
            };
            match given.next() {
                Some(value) => args.values[index] = value,
                None => args.fail(format!("{name} needs a value")),
            }
        }
        args
    }

    fn usage(&self, about: &str) -> String {
        let mut usage = format!("usage: {}", self.program);
        for flag in self.flags {
            usage += &format!(" [{} {}]", flag.name, flag.value);
        }
        usage += &format!("\n{about}\n");
        let width = self
            .flags
            .iter()
            .map(|flag| flag.name.len() + flag.value.len() + 1)
            .max()
            .unwrap_or(0);
        for flag in self.flags {
            let left = format!("{} {}", flag.name, flag.value);
            usage += &format!(
                "\n  {left:width$}  {} (default {})",
                flag.help, flag.default
            );
        }
        usage
    }

    /// Prints `program: message` on stderr and exits with status 2.
    pub fn fail(&self, message: impl Display) -> ! {
        eprintln!("{}: {message}", self.program);
        exit(2)
    }

    /// The text given for `name`.
    fn text(&self, name: &str) -> &str {
        let index = self
            .flags
            .iter()
            .position(|flag| flag.name == name)
            .unwrap_or_else(|| panic!("{name} is not one of the example's flags"));
        &self.values[index]
    }

    /// A finite number.
    pub fn number(&self, name: &str) -> f64 {
        let text = self.text(name);
        match text.parse::<f64>() {
            Ok(number) if number.is_finite() => number,
            _ => self.fail(format!("{name} must be a finite number, got {text:?}")),
        }
    }

    /// A finite number greater than 0.
    pub fn positive(&self, name: &str) -> f64 {
        match self.number(name) {
            number if number > 0.0 => number,
            _ => self.fail(format!(
                "{name} must be greater than 0, got {:?}",
                self.text(name)
            )),
        }
    }

    /// A finite number, 0 or more.
    pub fn non_negative(&self, name: &str) -> f64 {
        match self.number(name) {
            number if number >= 0.0 => number,
            _ => self.fail(format!(
                "{name} must not be negative, got {:?}",
                self.text(name)
            )),
        }
    }

    /// A whole number from `range`.
    pub fn whole(&self, name: &str, range: std::ops::RangeInclusive<usize>) -> usize {
        let text = self.text(name);
        match text.parse::<usize>() {
            Ok(number) if range.contains(&number) => number,
            _ => self.fail(format!(
                "{name} must be a whole number from {} to {}, got {text:?}",
                range.start(),
                range.end()
            )),
        }
    }

    /// A method by name, one of `Method::NAMES`.
    pub fn method<S: State>(&self, name: &str) -> Method<S> {
        let text = self.text(name);
        text.parse()
            .unwrap_or_else(|error| self.fail(format!("{name} {text:?}: {error}")))
    }

    /// The schedule of a run of `duration` in steps of `dt`, printing a row every `every`
    /// (and the first and last rows); refused when it would take more than
    /// [`MAX_STEPS`] steps.
    pub fn schedule(&self, duration: f64, dt: f64, every: f64) -> Schedule {
        Schedule::new(duration, dt, every).unwrap_or_else(|message| self.fail(message))
    }
}

/// The most steps a run may take: beyond, a mistyped `--dt` would run for days.
pub const MAX_STEPS: f64 = 1e9;

/// The steps of a run from 0 to `duration`: step `i` starts at `i · dt`, and the last one
/// ends exactly at `duration` (a whole number of steps when `duration / dt` is one up to
/// rounding, as [`timestep::Trajectory`] counts them, and otherwise one shorter last step).
pub struct Schedule {
    /// The number of steps.
    pub steps: usize,
    dt: f64,
    duration: f64,
    every: f64,
    next_row: f64,
}

impl Schedule {
    fn new(duration: f64, dt: f64, every: f64) -> Result<Schedule, String> {
        let ratio = duration / dt;
        if !(ratio.is_finite() && ratio <= MAX_STEPS) {
            return Err(format!(
                "a duration of {duration:e} in steps of {dt:e} is {ratio:e} steps, more than \
                 the {MAX_STEPS:e} allowed"
            ));
        }
        let nearest = ratio.round();
        let slack = f64::EPSILON.sqrt() * ratio.max(1.0);
        let whole = if ratio == 0.0 || ((ratio - nearest).abs() <= slack && nearest >= 1.0) {
            nearest
        } else {
            ratio.ceil()
        };
        Ok(Schedule {
            steps: whole as usize,
            dt,
            duration,
            every,
            next_row: every,
        })
    }

    /// The time at the end of `step` steps.
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

/// A number for the CSV: the shortest text that reads back as the same `f64`, in exponent
/// form when tiny or huge.
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
