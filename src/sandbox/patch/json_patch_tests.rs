//! RFC 6902 (the examples of Appendix A and the rules of §4) and RFC 6901 pointers (§5).

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
fn rfc6902_appendix_a_successes() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "A.1 adding an object member",
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/baz", "value": "qux"}]),
            json!({"baz": "qux", "foo": "bar"}),
        ),
        (
            "A.2 adding an array element shifts the rest right",
            json!({"foo": ["bar", "baz"]}),
            json!([{"op": "add", "path": "/foo/1", "value": "qux"}]),
            json!({"foo": ["bar", "qux", "baz"]}),
        ),
        (
            "A.3 removing an object member",
            json!({"baz": "qux", "foo": "bar"}),
            json!([{"op": "remove", "path": "/baz"}]),
            json!({"foo": "bar"}),
        ),
        (
            "A.4 removing an array element shifts the rest left",
            json!({"foo": ["bar", "qux", "baz"]}),
            json!([{"op": "remove", "path": "/foo/1"}]),
            json!({"foo": ["bar", "baz"]}),
        ),
        (
            "A.5 replacing a value",
            json!({"baz": "qux", "foo": "bar"}),
            json!([{"op": "replace", "path": "/baz", "value": "boo"}]),
            json!({"baz": "boo", "foo": "bar"}),
        ),
        (
            "A.6 moving a value",
            json!({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}),
            json!([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]),
            json!({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
        ),
        (
            "A.7 moving an array element",
            json!({"foo": ["all", "grass", "cows", "eat"]}),
            json!([{"op": "move", "from": "/foo/1", "path": "/foo/3"}]),
            json!({"foo": ["all", "cows", "eat", "grass"]}),
        ),
        (
            "A.8 successful tests change nothing",
            json!({"baz": "qux", "foo": ["a", 2, "c"]}),
            json!([{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]),
            json!({"baz": "qux", "foo": ["a", 2, "c"]}),
        ),
        (
            "A.10 adding a nested member object",
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/child", "value": {"grandchild": {}}}]),
            json!({"foo": "bar", "child": {"grandchild": {}}}),
        ),
        (
            "A.11 unrecognised members of an operation are ignored",
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}]),
            json!({"foo": "bar", "baz": "qux"}),
        ),
        (
            "A.14 ~01 is the member \"~1\", not \"/\"",
            json!({"/": 9, "~1": 10}),
            json!([{"op": "test", "path": "/~01", "value": 10}]),
            json!({"/": 9, "~1": 10}),
        ),
        (
            "A.16 - appends, and an array value is added as one element",
            json!({"foo": ["bar"]}),
            json!([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]),
            json!({"foo": ["bar", ["abc", "def"]]}),
        ),
    ];
    for (rule, doc, patch, expected) in cases {
        assert_eq!(run(doc, patch), Ok(expected), "{rule}");
    }
}

#[test]
fn rfc6902_operation_rules() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "4.1 add to an existing member replaces it",
            json!({"a": 1}),
            json!([{"op": "add", "path": "/a", "value": 2}]),
            json!({"a": 2}),
        ),
        (
            "4.1 add at the array length appends",
            json!({"a": [1]}),
            json!([{"op": "add", "path": "/a/1", "value": 2}]),
            json!({"a": [1, 2]}),
        ),
        (
            "4.1 add at the root replaces the document",
            json!({"a": 1}),
            json!([{"op": "add", "path": "", "value": {"b": 2}}]),
            json!({"b": 2}),
        ),
        (
            "4.1 null is a value that can be added",
            json!({}),
            json!([{"op": "add", "path": "/a", "value": null}]),
            json!({"a": null}),
        ),
        (
            "4.3 replace at the root replaces the document",
            json!({"a": 1}),
            json!([{"op": "replace", "path": "", "value": [1]}]),
            json!([1]),
        ),
        (
            "4.4 move to the same location changes nothing",
            json!({"a": 1}),
            json!([{"op": "move", "from": "/a", "path": "/a"}]),
            json!({"a": 1}),
        ),
        (
            "4.5 copy leaves the source in place",
            json!({"a": {"x": 1}}),
            json!([{"op": "copy", "from": "/a", "path": "/b"}]),
            json!({"a": {"x": 1}, "b": {"x": 1}}),
        ),
        (
            "4.6 numbers are equal when their values are (1 and 1.0)",
            json!({"a": 1}),
            json!([{"op": "test", "path": "/a", "value": 1.0}]),
            json!({"a": 1}),
        ),
        (
            "4.6 objects are equal regardless of member order",
            json!({"a": {"x": 1, "y": [true, null]}}),
            json!([{"op": "test", "path": "/a", "value": {"y": [true, null], "x": 1}}]),
            json!({"a": {"x": 1, "y": [true, null]}}),
        ),
        (
            "5 operations apply in order, each on the result of the last",
            json!({"metadata": {"labels": {"app": "web"}}}),
            json!([
                {"op": "test", "path": "/metadata/labels/app", "value": "web"},
                {"op": "replace", "path": "/metadata/labels/app", "value": "db"},
                {"op": "test", "path": "/metadata/labels/app", "value": "db"}
            ]),
            json!({"metadata": {"labels": {"app": "db"}}}),
        ),
        (
            "kubectl-style path with an escaped label key",
            json!({"metadata": {"labels": {"app.kubernetes.io/name": "web"}}}),
            json!([{"op": "remove", "path": "/metadata/labels/app.kubernetes.io~1name"}]),
            json!({"metadata": {"labels": {}}}),
        ),
        (
            "an empty patch changes nothing",
            json!({"a": 1}),
            json!([]),
            json!({"a": 1}),
        ),
    ];
    for (rule, doc, patch, expected) in cases {
        assert_eq!(run(doc, patch), Ok(expected), "{rule}");
    }
}

#[test]
fn bodies_that_are_not_operation_lists() {
    let cases: Vec<(&str, Value, Result<usize, &str>)> = vec![
        (
            "a list of operations",
            json!([{"op": "remove", "path": "/a"}, {"op": "test"}]),
            Ok(2),
        ),
        ("null is an empty patch", json!(null), Ok(0)),
        (
            "an object",
            json!({"op": "add"}),
            Err("json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
        ),
        (
            "a string",
            json!("add"),
            Err("json: cannot unmarshal string into Go value of type jsonpatch.Patch"),
        ),
        (
            "a list of numbers",
            json!([1]),
            Err("json: cannot unmarshal number into Go value of type jsonpatch.Operation"),
        ),
    ];
    for (rule, body, expected) in cases {
        let decoded = decode(&body)
            .map(|operations| operations.len())
            .map_err(|e| e.to_string());
        assert_eq!(decoded, expected.map_err(str::to_string), "{rule}");
    }
}
