//! Field selectors: the `fieldSelector` query parameter, parsed the way apimachinery's
//! `fields.ParseSelector` does (escapes, operators, messages).

use super::SelectorError;
use crate::sandbox::table::go_text::{go_number_text, go_quote};
use serde_json::Value;

/// One `field=value` or `field!=value` term; all terms must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FieldTerm {
    field: String,
    value: String,
    negated: bool,
}

/// A parsed field selector; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

/// The operators in the order they are tried at each position, so that `a==b` is not read
/// as `a` `=` `=b`.
const OPERATORS: [&str; 3] = ["!=", "==", "="];

impl FieldSelector {
    pub fn everything() -> Self {
        Self::default()
    }

    /// Parses `f=v`, `f==v`, `f!=v` terms joined by commas. Values may escape `\,`, `\=`
    /// and `\\`; field names are taken literally up to the first operator.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut parts = split_terms(text);
        parts.sort_unstable();
        let mut terms = Vec::new();
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let Some((field, operator, raw_value)) = split_term(part) else {
                return Err(SelectorError(format!(
                    "invalid selector: '{text}'; can't understand '{part}'"
                )));
            };
            terms.push(FieldTerm {
                field: field.to_string(),
                value: unescape_value(raw_value)?,
                negated: operator == "!=",
            });
        }
        Ok(Self { terms })
    }

    pub fn is_everything(&self) -> bool {
        self.terms.is_empty()
    }

    /// The fields the selector tests, so the server can refuse ones it does not support.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|t| t.field.as_str())
    }

    /// The value an `=` term requires for `field`, if there is one (lets a server look an
    /// object up by name instead of scanning).
    pub fn requires_exact_match(&self, field: &str) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| !t.negated && t.field == field)
            .map(|t| t.value.as_str())
    }

    /// Whether an object matches, given its value for each field; a missing field has the
    /// value `""` (so `spec.nodeName=` selects unscheduled pods).
    pub fn matches(&self, lookup: impl Fn(&str) -> Option<String>) -> bool {
        self.terms.iter().all(|term| {
            let actual = lookup(&term.field).unwrap_or_default();
            (actual == term.value) != term.negated
        })
    }

    /// [`matches`](Self::matches) with the values read from the object by [`field_value`].
    pub fn matches_object(&self, object: &Value) -> bool {
        self.matches(|field| field_value(object, field))
    }
}

/// The value of a dotted field path in an object (`metadata.name`, `spec.nodeName`,
/// `involvedObject.kind`): strings as they are, numbers and booleans as text, `None` for
/// anything absent, null, or not a scalar.
pub fn field_value(object: &Value, field: &str) -> Option<String> {
    let value = field
        .split('.')
        .try_fold(object, |current, name| current.get(name))?;
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(go_number_text(n)),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The message of a 400 for a field a kind does not support, as built-in kinds with their
/// own field set and custom resources give it.
pub fn unsupported_field_message(field: &str) -> String {
    format!("field label not supported: {field}")
}

/// The message of a 400 for kinds that only support the metadata fields (apimachinery's
/// `DefaultMetaV1FieldSelectorConversion`: ConfigMaps, Leases, PDBs...).
pub fn unknown_field_message(field: &str) -> String {
    format!(
        "{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
        go_quote(field)
    )
}

/// Splits at commas that are not escaped by a backslash; the backslashes stay.
fn split_terms(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ',' => {
                terms.push(text.get(start..i).unwrap_or_default());
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(text.get(start..).unwrap_or_default());
    terms
}

/// Field, operator and raw value around the first operator in the term.
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    term.char_indices().find_map(|(i, _)| {
        let rest = term.get(i..)?;
        let operator = OPERATORS.into_iter().find(|op| rest.starts_with(op))?;
        Some((term.get(..i)?, operator, rest.get(operator.len()..)?))
    })
}

/// Resolves `\\`, `\,` and `\=`; any other escape, a trailing backslash, or a bare `,` or
/// `=` in a value is an error.
fn unescape_value(raw: &str) -> Result<String, SelectorError> {
    let mut value = String::with_capacity(raw.len());
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(invalid_escape(&format!("\\{c}")));
            }
            value.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            // Go prints the rune with %v, i.e. as its number.
            ',' | '=' => {
                return Err(SelectorError(format!(
                    "invalid field selector: unescaped character in value: {}",
                    c as u32
                )));
            }
            c => value.push(c),
        }
    }
    if escaped {
        return Err(invalid_escape("\\"));
    }
    Ok(value)
}

fn invalid_escape(sequence: &str) -> SelectorError {
    SelectorError(format!(
        "invalid field selector: invalid escape sequence: {sequence}"
    ))
}

#[cfg(test)]
#[path = "field_tests.rs"]
mod tests;
