//! The media types of PATCH and how each kind of failure reaches the server (400 vs 422).

use super::*;
use serde_json::json;

#[test]
fn content_types() {
    let cases: &[(&str, &str, Option<PatchType>)] = &[
        (
            "json patch",
            "application/json-patch+json",
            Some(PatchType::Json),
        ),
        (
            "merge patch",
            "application/merge-patch+json",
            Some(PatchType::Merge),
        ),
        (
            "strategic merge patch (kubectl's default)",
            "application/strategic-merge-patch+json",
            Some(PatchType::Strategic),
        ),
        (
            "server-side apply",
            "application/apply-patch+yaml",
            Some(PatchType::Apply),
        ),
        (
            "parameters are ignored",
            "application/merge-patch+json; charset=utf-8",
            Some(PatchType::Merge),
        ),
        (
            "media types are case-insensitive",
            "Application/JSON-Patch+JSON",
            Some(PatchType::Json),
        ),
        (
            "apply as CBOR is not offered",
            "application/apply-patch+cbor",
            None,
        ),
        ("plain JSON is not a patch type", "application/json", None),
        ("empty header", "", None),
    ];
    for (rule, header, expected) in cases {
        assert_eq!(PatchType::from_content_type(header), *expected, "{rule}");
    }
}

fn pod() -> Value {
    json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "v1"}]}})
}

#[test]
fn outcomes_through_apply() {
    let cases: &[(&str, PatchType, &str, Value)] = &[
        (
            "json patch replaces a value",
            PatchType::Json,
            r#"[{"op":"replace","path":"/spec/containers/0/image","value":"v2"}]"#,
            json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "v2"}]}}),
        ),
        (
            "merge patch replaces a list wholesale",
            PatchType::Merge,
            r#"{"spec":{"containers":[{"name":"other"}]}}"#,
            json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "other"}]}}),
        ),
        (
            "strategic patch merges a list by key",
            PatchType::Strategic,
            r#"{"spec":{"containers":[{"name":"app","image":"v2"}]}}"#,
            json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "app", "image": "v2"}]}}),
        ),
    ];
    for (rule, kind, body, expected) in cases {
        let patched = apply(*kind, &pod(), body.as_bytes());
        assert_eq!(patched.ok().as_ref(), Some(expected), "{rule}");
    }
}

/// `Ok(true)`: Malformed (400); `Ok(false)`: Unprocessable (422).
fn is_malformed(result: Result<Value, PatchError>) -> Result<bool, Value> {
    match result {
        Ok(value) => Err(value),
        Err(PatchError::Malformed(_)) => Ok(true),
        Err(PatchError::Unprocessable(_)) => Ok(false),
    }
}

#[test]
fn error_classes() {
    let cases: &[(&str, PatchType, &str, bool)] = &[
        (
            "unreadable JSON is a bad request",
            PatchType::Merge,
            "{",
            true,
        ),
        (
            "an empty body is a bad request",
            PatchType::Strategic,
            "",
            true,
        ),
        (
            "a json patch that is an object is a bad request",
            PatchType::Json,
            r#"{"op":"add"}"#,
            true,
        ),
        (
            "a json patch of strings is a bad request",
            PatchType::Json,
            r#"["add"]"#,
            true,
        ),
        (
            "a json patch with a failing test is unprocessable",
            PatchType::Json,
            r#"[{"op":"test","path":"/metadata/name","value":"db"}]"#,
            false,
        ),
        (
            "a json patch with an unknown op is unprocessable",
            PatchType::Json,
            r#"[{"op":"frobnicate","path":"/a"}]"#,
            false,
        ),
        (
            "a strategic patch must be an object",
            PatchType::Strategic,
            "[]",
            true,
        ),
        (
            "a strategic list item without its merge key is unprocessable",
            PatchType::Strategic,
            r#"{"spec":{"containers":[{"image":"v2"}]}}"#,
            false,
        ),
        (
            "server-side apply is not handled here",
            PatchType::Apply,
            "{}",
            true,
        ),
    ];
    for (rule, kind, body, malformed) in cases {
        assert_eq!(
            is_malformed(apply(*kind, &pod(), body.as_bytes())),
            Ok(*malformed),
            "{rule}"
        );
    }
}

#[test]
fn json_patch_failures_read_as_kube_apiserver_words_them() {
    let failing_test = br#"[{"op":"test","path":"/metadata/labels/app","value":"db"},{"op":"remove","path":"/metadata/labels/app"}]"#;
    let message = apply(PatchType::Json, &pod(), failing_test).map_err(|e| e.to_string());
    assert_eq!(
        message,
        Err("the server rejected our request due to an error in our request".to_string())
    );

    let object_body = apply(PatchType::Json, &pod(), br#"{"op":"add"}"#).map_err(|e| e.to_string());
    assert_eq!(
        object_body,
        Err("json: cannot unmarshal object into Go value of type jsonpatch.Patch".to_string())
    );
}
