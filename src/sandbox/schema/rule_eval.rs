//! Evaluation of `x-kubernetes-validations` rules on an object (the apiserver's CEL
//! validator): every rule runs at its node with `self` bound to the node's value; a rule
//! on an absent or null node does not run. Transition rules (using `oldSelf`) run only
//! where an old value correlates: through object properties and map keys, and through
//! map-list items of the same key — never through atomic or set list items.

use super::cel_engine;
use super::cel_value::to_cel;
use super::errors::{self, FieldError, FieldErrorKind};
use super::props::{self, Schema};
use super::validate::{OldItems, Options, Paths, old_child};
use cel::Value as CelValue;
use cel::objects::OptionalValue;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::ValidationRule;
use serde_json::Value;
use std::sync::Arc;

pub(crate) fn run(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    options: Options,
    out: &mut Vec<FieldError>,
) {
    let mut pass = RulePass {
        ratchet: options.ratchet,
        out,
    };
    pass.node(schema, new, old, &Paths::default(), options.resource_root);
}

struct RulePass<'o> {
    ratchet: bool,
    out: &'o mut Vec<FieldError>,
}

/// One node under evaluation.
struct Node<'a> {
    schema: &'a Schema,
    value: &'a Value,
    old: Option<&'a Value>,
    path: &'a Paths,
    resource_root: bool,
    unchanged: bool,
}

impl RulePass<'_> {
    fn node(&mut self, s: &Schema, v: &Value, old: Option<&Value>, p: &Paths, root: bool) {
        if v.is_null() {
            return;
        }
        let node = Node {
            schema: s,
            value: v,
            old,
            path: p,
            resource_root: root,
            unchanged: self.ratchet && old == Some(v),
        };
        for rule in props::rules(s) {
            self.eval(&node, rule);
        }
        match v {
            Value::Object(fields) => {
                for (k, child) in fields {
                    if let Some(cs) = props::property(s, k) {
                        let embedded = props::embedded(cs);
                        self.node(cs, child, old_child(old, k), &p.property(k), embedded);
                    } else if let Some(cs) = props::additional(s) {
                        let embedded = props::embedded(cs);
                        self.node(cs, child, old_child(old, k), &p.map_key(k), embedded);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = props::items(s) {
                    let olds = OldItems::new(s, old);
                    let embedded = props::embedded(item_schema);
                    for (i, item) in items.iter().enumerate() {
                        let old_item = olds.get(s, item);
                        self.node(item_schema, item, old_item, &p.item(i), embedded);
                    }
                }
            }
            _ => {}
        }
    }

    fn eval(&mut self, node: &Node<'_>, rule: &ValidationRule) {
        let type_name = Value::from(props::type_of(node.schema));
        let compiled = match cel_engine::compile(&rule.rule) {
            Ok(c) => c,
            Err(e) => {
                let detail = format!("compilation failed: {e}");
                self.push(node.path, FieldErrorKind::Invalid, type_name, detail);
                return;
            }
        };
        let optional_old = props::is_true(rule.optional_old_self);
        if compiled.uses_old_self && node.old.is_none() && !optional_old {
            return;
        }
        if node.unchanged && !compiled.uses_old_self {
            return;
        }
        let this = to_cel(Some(node.schema), node.value, node.resource_root);
        let old = node
            .old
            .map(|o| to_cel(Some(node.schema), o, node.resource_root));
        let old_self = match (optional_old, old) {
            (true, Some(o)) => CelValue::Opaque(Arc::new(OptionalValue::of(o))),
            (true, None) => CelValue::Opaque(Arc::new(OptionalValue::none())),
            (false, o) => o.unwrap_or(CelValue::Null),
        };
        let mut vars = vec![("self", &this)];
        if compiled.uses_old_self {
            vars.push(("oldSelf", &old_self));
        }
        match cel_engine::execute(&compiled, &vars) {
            Ok(CelValue::Bool(true)) => {}
            Ok(CelValue::Bool(false)) => self.fail(node, rule, &vars),
            Ok(other) => {
                let detail = format!(
                    "rule evaluated to {} instead of bool evaluating rule: {}",
                    other.type_of(),
                    rule_error_string(rule)
                );
                self.push(node.path, FieldErrorKind::Invalid, type_name, detail);
            }
            Err(e) => {
                let detail = format!(
                    "{} evaluating rule: {}",
                    lower_first(&e),
                    rule_error_string(rule)
                );
                self.push(node.path, FieldErrorKind::Invalid, type_name, detail);
            }
        }
    }

    fn fail(&mut self, node: &Node<'_>, rule: &ValidationRule, vars: &[(&str, &CelValue)]) {
        let message = rule
            .message_expression
            .as_deref()
            .and_then(|m| message_from_expression(m, vars))
            .unwrap_or_else(|| rule_message_or_default(rule));
        let field = match rule.field_path.as_deref().and_then(normalize_field_path) {
            Some(relative) => join(&node.path.field, &relative),
            None => node.path.field.clone(),
        };
        let type_name = Value::from(props::type_of(node.schema));
        let error = match rule.reason.as_deref() {
            Some("FieldValueForbidden") => {
                FieldError::new(&field, FieldErrorKind::Forbidden, None, message)
            }
            Some("FieldValueRequired") => {
                FieldError::new(&field, FieldErrorKind::Required, None, message)
            }
            // The apiserver's Duplicate error carries no detail: the message is dropped.
            Some("FieldValueDuplicate") => {
                FieldError::new(&field, FieldErrorKind::Duplicate, Some(type_name), "")
            }
            _ => FieldError::new(&field, FieldErrorKind::Invalid, Some(type_name), message),
        };
        self.out.push(error);
    }

    fn push(&mut self, p: &Paths, kind: FieldErrorKind, value: Value, detail: String) {
        self.out
            .push(FieldError::new(&p.field, kind, Some(value), detail));
    }
}

/// The message of a failed rule: its `messageExpression` if that yields a usable string
/// (non-empty, one line), else `None` and the static message applies, as in Kubernetes.
fn message_from_expression(expression: &str, vars: &[(&str, &CelValue)]) -> Option<String> {
    let compiled = cel_engine::compile(expression).ok()?;
    match cel_engine::execute(&compiled, vars) {
        Ok(CelValue::String(s)) if !s.trim().is_empty() && !s.contains('\n') => {
            Some(s.trim().to_string())
        }
        _ => None,
    }
}

/// The rule's own message, when it has a non-blank one.
fn own_message(rule: &ValidationRule) -> Option<String> {
    rule.message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_string)
}

fn rule_message_or_default(rule: &ValidationRule) -> String {
    own_message(rule).unwrap_or_else(|| format!("failed rule: {}", rule.rule.trim()))
}

fn rule_error_string(rule: &ValidationRule) -> String {
    own_message(rule).unwrap_or_else(|| rule.rule.trim().to_string())
}

/// cel-go's runtime errors are lower case (`no such key: x`); the crate capitalises them.
fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn join(base: &str, relative: &str) -> String {
    if base.is_empty() || relative.starts_with('[') {
        format!("{base}{relative}")
    } else {
        format!("{base}.{relative}")
    }
}

/// One step of a rule's `fieldPath`.
#[derive(Debug, PartialEq)]
pub(crate) enum Step {
    Field(String),
    Key(String),
}

/// Parses a `fieldPath` such as `.spec.replicas` or `.labels['app.kubernetes.io/name']`
/// (list indexes are not supported, as in Kubernetes). `None` if it does not parse.
pub(crate) fn parse_field_path(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = path.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Field(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']")?;
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end + 2..];
        } else {
            return None;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

fn normalize_field_path(path: &str) -> Option<String> {
    let steps = parse_field_path(path)?;
    Some(steps.iter().fold(String::new(), |acc, step| match step {
        Step::Field(name) => errors::child(&acc, name),
        Step::Key(k) => errors::key(&acc, k),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_parse_like_kubernetes() {
        let cases = [
            ("dotted fields", ".spec.replicas", Some("spec.replicas")),
            (
                "quoted key",
                ".labels['app.kubernetes.io/name']",
                Some("labels[app.kubernetes.io/name]"),
            ),
            ("key first", "['a']", Some("[a]")),
            ("index is unsupported", ".list[0]", None),
            ("missing dot", "spec", None),
            ("empty segment", "..a", None),
        ];
        for (rule, path, expected) in cases {
            assert_eq!(normalize_field_path(path).as_deref(), expected, "{rule}");
        }
    }

    #[test]
    fn messages_fall_back_like_kubernetes() {
        let rule = |message: Option<&str>| ValidationRule {
            rule: " self > 0 ".into(),
            message: message.map(String::from),
            ..Default::default()
        };
        let cases = [
            (
                "message wins",
                rule(Some(" must be positive ")),
                "must be positive",
            ),
            (
                "blank message falls back to the rule",
                rule(Some("  ")),
                "failed rule: self > 0",
            ),
            ("no message", rule(None), "failed rule: self > 0"),
        ];
        for (name, r, expected) in cases {
            assert_eq!(rule_message_or_default(&r), expected, "{name}");
        }
    }
}
