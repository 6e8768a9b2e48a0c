//! [`Stepper`]: a method with the workspace it keeps between steps.

use super::{Integrator, Scheme, should_step};
use crate::{Forces, State, StepError};
use core::fmt;

/// A method together with its workspace, kept from one step to the next.
///
/// The workspace (stage values, probe states, matrices, and what a method with a history
/// remembers) is made from the state on the first step, or up front with
/// [`for_state`](Stepper::for_state); after that no step allocates, whatever the state's
/// size. Use a stepper for states sized at run time (`Vec<f64>`, `Vec<DVec3>`, nalgebra's
/// `DVector`, your own struct of `Vec`s), for methods with a history
/// ([`PositionVerlet`](crate::PositionVerlet)), and wherever a method chosen by name is
/// stepped ([`Method`](crate::Method) is a stepper).
///
/// A stepper belongs to one trajectory: give each state its own. After resizing a state or
/// moving it by hand, call [`reset`](Stepper::reset).
///
/// # Memory
///
/// The workspace holds the state's rate (velocity and force buffers) once per stage, plus
/// one or two probe states; see the crate docs' table "Small states and large states".
///
/// # Example
///
/// Ten thousand coupled unknowns (a discretised heat equation, `u′ᵢ = uᵢ₋₁ − 2uᵢ + uᵢ₊₁`)
/// stepped by RK4, with the stage buffers made once:
///
/// ```
/// use timestep::{InPlace, Integrator, Rk4, Stepper};
///
/// let laplacian = InPlace(|u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
///     let n = u.len();
///     for i in 0..n {
///         let left = if i > 0 { u[i - 1] } else { 0.0 };
///         let right = if i + 1 < n { u[i + 1] } else { 0.0 };
///         du[i] = left - 2.0 * u[i] + right;
///     }
/// });
/// let mut u = vec![1.0; 10_000];
/// let mut rk4 = Stepper::for_state(Rk4, &u);
/// for i in 0..100 {
///     rk4.step(&mut u, &laplacian, i as f64 * 0.1, 0.1)?;
/// }
/// // Heat flows out through the ends; the middle has not felt it yet.
/// assert!(u[0] < 0.5 && (u[5000] - 1.0).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
pub struct Stepper<M: Scheme, S: State> {
    method: M,
    workspace: Option<M::Workspace<S>>,
    /// A workspace loaded with serde, to be checked against the one the method makes for
    /// the state of the first step.
    #[cfg(all(feature = "serde", feature = "alloc"))]
    loaded: Option<Loaded<M::Workspace<S>>>,
}

impl<M: Scheme, S: State> Stepper<M, S> {
    /// A stepper for `method` whose workspace is made on the first step.
    #[must_use]
    pub const fn new(method: M) -> Self {
        Stepper {
            method,
            workspace: None,
            #[cfg(all(feature = "serde", feature = "alloc"))]
            loaded: None,
        }
    }

    /// A stepper for `method` with its workspace made now, for states of the size of
    /// `template`, so that not even the first step allocates.
    #[must_use]
    pub fn for_state(method: M, template: &S) -> Self {
        let workspace = Some(method.workspace(template));
        Stepper {
            method,
            workspace,
            #[cfg(all(feature = "serde", feature = "alloc"))]
            loaded: None,
        }
    }

    /// The method.
    #[must_use]
    pub fn method(&self) -> &M {
        &self.method
    }

    /// Forgets the workspace, and with it any history: the next step starts afresh (and
    /// makes a new workspace, sized from the state it is given).
    pub fn reset(&mut self) {
        self.workspace = None;
        #[cfg(all(feature = "serde", feature = "alloc"))]
        {
            self.loaded = None;
        }
    }

    /// The workspace, once a step (or [`for_state`](Stepper::for_state)) has made it, or
    /// the stepper was loaded with one.
    #[must_use]
    pub fn workspace(&self) -> Option<&M::Workspace<S>> {
        #[cfg(all(feature = "serde", feature = "alloc"))]
        if let Some(loaded) = &self.loaded {
            return Some(&loaded.workspace);
        }
        self.workspace.as_ref()
    }
}

impl<M: Scheme, S: State> Integrator<S> for Stepper<M, S> {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            #[cfg(all(feature = "serde", feature = "alloc"))]
            let mut fits = true;
            let Stepper {
                method,
                workspace,
                #[cfg(all(feature = "serde", feature = "alloc"))]
                loaded,
            } = self;
            let workspace = workspace.get_or_insert_with(|| {
                #[cfg(all(feature = "serde", feature = "alloc"))]
                if let Some(loaded) = loaded.take() {
                    return loaded.check(method.workspace(state), &mut fits);
                }
                method.workspace(state)
            });
            #[cfg(all(feature = "serde", feature = "alloc"))]
            if !fits {
                return Err(StepError::WorkspaceMismatch);
            }
            method.advance(workspace, state, forces, t, dt)?;
        }
        Ok(())
    }
}

impl<M: Scheme + Default, S: State> Default for Stepper<M, S> {
    fn default() -> Self {
        Stepper::new(M::default())
    }
}

impl<M: Scheme + Clone, S: State> Clone for Stepper<M, S>
where
    M::Workspace<S>: Clone,
{
    fn clone(&self) -> Self {
        Stepper {
            method: self.method.clone(),
            workspace: self.workspace.clone(),
            #[cfg(all(feature = "serde", feature = "alloc"))]
            loaded: self.loaded.clone(),
        }
    }
}

impl<M: Scheme + fmt::Debug, S: State> fmt::Debug for Stepper<M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stepper")
            .field("method", &self.method)
            .field("has_workspace", &self.workspace.is_some())
            .finish()
    }
}

/// Prints the method.
impl<M: Scheme + fmt::Display, S: State> fmt::Display for Stepper<M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.method.fmt(f)
    }
}

/// Parses the method; the workspace is made on the first step.
impl<M: Scheme + core::str::FromStr, S: State> core::str::FromStr for Stepper<M, S> {
    type Err = M::Err;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        name.parse().map(Stepper::new)
    }
}

/// Two steppers are equal when their methods are: the workspace is a run's memory, not a
/// setting.
impl<M: Scheme + PartialEq, S: State> PartialEq for Stepper<M, S> {
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method
    }
}

/// A stepper without a workspace is saved as its method alone (a method's settings, as
/// in a configuration file: `"rk4"`), one with a workspace as
/// `{"method": …, "workspace": …}`: the workspace's numbers, the history of a method that
/// has one (position Verlet's last step, Beeman's and Adams–Bashforth–Moulton's past
/// forces, an implicit method's kept matrix and its LU factors), so that a loaded stepper
/// goes on bit for bit as the one saved. Both load; a loaded workspace is checked on the
/// first step against the one the method makes for the state it is given (its size, the
/// method, the matrices' structure) and refused with [`StepError::WorkspaceMismatch`] if it
/// does not fit. (Without the feature `alloc`, a stepper is saved and loaded as its method
/// alone.)
#[cfg(all(feature = "serde", feature = "alloc"))]
impl<M: Scheme + serde::Serialize, S: State> serde::Serialize for Stepper<M, S>
where
    M::Workspace<S>: serde::Serialize,
{
    fn serialize<Se: serde::Serializer>(&self, serializer: Se) -> Result<Se::Ok, Se::Error> {
        match self.workspace() {
            Some(workspace) => WithWorkspace {
                method: &self.method,
                workspace,
            }
            .serialize(serializer),
            None => self.method.serialize(serializer),
        }
    }
}

#[cfg(all(feature = "serde", feature = "alloc"))]
impl<'de, M: Scheme + serde::Deserialize<'de>, S: State> serde::Deserialize<'de> for Stepper<M, S>
where
    M::Workspace<S>: serde::Deserialize<'de> + serde::Serialize,
{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Saved::deserialize(deserializer)? {
            Saved::Method(method) => Stepper::new(method),
            Saved::WithWorkspace(WithWorkspace { method, workspace }) => Stepper {
                method,
                workspace: None,
                loaded: Some(Loaded {
                    workspace: alloc::boxed::Box::new(workspace),
                    same_shape: same_shape::<M::Workspace<S>>,
                }),
            },
        })
    }
}

/// A stepper with its workspace, as saved.
#[cfg(all(feature = "serde", feature = "alloc"))]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WithWorkspace<M, W> {
    method: M,
    workspace: W,
}

/// Either form of a saved stepper.
#[cfg(all(feature = "serde", feature = "alloc"))]
#[derive(serde::Deserialize)]
#[serde(untagged, rename = "Stepper (a method, or {method, workspace})")]
enum Saved<M, W> {
    WithWorkspace(WithWorkspace<M, W>),
    Method(M),
}

/// A loaded workspace and how to check it against a fresh one, made where the workspace
/// is known to serialize (which stepping does not require).
#[cfg(all(feature = "serde", feature = "alloc"))]
#[derive(Clone)]
struct Loaded<W> {
    workspace: alloc::boxed::Box<W>,
    same_shape: fn(&W, &W) -> bool,
}

#[cfg(all(feature = "serde", feature = "alloc"))]
impl<W> Loaded<W> {
    /// The loaded workspace if it has the shape of `fresh` (the one the method makes for
    /// the state to step), otherwise `fresh`, and `fits` cleared.
    #[cold]
    #[inline(never)]
    fn check(self, fresh: W, fits: &mut bool) -> W {
        if (self.same_shape)(&fresh, &self.workspace) {
            *self.workspace
        } else {
            *fits = false;
            fresh
        }
    }
}

/// Whether two workspaces have the same shape ([`crate::saved::shape`]).
#[cfg(all(feature = "serde", feature = "alloc"))]
fn same_shape<W: serde::Serialize>(fresh: &W, loaded: &W) -> bool {
    use crate::saved::shape;
    matches!((shape(fresh), shape(loaded)), (Ok(a), Ok(b)) if a == b)
}

/// Without `alloc`, a stepper is saved as its method alone, and a loaded one starts
/// afresh.
#[cfg(all(feature = "serde", not(feature = "alloc")))]
impl<M: Scheme + serde::Serialize, S: State> serde::Serialize for Stepper<M, S> {
    fn serialize<Se: serde::Serializer>(&self, serializer: Se) -> Result<Se::Ok, Se::Error> {
        self.method.serialize(serializer)
    }
}

#[cfg(all(feature = "serde", not(feature = "alloc")))]
impl<'de, M: Scheme + serde::Deserialize<'de>, S: State> serde::Deserialize<'de> for Stepper<M, S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        M::deserialize(deserializer).map(Stepper::new)
    }
}
