//! The JSONPath of CRD `additionalPrinterColumns`, parsed as kube-apiserver parses it
//! (client-go's `jsonpath` on `{<path>}`): fields (`.a.b`, `.a\.b` for a dotted key),
//! `.*`, `..` recursive descent, `[i]`, `[-1]`, `[a:b:c]`, `[*]`, `['key']` and filters
//! `[?(@.type=="Valid")]` with `==`, `!=`, `<`, `<=`, `>`, `>=` or existence.
//!
//! Unions (`[a,b]`), `range`/`end` and text outside the path are not supported: a path
//! using them is refused, or (unknown identifiers) fails at evaluation like the real one.

use super::go_text::go_quote;
use super::jsonpath_parse;
use serde_json::Value;

/// Why a path does not parse or cannot be evaluated against an object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JsonPathError(pub String);

/// A parsed printer-column path; see [`CompiledPath::evaluate`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledPath {
    source: String,
    pub(super) steps: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    Field(String),
    Wildcard,
    Recursive,
    Slice(Slice),
    Filter(Box<Filter>),
    /// A quoted string, number or boolean: replaces each current value with itself.
    Literal(Value),
    /// An identifier other than `true`/`false`; evaluating it fails, as in client-go.
    Unknown(String),
}

/// `[start:end:step]`; `[i]` is `start = i` with the end derived as `i + 1`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Slice {
    pub start: Option<i64>,
    pub end: SliceEnd,
    pub step: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum SliceEnd {
    Open,
    Given(i64),
    /// The end of a single index: one past the start (wraps to the length at 0).
    AfterStart(i64),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Filter {
    pub left: Vec<Step>,
    pub test: FilterTest,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum FilterTest {
    Exists,
    Compare { operator: String, right: Vec<Step> },
}

impl CompiledPath {
    /// Parses a column's `jsonPath` (what the server wraps in `{}`).
    pub fn parse(path: &str) -> Result<Self, JsonPathError> {
        Ok(Self {
            source: path.to_string(),
            steps: jsonpath_parse::parse_steps(path)?,
        })
    }

    /// The path as written in the CRD.
    pub fn source(&self) -> &str {
        &self.source
    }
}

pub(super) fn fail<T>(message: impl Into<String>) -> Result<T, JsonPathError> {
    Err(JsonPathError(message.into()))
}

/// The message kube-apiserver logs for a column whose path does not parse.
pub(super) fn unrecognized_column(path: &str) -> String {
    format!("unrecognized column definition {}", go_quote(path))
}

#[cfg(test)]
#[path = "jsonpath_tests.rs"]
mod tests;
