use super::*;
use serde_json::json;
use std::path::Path;

/// 2026-11-22T07:48:49Z
const CREATED: i64 = 1_795_333_729;
const CREATED_TEXT: &str = "2026-11-22T07:48:49Z";

/// The printer columns of the first version of a CRD manifest in this repository.
fn printer_columns_of(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).expect("CRD manifest is readable");
    let crd: Value = serde_saphyr::from_str(&text).expect("CRD manifest is YAML");
    crd.pointer("/spec/versions/0/additionalPrinterColumns")
        .cloned()
        .unwrap_or(Value::Null)
}

fn definitions(columns: &[Column]) -> Vec<(&str, &str, &str, i32)> {
    columns
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.type_.as_str(),
                c.format.as_str(),
                c.priority,
            )
        })
        .collect()
}

#[test]
fn eviction_crd_columns_and_row() {
    let printer = printer_columns_of(
        "crds/clusterresourceplacementevictions.placement.kubernetes-fleet.io.yaml",
    );
    let columns = crd_columns(Some(&printer)).expect("the CRPE columns parse");
    let expected = vec![
        ("Name", "string", "name", 0),
        ("Valid", "string", "", 0),
        ("Executed", "string", "", 0),
        ("Stage", "string", "", 0),
        ("Age", "date", "", 0),
        ("Strategy", "string", "", 1),
    ];
    assert_eq!(
        definitions(&columns),
        expected,
        "Name first, then the CRD's columns"
    );
    let described: Vec<&str> = columns.iter().map(|c| c.description.as_str()).collect();
    assert_eq!(
        described[0], NAME_DESCRIPTION,
        "Name is described by ObjectMeta's name doc"
    );
    assert_eq!(
        described[1],
        r#"Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Valid")].status"#,
        "a column without a description gets the path in its description"
    );

    let eviction = json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": "evict-web", "creationTimestamp": CREATED_TEXT, "resourceVersion": "7"},
        "spec": {"placementName": "web", "clusterName": "member-1", "strategy": "Plain"},
        "status": {"conditions": [
            {"type": "Valid", "status": "True", "reason": "ClusterResourcePlacementEvictionValid"},
            {"type": "Executed", "status": "False", "reason": "BudgetExhausted"},
        ]},
    });
    let got = row(&columns, &eviction, IncludeObject::None, CREATED + 300);
    let expected = json!({
        "cells": ["evict-web", "True", "False", null, "5m", "Plain"],
        "object": null,
    });
    assert_eq!(
        got, expected,
        "no Progressing condition gives a null Stage cell"
    );
}

#[test]
fn every_shipped_crd_has_usable_columns() {
    let files = [
        "crds/clusterresourceplacementdisruptionbudgets.placement.kubernetes-fleet.io.yaml",
        "crds/clusterresourceplacementevictions.placement.kubernetes-fleet.io.yaml",
        "crds/podmigrationjobprofiles.scheduling.koordinator.sh.yaml",
        "crds/podmigrationjobs.scheduling.koordinator.sh.yaml",
        "crds/sandbox/clusterresourcebindings.placement.kubernetes-fleet.io.yaml",
        "crds/sandbox/clusterresourceplacements.placement.kubernetes-fleet.io.yaml",
        "crds/sandbox/memberclusters.cluster.kubernetes-fleet.io.yaml",
    ];
    for file in files {
        let printer = printer_columns_of(file);
        let columns = crd_columns(Some(&printer)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(columns[0].name, "Name", "{file}: Name comes first");
        assert!(
            columns.iter().any(|c| c.name == "Age" && c.type_ == "date"),
            "{file}: every CRD shows an Age"
        );
    }
}

#[test]
fn binding_row_hides_nothing_but_marks_priority() {
    let printer = printer_columns_of(
        "crds/sandbox/clusterresourcebindings.placement.kubernetes-fleet.io.yaml",
    );
    let columns = crd_columns(Some(&printer)).expect("binding columns parse");
    let priorities: Vec<(&str, i32)> = columns
        .iter()
        .map(|c| (c.name.as_str(), c.priority))
        .collect();
    assert!(
        priorities.contains(&("ResourceAvailable", 1)),
        "a priority-1 column keeps its priority"
    );
    let binding = json!({
        "metadata": {"name": "web-member-1", "creationTimestamp": CREATED_TEXT},
        "status": {"conditions": [
            {"type": "WorkSynchronized", "status": "True"},
            {"type": "Applied", "status": "True"},
            {"type": "Available", "status": "False"},
        ]},
    });
    let got = row(
        &columns,
        &binding,
        IncludeObject::None,
        CREATED + 3 * 86_400 + 7_200,
    );
    assert_eq!(
        got["cells"],
        json!(["web-member-1", "True", "True", "False", "3d2h"]),
        "the server sends every column; clients hide priority ones"
    );
}

#[test]
fn crds_without_printer_columns_show_age() {
    let cases = [
        ("absent", None),
        ("null", Some(json!(null))),
        ("empty", Some(json!([]))),
    ];
    for (rule, printer) in cases {
        let columns = crd_columns(printer.as_ref()).expect(rule);
        assert_eq!(
            definitions(&columns),
            vec![("Name", "string", "name", 0), ("Age", "date", "", 0)],
            "{rule}"
        );
        assert_eq!(
            columns[1].description, CREATION_TIMESTAMP_DESCRIPTION,
            "{rule}"
        );
        let object = json!({"metadata": {"name": "a", "creationTimestamp": CREATED_TEXT}});
        let got = row(&columns, &object, IncludeObject::None, CREATED + 42);
        assert_eq!(got["cells"], json!(["a", "42s"]), "{rule}");
    }
}

#[test]
fn broken_printer_columns_are_reported() {
    let cases = [
        (
            "unparsable path",
            json!([{"name": "X", "type": "string", "jsonPath": ".a["}]),
            "unrecognized column definition \".a[\"",
        ),
        (
            "not a list",
            json!({"name": "X"}),
            "additionalPrinterColumns must be a list",
        ),
        (
            "priority not an integer",
            json!([{"name": "X", "type": "string", "jsonPath": ".a", "priority": "1"}]),
            "priority must be a 32-bit integer",
        ),
    ];
    for (rule, printer, expected) in cases {
        assert_eq!(
            crd_columns(Some(&printer)),
            Err(expected.to_string()),
            "{rule}"
        );
    }
}

#[test]
fn cells_follow_the_crd_convertor() {
    let now = CREATED + 10;
    let cases = [
        (
            "string: a string as it is",
            "string",
            json!("x"),
            json!("x"),
        ),
        ("string: an integer as text", "string", json!(5), json!("5")),
        (
            "string: a float as Go prints it",
            "string",
            json!(0.5),
            json!("0.5"),
        ),
        (
            "string: a large float in exponent form",
            "string",
            json!(1234567.5),
            json!("1.2345675e+06"),
        ),
        (
            "string: a boolean as text",
            "string",
            json!(true),
            json!("true"),
        ),
        (
            "string: null as template text",
            "string",
            json!(null),
            json!("<no value>"),
        ),
        (
            "string: a map as compact JSON",
            "string",
            json!({"b": 1, "a": "<"}),
            json!(r#"{"a":"\u003c","b":1}"#),
        ),
        (
            "string: a list as compact JSON",
            "string",
            json!([1, "x"]),
            json!(r#"[1,"x"]"#),
        ),
        ("integer: an integer", "integer", json!(5), json!(5)),
        (
            "integer: a float truncated",
            "integer",
            json!(2.7),
            json!(2),
        ),
        (
            "integer: a string is not one",
            "integer",
            json!("5"),
            json!(null),
        ),
        ("integer: null", "integer", json!(null), json!(null)),
        ("number: an integer", "number", json!(5), json!(5)),
        ("number: a float", "number", json!(2.5), json!(2.5)),
        (
            "number: a string is not one",
            "number",
            json!("2.5"),
            json!(null),
        ),
        ("boolean: a boolean", "boolean", json!(false), json!(false)),
        (
            "boolean: a string is not one",
            "boolean",
            json!("true"),
            json!(null),
        ),
        ("date: an age", "date", json!(CREATED_TEXT), json!("10s")),
        (
            "date: empty is the zero time",
            "date",
            json!(""),
            json!("<unknown>"),
        ),
        (
            "date: not RFC 3339",
            "date",
            json!("yesterday"),
            json!("<invalid>"),
        ),
        (
            "date: in the future",
            "date",
            json!("2026-11-22T07:49:49Z"),
            json!("<invalid>"),
        ),
        ("date: a number is not one", "date", json!(5), json!(null)),
        ("unknown type", "percent", json!(5), json!(null)),
    ];
    for (rule, column_type, value, expected) in cases {
        let printer = json!([{"name": "C", "type": column_type, "jsonPath": ".spec.value"}]);
        let columns = crd_columns(Some(&printer)).expect(rule);
        let object = json!({"metadata": {"name": "o"}, "spec": {"value": value}});
        let got = row(&columns, &object, IncludeObject::None, now);
        assert_eq!(got["cells"], json!(["o", expected]), "{rule}");
    }
}

#[test]
fn cells_without_a_single_result() {
    let object =
        json!({"metadata": {"name": "o"}, "spec": {"items": [{"n": 1}, {"n": 2}], "map": {}}});
    let cases = [
        ("missing field is null", ".spec.none", json!(null)),
        (
            "several results show the first",
            ".spec.items[*].n",
            json!(1),
        ),
        ("an evaluation error is null", ".spec.map[0]", json!(null)),
    ];
    for (rule, path, expected) in cases {
        let printer = json!([{"name": "C", "type": "integer", "jsonPath": path}]);
        let columns = crd_columns(Some(&printer)).expect(rule);
        let got = row(&columns, &object, IncludeObject::None, 0);
        assert_eq!(got["cells"][1], expected, "{rule}");
    }
}

#[test]
fn rows_carry_the_requested_object() {
    let object = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "ns", "creationTimestamp": CREATED_TEXT},
        "data": {"k": "v"},
    });
    let partial = json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": "cm", "namespace": "ns", "creationTimestamp": CREATED_TEXT},
    });
    let cases = [
        ("None carries nothing", IncludeObject::None, json!(null)),
        (
            "Metadata carries PartialObjectMetadata",
            IncludeObject::Metadata,
            partial,
        ),
        (
            "Object carries the whole object",
            IncludeObject::Object,
            object.clone(),
        ),
    ];
    for (rule, include, expected) in cases {
        let got = row(&default_columns(), &object, include, CREATED);
        assert_eq!(got["object"], expected, "{rule}");
    }
}

#[test]
fn include_object_query_values() {
    let cases = [
        ("absent is Metadata", None, Ok(IncludeObject::Metadata)),
        ("empty is Metadata", Some(""), Ok(IncludeObject::Metadata)),
        ("None", Some("None"), Ok(IncludeObject::None)),
        ("Object", Some("Object"), Ok(IncludeObject::Object)),
        (
            "case matters",
            Some("object"),
            Err("unrecognized includeObject value: \"object\"".to_string()),
        ),
    ];
    for (rule, value, expected) in cases {
        assert_eq!(IncludeObject::from_query(value), expected, "{rule}");
    }
}

#[test]
fn built_in_kinds_use_the_generic_columns() {
    let columns = default_columns();
    assert_eq!(
        definitions(&columns),
        vec![("Name", "string", "name", 0), ("Created At", "date", "", 0)],
        "Name and Created At"
    );
    let cases = [
        (
            "creation time in UTC",
            json!({"name": "a", "creationTimestamp": CREATED_TEXT}),
            json!(["a", CREATED_TEXT]),
        ),
        (
            "an offset is converted to UTC",
            json!({"name": "a", "creationTimestamp": "2026-11-22T08:48:49+01:00"}),
            json!(["a", CREATED_TEXT]),
        ),
        (
            "no creation time is Go's zero time",
            json!({"name": "a"}),
            json!(["a", "0001-01-01T00:00:00Z"]),
        ),
        (
            "no name is empty",
            json!({}),
            json!(["", "0001-01-01T00:00:00Z"]),
        ),
    ];
    for (rule, metadata, expected) in cases {
        let got = row(
            &columns,
            &json!({"metadata": metadata}),
            IncludeObject::None,
            CREATED,
        );
        assert_eq!(got["cells"], expected, "{rule}");
    }
}

#[test]
fn table_document() {
    let columns = default_columns();
    let object = json!({"metadata": {"name": "a", "creationTimestamp": CREATED_TEXT}});
    let rows = vec![row(&columns, &object, IncludeObject::None, CREATED)];
    let got = table(&columns, rows, json!({"resourceVersion": "12"}));
    let expected = json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": "12"},
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0},
            {"name": "Created At", "type": "date", "format": "", "description": CREATION_TIMESTAMP_DESCRIPTION, "priority": 0},
        ],
        "rows": [{"cells": ["a", CREATED_TEXT], "object": null}],
    });
    assert_eq!(got, expected, "a Table as kube-apiserver encodes it");
    let empty = table(&columns, Vec::new(), json!({}));
    assert_eq!(
        empty["rows"],
        json!([]),
        "an empty list has an empty rows array"
    );
}
