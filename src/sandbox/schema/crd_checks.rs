//! CRD-level checks outside the schemas (`ValidateCustomResourceDefinitionSpec`): name,
//! group, scope, names, versions and their printer columns.

use super::errors::{child, index, invalid, not_supported, required};
use super::go_format::{go_quote, go_string_slice};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition,
};

const COLUMN_TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS: [&str; 8] = [
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
];

const DNS1035_MESSAGE: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

pub(crate) fn check(crd: &CustomResourceDefinition) -> Vec<String> {
    let mut out = Vec::new();
    let spec = &crd.spec;
    let names = &spec.names;

    let name = crd.metadata.name.as_deref().unwrap_or("");
    if name != format!("{}.{}", names.plural, spec.group) {
        out.push(invalid(
            "metadata.name",
            &go_quote(name),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if spec.group.is_empty() {
        out.push(required("spec.group", ""));
    } else if let Some(e) = dns1123_subdomain(&spec.group) {
        out.push(invalid("spec.group", &go_quote(&spec.group), &e));
    } else if !spec.group.contains('.') {
        out.push(invalid(
            "spec.group",
            &go_quote(&spec.group),
            "should be a domain with at least one dot",
        ));
    }
    match spec.scope.as_str() {
        "" => out.push(required("spec.scope", "")),
        "Cluster" | "Namespaced" => {}
        other => out.push(not_supported(
            "spec.scope",
            other,
            &["Cluster", "Namespaced"],
        )),
    }
    if spec.preserve_unknown_fields == Some(true) {
        let detail = "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead";
        out.push(invalid("spec.preserveUnknownFields", "true", detail));
    }

    check_names(crd, &mut out);

    let versions = &spec.versions;
    let shown: Vec<String> = versions.iter().map(|v| v.name.clone()).collect();
    let shown = go_string_slice(&shown);
    if versions.is_empty() {
        out.push(required("spec.versions", "must have at least one version"));
    }
    for (i, version) in versions.iter().enumerate() {
        let path = index("spec.versions", i);
        if let Some(e) = dns1035(&version.name) {
            out.push(invalid(&child(&path, "name"), &go_quote(&version.name), &e));
        }
        if versions[..i].iter().any(|v| v.name == version.name) {
            out.push(invalid(
                "spec.versions",
                &shown,
                "must contain unique version names",
            ));
        }
        for (j, column) in version
            .additional_printer_columns
            .iter()
            .flatten()
            .enumerate()
        {
            check_column(
                column,
                &index(&child(&path, "additionalPrinterColumns"), j),
                &mut out,
            );
        }
    }
    if versions.iter().filter(|v| v.storage).count() != 1 {
        out.push(invalid(
            "spec.versions",
            &shown,
            "must have exactly one version marked as storage version",
        ));
    }
    out
}

fn check_names(crd: &CustomResourceDefinition, out: &mut Vec<String>) {
    let names = &crd.spec.names;
    let mixed_case = |label: &str| {
        dns1035(&label.to_lowercase())
            .map(|e| format!("may have mixed case, but should otherwise match: {e}"))
    };
    if names.plural.is_empty() {
        out.push(required("spec.names.plural", ""));
    } else if let Some(e) = dns1035(&names.plural) {
        out.push(invalid("spec.names.plural", &go_quote(&names.plural), &e));
    }
    if let Some(singular) = names.singular.as_deref().filter(|s| !s.is_empty())
        && let Some(e) = dns1035(singular)
    {
        out.push(invalid("spec.names.singular", &go_quote(singular), &e));
    }
    if names.kind.is_empty() {
        out.push(required("spec.names.kind", ""));
    } else if let Some(e) = mixed_case(&names.kind) {
        out.push(invalid("spec.names.kind", &go_quote(&names.kind), &e));
    }
    if let Some(list_kind) = names.list_kind.as_deref().filter(|s| !s.is_empty()) {
        if let Some(e) = mixed_case(list_kind) {
            out.push(invalid("spec.names.listKind", &go_quote(list_kind), &e));
        }
        if list_kind == names.kind {
            out.push(invalid(
                "spec.names.listKind",
                &go_quote(list_kind),
                "kind and listKind may not be the same",
            ));
        }
    }
    let lists = [
        ("shortNames", &names.short_names),
        ("categories", &names.categories),
    ];
    for (field, list) in lists {
        for (i, item) in list.iter().flatten().enumerate() {
            if let Some(e) = dns1035(item) {
                let path = index(&child("spec.names", field), i);
                out.push(invalid(&path, &go_quote(item), &e));
            }
        }
    }
}

fn check_column(column: &CustomResourceColumnDefinition, path: &str, out: &mut Vec<String>) {
    let one_of = |set: &[&str]| format!("must be one of {}", set.join(","));
    if column.name.is_empty() {
        out.push(required(&child(path, "name"), ""));
    }
    if column.type_.is_empty() {
        out.push(required(&child(path, "type"), &one_of(&COLUMN_TYPES)));
    } else if !COLUMN_TYPES.contains(&column.type_.as_str()) {
        out.push(invalid(
            &child(path, "type"),
            &go_quote(&column.type_),
            &one_of(&COLUMN_TYPES),
        ));
    }
    if let Some(format) = column.format.as_deref().filter(|f| !f.is_empty())
        && !COLUMN_FORMATS.contains(&format)
    {
        out.push(invalid(
            &child(path, "format"),
            &go_quote(format),
            &one_of(&COLUMN_FORMATS),
        ));
    }
    let json_path = &column.json_path;
    let jp = child(path, "jsonPath");
    if json_path.is_empty() {
        out.push(required(&jp, ""));
    } else if !json_path.starts_with('.') {
        out.push(invalid(
            &jp,
            &go_quote(json_path),
            "must be a simple json path starting with .",
        ));
    }
}

/// `IsDNS1035Label`: the error message, or `None` when valid.
fn dns1035(label: &str) -> Option<String> {
    let bytes = label.as_bytes();
    let mut errors = Vec::new();
    if label.len() > 63 {
        errors.push("must be no more than 63 characters".to_string());
    }
    let well_formed = bytes.first().is_some_and(u8::is_ascii_lowercase)
        && bytes
            .last()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-');
    if !well_formed {
        errors.push(DNS1035_MESSAGE.to_string());
    }
    (!errors.is_empty()).then(|| errors.join(","))
}

/// `IsDNS1123Subdomain`: the error message, or `None` when valid.
fn dns1123_subdomain(value: &str) -> Option<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 characters".to_string());
    }
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        b.first().is_some_and(alnum)
            && b.last().is_some_and(alnum)
            && b.iter().all(|c| alnum(c) || *c == b'-')
    };
    if !value.split('.').all(label_ok) {
        errors.push(DNS1123_SUBDOMAIN_MESSAGE.to_string());
    }
    (!errors.is_empty()).then(|| errors.join(","))
}
