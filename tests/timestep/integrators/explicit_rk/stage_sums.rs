//! A Runge–Kutta stage's probe `y + dt Σⱼ wⱼ kⱼ` and a step's end are formed in one pass
//! over the coordinates for numbers, arrays and `Vec`s of them (`State::probe_by_sum`,
//! `State::advance_by_sum`), and round exactly as the sum written out term by term:
//! `s = k_first w_first`, then `s = s + kⱼ wⱼ` in the weights' order, then `y + s·dt`; a
//! lone term joins `dt` instead (`y + k (dt w)`), and an empty sum adds `0·0`. Equal bit for
//! bit, at every length, so a method takes the same steps on every state and the
//! determinism hashes hold; and so a pair whose rate at the step's end is one of an
//! attempt's stages (Dormand–Prince 5(4)) may evaluate it at the end instead of at that
//! stage's probe (`State::probe_is_advance`, for the vectors that do not split their
//! probes).

use proptest::prelude::*;
use timestep::{Derivative, NoVelocity, State};

/// The probe of `y` along the weighted sum of `rates`, written out term by term.
fn by_terms(y: &[f64], weights: &[f64], rates: &[Vec<f64>], dt: f64) -> Vec<f64> {
    let terms: Vec<usize> = (0..weights.len()).filter(|&j| weights[j] != 0.0).collect();
    (0..y.len())
        .map(|i| match terms[..] {
            [] => y[i] + 0.0 * (dt * 0.0),
            [j] => y[i] + rates[j][i] * (dt * weights[j]),
            [first, ..] => {
                let mut sum = rates[first][i] * weights[first];
                for &j in &terms[1..] {
                    sum += rates[j][i] * weights[j];
                }
                y[i] + sum * dt
            }
        })
        .collect()
}

/// The rates as a first-order system's.
fn derivatives<V>(
    rates: &[Vec<f64>],
    make: impl Fn(&[f64]) -> V,
) -> Vec<Derivative<NoVelocity<f64>, V>> {
    rates
        .iter()
        .map(|rate| Derivative::new(NoVelocity::default(), make(rate)))
        .collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Up to eight stages' weights, about a third of them zero, and as many rates of `n`
/// coordinates spanning many magnitudes (so that the order of the additions shows).
fn case(n: usize) -> impl Strategy<Value = (Vec<f64>, Vec<Vec<f64>>, Vec<f64>, f64)> {
    let value = prop_oneof![-1e3..1e3, -1e-3..1e-3, Just(0.0)];
    (1_usize..=8).prop_flat_map(move |stages| {
        (
            prop::collection::vec(prop_oneof![2 => -3.0..3.0, 1 => Just(0.0)], stages),
            prop::collection::vec(prop::collection::vec(value.clone(), n), stages),
            prop::collection::vec(value.clone(), n),
            -0.5..0.5,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_vec_probes_and_advances_as_the_terms_round((weights, rates, y, dt) in (1_usize..70).prop_flat_map(case)) {
        prop_assert!(<Vec<f64> as State>::probe_is_advance());
        let expected = bits(&by_terms(&y, &weights, &rates, dt));
        let rates = derivatives(&rates, <[f64]>::to_vec);
        let mut sum = y.zero_rate();
        let mut probe = y.clone();
        y.probe_by_sum(&weights, &rates, dt, &mut sum, &mut probe);
        prop_assert_eq!(bits(&probe), expected.clone());
        let mut end = y.clone();
        end.advance_by_sum(&weights, &rates, dt, &mut sum);
        prop_assert_eq!(bits(&end), expected);
    }

    #[test]
    fn an_array_probes_and_advances_as_the_terms_round((weights, rates, y, dt) in case(36)) {
        prop_assert!(<[f64; 36] as State>::probe_is_advance());
        let expected = bits(&by_terms(&y, &weights, &rates, dt));
        let array = |values: &[f64]| -> [f64; 36] { values.try_into().unwrap() };
        let (rates, y) = (derivatives(&rates, array), array(&y));
        let mut sum = y.zero_rate();
        let mut probe = y;
        y.probe_by_sum(&weights, &rates, dt, &mut sum, &mut probe);
        prop_assert_eq!(bits(&probe), expected.clone());
        let mut end = y;
        end.advance_by_sum(&weights, &rates, dt, &mut sum);
        prop_assert_eq!(bits(&end), expected);
    }
}

/// A short array (below the length at which the sums take one loop) rounds the same.
#[test]
fn a_short_array_rounds_as_the_terms() {
    let weights = [0.25, 0.0, -1.5, 1e-3];
    let rates = vec![
        vec![1.0, -2.0, 3.5],
        vec![7.0, 7.0, 7.0],
        vec![1e-8, 2.0, -3.0],
        vec![5.0, 1e6, 0.1],
    ];
    let y = [1.0, 1e-9, -4.0];
    let expected = bits(&by_terms(&y, &weights, &rates, 0.1));
    let rates = derivatives(&rates, |r: &[f64]| -> [f64; 3] { r.try_into().unwrap() });
    let (mut sum, mut probe) = (y.zero_rate(), y);
    y.probe_by_sum(&weights, &rates, 0.1, &mut sum, &mut probe);
    assert_eq!(bits(&probe), expected);
}
