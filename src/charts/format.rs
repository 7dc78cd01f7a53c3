//! Numbers for people: tick labels and table cells.

/// What a page and the text show for a figure that is not a finite
/// number (a statistic past `f64`'s range): no figure, as the JSON's
/// `null` and the CSV's empty cell say; never Rust's `inf` or `NaN`.
pub const NO_FIGURE: &str = "-";

/// Formats a number short and exact enough to read: `0`, `12`, `2.5`,
/// `0.125`, `18624.6`, and `30k` / `1.25M` for round large values (tick
/// labels), never plotters' `140000.0`.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return NO_FIGURE.to_owned();
    }
    let magnitude = value.abs();
    if magnitude >= 1e6 && is_round(value / 1e6) {
        return format!("{}M", trim(format!("{:.2}", value / 1e6)));
    }
    if magnitude >= 1e4 && is_round(value / 1e3) {
        return format!("{}k", trim(format!("{:.2}", value / 1e3)));
    }
    if magnitude >= 100.0 {
        return trim(format!("{value:.2}"));
    }
    if magnitude >= 1.0 {
        return trim(format!("{value:.3}"));
    }
    trim(format!("{value:.4}"))
}

/// A measured value in full, for tables and labels beside a bar: like
/// [`format_number`] but never shortened to `k` or `M` (`41290`, not
/// `41.29k`), so values side by side read alike.
pub fn format_value(value: f64) -> String {
    if value.is_finite() && value.abs() >= 100.0 {
        trim(format!("{value:.2}"))
    } else {
        format_number(value)
    }
}

/// Tick labels for an axis whose largest value is `axis_max`: in thousands
/// (`5k`, `10k`, `15k`) or millions throughout once the axis reaches ten
/// thousand or ten million, so one axis never mixes `5000` with `10k`.
pub fn format_tick(value: f64, axis_max: f64) -> String {
    let magnitude = axis_max.abs();
    if value == 0.0 {
        return "0".to_owned();
    }
    if magnitude >= 1e7 {
        return format!("{}M", trim(format!("{:.2}", value / 1e6)));
    }
    if magnitude >= 1e4 {
        return format!("{}k", trim(format!("{:.2}", value / 1e3)));
    }
    format_number(value)
}

/// At most two decimals are needed to say it.
fn is_round(value: f64) -> bool {
    ((value * 100.0).round() - value * 100.0).abs() < 1e-6
}

fn trim(mut text: String) -> String {
    if text.contains('.') {
        while text.ends_with('0') {
            text.pop();
        }
        if text.ends_with('.') {
            text.pop();
        }
    }
    if text == "-0" {
        text = "0".into();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn formats_ticks_and_values() {
        let cases = [
            (0.0, "0"),
            (12.0, "12"),
            (2.5, "2.5"),
            (0.125, "0.125"),
            (18624.6, "18624.6"),
            (30000.0, "30k"),
            (140000.0, "140k"),
            (1250000.0, "1.25M"),
            (-5.0, "-5"),
            (999.999, "1000"),
            (-0.00001, "0"),
        ];
        for (index, (value, want)) in cases.into_iter().enumerate() {
            assert_eq!(format_number(value), want, "case {index}: {value}");
        }
    }

    #[test]
    fn values_are_never_shortened() {
        use super::format_value;
        assert_eq!(format_value(41290.0), "41290");
        assert_eq!(format_value(1250000.0), "1250000");
        assert_eq!(format_value(29261.64), "29261.64");
        assert_eq!(format_value(2.5), "2.5");
    }

    #[test]
    fn ticks_share_one_scale_per_axis() {
        use super::format_tick;
        assert_eq!(format_tick(5000.0, 30000.0), "5k");
        assert_eq!(format_tick(12500.0, 30000.0), "12.5k");
        assert_eq!(format_tick(0.0, 30000.0), "0");
        assert_eq!(format_tick(5000.0, 8000.0), "5000");
        assert_eq!(format_tick(2.5e7, 3e7), "25M");
        assert_eq!(format_tick(10.0, 100.0), "10");
    }
}
