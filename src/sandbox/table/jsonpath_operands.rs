//! The pieces inside brackets and filters: slices, quoted keys and strings, and where a
//! filter ends and how it splits into operands.

use super::jsonpath::{JsonPathError, Slice, SliceEnd, fail};

/// `'key'` with no other single quote inside.
pub(super) fn dict_key(inner: &str) -> Option<&str> {
    let key = inner.strip_prefix('\'')?.strip_suffix('\'')?;
    (!key.contains('\'')).then_some(key)
}

/// `start[:end[:step]]`, each an optional `-?digits`.
pub(super) fn parse_slice(inner: &str) -> Result<Slice, JsonPathError> {
    let parts: Vec<&str> = inner.split(':').collect();
    let well_formed = parts.len() <= 3
        && parts.iter().all(|p| {
            let digits = p.strip_prefix('-').unwrap_or(p);
            digits.chars().all(|c| c.is_ascii_digit())
        });
    if !well_formed {
        return fail(format!("invalid array index {inner}"));
    }
    let number = |text: &str| -> Result<Option<i64>, JsonPathError> {
        if text.is_empty() {
            return Ok(None);
        }
        let parsed = text.parse::<i64>();
        parsed
            .map(Some)
            .map_err(|_| JsonPathError(format!("array index {text} is not a number")))
    };
    let start = number(parts.first().copied().unwrap_or_default())?;
    let end = match parts.get(1) {
        None => SliceEnd::AfterStart(start.unwrap_or(0).saturating_add(1)),
        Some(text) => number(text)?.map_or(SliceEnd::Open, SliceEnd::Given),
    };
    let step = number(parts.get(2).copied().unwrap_or_default())?;
    Ok(Slice { start, end, step })
}

/// The byte index of the `)` closing a filter: the first one outside a quoted operand.
pub(super) fn filter_end(rest: &str) -> Result<usize, JsonPathError> {
    let (mut begun, mut ended) = (false, false);
    let mut pair = '"';
    let mut previous = '(';
    for (i, c) in rest.char_indices() {
        match c {
            '\n' => break,
            '"' | '\'' if !begun => {
                begun = true;
                pair = c;
            }
            c if c == pair && begun && previous != '\\' => ended = true,
            ')' if begun == ended => return Ok(i),
            _ => {}
        }
        previous = c;
    }
    fail("unterminated filter")
}

/// `left op right` where `op` is a run of `!<>=` (client-go's
/// `^([^!<>=]+)([!<>=]+)(.+?)$`); `None` for an existence test.
pub(super) fn split_comparison(inner: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let left_end = inner.find(is_op).filter(|i| *i > 0)?;
    let after_left = inner.get(left_end..)?;
    let run = after_left.find(|c| !is_op(c)).unwrap_or(after_left.len());
    // The right side needs at least one character, even if it is an operator one.
    let op_len = if run == after_left.len() {
        run - 1
    } else {
        run
    };
    if op_len == 0 {
        return None;
    }
    let (operator, right) = after_left.split_at(op_len);
    Some((inner.get(..left_end)?, operator, right))
}

/// Go's `strconv.Unquote`, also for single quotes; `None` on a bad escape.
pub(super) fn unquote(raw: &str, quote: char) -> Option<String> {
    let body = raw.strip_prefix(quote)?.strip_suffix(quote)?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = match chars.next()? {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' => '\\',
            c if c == quote => c,
            'x' => hex_char(&mut chars, 2)?,
            'u' => hex_char(&mut chars, 4)?,
            'U' => hex_char(&mut chars, 8)?,
            _ => return None,
        };
        out.push(escaped);
    }
    Some(out)
}

fn hex_char(chars: &mut std::str::Chars<'_>, digits: usize) -> Option<char> {
    let text: String = chars.by_ref().take(digits).collect();
    if text.len() != digits {
        return None;
    }
    char::from_u32(u32::from_str_radix(&text, 16).ok()?)
}
