//! CRD acceptance: `check_crd` answers whether a real kube-apiserver (1.32) would accept a
//! `CustomResourceDefinition`, and if not, why, with the apiserver's messages and field
//! paths (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value:
//! must not be empty for specified object fields`).
//!
//! Per version, in the apiserver's order: the structural invariants; if they hold, the
//! defaults (pruned, and valid against their own schema); then the per-node schema checks;
//! and, if nothing else is wrong, every CEL rule must compile.

use super::crd_checks;
use super::errors::{FieldError, child, index, invalid, key, required};
use super::go_format::go_sharp_v;
use super::props::{self, Schema};
use super::prune::{apply_defaults, prune_with};
use super::schema_checks;
use super::structural_invariants;
use super::validate::{Options, validate_with};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// `Ok(())` if the CRD is acceptable; otherwise every reason, one message each.
pub fn check_crd(crd: &CustomResourceDefinition) -> Result<(), Vec<String>> {
    let mut errors = crd_checks::check(crd);
    for (i, version) in crd.spec.versions.iter().enumerate() {
        let schema_path = child(&index("spec.versions", i), "schema");
        let root_path = child(&schema_path, "openAPIV3Schema");
        match version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
        {
            None => errors.push(required(&root_path, "schemas are required")),
            Some(root) => errors.extend(check_schema(root, &root_path)),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// All findings for one version's schema.
pub(crate) fn check_schema(root: &Schema, path: &str) -> Vec<String> {
    let mut errors = structural_invariants::check(root, path);
    if errors.is_empty() {
        check_defaults(root, path, &mut errors);
    }
    let findings = schema_checks::check(root, path);
    let clean = errors.is_empty() && findings.schema.is_empty();
    errors.extend(findings.schema);
    // The apiserver compiles rules only for otherwise valid schemas (type information for
    // the compiler comes from them); the CRD is rejected either way.
    if clean {
        errors.extend(findings.cel);
    }
    errors
}

/// Every `default` must survive pruning unchanged and validate against its own schema.
fn check_defaults(s: &Schema, path: &str, out: &mut Vec<String>) {
    if let Some(default) = s.default.as_ref().map(|d| &d.0) {
        let embedded = props::embedded(s);
        let default_path = child(path, "default");
        let mut pruned = default.clone();
        prune_with(s, &mut pruned, embedded);
        if &pruned != default {
            let message = invalid(
                &default_path,
                &go_sharp_v(default),
                "must not have unknown fields",
            );
            out.push(message);
        } else {
            // Defaults inside the default apply before it is stored, so validate the
            // defaulted value (a lenient reading where the apiserver is unspecific).
            let mut value = default.clone();
            apply_defaults(s, &mut value);
            let options = Options {
                ratchet: false,
                resource_root: embedded,
            };
            for e in validate_with(s, &value, Some(&value), options) {
                out.push(relocate(&e, &default_path));
            }
        }
    }
    for (name, p) in s.properties.iter().flatten() {
        check_defaults(p, &key(&child(path, "properties"), name), out);
    }
    if let Some(item) = props::items(s) {
        check_defaults(item, &child(path, "items"), out);
    }
    if let Some(a) = props::additional(s) {
        check_defaults(a, &child(path, "additionalProperties"), out);
    }
}

/// An error found in a default, reported under the schema path of that default.
fn relocate(e: &FieldError, default_path: &str) -> String {
    let field = if e.field == "<nil>" {
        default_path.to_string()
    } else if e.field.starts_with('[') {
        format!("{default_path}{}", e.field)
    } else {
        format!("{default_path}.{}", e.field)
    };
    format!("{field}: {}", e.body())
}

#[cfg(test)]
#[path = "structural_tests.rs"]
mod tests;
