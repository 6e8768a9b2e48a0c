//! [`Dprkn6`]: Dormand and Prince's Runge–Kutta–Nyström pair of orders 6 and 4.
// The coefficients keep 17 significant digits, the closed forms' values.
#![allow(clippy::excessive_precision)]

use super::pair::{Nystrom, NystromDense, NystromPair};
use crate::control::{Controller, IntoAdaptive};

/// DPRKN6: Dormand and Prince's six-stage Runge–Kutta–Nyström pair of orders 6(4) for
/// `x'' = f(t, x)`, with a sixth-order continuous extension at no extra evaluation.
///
/// ```text
/// xᵢ = x₀ + cᵢ h v₀ + h² Σⱼ aᵢⱼ fⱼ        fᵢ = f(t + cᵢ h, xᵢ)
/// x₁ = x₀ + h v₀ + h² Σᵢ bᵢ fᵢ,           v₁ = v₀ + h Σᵢ b'ᵢ fᵢ
/// ```
///
/// Its last stage is the end's position (`c₆ = 1`, row 6 of `a` is `b`), whose force is the
/// next step's first ("first same as last"): five force evaluations a step, against six
/// for Dormand–Prince 5(4) on the same problem written first order, for one order more.
///
/// Coefficients: J. R. Dormand, P. J. Prince, "New Runge–Kutta algorithms for numerical
/// simulation in dynamical astronomy", Celestial Mechanics 18 (1978) 223–232, in their
/// closed forms with `√8581` (E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary
/// Differential Equations I, 2nd ed., II.14), evaluated to 17 digits; the continuous
/// extension's polynomials as J. R. Dormand, M. E. A. El-Mikkawy, P. J. Prince, "Families
/// of Runge–Kutta–Nyström formulae", IMA J. Numer. Anal. 7 (1987) 235–250, give them for
/// this pair. Their orders are measured in `tests/timestep/integrators/nystrom.rs` (6 for
/// the step, 4 for the error estimate, 6 for the dense output).
///
/// - **Forces**: of the positions and time alone. Forces that depend on velocities
///   (drag, magnetism) break the method's assumptions and its order; use
///   [`Dopri5`](crate::Dopri5) or [`Dop853`](crate::Dop853) for them.
/// - **States**: second-order states whose velocity is linear in the momentum at fixed
///   positions ([`Particle`](crate::Particle), [`Particles`](crate::Particles), a chain of
///   positions and momenta). A first-order state (no velocity part) is refused
///   ([`StepError::NotSecondOrder`](crate::StepError::NotSecondOrder)). A rigid body's
///   velocity depends on its orientation too, and its order drops.
///
/// # Example
///
/// Kepler's orbit at eccentricity 0.5 for one period: back where it started.
///
/// ```
/// use glam::DVec2;
/// use timestep::adaptive::Adaptive;
/// use timestep::{Dprkn6, Particle, Tolerances};
///
/// let gravity = |p: &Particle<DVec2>, _t: f64| -p.position() / p.position().length().powi(3);
/// // Perihelion at 0.5 with the speed of an orbit of semi-major axis 1.
/// let mut planet = Particle::new(1.0, DVec2::new(0.5, 0.0), DVec2::new(0.0, 3.0_f64.sqrt()));
/// let period = 2.0 * std::f64::consts::PI;
/// let statistics = Adaptive::new(Dprkn6)
///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
///     .solve(&mut planet, &gravity, 0.0, period)?;
/// assert!((planet.position() - DVec2::new(0.5, 0.0)).length() < 1e-8);
/// // Five evaluations a step, and one for the first step's start.
/// assert_eq!(statistics.evaluations, 5 * statistics.steps() + 2);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Dprkn6;

impl Dprkn6 {
    /// The pair's coefficients.
    pub const PAIR: NystromPair<6> = NystromPair {
        name: "dprkn6",
        order: 6,
        embedded_order: 4,
        c: [
            0.0,
            0.12929590313670442,
            0.25859180627340883,
            0.67029708261548006,
            0.9,
            1.0,
        ],
        a: [
            [0.0; 6],
            [0.0083587152839680253, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                0.011144953711957367,
                0.022289907423914734,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                0.14547474280109179,
                -0.22986064052264747,
                0.30903498720296754,
                0.0,
                0.0,
                0.0,
            ],
            [
                -0.20766826295078995,
                0.68636678429251431,
                -0.19954927787234925,
                0.12585075653062489,
                0.0,
                0.0,
            ],
            [
                0.078110161443494777,
                0.0,
                0.28829174118976678,
                0.12242553717457041,
                0.011172560192168035,
                0.0,
            ],
        ],
        b: [
            0.078110161443494777,
            0.0,
            0.28829174118976678,
            0.12242553717457041,
            0.011172560192168035,
            0.0,
        ],
        b_velocity: [
            0.078110161443494777,
            0.0,
            0.3888434787059826,
            0.37132075792884227,
            0.11172560192168035,
            0.05,
        ],
        error: [
            -0.9807490989269235,
            2.4067513719244521,
            -1.559600370364267,
            0.12242553717457041,
            0.011172560192168035,
            0.0,
        ],
        error_velocity: [
            0.023504273504273504,
            0.0,
            -0.072423307197644242,
            0.17543989844952961,
            -0.27652086475615887,
            0.15,
        ],
        dense: Some(NystromDense {
            position: [
                [
                    0.5,
                    -1.245014245014245,
                    1.5161443494776828,
                    -0.9066951566951567,
                    0.21367521367521368,
                ],
                [0.0; 5],
                [
                    0.0,
                    1.9859371988705032,
                    -3.5776528722949209,
                    2.5384011164109504,
                    -0.65839370179676583,
                ],
                [
                    0.0,
                    -1.8559358276926614,
                    5.5475867510523291,
                    -5.1641335539080937,
                    1.5949081677229965,
                ],
                [
                    0.0,
                    2.1786492374727669,
                    -6.9269873191441819,
                    7.273336685101391,
                    -2.5138260432378079,
                ],
                [
                    0.0,
                    -1.0636363636363636,
                    3.4409090909090909,
                    -3.7409090909090909,
                    1.3636363636363636,
                ],
            ],
            velocity: [
                [
                    1.0,
                    -3.735042735042735,
                    6.0645773979107312,
                    -4.5334757834757835,
                    1.2820512820512821,
                ],
                [0.0; 5],
                [
                    0.0,
                    5.9578115966115096,
                    -14.310611489179684,
                    12.692005582054752,
                    -3.950362210780595,
                ],
                [
                    0.0,
                    -5.5678074830779843,
                    22.190347004209316,
                    -25.820667769540469,
                    9.5694490063379788,
                ],
                [
                    0.0,
                    6.5359477124183007,
                    -27.707949276576728,
                    36.366683425506955,
                    -15.082956259426848,
                ],
                [
                    0.0,
                    -3.1909090909090909,
                    13.763636363636364,
                    -18.704545454545455,
                    8.1818181818181818,
                ],
            ],
        }),
        controller: Controller::DOPRI5,
    };
}

impl IntoAdaptive for Dprkn6 {
    type Method = Nystrom<6>;

    fn into_adaptive(self) -> Nystrom<6> {
        Nystrom(&Dprkn6::PAIR)
    }
}
