//! Type aliases that carry a unit in their name, so a signature says what a number means.

/// A duration or CPU time in nanoseconds.
pub type Nanos = u64;
/// A size in bytes.
pub type Bytes = u64;
/// A count of items, calls or events.
pub type Count = u64;

/// Nanoseconds in one millisecond.
pub const NANOS_PER_MILLI: f64 = 1e6;
/// Bytes in one mebibyte.
pub const BYTES_PER_MIB: f64 = 1024.0 * 1024.0;

/// `n` with a comma between every three digits: `32768` as `32,768`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `x` in words when it is not a finite number (`nan` for NaN, `∞` or `-∞` for an infinity); `None` when it is.
pub fn not_finite(x: f64, nan: &str) -> Option<String> {
    if x.is_nan() {
        Some(nan.to_string())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "∞" } else { "-∞" }.to_string())
    } else {
        None
    }
}

/// `x` rounded to a whole number with thousands separators (`16,000`, `-1,235`); `∞`, `-∞` or `n/a` when it is
/// not finite.
pub fn count(x: f64) -> String {
    if let Some(word) = not_finite(x, "n/a") {
        return word;
    }
    let rounded = x.round();
    let digits = thousands(rounded.abs() as u64);
    if rounded < 0.0 {
        format!("-{digits}")
    } else {
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        for (value, text) in [(0, "0"), (999, "999"), (1_000, "1,000"), (32_768, "32,768"), (1_234_567, "1,234,567")] {
            assert_eq!(thousands(value), text, "{value:?}");
        }
    }

    #[test]
    fn counts_round_and_keep_their_sign() {
        for (value, text) in
            [(15_999.6, "16,000"), (-1_234.5, "-1,235"), (-0.2, "0"), (f64::INFINITY, "∞"), (f64::NAN, "n/a")]
        {
            assert_eq!(count(value), text, "{value:?}");
        }
    }
}
