//! How the tool's results write numbers held in `f64`.

/// Serializes a number held in `f64` as JavaScript holds it: a whole number within 2^53 as an integer
/// (so JSON text reads `10201`, as `JSON.stringify` writes it, not `10201.0`), other finite numbers as
/// they are, and what is not finite as `null` (as `JSON.stringify` writes it). Across the wasm boundary
/// all three are the same JavaScript number.
#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's serialize_with signature")]
pub(crate) fn js_number<S: serde::Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < SAFE {
        serializer.serialize_i64(*x as i64)
    } else if x.is_finite() {
        serializer.serialize_f64(*x)
    } else {
        serializer.serialize_none()
    }
}
