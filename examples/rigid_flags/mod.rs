//! The command line of the rigid-body examples: `--method NAME --dt DT --duration T`, read
//! with the examples' shared [`cli`](crate::cli).

use crate::cli::{self, Flag};

/// What the command line asked for.
pub struct Flags {
    /// The integrator's name.
    pub method: String,
    /// The time step, seconds: finite and positive.
    pub dt: f64,
    /// How long to run, seconds: finite and not negative, and at most
    /// [`cli::MAX_STEPS`] steps of `dt`.
    pub duration: f64,
}

/// Reads the flags from the command line, starting from `defaults`. On a bad flag, prints a
/// one-line message naming it to stderr and exits with status 2; on `--help`, prints the
/// usage with the defaults and exits with status 0.
pub fn parse(program: &str, about: &str, methods: &str, defaults: Flags) -> Flags {
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "the integrator's name (listed above)",
            &defaults.method,
        ),
        Flag::new("--dt", "DT", "time step, seconds, > 0", defaults.dt),
        Flag::new(
            "--duration",
            "T",
            "how long to run, seconds, >= 0",
            defaults.duration,
        ),
    ];
    let about = format!("{about}\nNAME is one of: {methods}");
    let mut chosen = defaults;
    for (flag, value) in cli::parse(program, &about, &flags) {
        match flag {
            "--method" => chosen.method = value,
            "--dt" => chosen.dt = cli::positive(program, flag, &value),
            _ => chosen.duration = cli::not_negative(program, flag, &value),
        }
    }
    cli::check_steps(program, chosen.duration, chosen.dt);
    chosen
}
