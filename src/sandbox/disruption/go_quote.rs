//! Go's `%q` rendering of a string, for messages that quote user text the way the
//! controller's `fmt.Errorf` does.

/// Quotes `text` like Go's `strconv.Quote`: printable characters kept, quotes, backslashes
/// and control characters escaped.
pub(super) fn go_quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            control if control.is_control() && (control as u32) < 0x100 => {
                quoted.push_str(&format!("\\x{:02x}", control as u32));
            }
            control if control.is_control() => {
                quoted.push_str(&format!("\\u{:04x}", control as u32));
            }
            printable => quoted.push(printable),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::go_quote;

    #[test]
    fn quotes_like_go_strconv_quote() {
        let rows = [
            ("plain name is wrapped in quotes", "web-1", "\"web-1\""),
            (
                "quote and backslash are escaped",
                "a\"b\\c",
                "\"a\\\"b\\\\c\"",
            ),
            (
                "newline and tab use short escapes",
                "a\nb\tc",
                "\"a\\nb\\tc\"",
            ),
            ("other control characters use \\x", "a\u{1}b", "\"a\\x01b\""),
            ("printable unicode is kept", "caf\u{e9}", "\"caf\u{e9}\""),
        ];
        for (rule, input, expected) in rows {
            assert_eq!(go_quote(input), expected, "{rule}");
        }
    }
}
