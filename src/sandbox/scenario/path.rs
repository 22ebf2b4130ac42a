//! Field paths in `where` and `fields`: kubectl's JSONPath (`.spec.state`,
//! `.status.conditions[?(@.type=="Valid")].status`), with or without the surrounding `{}`
//! and the leading dot, compared as `kubectl get -o jsonpath` would print them.

use crate::sandbox::table::jsonpath::CompiledPath;
use serde_json::Value;

/// Parses a path as written in a scenario.
pub fn compile(text: &str) -> Result<CompiledPath, String> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(trimmed);
    let path = if inner.starts_with('.') || inner.starts_with('[') {
        inner.to_string()
    } else {
        format!(".{inner}")
    };
    CompiledPath::parse(&path).map_err(|e| format!("bad path {text:?}: {e}"))
}

/// What kubectl prints for `path` on `object`: strings bare, other values as JSON, several
/// results separated by spaces, nothing when the path finds nothing.
pub fn printed(path: &CompiledPath, object: &Value) -> String {
    match path.evaluate(object) {
        Ok(values) => values
            .into_iter()
            .map(scalar_text)
            .collect::<Vec<_>>()
            .join(" "),
        Err(_) => String::new(),
    }
}

/// A value as the user wrote it or as kubectl prints it: `"2"` and `2` compare equal.
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_print_like_kubectl() {
        let object = json!({
            "spec": {"state": "Bound", "replicas": 2, "ready": true},
            "status": {"conditions": [{"type": "Valid", "status": "True"}, {"type": "Executed", "status": "False"}]}
        });
        let rows = [
            ("leading dot", ".spec.state", "Bound"),
            ("no leading dot", "spec.state", "Bound"),
            ("braces as kubectl takes them", "{.spec.state}", "Bound"),
            ("a number prints as JSON", ".spec.replicas", "2"),
            ("a boolean prints as JSON", ".spec.ready", "true"),
            (
                "a filter",
                r#".status.conditions[?(@.type=="Executed")].status"#,
                "False",
            ),
            (
                "several results",
                ".status.conditions[*].type",
                "Valid Executed",
            ),
            ("a missing field prints nothing", ".spec.nothing", ""),
        ];
        for (rule, text, want) in rows {
            let path = compile(text).unwrap_or_else(|e| panic!("{rule}: {e}"));
            assert_eq!(printed(&path, &object), want, "{rule}");
        }
    }

    #[test]
    fn a_bad_path_is_refused_with_its_text() {
        let err = compile(".status.conditions[?(@.type==").expect_err("unterminated filter");
        assert!(err.contains("bad path"), "{err}");
    }

    #[test]
    fn written_values_compare_as_printed() {
        assert_eq!(scalar_text(&json!(2)), "2");
        assert_eq!(scalar_text(&json!("2")), "2");
        assert_eq!(scalar_text(&json!(true)), "true");
        assert_eq!(scalar_text(&json!(null)), "");
    }
}
