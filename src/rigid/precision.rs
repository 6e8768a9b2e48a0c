//! [`Precision`]: `f32` or `f64`, and the glam types a rigid body of that precision is made of.
//!
//! One implementation of [`Body`](super::Body) serves both precisions. It is written against
//! the small traits here, which name exactly the glam operations it uses and are implemented
//! for glam's `f32` types (`Vec3`, `Quat`, `Mat3`, `Mat4`) and `f64` types (`DVec3`, `DQuat`,
//! `DMat3`, `DMat4`) by forwarding to glam. They also let you write forces generic over the
//! body's precision.

use crate::{Scalar, SmallVector};
use core::fmt::Debug;
use core::ops::{Add, Mul, Neg, Sub};
use glam::{DMat3, DMat4, DQuat, DVec3, Mat3, Mat4, Quat, Vec3};
use num_traits::Float;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The precision of a rigid body, `f32` or `f64`, and the glam types that go with it.
///
/// [`RigidBody`](super::RigidBody) is `Body<f32>` (glam `Vec3`, `Quat`, `Mat3`, `Mat4`) and
/// [`DRigidBody`](super::DRigidBody) is `Body<f64>` (`DVec3`, `DQuat`, `DMat3`, `DMat4`).
/// The trait is sealed: those two are all there is.
///
/// # Example
///
/// Gravity for a body of either precision:
///
/// ```
/// use timestep::rigid::{Body, DRigidBody, Inertia, Precision, RigidBody, Vector3};
///
/// fn gravity<S: Precision>(body: &Body<S>, _t: S) -> (S::Vec3, S::Vec3) {
///     let zero = S::from_f64(0.0);
///     let g = S::Vec3::new(zero, S::from_f64(-9.81), zero);
///     (g * body.mass(), S::Vec3::new(zero, zero, zero))
/// }
///
/// let heavy = DRigidBody::new(2.0, Inertia::cube(2.0, 1.0));
/// assert_eq!(gravity(&heavy, 0.0).0, glam::DVec3::new(0.0, -19.62, 0.0));
/// let light = RigidBody::new(0.5, Inertia::cube(0.5, 1.0));
/// assert_eq!(gravity(&light, 0.0).0, glam::Vec3::new(0.0, -4.905, 0.0));
/// ```
pub trait Precision: Scalar + sealed::Sealed {
    /// A 3-vector: `Vec3` or `DVec3`.
    type Vec3: Vector3<Scalar = Self>;
    /// A quaternion: `Quat` or `DQuat`.
    type Quat: Quaternion<Scalar = Self, Vec3 = Self::Vec3>;
    /// A 3×3 matrix: `Mat3` or `DMat3`.
    type Mat3: Matrix3<Scalar = Self, Vec3 = Self::Vec3, Quat = Self::Quat>;
    /// A 4×4 matrix: `Mat4` or `DMat4`.
    type Mat4: Matrix4<Vec3 = Self::Vec3, Quat = Self::Quat>;

    /// The type's name, `"f32"` or `"f64"`, for messages.
    const NAME: &'static str;

    /// Rounds an `f64` vector to this precision.
    #[must_use]
    fn vec3(v: DVec3) -> Self::Vec3;
    /// Rounds an `f64` quaternion to this precision (without renormalizing).
    #[must_use]
    fn quat(q: DQuat) -> Self::Quat;
    /// Rounds an `f64` matrix to this precision.
    #[must_use]
    fn mat3(m: DMat3) -> Self::Mat3;
    /// Widens a matrix of this precision to `f64`, exactly.
    ///
    /// ```
    /// use timestep::rigid::Precision;
    /// use glam::{Mat3, Vec3};
    ///
    /// let third = Mat3::from_diagonal(Vec3::splat(1.0 / 3.0));
    /// let wide = f32::widen_mat3(third);
    /// assert_eq!(wide.x_axis.x, f64::from(1.0_f32 / 3.0));
    /// assert_eq!(f32::mat3(wide), third); // and back, unchanged
    /// ```
    #[must_use]
    fn widen_mat3(m: Self::Mat3) -> DMat3;
}

impl Precision for f32 {
    type Vec3 = Vec3;
    type Quat = Quat;
    type Mat3 = Mat3;
    type Mat4 = Mat4;
    const NAME: &'static str = "f32";

    #[inline]
    fn vec3(v: DVec3) -> Vec3 {
        v.as_vec3()
    }
    #[inline]
    fn quat(q: DQuat) -> Quat {
        q.as_quat()
    }
    #[inline]
    fn mat3(m: DMat3) -> Mat3 {
        m.as_mat3()
    }
    #[inline]
    fn widen_mat3(m: Mat3) -> DMat3 {
        m.as_dmat3()
    }
}

impl Precision for f64 {
    type Vec3 = DVec3;
    type Quat = DQuat;
    type Mat3 = DMat3;
    type Mat4 = DMat4;
    const NAME: &'static str = "f64";

    #[inline]
    fn vec3(v: DVec3) -> DVec3 {
        v
    }
    #[inline]
    fn quat(q: DQuat) -> DQuat {
        q
    }
    #[inline]
    fn mat3(m: DMat3) -> DMat3 {
        m
    }
    #[inline]
    fn widen_mat3(m: DMat3) -> DMat3 {
        m
    }
}

/// The operations a rigid body needs of a 3-vector (glam's `Vec3` and `DVec3`, whose methods
/// of the same names these forward to).
///
/// # Example
///
/// ```
/// use timestep::rigid::Vector3;
///
/// fn torque<V: Vector3>(arm: V, force: V) -> V {
///     arm.cross(force)
/// }
/// assert_eq!(torque(glam::DVec3::X, glam::DVec3::Y), glam::DVec3::Z);
/// ```
pub trait Vector3:
    SmallVector
    + Default
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<<Self as SmallVector>::Scalar, Output = Self>
{
    /// The vector `(x, y, z)`.
    #[must_use]
    fn new(x: Self::Scalar, y: Self::Scalar, z: Self::Scalar) -> Self;
    /// The coordinates `[x, y, z]`.
    #[must_use]
    fn to_array(self) -> [Self::Scalar; 3];
    /// The dot product.
    #[must_use]
    fn dot(self, other: Self) -> Self::Scalar;
    /// The cross product `self × other` (right-handed).
    #[must_use]
    fn cross(self, other: Self) -> Self;
    /// The Euclidean length.
    #[must_use]
    fn length(self) -> Self::Scalar;
}

/// The operations a rigid body needs of a quaternion (glam's `Quat` and `DQuat`).
///
/// Multiplication is the quaternion (Hamilton) product, and a quaternion times a vector
/// rotates the vector (the quaternion must be unit length).
///
/// # Example
///
/// ```
/// use timestep::rigid::Quaternion;
/// use glam::DQuat;
///
/// let q = <DQuat as Quaternion>::from_xyzw(0.0, 0.0, 0.0, 2.0);
/// assert_eq!(Quaternion::normalize(q), DQuat::IDENTITY);
/// ```
pub trait Quaternion:
    SmallVector + Mul<Output = Self> + Mul<Self::Vec3, Output = Self::Vec3>
{
    /// The vectors it rotates.
    type Vec3: Vector3<Scalar = Self::Scalar>;
    /// The identity rotation `(w, x, y, z) = (1, 0, 0, 0)`.
    const IDENTITY: Self;
    /// The quaternion `w + x i + y j + z k`.
    #[must_use]
    fn from_xyzw(x: Self::Scalar, y: Self::Scalar, z: Self::Scalar, w: Self::Scalar) -> Self;
    /// The rotation by `|v|` radians about `v` (the identity for `v = 0`): `exp(v / 2)`.
    #[must_use]
    fn from_scaled_axis(v: Self::Vec3) -> Self;
    /// The vector part `(x, y, z)`.
    #[must_use]
    fn xyz(self) -> Self::Vec3;
    /// The scalar part `w`.
    #[must_use]
    fn w(self) -> Self::Scalar;
    /// The conjugate `w − x i − y j − z k`, the inverse of a unit quaternion.
    #[must_use]
    fn conjugate(self) -> Self;
    /// The length `√(w² + x² + y² + z²)`.
    #[must_use]
    fn length(self) -> Self::Scalar;
    /// The dot product of the two as 4-vectors, `w₀w₁ + x₀x₁ + y₀y₁ + z₀z₁`: the cosine of
    /// half the angle between two unit quaternions, negative when they lie in opposite
    /// hemispheres.
    #[must_use]
    fn dot(self, other: Self) -> Self::Scalar;
    /// The quaternion scaled to unit length: for every finite non-zero quaternion, however
    /// large or small its coordinates (its length is found after scaling by its largest
    /// coordinate when squaring would overflow or underflow). Infinite coordinates give
    /// the limit as they grow without bound (the unit quaternion of their signs); a zero or
    /// `NaN` quaternion gives `NaN`.
    ///
    /// ```
    /// use timestep::rigid::Quaternion;
    /// use glam::Quat;
    ///
    /// for w in [1e-22_f32, 1e20, 1e-45, f32::MAX] {
    ///     let unit = Quaternion::normalize(Quat::from_xyzw(0.0, 0.0, 0.0, w));
    ///     assert_eq!(unit, Quat::IDENTITY);
    /// }
    /// ```
    #[must_use]
    fn normalize(self) -> Self;
}

/// The operations a rigid body needs of a 3×3 matrix (glam's `Mat3` and `DMat3`).
///
/// # Example
///
/// ```
/// use timestep::rigid::Matrix3;
/// use glam::{DMat3, DQuat, DVec3};
///
/// let quarter_turn = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
/// let r = <DMat3 as Matrix3>::from_quat(quarter_turn);
/// assert!(Matrix3::transpose_mul_vec3(r, r * DVec3::X).abs_diff_eq(DVec3::X, 1e-15));
/// ```
pub trait Matrix3:
    Copy + Debug + PartialEq + Mul<Output = Self> + Mul<Self::Vec3, Output = Self::Vec3>
{
    /// The scalar type of the entries.
    type Scalar: Scalar;
    /// The vectors it multiplies.
    type Vec3: Vector3<Scalar = Self::Scalar>;
    /// The quaternions it converts from.
    type Quat: Quaternion<Scalar = Self::Scalar, Vec3 = Self::Vec3>;
    /// The rotation matrix of a unit quaternion.
    #[must_use]
    fn from_quat(q: Self::Quat) -> Self;
    /// The transpose.
    #[must_use]
    fn transpose(self) -> Self;
    /// `selfᵀ · v`, without forming the transpose.
    #[must_use]
    fn transpose_mul_vec3(self, v: Self::Vec3) -> Self::Vec3;
    /// `true` when no entry is infinite or `NaN`.
    #[must_use]
    fn is_finite(self) -> bool;
}

/// The operation a rigid body needs of a 4×4 matrix (glam's `Mat4` and `DMat4`).
///
/// # Example
///
/// ```
/// use timestep::rigid::Matrix4;
/// use glam::{DMat4, DQuat, DVec3};
///
/// let m = <DMat4 as Matrix4>::from_rotation_translation(DQuat::IDENTITY, DVec3::X);
/// assert_eq!(m.transform_point3(DVec3::ZERO), DVec3::X);
/// ```
pub trait Matrix4: Copy + Debug + PartialEq {
    /// The translations it holds.
    type Vec3;
    /// The rotations it holds.
    type Quat;
    /// The affine transform that rotates by `rotation`, then translates by `translation`.
    #[must_use]
    fn from_rotation_translation(rotation: Self::Quat, translation: Self::Vec3) -> Self;
}

macro_rules! forward_to_glam {
    ($($s:ty: $v:ty, $q:ty, $m:ty, $m4:ty;)*) => {$(
        impl Vector3 for $v {
            #[inline]
            fn new(x: $s, y: $s, z: $s) -> Self {
                <$v>::new(x, y, z)
            }
            #[inline]
            fn to_array(self) -> [$s; 3] {
                <$v>::to_array(&self)
            }
            #[inline]
            fn dot(self, other: Self) -> $s {
                <$v>::dot(self, other)
            }
            #[inline]
            fn cross(self, other: Self) -> Self {
                <$v>::cross(self, other)
            }
            #[inline]
            fn length(self) -> $s {
                <$v>::length(self)
            }
        }

        impl Quaternion for $q {
            type Vec3 = $v;
            const IDENTITY: Self = <$q>::IDENTITY;
            #[inline]
            fn from_xyzw(x: $s, y: $s, z: $s, w: $s) -> Self {
                <$q>::from_xyzw(x, y, z, w)
            }
            #[inline]
            fn from_scaled_axis(v: $v) -> Self {
                // glam's `from_scaled_axis`, operation for operation, with the sine and
                // cosine from `crate::math` (libm's under `deterministic`) instead of
                // glam's (the platform's, unless glam's own `libm` feature is on).
                let length = v.length();
                if length == 0.0 {
                    Self::IDENTITY
                } else {
                    let (s, c) = crate::math::sin_cos(length * 0.5);
                    let axis = (v / length) * s;
                    <$q>::from_xyzw(axis.x, axis.y, axis.z, c)
                }
            }
            #[inline]
            fn xyz(self) -> $v {
                <$q>::xyz(self)
            }
            #[inline]
            fn w(self) -> $s {
                self.w
            }
            #[inline]
            fn conjugate(self) -> Self {
                <$q>::conjugate(self)
            }
            #[inline]
            fn length(self) -> $s {
                <$q>::length(self)
            }
            #[inline]
            fn dot(self, other: Self) -> $s {
                <$q>::dot(self, other)
            }
            #[inline]
            fn normalize(self) -> Self {
                let length = <$q>::length(self);
                // Squaring neither overflowed nor underflowed (which also excludes NaN):
                // glam's own normalization, as fast. Two comparisons more, predicted.
                if length >= <$s>::MIN_POSITIVE.sqrt() && length <= <$s>::MAX.sqrt() {
                    // glam's own, to the bit (its SIMD `Quat` divides by the length where
                    // the scalar `DQuat` multiplies by its inverse).
                    <$q>::normalize(self)
                } else {
                    rebuilt(normalize_scaled(self))
                }
            }
        }

        impl Matrix3 for $m {
            type Scalar = $s;
            type Vec3 = $v;
            type Quat = $q;
            #[inline]
            fn from_quat(q: $q) -> Self {
                <$m>::from_quat(q)
            }
            #[inline]
            fn transpose(self) -> Self {
                <$m>::transpose(&self)
            }
            #[inline]
            fn transpose_mul_vec3(self, v: $v) -> $v {
                // glam's own body, written out: glam 0.33 calls it `mul_transpose_vec3`,
                // 0.34.2 renamed it `transpose_mul_vec3` and deprecated the old name, so
                // neither name compiles warning-free on every glam the crate accepts.
                <$v>::new(self.x_axis.dot(v), self.y_axis.dot(v), self.z_axis.dot(v))
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$m>::is_finite(&self)
            }
        }

        impl Matrix4 for $m4 {
            type Vec3 = $v;
            type Quat = $q;
            #[inline]
            fn from_rotation_translation(rotation: $q, translation: $v) -> Self {
                <$m4>::from_rotation_translation(rotation, translation)
            }
        }
    )*};
}
forward_to_glam! {
    f32: Vec3, Quat, Mat3, Mat4;
    f64: DVec3, DQuat, DMat3, DMat4;
}

/// `q` made anew from its coordinates: the result of an out-of-line call on a cold path,
/// which the call returns through memory, as a new value, so that the hot path's result
/// it merges with stays in registers (written as the call's destination, both go through
/// the stack, and a rigid body's step slowed by 6%).
#[inline(always)]
pub(crate) fn rebuilt<Q: Quaternion>(q: Q) -> Q {
    let [x, y, z] = q.xyz().to_array();
    Q::from_xyzw(x, y, z, q.w())
}

/// A quaternion whose squared length overflows or underflows (or is not finite),
/// normalized after dividing by its largest coordinate, which brings its length into
/// `[1, 2]`. A quaternion with infinite coordinates (and no `NaN`) gives the limit of
/// `q / |q|` as those coordinates grow without bound together: their signs, normalized,
/// with the finite coordinates 0. Zero and `NaN` quaternions give `NaN` coordinates. Out
/// of line: the common case never comes here.
#[cold]
#[inline(never)]
fn normalize_scaled<Q: Quaternion>(q: Q) -> Q {
    let zero = <Q::Scalar as num_traits::Zero>::zero();
    let one = <Q::Scalar as num_traits::One>::one();
    let [x, y, z] = q.xyz().to_array();
    let mut coordinates = [x, y, z, q.w()];
    let largest = q.max_abs();
    if largest.is_nan() || largest == zero {
        return q.scale(<Q::Scalar as Float>::nan());
    }
    if largest.is_infinite() {
        coordinates = coordinates.map(|c| {
            if c.is_infinite() {
                c.signum() * one
            } else {
                zero
            }
        });
    } else {
        coordinates = coordinates.map(|c| c / largest);
    }
    let [x, y, z, w] = coordinates;
    let scaled = Q::from_xyzw(x, y, z, w);
    scaled.scale(scaled.length().recip())
}
