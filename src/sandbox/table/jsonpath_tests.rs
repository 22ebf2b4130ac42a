use super::*;
use serde_json::json;

fn eviction() -> Value {
    json!({
        "metadata": {"name": "e1", "labels": {"app.kubernetes.io/name": "x", "app": "plain"}},
        "spec": {
            "strategy": "Plain",
            "items": [{"n": 1}, {"n": 2}, {"n": 3}],
            "toggles": [{"on": true, "id": "a"}, {"on": false, "id": "b"}],
            "nested": {"a": {"name": "deep"}},
        },
        "status": {
            "conditions": [
                {"type": "Valid", "status": "True", "reason": "Ok"},
                {"type": "Executed", "status": "False"},
                {"status": "Unknown"},
            ],
            "nothing": null,
        },
    })
}

fn evaluate(path: &str, object: &Value) -> Result<Value, JsonPathError> {
    let compiled = CompiledPath::parse(path)?;
    let found = compiled.evaluate(object)?;
    Ok(Value::Array(found.into_iter().cloned().collect()))
}

#[test]
fn paths_select_what_client_go_selects() {
    let cases = [
        ("field chain", ".spec.strategy", json!(["Plain"])),
        (
            "a missing field selects nothing",
            ".spec.missing",
            json!([]),
        ),
        (
            "a field of a string selects nothing",
            ".spec.strategy.deeper",
            json!([]),
        ),
        ("a null value is selected", ".status.nothing", json!([null])),
        ("nothing below null", ".status.nothing.x", json!([])),
        ("index", ".spec.items[0].n", json!([1])),
        (
            "negative index counts from the end",
            ".spec.items[-1].n",
            json!([3]),
        ),
        (
            "star selects every item",
            ".spec.items[*].n",
            json!([1, 2, 3]),
        ),
        (
            "dot star selects every item",
            ".spec.items.*.n",
            json!([1, 2, 3]),
        ),
        ("slice", ".spec.items[0:2].n", json!([1, 2])),
        ("slice with a step", ".spec.items[::2].n", json!([1, 3])),
        (
            "an empty slice selects nothing",
            ".spec.items[1:1].n",
            json!([]),
        ),
        (
            "escaped dots stay in the key",
            r".metadata.labels.app\.kubernetes\.io/name",
            json!(["x"]),
        ),
        ("quoted key", ".metadata.labels['app']", json!(["plain"])),
        (
            "quoted keys split at dots, as in client-go",
            ".spec['nested.a'].name",
            json!(["deep"]),
        ),
        (
            "recursive descent finds every level",
            "..name",
            json!(["e1", "deep"]),
        ),
        (
            "leading @ and $ are the object",
            "$.spec.strategy",
            json!(["Plain"]),
        ),
        (
            "filter by equality",
            r#".status.conditions[?(@.type=="Valid")].status"#,
            json!(["True"]),
        ),
        (
            "single-quoted operand",
            ".status.conditions[?(@.type=='Executed')].status",
            json!(["False"]),
        ),
        (
            "spaces around the operator",
            r#".status.conditions[?(@.type == "Valid")].reason"#,
            json!(["Ok"]),
        ),
        (
            "inequality skips items without the field",
            r#".status.conditions[?(@.type!="Valid")].status"#,
            json!(["False"]),
        ),
        (
            "no item passes",
            r#".status.conditions[?(@.type=="Nope")].status"#,
            json!([]),
        ),
        (
            "existence filter",
            ".status.conditions[?(@.reason)].type",
            json!(["Valid"]),
        ),
        (
            "a parenthesis inside a quoted operand",
            r#".status.conditions[?(@.type=="a)b")].status"#,
            json!([]),
        ),
        (
            "numeric comparison",
            ".spec.items[?(@.n>1)].n",
            json!([2, 3]),
        ),
        ("at most", ".spec.items[?(@.n<=1)].n", json!([1])),
        (
            "at least with spaces",
            ".spec.items[?(@.n >= 2)].n",
            json!([2, 3]),
        ),
        (
            "boolean equality",
            ".spec.toggles[?(@.on==true)].id",
            json!(["a"]),
        ),
        (
            "filter on a missing list",
            r#".status.missing[?(@.type=="Valid")]"#,
            json!([]),
        ),
    ];
    let object = eviction();
    for (rule, path, expected) in cases {
        assert_eq!(evaluate(path, &object), Ok(expected), "{rule}");
    }
}

#[test]
fn evaluation_errors_match_client_go() {
    let cases = [
        (
            "index beyond the end",
            ".spec.items[5].n",
            "array index out of bounds: index 5, length 3",
        ),
        (
            "indexing a map",
            ".spec.nested[0]",
            "map[string]interface {} is not array or slice",
        ),
        (
            "step must be positive",
            ".spec.items[0:2:0]",
            "step must be > 0",
        ),
        (
            "start after end",
            ".spec.items[2:1]",
            "starting index 2 is greater than ending index 1",
        ),
        (
            "filtering a map",
            ".spec[?(@.x)]",
            "map[string]interface {} is not array or slice and cannot be filtered",
        ),
        (
            "integer against float",
            ".spec.items[?(@.n==1.0)]",
            "incompatible types for comparison",
        ),
        (
            "integer against string",
            r#".spec.items[?(@.n=="1")]"#,
            "incompatible types for comparison",
        ),
        (
            "ordering booleans",
            ".spec.toggles[?(@.on>false)]",
            "invalid type for comparison",
        ),
        (
            "comparing a map",
            r#".spec.toggles[?(@=="x")]"#,
            "invalid type for comparison",
        ),
        (
            "unknown operator",
            ".spec.items[?(@.n=1)]",
            "unrecognized filter operator =",
        ),
        (
            "unknown identifier",
            ".spec.strategy range",
            "unrecognized identifier range",
        ),
    ];
    let object = eviction();
    for (rule, path, expected) in cases {
        let error = evaluate(path, &object).expect_err(rule);
        assert_eq!(error.0, expected, "{rule}");
    }
}

#[test]
fn malformed_paths_are_refused() {
    let cases = [
        ("unterminated index", ".a[", "unterminated array"),
        ("index that is no number", ".a[x]", "invalid array index x"),
        (
            "double-quoted key is no index",
            r#".a["x"]"#,
            r#"invalid array index "x""#,
        ),
        (
            "too many slice parts",
            ".a[1:2:3:4]",
            "invalid array index 1:2:3:4",
        ),
        (
            "a lone minus as index",
            ".a[-]",
            "array index - is not a number",
        ),
        (
            "filter without bracket",
            r#".a[?(@.x=="y")"#,
            "unclosed array expect ]",
        ),
        (
            "unterminated filter",
            r#".a[?(@.x=="y""#,
            "unterminated filter",
        ),
        (
            "unterminated quote",
            r#".a "b"#,
            "unterminated quoted string",
        ),
        (
            "bad escape in a quote",
            r#".a[?(@.x=="\q")]"#,
            r#"unquote string "\q" error invalid syntax"#,
        ),
        (
            "brace inside the path",
            "{.a}",
            "unrecognized character in action: U+007B '{'",
        ),
        (
            "two recursive descents in a row",
            ".a....b",
            "invalid multiple recursive descent",
        ),
        ("lone sign", "-", "cannot parse number -"),
        ("newline", ".a\n.b", "unclosed action"),
        (
            "unions are not supported",
            ".a[0,1]",
            "unions (0,1) are not supported in printer columns",
        ),
    ];
    for (rule, path, expected) in cases {
        let error = CompiledPath::parse(path).expect_err(rule);
        assert_eq!(error.0, expected, "{rule}");
    }
}

#[test]
fn literals_in_filters() {
    let words =
        json!({"items": [{"v": "it's", "k": 1}, {"v": "tab\there", "k": 2}, {"v": "é", "k": 3}]});
    let numbers = json!({"items": [{"v": -1.5, "k": 4}, {"v": 2.0, "k": 5}]});
    let cases = [
        (
            "escaped single quote",
            &words,
            r".items[?(@.v=='it\'s')].k",
            json!([1]),
        ),
        (
            "escaped tab",
            &words,
            r#".items[?(@.v=="tab\there")].k"#,
            json!([2]),
        ),
        (
            "unicode escape",
            &words,
            r#".items[?(@.v=="\u00e9")].k"#,
            json!([3]),
        ),
        (
            "negative float",
            &numbers,
            ".items[?(@.v==-1.5)].k",
            json!([4]),
        ),
        (
            "float ordering",
            &numbers,
            ".items[?(@.v>0.5)].k",
            json!([5]),
        ),
    ];
    for (rule, object, path, expected) in cases {
        assert_eq!(evaluate(path, object), Ok(expected), "{rule}");
    }
}
