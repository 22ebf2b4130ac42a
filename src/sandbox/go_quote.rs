//! Go's `strconv.Quote` (`%q`): how kube-apiserver's Go code quotes strings in messages.
//! Clients compare those messages, so every module that words one uses this.

/// Go's `strconv.Quote` (`%q`): printable characters as they are, the rest escaped.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
            (
                "bell and vertical tab use short escapes",
                "\u{7}\u{b}",
                "\"\\a\\v\"",
            ),
            ("other control characters use \\x", "a\u{1}b", "\"a\\x01b\""),
            ("C1 controls use \\u", "\u{85}", "\"\\u0085\""),
            ("printable unicode is kept", "caf\u{e9}", "\"caf\u{e9}\""),
        ];
        for (rule, input, expected) in rows {
            assert_eq!(go_quote(input), expected, "{rule}");
        }
    }
}
