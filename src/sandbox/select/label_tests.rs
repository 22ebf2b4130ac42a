use super::*;
use serde_json::json;

const QUALIFIED_NAME_RULE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RULE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn labels(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("labels must be an object, got {other}"),
    }
}

#[test]
fn string_selectors_match_as_kubernetes_does() {
    let cases = [
        (
            "empty selector matches unlabelled objects",
            "",
            json!(null),
            true,
        ),
        (
            "equality needs the exact value",
            "a=b",
            json!({"a": "b"}),
            true,
        ),
        (
            "equality fails on another value",
            "a=b",
            json!({"a": "c"}),
            false,
        ),
        (
            "equality fails when the label is absent",
            "a=b",
            json!({}),
            false,
        ),
        ("double equals is equality", "a==b", json!({"a": "b"}), true),
        (
            "inequality holds when the label is absent",
            "a!=b",
            json!({}),
            true,
        ),
        (
            "inequality holds on another value",
            "a!=b",
            json!({"a": "c"}),
            true,
        ),
        (
            "inequality fails on the value",
            "a!=b",
            json!({"a": "b"}),
            false,
        ),
        (
            "in holds for a listed value",
            "a in (x,y)",
            json!({"a": "y"}),
            true,
        ),
        (
            "in fails for an unlisted value",
            "a in (x,y)",
            json!({"a": "z"}),
            false,
        ),
        ("in fails when absent", "a in (x,y)", json!({}), false),
        ("notin holds when absent", "a notin (x)", json!({}), true),
        (
            "notin fails for a listed value",
            "a notin (x)",
            json!({"a": "x"}),
            false,
        ),
        ("bare key requires existence", "a", json!({"a": ""}), true),
        ("bare key fails when absent", "a", json!({"b": "x"}), false),
        ("bang key requires absence", "!a", json!({"b": "x"}), true),
        (
            "bang key fails when present",
            "!a",
            json!({"a": "x"}),
            false,
        ),
        ("requirements are ANDed", "a=b,c", json!({"a": "b"}), false),
        (
            "whitespace around tokens is ignored",
            " a = b , c in ( x , y ) ",
            json!({"a": "b", "c": "y"}),
            true,
        ),
        (
            "missing value is the empty value",
            "a=",
            json!({"a": ""}),
            true,
        ),
        ("empty value does not match absence", "a=", json!({}), false),
        (
            "empty parentheses hold the empty value",
            "a in ()",
            json!({"a": ""}),
            true,
        ),
        (
            "trailing comma adds the empty value",
            "a in (x,)",
            json!({"a": ""}),
            true,
        ),
        (
            "in is a plain value inside parentheses",
            "x in (in)",
            json!({"x": "in"}),
            true,
        ),
        (
            "keywords are plain keys at the start",
            "in=notin",
            json!({"in": "notin"}),
            true,
        ),
        (
            "greater than compares integers",
            "a>5",
            json!({"a": "6"}),
            true,
        ),
        ("greater than is strict", "a>5", json!({"a": "5"}), false),
        (
            "greater than fails on non-integers",
            "a>5",
            json!({"a": "x"}),
            false,
        ),
        ("less than takes negatives", "a<5", json!({"a": "-1"}), true),
        (
            "prefixed keys",
            "example.com/app=web",
            json!({"example.com/app": "web"}),
            true,
        ),
        (
            "a non-string label equals no value",
            "a=5",
            json!({"a": 5}),
            false,
        ),
        (
            "a non-string label still exists",
            "a",
            json!({"a": 5}),
            true,
        ),
        (
            "a non-string label differs from every value",
            "a!=5",
            json!({"a": 5}),
            true,
        ),
    ];
    for (rule, selector, object_labels, expected) in cases {
        let parsed = LabelSelector::parse(selector).expect(rule);
        let map = (!object_labels.is_null()).then(|| labels(object_labels));
        assert_eq!(parsed.matches(map.as_ref()), expected, "{rule}");
    }
}

#[test]
fn string_selectors_fail_with_kubernetes_messages() {
    let long_value = "v".repeat(64);
    let long_selector = format!("a={long_value}");
    let cases: [(&str, &str, String); 14] = [
        ("two operators in a row", "a=b=c", "found '=', expected: ',' or 'end of string'".into()),
        (
            "a key followed by a value",
            "a b",
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".into(),
        ),
        ("in needs parentheses", "a in x", "unable to parse requirement: found 'x' expected: '('".into()),
        ("unclosed value set", "a in (x", "unable to parse requirement: found '', expected: ',' or ')'".into()),
        ("values need commas", "a in (x y)", "unable to parse requirement: found 'y', expected: ',' or ')'".into()),
        ("dangling comma", "a,", "found '', expected: identifier after ','".into()),
        ("operator first", "=a", "found '=', expected: !, identifier, or 'end of string'".into()),
        ("bang without key", "!", "unable to parse requirement: found '', expected: identifier".into()),
        ("bang key takes no operator", "!b=c", "found '=', expected: ',' or 'end of string'".into()),
        ("parenthesis after equals", "a=(b)", "unable to parse requirement: found '(', expected: identifier".into()),
        (
            "key with two slashes (checked with a nil path)",
            "a/b/c=d",
            format!("unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name {QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
        ),
        (
            "value with a forbidden character",
            "a=b@c",
            format!("unable to parse requirement: values[0][a]: Invalid value: \"b@c\": {LABEL_VALUE_RULE}"),
        ),
        (
            "value longer than 63",
            &long_selector,
            format!("unable to parse requirement: values[0][a]: Invalid value: \"{long_value}\": must be no more than 63 characters"),
        ),
        (
            "greater than needs an integer",
            "a>b",
            "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer".into(),
        ),
    ];
    for (rule, selector, expected) in cases {
        let error = LabelSelector::parse(selector).expect_err(rule);
        assert_eq!(error.0, expected, "{rule}");
    }
}

#[test]
fn selector_objects_match_as_kubernetes_does() {
    let web = json!({"app": "web", "tier": "front"});
    let cases = [
        (
            "null selector matches nothing",
            json!(null),
            json!({}),
            false,
        ),
        (
            "null selector matches nothing, even labelled",
            json!(null),
            web.clone(),
            false,
        ),
        (
            "empty selector matches everything",
            json!({}),
            json!({}),
            true,
        ),
        (
            "empty matchLabels matches everything",
            json!({"matchLabels": {}}),
            web.clone(),
            true,
        ),
        (
            "matchLabels needs every pair",
            json!({"matchLabels": {"app": "web", "tier": "front"}}),
            web.clone(),
            true,
        ),
        (
            "matchLabels fails on one mismatch",
            json!({"matchLabels": {"app": "web", "tier": "back"}}),
            web.clone(),
            false,
        ),
        (
            "In expression",
            json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "back"]}]}),
            web.clone(),
            true,
        ),
        (
            "NotIn expression holds when absent",
            json!({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]}),
            web.clone(),
            true,
        ),
        (
            "Exists expression",
            json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
            web.clone(),
            true,
        ),
        (
            "DoesNotExist expression",
            json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}),
            web.clone(),
            false,
        ),
        (
            "labels and expressions are ANDed",
            json!({"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["back"]}]}),
            web.clone(),
            false,
        ),
    ];
    for (rule, selector, object_labels, expected) in cases {
        let parsed = LabelSelector::from_object(&selector).expect(rule);
        let map = labels(object_labels);
        assert_eq!(parsed.matches(Some(&map)), expected, "{rule}");
    }
    assert!(
        !LabelSelector::nothing().matches(None),
        "nothing() matches no object"
    );
    assert!(
        LabelSelector::everything().matches(None),
        "everything() matches any object"
    );
}

#[test]
fn selector_objects_fail_with_kubernetes_messages() {
    let cases: [(&str, Value, String); 6] = [
        (
            "unknown operator",
            json!({"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]}),
            "\"Equals\" is not a valid label selector operator".into(),
        ),
        (
            "In needs values",
            json!({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty".into(),
        ),
        (
            "Exists takes no values",
            json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}),
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist".into(),
        ),
        (
            "invalid key",
            json!({"matchExpressions": [{"key": "a b", "operator": "Exists"}]}),
            format!("key: Invalid value: \"a b\": name part {QUALIFIED_NAME_RULE}"),
        ),
        (
            "invalid matchLabels value",
            json!({"matchLabels": {"app": "a b"}}),
            format!("values[0][app]: Invalid value: \"a b\": {LABEL_VALUE_RULE}"),
        ),
        (
            "several problems are aggregated",
            json!({"matchExpressions": [{"key": "a b", "operator": "NotIn"}]}),
            format!("[key: Invalid value: \"a b\": name part {QUALIFIED_NAME_RULE}, values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty]"),
        ),
    ];
    for (rule, selector, expected) in cases {
        let error = LabelSelector::from_object(&selector).expect_err(rule);
        assert_eq!(error.0, expected, "{rule}");
    }
}

#[test]
fn requirements_are_sorted_by_key() {
    let parsed = LabelSelector::parse("b=1,!a,c in (z,x)").expect("valid selector");
    let seen: Vec<(&str, Operator, &[String])> = parsed
        .requirements()
        .iter()
        .map(|r| (r.key(), r.operator(), r.values()))
        .collect();
    let one = [String::from("1")];
    let x_and_z = [String::from("x"), String::from("z")];
    let expected: Vec<(&str, Operator, &[String])> = vec![
        ("a", Operator::DoesNotExist, &[]),
        ("b", Operator::Equals, &one),
        ("c", Operator::In, &x_and_z),
    ];
    assert_eq!(seen, expected, "sorted by key, set values sorted");
    assert!(
        LabelSelector::parse("").expect("empty").is_everything(),
        "empty selects everything"
    );
}
