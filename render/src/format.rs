//! Number formatting shared by every renderer: deterministic, about three significant digits.

/// Format `value` for a person: about three significant digits, thousands separated by commas.
///
/// Values from 100 up round to whole numbers with separators (`1234567` → `1,234,567`, `1234.5` → `1,235`,
/// `123.4` → `123`); smaller ones keep three significant digits (`12.345` → `12.3`, `15` → `15.0`, `2` → `2.00`,
/// `0.012345` → `0.0123`), so a column of similar values reads alike; values under 0.0001 use scientific
/// notation (`1.23e-7`); zero is `0`. NaN prints as `NaN` and infinities as `∞` / `-∞`. The same value
/// always gives the same text.
pub fn number(value: f64) -> String {
    if let Some(word) = measure::units::not_finite(value, "NaN") {
        return word;
    }
    let magnitude = value.abs();
    let text = if magnitude == 0.0 {
        "0".to_string()
    } else if magnitude >= 100.0 {
        group_thousands(&format!("{:.0}", value.round()))
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else if magnitude >= 1e-4 {
        // Three significant digits: 0.1xx needs 3 decimals, 0.01xx needs 4, and so on.
        let decimals = (2 - magnitude.log10().floor() as i32).clamp(3, 7) as usize;
        format!("{value:.decimals$}")
    } else {
        format!("{value:.2e}")
    };
    normalise_negative_zero(text)
}

/// Format a confidence half-width beside its `median`: like [`number`], but `0` when it is below a millionth of
/// the median (floating-point dust from identical samples, such as `1.5e-20` on a constant allocation count).
pub fn half_width(ci: f64, median: f64) -> String {
    if ci.is_finite() && ci.abs() <= median.abs() * 1e-6 {
        "0".to_string()
    } else {
        number(ci)
    }
}

/// Format an axis tick: like [`number`] but without trailing zeros after the point (`20.0` → `20`, `2.50` → `2.5`).
pub fn tick(value: f64) -> String {
    let text = number(value);
    if text.contains('.') && !text.contains('e') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Format a fraction as a percentage: `0.2` → `20%`, `0.125` → `12.5%`. A fraction computed as a ratio less 1
/// (`1.2 − 1` is 0.19999999999999996) is rounded to 1e-9 of a percent first, so it reads `20%`, not `20.0%`.
pub fn percent(fraction: f64) -> String {
    let value = (fraction * 100.0 * 1e9).round() / 1e9;
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}%")
    } else {
        format!("{}%", number(value))
    }
}

/// Format a ratio such as `2.10×`: two decimals under 10, [`number`] above.
pub fn ratio(value: f64) -> String {
    if value.is_finite() && value.abs() < 10.0 {
        format!("{value:.2}×")
    } else {
        format!("{}×", number(value))
    }
}

/// Insert a comma every three digits of the integer part of `digits` (which may start with `-`).
fn group_thousands(digits: &str) -> String {
    let (sign, body) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits),
    };
    match body.parse::<u64>() {
        Ok(n) => format!("{sign}{}", measure::units::thousands(n)),
        Err(_) => digits.to_string(),
    }
}

/// `-0.0` and friends print as zero without a sign.
fn normalise_negative_zero(text: String) -> String {
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_width_of_floating_point_dust_is_zero() {
        assert_eq!(half_width(1.5e-20, 0.00395), "0");
        assert_eq!(half_width(0.12, 5.86), "0.120");
        assert_eq!(half_width(f64::INFINITY, 1.0), "∞");
    }

    #[test]
    fn counts_get_thousands_separators_and_fractions_about_three_significant_digits() {
        for (value, text) in [
            (1_234_567.0, "1,234,567"),
            (1000.0, "1,000"),
            (999.0, "999"),
            (100.0, "100"),
            (2.0, "2.00"),
            (15.0, "15.0"),
            (-1_234_567.0, "-1,234,567"),
            (12.345, "12.3"),
            (1.2345, "1.23"),
            (0.12345, "0.123"),
            (0.012345, "0.0123"),
            (1234.5, "1,235"),
            (123.45, "123"),
            (0.00001234, "1.23e-5"),
        ] {
            assert_eq!(number(value), text, "{value:?}");
        }
    }

    #[test]
    fn odd_values_have_a_fixed_spelling() {
        for (value, text) in [(0.0, "0"), (-0.0, "0"), (f64::NAN, "NaN"), (f64::INFINITY, "∞"), (-0.00001, "-1.00e-5")]
        {
            assert_eq!(number(value), text, "{value:?}");
        }
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        for (value, text) in [(20.0, "20"), (2.5, "2.5"), (0.0123, "0.0123"), (1500.0, "1,500")] {
            assert_eq!(tick(value), text, "{value:?}");
        }
    }

    #[test]
    fn percentages_drop_needless_decimals() {
        assert_eq!(percent(1.2 - 1.0), "20%");
        assert_eq!(percent(1.22 - 1.0), "22%");
        assert_eq!(percent(0.2), "20%");
        assert_eq!(percent(0.125), "12.5%");
    }

    #[test]
    fn ratios_use_two_decimals_below_ten() {
        for (value, text) in [(2.1, "2.10×"), (0.5, "0.50×"), (12.34, "12.3×")] {
            assert_eq!(ratio(value), text, "{value:?}");
        }
    }
}
