//! The sandbox API server as kube-rs sees it, in process (a `tower::Service`, no sockets)
//! and over HTTP: CRUD with the real server's semantics, CRDs, watches that survive drops
//! and 410s, reflectors and a Controller, finalizers, garbage collection, pages, faults.

mod support;

use fleet_eviction::api::crds;
use fleet_eviction::sandbox::apiserver::faults::{ErrorRule, FaultSettings};
use fleet_eviction::sandbox::apiserver::front::{client, serve_http};
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::apiserver::write::WriteOptions;
use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, Error};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

fn server() -> Arc<ApiServer> {
    ApiServer::new(ServerConfig::default())
}

fn cm(name: &str, data: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"k": data}}))
        .expect("configmap")
}

fn api_error(e: Error) -> kube::core::Status {
    match e {
        Error::Api(s) => *s,
        other => panic!("expected an API error, got {other:?}"),
    }
}

async fn install_crds(client: &Client) {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds::owned().into_iter().chain(crds::sandbox_stand_ins()) {
        api.create(&PostParams::default(), &crd)
            .await
            .expect("CRD accepted");
    }
}

#[tokio::test]
async fn crud_follows_the_real_servers_semantics() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let created = api
        .create(&PostParams::default(), &cm("a", "1"))
        .await
        .expect("create");
    let meta = &created.metadata;
    assert!(meta.uid.is_some() && meta.creation_timestamp.is_some());
    let rv1 = meta.resource_version.clone().expect("rv");

    let e = api_error(
        api.create(&PostParams::default(), &cm("a", "1"))
            .await
            .expect_err("duplicate"),
    );
    assert_eq!(
        (e.code, e.reason.as_str(), e.message.as_str()),
        (409, "AlreadyExists", "configmaps \"a\" already exists")
    );

    let mut changed = created.clone();
    changed.data = Some([("k".to_string(), "2".to_string())].into());
    let replaced = api
        .replace("a", &PostParams::default(), &changed)
        .await
        .expect("replace");
    assert_ne!(
        replaced.metadata.resource_version.as_deref(),
        Some(rv1.as_str())
    );
    // The same stale object again: the resourceVersion no longer matches.
    let e = api_error(
        api.replace("a", &PostParams::default(), &changed)
            .await
            .expect_err("stale"),
    );
    assert_eq!((e.code, e.reason.as_str()), (409, "Conflict"));
    assert!(
        e.message.contains("the object has been modified"),
        "{}",
        e.message
    );

    let merged = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"x": "y"}})),
        )
        .await
        .expect("merge patch");
    assert_eq!(
        merged
            .data
            .as_ref()
            .and_then(|d| d.get("x"))
            .map(String::as_str),
        Some("y")
    );
    let rv_before = merged.metadata.resource_version.clone();
    let same = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"x": "y"}})),
        )
        .await
        .expect("no-op");
    assert_eq!(
        same.metadata.resource_version, rv_before,
        "a no-op write keeps the resourceVersion"
    );

    let e = api_error(api.get("missing").await.expect_err("absent"));
    assert_eq!(
        (e.code, e.reason.as_str(), e.message.as_str()),
        (404, "NotFound", "configmaps \"missing\" not found")
    );

    api.delete("a", &DeleteParams::default())
        .await
        .expect("delete");
    assert!(api.get_opt("a").await.expect("get").is_none());
}

#[tokio::test]
async fn generate_name_and_namespaces_are_enforced() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let object: ConfigMap =
        serde_json::from_value(json!({"metadata": {"generateName": "web-"}})).expect("cm");
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .expect("create");
    let name = created.metadata.name.expect("named");
    assert!(name.starts_with("web-") && name.len() == 9, "{name}");

    let elsewhere: Api<ConfigMap> = Api::namespaced(client, "nowhere");
    let e = api_error(
        elsewhere
            .create(&PostParams::default(), &cm("a", "1"))
            .await
            .expect_err("no namespace"),
    );
    assert_eq!(
        (e.code, e.message.as_str()),
        (404, "namespaces \"nowhere\" not found")
    );
}

#[tokio::test]
async fn custom_resources_are_validated_pruned_and_have_a_status_subresource() {
    let client = client(&server());
    install_crds(&client).await;
    let budgets: Api<kube::api::DynamicObject> = Api::all_with(
        client.clone(),
        &ar(
            "placement.kubernetes-fleet.io",
            "v1beta1",
            "ClusterResourcePlacementDisruptionBudget",
            "clusterresourceplacementdisruptionbudgets",
        ),
    );
    let both = dynamic(
        json!({"apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourcePlacementDisruptionBudget",
        "metadata": {"name": "web"}, "spec": {"minAvailable": 1, "maxUnavailable": 1}}),
    );
    let e = api_error(
        budgets
            .create(&PostParams::default(), &both)
            .await
            .expect_err("both fields"),
    );
    assert_eq!(e.code, 422);
    assert!(
        e.message
            .contains("Both MaxUnavailable and MinAvailable cannot be specified"),
        "{}",
        e.message
    );

    let evictions: Api<kube::api::DynamicObject> = Api::all_with(
        client.clone(),
        &ar(
            "placement.kubernetes-fleet.io",
            "v1beta1",
            "ClusterResourcePlacementEviction",
            "clusterresourceplacementevictions",
        ),
    );
    let eviction = dynamic(
        json!({"apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": "e1"}, "spec": {"placementName": "web", "clusterName": "m1", "unknownField": 1},
        "status": {"conditions": []}}),
    );
    let created = evictions
        .create(&PostParams::default(), &eviction)
        .await
        .expect("create");
    assert_eq!(
        created.data["spec"],
        json!({"placementName": "web", "clusterName": "m1"}),
        "unknown field pruned"
    );
    assert!(
        created.data.get("status").is_none(),
        "status is not written on create"
    );
    assert_eq!(created.metadata.generation, Some(1));

    let status = json!({"status": {"conditions": [{"type": "Valid", "status": "True", "reason": "ClusterResourcePlacementEvictionValid", "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 1}]}});
    let with_status = evictions
        .patch_status("e1", &PatchParams::default(), &Patch::Merge(status))
        .await
        .expect("status patch");
    assert_eq!(with_status.data["status"]["conditions"][0]["type"], "Valid");
    assert_eq!(
        with_status.metadata.generation,
        Some(1),
        "status writes do not bump the generation"
    );

    let e = api_error(
        evictions
            .patch(
                "e1",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"placementName": "other"}})),
            )
            .await
            .expect_err("immutable"),
    );
    assert_eq!(e.code, 422);
    assert!(
        e.message.contains("The PlacementName field is immutable"),
        "{}",
        e.message
    );
}

fn ar(group: &str, version: &str, kind: &str, plural: &str) -> kube::api::ApiResource {
    kube::api::ApiResource {
        group: group.into(),
        version: version.into(),
        api_version: format!("{group}/{version}"),
        kind: kind.into(),
        plural: plural.into(),
    }
}

fn dynamic(v: Value) -> kube::api::DynamicObject {
    serde_json::from_value(v).expect("dynamic object")
}

#[tokio::test]
async fn a_non_structural_crd_is_refused() {
    let client = client(&server());
    let api: Api<CustomResourceDefinition> = Api::all(client);
    let mut crd = crds::owned().remove(0);
    let version = &mut crd.spec.versions[0];
    let schema = version
        .schema
        .as_mut()
        .and_then(|s| s.open_api_v3_schema.as_mut())
        .expect("schema");
    schema.type_ = None;
    let e = api_error(
        api.create(&PostParams::default(), &crd)
            .await
            .expect_err("not structural"),
    );
    assert_eq!((e.code, e.reason.as_str()), (422, "Invalid"));
    assert!(
        e.message
            .contains("CustomResourceDefinition.apiextensions.k8s.io"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn finalizers_hold_a_deletion_until_removed() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let mut object = cm("held", "1");
    object.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    api.create(&PostParams::default(), &object)
        .await
        .expect("create");
    api.delete("held", &DeleteParams::default())
        .await
        .expect("delete");
    let deleting = api.get("held").await.expect("still there");
    assert!(deleting.metadata.deletion_timestamp.is_some());
    let e = api_error(
        api.patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"metadata": {"finalizers": ["example.com/hold", "example.com/new"]}}),
            ),
        )
        .await
        .expect_err("new finalizer"),
    );
    assert_eq!(e.code, 403);
    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("release");
    assert!(api.get_opt("held").await.expect("get").is_none());
}

#[tokio::test]
async fn delete_preconditions_are_checked() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    api.create(&PostParams::default(), &cm("p", "1"))
        .await
        .expect("create");
    let e = api_error(
        api.delete(
            "p",
            &DeleteParams::default().preconditions(kube::api::Preconditions {
                uid: Some("other".into()),
                resource_version: None,
            }),
        )
        .await
        .expect_err("uid"),
    );
    assert_eq!(e.code, 409);
    assert!(
        e.message
            .contains("Precondition failed: UID in precondition: other"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn garbage_collection_background_and_orphan() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    for (owner, propagation) in [
        ("owner-bg", None),
        ("owner-orphan", Some(kube::api::PropagationPolicy::Orphan)),
    ] {
        let parent = api
            .create(&PostParams::default(), &cm(owner, "1"))
            .await
            .expect("owner");
        let mut child = cm(&format!("{owner}-child"), "1");
        child.metadata.owner_references = Some(vec![
            k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: owner.into(),
                uid: parent.metadata.uid.clone().expect("uid"),
                ..Default::default()
            },
        ]);
        api.create(&PostParams::default(), &child)
            .await
            .expect("dependent");
        let dp = DeleteParams {
            propagation_policy: propagation.clone(),
            ..Default::default()
        };
        api.delete(owner, &dp).await.expect("delete owner");
        assert!(
            api.get_opt(owner).await.expect("get").is_none(),
            "{owner} gone"
        );
        let dependent = api.get_opt(&format!("{owner}-child")).await.expect("get");
        match propagation {
            None => assert!(dependent.is_none(), "background deletes the dependent"),
            Some(_) => {
                let dependent = dependent.expect("orphan keeps the dependent");
                assert_eq!(
                    dependent
                        .metadata
                        .owner_references
                        .unwrap_or_default()
                        .len(),
                    0
                );
            }
        }
    }
}

#[tokio::test]
async fn deleting_a_namespace_deletes_its_content_first() {
    let client = client(&server());
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "team"}})).expect("ns");
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .expect("create ns");
    let api: Api<ConfigMap> = Api::namespaced(client, "team");
    for i in 0..3 {
        api.create(&PostParams::default(), &cm(&format!("c{i}"), "1"))
            .await
            .expect("cm");
    }
    namespaces
        .delete("team", &DeleteParams::default())
        .await
        .expect("delete ns");
    assert!(
        api.list(&ListParams::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
    assert!(namespaces.get_opt("team").await.expect("get").is_none());
}

#[tokio::test]
async fn lists_page_consistently_and_select_by_label_and_field() {
    let client = client(&server());
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    for i in 0..25 {
        let mut c = cm(&format!("c{i:02}"), "1");
        c.metadata.labels = Some(
            [(
                "tier".to_string(),
                if i % 5 == 0 { "a" } else { "b" }.to_string(),
            )]
            .into(),
        );
        api.create(&PostParams::default(), &c)
            .await
            .expect("create");
    }
    let first = api
        .list(&ListParams::default().limit(10))
        .await
        .expect("page 1");
    assert_eq!(first.items.len(), 10);
    let token = first.metadata.continue_.clone().expect("more pages");
    api.create(&PostParams::default(), &cm("c99-late", "1"))
        .await
        .expect("late");
    let mut names: Vec<String> = first
        .items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    let mut token = Some(token);
    while let Some(t) = token {
        let page = api
            .list(&ListParams::default().limit(10).continue_token(&t))
            .await
            .expect("next page");
        names.extend(page.items.iter().filter_map(|c| c.metadata.name.clone()));
        token = page.metadata.continue_.filter(|t| !t.is_empty());
    }
    assert_eq!(
        names.len(),
        25,
        "pages are consistent with the first: {names:?}"
    );
    let tier_a = api
        .list(&ListParams::default().labels("tier in (a)"))
        .await
        .expect("labels");
    assert_eq!(tier_a.items.len(), 5);
    let one = api
        .list(&ListParams::default().fields("metadata.name=c03"))
        .await
        .expect("fields");
    assert_eq!(one.items.len(), 1);
    let e = api_error(
        api.list(&ListParams::default().fields("data.k=1"))
            .await
            .expect_err("unsupported field"),
    );
    assert_eq!(e.code, 400);
}

#[tokio::test]
async fn watcher_recovers_from_drops_and_410_in_process() {
    let server = ApiServer::new(ServerConfig {
        ring_capacity: 8,
        ..ServerConfig::default()
    });
    watch_recovery(&server, client(&server)).await;
}

#[tokio::test]
async fn watcher_recovers_from_drops_and_410_over_http() {
    let server = ApiServer::new(ServerConfig {
        ring_capacity: 8,
        ..ServerConfig::default()
    });
    let front = serve_http(server.clone(), "127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serve");
    let client =
        Client::try_from(kube::Config::new(front.url().parse().expect("url"))).expect("client");
    watch_recovery(&server, client).await;
}

async fn watch_recovery(server: &Arc<ApiServer>, client: Client) {
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    api.create(&PostParams::default(), &cm("before", "1"))
        .await
        .expect("create");
    let mut stream = watcher(api.clone(), watcher::Config::default())
        .applied_objects()
        .boxed();
    assert_eq!(next_named(&mut stream, "before").await, "before");
    api.create(&PostParams::default(), &cm("live", "1"))
        .await
        .expect("create");
    assert_eq!(next_named(&mut stream, "live").await, "live");

    // A dropped watch: the watcher re-watches from its last resourceVersion, no relist.
    let lists = server.request_count("list", "configmaps");
    server.drop_watches();
    api.create(&PostParams::default(), &cm("after-drop", "1"))
        .await
        .expect("create");
    assert_eq!(next_named(&mut stream, "after-drop").await, "after-drop");
    assert_eq!(
        server.request_count("list", "configmaps"),
        lists,
        "resumed without a relist"
    );

    // More changes than the ring holds while the client cannot connect: re-watching from
    // its resourceVersion gets 410, and the watcher lists again.
    server.set_unreachable(true);
    let rt = server
        .state()
        .registry
        .get("", "v1", "configmaps")
        .expect("served");
    for i in 0..20 {
        let object = json!({"metadata": {"name": format!("burst-{i}")}, "data": {"k": "1"}});
        server
            .state()
            .create(&rt, Some("default"), object, &WriteOptions::default())
            .expect("create");
    }
    server.set_unreachable(false);
    assert_eq!(next_named(&mut stream, "burst-19").await, "burst-19");
    assert!(
        server.request_count("list", "configmaps") > lists,
        "relisted after 410"
    );
}

#[tokio::test]
async fn selector_watches_see_objects_leave_and_enter() {
    let server = server();
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let mut labelled = cm("moving", "1");
    labelled.metadata.labels = Some([("tier".to_string(), "a".to_string())].into());
    let created = api
        .create(&PostParams::default(), &labelled)
        .await
        .expect("create");
    let rv = created.metadata.resource_version.expect("rv");
    let mut events = api
        .watch(
            &kube::api::WatchParams::default()
                .labels("tier=a")
                .timeout(2),
            &rv,
        )
        .await
        .expect("watch")
        .boxed();
    api.patch(
        "moving",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"tier": "b"}}})),
    )
    .await
    .expect("leave");
    api.patch(
        "moving",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"tier": "a"}}})),
    )
    .await
    .expect("enter");
    let mut kinds = Vec::new();
    while let Some(Ok(event)) = events.next().await {
        kinds.push(match event {
            kube::api::WatchEvent::Added(_) => "ADDED",
            kube::api::WatchEvent::Modified(_) => "MODIFIED",
            kube::api::WatchEvent::Deleted(_) => "DELETED",
            kube::api::WatchEvent::Bookmark(_) => "BOOKMARK",
            kube::api::WatchEvent::Error(_) => "ERROR",
        });
    }
    assert_eq!(kinds, ["DELETED", "ADDED"]);
}

#[tokio::test]
async fn sandbox_controls_answer_over_http() {
    let server = server();
    let front = serve_http(server.clone(), "127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serve");
    let client =
        Client::try_from(kube::Config::new(front.url().parse().expect("url"))).expect("client");
    // 500, not 429: kube's client retries 429 on its own.
    let faults = json!({"latencyMs": 0, "errors": [{"rate": 1.0, "code": 500, "verb": "get", "resource": "configmaps"}], "unreachable": false});
    let put = http::Request::put("/sandbox/faults")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&faults).expect("json"))
        .expect("request");
    let set: Value =
        serde_json::from_str(&client.request_text(put).await.expect("set faults")).expect("json");
    assert_eq!(set["errors"][0]["code"], 500);
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let e = api_error(api.get("anything").await.expect_err("injected"));
    assert_eq!(e.code, 500);
    let counts: Value = serde_json::from_str(
        &client
            .request_text(
                http::Request::get("/sandbox/requests")
                    .body(Vec::new())
                    .expect("request"),
            )
            .await
            .expect("counts"),
    )
    .expect("json");
    let hit = counts["counts"].as_array().expect("list").iter().any(|c| {
        c["verb"] == "get" && c["resource"] == "configmaps" && c["code"] == 500 && c["count"] == 1
    });
    assert!(hit, "{counts}");
    let log: Value = serde_json::from_str(
        &client
            .request_text(
                http::Request::get("/sandbox/request-log")
                    .body(Vec::new())
                    .expect("request"),
            )
            .await
            .expect("log"),
    )
    .expect("json");
    assert_eq!(log[0]["name"], "anything");
}

async fn next_named(
    stream: &mut (impl futures::Stream<Item = Result<ConfigMap, watcher::Error>> + Unpin),
    name: &str,
) -> String {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let next = tokio::time::timeout_at(deadline, stream.next())
            .await
            .unwrap_or_else(|_| panic!("{name} seen in time"));
        if let Some(Ok(object)) = next
            && object.metadata.name.as_deref() == Some(name)
        {
            return name.to_string();
        }
    }
}

#[tokio::test]
async fn reflector_and_controller_run_over_http() {
    let server = server();
    let front = serve_http(server.clone(), "127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serve");
    let config = kube::Config::new(front.url().parse().expect("url"));
    let client = Client::try_from(config).expect("client");
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for i in 0..5 {
        api.create(&PostParams::default(), &cm(&format!("r{i}"), "1"))
            .await
            .expect("create");
    }
    let seen = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    let ctx = seen.clone();
    let controller = kube::runtime::Controller::new(api.clone(), watcher::Config::default())
        .run(
            |object: Arc<ConfigMap>,
             seen: Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>| async move {
                seen.lock()
                    .expect("lock")
                    .insert(object.metadata.name.clone().unwrap_or_default());
                Ok::<_, kube::Error>(kube::runtime::controller::Action::await_change())
            },
            |_, _, _| kube::runtime::controller::Action::await_change(),
            ctx,
        )
        .for_each(|_| async {});
    let handle = tokio::spawn(controller);
    let deadline = tokio::time::Instant::now() + WAIT;
    while seen.lock().expect("lock").len() < 5 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "reconciled {:?}",
            seen.lock().expect("lock")
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.drop_watches();
    api.create(&PostParams::default(), &cm("r-late", "1"))
        .await
        .expect("create");
    while !seen.lock().expect("lock").contains("r-late") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "late object reconciled after a watch drop"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.abort();
}

#[tokio::test]
async fn faults_are_injected_and_requests_counted() {
    let server = server();
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    server.set_faults(FaultSettings {
        errors: vec![ErrorRule {
            rate: 1.0,
            code: 500,
            verb: Some("create".into()),
            resource: Some("configmaps".into()),
        }],
        ..Default::default()
    });
    let e = api_error(
        api.create(&PostParams::default(), &cm("x", "1"))
            .await
            .expect_err("injected"),
    );
    assert_eq!(e.code, 500);
    api.list(&ListParams::default())
        .await
        .expect("lists are not affected");
    server.set_faults(FaultSettings::default());
    api.create(&PostParams::default(), &cm("x", "1"))
        .await
        .expect("create");
    assert_eq!(server.request_count("create", "configmaps"), 2);
    assert_eq!(server.request_count("list", "configmaps"), 1);

    server.set_unreachable(true);
    let e = api.get("x").await.expect_err("unreachable");
    assert!(
        !matches!(e, Error::Api(_)),
        "a transport error, not an API answer: {e:?}"
    );
    server.set_unreachable(false);
    api.get("x").await.expect("reachable again");
}

#[tokio::test]
async fn events_written_as_events_k8s_io_are_read_as_core_events() {
    use k8s_openapi::api::core::v1::Event as CoreEvent;
    use k8s_openapi::api::events::v1::Event;
    let client = client(&server());
    let new: Api<Event> = Api::namespaced(client.clone(), "default");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "web.1"},
        "eventTime": "2026-01-02T03:04:05.000000Z",
        "regarding": {"kind": "Pod", "name": "web", "namespace": "default", "uid": "u1"},
        "reason": "Evicted", "note": "evicted by the test", "type": "Normal", "action": "Evict",
        "reportingController": "fleet-eviction", "reportingInstance": "hub-1"
    }))
    .expect("event");
    new.create(&PostParams::default(), &event)
        .await
        .expect("create");
    let core: Api<CoreEvent> = Api::namespaced(client, "default");
    let found = core
        .list(&ListParams::default().fields("involvedObject.name=web,involvedObject.kind=Pod"))
        .await
        .expect("list");
    assert_eq!(found.items.len(), 1);
    let e = &found.items[0];
    assert_eq!(e.message.as_deref(), Some("evicted by the test"));
    assert_eq!(e.involved_object.uid.as_deref(), Some("u1"));
    let none = core
        .list(&ListParams::default().fields("involvedObject.name=other"))
        .await
        .expect("list");
    assert!(none.items.is_empty());
}

#[tokio::test]
async fn dry_run_writes_nothing() {
    let api: Api<ConfigMap> = Api::namespaced(client(&server()), "default");
    let created = api
        .create(
            &PostParams {
                dry_run: true,
                ..Default::default()
            },
            &cm("dry", "1"),
        )
        .await
        .expect("dry run");
    assert_eq!(created.metadata.name.as_deref(), Some("dry"));
    assert!(api.get_opt("dry").await.expect("get").is_none());
}
