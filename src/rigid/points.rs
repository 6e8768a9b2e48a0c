//! Points and directions on a body: body ↔ world conversions, the velocity of a point, and
//! a force applied at a point.

use super::{Body, Matrix3, Matrix4, Precision, Quaternion, Vector3};

/// Coordinates of points and directions, in the body frame and the world frame.
///
/// A body point `b` is at world point `R b + x`; a world point `p` is at body point
/// `Rᵀ (p − x)`; directions turn by `R` and `Rᵀ` alone. Non-finite coordinates give
/// non-finite results; nothing else is refused.
impl<S: Precision> Body<S> {
    /// The world position of the body point `point`: `R point + x`.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_position(DVec3::new(10.0, 0.0, 0.0));
    /// body.set_orientation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
    /// let corner = body.to_world_point(DVec3::new(0.5, 0.0, 0.0));
    /// assert!(corner.abs_diff_eq(DVec3::new(10.0, 0.5, 0.0), 1e-15));
    /// assert!(body.to_body_point(corner).abs_diff_eq(DVec3::new(0.5, 0.0, 0.0), 1e-15));
    /// ```
    #[inline]
    #[must_use]
    pub fn to_world_point(&self, point: S::Vec3) -> S::Vec3 {
        self.rotation() * point + self.position()
    }

    /// The body coordinates of the world point `point`: `Rᵀ (point − x)`.
    #[inline]
    #[must_use]
    pub fn to_body_point(&self, point: S::Vec3) -> S::Vec3 {
        self.rotation().transpose_mul_vec3(point - self.position())
    }

    /// The world direction of the body direction `direction`: `R direction`.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_position(DVec3::new(10.0, 0.0, 0.0)); // moving a body turns no direction
    /// body.set_orientation(DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    /// assert!(body.to_world_direction(DVec3::Y).abs_diff_eq(DVec3::Z, 1e-15));
    /// assert!(body.to_body_direction(DVec3::Z).abs_diff_eq(DVec3::Y, 1e-15));
    /// ```
    #[inline]
    #[must_use]
    pub fn to_world_direction(&self, direction: S::Vec3) -> S::Vec3 {
        self.rotation() * direction
    }

    /// The body coordinates of the world direction `direction`: `Rᵀ direction`.
    #[inline]
    #[must_use]
    pub fn to_body_direction(&self, direction: S::Vec3) -> S::Vec3 {
        self.rotation().transpose_mul_vec3(direction)
    }

    /// The body-to-world transform as a 4×4 matrix (rotate by `q`, then translate by `x`),
    /// for rendering; it maps body points as [`to_world_point`](Body::to_world_point) does.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::{DQuat, DVec3};
    ///
    /// let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// body.set_position(DVec3::new(1.0, 2.0, 3.0));
    /// body.set_orientation(DQuat::from_rotation_y(0.7));
    /// let point = DVec3::new(0.5, -0.5, 0.25);
    /// let by_matrix = body.body_to_world().transform_point3(point);
    /// assert!(by_matrix.abs_diff_eq(body.to_world_point(point), 1e-15));
    /// let back = body.world_to_body().transform_point3(by_matrix);
    /// assert!(back.abs_diff_eq(point, 1e-15));
    /// ```
    #[inline]
    #[must_use]
    pub fn body_to_world(&self) -> S::Mat4 {
        S::Mat4::from_rotation_translation(self.orientation(), self.position())
    }

    /// The world-to-body transform as a 4×4 matrix, the inverse of
    /// [`body_to_world`](Body::body_to_world): rotate by `q⁻¹` after translating by `−x`.
    #[inline]
    #[must_use]
    pub fn world_to_body(&self) -> S::Mat4 {
        let inverse = self.orientation().conjugate();
        S::Mat4::from_rotation_translation(inverse, -(inverse * self.position()))
    }

    /// The velocity of the body point now at world position `point`:
    /// `v + ω × (point − x)`.
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let mut wheel = DRigidBody::new(1.0, Inertia::cylinder(1.0, 0.5, 0.1));
    /// wheel.set_velocity(DVec3::new(1.0, 0.0, 0.0));
    /// wheel.set_angular_velocity(DVec3::new(0.0, 0.0, -2.0)); // rolling along +x
    /// // The contact point under a rolling wheel is at rest; the top moves at 2v.
    /// let contact = wheel.velocity_at_point(DVec3::new(0.0, -0.5, 0.0));
    /// assert!(contact.abs_diff_eq(DVec3::ZERO, 1e-15));
    /// let top = wheel.velocity_at_point(DVec3::new(0.0, 0.5, 0.0));
    /// assert!(top.abs_diff_eq(DVec3::new(2.0, 0.0, 0.0), 1e-15));
    /// ```
    #[inline]
    #[must_use]
    pub fn velocity_at_point(&self, point: S::Vec3) -> S::Vec3 {
        self.velocity() + self.angular_velocity().cross(point - self.position())
    }

    /// The force and torque that `force` applied at world point `point` exerts on the
    /// body: the whole force acts on the centre of mass, and the torque about it is
    /// `(point − x) × force` (r × F, right-hand rule). The pair is the body's
    /// [`Force`](crate::State::Force), ready to return from a forces callback, and adds
    /// up over several forces with [`SmallVector::add`](crate::SmallVector::add).
    ///
    /// ```
    /// use timestep::rigid::{DRigidBody, Inertia};
    /// use glam::DVec3;
    ///
    /// let body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    /// // Pushing +y on the +x face turns the body counter-clockwise seen from +z.
    /// let (force, torque) = body.force_at_point(DVec3::Y, DVec3::X);
    /// assert_eq!((force, torque), (DVec3::Y, DVec3::Z));
    /// ```
    #[inline]
    #[must_use]
    pub fn force_at_point(&self, force: S::Vec3, point: S::Vec3) -> (S::Vec3, S::Vec3) {
        (force, (point - self.position()).cross(force))
    }
}
