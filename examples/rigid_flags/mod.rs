//! The command line of the rigid-body examples: `--method NAME --dt DT --duration T`.

use std::process::exit;

/// What the command line asked for.
pub struct Flags {
    /// The integrator's name.
    pub method: String,
    /// The time step, seconds: finite and positive.
    pub dt: f64,
    /// How long to run, seconds: finite and not negative.
    pub duration: f64,
}

/// Reads the flags from the command line, starting from `defaults`. On a bad flag, prints a
/// one-line message naming it to stderr and exits with status 2; on `--help`, prints the
/// usage and exits with status 0.
pub fn parse(program: &str, methods: &str, defaults: Flags) -> Flags {
    let usage = format!(
        "usage: {program} [--method NAME] [--dt DT] [--duration T]\n\
         NAME: {methods} (default {}); DT > 0 (default {}); T >= 0 (default {})",
        defaults.method, defaults.dt, defaults.duration
    );
    let fail = |message: String| -> ! {
        eprintln!("{program}: {message}");
        exit(2)
    };
    let mut flags = defaults;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            println!("{usage}");
            exit(0);
        }
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(format!("{flag} needs a value")))
        };
        let number = |text: String| -> f64 {
            text.parse()
                .unwrap_or_else(|_| fail(format!("{flag} needs a number, got '{text}'")))
        };
        match flag.as_str() {
            "--method" => flags.method = value(),
            "--dt" => {
                flags.dt = number(value());
                if !(flags.dt.is_finite() && flags.dt > 0.0) {
                    fail(format!(
                        "--dt must be finite and positive, got {}",
                        flags.dt
                    ));
                }
            }
            "--duration" => {
                flags.duration = number(value());
                if !(flags.duration.is_finite() && flags.duration >= 0.0) {
                    fail(format!(
                        "--duration must be finite and not negative, got {}",
                        flags.duration
                    ));
                }
            }
            _ => fail(format!(
                "unknown flag '{flag}' (flags: --method, --dt, --duration)"
            )),
        }
    }
    flags
}
