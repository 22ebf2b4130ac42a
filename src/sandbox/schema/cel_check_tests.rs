//! Decision tables for the static checks of CEL rules.
use super::*;
use serde_json::json;

fn schema(v: serde_json::Value) -> Schema {
    serde_json::from_value(v).unwrap_or_default()
}

#[test]
fn names_must_be_declared() {
    let cases = [
        ("self is declared", "self >= 0", Ok(false)),
        (
            "oldSelf marks a transition rule",
            "self == oldSelf",
            Ok(true),
        ),
        (
            "type names are identifiers",
            "type(self) == string",
            Ok(false),
        ),
        (
            "macro variables are bound",
            "self.all(t, self.filter(u, u == t).size() == 1)",
            Ok(false),
        ),
        (
            "namespaced functions",
            "math.abs(self) == optional.of(1).value()",
            Ok(false),
        ),
        (
            "extension member functions",
            "self.lowerAscii().trim() == 'a'",
            Ok(false),
        ),
        (
            "unknown variable",
            "foo == 1",
            Err("undeclared reference to 'foo'"),
        ),
        (
            "unknown function",
            "frobnicate(self)",
            Err("undeclared reference to 'frobnicate'"),
        ),
        (
            "unknown member function",
            "self.isSorted()",
            Err("undeclared reference to 'isSorted'"),
        ),
        (
            "macro variable out of scope",
            "self.all(x, true) && x",
            Err("undeclared reference to 'x'"),
        ),
    ];
    for (rule, source, expected) in cases {
        let program = cel_engine::env().compile(source);
        let got = program
            .map_err(|e| e.to_string())
            .and_then(|p| analyze(&p, source))
            .map(|a| a.uses_old_self);
        match (got, expected) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{rule}"),
            (Err(e), Err(fragment)) => assert!(e.contains(fragment), "{rule}: {e}"),
            (got, expected) => panic!("{rule}: got {:?}, expected {:?}", got.err(), expected),
        }
    }
}

#[test]
fn error_points_at_the_offending_name() {
    let source = "self > 0 &&\n  foo";
    let program = cel_engine::env().compile(source).map_err(|e| e.to_string());
    let err = program.and_then(|p| analyze(&p, source).map(|_| ()));
    assert_eq!(
        err,
        Err(
            "ERROR: <input>:2:3: undeclared reference to 'foo' (in container '')\n |   foo\n | ..^"
                .to_string()
        )
    );
}

#[test]
fn fields_must_exist_in_the_schema() {
    let spec = schema(json!({
        "type": "object",
        "properties": {
            "strategy": {"type": "string"},
            "maxUnavailable": {"x-kubernetes-int-or-string": true},
            "conditions": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "x-dashed": {"type": "string"}
        }
    }));
    let cases = [
        ("declared field", "has(self.strategy)", false, Ok(())),
        (
            "typo is an undefined field",
            "has(self.strategyy)",
            false,
            Err("undefined field 'strategyy'"),
        ),
        (
            "item fields are checked",
            "self.conditions.all(c, c.name != '')",
            false,
            Ok(()),
        ),
        (
            "item typo",
            "self.conditions.all(c, c.nmae != '')",
            false,
            Err("undefined field 'nmae'"),
        ),
        (
            "map keys are free",
            "self.labels.anything == 'x'",
            false,
            Ok(()),
        ),
        (
            "preserved objects are free",
            "self.raw.a.b == 1",
            false,
            Ok(()),
        ),
        (
            "int-or-string is dynamic",
            "self.maxUnavailable >= 0",
            false,
            Ok(()),
        ),
        (
            "escaped names",
            "self.x__dash__dashed == 'a'",
            false,
            Ok(()),
        ),
        (
            "scalars have no fields",
            "self.strategy.x == 1",
            false,
            Err("type 'string' does not support field selection"),
        ),
        (
            "root sees metadata.name",
            "self.metadata.name != ''",
            true,
            Ok(()),
        ),
        (
            "root hides other metadata",
            "has(self.metadata.labels)",
            true,
            Err("undefined field 'labels'"),
        ),
        ("root sees kind", "self.kind == 'X'", true, Ok(())),
    ];
    for (rule, source, root, expected) in cases {
        let program = cel_engine::env().compile(source).map_err(|e| e.to_string());
        let got = program.and_then(|p| check_fields(&p, source, &spec, root));
        match (got, expected) {
            (Ok(()), Ok(())) => {}
            (Err(e), Err(fragment)) => assert!(e.contains(fragment), "{rule}: {e}"),
            (got, expected) => panic!("{rule}: got {got:?}, expected {expected:?}"),
        }
    }
}
