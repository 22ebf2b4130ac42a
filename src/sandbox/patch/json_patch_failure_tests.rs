//! RFC 6902: the operations that cannot be applied, and which one stops the patch.

use super::*;
use serde_json::json;

fn ops(patch: Value) -> Vec<Operation> {
    match decode(&patch) {
        Ok(operations) => operations,
        Err(e) => panic!("test patch does not decode: {e}"),
    }
}

fn run(doc: Value, patch: Value) -> Result<Value, OpFailure> {
    apply_operations(&doc, &ops(patch))
}

#[test]
fn rfc6902_failures() {
    // (rule, document, patch, index of the failing operation, words the reason contains)
    let cases: Vec<(&str, Value, Value, usize, &str)> = vec![
        (
            "A.9 a failing test",
            json!({"baz": "qux"}),
            json!([{"op": "test", "path": "/baz", "value": "bar"}]),
            0,
            "differs",
        ),
        (
            "A.12 adding to a nonexistent target",
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/baz/bat", "value": "qux"}]),
            0,
            "\"baz\"",
        ),
        (
            "A.15 a string is not equal to a number",
            json!({"/": 9, "~1": 10}),
            json!([{"op": "test", "path": "/~01", "value": "10"}]),
            0,
            "differs",
        ),
        (
            "5 the first failure stops the patch",
            json!({"a": 1}),
            json!([{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/b"}, {"op": "add", "path": "/c", "value": 3}]),
            1,
            "\"b\"",
        ),
        (
            "4.2 remove of a missing member",
            json!({"a": 1}),
            json!([{"op": "remove", "path": "/b"}]),
            0,
            "\"b\"",
        ),
        (
            "4.2 remove past the end of an array",
            json!({"a": [1]}),
            json!([{"op": "remove", "path": "/a/1"}]),
            0,
            "out of bounds",
        ),
        (
            "4.2 remove of - (no element there)",
            json!({"a": [1]}),
            json!([{"op": "remove", "path": "/a/-"}]),
            0,
            "not an array index",
        ),
        (
            "4.2 the root cannot be removed",
            json!({"a": 1}),
            json!([{"op": "remove", "path": ""}]),
            0,
            "whole document",
        ),
        (
            "4.3 replace of a missing member",
            json!({"a": 1}),
            json!([{"op": "replace", "path": "/b", "value": 2}]),
            0,
            "\"b\"",
        ),
        (
            "4.1 add beyond the array length",
            json!({"a": [1]}),
            json!([{"op": "add", "path": "/a/2", "value": 2}]),
            0,
            "out of bounds",
        ),
        (
            "4.1 add inside a scalar",
            json!({"a": "text"}),
            json!([{"op": "add", "path": "/a/b", "value": 2}]),
            0,
            "inside a string",
        ),
        (
            "4.4 move into one's own child",
            json!({"a": {"b": 1}}),
            json!([{"op": "move", "from": "/a", "path": "/a/c"}]),
            0,
            "own children",
        ),
        (
            "4.4 move from a missing location",
            json!({}),
            json!([{"op": "move", "from": "/a", "path": "/b"}]),
            0,
            "\"a\"",
        ),
        (
            "4.5 copy from a missing location",
            json!({}),
            json!([{"op": "copy", "from": "/a", "path": "/b"}]),
            0,
            "\"a\"",
        ),
        (
            "4.6 test of a missing location",
            json!({}),
            json!([{"op": "test", "path": "/a", "value": null}]),
            0,
            "\"a\"",
        ),
        (
            "4 an unknown op",
            json!({}),
            json!([{"op": "merge", "path": "/a"}]),
            0,
            "unknown operation",
        ),
        (
            "4 op is required",
            json!({}),
            json!([{"path": "/a", "value": 1}]),
            0,
            "\"op\"",
        ),
        (
            "4 path is required",
            json!({}),
            json!([{"op": "add", "value": 1}]),
            0,
            "\"path\"",
        ),
        (
            "4.1 value is required for add",
            json!({}),
            json!([{"op": "add", "path": "/a"}]),
            0,
            "\"value\"",
        ),
        (
            "4.4 from is required for move",
            json!({"a": 1}),
            json!([{"op": "move", "path": "/b"}]),
            0,
            "\"from\"",
        ),
        (
            "RFC 6901 3 a pointer starts with /",
            json!({"a": 1}),
            json!([{"op": "remove", "path": "a"}]),
            0,
            "start with",
        ),
        (
            "RFC 6901 3 ~ must be followed by 0 or 1",
            json!({"a": 1}),
            json!([{"op": "remove", "path": "/~2"}]),
            0,
            "escape",
        ),
        (
            "RFC 6901 4 no leading zeros in indexes",
            json!({"a": [1, 2]}),
            json!([{"op": "remove", "path": "/a/01"}]),
            0,
            "not an array index",
        ),
        (
            "a null operation has no op",
            json!({}),
            json!([null]),
            0,
            "\"op\"",
        ),
    ];
    for (rule, doc, patch, index, words) in cases {
        match run(doc, patch) {
            Err(failure) => {
                assert_eq!(failure.index, index, "{rule}: {failure}");
                assert!(failure.reason.contains(words), "{rule}: {failure}");
            }
            Ok(value) => panic!("{rule}: applied, giving {value}"),
        }
    }
}
