//! Numbers for people: tick labels and table cells.

/// Formats a number short and exact enough to read: `0`, `12`, `2.5`,
/// `0.125`, `18624.6`, and `30k` / `1.25M` for round large values (tick
/// labels), never plotters' `140000.0`.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
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
}
