//! Per-node checks of a CRD version's schema beyond structurality
//! (`ValidateCustomResourceDefinitionOpenAPISchema` in the apiserver): unsupported
//! keywords (`$ref`, `uniqueItems`, `additionalProperties: false`, ...) and regex patterns
//! here; list and map types in `list_map_checks`; rules in `rule_checks`. This walk also
//! tracks what those need: where defaults are forbidden, and where `oldSelf` stops
//! correlating.

use super::cel_engine;
use super::errors::{child, forbidden, index, invalid, key, not_supported};
use super::go_format::go_quote;
use super::props::{self, Schema};
use super::{list_map_checks, rule_checks};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Findings for one schema: CEL findings are kept apart because the apiserver only compiles
/// rules of schemas that are otherwise valid.
#[derive(Default)]
pub(crate) struct Findings {
    pub schema: Vec<String>,
    pub cel: Vec<String>,
}

#[derive(Clone, Default)]
struct Ctx {
    is_root: bool,
    inside_meta: bool,
    /// Why defaults are forbidden here, if they are.
    no_defaults: Option<String>,
    /// The highest schema path below which `oldSelf` has no correlated value.
    uncorrelatable: Option<String>,
}

impl Ctx {
    fn nested(&self) -> Ctx {
        Ctx {
            is_root: false,
            ..self.clone()
        }
    }

    fn forbid_old_self(&self, path: &str) -> Ctx {
        let mut c = self.nested();
        c.uncorrelatable.get_or_insert_with(|| path.to_string());
        c
    }
}

pub(crate) fn check(root: &Schema, path: &str) -> Findings {
    let mut findings = Findings::default();
    let ctx = Ctx {
        is_root: true,
        ..Ctx::default()
    };
    node(root, path, &ctx, &mut findings);
    findings
}

fn node(s: &Schema, path: &str, ctx: &Ctx, f: &mut Findings) {
    unsupported_keywords(s, path, ctx, &mut f.schema);
    if let Some(add) = &s.additional_properties {
        let with_properties = props::has_properties(s);
        match add {
            JSONSchemaPropsOrBool::Bool(false) | JSONSchemaPropsOrBool::Schema(_)
                if with_properties =>
            {
                let detail = "additionalProperties and properties are mutual exclusive";
                f.schema
                    .push(forbidden(&child(path, "additionalProperties"), detail));
            }
            // Kept from the brief of this checker: a closed object contradicts the
            // convention of ignoring unknown fields (pruning already drops them).
            JSONSchemaPropsOrBool::Bool(false) => {
                let detail = "additionalProperties cannot be set to false";
                f.schema
                    .push(forbidden(&child(path, "additionalProperties"), detail));
            }
            _ => {}
        }
        if let Some(a) = props::additional(s) {
            let mut sub = ctx.nested();
            if ctx.inside_meta {
                let reason = "inside additionalProperties applying to object metadata";
                sub.no_defaults = Some(reason.to_string());
            }
            node(a, &child(path, "additionalProperties"), &sub, f);
        }
    }
    let atomic_map = s.x_kubernetes_map_type.as_deref() == Some("atomic");
    for (name, p) in s.properties.iter().flatten() {
        let mut sub = if atomic_map {
            ctx.forbid_old_self(path)
        } else {
            ctx.nested()
        };
        if (ctx.is_root || props::embedded(s)) && META_FIELDS.contains(&name.as_str()) {
            sub.inside_meta = true;
            if ctx.is_root {
                sub.no_defaults = Some(format!("in top-level {name}"));
            }
        }
        node(p, &key(&child(path, "properties"), name), &sub, f);
    }
    if let Some(not) = &s.not {
        node(not, &child(path, "not"), &ctx.nested(), f);
    }
    for (name, list) in [
        ("allOf", &s.all_of),
        ("oneOf", &s.one_of),
        ("anyOf", &s.any_of),
    ] {
        for (i, sub) in list.iter().flatten().enumerate() {
            node(sub, &index(&child(path, name), i), &ctx.nested(), f);
        }
    }
    match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(item)) => {
            let sub = if props::list_type(s) == "map" {
                ctx.nested()
            } else {
                ctx.forbid_old_self(path)
            };
            node(item, &child(path, "items"), &sub, f);
        }
        Some(JSONSchemaPropsOrArray::Schemas(items)) => {
            for (i, item) in items.iter().enumerate() {
                node(item, &index(&child(path, "items"), i), &ctx.nested(), f);
            }
        }
        None => {}
    }
    if s.x_kubernetes_preserve_unknown_fields == Some(false) {
        let detail = "must be true or undefined";
        f.schema.push(invalid(
            &child(path, "x-kubernetes-preserve-unknown-fields"),
            "false",
            detail,
        ));
    }
    list_map_checks::map_and_list_types(s, path, &mut f.schema);
    if let Some(pattern) = s.pattern.as_deref()
        && let Err(e) = cel_engine::regex_matches("", pattern)
    {
        let detail = format!("must be a valid regular expression, but isn't: {e}");
        f.schema.push(invalid(
            &child(path, "pattern"),
            &go_quote(pattern),
            &detail,
        ));
    }
    let resource_root = ctx.is_root || props::embedded(s);
    let uncorrelatable = ctx.uncorrelatable.as_deref();
    rule_checks::rules(s, path, resource_root, uncorrelatable, f);
}

fn unsupported_keywords(s: &Schema, path: &str, ctx: &Ctx, out: &mut Vec<String>) {
    let t = props::type_of(s);
    if !t.is_empty() && t != "null" && !TYPES.contains(&t) {
        out.push(not_supported(&child(path, "type"), t, &TYPES));
    }
    if let (Some(_), Some(reason)) = (&s.default, &ctx.no_defaults) {
        out.push(forbidden(
            &child(path, "default"),
            &format!("must not be set {reason}"),
        ));
    }
    let unsupported = [
        (
            "id",
            s.id.as_deref().is_some_and(|i| !i.is_empty()),
            "id is not supported",
        ),
        (
            "additionalItems",
            s.additional_items.is_some(),
            "additionalItems is not supported",
        ),
        (
            "patternProperties",
            s.pattern_properties.as_ref().is_some_and(|p| !p.is_empty()),
            "patternProperties is not supported",
        ),
        (
            "definitions",
            s.definitions.as_ref().is_some_and(|d| !d.is_empty()),
            "definitions is not supported",
        ),
        (
            "dependencies",
            s.dependencies.is_some(),
            "dependencies is not supported",
        ),
        ("$ref", s.ref_path.is_some(), "$ref is not supported"),
        (
            "type",
            t == "null",
            "type cannot be set to null, use nullable as an alternative",
        ),
        (
            "items",
            matches!(&s.items, Some(JSONSchemaPropsOrArray::Schemas(_))),
            "items must be a schema object and not an array",
        ),
        (
            "x-kubernetes-embedded-resource",
            ctx.inside_meta && props::embedded(s),
            "must not be used inside of resource meta",
        ),
        (
            "uniqueItems",
            props::is_true(s.unique_items),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ),
    ];
    for (name, present, detail) in unsupported {
        if present {
            out.push(forbidden(&child(path, name), detail));
        }
    }
}

#[cfg(test)]
#[path = "schema_checks_tests.rs"]
mod tests;
