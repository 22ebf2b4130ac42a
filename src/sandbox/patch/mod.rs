//! The bodies of PATCH requests, applied as kube-apiserver (1.32) applies them: JSON patch
//! (RFC 6902), JSON merge patch (RFC 7386) and Kubernetes' strategic merge patch.
//!
//! Pure functions on `serde_json::Value`: the API server decodes nothing else, looks up the
//! stored object, calls [`apply`] and validates what comes back like any other write.

mod json_patch;
mod list_order;
mod merge_keys;
mod merge_patch;
mod pointer;
mod strategic;
mod strategic_list;

use serde_json::Value;

/// The four patch media types of the Kubernetes API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml` (server-side apply; the server refuses it with 415).
    Apply,
}

impl PatchType {
    /// From the request Content-Type; parameters such as `; charset=utf-8` and letter case
    /// are ignored. `None` for every other media type (the server answers 415), including
    /// `application/apply-patch+cbor`.
    pub fn from_content_type(ct: &str) -> Option<PatchType> {
        let media_type = ct.split(';').next().unwrap_or_default().trim();
        let known = [
            ("application/json-patch+json", PatchType::Json),
            ("application/merge-patch+json", PatchType::Merge),
            (
                "application/strategic-merge-patch+json",
                PatchType::Strategic,
            ),
            ("application/apply-patch+yaml", PatchType::Apply),
        ];
        known
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(media_type))
            .map(|(_, kind)| kind)
    }
}

/// Why a patch was not applied.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// The patch document itself is unreadable (the server answers 400 BadRequest).
    #[error("{0}")]
    Malformed(String),
    /// The patch is well-formed but cannot be applied (the server answers 422, e.g. a
    /// JSON-patch `test` that fails, a path that does not exist).
    #[error("{0}")]
    Unprocessable(String),
}

/// What kube-apiserver says, word for word, whenever a JSON patch cannot be applied: it
/// drops the detail (which operation, which path), and clients match on this text.
pub const JSON_PATCH_REJECTED: &str =
    "the server rejected our request due to an error in our request";

/// Applies `patch` (the raw request body) to `original` and returns the patched document.
/// `Apply` is not handled here: the server refuses server-side apply with 415.
pub fn apply(kind: PatchType, original: &Value, patch: &[u8]) -> Result<Value, PatchError> {
    match kind {
        PatchType::Json => {
            let operations = json_patch::decode(&parse_body(patch)?)?;
            json_patch::apply_operations(original, &operations)
                .map_err(|_| PatchError::Unprocessable(JSON_PATCH_REJECTED.to_string()))
        }
        PatchType::Merge => Ok(merge_patch::merge(original, &parse_body(patch)?)),
        PatchType::Strategic => strategic::apply(original, &parse_body(patch)?),
        PatchType::Apply => Err(PatchError::Malformed(
            "server-side apply (application/apply-patch+yaml) is not supported by this server"
                .to_string(),
        )),
    }
}

/// Every patch body is JSON; anything else is a bad request.
fn parse_body(body: &[u8]) -> Result<Value, PatchError> {
    serde_json::from_slice(body)
        .map_err(|e| PatchError::Malformed(format!("the patch is not valid JSON: {e}")))
}

/// The JSON type name as Go's decoder words it in its errors (`cannot unmarshal object
/// into ...`).
fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
