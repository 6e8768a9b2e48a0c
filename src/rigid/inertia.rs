//! [`Inertia`]: the body's inertia tensor, checked once, with its inverse and principal axes.

use super::eigen::symmetric_eigen;
use crate::MassError;
use crate::error::Number;
use core::fmt;
use glam::{DMat3, DQuat, DVec3};

/// The inertia tensor of a rigid body about its centre of mass, in body coordinates (kg·m²).
///
/// It relates angular momentum and angular velocity in the body frame, `L = I ω`. The
/// tensor is a symmetric 3×3 matrix; on its principal axes it is diagonal, with the
/// **principal moments** on the diagonal. A tensor is accepted when it could belong to a
/// real body: finite, positive definite (every principal moment positive), and obeying the
/// triangle inequality (no principal moment exceeds the sum of the other two, because
/// `I₁ + I₂ − I₃ = 2∫z² dm ≥ 0` on principal axes). Anything else is refused with an
/// [`InertiaError`] that says what was wrong.
///
/// The constructors are for solid bodies of uniform density, centred on the origin and
/// aligned with the body axes. Each comes as a `try_` form returning `Result` and a
/// panicking form whose message is the error's. Values are `f64` whatever the body's
/// precision: a [`RigidBody`](super::RigidBody) rounds them to `f32` once, when it is made.
///
/// The inverse tensor and the principal axes are computed once, here: the principal axes
/// by Jacobi rotations (exact, and the identity, when the tensor is already diagonal).
///
/// # Example
///
/// ```
/// use timestep::rigid::{Inertia, InertiaError};
/// use glam::DVec3;
///
/// // The article's cube: 1 kg, 1 m sides, I = ⅙ m s² about every axis.
/// let cube = Inertia::cube(1.0, 1.0);
/// assert_eq!(cube.principal_moments(), DVec3::splat(1.0 / 6.0));
///
/// // A tensor no body has: 5 > 1 + 2.
/// let impossible = Inertia::try_diagonal(1.0, 2.0, 5.0);
/// assert!(matches!(impossible, Err(InertiaError::Impossible { .. })));
/// ```
///
/// # Near-degenerate tensors are accepted
///
/// A tensor at the edge of what a body can have, such as `diag(10⁻¹², 1, 1)` (a thin rod:
/// one moment tiny, the other two equal), is accepted: it is valid. But any angular
/// momentum across the thin axis spins the body about it at `|L| / I_min`, 10¹² times
/// faster than the same `L` turns it about the others, and no method follows that at an
/// ordinary `dt`. Spun at `ω = (1, 1, 1)` rad/s and stepped torque-free at 60 Hz for one
/// second, its kinetic energy reaches 3000 times what it was with [`Rk4`](crate::Rk4)
/// and about 3 times with [`Splitting`](super::Splitting) (3.4 with glibc's sine, 2.7 with
/// libm's under `deterministic`: its turns of up to 10¹⁰ rad a step keep no digit of the
/// angle, so the last bits of the sine decide; `tests/timestep/nothing_silent.rs` measures
/// it). Either resolve the fast spin (`dt` well below `I_min / |L|`) or, if it does not
/// matter, give the tensor a less extreme smallest moment (game engines commonly keep
/// every moment above a thousandth of the largest).
///
/// With the `serde` feature it serializes as the six entries of its tensor,
/// `{"ixx", "iyy", "izz", "ixy", "ixz", "iyz"}` (the last three may be left out when they
/// are zero), and deserializes through [`try_symmetric`](Inertia::try_symmetric), so a
/// tensor no body has is refused there too:
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use timestep::rigid::Inertia;
///
/// let plate: Inertia = serde_json::from_str(r#"{"ixx":1.0,"iyy":2.0,"izz":3.0}"#)?;
/// assert_eq!(plate, Inertia::diagonal(1.0, 2.0, 3.0));
/// assert!(serde_json::from_str::<Inertia>(r#"{"ixx":1.0,"iyy":2.0,"izz":5.0}"#).is_err());
/// # }
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertia {
    tensor: DMat3,
    inverse: DMat3,
    principal_moments: DVec3,
    principal_axes: DMat3,
}

impl Inertia {
    /// A solid cube of `mass` and side `size`: `⅙ m s²` about every axis through its centre.
    ///
    /// # Panics
    ///
    /// When [`try_cube`](Inertia::try_cube) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn cube(mass: f64, size: f64) -> Self {
        unwrap(Self::try_cube(mass, size))
    }

    /// A solid cube of `mass` and side `size`, or why not: a mass that is zero, negative or
    /// not finite ([`InertiaError::Mass`]), a size that is zero, negative or not finite
    /// ([`InertiaError::Dimension`]), or a tensor outside the range of `f64`.
    ///
    /// ```
    /// use timestep::rigid::{Inertia, InertiaError};
    ///
    /// assert!(Inertia::try_cube(6.0, 1.0).is_ok());
    /// assert_eq!(
    ///     Inertia::try_cube(1.0, -2.0).unwrap_err().to_string(),
    ///     "cube size must be finite and positive, got -2"
    /// );
    /// assert!(matches!(Inertia::try_cube(f64::NAN, 1.0), Err(InertiaError::Mass(_))));
    /// ```
    pub fn try_cube(mass: f64, size: f64) -> Result<Self, InertiaError> {
        MassError::check(mass)?;
        dimension("cube size", size)?;
        let moment = mass * size * size / 6.0;
        Self::try_diagonal(moment, moment, moment)
    }

    /// A solid rectangular box ("cuboid") of `mass` with sides `x`, `y`, `z` along the body
    /// axes: `I_x = m(y² + z²)/12`, `I_y = m(x² + z²)/12`, `I_z = m(x² + y²)/12`.
    ///
    /// # Panics
    ///
    /// When [`try_cuboid`](Inertia::try_cuboid) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn cuboid(mass: f64, x: f64, y: f64, z: f64) -> Self {
        unwrap(Self::try_cuboid(mass, x, y, z))
    }

    /// A solid box of `mass` with sides `x`, `y`, `z`, or why not: a mass or side that is
    /// zero, negative or not finite, or a tensor outside the range of `f64`.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DVec3;
    ///
    /// let brick = Inertia::try_cuboid(12.0, 1.0, 2.0, 3.0)?;
    /// assert_eq!(brick.principal_moments(), DVec3::new(13.0, 10.0, 5.0));
    /// assert!(Inertia::try_cuboid(12.0, 1.0, 0.0, 3.0).is_err());
    /// # Ok::<(), timestep::rigid::InertiaError>(())
    /// ```
    pub fn try_cuboid(mass: f64, x: f64, y: f64, z: f64) -> Result<Self, InertiaError> {
        MassError::check(mass)?;
        dimension("cuboid side x", x)?;
        dimension("cuboid side y", y)?;
        dimension("cuboid side z", z)?;
        let (x2, y2, z2) = (x * x, y * y, z * z);
        let m = mass / 12.0;
        Self::try_diagonal(m * (y2 + z2), m * (x2 + z2), m * (x2 + y2))
    }

    /// A solid sphere of `mass` and `radius`: `⅖ m r²` about every axis through its centre.
    ///
    /// # Panics
    ///
    /// When [`try_sphere`](Inertia::try_sphere) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn sphere(mass: f64, radius: f64) -> Self {
        unwrap(Self::try_sphere(mass, radius))
    }

    /// A solid sphere of `mass` and `radius`, or why not: a mass or radius that is zero,
    /// negative or not finite, or a tensor outside the range of `f64`.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DVec3;
    ///
    /// assert_eq!(Inertia::try_sphere(5.0, 1.0)?.principal_moments(), DVec3::splat(2.0));
    /// assert!(Inertia::try_sphere(5.0, f64::INFINITY).is_err());
    /// # Ok::<(), timestep::rigid::InertiaError>(())
    /// ```
    pub fn try_sphere(mass: f64, radius: f64) -> Result<Self, InertiaError> {
        MassError::check(mass)?;
        dimension("sphere radius", radius)?;
        let moment = 0.4 * mass * radius * radius;
        Self::try_diagonal(moment, moment, moment)
    }

    /// A solid cylinder of `mass`, `radius` and `height`, its axis along body `y` (up, as
    /// in the articles): `I_y = ½ m r²` and `I_x = I_z = m(3r² + h²)/12`.
    ///
    /// # Panics
    ///
    /// When [`try_cylinder`](Inertia::try_cylinder) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn cylinder(mass: f64, radius: f64, height: f64) -> Self {
        unwrap(Self::try_cylinder(mass, radius, height))
    }

    /// A solid cylinder of `mass`, `radius` and `height` along body `y`, or why not: a mass
    /// or dimension that is zero, negative or not finite, or a tensor outside the range of
    /// `f64`.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DVec3;
    ///
    /// let can = Inertia::try_cylinder(12.0, 1.0, 2.0)?;
    /// assert_eq!(can.principal_moments(), DVec3::new(7.0, 6.0, 7.0));
    /// assert!(Inertia::try_cylinder(12.0, 1.0, -2.0).is_err());
    /// # Ok::<(), timestep::rigid::InertiaError>(())
    /// ```
    pub fn try_cylinder(mass: f64, radius: f64, height: f64) -> Result<Self, InertiaError> {
        MassError::check(mass)?;
        dimension("cylinder radius", radius)?;
        dimension("cylinder height", height)?;
        let across = mass * (3.0 * radius * radius + height * height) / 12.0;
        Self::try_diagonal(across, 0.5 * mass * radius * radius, across)
    }

    /// The tensor with principal moments `ixx`, `iyy`, `izz` about the body axes.
    ///
    /// # Panics
    ///
    /// When [`try_diagonal`](Inertia::try_diagonal) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn diagonal(ixx: f64, iyy: f64, izz: f64) -> Self {
        unwrap(Self::try_diagonal(ixx, iyy, izz))
    }

    /// The tensor `diag(ixx, iyy, izz)`, or why not: a moment that is not finite, zero or
    /// negative, or one that exceeds the sum of the other two.
    ///
    /// ```
    /// use timestep::rigid::{Inertia, InertiaError};
    ///
    /// assert!(Inertia::try_diagonal(1.0, 2.0, 3.0).is_ok()); // 3 = 1 + 2: a flat plate
    /// assert!(matches!(
    ///     Inertia::try_diagonal(1.0, 0.0, 1.0),
    ///     Err(InertiaError::NotPositive { .. })
    /// ));
    /// assert!(matches!(
    ///     Inertia::try_diagonal(1.0, f64::NAN, 1.0),
    ///     Err(InertiaError::NotFinite { entry: "iyy", .. })
    /// ));
    /// ```
    pub fn try_diagonal(ixx: f64, iyy: f64, izz: f64) -> Result<Self, InertiaError> {
        Self::try_symmetric(ixx, iyy, izz, 0.0, 0.0, 0.0)
    }

    /// The symmetric tensor with diagonal `ixx`, `iyy`, `izz` and off-diagonal entries
    /// `ixy`, `ixz`, `iyz`.
    ///
    /// # Panics
    ///
    /// When [`try_symmetric`](Inertia::try_symmetric) returns an error, with its message.
    #[track_caller]
    #[must_use]
    pub fn symmetric(ixx: f64, iyy: f64, izz: f64, ixy: f64, ixz: f64, iyz: f64) -> Self {
        unwrap(Self::try_symmetric(ixx, iyy, izz, ixy, ixz, iyz))
    }

    /// The general symmetric tensor
    ///
    /// ```text
    /// | ixx ixy ixz |
    /// | ixy iyy iyz |
    /// | ixz iyz izz |
    /// ```
    ///
    /// or why not. The entries are the tensor's own: the off-diagonal ones are the
    /// *negated* products of inertia, `ixy = −∫ x y dm`. The tensor is diagonalized (Jacobi
    /// rotations) and refused when an entry is not finite ([`InertiaError::NotFinite`]), a
    /// principal moment is zero or negative ([`InertiaError::NotPositive`]), one exceeds
    /// the sum of the other two ([`InertiaError::Impossible`]), or its inverse overflows
    /// ([`InertiaError::OutOfRange`]).
    ///
    /// ```
    /// use timestep::rigid::{Inertia, InertiaError};
    /// use glam::{DMat3, DQuat, DVec3};
    ///
    /// // diag(1, 2, 3) turned 30° about z, written out in body axes.
    /// let (s, c) = 30.0_f64.to_radians().sin_cos();
    /// let turned = Inertia::try_symmetric(
    ///     c * c + 2.0 * s * s, s * s + 2.0 * c * c, 3.0, c * s - 2.0 * s * c, 0.0, 0.0,
    /// )?;
    /// let mut moments = turned.principal_moments().to_array();
    /// moments.sort_by(f64::total_cmp);
    /// assert!(DVec3::from(moments).abs_diff_eq(DVec3::new(1.0, 2.0, 3.0), 1e-15));
    ///
    /// assert!(matches!(
    ///     Inertia::try_symmetric(1.0, 1.0, 1.0, 2.0, 0.0, 0.0), // eigenvalues 3, −1, 1
    ///     Err(InertiaError::NotPositive { .. })
    /// ));
    /// # Ok::<(), InertiaError>(())
    /// ```
    pub fn try_symmetric(
        ixx: f64,
        iyy: f64,
        izz: f64,
        ixy: f64,
        ixz: f64,
        iyz: f64,
    ) -> Result<Self, InertiaError> {
        Self::try_symmetric_within([ixx, iyy, izz, ixy, ixz, iyz], f64::EPSILON)
    }

    /// The symmetric tensor `m` (its upper triangle is read), checked as by
    /// [`try_symmetric`](Inertia::try_symmetric) but allowing its entries to be rounded to a
    /// precision of machine epsilon `epsilon`: a flat body's largest moment, the sum of the
    /// other two, may exceed that sum by a few `epsilon` of the trace once rounded to `f32`.
    pub(crate) fn try_from_tensor(m: DMat3, epsilon: f64) -> Result<Self, InertiaError> {
        let [c0, c1, c2] = m.to_cols_array_2d();
        Self::try_symmetric_within([c0[0], c1[1], c2[2], c1[0], c2[0], c2[1]], epsilon)
    }

    /// [`try_symmetric`](Inertia::try_symmetric) with the triangle inequality allowed
    /// `8 epsilon` of the trace for rounding.
    fn try_symmetric_within(
        [ixx, iyy, izz, ixy, ixz, iyz]: [f64; 6],
        epsilon: f64,
    ) -> Result<Self, InertiaError> {
        let entries = [
            ("ixx", ixx),
            ("iyy", iyy),
            ("izz", izz),
            ("ixy", ixy),
            ("ixz", ixz),
            ("iyz", iyz),
        ];
        for (entry, value) in entries {
            if !value.is_finite() {
                return Err(InertiaError::NotFinite { entry, value });
            }
        }
        let rows = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]];
        let (moments, axes) = symmetric_eigen(rows);
        check_moments(moments, epsilon)?;
        let principal_axes = DMat3::from_cols_array_2d(&axes).transpose();
        let principal_moments = DVec3::from_array(moments);
        let inverse = principal_axes
            * DMat3::from_diagonal(principal_moments.recip())
            * principal_axes.transpose();
        if !inverse.is_finite() {
            return Err(InertiaError::OutOfRange {
                moments,
                precision: "f64",
            });
        }
        Ok(Inertia {
            tensor: DMat3::from_cols_array_2d(&rows),
            inverse: symmetrize(inverse),
            principal_moments,
            principal_axes,
        })
    }

    /// The tensor `I`, in body coordinates.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::{DMat3, DVec3};
    ///
    /// let tensor = Inertia::diagonal(1.0, 2.0, 3.0).tensor();
    /// assert_eq!(tensor, DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0)));
    /// ```
    #[must_use]
    pub fn tensor(&self) -> DMat3 {
        self.tensor
    }

    /// The inverse tensor `I⁻¹`, in body coordinates.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DMat3;
    ///
    /// let inertia = Inertia::symmetric(2.0, 3.0, 4.0, 0.5, -0.25, 0.1);
    /// let product = inertia.tensor() * inertia.inverse();
    /// assert!(product.abs_diff_eq(DMat3::IDENTITY, 1e-15));
    /// ```
    #[must_use]
    pub fn inverse(&self) -> DMat3 {
        self.inverse
    }

    /// The principal moments, in the order of the columns of
    /// [`principal_axes`](Inertia::principal_axes) (for a diagonal tensor: its diagonal).
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DVec3;
    ///
    /// let moments = Inertia::diagonal(1.0, 2.0, 3.0).principal_moments();
    /// assert_eq!(moments, DVec3::new(1.0, 2.0, 3.0));
    /// ```
    #[must_use]
    pub fn principal_moments(&self) -> DVec3 {
        self.principal_moments
    }

    /// The principal axes, as the columns of a rotation matrix `P` (orthonormal,
    /// `det P = +1`) with `I = P diag(principal moments) Pᵀ`: `P` takes principal
    /// coordinates to body coordinates. The identity for a diagonal tensor.
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DMat3;
    ///
    /// let inertia = Inertia::symmetric(2.0, 3.0, 4.0, 0.5, -0.25, 0.1);
    /// let p = inertia.principal_axes();
    /// let diagonal = DMat3::from_diagonal(inertia.principal_moments());
    /// assert!((p * diagonal * p.transpose()).abs_diff_eq(inertia.tensor(), 1e-14));
    /// assert!((p.determinant() - 1.0).abs() < 1e-14);
    /// ```
    #[must_use]
    pub fn principal_axes(&self) -> DMat3 {
        self.principal_axes
    }

    /// The principal axes as a unit quaternion: the rotation from principal coordinates to
    /// body coordinates, the same as [`principal_axes`](Inertia::principal_axes).
    ///
    /// ```
    /// use timestep::rigid::Inertia;
    /// use glam::DQuat;
    ///
    /// assert_eq!(Inertia::cube(1.0, 1.0).principal_rotation(), DQuat::IDENTITY);
    /// ```
    #[must_use]
    pub fn principal_rotation(&self) -> DQuat {
        DQuat::from_mat3(&self.principal_axes).normalize()
    }
}

fn unwrap(result: Result<Inertia, InertiaError>) -> Inertia {
    match result {
        Ok(inertia) => inertia,
        Err(error) => panic!("Inertia: {error}"),
    }
}

fn dimension(dimension: &'static str, value: f64) -> Result<(), InertiaError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(InertiaError::Dimension { dimension, value })
    }
}

/// Checks that principal moments are positive and obey the triangle inequality, allowing
/// the rounding of the eigen-decomposition (a few `epsilon` of the trace) for flat bodies,
/// where one moment equals the sum of the other two.
fn check_moments(moments: [f64; 3], epsilon: f64) -> Result<(), InertiaError> {
    if let Some(&moment) = moments.iter().find(|&&m| m <= 0.0) {
        return Err(InertiaError::NotPositive { moment, moments });
    }
    let trace: f64 = moments.iter().sum();
    // A trace that overflows (or moments lost to NaN in the decomposition of huge
    // entries) would pass the triangle inequality below by comparing with infinity.
    if !trace.is_finite() {
        return Err(InertiaError::OutOfRange {
            moments,
            precision: "f64",
        });
    }
    for i in 0..3 {
        let others = trace - moments[i];
        if moments[i] - others > 8.0 * epsilon * trace {
            return Err(InertiaError::Impossible {
                moment: moments[i],
                moments,
            });
        }
    }
    Ok(())
}

fn symmetrize(m: DMat3) -> DMat3 {
    (m + m.transpose()) * 0.5
}

/// Why an inertia tensor (or the mass or size it was made from) was refused.
///
/// # Example
///
/// ```
/// use timestep::rigid::{Inertia, InertiaError};
///
/// let error = Inertia::try_diagonal(1.0, 1.0, 3.0).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "inertia tensor is physically impossible: principal moment 3 exceeds the sum of the other two, 2 (principal moments 1, 1, 3)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum InertiaError {
    /// The mass given to a shape constructor was refused.
    Mass(MassError),
    /// A size, radius or height is zero, negative, infinite or `NaN`.
    Dimension {
        /// What it is, e.g. `"cylinder radius"`.
        dimension: &'static str,
        /// The value given.
        value: f64,
    },
    /// An entry of the tensor is infinite or `NaN` (for a shape: it overflowed).
    NotFinite {
        /// Which entry: `"ixx"`, `"iyy"`, `"izz"`, `"ixy"`, `"ixz"` or `"iyz"`.
        entry: &'static str,
        /// Its value.
        value: f64,
    },
    /// A principal moment is zero or negative: the tensor is not positive definite.
    NotPositive {
        /// The first such moment.
        moment: f64,
        /// All three principal moments.
        moments: [f64; 3],
    },
    /// A principal moment exceeds the sum of the other two, which no distribution of mass
    /// can produce.
    Impossible {
        /// The moment that is too large.
        moment: f64,
        /// All three principal moments.
        moments: [f64; 3],
    },
    /// The tensor's inverse overflows the body's precision, or its trace (the sum of the
    /// principal moments) does, or, in `f32`, the tensor itself does.
    OutOfRange {
        /// The principal moments.
        moments: [f64; 3],
        /// `"f32"` or `"f64"`.
        precision: &'static str,
    },
}

impl From<MassError> for InertiaError {
    fn from(error: MassError) -> Self {
        InertiaError::Mass(error)
    }
}

impl fmt::Display for InertiaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InertiaError::Mass(error) => error.fmt(f),
            InertiaError::Dimension { dimension, value } => write!(
                f,
                "{dimension} must be finite and positive, got {}",
                Number(value)
            ),
            InertiaError::NotFinite { entry, value } => write!(
                f,
                "inertia tensor entry {entry} must be finite, got {}",
                Number(value)
            ),
            InertiaError::NotPositive {
                moment,
                moments: [a, b, c],
            } => write!(
                f,
                "inertia tensor must be positive definite, but has principal moment {} (principal moments {}, {}, {})",
                Number(moment),
                Number(a),
                Number(b),
                Number(c)
            ),
            InertiaError::Impossible {
                moment,
                moments: [a, b, c],
            } => write!(
                f,
                "inertia tensor is physically impossible: principal moment {} exceeds the sum of the other two, {} (principal moments {}, {}, {})",
                Number(moment),
                Number(a + b + c - moment),
                Number(a),
                Number(b),
                Number(c)
            ),
            InertiaError::OutOfRange {
                moments: [a, b, c],
                precision,
            } => {
                let largest = if precision == "f32" {
                    f64::from(f32::MAX)
                } else {
                    f64::MAX
                };
                let why = if [a, b, c].iter().any(|m| m.abs() > largest) {
                    "is too large for"
                } else if (a + b + c).abs() > largest || !(a + b + c).is_finite() {
                    "has a trace (the sum of the moments) too large for"
                } else {
                    "cannot be inverted in"
                };
                write!(
                    f,
                    "inertia tensor with principal moments {a:e}, {b:e}, {c:e} {why} {precision}"
                )
            }
        }
    }
}

impl core::error::Error for InertiaError {}

/// Serde goes through [`Inertia::try_symmetric`]: the data are the six entries of the
/// tensor, `{"ixx", "iyy", "izz", "ixy", "ixz", "iyz"}` (the off-diagonal ones may be left
/// out for a diagonal tensor), and the inverse and principal axes are computed again from
/// them, exactly as they were the first time, so a round trip is bit-exact and a tensor no
/// body has is refused with its [`InertiaError`].
#[cfg(feature = "serde")]
pub(crate) mod serde_impl {
    use super::{Inertia, InertiaError};
    use crate::Scalar;
    use glam::DMat3;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    // Written out rather than derived on `Inertia` (what `#[serde(try_from, into)]` would
    // generate) so that docs.rs labels them as needing the `serde` feature.
    impl Serialize for Inertia {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Entries::<f64>::from(*self).serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for Inertia {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let entries = Entries::<f64>::deserialize(deserializer)?;
            Inertia::try_from(entries).map_err(serde::de::Error::custom)
        }
    }

    /// The six entries of a symmetric tensor, in the precision `S` of whoever holds it: `f64`
    /// for an [`Inertia`], the body's precision for a [`Body`](crate::rigid::Body).
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "Inertia", deny_unknown_fields)]
    pub(crate) struct Entries<S: Scalar> {
        ixx: S,
        iyy: S,
        izz: S,
        #[serde(default)]
        ixy: S,
        #[serde(default)]
        ixz: S,
        #[serde(default)]
        iyz: S,
    }

    impl<S: Scalar> Entries<S> {
        /// The entries of the symmetric tensor `m` (its upper triangle), rounded to `S`.
        pub(crate) fn of(m: DMat3) -> Self {
            let [c0, c1, c2] = m.to_cols_array_2d();
            let [ixx, iyy, izz, ixy, ixz, iyz] =
                [c0[0], c1[1], c2[2], c1[0], c2[0], c2[1]].map(<S as Scalar>::from_f64);
            Entries {
                ixx,
                iyy,
                izz,
                ixy,
                ixz,
                iyz,
            }
        }

        /// The tensor, widened to `f64` (exactly).
        pub(crate) fn tensor(&self) -> DMat3 {
            let [ixx, iyy, izz, ixy, ixz, iyz] =
                [self.ixx, self.iyy, self.izz, self.ixy, self.ixz, self.iyz]
                    .map(<S as Scalar>::to_f64);
            DMat3::from_cols_array_2d(&[[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        }
    }

    impl From<Inertia> for Entries<f64> {
        fn from(inertia: Inertia) -> Self {
            Entries::of(inertia.tensor)
        }
    }

    impl TryFrom<Entries<f64>> for Inertia {
        type Error = InertiaError;

        fn try_from(entries: Entries<f64>) -> Result<Self, Self::Error> {
            let [ixx, iyy, izz, ixy, ixz, iyz] = [
                entries.ixx,
                entries.iyy,
                entries.izz,
                entries.ixy,
                entries.ixz,
                entries.iyz,
            ];
            Inertia::try_symmetric(ixx, iyy, izz, ixy, ixz, iyz)
        }
    }
}
