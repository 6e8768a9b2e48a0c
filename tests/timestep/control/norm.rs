//! The error norm of a step (Hairer–Nørsett–Wanner I, II.4, (4.11)),
//!
//! ```text
//! err = √( (1/n) Σᵢ ( eᵢ / (atol + rtol · max(|y₀ᵢ|, |y₁ᵢ|)) )² ),
//! ```
//!
//! is the sum written out term by term in the coordinates' order, bit for bit, at every
//! length: a state of fixed size forms its weights eight at a time in a loop of their own
//! (which vectorises) and must round as the one loop does, so that a pair takes the same
//! steps on an array and on a `Vec`. An end that is not finite makes it `NaN`.

use glam::DVec3;
use proptest::prelude::*;
use timestep::control::ErrorNorm;
use timestep::{Derivative, NoVelocity, Particles, Tolerances};

/// The norm's sums of squares written out: `Σᵢ (factor·eᵢ·wᵢ)² + 0·y₁ᵢ` in order, with
/// `wᵢ = 1/(atol + rtol·max(|y₀ᵢ|, |y₁ᵢ|))`, for the first and the second estimate.
fn by_terms(
    (rtol, atol): (f64, f64),
    start: &[f64],
    end: &[f64],
    (first, first_factor): (&[f64], f64),
    (second, second_factor): (&[f64], f64),
) -> (f64, f64) {
    let (mut a_sum, mut b_sum) = (-0.0, 0.0);
    for i in 0..start.len() {
        let w = 1.0 / (atol + rtol * start[i].abs().max(end[i].abs()));
        let a = first[i] * first_factor * w;
        let b = second[i] * second_factor * w;
        b_sum += b * b;
        a_sum += a * a + 0.0 * end[i];
    }
    (a_sum, b_sum)
}

/// A start, an end, two estimates, the relative and absolute tolerances and a factor.
type Case = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, f64, f64, f64);

/// States, ends and two estimates of `n` coordinates spanning many magnitudes (so that the
/// order of the additions shows), and tolerances.
fn case(n: usize) -> impl Strategy<Value = Case> {
    let value = prop_oneof![-1e3..1e3, -1e-3..1e-3, Just(0.0)];
    let values = prop::collection::vec(value, n);
    (
        values.clone(),
        values.clone(),
        values.clone(),
        values,
        1e-12..1e-2,
        1e-12..1e-2,
        1e-3..1.0,
    )
}

fn as_rate<const N: usize>(values: &[f64]) -> Derivative<NoVelocity<f64>, [f64; N]> {
    Derivative::new(NoVelocity::default(), values.try_into().unwrap())
}

/// The norm and the sums of an array of `N` against the written-out sums.
fn check_array<const N: usize>(
    (start, end, first, second, rtol, atol, factor): Case,
) -> Result<(), TestCaseError> {
    let tolerances = Tolerances::new(rtol, atol);
    let (y0, y1): ([f64; N], [f64; N]) =
        (start[..].try_into().unwrap(), end[..].try_into().unwrap());
    let norm = ErrorNorm::new(&tolerances, &y0, &y1);
    let (a, b) = (as_rate::<N>(&first), as_rate::<N>(&second));
    let expected = by_terms(
        (rtol, atol),
        &start,
        &end,
        (&first, factor),
        (&second, 2.0 * factor),
    );
    let sums = norm.square_sums(&a, factor, &b, 2.0 * factor);
    prop_assert_eq!(
        (sums.0.to_bits(), sums.1.to_bits()),
        (expected.0.to_bits(), expected.1.to_bits())
    );
    let root = (expected.0 / N as f64).sqrt();
    prop_assert_eq!(norm.norm(&a, factor).to_bits(), root.to_bits());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn an_array_of_36_rounds_as_the_terms(c in case(36)) {
        check_array::<36>(c)?;
    }

    #[test]
    fn an_array_of_8_rounds_as_the_terms(c in case(8)) {
        check_array::<8>(c)?;
    }

    #[test]
    fn an_array_of_5_rounds_as_the_terms(c in case(5)) {
        check_array::<5>(c)?;
    }

    #[test]
    fn a_vec_rounds_as_the_terms(
        (start, end, first, second, rtol, atol, factor) in (1_usize..70).prop_flat_map(case)
    ) {
        let tolerances = Tolerances::new(rtol, atol);
        let norm = ErrorNorm::new(&tolerances, &start, &end);
        let rate = |v: &[f64]| Derivative::new(NoVelocity::default(), v.to_vec());
        let (a, b) = (rate(&first), rate(&second));
        let expected = by_terms((rtol, atol), &start, &end, (&first, factor), (&second, factor));
        let sums = norm.square_sums(&a, factor, &b, factor);
        prop_assert_eq!((sums.0.to_bits(), sums.1.to_bits()), (expected.0.to_bits(), expected.1.to_bits()));
    }
}

/// Bodies of unit mass whose coordinates are `values`: the positions, then the momenta.
fn bodies(values: &[f64]) -> Particles<DVec3> {
    let (positions, momenta) = values.split_at(values.len() / 2);
    let vectors = |v: &[f64]| v.chunks(3).map(DVec3::from_slice).collect::<Vec<_>>();
    Particles::new(
        vec![1.0; positions.len() / 3],
        vectors(positions),
        vectors(momenta),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// `Particles` give the norm their coordinates body by body, positions then momenta
    /// (`State::zip_coordinates`), not by index: the same terms in the same order.
    #[test]
    fn particles_round_as_the_terms(
        (start, end, first, second, rtol, atol, factor) in (1_usize..8).prop_flat_map(|b| case(6 * b))
    ) {
        let tolerances = Tolerances::new(rtol, atol);
        let (y0, y1) = (bodies(&start), bodies(&end));
        let norm = ErrorNorm::new(&tolerances, &y0, &y1);
        let rate = |v: &[f64]| {
            let state = bodies(v);
            Derivative::new(state.positions().to_vec(), state.momenta().to_vec())
        };
        let (a, b) = (rate(&first), rate(&second));
        let expected = by_terms((rtol, atol), &start, &end, (&first, factor), (&second, factor));
        let sums = norm.square_sums(&a, factor, &b, factor);
        prop_assert_eq!((sums.0.to_bits(), sums.1.to_bits()), (expected.0.to_bits(), expected.1.to_bits()));
        let root = (expected.0 / start.len() as f64).sqrt();
        prop_assert_eq!(norm.norm(&a, factor).to_bits(), root.to_bits());
    }
}

/// An end that overflowed in a block of eight, and in the last coordinates after the
/// blocks, makes the norm `NaN`, so that the step is refused: its weight alone would be
/// zero and let it pass.
#[test]
fn a_non_finite_end_gives_nan() {
    let tolerances = Tolerances::new(1e-6, 1e-6);
    let start = [1.0; 19];
    let error = as_rate::<19>(&[1e-9; 19]);
    for i in [3, 18] {
        let mut end = [1.0; 19];
        end[i] = f64::INFINITY;
        assert!(
            ErrorNorm::new(&tolerances, &start, &end)
                .norm(&error, 1.0)
                .is_nan()
        );
    }
    let finite = ErrorNorm::new(&tolerances, &start, &[1.0; 19]).norm(&error, 1.0);
    // 10⁻⁹ over a scale of 2·10⁻⁶ in every coordinate.
    assert!((finite - 1e-9 / 2e-6).abs() < 1e-15);
}

/// A start coordinate that is `NaN` beside a finite end (no step makes one, but a norm may
/// be asked of any two states) is weighed by the end's size alone, as `f64::max` takes the
/// pair: the norm's one comparison in its place must not let the `NaN` through, in a block
/// of eight or in the last coordinates, on an array or a `Vec`. Every coordinate's scale is
/// then `10⁻⁶ + 10⁻⁶·2`, so the norm is `10⁻⁹ / (3·10⁻⁶)`.
#[test]
fn a_nan_start_is_weighed_by_the_end() {
    let tolerances = Tolerances::new(1e-6, 1e-6);
    let mut start = [1.0; 19];
    start[3] = f64::NAN;
    start[18] = f64::NAN;
    let end = [2.0; 19];
    let error = [1e-9; 19];
    let expected = by_terms((1e-6, 1e-6), &start, &end, (&error, 1.0), (&error, 1.0));
    let on_array = ErrorNorm::new(&tolerances, &start, &end).square_sums(
        &as_rate::<19>(&error),
        1.0,
        &as_rate::<19>(&error),
        1.0,
    );
    let (start, end) = (start.to_vec(), end.to_vec());
    let rate = Derivative::new(NoVelocity::default(), error.to_vec());
    let norm = ErrorNorm::new(&tolerances, &start, &end);
    let on_vec = norm.square_sums(&rate, 1.0, &rate, 1.0);
    for sums in [on_array, on_vec] {
        assert_eq!(sums.0.to_bits(), expected.0.to_bits());
        assert_eq!(sums.1.to_bits(), expected.1.to_bits());
    }
    approx::assert_relative_eq!(norm.norm(&rate, 1.0), 1e-9 / 3e-6, max_relative = 1e-14);
}
