//! `crds/` and `crds/sandbox/` hold exactly what `fleet-eviction crds [--sandbox]` prints, and
//! every CRD is one a Kubernetes API server accepts (structural schema, compilable rules).
//!
//! To regenerate after changing the types: `FLEET_EVICTION_UPDATE_CRDS=1 cargo test --test crds`.

mod support;

use std::collections::BTreeMap;

use fleet_eviction::api::crds;
use fleet_eviction::sandbox::schema::check_crd;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn expected_files(crds: &[CustomResourceDefinition]) -> BTreeMap<String, String> {
    crds.iter()
        .map(|crd| {
            (
                crds::file_name(crd),
                crds::to_yaml(std::slice::from_ref(crd)),
            )
        })
        .collect()
}

fn committed_files(dir: &str) -> BTreeMap<String, String> {
    std::fs::read_dir(support::repo_path(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .map(|path| {
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read_to_string(&path).expect("readable"))
        })
        .collect()
}

fn check_no_drift(dir: &str, crds: &[CustomResourceDefinition]) {
    let expected = expected_files(crds);
    if std::env::var_os("FLEET_EVICTION_UPDATE_CRDS").is_some() {
        for (name, yaml) in &expected {
            std::fs::write(support::repo_path(&format!("{dir}/{name}")), yaml).expect("writable");
        }
    }
    let committed = committed_files(dir);
    assert_eq!(
        committed.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{dir}/ holds other files than the generated CRDs; regenerate with FLEET_EVICTION_UPDATE_CRDS=1 cargo test --test crds"
    );
    for (name, yaml) in &expected {
        assert!(
            committed.get(name) == Some(yaml),
            "{dir}/{name} differs from the generated CRD; regenerate with FLEET_EVICTION_UPDATE_CRDS=1 cargo test --test crds"
        );
    }
}

#[test]
fn committed_crds_match_the_types() {
    check_no_drift("crds", &crds::owned());
    check_no_drift("crds/sandbox", &crds::sandbox_stand_ins());
}

#[test]
fn every_crd_is_structural_and_its_rules_compile() {
    for crd in crds::owned().iter().chain(crds::sandbox_stand_ins().iter()) {
        if let Err(problems) = check_crd(crd) {
            panic!("{} is not acceptable: {problems:#?}", crds::file_name(crd));
        }
    }
}

#[test]
fn owned_crds_have_the_spec_names_scopes_and_versions() {
    let owned = crds::owned();
    let names: Vec<_> = owned
        .iter()
        .map(|c| c.metadata.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            crds::CRPE_CRD_NAME,
            crds::CRPDB_CRD_NAME,
            crds::PMJ_CRD_NAME,
            crds::PMJP_CRD_NAME
        ]
    );
    let expect = [
        (
            "crpe",
            vec!["fleet", "fleet-placement"],
            vec![("v1beta1", true), ("v1alpha1", false)],
        ),
        (
            "crpdb",
            vec!["fleet", "fleet-placement"],
            vec![("v1beta1", true), ("v1alpha1", false)],
        ),
        ("pmj", vec![], vec![("v1alpha1", true)]),
        ("pmjp", vec![], vec![("v1alpha1", true)]),
    ];
    for (crd, (short, categories, versions)) in owned.iter().zip(expect) {
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(
            crd.spec.names.short_names.clone().unwrap_or_default(),
            vec![short]
        );
        assert_eq!(
            crd.spec.names.categories.clone().unwrap_or_default(),
            categories
        );
        let got: Vec<_> = crd
            .spec
            .versions
            .iter()
            .map(|v| (v.name.as_str(), v.storage))
            .collect();
        assert_eq!(got, versions, "{short}");
        assert!(crd.spec.versions.iter().all(|v| v.served));
    }
}

#[test]
fn printer_columns_are_the_spec_columns() {
    let columns = |crd: &CustomResourceDefinition, version: usize| -> Vec<(String, String, i32)> {
        crd.spec.versions[version]
            .additional_printer_columns
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.name, c.json_path, c.priority.unwrap_or(0)))
            .collect()
    };
    let owned = crds::owned();
    let col = |n: &str, p: &str, prio: i32| (n.to_string(), p.to_string(), prio);
    assert_eq!(
        columns(&owned[0], 0),
        vec![
            col(
                "Valid",
                r#".status.conditions[?(@.type=="Valid")].status"#,
                0
            ),
            col(
                "Executed",
                r#".status.conditions[?(@.type=="Executed")].status"#,
                0
            ),
            col(
                "Stage",
                r#".status.conditions[?(@.type=="Progressing")].reason"#,
                0
            ),
            col("Age", ".metadata.creationTimestamp", 0),
            col("Strategy", ".spec.strategy", 1),
        ]
    );
    assert!(
        columns(&owned[0], 1).is_empty(),
        "upstream v1alpha1 has no printer columns"
    );
    assert_eq!(
        columns(&owned[2], 0)
            .into_iter()
            .map(|c| c.0)
            .collect::<Vec<_>>(),
        [
            "Phase",
            "Status",
            "Age",
            "Node",
            "Reservation",
            "PodNamespace",
            "Pod",
            "NewPod",
            "TTL"
        ]
    );
    assert_eq!(
        columns(&owned[2], 0)
            .into_iter()
            .map(|c| c.1)
            .collect::<Vec<_>>(),
        [
            ".status.phase",
            ".status.status",
            ".metadata.creationTimestamp",
            ".status.nodeName",
            ".spec.reservationOptions.reservationRef.name",
            ".spec.podRef.namespace",
            ".spec.podRef.name",
            ".status.podRef.name",
            ".spec.ttl"
        ]
    );
    assert_eq!(
        columns(&owned[3], 0),
        vec![col("Age", ".metadata.creationTimestamp", 0)]
    );
}

#[test]
fn crd_tool_output_is_the_committed_files() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fleet-eviction"))
        .arg("crds")
        .output()
        .expect("runs");
    assert!(output.status.success());
    let committed: String = committed_files("crds").into_values().collect();
    let printed = String::from_utf8(output.stdout).expect("utf-8");
    let mut sorted_committed = committed
        .split("---\n")
        .filter(|d| !d.is_empty())
        .collect::<Vec<_>>();
    sorted_committed.sort();
    let mut sorted_printed = printed
        .split("---\n")
        .filter(|d| !d.is_empty())
        .collect::<Vec<_>>();
    sorted_printed.sort();
    assert_eq!(sorted_printed, sorted_committed);
}
