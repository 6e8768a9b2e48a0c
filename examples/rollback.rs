//! Rollback netcode: two peers simulate the same 100 bodies, each on its own
//! [`FixedTimestep`] and its own frame times, and each controls one body. A peer's input
//! for a tick reaches the other `--delay` frames later; until then the other predicts it
//! (the last input it has), and when the real one differs it restores the snapshot taken
//! before that tick and simulates again. Snapshots are clones of the state and of the
//! method ([`Method`] keeps its history and kept matrices, so any method resimulates bit
//! for bit).
//!
//! ```text
//! cargo run --release --example rollback
//! cargo run --release --example rollback -- --frames 2000 --delay 8 --bodies 50 --method beeman
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--frames N`
//! (default 10 000), `--delay N` (frames, default 4), `--bodies N` (at least 2, default
//! 100), `--method NAME` (any of `timestep::Method`'s names, default `position-verlet`).
//!
//! Output: the header `frame,rollbacks,hash_a,hash_b`, one row per frame: the rollbacks
//! so far (both peers), and each peer's hash of its state after the latest tick whose
//! inputs both peers have (FNV-1a over the bits of every position and momentum; empty
//! before the first). The program exits 1 as soon as the two hashes differ: after
//! resimulation both peers must hold the same bits. With the defaults: 590 rollbacks in
//! 10 000 frames, the hashes always equal, in under a second.

mod cli;

use cli::Flag;
use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::glam::DVec2;
use timestep::{FixedTimestep, InPlace, Integrator, Method, Particles};

const PROGRAM: &str = "rollback";
/// Physics at 60 ticks a second.
const DT: f64 = 1.0 / 60.0;
/// How many ticks an input lasts before its player may change it.
const INPUT_TICKS: u64 = 15;

/// A player's input for a tick: a thrust on their body, one of eight directions or none,
/// changing every [`INPUT_TICKS`] ticks (a pure function of the peer and the tick, so that
/// a resimulated tick asks for the same input).
fn input(peer: u64, tick: u64) -> DVec2 {
    let mut x = ((peer << 32) | (tick / INPUT_TICKS)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    match x >> 61 {
        0 => DVec2::ZERO,
        k => DVec2::from_angle(k as f64 * core::f64::consts::FRAC_PI_4) * 20.0,
    }
}

/// The bodies: each on a spring to its anchor on a ring, and pulled towards the two
/// players' bodies (0 and 1), which the inputs push: every body feels every input.
fn forces(bodies: &Particles<DVec2>, thrust: [DVec2; 2], out: &mut [DVec2]) {
    let positions = bodies.positions();
    let n = positions.len();
    for (i, (force, &x)) in out.iter_mut().zip(positions).enumerate() {
        let anchor = DVec2::from_angle(i as f64 * core::f64::consts::TAU / n as f64) * 10.0;
        *force = -2.0 * (x - anchor);
        for player in &positions[..2] {
            let d = *player - x;
            *force += d / (1.0 + d.length_squared());
        }
    }
    out[0] += thrust[0];
    out[1] += thrust[1];
}

/// FNV-1a over the bits of every position and momentum.
fn hash(bodies: &Particles<DVec2>) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    let values = bodies.positions().iter().chain(bodies.momenta());
    for v in values.flat_map(|v| [v.x, v.y]) {
        for byte in v.to_bits().to_le_bytes() {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
        }
    }
    h
}

/// One peer: its clock, its world after `tick` ticks, the snapshots taken before each tick
/// not yet confirmed, and what it knows of the other's inputs.
struct Peer {
    id: u64,
    clock: FixedTimestep,
    method: Method<Particles<DVec2>>,
    world: Particles<DVec2>,
    tick: u64,
    /// `(tick, method, world)` before each tick from `confirmed` on.
    snapshots: VecDeque<(u64, Method<Particles<DVec2>>, Particles<DVec2>)>,
    /// The other's inputs received, for ticks `0..remote.len()`.
    remote: Vec<DVec2>,
    /// The remote input each unconfirmed tick was simulated with.
    used: VecDeque<DVec2>,
    /// The hash after each tick, for ticks from `hashes_from` on.
    hashes: VecDeque<u64>,
    hashes_from: u64,
    rollbacks: u64,
}

impl Peer {
    fn new(id: u64, method: Method<Particles<DVec2>>, world: Particles<DVec2>) -> Peer {
        Peer {
            id,
            clock: FixedTimestep::new(DT),
            method,
            world,
            tick: 0,
            snapshots: VecDeque::new(),
            remote: Vec::new(),
            used: VecDeque::new(),
            hashes: VecDeque::new(),
            hashes_from: 1,
            rollbacks: 0,
        }
    }

    /// Ticks below this have every input known: never simulated again.
    fn confirmed(&self) -> u64 {
        (self.remote.len() as u64).min(self.tick)
    }

    /// The other's input for `tick`: received, or predicted as the last received.
    fn remote_input(&self, tick: u64) -> DVec2 {
        let known = self.remote.len() as u64;
        match self.remote.get(tick as usize) {
            Some(&input) => input,
            None if known > 0 => self.remote[known as usize - 1],
            None => DVec2::ZERO,
        }
    }

    /// Simulates one tick, saving a snapshot first.
    fn simulate(&mut self) {
        let tick = self.tick;
        self.snapshots
            .push_back((tick, self.method.clone(), self.world.clone()));
        let remote = self.remote_input(tick);
        self.used.push_back(remote);
        let mut thrust = [DVec2::ZERO; 2];
        thrust[self.id as usize] = input(self.id, tick);
        thrust[1 - self.id as usize] = remote;
        let forces = InPlace(|bodies: &Particles<DVec2>, _t: f64, out: &mut Vec<DVec2>| {
            forces(bodies, thrust, out);
        });
        self.method
            .step(&mut self.world, &forces, tick as f64 * DT, DT)
            .expect("a finite step of finite forces");
        self.tick += 1;
        self.hashes.push_back(hash(&self.world));
    }

    /// Receives the other's inputs for the next ticks; if one differs from what a tick was
    /// simulated with, rolls back to before that tick and simulates up to now again.
    fn receive(&mut self, inputs: &[DVec2]) {
        let first_unconfirmed = self.confirmed();
        self.remote.extend_from_slice(inputs);
        // A snapshot was taken before every tick from the first unconfirmed one on.
        let wrong = (first_unconfirmed..self.tick)
            .find(|&t| self.used[(t - first_unconfirmed) as usize] != self.remote_input(t));
        if let Some(from) = wrong {
            let now = self.tick;
            let back = (from - first_unconfirmed) as usize;
            let (tick, method, world) = self.snapshots[back].clone();
            self.snapshots.truncate(back);
            self.used.truncate(back);
            // Keep the hashes up to the state rolled back to (after `from` ticks).
            self.hashes.truncate((from + 1 - self.hashes_from) as usize);
            (self.tick, self.method, self.world) = (tick, method, world);
            while self.tick < now {
                self.simulate();
            }
            self.rollbacks += 1;
        }
        // Snapshots before the confirmed tick are never needed again.
        while self
            .snapshots
            .front()
            .is_some_and(|s| s.0 < self.confirmed())
        {
            self.snapshots.pop_front();
            self.used.pop_front();
        }
    }

    /// The hash after `tick` (1-based: the state once `tick` ticks are simulated).
    fn hash_after(&self, tick: u64) -> u64 {
        self.hashes[(tick - self.hashes_from) as usize]
    }

    /// Forgets the hashes before `tick`.
    fn forget_hashes_before(&mut self, tick: u64) {
        while self.hashes_from < tick {
            self.hashes.pop_front();
            self.hashes_from += 1;
        }
    }
}

/// A tiny xorshift64 generator for the frame times (the wall clock, not the simulation).
struct XorShift(u64);

impl XorShift {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }
}

fn main() -> ExitCode {
    let flags = [
        Flag::new("--frames", "N", "how many frames to run, >= 1", 10_000),
        Flag::new("--delay", "N", "frames an input takes to arrive, >= 1", 4),
        Flag::new("--bodies", "N", "bodies in the world, 2 to 10 000", 100),
        Flag::new(
            "--method",
            "NAME",
            "the integrator, one of timestep::Method's names",
            "position-verlet",
        ),
    ];
    let (mut frames, mut delay, mut bodies, mut name) =
        (10_000, 4, 100, "position-verlet".to_string());
    for (flag, value) in cli::parse(
        PROGRAM,
        "two peers of a rollback game, CSV frame,rollbacks,hash_a,hash_b; exits 1 if \
         the peers' confirmed states ever differ",
        &flags,
    ) {
        match flag {
            "--frames" => frames = cli::whole(PROGRAM, flag, &value, 1),
            "--delay" => delay = cli::whole(PROGRAM, flag, &value, 1) as usize,
            "--bodies" => {
                bodies = cli::whole(PROGRAM, flag, &value, 2) as usize;
                if bodies > 10_000 {
                    cli::fail(
                        PROGRAM,
                        format!("--bodies must be at most 10000, got {value:?}"),
                    );
                }
            }
            _ => name = value,
        }
    }
    let method: Method<Particles<DVec2>> = name
        .parse()
        .unwrap_or_else(|error| cli::fail(PROGRAM, format!("--method {name:?}: {error}")));
    let world = Particles::new(
        vec![1.0; bodies],
        (0..bodies)
            .map(|i| DVec2::from_angle(i as f64 * 0.7) * (5.0 + (i % 7) as f64))
            .collect(),
        vec![DVec2::ZERO; bodies],
    );
    let mut peers = [
        Peer::new(0, method.clone(), world.clone()),
        Peer::new(1, method, world),
    ];
    // Each peer's frames, 60 a second on average: A's steady within 10%, B's anywhere
    // from a third of a tick to two ticks long.
    let mut clocks = [
        XorShift(0x2545_F491_4F6C_DD1D),
        XorShift(0x9E37_79B9_7F4A_7C15),
    ];
    let frame_time = |peer: usize, random: &mut XorShift| match peer {
        0 => DT * (0.9 + 0.2 * random.unit()),
        _ => DT * (1.0 / 3.0 + (2.0 - 1.0 / 3.0) * random.unit()),
    };
    // Two ticks a frame at most (B's longest frames), for the delay and a few frames more.
    let max_prediction = 2 * (delay as u64 + 4);
    // Inputs in flight: (frame of arrival, receiving peer, inputs from the sender's ticks).
    let mut in_flight: VecDeque<(u64, usize, Vec<DVec2>)> = VecDeque::new();

    let mut out = BufWriter::new(io::stdout().lock());
    let mut write = |line: String| {
        if writeln!(out, "{line}").is_err() {
            std::process::exit(0); // the reader closed the pipe
        }
    };
    write("frame,rollbacks,hash_a,hash_b".to_string());
    for frame in 0..frames {
        while in_flight.front().is_some_and(|m| m.0 == frame) {
            let (_, to, inputs) = in_flight.pop_front().expect("checked");
            peers[to].receive(&inputs);
        }
        for (p, peer) in peers.iter_mut().enumerate() {
            let first = peer.tick;
            // A peer too far ahead of what it has heard waits a frame (time sync, as
            // rollback games do): its predictions, and so its rollbacks, stay short.
            let ahead = peer.tick.saturating_sub(peer.remote.len() as u64);
            let real = frame_time(p, &mut clocks[p]);
            let counted = if ahead > max_prediction { 0.0 } else { real };
            let steps = peer
                .clock
                .advance(counted)
                .expect("finite frame times")
                .steps();
            for _ in 0..steps {
                peer.simulate();
            }
            // The inputs of the ticks just simulated leave now, and arrive `delay` later.
            let sent = (first..peer.tick).map(|t| input(peer.id, t)).collect();
            in_flight.push_back((frame + delay as u64, 1 - p, sent));
        }
        let tick = peers[0].confirmed().min(peers[1].confirmed());
        if tick == 0 {
            write(format!("{frame},0,,"));
            continue;
        }
        let [a, b] = [peers[0].hash_after(tick), peers[1].hash_after(tick)];
        let rollbacks = peers[0].rollbacks + peers[1].rollbacks;
        write(format!("{frame},{rollbacks},{a:016x},{b:016x}"));
        if a != b {
            eprintln!("{PROGRAM}: the peers differ after tick {tick} at frame {frame}");
            return ExitCode::FAILURE;
        }
        for peer in &mut peers {
            peer.forget_hashes_before(tick);
        }
    }
    let rollbacks = peers[0].rollbacks + peers[1].rollbacks;
    eprintln!(
        "{PROGRAM}: {frames} frames, ticks {} and {}, {rollbacks} rollbacks, the confirmed states always equal",
        peers[0].tick, peers[1].tick
    );
    ExitCode::SUCCESS
}
