//! The structural-schema invariants (`ValidateStructural` in the apiserver): every node the
//! schema specifies has a type (int-or-string and preserve-unknown-fields nodes excepted),
//! value validations under `allOf`/`anyOf`/`oneOf`/`not` carry no types, defaults,
//! descriptions or extensions, `metadata` may only restrict `name`/`generateName`, and every
//! field a junctor mentions also exists outside the junctors. Messages are sorted, as the
//! apiserver sorts them.

use super::errors::{child, forbidden, index, invalid, key, required};
use super::go_format::go_quote;
use super::props::{self, Schema};
use super::value_checks::is_int_or_string_any_of;

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Item,
    Field,
}

/// Checks the schema rooted at `path` (e.g. `spec.versions[0].schema.openAPIV3Schema`).
pub(crate) fn check(root: &Schema, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    invariants(root, Level::Root, path, &mut out);
    junctor_completeness(root, root, path, path, &mut out);
    out.sort();
    out
}

fn prop_path(path: &str, name: &str) -> String {
    key(&child(path, "properties"), name)
}

fn invariants(s: &Schema, level: Level, path: &str, out: &mut Vec<String>) {
    let t = props::type_of(s);
    if t == "array" && s.items.is_none() {
        out.push(required(&child(path, "items"), "must be specified"));
    }
    if let Some(item) = props::items(s) {
        invariants(item, Level::Item, &child(path, "items"), out);
    }
    for (name, p) in s.properties.iter().flatten() {
        invariants(p, Level::Field, &prop_path(path, name), out);
    }
    if props::has_additional(s) && level == Level::Root {
        out.push(forbidden(
            &child(path, "additionalProperties"),
            "must not be used at the root",
        ));
    }
    if let Some(a) = props::additional(s) {
        invariants(a, Level::Field, &child(path, "additionalProperties"), out);
    }
    if props::int_or_string(s) && props::preserves_unknown(s) {
        let detail = "must be false if x-kubernetes-int-or-string is true";
        out.push(invalid(
            &child(path, "x-kubernetes-preserve-unknown-fields"),
            "true",
            detail,
        ));
    }
    if props::int_or_string(s) && props::embedded(s) {
        let detail = "must be false if x-kubernetes-int-or-string is true";
        out.push(invalid(
            &child(path, "x-kubernetes-embedded-resource"),
            "true",
            detail,
        ));
    }
    let skip_any_of = is_int_or_string_any_of(s.any_of.as_ref());
    let skip_first_all_of_any_of = s
        .all_of
        .as_ref()
        .and_then(|a| a.first())
        .is_some_and(|first| is_int_or_string_any_of(first.any_of.as_ref()));
    junctors(s, skip_any_of, skip_first_all_of_any_of, level, path, out);

    let type_path = child(path, "type");
    if props::embedded(s) && t != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        out.push(match t {
            "" => required(&type_path, detail),
            _ => invalid(&type_path, &go_quote(t), detail),
        });
    } else if t.is_empty() && !props::int_or_string(s) && !props::preserves_unknown(s) {
        out.push(required(
            &type_path,
            match level {
                Level::Root => "must not be empty at the root",
                Level::Item => "must not be empty for specified array items",
                Level::Field => "must not be empty for specified object fields",
            },
        ));
    }
    if props::embedded(s) && props::has_additional(s) {
        let detail = "must not be used if x-kubernetes-embedded-resource is set";
        out.push(forbidden(&child(path, "additionalProperties"), detail));
    }
    if level == Level::Root && !t.is_empty() && t != "object" {
        out.push(invalid(
            &type_path,
            &go_quote(t),
            "must be object at the root",
        ));
    }
    let check_metadata = level == Level::Root || props::embedded(s);
    for name in ["kind", "apiVersion"] {
        if let Some(p) = props::property(s, name).filter(|_| check_metadata)
            && props::type_of(p) != "string"
        {
            let value = go_quote(props::type_of(p));
            out.push(invalid(
                &child(&prop_path(path, name), "type"),
                &value,
                "must be string",
            ));
        }
    }
    if let Some(metadata) = props::property(s, "metadata") {
        metadata_invariants(
            metadata,
            check_metadata,
            level,
            &prop_path(path, "metadata"),
            out,
        );
    }
    if props::embedded(s) && !props::preserves_unknown(s) && !props::has_properties(s) {
        let detail = "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields";
        out.push(required(&child(path, "properties"), detail));
    }
}

fn metadata_invariants(m: &Schema, check: bool, level: Level, path: &str, out: &mut Vec<String>) {
    if check && props::type_of(m) != "object" {
        out.push(invalid(
            &child(path, "type"),
            &go_quote(props::type_of(m)),
            "must be object",
        ));
    }
    if level != Level::Root {
        return;
    }
    // Allowed: a type, a default (checked elsewhere), and restrictions of name and
    // generateName only; documentation fields are dropped from structural schemas.
    let mut rest = m.clone();
    rest.type_ = None;
    rest.default = None;
    rest.example = None;
    rest.external_docs = None;
    rest.schema = None;
    rest.id = None;
    let names_only = rest
        .properties
        .as_ref()
        .is_some_and(|p| !p.is_empty() && p.keys().all(|k| k == "name" || k == "generateName"));
    if names_only {
        rest.properties = None;
    }
    if rest != Schema::default() {
        let detail = "must not specify anything other than name and generateName, but metadata is implicitly specified";
        out.push(forbidden(path, detail));
    }
}

fn junctors(
    s: &Schema,
    skip_any_of: bool,
    skip_first: bool,
    level: Level,
    path: &str,
    out: &mut Vec<String>,
) {
    if !skip_any_of {
        for (i, sub) in s.any_of.iter().flatten().enumerate() {
            nested(sub, false, level, &index(&child(path, "anyOf"), i), out);
        }
    }
    for (i, sub) in s.all_of.iter().flatten().enumerate() {
        nested(
            sub,
            skip_first && i == 0,
            level,
            &index(&child(path, "allOf"), i),
            out,
        );
    }
    for (i, sub) in s.one_of.iter().flatten().enumerate() {
        nested(sub, false, level, &index(&child(path, "oneOf"), i), out);
    }
    if let Some(not) = &s.not {
        nested(not, false, level, &child(path, "not"), out);
    }
}

/// A schema under a junctor: value validations only.
fn nested(v: &Schema, skip_any_of: bool, level: Level, path: &str, out: &mut Vec<String>) {
    junctors(v, skip_any_of, false, level, path, out);
    if let Some(item) = props::items(v) {
        nested(item, false, level, &child(path, "items"), out);
    }
    for (name, p) in v.properties.iter().flatten() {
        nested(p, false, Level::Field, &prop_path(path, name), out);
    }
    let empty = "must be empty to be structural";
    let undefined = "must be undefined to be structural";
    let not_true = "must be false to be structural";
    let forbidden_here = [
        ("type", !props::type_of(v).is_empty(), empty),
        ("additionalProperties", props::has_additional(v), undefined),
        ("default", v.default.is_some(), undefined),
        (
            "title",
            v.title.as_deref().is_some_and(|t| !t.is_empty()),
            empty,
        ),
        (
            "description",
            v.description.as_deref().is_some_and(|d| !d.is_empty()),
            empty,
        ),
        ("nullable", props::nullable(v), not_true),
        (
            "x-kubernetes-preserve-unknown-fields",
            props::preserves_unknown(v),
            not_true,
        ),
        (
            "x-kubernetes-embedded-resource",
            props::embedded(v),
            not_true,
        ),
        (
            "x-kubernetes-int-or-string",
            props::int_or_string(v),
            not_true,
        ),
        (
            "x-kubernetes-list-map-keys",
            !props::list_map_keys(v).is_empty(),
            empty,
        ),
        (
            "x-kubernetes-list-type",
            v.x_kubernetes_list_type.is_some(),
            undefined,
        ),
        (
            "x-kubernetes-map-type",
            v.x_kubernetes_map_type.is_some(),
            undefined,
        ),
        (
            "x-kubernetes-validations",
            !props::rules(v).is_empty(),
            empty,
        ),
    ];
    for (name, present, detail) in forbidden_here {
        if present {
            out.push(forbidden(&child(path, name), detail));
        }
    }
    if props::property(v, "metadata").is_some() {
        out.push(forbidden(
            &prop_path(path, "metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// Every property or items a junctor of the root mentions must exist structurally (the
/// apiserver checks the root's junctors only).
fn junctor_completeness(v: &Schema, s: &Schema, s_path: &str, v_path: &str, out: &mut Vec<String>) {
    if let Some(not) = &v.not {
        nested_completeness(not, Some(s), s_path, &child(v_path, "not"), out);
    }
    let lists = [
        ("allOf", &v.all_of),
        ("anyOf", &v.any_of),
        ("oneOf", &v.one_of),
    ];
    for (name, list) in lists {
        for (i, sub) in list.iter().flatten().enumerate() {
            nested_completeness(sub, Some(s), s_path, &index(&child(v_path, name), i), out);
        }
    }
}

fn nested_completeness(
    v: &Schema,
    s: Option<&Schema>,
    s_path: &str,
    v_path: &str,
    out: &mut Vec<String>,
) {
    let Some(s) = s else {
        out.push(required(
            s_path,
            &format!("because it is defined in {v_path}"),
        ));
        return;
    };
    junctor_completeness(v, s, s_path, v_path, out);
    if let Some(item) = props::items(v) {
        let (sp, vp) = (child(s_path, "items"), child(v_path, "items"));
        nested_completeness(item, props::items(s), &sp, &vp, out);
    }
    for (name, p) in v.properties.iter().flatten() {
        let (sp, vp) = (prop_path(s_path, name), prop_path(v_path, name));
        match props::property(s, name) {
            Some(sp_schema) => nested_completeness(p, Some(sp_schema), &sp, &vp, out),
            None => out.push(required(&sp, &format!("because it is defined in {vp}"))),
        }
    }
}

#[cfg(test)]
#[path = "structural_invariants_tests.rs"]
mod tests;
