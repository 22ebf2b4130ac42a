//! Validation of an object against a CRD version's schema, as the apiserver's custom
//! resource strategy does it (Kubernetes 1.32):
//!
//! 1. the OpenAPI value checks (types, required, enum, pattern, lengths, bounds, list
//!    types), in `value_checks`;
//! 2. then the CEL rules, in `rule_eval` — unless step 1 found a "blocking" error (wrong
//!    type, missing required field, unsupported value, too long, too many): the rules would
//!    run on data of the wrong shape, so the apiserver skips them and says so;
//! 3. on update, validation ratcheting (on by default since 1.30): a node whose value is
//!    unchanged from the correlated old value keeps its errors to itself, so an object
//!    stored under an older, looser schema can still be updated elsewhere. Transition rules
//!    (those using `oldSelf`) are never ratcheted.
//!
//! Unknown fields are not errors here: pruning (`prune`) removes them first.

use super::errors::{self, FieldError, FieldErrorKind};
use super::props::{self, Schema};
use super::{rule_eval, value_checks};
use serde_json::Value;
use std::collections::HashMap;

const RULES_SKIPPED: &str = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// Validates `new` (the whole object: apiVersion, kind, metadata, spec, ...) against
/// `schema`, the `openAPIV3Schema` of its CRD version. `old` is the stored object on
/// update, `None` on create. Defaults are expected to be applied already.
pub fn validate(schema: &Schema, new: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let options = Options {
        ratchet: true,
        resource_root: true,
    };
    validate_with(schema, new, old, options)
}

#[derive(Clone, Copy)]
pub(crate) struct Options {
    /// Ignore errors on unchanged nodes (off when checking a schema's defaults).
    pub ratchet: bool,
    /// `schema` is the top of a resource: `metadata` is restricted for CEL.
    pub resource_root: bool,
}

pub(crate) fn validate_with(
    schema: &Schema,
    new: &Value,
    old: Option<&Value>,
    options: Options,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    SchemaPass {
        ratchet: options.ratchet,
        out: &mut errors,
    }
    .node(schema, new, old, &Paths::default());
    if props::has_rules(schema) {
        if errors.iter().any(|e| blocks_rules(e.kind)) {
            errors.push(FieldError::new(
                "",
                FieldErrorKind::Invalid,
                Some(Value::Null),
                RULES_SKIPPED,
            ));
        } else {
            rule_eval::run(schema, new, old, options, &mut errors);
        }
    }
    errors
}

fn blocks_rules(kind: FieldErrorKind) -> bool {
    use FieldErrorKind::*;
    matches!(
        kind,
        NotSupported | Required | TooLong | TooMany | TypeInvalid
    )
}

/// The two spellings of a node's path: field errors key maps as `labels[a]`, while the
/// OpenAPI validator's messages (and its field paths) write `labels.a`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Paths {
    pub field: String,
    pub openapi: String,
}

impl Paths {
    pub fn property(&self, name: &str) -> Paths {
        Paths {
            field: errors::child(&self.field, name),
            openapi: errors::child(&self.openapi, name),
        }
    }

    pub fn map_key(&self, k: &str) -> Paths {
        Paths {
            field: errors::key(&self.field, k),
            openapi: errors::child(&self.openapi, k),
        }
    }

    pub fn item(&self, i: usize) -> Paths {
        Paths {
            field: errors::index(&self.field, i),
            openapi: errors::index(&self.openapi, i),
        }
    }
}

/// The old value of a property, when the old object had one.
pub(crate) fn old_child<'a>(old: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    old.and_then(|o| o.get(key))
}

/// Correlates items of a `x-kubernetes-list-type: map` list with the old list's items of
/// the same key. Atomic and set lists have no correlation: their items are new values.
pub(crate) struct OldItems<'a> {
    by_key: HashMap<String, &'a Value>,
}

impl<'a> OldItems<'a> {
    pub fn new(schema: &Schema, old: Option<&'a Value>) -> OldItems<'a> {
        let mut by_key = HashMap::new();
        if props::list_type(schema) == "map"
            && let Some(Value::Array(items)) = old
        {
            for item in items {
                if let Some(k) = map_key(schema, item) {
                    by_key.entry(k).or_insert(item);
                }
            }
        }
        OldItems { by_key }
    }

    pub fn get(&self, schema: &Schema, item: &Value) -> Option<&'a Value> {
        if self.by_key.is_empty() {
            return None;
        }
        map_key(schema, item).and_then(|k| self.by_key.get(&k).copied())
    }
}

/// The identity of a map-list item: its key fields' values (a missing key counts as its
/// default, else as null), serialised.
pub(crate) fn map_key(list: &Schema, item: &Value) -> Option<String> {
    let fields = item.as_object()?;
    let item_schema = props::items(list);
    let values: Vec<Value> = props::list_map_keys(list)
        .iter()
        .map(|k| {
            fields
                .get(k)
                .cloned()
                .or_else(|| {
                    item_schema
                        .and_then(|s| props::property(s, k))
                        .and_then(|p| p.default.as_ref())
                        .map(|d| d.0.clone())
                })
                .unwrap_or(Value::Null)
        })
        .collect();
    serde_json::to_string(&values).ok()
}

struct SchemaPass<'o> {
    ratchet: bool,
    out: &'o mut Vec<FieldError>,
}

impl SchemaPass<'_> {
    fn node(&mut self, s: &Schema, v: &Value, old: Option<&Value>, p: &Paths) {
        if self.ratchet && old == Some(v) {
            return;
        }
        if !value_checks::check(s, v, p, self.out) {
            return;
        }
        match v {
            Value::Object(fields) => {
                value_checks::missing_required(s, fields, p, self.out);
                for (k, child) in fields {
                    if let Some(cs) = props::property(s, k) {
                        self.node(cs, child, old_child(old, k), &p.property(k));
                    } else if let Some(cs) = props::additional(s) {
                        self.node(cs, child, old_child(old, k), &p.map_key(k));
                    }
                }
            }
            Value::Array(items) => {
                value_checks::list_type(s, items, p, self.out);
                if let Some(item_schema) = props::items(s) {
                    let olds = OldItems::new(s, old);
                    for (i, item) in items.iter().enumerate() {
                        self.node(item_schema, item, olds.get(s, item), &p.item(i));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "validate_shape_tests.rs"]
mod shape_tests;

#[cfg(test)]
#[path = "validate_rule_tests.rs"]
mod rule_tests;
