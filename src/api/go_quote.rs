//! Go's `%q` (`strconv.Quote`): how Go controllers and kube-apiserver quote names and free text
//! in messages. Clients compare those messages (Koordinator's PodMigrationJob messages, the API
//! server's errors), so everything that words one of them uses this one function.

/// Quotes `s` the way Go's `%q` does: printable characters as they are, `"` and `\` escaped,
/// control characters and non-ASCII white space as escapes. (Go also escapes unassigned and
/// format code points; Rust's standard library cannot classify those, and no name or reason
/// we quote is expected to hold them.)
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
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() || (c != ' ' && c.is_whitespace()) => {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
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
    fn go_quote_table() {
        let rows = [
            ("a plain name is only wrapped", "web-1", r#""web-1""#),
            (
                "namespace/name keeps its slash",
                "shop/web-1",
                r#""shop/web-1""#,
            ),
            ("an empty string is two quotes", "", r#""""#),
            ("quote and backslash escaped", "a\"b\\c", r#""a\"b\\c""#),
            ("newline and tab short escapes", "a\nb\tc", r#""a\nb\tc""#),
            ("bell and vertical tab", "\u{7}\u{b}", r#""\a\v""#),
            ("other C0 controls as \\x", "a\u{1}b", r#""a\x01b""#),
            ("DEL as \\x", "\u{7f}", r#""\x7f""#),
            ("C1 controls as \\u", "\u{85}", r#""\u0085""#),
            ("no-break space as \\u", "a\u{a0}b", r#""a\u00a0b""#),
            (
                "printable unicode kept",
                "caf\u{e9} \u{1f680}",
                "\"caf\u{e9} \u{1f680}\"",
            ),
        ];
        for (rule, input, want) in rows {
            assert_eq!(go_quote(input), want, "rule: {rule}");
        }
    }

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
