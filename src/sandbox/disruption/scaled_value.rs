//! `minAvailable` / `maxUnavailable` scaled against a replica count, as
//! `intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)` does for the disruption
//! controller (it rounds up for both fields).

use crate::sandbox::go_quote::go_quote;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::num::IntErrorKind;

/// The value itself for an integer; `ceil(percent × total / 100)` for a `"N%"` string.
/// Errors carry the controller's message (`err.Error()`), which ends up in the budget's
/// `SyncFailed` condition.
pub(super) fn scaled_value_rounding_up(value: &IntOrString, total: i32) -> Result<i32, String> {
    match value {
        IntOrString::Int(count) => Ok(*count),
        IntOrString::String(text) => {
            let percent = parse_percent(text)
                .map_err(|reason| format!("invalid value for IntOrString: {reason}"))?;
            Ok(ceil_percent_of(percent, total))
        }
    }
}

/// `"N%"` → N, with Go's `strconv.Atoi` rules for N (optional sign, decimal digits, 64 bits).
fn parse_percent(text: &str) -> Result<i64, String> {
    let Some(number) = text.strip_suffix('%') else {
        return Err("invalid type: string is not a percentage".to_string());
    };
    number.parse::<i64>().map_err(|error| {
        let problem = match error.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => "value out of range",
            _ => "invalid syntax",
        };
        format!(
            "invalid value {}: strconv.Atoi: parsing {}: {problem}",
            go_quote(text),
            go_quote(number)
        )
    })
}

/// Exact integer ceiling of `percent × total / 100` (what Go's float `math.Ceil` gives for
/// every realistic input), saturated to the `int32` the status fields hold.
fn ceil_percent_of(percent: i64, total: i32) -> i32 {
    let product = i128::from(percent) * i128::from(total);
    let mut quotient = product.div_euclid(100);
    if product.rem_euclid(100) != 0 {
        quotient += 1;
    }
    i32::try_from(quotient).unwrap_or(if quotient < 0 { i32::MIN } else { i32::MAX })
}

#[cfg(test)]
mod tests {
    use super::scaled_value_rounding_up;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    fn text(value: &str) -> IntOrString {
        IntOrString::String(value.to_string())
    }

    #[test]
    fn scales_like_get_scaled_value_from_int_or_percent_rounding_up() {
        let rows: [(&str, IntOrString, i32, Result<i32, &str>); 11] = [
            ("an integer is taken as is", IntOrString::Int(2), 10, Ok(2)),
            ("34% of 3 rounds 1.02 up to 2", text("34%"), 3, Ok(2)),
            ("50% of 3 rounds 1.5 up to 2", text("50%"), 3, Ok(2)),
            ("50% of 4 is exactly 2", text("50%"), 4, Ok(2)),
            ("1% of 1 rounds up to 1", text("1%"), 1, Ok(1)),
            ("0% is 0", text("0%"), 7, Ok(0)),
            ("any percentage of 0 replicas is 0", text("100%"), 0, Ok(0)),
            (
                "a leading plus sign is accepted like Go's Atoi",
                text("+20%"),
                10,
                Ok(2),
            ),
            (
                "a string without % is rejected",
                text("50"),
                4,
                Err("invalid value for IntOrString: invalid type: string is not a percentage"),
            ),
            (
                "a non-numeric percentage is rejected with Atoi's message",
                text("abc%"),
                4,
                Err(
                    "invalid value for IntOrString: invalid value \"abc%\": strconv.Atoi: parsing \"abc\": invalid syntax",
                ),
            ),
            (
                "a bare % is rejected",
                text("%"),
                4,
                Err(
                    "invalid value for IntOrString: invalid value \"%\": strconv.Atoi: parsing \"\": invalid syntax",
                ),
            ),
        ];
        for (rule, value, total, expected) in rows {
            let expected = expected.map_err(str::to_string);
            assert_eq!(scaled_value_rounding_up(&value, total), expected, "{rule}");
        }
    }

    #[test]
    fn out_of_range_percentage_is_rejected_like_atoi() {
        let result = scaled_value_rounding_up(&text("99999999999999999999%"), 3);
        assert_eq!(
            result,
            Err("invalid value for IntOrString: invalid value \"99999999999999999999%\": strconv.Atoi: parsing \"99999999999999999999\": value out of range".to_string())
        );
    }
}
