//! The examples are valid against their CRDs, and invalid objects are refused with the
//! messages of the spec — checked with the schema validator and CEL evaluator the sandbox
//! API server uses.

mod support;

use fleet_eviction::api::crds;
use fleet_eviction::sandbox::schema::{prune, validate};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};
use serde_json::{Value, json};

fn schema_for(kind: &str) -> JSONSchemaProps {
    let crd: CustomResourceDefinition = crds::owned()
        .into_iter()
        .find(|crd| crd.spec.names.kind == kind)
        .unwrap_or_else(|| panic!("no CRD for {kind}"));
    let storage = crd
        .spec
        .versions
        .iter()
        .find(|v| v.storage)
        .expect("a storage version");
    storage
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.clone())
        .expect("a schema")
}

/// The API server's note when a type, required or enum error stops CEL rules from running.
const RULES_SKIPPED: &str = "some validation rules were not checked because the object was invalid; \
correct the existing errors to complete validation";

fn errors(kind: &str, new: &Value, old: Option<&Value>) -> Vec<String> {
    validate(&schema_for(kind), new, old)
        .iter()
        .map(|e| e.to_message())
        .collect()
}

#[test]
fn every_example_is_valid_and_loses_nothing_to_pruning() {
    for path in support::example_files() {
        let object = support::read_yaml(&path);
        let kind = object["kind"].as_str().expect("kind").to_string();
        let found = errors(&kind, &object, None);
        assert!(
            found.is_empty(),
            "{} is invalid: {found:#?}",
            path.display()
        );
        let mut pruned = object.clone();
        let dropped = prune(&schema_for(&kind), &mut pruned);
        assert!(
            dropped.is_empty(),
            "{}: fields unknown to the CRD: {dropped:?}",
            path.display()
        );
        assert_eq!(pruned, object);
    }
}

fn eviction(spec: Value) -> Value {
    json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": "e"},
        "spec": spec
    })
}

fn budget(spec: Value) -> Value {
    json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementDisruptionBudget",
        "metadata": {"name": "b"},
        "spec": spec
    })
}

fn job(spec: Value) -> Value {
    json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJob",
        "metadata": {"name": "j"},
        "spec": spec
    })
}

fn profile(spec: Value) -> Value {
    json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJobProfile",
        "metadata": {"name": "p"},
        "spec": spec
    })
}

const INT_OR_PERCENT: &str = "If supplied value is String should match regex '^(100|[0-9]{1,2})%$' or If supplied value is Integer must be greater than or equal to 0";
const FLEET_RESERVED: &str = "Eviction condition names must not be one of Valid, Executed, Progressing, BudgetReserved, ExternalEvacuation";
const POD_RESERVED: &str = "Eviction condition names must not be one of ReservationCreated, ReservationScheduled, Preemption, Eviction, PodScheduled, PodBoundReservation, BoundPodReady, ReservationBound, ExternalEvacuation";

/// (rule checked, kind, object, expected: None = valid, Some(text) = one error containing it)
fn creation_cases() -> Vec<(&'static str, &'static str, Value, Option<String>)> {
    let e = "ClusterResourcePlacementEviction";
    let b = "ClusterResourcePlacementDisruptionBudget";
    let j = "PodMigrationJob";
    let p = "PodMigrationJobProfile";
    let pc = json!({"placementName": "web", "clusterName": "m1"});
    let with = |extra: Value| {
        let mut spec = pc.clone();
        for (k, v) in extra.as_object().expect("object") {
            spec[k] = v.clone();
        }
        eviction(spec)
    };
    let gates = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"name": format!("Gate{i}")}))
                .collect(),
        )
    };
    vec![
        ("budget: both fields", b, budget(json!({"minAvailable": 1, "maxUnavailable": 1})),
            Some("spec: Invalid value: \"object\": Both MaxUnavailable and MinAvailable cannot be specified".into())),
        ("budget: percentage above 100", b, budget(json!({"maxUnavailable": "101%"})), Some(INT_OR_PERCENT.into())),
        ("budget: negative integer", b, budget(json!({"minAvailable": -1})), Some(INT_OR_PERCENT.into())),
        ("budget: not a percentage", b, budget(json!({"minAvailable": "two"})), Some(INT_OR_PERCENT.into())),
        ("budget: integer", b, budget(json!({"minAvailable": 2})), None),
        ("budget: zero", b, budget(json!({"maxUnavailable": 0})), None),
        ("budget: 100%", b, budget(json!({"minAvailable": "100%"})), None),
        ("budget: leading zero percentage", b, budget(json!({"maxUnavailable": "02%"})), None),
        ("budget: empty spec is valid", b, budget(json!({})), None),
        ("eviction: plain", e, eviction(pc.clone()), None),
        ("eviction: clusterName required", e, eviction(json!({"placementName": "web"})),
            Some("spec.clusterName: Required value".into())),
        ("eviction: placementName required", e, eviction(json!({"clusterName": "m1"})),
            Some("spec.placementName: Required value".into())),
        ("eviction: placementName at most 255", e, eviction(json!({"placementName": "p".repeat(256), "clusterName": "m1"})),
            Some("spec.placementName: Too long".into())),
        ("eviction: gate named Valid", e, with(json!({"evictionConditions": [{"name": "Valid"}]})), Some(FLEET_RESERVED.into())),
        ("eviction: gate named BudgetReserved", e, with(json!({"evictionConditions": [{"name": "Ok"}, {"name": "BudgetReserved"}]})),
            Some(FLEET_RESERVED.into())),
        ("eviction: gate with a domain prefix", e, with(json!({"evictionConditions": [{"name": "risk.example.com/Approved"}]})), None),
        ("eviction: gate name syntax", e, with(json!({"evictionConditions": [{"name": "not a condition"}]})),
            Some("spec.evictionConditions[0].name: Invalid value".into())),
        ("eviction: 16 gates allowed", e, with(json!({"evictionConditions": gates(16)})), None),
        ("eviction: 17 gates refused", e, with(json!({"evictionConditions": gates(17)})),
            Some("spec.evictionConditions: Too many".into())),
        ("eviction: gate names unique", e, with(json!({"evictionConditions": [{"name": "A"}, {"name": "A"}]})),
            Some("spec.evictionConditions[1]: Duplicate value".into())),
        ("eviction: podMigration refused until implemented", e, with(json!({"podMigration": {}})),
            Some("spec: Invalid value: \"object\": podMigration is not supported yet".into())),
        ("eviction: unknown strategy", e, with(json!({"strategy": "Drain"})),
            Some("spec.strategy: Unsupported value: \"Drain\"".into())),
        ("eviction: External strategy", e, with(json!({"strategy": "External"})), None),
        ("eviction: ttl pattern", e, with(json!({"ttl": "2 hours"})), Some("spec.ttl: Invalid value".into())),
        ("eviction: ttl 0s means none", e, with(json!({"ttl": "0s"})), None),
        ("eviction: waitForBudget is a boolean", e, with(json!({"waitForBudget": "yes"})),
            Some("spec.waitForBudget: Invalid value".into())),
        ("job: missing podRef reaches the controller (InvalidPodRef)", j, job(json!({"mode": "EvictDirectly"})), None),
        ("job: unknown mode reaches the controller", j, job(json!({"mode": "Teleport", "podRef": {"namespace": "a", "name": "b"}})), None),
        ("job: gate named Eviction", j, job(json!({"podRef": {"namespace": "a", "name": "b"}, "evictionConditions": [{"name": "Eviction"}]})),
            Some(POD_RESERVED.into())),
        ("job: gate named ExternalEvacuation", j, job(json!({"podRef": {"namespace": "a", "name": "b"}, "evictionConditions": [{"name": "ExternalEvacuation"}]})),
            Some(POD_RESERVED.into())),
        ("job: fleet names are fine at pod level", j, job(json!({"podRef": {"namespace": "a", "name": "b"}, "evictionConditions": [{"name": "Valid"}]})), None),
        ("profile: gate named PodScheduled", p, profile(json!({"evictionConditions": [{"name": "PodScheduled"}]})), Some(POD_RESERVED.into())),
        ("profile: empty spec matches everything", p, profile(json!({})), None),
    ]
}

#[test]
fn objects_are_accepted_or_refused_with_the_spec_messages() {
    for (rule, kind, object, expected) in creation_cases() {
        let found = errors(kind, &object, None);
        match expected {
            None => assert!(
                found.is_empty(),
                "rule {rule:?}: expected valid, got {found:#?}"
            ),
            Some(text) => assert!(
                found.first().is_some_and(|first| first.contains(&text))
                    && found[1..].iter().all(|e| e.ends_with(RULES_SKIPPED)),
                "rule {rule:?}: expected one error containing {text:?}, got {found:#?}"
            ),
        }
    }
}

#[test]
fn immutable_fields_refuse_changes_as_transitions() {
    let e = "ClusterResourcePlacementEviction";
    let base = json!({"placementName": "web", "clusterName": "m1", "ttl": "1h"});
    let changed = |k: &str, v: Value| {
        let mut spec = base.clone();
        spec[k] = v;
        eviction(spec)
    };
    let removed = |k: &str| {
        let mut spec = base.clone();
        spec.as_object_mut().expect("object").remove(k);
        eviction(spec)
    };
    let old = eviction(base.clone());
    let cases: Vec<(&str, Value, Option<&str>)> = vec![
        (
            "placementName changed",
            changed("placementName", json!("api")),
            Some(
                "spec.placementName: Invalid value: \"string\": The PlacementName field is immutable",
            ),
        ),
        (
            "clusterName changed",
            changed("clusterName", json!("m2")),
            Some("spec.clusterName: Invalid value: \"string\": The ClusterName field is immutable"),
        ),
        (
            "strategy added",
            changed("strategy", json!("External")),
            Some("The Strategy field is immutable"),
        ),
        (
            "gates added",
            changed("evictionConditions", json!([{"name": "A"}])),
            Some("The EvictionConditions field is immutable"),
        ),
        (
            "waitForBudget added",
            changed("waitForBudget", json!(true)),
            Some("The WaitForBudget field is immutable"),
        ),
        (
            "ttl changed",
            changed("ttl", json!("2h")),
            Some("The TTL field is immutable"),
        ),
        (
            "ttl removed",
            removed("ttl"),
            Some("The TTL field is immutable"),
        ),
        ("nothing changed", old.clone(), None),
    ];
    for (rule, new, expected) in cases {
        let found = errors(e, &new, Some(&old));
        match expected {
            None => assert!(found.is_empty(), "rule {rule:?}: {found:#?}"),
            Some(text) => assert!(
                found.len() == 1 && found[0].contains(text),
                "rule {rule:?}: expected one error containing {text:?}, got {found:#?}"
            ),
        }
        // The same object is valid on creation: these are transition rules only.
        assert!(
            errors(e, &new, None).is_empty(),
            "rule {rule:?} must not fire on create"
        );
    }
}

#[test]
fn unknown_fields_are_pruned_and_reported() {
    let mut object =
        eviction(json!({"placementName": "web", "clusterName": "m1", "drainPods": true}));
    let dropped = prune(&schema_for("ClusterResourcePlacementEviction"), &mut object);
    assert_eq!(dropped, vec!["spec.drainPods".to_string()]);
    assert!(object["spec"].get("drainPods").is_none());
}
