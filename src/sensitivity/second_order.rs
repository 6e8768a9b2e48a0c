//! [`Forward`] on a [`Particle`]: sensitivities of a second-order system `x'' = F(t, x, p)/m`,
//! for the methods that need positions and momenta apart (the Runge–Kutta–Nyström pairs,
//! the symplectic ones).

use super::{Augmented, Forward, Model, SensitivityError, WithRespectTo};
use crate::{Forces, Particle, SmallVector, Vector};
use num_traits::One;

/// Forward sensitivities of a particle: the [`Model`] is the force `F(t, x, p)` as a
/// function of the position alone (its `y` is the position), and the particle's
/// [`position`](Particle::position) and [`velocity`](Particle::velocity) are augmented
/// states (`[V; K]`): the position and velocity, then each sensitivity's.
///
/// A sensitivity `sᵢ = ∂x/∂θᵢ` of a particle of constant mass `m` moves by
///
/// ```text
/// m sᵢ'' = J_x sᵢ + ∂F/∂θᵢ,
/// ```
///
/// the variational equation of `m x'' = F`, again a force of positions alone. So the
/// augmented particle (the same mass, the position blocks `(x, s₁, …)`, the velocity blocks
/// `(x', s₁', …)`) is a particle under the force `(F, J_x s₁ + ∂F/∂θ₁, …)`, which is
/// [`Forward`]'s augmented rate with `y = x`: every method for particles steps it
/// unchanged, the [Nyström pairs](crate::Dprkn6) and the symplectic methods included. A
/// method whose step is the same map whatever the force (all but those that read the
/// force's Jacobian by finite differences) then gives exactly the derivatives of its
/// discrete map, as for first-order states. The mass is not a parameter (scale the force
/// by a parameter instead).
///
/// Error control measures every block, sensitivities included; the forces read positions
/// only ([`Forces::reads_momenta`] is `false`), as the Nyström pairs require.
///
/// # Example
///
/// A spring `m x'' = −k x` from `x = 1` at rest, `ω = √(k/m)`: `x = cos ωt`, so
/// `∂x/∂k = −t sin(ωt) / (2 m ω)`, and `∂x/∂v₀ = sin(ωt)/ω`.
///
/// ```
/// use timestep::sensitivity::{Forward, WithRespectTo};
/// use timestep::{Adaptive, Dprkn6, Particle, Tolerances};
///
/// let spring = |x: &f64, p: &[f64], _t: f64, force: &mut f64| *force = -p[0] * x;
/// // The parameter k, then the initial velocity (coordinate 1: after the position's one).
/// let forward = Forward::new(spring, [4.0], [WithRespectTo::Parameter(0), WithRespectTo::InitialValue(1)])?;
/// let mut particle: Particle<[f64; 3]> = forward.initial_particle(&Particle::new(1.0, 1.0, 0.0))?;
/// Adaptive::new(Dprkn6)
///     .with_tolerances(Tolerances::new(1e-12, 1e-12))
///     .solve(&mut particle, &forward, 0.0, 1.0)?;
/// let [x, by_k, by_v0] = particle.position();
/// assert!((x - 2f64.cos()).abs() < 1e-10);
/// assert!((by_k + 2f64.sin() / 4.0).abs() < 1e-10);
/// assert!((by_v0 - 2f64.sin() / 2.0).abs() < 1e-10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<V, M, P, W> Forward<V, M, P, W>
where
    V: SmallVector,
    M: Model<V>,
    P: AsRef<[<V as Vector>::Scalar]> + AsMut<[<V as Vector>::Scalar]> + Clone,
    W: AsRef<[WithRespectTo]>,
{
    /// The augmented particle at the start: `particle`'s mass, position and velocity, then
    /// each sensitivity's initial position and velocity. For a particle of `n` coordinates,
    /// [`WithRespectTo::InitialValue`]`(j)` is the initial position's coordinate `j` for
    /// `j < n` (`sᵢ(0) = e_j`, `sᵢ'(0) = 0`) and the initial velocity's coordinate `j − n`
    /// for `n ≤ j < 2n` (`sᵢ(0) = 0`, `sᵢ'(0) = e_{j−n}`); a parameter's sensitivity starts
    /// at rest at zero.
    ///
    /// # Errors
    ///
    /// [`SensitivityError::InitialValueOutOfRange`] for `j ≥ 2n` (its `dim` is `2n`);
    /// [`SensitivityError::BlockCount`] for an array of the wrong number of blocks.
    pub fn initial_particle<A>(
        &self,
        particle: &Particle<V>,
    ) -> Result<Particle<A>, SensitivityError>
    where
        A: Augmented<Block = V, Scalar = <V as Vector>::Scalar>
            + SmallVector<Scalar = <V as Vector>::Scalar>,
    {
        let count = self.with_respect_to().len();
        let mut position = A::stack(particle.position(), count)?;
        let mut velocity = A::stack(particle.velocity(), count)?;
        let n = particle.position().dim();
        let wrt = self.with_respect_to().iter().enumerate();
        for (i, &wrt) in wrt {
            if let WithRespectTo::InitialValue(j) = wrt {
                match j {
                    j if j < n => {
                        position.blocks_mut()[1 + i].set_component(j, <V as Vector>::Scalar::one())
                    }
                    j if j < 2 * n => {
                        velocity.blocks_mut()[1 + i]
                            .set_component(j - n, <V as Vector>::Scalar::one());
                    }
                    index => {
                        return Err(SensitivityError::InitialValueOutOfRange { index, dim: 2 * n });
                    }
                }
            }
        }
        // The particle's own mass, and velocities of the particle's or 0 and 1: accepted.
        Ok(Particle::try_new(particle.mass(), position, velocity)
            .expect("the particle's mass, velocities of 0, 1 or the particle's"))
    }
}

impl<A, V, M, P, W> Forces<Particle<A>> for Forward<V, M, P, W>
where
    A: Augmented<Block = V, Scalar = V::Scalar> + SmallVector<Scalar = V::Scalar>,
    V: Vector,
    M: Model<V>,
    P: AsRef<[V::Scalar]> + AsMut<[V::Scalar]> + Clone,
    W: AsRef<[WithRespectTo]>,
{
    /// `(F(t, x, p), J_x s₁ + ∂F/∂θ₁, …)` at the particle's position blocks `(x, s₁, …)`.
    #[inline]
    fn force(&self, particle: &Particle<A>, t: V::Scalar) -> A {
        let mut out = A::zero();
        Forces::<A>::force_into(self, &particle.position(), t, &mut out);
        out
    }

    #[inline(always)]
    fn reads_momenta(&self) -> bool {
        false
    }
}
