//! CRD-time checks of `x-kubernetes-validations`: the rule's fields are well formed, and
//! the rule compiles, names only fields of its node's schema, and uses `oldSelf` only
//! where old values correlate.

use super::cel_check;
use super::cel_engine;
use super::errors::{child, index, invalid, not_supported, required};
use super::go_format::go_quote;
use super::props::{self, Schema};
use super::rule_eval::{Step, parse_field_path};
use super::schema_checks::Findings;

const REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// `resource_root`: the node is the object's root or an embedded resource. `uncorrelatable`:
/// the highest schema path above this node below which `oldSelf` has no old value.
pub(crate) fn rules(
    s: &Schema,
    path: &str,
    resource_root: bool,
    uncorrelatable: Option<&str>,
    f: &mut Findings,
) {
    for (i, rule) in props::rules(s).iter().enumerate() {
        let rule_path = index(&child(path, "x-kubernetes-validations"), i);
        let at = |name: &str| child(&rule_path, name);
        let trimmed_rule = rule.rule.trim();
        let message = rule.message.as_deref().unwrap_or("");
        let message_expression = rule.message_expression.as_deref().unwrap_or("");
        if trimmed_rule.is_empty() {
            f.schema
                .push(required(&at("rule"), "rule is not specified"));
        } else if !message.is_empty() && message.trim().is_empty() {
            f.schema.push(invalid(
                &at("message"),
                &go_quote(message),
                "message must be non-empty if specified",
            ));
        } else if message.trim().contains(['\n', '\r']) {
            f.schema.push(invalid(
                &at("message"),
                &go_quote(message),
                "message must not contain line breaks",
            ));
        } else if trimmed_rule.contains(['\n', '\r'])
            && message.trim().is_empty()
            && message_expression.trim().is_empty()
        {
            f.schema.push(required(
                &at("message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if !message_expression.is_empty() && message_expression.trim().is_empty() {
            f.schema.push(required(
                &at("messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if let Some(reason) = rule.reason.as_deref().filter(|r| !REASONS.contains(r)) {
            f.schema
                .push(not_supported(&at("reason"), reason, &REASONS));
        }
        if let Some(field_path) = rule.field_path.as_deref().filter(|p| !p.is_empty())
            && !field_path_valid(s, field_path)
        {
            f.schema.push(invalid(
                &at("fieldPath"),
                &go_quote(field_path),
                "fieldPath must be a valid path",
            ));
        }
        if trimmed_rule.is_empty() {
            continue;
        }
        let root = resource_root;
        match compile_rule(&rule.rule, s, root) {
            Err(e) => f.cel.push(invalid(
                &at("rule"),
                &go_quote(&rule.rule),
                &format!("compilation failed: {e}"),
            )),
            Ok(uses_old_self) => {
                if let (true, Some(within)) = (uses_old_self, uncorrelatable) {
                    let detail = format!(
                        "oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"
                    );
                    f.cel
                        .push(invalid(&at("rule"), &go_quote(&rule.rule), &detail));
                }
            }
        }
        if !message_expression.trim().is_empty()
            && let Err(e) = compile_rule(message_expression, s, root)
        {
            let detail = format!("messageExpression compilation failed: {e}");
            f.cel.push(invalid(
                &at("messageExpression"),
                &go_quote(message_expression),
                &detail,
            ));
        }
    }
}

/// Compiles and checks a rule against the node's schema; returns whether it uses `oldSelf`.
fn compile_rule(source: &str, s: &Schema, resource_root: bool) -> Result<bool, String> {
    let compiled = cel_engine::compile(source)?;
    cel_check::check_fields(&compiled.program, source, s, resource_root)?;
    Ok(compiled.uses_old_self)
}

/// A `fieldPath` must name a field the schema specifies (through properties and map keys).
fn field_path_valid(s: &Schema, path: &str) -> bool {
    let Some(steps) = parse_field_path(path) else {
        return false;
    };
    let mut current = s;
    for step in &steps {
        if props::preserves_unknown(current) && !props::has_properties(current) {
            return true;
        }
        let name = match step {
            Step::Field(n) | Step::Key(n) => n,
        };
        match props::child(current, name) {
            Some(next) => current = next,
            None => return false,
        }
    }
    true
}
