//! JSON pointers (RFC 6901) as JSON patch uses them: parsing with the `~0`/`~1` escapes,
//! array indexes, and reaching the value a pointer names.

use serde_json::Value;

/// A parsed pointer: its reference tokens, unescaped. No tokens: the whole document.
pub(super) type Tokens = Vec<String>;

/// Splits `pointer` into unescaped reference tokens (RFC 6901 §3, §4).
pub(super) fn parse(pointer: &str) -> Result<Tokens, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!(
            "JSON pointer {pointer:?} must be empty or start with \"/\""
        ));
    };
    rest.split('/')
        .map(|token| {
            unescape(token)
                .ok_or_else(|| format!("JSON pointer {pointer:?} has an invalid \"~\" escape"))
        })
        .collect()
}

/// `~1` is `/` and `~0` is `~`; any other use of `~` is an error (RFC 6901 §3).
fn unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('~'),
            Some('1') => out.push('/'),
            _ => return None,
        }
    }
    Some(out)
}

/// An array index token: decimal digits without leading zeros (RFC 6901 §4). `-` (the
/// element after the last) is not an index; callers that accept it check for it first.
pub(super) fn array_index(token: &str) -> Result<usize, String> {
    let digits_only = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    if !digits_only || (token.len() > 1 && token.starts_with('0')) {
        return Err(format!("{token:?} is not an array index"));
    }
    token
        .parse()
        .map_err(|_| format!("array index {token} is too large"))
}

/// The value `tokens` names, if it exists.
pub(super) fn get<'a>(doc: &'a Value, tokens: &[String]) -> Result<&'a Value, String> {
    tokens
        .iter()
        .try_fold(doc, |node, token| child(node, token))
}

/// The value `tokens` names, mutably, if it exists.
pub(super) fn get_mut<'a>(doc: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, String> {
    let mut node = doc;
    for token in tokens {
        node = child_mut(node, token)?;
    }
    Ok(node)
}

fn child<'a>(node: &'a Value, token: &str) -> Result<&'a Value, String> {
    match node {
        Value::Object(fields) => fields.get(token).ok_or_else(|| missing_key(token)),
        Value::Array(items) => {
            let index = array_index(token)?;
            items
                .get(index)
                .ok_or_else(|| out_of_bounds(index, items.len()))
        }
        scalar => Err(not_a_container(token, scalar)),
    }
}

fn child_mut<'a>(node: &'a mut Value, token: &str) -> Result<&'a mut Value, String> {
    match node {
        Value::Object(fields) => fields.get_mut(token).ok_or_else(|| missing_key(token)),
        Value::Array(items) => {
            let index = array_index(token)?;
            let len = items.len();
            items
                .get_mut(index)
                .ok_or_else(|| out_of_bounds(index, len))
        }
        scalar => Err(not_a_container(token, scalar)),
    }
}

pub(super) fn missing_key(token: &str) -> String {
    format!("there is no member {token:?}")
}

pub(super) fn out_of_bounds(index: usize, len: usize) -> String {
    format!("array index {index} is out of bounds (the array has {len} elements)")
}

pub(super) fn not_a_container(token: &str, value: &Value) -> String {
    format!(
        "cannot reach {token:?} inside a {}, only inside an object or an array",
        super::go_kind(value)
    )
}

#[cfg(test)]
#[path = "pointer_tests.rs"]
mod tests;
