//! The floating-point types a state can be made of.

use crate::math::Functions;
use core::fmt::{Debug, Display};
use num_traits::{Float, FloatConst};

/// A floating-point number a state is made of: `f32` or `f64`.
///
/// It is [`num_traits::Float`] plus the few things integrators need: conversion from the
/// `f64` constants their formulas are written in, and formatting for error messages. It is
/// sealed (`f32` and `f64` only), so that the crate's transcendental functions are the ones
/// the `deterministic` feature controls for every `Scalar`.
///
/// # Example
///
/// ```
/// use timestep::Scalar;
///
/// fn half<S: Scalar>(x: S) -> S {
///     x * S::from_f64(0.5)
/// }
/// assert_eq!(half(3.0_f32), 1.5);
/// ```
pub trait Scalar:
    Float + FloatConst + Default + Debug + Display + Send + Sync + 'static + Functions
{
    /// Converts an `f64`, rounding to nearest when `Self` is narrower.
    #[must_use]
    fn from_f64(value: f64) -> Self;

    /// Widens to `f64`, exactly.
    #[must_use]
    fn to_f64(self) -> f64;
}

impl Scalar for f32 {
    #[inline]
    fn from_f64(value: f64) -> Self {
        value as f32
    }

    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Scalar for f64 {
    #[inline]
    fn from_f64(value: f64) -> Self {
        value
    }

    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}
