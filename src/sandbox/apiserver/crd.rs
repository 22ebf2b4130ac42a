//! CustomResourceDefinitions: refused when not structural (as the real server does), and
//! once stored, their served versions become resources at once.

use super::resource::{ResourceType, Shape, Wire};
use super::state::State;
use super::status::ApiError;
use crate::sandbox::schema::check_crd;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};
use std::sync::Arc;

/// The admission check of a CRD write.
pub fn validate_crd(object: &Value) -> Result<(), ApiError> {
    let name = super::object::name(object);
    let crd: CustomResourceDefinition = serde_json::from_value(object.clone()).map_err(|e| {
        ApiError::bad_request(format!("error decoding CustomResourceDefinition: {e}"))
    })?;
    check_crd(&crd).map_err(|errors| {
        ApiError::invalid_messages(
            "CustomResourceDefinition",
            "apiextensions.k8s.io",
            name,
            &errors,
        )
    })?;
    // The real server only requires a printer column's path to start with a dot; a path it
    // cannot evaluate falls back to the default columns when tables are served.
    for (i, version) in crd.spec.versions.iter().enumerate() {
        for (j, column) in version
            .additional_printer_columns
            .iter()
            .flatten()
            .enumerate()
        {
            if !column.json_path.starts_with('.') {
                let message = format!(
                    "spec.versions[{i}].additionalPrinterColumns[{j}].jsonPath: Invalid value: \"{}\": must be a simple json path starting with .",
                    column.json_path
                );
                return Err(ApiError::invalid_messages(
                    "CustomResourceDefinition",
                    "apiextensions.k8s.io",
                    name,
                    &[message],
                ));
            }
        }
    }
    Ok(())
}

/// The resource types a stored CRD serves.
pub fn served_types(crd: &CustomResourceDefinition) -> Vec<ResourceType> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    let names = &crd.spec.names;
    let storage_version = crd
        .spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.clone())
        .unwrap_or_default();
    crd.spec
        .versions
        .iter()
        .filter(|v| v.served)
        .filter_map(|v| {
            let schema = v.schema.as_ref()?.open_api_v3_schema.clone()?;
            let mut subresources = Vec::new();
            if v.subresources.as_ref().is_some_and(|s| s.status.is_some()) {
                subresources.push("status".to_string());
            }
            Some(ResourceType {
                group: crd.spec.group.clone(),
                version: v.name.clone(),
                resource: names.plural.clone(),
                singular: names
                    .singular
                    .clone()
                    .unwrap_or_else(|| names.kind.to_lowercase()),
                kind: names.kind.clone(),
                namespaced: crd.spec.scope == "Namespaced",
                short_names: names.short_names.clone().unwrap_or_default(),
                categories: names.categories.clone().unwrap_or_default(),
                subresources,
                tracks_generation: true,
                wire: Wire::Same,
                shape: Shape::Custom(Arc::new(schema)),
                printer_columns: v
                    .additional_printer_columns
                    .as_ref()
                    .and_then(|c| serde_json::to_value(c).ok()),
                storage_version: storage_version.clone(),
                storage_group: crd.spec.group.clone(),
                crd: Some(name.clone()),
            })
        })
        .collect()
}

impl State {
    /// Keeps the registry in step with the stored CRDs, and marks a new CRD established.
    pub fn sync_crd(&mut self, old: Option<&Value>, new: Option<&Value>) {
        let parse = |v: &Value| serde_json::from_value::<CustomResourceDefinition>(v.clone()).ok();
        if let Some(old) = old.and_then(parse) {
            let name = old.metadata.name.clone().unwrap_or_default();
            self.registry.remove_crd(&name);
            if new.is_none() {
                for t in served_types(&old) {
                    self.store.drop_table(&t.storage_key());
                }
            }
        }
        let Some(new_value) = new else { return };
        let Some(crd) = parse(new_value) else { return };
        for t in served_types(&crd) {
            self.registry.insert(t);
        }
        self.mark_established(new_value, &crd);
    }

    fn mark_established(&mut self, current: &Value, crd: &CustomResourceDefinition) {
        let now = self.now();
        let stored_versions: Vec<String> = crd
            .spec
            .versions
            .iter()
            .filter(|v| v.storage)
            .map(|v| v.name.clone())
            .collect();
        let condition = |t: &str, reason: &str, message: &str| json!({"type": t, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message});
        let status = json!({
            "conditions": [
                condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
            ],
            "acceptedNames": serde_json::to_value(&crd.spec.names).unwrap_or(Value::Null),
            "storedVersions": stored_versions,
        });
        let same = |a: Option<&Value>| {
            a.and_then(|s| s.get("acceptedNames")) == status.get("acceptedNames")
                && a.and_then(|s| s.get("storedVersions")) == status.get("storedVersions")
        };
        if same(current.get("status")) {
            return;
        }
        let key =
            super::resource::StorageKey::new("apiextensions.k8s.io", "customresourcedefinitions");
        self.replace_status(&key, "", super::object::name(current), status);
    }
}
