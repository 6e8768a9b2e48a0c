//! Inertia tensors and masses: the shapes' formulas, what is refused and why, and the
//! principal axes of tensors that are not diagonal.

use glam::{DMat3, DQuat, DVec3, Mat3, Vec3};
use proptest::prelude::*;
use timestep::MassError;
use timestep::rigid::{BodyError, DRigidBody, Inertia, InertiaError, RigidBody};

#[test]
fn shapes() {
    // The article's cube: ⅙ m s².
    assert_eq!(
        Inertia::cube(1.0, 1.0).tensor(),
        DMat3::from_diagonal(DVec3::splat(1.0 / 6.0))
    );
    assert_eq!(
        Inertia::cube(3.0, 2.0).principal_moments(),
        DVec3::splat(2.0)
    );
    // A box is a cube when its sides are equal.
    assert_eq!(Inertia::cuboid(3.0, 2.0, 2.0, 2.0), Inertia::cube(3.0, 2.0));
    // m(y² + z²)/12, m(x² + z²)/12, m(x² + y²)/12.
    assert_eq!(
        Inertia::cuboid(12.0, 1.0, 2.0, 3.0).principal_moments(),
        DVec3::new(13.0, 10.0, 5.0)
    );
    assert_eq!(
        Inertia::sphere(2.5, 2.0).principal_moments(),
        DVec3::splat(4.0)
    );
    // Axis along y: ½ m r²; across: m(3r² + h²)/12.
    assert_eq!(
        Inertia::cylinder(12.0, 2.0, 6.0).principal_moments(),
        DVec3::new(48.0, 24.0, 48.0)
    );
    // Every shape's inverse is its tensor's.
    for inertia in [
        Inertia::cuboid(2.0, 0.1, 3.0, 0.5),
        Inertia::cylinder(1.0, 0.2, 5.0),
    ] {
        assert!((inertia.tensor() * inertia.inverse()).abs_diff_eq(DMat3::IDENTITY, 1e-14));
    }
}

#[test]
fn a_flat_plate_is_the_limit_that_is_allowed() {
    // A plate in the xy plane: I_z = I_x + I_y, the triangle inequality with equality.
    assert!(Inertia::try_diagonal(1.0, 2.0, 3.0).is_ok());
    assert!(Inertia::try_cuboid(1.0, 3.0, 0.7, 1e-9).is_ok());
    // A little over is refused.
    assert!(matches!(
        Inertia::try_diagonal(1.0, 2.0, 3.0 + 1e-9),
        Err(InertiaError::Impossible { moment: m, .. }) if m == 3.0 + 1e-9
    ));
}

#[test]
fn bad_tensors_are_refused_with_the_reason() {
    let cases: [(Result<Inertia, InertiaError>, &str); 10] = [
        (
            Inertia::try_diagonal(1.0, 2.0, 4.0),
            "inertia tensor is physically impossible: principal moment 4 exceeds the sum of the other two, 3 (principal moments 1, 2, 4)",
        ),
        (
            Inertia::try_diagonal(1.0, 0.0, 1.0),
            "inertia tensor must be positive definite, but has principal moment 0 (principal moments 1, 0, 1)",
        ),
        (
            Inertia::try_diagonal(-1.0, -1.0, -1.0),
            "inertia tensor must be positive definite, but has principal moment -1 (principal moments -1, -1, -1)",
        ),
        (
            Inertia::try_symmetric(1.0, 2.0, 2.0, 0.0, f64::INFINITY, 0.0),
            "inertia tensor entry ixz must be finite, got inf",
        ),
        (
            Inertia::try_diagonal(f64::NAN, 1.0, 1.0),
            "inertia tensor entry ixx must be finite, got NaN",
        ),
        (
            Inertia::try_cube(1.0, 0.0),
            "cube size must be finite and positive, got 0",
        ),
        (
            Inertia::try_cylinder(1.0, 1.0, f64::NEG_INFINITY),
            "cylinder height must be finite and positive, got -inf",
        ),
        (
            Inertia::try_sphere(-2.0, 1.0),
            "mass must be positive, got -2",
        ),
        // ⅙ · 10²⁰⁰ · (10²⁰⁰)² overflows.
        (
            Inertia::try_cube(1e200, 1e200),
            "inertia tensor entry ixx must be finite, got inf",
        ),
        // A subnormal moment is positive, but its inverse overflows.
        (
            Inertia::try_diagonal(1e-310, 1e-310, 1e-310),
            "inertia tensor with principal moments 1e-310, 1e-310, 1e-310 cannot be inverted in f64",
        ),
    ];
    for (result, message) in cases {
        assert_eq!(result.unwrap_err().to_string(), message);
    }
    // A symmetric tensor whose eigenvalues are 3, 1, −1: refused, though its diagonal is
    // positive.
    let error = Inertia::try_symmetric(1.0, 1.0, 1.0, 2.0, 0.0, 0.0).unwrap_err();
    let InertiaError::NotPositive { moment, .. } = error else {
        panic!("{error:?}");
    };
    assert!((moment + 1.0).abs() < 1e-15);
}

#[test]
#[should_panic(expected = "Inertia: cylinder radius must be finite and positive, got -1")]
fn panicking_constructors_say_why() {
    let _ = Inertia::cylinder(1.0, -1.0, 1.0);
}

#[test]
fn bad_masses_are_refused() {
    let inertia = Inertia::cube(1.0, 1.0);
    assert_eq!(
        DRigidBody::try_new(0.0, inertia),
        Err(BodyError::Mass(MassError::NotPositive(0.0)))
    );
    assert_eq!(
        DRigidBody::try_new(-3.0, inertia),
        Err(BodyError::Mass(MassError::NotPositive(-3.0)))
    );
    assert_eq!(
        RigidBody::try_new(f32::INFINITY, inertia),
        Err(BodyError::Mass(MassError::NotFinite(f64::INFINITY)))
    );
    assert!(matches!(
        DRigidBody::try_new(f64::NAN, inertia),
        Err(BodyError::Mass(MassError::NotFinite(m))) if m.is_nan()
    ));
    assert_eq!(
        DRigidBody::try_new(-3.0, inertia).unwrap_err().to_string(),
        "mass must be positive, got -3"
    );
    // Shape constructors check their mass the same way.
    assert_eq!(
        Inertia::try_cube(f64::NAN, 1.0).unwrap_err().to_string(),
        "mass must be finite, got NaN"
    );
}

#[test]
#[should_panic(expected = "rigid body: mass must be positive, got 0")]
fn the_panicking_body_constructor_says_why() {
    let _ = DRigidBody::new(0.0, Inertia::cube(1.0, 1.0));
}

#[test]
fn a_tensor_beyond_f32_is_refused_by_an_f32_body_only() {
    for huge in [
        Inertia::diagonal(1e39, 1e39, 1e39),
        Inertia::diagonal(1e-39, 1e-39, 1e-39),
    ] {
        assert!(DRigidBody::try_new(1.0, huge).is_ok());
        let error = RigidBody::try_new(1.0, huge).unwrap_err();
        assert!(matches!(
            error,
            BodyError::Inertia(InertiaError::OutOfRange {
                precision: "f32",
                ..
            })
        ));
        // Too large to hold, or too small to invert.
        assert!(
            error.to_string().ends_with("is too large for f32")
                || error.to_string().ends_with("cannot be inverted in f32"),
            "{error}"
        );
    }
}

#[test]
fn an_f32_body_is_consistent_with_its_own_f32_tensor() {
    // 1/6 in f32 is 0.16666667163...; the body's inverse is that value's inverse, rounded.
    let cube = RigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    let sixth = (1.0_f64 / 6.0) as f32;
    assert_eq!(cube.inertia(), Mat3::from_diagonal(Vec3::splat(sixth)));
    let inverse = (1.0 / f64::from(sixth)) as f32;
    assert_eq!(
        cube.inverse_inertia(),
        Mat3::from_diagonal(Vec3::splat(inverse))
    );
    assert_eq!(cube.principal_moments(), Vec3::splat(sixth));

    // A turned tensor: its f32 form determines the body. Rebuilding from the f32 entries
    // gives the same body, bit for bit.
    let turned = Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3);
    let body = RigidBody::new(2.0, turned);
    let t = body.inertia().as_dmat3();
    let again = Inertia::symmetric(
        t.x_axis.x, t.y_axis.y, t.z_axis.z, t.y_axis.x, t.z_axis.x, t.z_axis.y,
    );
    assert_eq!(RigidBody::new(2.0, again), body);
    assert!((body.inertia() * body.inverse_inertia()).abs_diff_eq(Mat3::IDENTITY, 1e-6));

    // A flat plate, I_z = I_x + I_y, stays a valid body once its moments are rounded to f32
    // (0.3 rounds up more than 0.1 + 0.2 does).
    let plate = Inertia::diagonal(0.1, 0.2, 0.3);
    assert!(RigidBody::try_new(1.0, plate).is_ok());
    // A double-precision body keeps the tensor exactly as given.
    assert_eq!(
        DRigidBody::new(2.0, turned).inverse_inertia(),
        turned.inverse()
    );
}

fn rotation() -> impl Strategy<Value = DQuat> {
    prop::array::uniform4(-1.0..1.0_f64)
        .prop_filter("a quaternion far from zero", |q| {
            q.iter().map(|c| c * c).sum::<f64>() > 0.01
        })
        .prop_map(|q| DQuat::from_array(q).normalize())
}

/// Principal moments a body can have: positive, and none above the sum of the other two.
fn moments() -> impl Strategy<Value = [f64; 3]> {
    (0.1..10.0_f64, 0.1..10.0_f64, 0.0..1.0_f64).prop_map(|(a, b, t)| {
        let (low, high) = ((a - b).abs(), a + b);
        [a, b, low + t * (high - low)]
    })
}

proptest! {
    #[test]
    fn principal_axes_diagonalize_any_tensor(turn in rotation(), moments in moments()) {
        // The tensor of a body with these principal moments, turned by `turn`.
        let p = DMat3::from_quat(turn);
        let tensor = p * DMat3::from_diagonal(DVec3::from(moments)) * p.transpose();
        let inertia = Inertia::try_symmetric(
            tensor.x_axis.x, tensor.y_axis.y, tensor.z_axis.z,
            tensor.y_axis.x, tensor.z_axis.x, tensor.z_axis.y,
        );
        // Allowed through rounding at the triangle's edge, or refused there as impossible.
        let inertia = match inertia {
            Ok(inertia) => inertia,
            Err(InertiaError::Impossible { .. }) => {
                let [a, b, c] = moments;
                prop_assert!((a + b - c).abs() < 1e-12 * (a + b + c));
                return Ok(());
            }
            Err(error) => return Err(TestCaseError::fail(error.to_string())),
        };
        let scale = moments.iter().sum::<f64>();
        let mut found = inertia.principal_moments().to_array();
        found.sort_by(f64::total_cmp);
        let mut given = moments;
        given.sort_by(f64::total_cmp);
        for (found, given) in found.iter().zip(given) {
            prop_assert!((found - given).abs() < 1e-13 * scale, "{found} vs {given}");
        }
        let axes = inertia.principal_axes();
        prop_assert!((axes.determinant() - 1.0).abs() < 1e-13);
        prop_assert!((axes.transpose() * axes).abs_diff_eq(DMat3::IDENTITY, 1e-13));
        let diagonal = DMat3::from_diagonal(inertia.principal_moments());
        prop_assert!((axes * diagonal * axes.transpose()).abs_diff_eq(tensor, 1e-13 * scale));
        prop_assert!((inertia.tensor() * inertia.inverse()).abs_diff_eq(DMat3::IDENTITY, 1e-11));
        // The quaternion form turns the same way.
        let q = inertia.principal_rotation();
        prop_assert!((DMat3::from_quat(q)).abs_diff_eq(axes, 1e-13));
    }
}
