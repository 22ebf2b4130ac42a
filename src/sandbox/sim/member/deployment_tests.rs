use super::{TEMPLATE_HASH_LABEL, current_replica_set_name, plan, template_hash};
use crate::sandbox::sim::member::actions::{Action, Op};
use crate::sandbox::sim::member::deployment_status::max_unavailable;
use crate::sandbox::sim::member::fixtures::*;
use crate::sandbox::sim::member::versions::Kind;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec, DeploymentStatus};
use serde_json::{Value, json};

fn deployment(replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "default", "uid": "uid-web", "generation": 2},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template()}})
}

fn replica_set(name: &str, replicas: i32, status: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                             "uid": "uid-web", "controller": true}]},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template()},
           "status": status})
}

fn current_name(d: &Value) -> String {
    current_replica_set_name(&serde_json::from_value::<Deployment>(d.clone()).expect("deployment"))
}

fn actions(d: Value, sets: Vec<Value>) -> Vec<Action> {
    let mut view = view_of(&[], &[]);
    view.deployments = vec![typed(d)];
    view.replica_sets = sets.into_iter().map(typed).collect();
    plan(&view)
}

fn spec_changes(all: &[Action]) -> Vec<(String, Value)> {
    all.iter()
        .filter(|a| a.kind == Kind::ReplicaSet)
        .map(|a| match &a.op {
            Op::Create(rs) => (format!("create {}", a.name), rs["spec"]["replicas"].clone()),
            Op::Patch(p) => (format!("scale {}", a.name), p["spec"]["replicas"].clone()),
            other => (format!("{other:?}"), Value::Null),
        })
        .collect()
}

fn status(all: &[Action]) -> DeploymentStatus {
    let patch = all.iter().find_map(|a| match (&a.kind, &a.op) {
        (Kind::Deployment, Op::PatchStatus(p)) => Some(p["status"].clone()),
        _ => None,
    });
    serde_json::from_value(patch.expect("status written")).expect("status")
}

#[test]
fn the_template_hash_names_the_replica_set() {
    let d = deployment(3);
    let name = current_name(&d);
    let hash = name.strip_prefix("web-").expect("<deployment>-<hash>");
    assert_eq!(hash.len(), 10, "ten characters");
    let mut changed = d.clone();
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:2");
    assert_ne!(
        current_name(&changed),
        name,
        "a new template gets a new ReplicaSet"
    );
    let mut scaled = d.clone();
    scaled["spec"]["replicas"] = json!(5);
    assert_eq!(current_name(&scaled), name, "scaling keeps the ReplicaSet");
    let template = serde_json::from_value(template()).expect("template");
    assert_eq!(template_hash(&template), hash);
}

#[test]
fn a_new_deployment_gets_its_replica_set() {
    let d = deployment(3);
    let name = current_name(&d);
    let hash = name.trim_start_matches("web-").to_string();
    let all = actions(d, vec![]);
    let Some(Op::Create(rs)) = all.first().map(|a| &a.op) else {
        panic!("create: {all:?}")
    };
    assert_eq!(rs["metadata"]["name"], json!(name));
    assert_eq!(rs["spec"]["replicas"], 3, "the Deployment's scale");
    assert_eq!(rs["metadata"]["ownerReferences"][0]["uid"], "uid-web");
    for path in [
        "/metadata/labels",
        "/spec/selector/matchLabels",
        "/spec/template/metadata/labels",
    ] {
        let labels = rs.pointer(path).expect(path);
        assert_eq!(
            labels[TEMPLATE_HASH_LABEL],
            json!(hash),
            "{path} carries the hash"
        );
        assert_eq!(labels["app"], "web", "{path} keeps the template's labels");
    }
}

/// Rule, replicas, the ReplicaSets, and the expected ReplicaSet changes.
type Row = (&'static str, i32, Vec<Value>, Vec<(String, Value)>);

#[test]
fn scaling_and_template_changes() {
    let d = deployment(3);
    let current = current_name(&d);
    #[rustfmt::skip]
    let rows: Vec<Row> = vec![
        ("a scale change is copied to the ReplicaSet", 5,
         vec![replica_set(&current, 3, json!({"replicas": 3}))],
         vec![(format!("scale {current}"), json!(5))]),
        ("a template change creates the new ReplicaSet and scales the old one to 0", 3,
         vec![replica_set("web-old", 3, json!({"replicas": 3}))],
         vec![(format!("create {current}"), json!(3)), ("scale web-old".into(), json!(0))]),
        ("an old ReplicaSet at 0 is left as it is", 3,
         vec![replica_set(&current, 3, json!({"replicas": 3})), replica_set("web-old", 0, json!({"replicas": 0}))],
         vec![]),
    ];
    for (rule, replicas, sets, expected) in rows {
        let mut d = deployment(replicas);
        d["spec"]["replicas"] = json!(replicas);
        assert_eq!(spec_changes(&actions(d, sets)), expected, "{rule}");
    }
}

#[test]
fn status_follows_the_replica_sets() {
    let d = deployment(4);
    let current = current_name(&d);
    let sets = vec![
        replica_set(
            &current,
            4,
            json!({"replicas": 3, "readyReplicas": 3, "availableReplicas": 3}),
        ),
        replica_set("web-old", 0, json!({"replicas": 1, "readyReplicas": 1})),
    ];
    let s = status(&actions(d, sets));
    assert_eq!(
        (
            s.replicas,
            s.updated_replicas,
            s.ready_replicas,
            s.available_replicas,
            s.unavailable_replicas
        ),
        (Some(4), Some(3), Some(4), Some(3), Some(1))
    );
    assert_eq!(s.observed_generation, Some(2));
    let conditions = s.conditions.unwrap_or_default();
    let available = &conditions[0];
    // 4 replicas: maxUnavailable 25% = 1, so 3 available is enough.
    assert_eq!(
        (available.type_.as_str(), available.status.as_str()),
        ("Available", "True")
    );
    assert_eq!(
        available.reason.as_deref(),
        Some("MinimumReplicasAvailable")
    );
    assert_eq!(
        conditions[1].reason.as_deref(),
        Some("ReplicaSetUpdated"),
        "not yet complete"
    );
}

#[test]
fn too_few_available_pods_make_the_deployment_unavailable() {
    let d = deployment(3);
    let current = current_name(&d);
    let sets = vec![replica_set(
        &current,
        3,
        json!({"replicas": 3, "readyReplicas": 2, "availableReplicas": 2}),
    )];
    let s = status(&actions(d, sets));
    let available = &s.conditions.unwrap_or_default()[0];
    // 3 replicas: 25% rounds down to 0 unavailable allowed.
    assert_eq!(available.status, "False");
    assert_eq!(
        available.reason.as_deref(),
        Some("MinimumReplicasUnavailable")
    );
    assert_eq!(
        available.message.as_deref(),
        Some("Deployment does not have minimum availability.")
    );
}

#[test]
fn max_unavailable_rules() {
    let spec = |strategy: Value| -> DeploymentSpec {
        serde_json::from_value(json!({"selector": {}, "template": {}, "strategy": strategy}))
            .expect("spec")
    };
    #[rustfmt::skip]
    let rows = [
        ("default 25% rounds down", json!({}), 10, 2),
        ("Recreate allows none", json!({"type": "Recreate"}), 10, 0),
        ("an absolute number", json!({"rollingUpdate": {"maxUnavailable": 3}}), 10, 3),
        ("a percentage rounds down", json!({"rollingUpdate": {"maxUnavailable": "50%"}}), 5, 2),
        ("both zero makes one", json!({"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}), 5, 1),
        ("a surge rounding up to 1 leaves 0", json!({"rollingUpdate": {"maxUnavailable": "10%", "maxSurge": "10%"}}), 5, 0),
        ("never more than the replicas", json!({"rollingUpdate": {"maxUnavailable": 9}}), 3, 3),
        ("no replicas, none", json!({}), 0, 0),
    ];
    for (rule, strategy, replicas, expected) in rows {
        assert_eq!(
            max_unavailable(&spec(strategy), replicas),
            expected,
            "{rule}"
        );
    }
}
