//! The "Physics in 3D" article's cube: 1 kg, 1 m sides (`I = ⅙ m s²`), at rest at the
//! origin, spun up about x by the torque `(1, 0, 0) − 0.1 ω`. Its angular velocity tends to
//! 10 rad/s as `ω_x = 10 (1 − e^(−0.6 t))`.
//!
//! Prints CSV: `t,px,py,pz,qw,qx,qy,qz,wx,wy,wz` (position, orientation quaternion, world
//! angular velocity), the initial row and one row per step.
//!
//! ```text
//! cargo run --example spinning_cube -- [--method NAME] [--dt DT] [--duration T]
//! ```
//!
//! NAME is any of `timestep::Method`'s names (default `rk4`), DT the step (default 1/60 s),
//! T the duration (default 10 s).

mod cli;
mod rigid_flags;

use glam::DVec3;
use rigid_flags::Flags;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{Method, Trajectory};

fn main() -> ExitCode {
    let names = Method::<DRigidBody>::NAMES.join(", ");
    let defaults = Flags {
        method: "rk4".into(),
        dt: 1.0 / 60.0,
        duration: 10.0,
    };
    let flags = rigid_flags::parse(
        "spinning_cube",
        "CSV t,px,py,pz,qw,qx,qy,qz,wx,wy,wz of the \"Physics in 3D\" cube spun up by the torque (1, 0, 0) − 0.1 ω",
        &names,
        defaults,
    );
    let Ok(method) = flags.method.parse::<Method<DRigidBody>>() else {
        eprintln!(
            "spinning_cube: unknown method '{}' (methods: {names})",
            flags.method
        );
        return ExitCode::from(2);
    };

    let cube = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    let torque =
        |body: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::X - 0.1 * body.angular_velocity());
    let run = match Trajectory::new(method, cube, &torque, 0.0, flags.duration, flags.dt) {
        Ok(run) => run,
        Err(error) => {
            eprintln!("spinning_cube: {error}");
            return ExitCode::from(2);
        }
    };

    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut write = |line: String| writeln!(out, "{line}").is_ok();
    if !write("t,px,py,pz,qw,qx,qy,qz,wx,wy,wz".into()) {
        return ExitCode::SUCCESS;
    }
    for sample in run {
        let (t, body) = match sample {
            Ok(sample) => sample,
            Err(error) => {
                eprintln!("spinning_cube: {error}");
                return ExitCode::FAILURE;
            }
        };
        let (p, q, w) = (body.position(), body.orientation(), body.angular_velocity());
        let row = format!(
            "{t},{},{},{},{},{},{},{},{},{},{}",
            p.x, p.y, p.z, q.w, q.x, q.y, q.z, w.x, w.y, w.z
        );
        if !write(row) {
            return ExitCode::SUCCESS; // stdout closed (e.g. `| head`): nothing more to do
        }
    }
    ExitCode::SUCCESS
}
