//! Create and update (PUT, and PATCH once the patch is applied), as `State` operations under
//! the server's lock.

use super::admit::{FieldValidation, normalise, validate_object};
use super::object::{self, metadata_mut};
use super::resource::{ResourceType, StorageKey};
use super::state::State;
use super::status::ApiError;
use super::store::Location;
use super::watch_event::EventType;
use serde_json::{Value, json};
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    pub field_manager: String,
    /// PATCH: the request carries no resourceVersion of its own unless the patch set one.
    pub is_patch: bool,
}

/// A stored (or, on dry run, would-be stored) object and the warnings for the client.
#[derive(Debug, Clone)]
pub struct Written {
    pub object: Arc<Value>,
    pub warnings: Vec<String>,
}

/// Which part of an object a write may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Main,
    Status,
}

impl State {
    pub fn create(
        &mut self,
        rt: &ResourceType,
        namespace: Option<&str>,
        object: Value,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let object = self.check_type_and_namespace(rt, namespace, object)?;
        let (mut object, unknown) = normalise(rt, object, opts.field_validation)?;
        self.name_object(rt, &mut object)?;
        reset_status_on_create(rt, &mut object);
        let now = self.now();
        let uid = self.rng.uid();
        {
            let meta = metadata_mut(&mut object);
            for field in [
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "resourceVersion",
            ] {
                meta.remove(field);
            }
            meta.insert("uid".into(), json!(uid));
            meta.insert("creationTimestamp".into(), json!(now));
            if rt.tracks_generation {
                meta.insert("generation".into(), json!(1));
            } else {
                meta.remove("generation");
            }
            set_managed_fields(meta, &opts.field_manager, "Update", &rt.api_version(), &now);
        }
        self.refuse_if_namespace_unusable(rt, &object)?;
        validate_object(rt, &object, None)?;
        let loc = location(rt, &object);
        if self.store.get(&loc.key, &loc.store_key).is_some() {
            return Err(ApiError::already_exists(&loc.key, object::name(&object)));
        }
        object["apiVersion"] = json!(storage_api_version(rt));
        if opts.dry_run {
            return Ok(Written {
                object: Arc::new(object),
                warnings: warnings(&unknown),
            });
        }
        let rv = self.store.next_resource_version();
        metadata_mut(&mut object).insert("resourceVersion".into(), json!(rv.to_string()));
        let stored = self.store.put(&loc, object, EventType::Added, rv);
        self.after_change(rt, &loc, None, Some(&stored));
        Ok(Written {
            object: stored,
            warnings: warnings(&unknown),
        })
    }

    pub fn update(
        &mut self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        part: Part,
        object: Value,
        opts: &WriteOptions,
    ) -> Result<Written, ApiError> {
        let object = self.check_type_and_namespace(rt, namespace, object)?;
        if object::name(&object) != name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({name})",
                object::name(&object)
            )));
        }
        let (loc, old) = self.existing(rt, namespace, name)?;
        self.check_resource_version(rt, &loc, &object, &old, opts)?;
        let (normalised, unknown) = normalise(rt, object, opts.field_validation)?;
        let mut new = merge_part(rt, part, normalised, &old);
        keep_system_metadata(&mut new, &old);
        if part == Part::Main && rt.tracks_generation {
            bump_generation(&mut new, &old);
        }
        refuse_new_finalizers_while_deleting(&loc, &new, &old)?;
        validate_object(rt, &new, Some(&old))?;
        new["apiVersion"] = json!(storage_api_version(rt));
        if unchanged(&new, &old) {
            return Ok(Written {
                object: old,
                warnings: warnings(&unknown),
            });
        }
        let now = self.now();
        set_managed_fields(
            metadata_mut(&mut new),
            &opts.field_manager,
            "Update",
            &rt.api_version(),
            &now,
        );
        if opts.dry_run {
            return Ok(Written {
                object: Arc::new(new),
                warnings: warnings(&unknown),
            });
        }
        let stored = self.store_update(rt, &loc, new, &old);
        Ok(Written {
            object: stored,
            warnings: warnings(&unknown),
        })
    }

    /// An object's location and its stored state, or NotFound.
    pub fn existing(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<(Location, Arc<Value>), ApiError> {
        let loc = Location {
            key: rt.storage_key(),
            store_key: object::store_key(namespace.unwrap_or(""), name),
        };
        let old = self
            .store
            .get(&loc.key, &loc.store_key)
            .cloned()
            .ok_or_else(|| ApiError::not_found(&loc.key, name))?;
        Ok((loc, old))
    }

    /// Replaces the status of a stored object, as the server itself does (CRD conditions,
    /// budget status); nothing happens when the object is gone.
    pub fn replace_status(&mut self, key: &StorageKey, namespace: &str, name: &str, status: Value) {
        let loc = Location {
            key: key.clone(),
            store_key: object::store_key(namespace, name),
        };
        let (Some(old), Some(rt)) = (
            self.store.get(&loc.key, &loc.store_key).cloned(),
            self.registry.for_storage(key),
        ) else {
            return;
        };
        let mut next = (*old).clone();
        next["status"] = status;
        self.store_update(&rt, &loc, next, &old);
    }

    /// Stores a new state of an existing object; removes it when a deletion's last
    /// finalizer is gone.
    pub fn store_update(
        &mut self,
        rt: &ResourceType,
        loc: &Location,
        mut new: Value,
        old: &Arc<Value>,
    ) -> Arc<Value> {
        let rv = self.store.next_resource_version();
        metadata_mut(&mut new).insert("resourceVersion".into(), json!(rv.to_string()));
        if object::is_deleting(&new) && !object::is_held(&new) {
            let last = self
                .store
                .remove(loc, new, rv)
                .unwrap_or_else(|| old.clone());
            self.after_change(rt, loc, Some(old), None);
            return last;
        }
        let stored = self.store.put(loc, new, EventType::Modified, rv);
        self.after_change(rt, loc, Some(old), Some(&stored));
        stored
    }

    fn check_type_and_namespace(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        mut object: Value,
    ) -> Result<Value, ApiError> {
        if !object.is_object() {
            return Err(ApiError::bad_request(
                "the body of the request must be a JSON object",
            ));
        }
        let expected = rt.api_version();
        match object.get("apiVersion").and_then(Value::as_str) {
            Some(v) if v != expected => {
                return Err(ApiError::bad_request(format!(
                    "the API version in the data ({v}) does not match the expected API version ({expected})"
                )));
            }
            _ => object["apiVersion"] = json!(expected),
        }
        match object.get("kind").and_then(Value::as_str) {
            Some(k) if k != rt.kind => {
                return Err(ApiError::bad_request(format!(
                    "the kind in the data ({k}) does not match the expected kind ({})",
                    rt.kind
                )));
            }
            _ => object["kind"] = json!(rt.kind),
        }
        let meta = metadata_mut(&mut object);
        if rt.namespaced {
            let path_ns = namespace.unwrap_or("");
            match meta.get("namespace").and_then(Value::as_str) {
                Some(ns) if !ns.is_empty() && ns != path_ns => {
                    return Err(ApiError::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ));
                }
                _ => {
                    meta.insert("namespace".into(), json!(path_ns));
                }
            }
        } else {
            meta.remove("namespace");
        }
        Ok(object)
    }

    fn name_object(&mut self, rt: &ResourceType, object: &mut Value) -> Result<(), ApiError> {
        if !object::name(object).is_empty() {
            return Ok(());
        }
        let prefix = object::meta_str(object, "generateName")
            .unwrap_or("")
            .to_string();
        if prefix.is_empty() {
            let error = crate::sandbox::schema::FieldError::new(
                "metadata.name",
                crate::sandbox::schema::FieldErrorKind::Required,
                None,
                "name or generateName is required",
            );
            return Err(ApiError::invalid(&rt.kind, &rt.group, "", &[error]));
        }
        let name = format!("{prefix}{}", self.rng.name_suffix());
        metadata_mut(object).insert("name".into(), json!(name));
        Ok(())
    }

    fn refuse_if_namespace_unusable(
        &self,
        rt: &ResourceType,
        object: &Value,
    ) -> Result<(), ApiError> {
        if !rt.namespaced {
            return Ok(());
        }
        let ns = object::namespace(object);
        let key = super::resource::StorageKey::new("", "namespaces");
        match self.store.get(&key, &object::store_key("", ns)) {
            None => Err(ApiError::not_found(&key, ns)),
            Some(n) if object::is_deleting(n) => Err(ApiError::forbidden(format!(
                "{} \"{}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated",
                rt.storage_key().qualified(),
                object::name(object)
            ))),
            Some(_) => Ok(()),
        }
    }

    fn check_resource_version(
        &self,
        rt: &ResourceType,
        loc: &Location,
        new: &Value,
        old: &Value,
        opts: &WriteOptions,
    ) -> Result<(), ApiError> {
        let given = object::resource_version(new);
        if given.is_empty() {
            if rt.is_custom() && !opts.is_patch {
                let error = crate::sandbox::schema::FieldError::new(
                    "metadata.resourceVersion",
                    crate::sandbox::schema::FieldErrorKind::Invalid,
                    Some(json!(0)),
                    "must be specified for an update",
                );
                return Err(ApiError::invalid(
                    &rt.kind,
                    &rt.group,
                    object::name(new),
                    &[error],
                ));
            }
            return Ok(());
        }
        if given != object::resource_version(old) {
            return Err(ApiError::modified(&loc.key, object::name(new)));
        }
        Ok(())
    }
}

pub fn location(rt: &ResourceType, object: &Value) -> Location {
    Location {
        key: rt.storage_key(),
        store_key: object::store_key(object::namespace(object), object::name(object)),
    }
}

fn storage_api_version(rt: &ResourceType) -> String {
    if rt.group.is_empty() {
        rt.storage_version.clone()
    } else if rt.storage_group != rt.group {
        // events.k8s.io Events are stored as core Events; wire.rs maps them.
        "v1".to_string()
    } else {
        format!("{}/{}", rt.group, rt.storage_version)
    }
}

/// A main-resource write cannot set status, and a new pod starts Pending.
fn reset_status_on_create(rt: &ResourceType, object: &mut Value) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    if rt.resource == "pods" && rt.group.is_empty() {
        map.insert("status".into(), json!({"phase": "Pending"}));
    } else if rt.has_status() && rt.is_custom() {
        map.remove("status");
    }
}

/// Main writes keep the old status; status writes keep everything but the status.
fn merge_part(rt: &ResourceType, part: Part, mut new: Value, old: &Value) -> Value {
    match part {
        Part::Main if rt.has_status() => {
            match old.get("status") {
                Some(s) => new["status"] = s.clone(),
                None => {
                    if let Some(m) = new.as_object_mut() {
                        m.remove("status");
                    }
                }
            }
            new
        }
        Part::Main => new,
        Part::Status => {
            let mut out = old.clone();
            match new.get_mut("status").map(Value::take) {
                Some(s) => out["status"] = s,
                None => {
                    if let Some(m) = out.as_object_mut() {
                        m.remove("status");
                    }
                }
            }
            // The request's resourceVersion is checked already; managed fields follow below.
            out
        }
    }
}

/// Fields only the server sets.
fn keep_system_metadata(new: &mut Value, old: &Value) {
    let old_meta = object::metadata(old).cloned().unwrap_or_default();
    let meta = metadata_mut(new);
    for field in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
        "name",
    ] {
        match old_meta.get(field) {
            Some(v) => meta.insert(field.into(), v.clone()),
            None => meta.remove(field),
        };
    }
}

fn bump_generation(new: &mut Value, old: &Value) {
    if object::generation_relevant(new) == object::generation_relevant(old) {
        return;
    }
    let generation = object::metadata(old)
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    metadata_mut(new).insert("generation".into(), json!(generation + 1));
}

fn refuse_new_finalizers_while_deleting(
    loc: &Location,
    new: &Value,
    old: &Value,
) -> Result<(), ApiError> {
    if !object::is_deleting(old) {
        return Ok(());
    }
    let before = object::finalizers(old);
    if object::finalizers(new).iter().any(|f| !before.contains(f)) {
        return Err(ApiError::forbidden(format!(
            "{} \"{}\" is forbidden: no new finalizers can be added if the object is being deleted",
            loc.key.qualified(),
            object::name(new)
        )));
    }
    Ok(())
}

/// Equal but for the fields every write changes: such a write is a no-op, as on a real server.
fn unchanged(new: &Value, old: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        let meta = metadata_mut(&mut v);
        meta.remove("resourceVersion");
        meta.remove("managedFields");
        v
    };
    strip(new) == strip(old)
}

/// One `managedFields` entry per manager and operation, with the time of its last write; the
/// field sets themselves are not tracked (no server-side apply).
fn set_managed_fields(
    meta: &mut serde_json::Map<String, Value>,
    manager: &str,
    operation: &str,
    api_version: &str,
    now: &str,
) {
    let manager = if manager.is_empty() {
        "unknown"
    } else {
        manager
    };
    let mut entries: Vec<Value> = meta
        .get("managedFields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    entries.retain(|e| {
        !(e.get("manager").and_then(Value::as_str) == Some(manager)
            && e.get("operation").and_then(Value::as_str) == Some(operation))
    });
    entries.push(json!({"manager": manager, "operation": operation, "apiVersion": api_version, "time": now, "fieldsType": "FieldsV1", "fieldsV1": {}}));
    meta.insert("managedFields".into(), Value::Array(entries));
}

fn warnings(unknown: &[String]) -> Vec<String> {
    unknown
        .iter()
        .map(|f| format!("unknown field \"{f}\""))
        .collect()
}
