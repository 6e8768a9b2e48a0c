//! timestep in a headless Bevy app: 1000 balls and 10 tumbling boxes stepped in
//! `FixedUpdate` by Bevy's own `Time<Fixed>` (60 Hz), drawn between steps into `Transform`
//! with timestep's Hermite interpolation and `Time<Fixed>::overstep_fraction()`.
//!
//! Bevy 0.20's glam is 0.33, and timestep accepts it, so `bevy_math::Vec3` *is* the vector
//! of `Particle<Vec3>` and `RigidBody`, and a body's position and orientation go into a
//! `Transform` as they are: no wrapper type, no conversion. (This crate's Cargo.lock has
//! one glam, 0.33.12; see timestep's README, "glam versions, and Bevy".)
//!
//! It runs `--frames N` frames (default 240) of pseudo-random length (5 to 40 ms, the same
//! every run), with no window and no real clock (`TimeUpdateStrategy::ManualDuration`),
//! and prints one CSV row per frame:
//!
//! ```text
//! frame,frame_time,steps,alpha,t_drawn,ball_y,exact_y,hermite_error,lerp_error,box_y,box_turn
//! ```
//!
//! `frame_time` and `t_drawn` in seconds; `steps` the fixed steps run in that frame;
//! `alpha` the overstep fraction; `t_drawn` the time the drawn state stands for (the
//! previous step's time plus `alpha · dt`); `ball_y` the first ball's drawn height, read
//! back from its `GlobalTransform`, against the exact `exact_y = v₀t − ½gt²`;
//! `hermite_error` and `lerp_error` how far the Hermite curve and the straight-line blend
//! are from it (the states themselves are exact in height: Verlet under gravity); `box_y`
//! and `box_turn` the first box's drawn height and its turn about z in radians.
//!
//! At the end it steps copies of every starting state in a plain loop, `t = k·dt`, and
//! checks that Bevy's run gave the very same bits (exit status 1 and a message if not).
//!
//! # The trap: `elapsed` inside `FixedUpdate` is the *end* of the step
//!
//! Bevy advances `Time<Fixed>` by one step and *then* runs `FixedUpdate`, so inside it
//! `time.elapsed()` is the time the step ends at. The time the step starts at, the `t`
//! that `step(&mut state, &forces, t, dt)` wants, is `elapsed − delta`. Passing `elapsed`
//! runs every time-dependent force one step late (the gust on the balls and the motor on
//! the boxes here), and the check at the end fails.

use std::process::ExitCode;
use std::time::Duration;

use bevy_app::{App, FixedUpdate, PostUpdate, Startup, TaskPoolPlugin};
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy, Virtual};
use bevy_transform::TransformPlugin;
use bevy_transform::components::{GlobalTransform, Transform};
use bevy_transform::plugins::TransformSystems;
use timestep::prelude::*;

const BALLS: usize = 1000;
const BOXES: usize = 10;
const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);

/// The physics of an entity: its state at the last two fixed steps, for drawing between.
#[derive(Component)]
struct Motion<S: Send + Sync + 'static> {
    previous: S,
    current: S,
}

/// The state an entity started in, kept for the check at the end.
#[derive(Component)]
struct Start<S: Send + Sync + 'static>(S);

/// Marks the ball and the box whose drawn state is printed.
#[derive(Component)]
struct Watched;

/// Fixed steps run since the last frame was printed.
#[derive(Resource, Default)]
struct StepsThisFrame(u32);

/// Gravity, and a sideways gust `(sin 3t, 0, 0)` N that depends on the time.
fn ball_forces(ball: &Particle<Vec3>, t: f32) -> Vec3 {
    GRAVITY * ball.mass() + Vec3::new((3.0 * t).sin(), 0.0, 0.0)
}

/// Gravity, and a motor about z whose torque `0.5 cos t` N·m depends on the time.
fn box_forces(body: &RigidBody, t: f32) -> (Vec3, Vec3) {
    (GRAVITY * body.mass(), Vec3::new(0.0, 0.0, 0.5 * t.cos()))
}

/// The start `t` and length `dt` of the step `FixedUpdate` is running: Bevy's `elapsed` is
/// its end (see the trap above).
fn this_step(time: &Time<Fixed>) -> (f32, f32) {
    let start = time.elapsed() - time.delta();
    (start.as_secs_f32(), time.delta_secs())
}

fn spawn(mut commands: Commands) {
    for i in 0..BALLS {
        let launch = Vec3::new(1.0 + (i % 7) as f32, 4.0 + (i % 13) as f32, 0.0);
        let ball = Particle::new(0.5, Vec3::new(0.01 * i as f32, 0.0, 0.0), launch);
        let mut entity = commands.spawn((
            Motion {
                previous: ball,
                current: ball,
            },
            Start(ball),
            Transform::from_translation(ball.position()),
        ));
        if i == 0 {
            entity.insert(Watched);
        }
    }
    for i in 0..BOXES {
        let mut body = RigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 0.5, 0.25));
        body.set_position(Vec3::new(2.0 * i as f32, 0.0, 0.0));
        body.set_velocity(Vec3::new(0.0, 6.0, 0.0));
        body.set_angular_velocity(Vec3::new(0.0, 0.0, 1.0 + 0.1 * i as f32));
        let mut entity = commands.spawn((
            Motion {
                previous: body,
                current: body,
            },
            Start(body),
            Transform::from_translation(body.position()).with_rotation(body.orientation()),
        ));
        if i == 0 {
            entity.insert(Watched);
        }
    }
}

// The two systems a game writes: step in FixedUpdate, draw before transforms propagate.

fn step_balls(
    time: Res<Time<Fixed>>,
    mut steps: ResMut<StepsThisFrame>,
    mut balls: Query<&mut Motion<Particle<Vec3>>>,
) {
    let (t, dt) = this_step(&time);
    for mut ball in &mut balls {
        let Motion { previous, current } = &mut *ball;
        *previous = *current;
        Verlet
            .step(current, &ball_forces, t, dt)
            .expect("finite t and dt");
    }
    steps.0 += 1;
}

fn step_boxes(time: Res<Time<Fixed>>, mut boxes: Query<&mut Motion<RigidBody>>) {
    let (t, dt) = this_step(&time);
    for mut body in &mut boxes {
        let Motion { previous, current } = &mut *body;
        *previous = *current;
        SemiImplicitEuler
            .step(current, &box_forces, t, dt)
            .expect("finite t and dt");
    }
}

fn draw_balls(time: Res<Time<Fixed>>, mut balls: Query<(&Motion<Particle<Vec3>>, &mut Transform)>) {
    let (alpha, dt) = (time.overstep_fraction(), time.timestep().as_secs_f32());
    for (ball, mut transform) in &mut balls {
        transform.translation = ball.previous.hermite(&ball.current, alpha, dt).position();
    }
}

fn draw_boxes(time: Res<Time<Fixed>>, mut boxes: Query<(&Motion<RigidBody>, &mut Transform)>) {
    let (alpha, dt) = (time.overstep_fraction(), time.timestep().as_secs_f32());
    for (body, mut transform) in &mut boxes {
        let drawn = body.previous.hermite(&body.current, alpha, dt);
        transform.translation = drawn.position();
        transform.rotation = drawn.orientation();
    }
}

/// The frame lengths: a fixed pseudo-random sequence from 5 to 40 ms.
fn frame_times(frames: usize) -> impl Iterator<Item = Duration> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..frames).map(move |_| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        Duration::from_micros(5_000 + (seed >> 33) % 35_001)
    })
}

fn parse_frames() -> Result<usize, String> {
    let mut frames = 240;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => {
                println!(
                    "timestep-bevy-example: balls and boxes stepped in Bevy's FixedUpdate, drawn into Transform\n\
                     \n\
                     usage: cargo run [--release] -- [--frames N]\n\
                     \n\
                     --frames N   frames to run (default 240), each 5 to 40 ms long\n\
                     -h, --help   this text"
                );
                std::process::exit(0);
            }
            "--frames" => {
                let value = args.next().ok_or("--frames needs a value")?;
                frames = value
                    .parse()
                    .map_err(|_| format!("--frames: not a whole number: {value}"))?;
            }
            other => return Err(format!("unknown argument {other} (try --help)")),
        }
    }
    Ok(frames)
}

/// Steps a copy of `start` `steps` times in a plain loop, `t = k·dt` as Bevy counts it.
fn replay<S: State<Scalar = f32>>(
    mut state: S,
    forces: &impl Forces<S>,
    method: &mut impl Integrator<S>,
    steps: u32,
    timestep: Duration,
) -> S {
    for k in 0..steps {
        method
            .step(
                &mut state,
                forces,
                (timestep * k).as_secs_f32(),
                timestep.as_secs_f32(),
            )
            .expect("finite t and dt");
    }
    state
}

fn main() -> ExitCode {
    let frames = match parse_frames() {
        Ok(frames) => frames,
        Err(message) => {
            eprintln!("timestep-bevy-example: {message}");
            return ExitCode::from(2);
        }
    };

    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .init_resource::<StepsThisFrame>()
        .add_systems(Startup, spawn)
        .add_systems(FixedUpdate, (step_balls, step_boxes))
        .add_systems(
            PostUpdate,
            (draw_balls, draw_boxes).before(TransformSystems::Propagate),
        );
    app.finish();
    app.cleanup();

    let mut largest = (0.0_f32, 0.0_f32, 0.0_f32);
    println!(
        "frame,frame_time,steps,alpha,t_drawn,ball_y,exact_y,hermite_error,lerp_error,state_error,box_y,box_turn"
    );
    for (frame, frame_time) in frame_times(frames).enumerate() {
        app.insert_resource(TimeUpdateStrategy::ManualDuration(frame_time));
        app.update();

        let world = app.world_mut();
        let steps = std::mem::take(&mut world.resource_mut::<StepsThisFrame>().0);
        // Bevy's first frame has no length: its clock starts there.
        let frame_time = world.resource::<Time<Virtual>>().delta_secs();
        let fixed = world.resource::<Time<Fixed>>();
        let (alpha, dt) = (fixed.overstep_fraction(), fixed.timestep().as_secs_f32());
        // What the drawn state stands for: `alpha` of the way from the previous step's time
        // to the current one's. Before the first step both states are the start.
        let t_current = fixed.elapsed().as_secs_f32();
        let t_drawn = if fixed.elapsed().is_zero() {
            0.0
        } else {
            t_current - dt + alpha * dt
        };

        let mut balls = world.query_filtered::<(
            &Start<Particle<Vec3>>,
            &Motion<Particle<Vec3>>,
            &GlobalTransform,
        ), With<Watched>>();
        let (start, ball, drawn) = balls.single(world).expect("one watched ball");
        let launch = start.0.velocity().y;
        let exact_y = move |t: f32| launch * t - 0.5 * 9.81 * t * t;
        let ball_y = drawn.translation().y;
        let lerp_y = ball.previous.interpolate(&ball.current, alpha).position().y;
        let hermite_error = (ball_y - exact_y(t_drawn)).abs();
        let lerp_error = (lerp_y - exact_y(t_drawn)).abs();
        let state_error = (ball.current.position().y - exact_y(t_current)).abs();
        largest = (
            largest.0.max(hermite_error),
            largest.1.max(lerp_error),
            largest.2.max(state_error),
        );

        let mut boxes =
            world.query_filtered::<&GlobalTransform, (With<Motion<RigidBody>>, With<Watched>)>();
        let drawn_box = boxes.single(world).expect("one watched box");
        let rotation: Quat = drawn_box.rotation();
        let box_turn = 2.0 * rotation.z.atan2(rotation.w);
        println!(
            "{frame},{frame_time:.6},{steps},{alpha:.6},{t_drawn:.6},{ball_y:.6},{:.6},{hermite_error:.3e},{lerp_error:.3e},{state_error:.3e},{:.6},{box_turn:.6}",
            exact_y(t_drawn),
            drawn_box.translation().y,
        );
    }

    // The check: Bevy's fixed steps are exactly a plain loop's.
    let world = app.world_mut();
    let fixed = world.resource::<Time<Fixed>>();
    let (timestep, elapsed) = (fixed.timestep(), fixed.elapsed());
    let steps = (elapsed.as_nanos() / timestep.as_nanos()) as u32;
    let mut mismatches = 0;
    let mut balls = world.query::<(&Start<Particle<Vec3>>, &Motion<Particle<Vec3>>)>();
    for (start, ball) in balls.iter(world) {
        if replay(start.0, &ball_forces, &mut Verlet, steps, timestep) != ball.current {
            mismatches += 1;
        }
    }
    let mut boxes = world.query::<(&Start<RigidBody>, &Motion<RigidBody>)>();
    for (start, body) in boxes.iter(world) {
        if replay(
            start.0,
            &box_forces,
            &mut SemiImplicitEuler,
            steps,
            timestep,
        ) != body.current
        {
            mismatches += 1;
        }
    }
    if mismatches > 0 {
        eprintln!(
            "timestep-bevy-example: {mismatches} of {} states differ from a plain loop of {steps} steps",
            BALLS + BOXES
        );
        return ExitCode::FAILURE;
    }
    eprintln!(
        "timestep-bevy-example: {frames} frames, {steps} fixed steps; all {BALLS} balls and {BOXES} boxes \
         bit-identical to a plain loop; the watched ball drawn within {:.1e} m of its exact height with \
         Hermite, {:.1e} m with lerp (its f32 states themselves drift by rounding up to {:.1e} m)",
        largest.0, largest.1, largest.2
    );
    ExitCode::SUCCESS
}
