//! Bad input never stops the controller or affects other evictions.

use super::harness::*;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

/// A hub whose binding CRD lets a status through that our types cannot read (a condition
/// without its required fields), as another CRD version might.
async fn loosen_binding_status(hub: &Hub) {
    let crds: Api<CustomResourceDefinition> = Api::all(hub.client.clone());
    let name = "clusterresourcebindings.placement.kubernetes-fleet.io";
    let mut crd = crds.get(name).await.expect("binding CRD");
    for version in &mut crd.spec.versions {
        let schema = version
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
            .expect("schema");
        let loose = serde_json::from_value(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        )
        .expect("schema");
        schema
            .properties
            .get_or_insert_with(Default::default)
            .insert("status".into(), loose);
    }
    crds.replace(name, &PostParams::default(), &crd)
        .await
        .expect("replace CRD");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_binding_is_left_out_and_others_are_decided() {
    let hub = Hub::start().await;
    loosen_binding_status(&hub).await;
    hub.placement("odd", Value::Null).await;
    hub.create(
        "clusterresourcebindings",
        "ClusterResourceBinding",
        json!({"metadata": {"name": "odd-member-1", "labels": {"kubernetes-fleet.io/parent-CRP": "odd"}},
               "spec": {"state": "Bound", "targetCluster": "member-1"}}),
    )
    .await;
    let api = hub.api("clusterresourcebindings", "ClusterResourceBinding");
    let mut odd = api.get("odd-member-1").await.expect("binding");
    odd.data["status"] = json!({"conditions": [{"type": "Available", "status": "True"}]});
    api.replace_status("odd-member-1", &PostParams::default(), &odd)
        .await
        .expect("a status our types cannot read");

    hub.placement("fine", Value::Null).await;
    hub.binding("fine", "member-1").await;
    hub.eviction("evict-fine", "fine", "member-1", json!({}))
        .await;
    let fine = hub.verdict("evict-fine").await;
    assert_eq!(
        condition(&fine, "Executed").map(|c| c.message.as_str()),
        Some("Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified"),
        "the watch kept going past the unreadable binding"
    );
    hub.eviction("evict-odd", "odd", "member-1", json!({}))
        .await;
    let odd = hub.verdict("evict-odd").await;
    assert_eq!(
        condition(&odd, "Valid").map(|c| c.message.as_str()),
        Some("Failed to find scheduler decision for placement in cluster targeted by eviction"),
        "an unreadable binding is no scheduler decision we can act on"
    );
    assert!(
        api.get_opt("odd-member-1").await.expect("read").is_some(),
        "left alone"
    );
}
