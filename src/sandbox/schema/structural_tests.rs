//! Decision tables for `check_crd`: CRD-level basics, the order of schema checks, and the
//! CRDs this project ships.

use super::*;
use serde_json::{Value, json};

/// A CRD `widgets.example.com` with one version `v1` whose schema is `schema`.
fn crd_with(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]
        }
    })
}

fn good_schema() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}})
}

fn check(crd: Value) -> Result<(), Vec<String>> {
    let crd: CustomResourceDefinition =
        serde_json::from_value(crd).unwrap_or_else(|e| panic!("bad test CRD: {e}"));
    check_crd(&crd)
}

/// Applies `edit` to a good CRD.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let mut crd = crd_with(good_schema());
    edit(&mut crd);
    crd
}

const V0: &str = "spec.versions[0].schema.openAPIV3Schema";

#[test]
fn crd_level_basics() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        ("a plain CRD is accepted", crd_with(good_schema()), vec![]),
        (
            "group is required",
            edited(|c| {
                c["spec"]["group"] = json!("");
                c["metadata"]["name"] = json!("widgets.");
            }),
            vec!["spec.group: Required value".into()],
        ),
        (
            "group needs a dot",
            edited(|c| {
                c["spec"]["group"] = json!("example");
                c["metadata"]["name"] = json!("widgets.example");
            }),
            vec![r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#.into()],
        ),
        (
            "name must be plural.group",
            edited(|c| c["metadata"]["name"] = json!("gadgets.example.com")),
            vec![r#"metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group"#.into()],
        ),
        (
            "kind is required",
            edited(|c| c["spec"]["names"]["kind"] = json!("")),
            vec!["spec.names.kind: Required value".into()],
        ),
        (
            "plural is required",
            edited(|c| {
                c["spec"]["names"]["plural"] = json!("");
                c["metadata"]["name"] = json!(".example.com");
            }),
            vec!["spec.names.plural: Required value".into()],
        ),
        (
            "scope must be Cluster or Namespaced",
            edited(|c| c["spec"]["scope"] = json!("Global")),
            vec![r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#.into()],
        ),
        (
            "at least one version",
            edited(|c| c["spec"]["versions"] = json!([])),
            vec![
                "spec.versions: Required value: must have at least one version".into(),
                "spec.versions: Invalid value: []string{}: must have exactly one version marked as storage version".into(),
            ],
        ),
        (
            "exactly one storage version",
            edited(|c| {
                let mut second = c["spec"]["versions"][0].clone();
                second["name"] = json!("v2");
                if let Some(v) = c["spec"]["versions"].as_array_mut() {
                    v.push(second);
                }
            }),
            vec![r#"spec.versions: Invalid value: []string{"v1", "v2"}: must have exactly one version marked as storage version"#.into()],
        ),
        (
            "v1 requires a schema",
            edited(|c| c["spec"]["versions"][0]["schema"] = json!(null)),
            vec![format!("{V0}: Required value: schemas are required")],
        ),
        (
            "printer columns: name, type and a jsonPath starting with a dot",
            edited(|c| {
                c["spec"]["versions"][0]["additionalPrinterColumns"] = json!([
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "", "type": "int", "jsonPath": "spec.replicas"}
                ]);
            }),
            vec![
                "spec.versions[0].additionalPrinterColumns[1].name: Required value".into(),
                r#"spec.versions[0].additionalPrinterColumns[1].type: Invalid value: "int": must be one of boolean,date,integer,number,string"#.into(),
                r#"spec.versions[0].additionalPrinterColumns[1].jsonPath: Invalid value: "spec.replicas": must be a simple json path starting with ."#.into(),
            ],
        ),
    ];
    for (rule, crd, expected) in cases {
        let got = check(crd).err().unwrap_or_default();
        assert_eq!(got, expected, "{rule}");
    }
}

#[test]
fn schema_checks_run_in_the_apiservers_order() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "structural errors carry the version path",
            json!({"type": "object", "properties": {"spec": {"properties": {"x": {"type": "string"}}}}}),
            vec![format!(
                "{V0}.properties[spec].type: Required value: must not be empty for specified object fields"
            )],
        ),
        (
            "a default must be pruned",
            json!({"type": "object", "properties": {"spec": {"type": "object", "default": {"unknown": 1}, "properties": {"x": {"type": "string"}}}}}),
            vec![format!(
                r#"{V0}.properties[spec].default: Invalid value: map[string]interface {{}}{{"unknown":1}}: must not have unknown fields"#
            )],
        ),
        (
            "a default must validate against its schema",
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": {"type": "integer", "default": "a"}}}}}),
            vec![format!(
                r#"{V0}.properties[spec].properties[x].default: Invalid value: "string": in body must be of type integer: "string""#
            )],
        ),
        (
            "nested defaults apply before a default is validated",
            json!({"type": "object", "properties": {"spec": {"type": "object", "default": {}, "required": ["x"],
                "properties": {"x": {"type": "integer", "default": 1}}}}}),
            vec![],
        ),
        (
            "a rule that does not compile rejects the CRD, naming rule and error",
            json!({"type": "object", "properties": {"spec": {"type": "object",
                "x-kubernetes-validations": [{"rule": "self.x =="}], "properties": {"x": {"type": "string"}}}}}),
            vec![format!(
                "{V0}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: \"self.x ==\": compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting {{'[', '{{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}\n | self.x ==\n | .........^"
            )],
        ),
        (
            "rules are compiled only once the schema is otherwise valid",
            json!({"type": "object", "properties": {"spec": {"type": "object", "uniqueItems": true,
                "x-kubernetes-validations": [{"rule": "self.x =="}]}}}),
            vec![format!(
                "{V0}.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        let got = check(crd_with(schema)).err().unwrap_or_default();
        assert_eq!(got, expected, "{rule}");
    }
}

#[test]
fn the_crds_we_ship_are_accepted() {
    let crds = crate::api::crds::owned()
        .into_iter()
        .chain(crate::api::crds::sandbox_stand_ins());
    for crd in crds {
        let name = crd.metadata.name.clone().unwrap_or_default();
        assert_eq!(check_crd(&crd), Ok(()), "{name}");
    }
}

#[test]
fn garbage_crds_never_panic() {
    let schemas = [
        json!({}),
        json!({"type": "array", "items": [{"type": "string"}], "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "a"]}),
        json!({"anyOf": [{"not": {"items": {"properties": {"metadata": {}}}}}], "allOf": [{}], "additionalProperties": false,
            "x-kubernetes-validations": [{"rule": ""}, {"rule": "(((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))", "fieldPath": "[0]", "reason": "Nope"}]}),
    ];
    for schema in schemas {
        let result = check(crd_with(schema));
        assert!(result.is_err());
    }
}

#[test]
fn the_crd_files_we_ship_are_accepted() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crds");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
    assert!(!files.is_empty(), "no CRDs under {}", dir.display());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let crd: CustomResourceDefinition =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_eq!(check_crd(&crd), Ok(()), "{}", file.display());
    }
}
