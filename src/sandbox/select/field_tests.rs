use super::*;
use serde_json::json;

fn pod() -> Value {
    json!({
        "metadata": {"name": "web-1", "namespace": "shop"},
        "spec": {"nodeName": "node-a", "replicas": 3, "unschedulable": true, "containers": [{"name": "c"}]},
        "status": {"phase": "Running", "hostIP": null},
        "involvedObject": {"kind": "Pod"},
    })
}

#[test]
fn field_selectors_match_as_kubernetes_does() {
    let unscheduled = json!({"metadata": {"name": "web-2"}});
    let cases = [
        ("empty selector matches everything", "", pod(), true),
        ("only commas is empty", ",", pod(), true),
        ("equality", "metadata.name=web-1", pod(), true),
        (
            "equality fails on another value",
            "metadata.name=web-2",
            pod(),
            false,
        ),
        (
            "double equals is equality",
            "metadata.name==web-1",
            pod(),
            true,
        ),
        ("inequality", "metadata.name!=web-2", pod(), true),
        (
            "inequality fails on the value",
            "metadata.name!=web-1",
            pod(),
            false,
        ),
        (
            "terms are ANDed",
            "metadata.name=web-1,status.phase=Pending",
            pod(),
            false,
        ),
        (
            "both terms hold",
            "metadata.namespace=shop,status.phase=Running",
            pod(),
            true,
        ),
        (
            "a missing field is the empty value",
            "spec.nodeName=",
            unscheduled.clone(),
            true,
        ),
        (
            "an empty value does not match a set field",
            "spec.nodeName=",
            pod(),
            false,
        ),
        (
            "inequality on a missing field",
            "spec.nodeName!=node-a",
            unscheduled,
            true,
        ),
        (
            "event involved object",
            "involvedObject.kind=Pod",
            pod(),
            true,
        ),
        ("numbers compare as text", "spec.replicas=3", pod(), true),
        (
            "booleans compare as text",
            "spec.unschedulable=true",
            pod(),
            true,
        ),
        (
            "an escaped comma is data",
            r"metadata.name=web\,1",
            json!({"metadata": {"name": "web,1"}}),
            true,
        ),
        (
            "an escaped equals sign is data",
            r"metadata.name=a\=b",
            json!({"metadata": {"name": "a=b"}}),
            true,
        ),
        (
            "an escaped backslash is data",
            r"metadata.name=a\\b",
            json!({"metadata": {"name": r"a\b"}}),
            true,
        ),
    ];
    for (rule, selector, object, expected) in cases {
        let parsed = FieldSelector::parse(selector).expect(rule);
        assert_eq!(parsed.matches_object(&object), expected, "{rule}");
    }
}

#[test]
fn field_selectors_fail_with_kubernetes_messages() {
    let cases = [
        (
            "no operator",
            "a",
            "invalid selector: 'a'; can't understand 'a'",
        ),
        (
            "one bad term among good ones",
            "a=b,c",
            "invalid selector: 'a=b,c'; can't understand 'c'",
        ),
        (
            "a bare equals sign in the value (rune printed as its number)",
            "a=b=c",
            "invalid field selector: unescaped character in value: 61",
        ),
        (
            "triple equals leaves an equals sign",
            "a===b",
            "invalid field selector: unescaped character in value: 61",
        ),
        (
            "unknown escape",
            r"a=b\x",
            r"invalid field selector: invalid escape sequence: \x",
        ),
        (
            "trailing backslash",
            r"a=b\",
            r"invalid field selector: invalid escape sequence: \",
        ),
    ];
    for (rule, selector, expected) in cases {
        let error = FieldSelector::parse(selector).expect_err(rule);
        assert_eq!(error.0, expected, "{rule}");
    }
}

#[test]
fn selector_introspection() {
    let parsed = FieldSelector::parse("spec.nodeName=n1,metadata.name!=x").expect("valid");
    let fields: Vec<&str> = parsed.fields().collect();
    assert_eq!(
        fields,
        ["metadata.name", "spec.nodeName"],
        "fields, terms sorted"
    );
    let cases = [
        (
            "an equality term requires its value",
            parsed.requires_exact_match("spec.nodeName"),
            Some("n1"),
        ),
        (
            "an inequality term requires nothing",
            parsed.requires_exact_match("metadata.name"),
            None,
        ),
        (
            "an untested field requires nothing",
            parsed.requires_exact_match("status.phase"),
            None,
        ),
    ];
    for (rule, got, expected) in cases {
        assert_eq!(got, expected, "{rule}");
    }
    assert!(
        FieldSelector::parse("").expect("empty").is_everything(),
        "empty selects everything"
    );
}

#[test]
fn field_values_from_objects() {
    let cases = [
        ("string", "metadata.name", Some("web-1")),
        ("nested string", "involvedObject.kind", Some("Pod")),
        ("integer as text", "spec.replicas", Some("3")),
        ("boolean as text", "spec.unschedulable", Some("true")),
        ("null is absent", "status.hostIP", None),
        ("missing is absent", "spec.schedulerName", None),
        ("a map is not a value", "spec", None),
        ("a list is not a value", "spec.containers", None),
    ];
    for (rule, field, expected) in cases {
        assert_eq!(field_value(&pod(), field).as_deref(), expected, "{rule}");
    }
}

#[test]
fn unsupported_field_messages() {
    let cases = [
        (
            "kinds with their own field set",
            unsupported_field_message("spec.foo"),
            "field label not supported: spec.foo",
        ),
        (
            "kinds with only metadata fields",
            unknown_field_message("spec.foo"),
            "\"spec.foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
        ),
    ];
    for (rule, got, expected) in cases {
        assert_eq!(got, expected, "{rule}");
    }
}
