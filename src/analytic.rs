//! Closed-form solutions to check integrators against.

use crate::MassError;
use crate::math;
// Fully qualified `Float::` calls: the libm-backed functions on `no_std`, the standard
// library's (through num-traits) with `std`, and no unused import either way.
use num_traits::Float;

/// The damped harmonic oscillator `m x'' + b x' + k x = 0`, solved exactly.
///
/// Under-, critically and over-damped motion are all covered (and a repulsive `k < 0` or
/// free `k = 0` too); the formulas are arranged so that none overflows while the motion
/// itself decays, and the critical case is reached smoothly from either side. Everything is
/// `f64`: it is the reference integrators of either precision are measured against.
///
/// # Example
///
/// ```
/// use timestep::analytic::DampedOscillator;
///
/// // The second article's spring-damper: k = 15, b = 0.1, 1 kg, released at 1000 m.
/// let spring = DampedOscillator::new(1.0, 15.0, 0.1, 1000.0, 0.0);
/// assert_eq!(spring.position(0.0), 1000.0);
/// let period = 2.0 * std::f64::consts::PI / spring.damped_frequency().unwrap();
/// // One period later the amplitude has decayed by e^(−b T / 2m).
/// let decay = (-0.1 * period / 2.0).exp();
/// assert!((spring.position(period) - 1000.0 * decay).abs() < 1e-9);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampedOscillator {
    mass: f64,
    stiffness: f64,
    damping: f64,
    x0: f64,
    v0: f64,
}

impl DampedOscillator {
    /// The oscillator of `mass`, spring constant `stiffness` (k) and damping coefficient
    /// `damping` (b), released at `x0` with velocity `v0` at `t = 0`.
    ///
    /// # Panics
    ///
    /// If `mass` is not finite and positive, or any other argument is not finite.
    #[track_caller]
    #[must_use]
    pub fn new(mass: f64, stiffness: f64, damping: f64, x0: f64, v0: f64) -> Self {
        if let Err(error) = MassError::check(mass) {
            panic!("DampedOscillator::new: {error}");
        }
        assert!(
            [stiffness, damping, x0, v0].iter().all(|v| v.is_finite()),
            "DampedOscillator::new: stiffness, damping, x0 and v0 must be finite"
        );
        DampedOscillator {
            mass,
            stiffness,
            damping,
            x0,
            v0,
        }
    }

    /// The frequency of the damped oscillation `√(k/m − (b/2m)²)`, or `None` when the
    /// motion does not oscillate (critically damped, overdamped, or `k ≤ 0`).
    #[must_use]
    pub fn damped_frequency(&self) -> Option<f64> {
        let discriminant = self.discriminant();
        (discriminant < 0.0).then(|| Float::sqrt(-discriminant))
    }

    /// The position at time `t`.
    #[must_use]
    pub fn position(&self, t: f64) -> f64 {
        let (c, s) = self.basis(t);
        self.x0 * c + (self.v0 + self.decay_rate() * self.x0) * s
    }

    /// The velocity at time `t`.
    #[must_use]
    pub fn velocity(&self, t: f64) -> f64 {
        let (c, s) = self.basis(t);
        let gamma = self.decay_rate();
        -gamma * self.position(t)
            + self.x0 * self.discriminant() * s
            + (self.v0 + gamma * self.x0) * c
    }

    /// The mechanical energy `½ m v² + ½ k x²` of the state (`x`, `v`).
    ///
    /// ```
    /// use timestep::analytic::DampedOscillator;
    ///
    /// let spring = DampedOscillator::new(2.0, 8.0, 0.0, 1.0, 0.0);
    /// assert_eq!(spring.energy(1.0, 0.0), 4.0);
    /// assert_eq!(spring.energy(0.0, 2.0), 4.0);
    /// ```
    #[must_use]
    pub fn energy(&self, x: f64, v: f64) -> f64 {
        0.5 * self.mass * v * v + 0.5 * self.stiffness * x * x
    }

    /// `b / 2m`.
    fn decay_rate(&self) -> f64 {
        self.damping / (2.0 * self.mass)
    }

    /// `(b/2m)² − k/m`: negative for oscillation, zero at critical damping.
    fn discriminant(&self) -> f64 {
        math::powi(self.decay_rate(), 2) - self.stiffness / self.mass
    }

    /// `e^(−γt)·C(t)` and `e^(−γt)·S(t)`, where `C(0) = 1, C'(0) = 0` and
    /// `S(0) = 0, S'(0) = 1` solve the undamped-by-γ equation; then
    /// `x = x₀ e^(−γt)C + (v₀ + γx₀) e^(−γt)S` and `C' = disc·S`, `S' = C`.
    fn basis(&self, t: f64) -> (f64, f64) {
        let gamma = self.decay_rate();
        let discriminant = self.discriminant();
        if discriminant < 0.0 {
            let omega = Float::sqrt(-discriminant);
            let envelope = math::exp(-gamma * t);
            let (sin, cos) = math::sin_cos(omega * t);
            (envelope * cos, envelope * sin / omega)
        } else if discriminant > 0.0 {
            let delta = Float::sqrt(discriminant);
            let slow = math::exp((delta - gamma) * t);
            let fast = math::exp(-(delta + gamma) * t);
            (
                0.5 * (slow + fast),
                slow * -math::exp_m1(-2.0 * delta * t) / (2.0 * delta),
            )
        } else {
            let envelope = math::exp(-gamma * t);
            (envelope, t * envelope)
        }
    }
}
