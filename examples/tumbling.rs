//! The intermediate-axis flip (the Dzhanibekov effect): a torque-free body with
//! `I = diag(1, 2, 3)`, spun at `ω = (0.001, 2, 0.001)` rad/s, almost exactly about its
//! intermediate axis. The spin is unstable: every 15 s the body turns over, while its
//! angular momentum and energy stay constant.
//!
//! Prints CSV: `t,wx,wy,wz,lx,ly,lz,energy` (world angular velocity, world angular momentum,
//! kinetic energy), the initial row and one row per step. Watch `energy` to see what each
//! method does to it: semi-implicit Euler gains 83 % in a minute; `splitting` stays within
//! 10⁻⁵.
//!
//! ```text
//! cargo run --example tumbling -- [--method NAME] [--dt DT] [--duration T]
//! ```
//!
//! NAME is any of `timestep::Method`'s names, `splitting` (`timestep::rigid::Splitting`),
//! `splitting4` or `splitting6` (`Splitting::ORDER4`, `Splitting::ORDER6`: Suzuki's and
//! Yoshida's compositions of it); defaults: `rk4`, 1/60 s, 60 s.

mod cli;
mod rigid_flags;

use glam::DVec3;
use rigid_flags::Flags;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use timestep::rigid::{DRigidBody, Inertia, Splitting};
use timestep::{Integrator, Method, Trajectory};

fn free(_: &DRigidBody, _t: f64) -> (DVec3, DVec3) {
    (DVec3::ZERO, DVec3::ZERO)
}

/// Runs `integrator` and prints the CSV.
fn print<I: Integrator<DRigidBody>>(integrator: I, flags: &Flags) -> ExitCode {
    let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_angular_velocity(DVec3::new(0.001, 2.0, 0.001));
    let run = match Trajectory::new(integrator, body, &free, 0.0, flags.duration, flags.dt) {
        Ok(run) => run,
        Err(error) => {
            eprintln!("tumbling: {error}");
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut write = |line: String| writeln!(out, "{line}").is_ok();
    if !write("t,wx,wy,wz,lx,ly,lz,energy".into()) {
        return ExitCode::SUCCESS;
    }
    for sample in run {
        let (t, body) = match sample {
            Ok(sample) => sample,
            Err(error) => {
                eprintln!("tumbling: {error}");
                return ExitCode::FAILURE;
            }
        };
        let (w, l) = (body.angular_velocity(), body.angular_momentum());
        let row = format!(
            "{t},{},{},{},{},{},{},{}",
            w.x,
            w.y,
            w.z,
            l.x,
            l.y,
            l.z,
            body.kinetic_energy()
        );
        if !write(row) {
            return ExitCode::SUCCESS; // stdout closed (e.g. `| head`): nothing more to do
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let names = format!(
        "{}, splitting, splitting4, splitting6",
        Method::<DRigidBody>::NAMES.join(", ")
    );
    let defaults = Flags {
        method: "rk4".into(),
        dt: 1.0 / 60.0,
        duration: 60.0,
    };
    let flags = rigid_flags::parse(
        "tumbling",
        "CSV t,wx,wy,wz,lx,ly,lz,energy of a torque-free body with I = diag(1, 2, 3) spun near its intermediate axis",
        &names,
        defaults,
    );
    match flags.method.as_str() {
        "splitting" => return print(Splitting, &flags),
        "splitting4" => return print(Splitting::ORDER4, &flags),
        "splitting6" => return print(Splitting::ORDER6, &flags),
        _ => {}
    }
    match flags.method.parse::<Method<DRigidBody>>() {
        Ok(method) => print(method, &flags),
        Err(_) => {
            eprintln!(
                "tumbling: unknown method '{}' (methods: {names})",
                flags.method
            );
            ExitCode::from(2)
        }
    }
}
