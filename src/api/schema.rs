//! Hand-written schema pieces the derives cannot express.

use schemars::{Schema, SchemaGenerator, json_schema};

/// An object kept exactly as written (`x-kubernetes-preserve-unknown-fields`), for fields whose
/// schema belongs to another project (Koordinator's reservation template).
pub fn preserve_unknown_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
}
