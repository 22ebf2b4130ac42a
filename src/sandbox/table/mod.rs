//! `meta.k8s.io/v1` Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`),
//! as kube-apiserver renders it: a CRD version's `additionalPrinterColumns` (or the
//! default Age column) for custom resources, and the generic Name / Created At columns
//! for built-in kinds. `kubectl get` prints whatever these tables say.

mod age;
mod cells;
pub(crate) mod go_text;
pub mod jsonpath;
mod jsonpath_eval;
mod jsonpath_operands;
mod jsonpath_parse;
pub mod rfc3339;

pub use age::{age, human_duration};
pub use jsonpath::{CompiledPath, JsonPathError};
pub use rfc3339::{Instant, format_rfc3339, parse_rfc3339};

use serde_json::{Map, Value, json};

/// ObjectMeta's documentation of `name` and `creationTimestamp`: the server describes its
/// Name, Age and Created At columns with them.
const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATION_TIMESTAMP_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One column of a table: its definition and where its cells come from.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub type_: String,
    pub format: String,
    pub description: String,
    pub priority: i32,
    pub cell: CellSource,
}

/// Where a column's cells come from.
#[derive(Clone, Debug, PartialEq)]
pub enum CellSource {
    /// `metadata.name`.
    ObjectName,
    /// `metadata.creationTimestamp` as an RFC 3339 string (the generic convertor's column).
    CreatedAt,
    /// A printer column's JSONPath, the cell typed by the column's `type`.
    JsonPath(CompiledPath),
}

/// What each row carries besides its cells (the `includeObject` query parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    /// A `PartialObjectMetadata` with the object's metadata (the default).
    #[default]
    Metadata,
    Object,
}

impl IncludeObject {
    /// Reads `includeObject`; absent or empty is `Metadata`. The error is the message of
    /// the server's 400.
    pub fn from_query(value: Option<&str>) -> Result<Self, String> {
        match value.unwrap_or_default() {
            "" | "Metadata" => Ok(Self::Metadata),
            "None" => Ok(Self::None),
            "Object" => Ok(Self::Object),
            other => Err(format!(
                "unrecognized includeObject value: {}",
                go_text::go_quote(other)
            )),
        }
    }
}

/// The columns of a CRD version from its `additionalPrinterColumns` (a JSON list of
/// `{name, type, format, description, priority, jsonPath}`), after the Name column. With
/// no printer columns the server shows Age (`.metadata.creationTimestamp`, a date).
/// A path that does not parse gives the message kube-apiserver logs for it.
pub fn crd_columns(printer_columns: Option<&Value>) -> Result<Vec<Column>, String> {
    let definitions = match printer_columns {
        None | Some(Value::Null) => &Vec::new(),
        Some(Value::Array(definitions)) => definitions,
        Some(_) => return Err("additionalPrinterColumns must be a list".to_string()),
    };
    let mut columns = vec![name_column()];
    if definitions.is_empty() {
        columns.push(default_age_column()?);
        return Ok(columns);
    }
    for definition in definitions {
        columns.push(printer_column(definition)?);
    }
    Ok(columns)
}

/// The generic columns kube-apiserver gives kinds without their own printer: Name and
/// "Created At" (a `date` column whose cells are RFC 3339 timestamps, not ages).
pub fn default_columns() -> Vec<Column> {
    vec![
        name_column(),
        Column {
            name: "Created At".to_string(),
            type_: "date".to_string(),
            format: String::new(),
            description: CREATION_TIMESTAMP_DESCRIPTION.to_string(),
            priority: 0,
            cell: CellSource::CreatedAt,
        },
    ]
}

/// One table row for `object`: `{"cells": [...], "object": ...}`. `now` (unix seconds)
/// is the moment ages are computed at.
pub fn row(columns: &[Column], object: &Value, include: IncludeObject, now: i64) -> Value {
    let cells: Vec<Value> = columns
        .iter()
        .map(|column| match &column.cell {
            CellSource::ObjectName => cells::name_cell(object),
            CellSource::CreatedAt => cells::created_at_cell(object),
            CellSource::JsonPath(path) => cells::path_cell(&column.type_, path, object, now),
        })
        .collect();
    json!({ "cells": cells, "object": included_object(object, include) })
}

/// The Table: `list_metadata` is the list's `metadata` (resourceVersion, continue,
/// remainingItemCount), or `{"resourceVersion": ...}` of a single object.
pub fn table(columns: &[Column], rows: Vec<Value>, list_metadata: Value) -> Value {
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_metadata,
        "columnDefinitions": column_definitions(columns),
        "rows": rows,
    })
}

/// The `columnDefinitions` of a Table.
pub fn column_definitions(columns: &[Column]) -> Value {
    let definitions: Vec<Value> = columns
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "type": c.type_,
                "format": c.format,
                "description": c.description,
                "priority": c.priority,
            })
        })
        .collect();
    Value::Array(definitions)
}

fn included_object(object: &Value, include: IncludeObject) -> Value {
    match include {
        IncludeObject::None => Value::Null,
        IncludeObject::Object => object.clone(),
        IncludeObject::Metadata => json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": object.get("metadata").cloned().unwrap_or_else(|| Value::Object(Map::new())),
        }),
    }
}

fn name_column() -> Column {
    Column {
        name: "Name".to_string(),
        type_: "string".to_string(),
        format: "name".to_string(),
        description: NAME_DESCRIPTION.to_string(),
        priority: 0,
        cell: CellSource::ObjectName,
    }
}

fn default_age_column() -> Result<Column, String> {
    let definition = json!({
        "name": "Age",
        "type": "date",
        "description": CREATION_TIMESTAMP_DESCRIPTION,
        "jsonPath": ".metadata.creationTimestamp",
    });
    printer_column(&definition)
}

fn printer_column(definition: &Value) -> Result<Column, String> {
    let text = |field: &str| -> Result<String, String> {
        match definition.get(field) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!("{field} must be a string")),
        }
    };
    let priority = match definition.get("priority") {
        None | Some(Value::Null) => 0,
        Some(p) => p
            .as_i64()
            .and_then(|p| i32::try_from(p).ok())
            .ok_or("priority must be a 32-bit integer")?,
    };
    let json_path = text("jsonPath")?;
    let path =
        CompiledPath::parse(&json_path).map_err(|_| jsonpath::unrecognized_column(&json_path))?;
    let description = match text("description")? {
        d if d.is_empty() => {
            format!("Custom resource definition column (in JSONPath format): {json_path}")
        }
        d => d,
    };
    Ok(Column {
        name: text("name")?,
        type_: text("type")?,
        format: text("format")?,
        description,
        priority,
        cell: CellSource::JsonPath(path),
    })
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
