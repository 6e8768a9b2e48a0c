//! A game loop with frames of random length and physics at a fixed 100 Hz.
//!
//! A 1 kg mass on a spring (k = 15 N/m, b = 0.1 N·s/m, released at 1000 m) is stepped with
//! semi-implicit Euler by a [`FixedTimestep`]. Frame times come from a fixed pseudo-random
//! sequence (xorshift64, so every run prints the same numbers), mostly between 4 ms and
//! 50 ms, with a 0.4 s hitch now and then that the 0.25 s cap clips. Each frame prints one
//! CSV row on stdout:
//!
//! ```text
//! frame,frame_time,steps,alpha,x_render
//! ```
//!
//! `steps` is how many physics steps the frame ran, `alpha` the blend factor, and
//! `x_render` the position drawn: the previous and current physics states blended by
//! `alpha`.
//!
//! Then, on stderr, the check that matters: the same spring driven by steady 60 fps frames,
//! and by a plain loop with no frames at all, reaches bit-identical physics states after the
//! same number of steps. The frame rate changes what is drawn and when, never the physics.
//!
//! Run with `cargo run --example fixed_timestep [-- --frames N --seed S]` (300 frames and
//! seed 2024 by default).

mod cli;

use cli::Flag;
use std::process::ExitCode;
use timestep::{FixedTimestep, Integrator, Interpolate, Particle, SemiImplicitEuler};

const DT: f64 = 1.0 / 100.0;
const STIFFNESS: f64 = 15.0;
const DAMPING: f64 = 0.1;

fn spring(p: &Particle<f64>, _t: f64) -> f64 {
    -STIFFNESS * p.position() - DAMPING * p.velocity()
}

fn start() -> Particle<f64> {
    Particle::new(1.0, 1000.0, 0.0)
}

/// xorshift64: a fixed pseudo-random sequence, no crate needed.
struct XorShift(u64);

impl XorShift {
    /// A uniform number in [0, 1).
    fn next_unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }
}

/// `count` frame times: 4–50 ms, and one frame in forty a 0.4 s hitch.
fn frame_times(count: usize, seed: u64) -> Vec<f64> {
    // xorshift must not start at 0; mixing the seed also spreads small seeds out.
    let mut random = XorShift(seed ^ 0x9E37_79B9_7F4A_7C15);
    (0..count)
        .map(|_| {
            if random.next_unit() < 1.0 / 40.0 {
                0.4
            } else {
                0.004 + 0.046 * random.next_unit()
            }
        })
        .collect()
}

/// Runs the game loop over `frames`, printing a CSV row per frame when `print` is set, and
/// returns the physics state and the number of steps taken.
fn game_loop(
    frames: &[f64],
    print: bool,
) -> Result<(Particle<f64>, u64), Box<dyn std::error::Error>> {
    let mut clock = FixedTimestep::new(DT);
    let mut previous = start();
    let mut current = previous;
    if print {
        println!("frame,frame_time,steps,alpha,x_render");
    }
    for (i, &frame_time) in frames.iter().enumerate() {
        let frame = clock.advance(frame_time)?;
        frame.run(&mut SemiImplicitEuler, &mut previous, &mut current, &spring)?;
        let shown = previous.interpolate(&current, frame.alpha());
        if print {
            println!(
                "{i},{frame_time:.6},{},{:.6},{:.6}",
                frame.steps(),
                frame.alpha(),
                shown.position()
            );
        }
    }
    Ok((current, clock.steps_taken()))
}

/// The frame count and the seed, from the command line.
fn parse_args() -> (usize, u64) {
    const PROGRAM: &str = "fixed_timestep";
    let flags = [
        Flag::new("--frames", "N", "frames to run, at least 1", 300),
        Flag::new("--seed", "S", "seed of the random frame times", 2024),
    ];
    let about = "a game loop fed random frame times, physics at 100 Hz; one CSV row per frame";
    let (mut frames, mut seed) = (300, 2024);
    for (flag, value) in cli::parse(PROGRAM, about, &flags) {
        match flag {
            "--frames" => {
                let count = cli::whole(PROGRAM, flag, &value, 1);
                // Each frame allocates one frame time: keep it to what fits in memory.
                if count > 100_000_000 {
                    cli::fail(
                        PROGRAM,
                        format!("--frames must be at most 100000000, got {count}"),
                    );
                }
                frames = count as usize;
            }
            _ => seed = cli::whole(PROGRAM, flag, &value, 0),
        }
    }
    (frames, seed)
}

fn main() -> ExitCode {
    let (count, seed) = parse_args();
    match run(count, seed) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("fixed_timestep: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(count: usize, seed: u64) -> Result<bool, Box<dyn std::error::Error>> {
    let frames = frame_times(count, seed);
    let (random_end, steps) = game_loop(&frames, true)?;

    // Steady 60 fps frames, stopped after the same number of steps.
    let mut clock = FixedTimestep::new(DT);
    let mut steady = start();
    let mut taken = 0;
    while taken < steps {
        for t in clock.advance(1.0 / 60.0)?.times() {
            if taken < steps {
                SemiImplicitEuler.step(&mut steady, &spring, t, DT)?;
                taken += 1;
            }
        }
    }
    // And no frames at all: a plain loop, step k starting at k·dt.
    let mut plain = start();
    for k in 0..steps {
        SemiImplicitEuler.step(&mut plain, &spring, k as f64 * DT, DT)?;
    }

    let simulated = steps as f64 * DT;
    let real: f64 = frames.iter().sum();
    eprintln!(
        "{count} frames, {real:.3} s of real time, {steps} steps of {DT} s = {simulated:.2} s simulated"
    );
    eprintln!(
        "random frames: x = {:.17e}, v = {:.17e}",
        random_end.position(),
        random_end.velocity()
    );
    eprintln!(
        "no frames:     x = {:.17e}, v = {:.17e}",
        plain.position(),
        plain.velocity()
    );
    let identical = random_end == plain && steady == plain;
    eprintln!(
        "random frames, 60 fps frames and a plain loop: {}",
        if identical {
            "bit-identical physics"
        } else {
            "DIFFERENT physics (a bug)"
        }
    );
    Ok(identical)
}
