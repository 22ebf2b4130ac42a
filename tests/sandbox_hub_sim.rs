//! The hub simulation (KubeFleet stand-in) against one hub and three member API servers, in
//! process. Member pods are made by hand here (no member simulation): the test plays the
//! members' workload controllers and kubelets.

use fleet_eviction::api::crds;
use fleet_eviction::api::keys::{PARENT_CRP_LABEL, SANDBOX_SIMULATE_LABEL};
use fleet_eviction::api::kubefleet::{
    ClusterResourceBinding, ClusterResourcePlacement, MemberCluster,
};
use fleet_eviction::runtime::clock::{ManualClock, SharedClock};
use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::sim::hub::placed::PLACED_BY_LABEL;
use fleet_eviction::sandbox::sim::hub::{HubSim, MemberClients, SimHandle};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::SignedDuration;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);
const MEMBERS: [&str; 3] = ["member-1", "member-2", "member-3"];

/// Polls `$probe` (an `Option`) until it is `Some`, failing after `WAIT`.
macro_rules! eventually {
    ($what:expr, $probe:expr) => {{
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(value) = $probe {
                break value;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {}",
                $what
            );
            tokio::time::sleep(POLL).await;
        }
    }};
}

struct Fleet {
    hub: Client,
    servers: Vec<Arc<ApiServer>>,
    members: Vec<Client>,
    clock: Arc<ManualClock>,
    sim: SimHandle,
}

fn create<K>(object: Value) -> K
where
    K: serde::de::DeserializeOwned,
{
    serde_json::from_value(object).expect("valid object")
}

/// A hub with the CRDs, MemberClusters `member-1..3` (`tainted` ones NoSchedule), and the
/// namespace `web` holding Deployment `api` (2 replicas) and ConfigMap `settings`.
async fn fleet(tainted: &[&str]) -> Fleet {
    let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().expect("time"));
    let shared: SharedClock = clock.clone();
    let server = |name: &str, seed| {
        ApiServer::new(ServerConfig {
            name: name.into(),
            seed,
            clock: shared.clone(),
            ..Default::default()
        })
    };
    let hub = client(&server("hub", 1));
    let crd_api: Api<CustomResourceDefinition> = Api::all(hub.clone());
    for crd in crds::owned().into_iter().chain(crds::sandbox_stand_ins()) {
        crd_api
            .create(&PostParams::default(), &crd)
            .await
            .expect("CRD");
    }
    let pp = PostParams::default();
    for name in MEMBERS {
        let taints = if tainted.contains(&name) {
            json!([{"key": "drain", "effect": "NoSchedule"}])
        } else {
            json!([])
        };
        let member = json!({"metadata": {"name": name}, "spec": {"identity": {"kind": "ServiceAccount", "name": "agent"}, "taints": taints}});
        Api::<MemberCluster>::all(hub.clone())
            .create(&pp, &create(member))
            .await
            .expect("member");
    }
    let ns = json!({"metadata": {"name": "web", "labels": {"team": "web"}}});
    Api::<Namespace>::all(hub.clone())
        .create(&pp, &create(ns))
        .await
        .expect("ns");
    let deployment = json!({"metadata": {"name": "api", "labels": {"app": "api"}}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "api"}}, "template": {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    Api::<Deployment>::namespaced(hub.clone(), "web")
        .create(&pp, &create(deployment))
        .await
        .expect("deployment");
    let cm = json!({"metadata": {"name": "settings"}, "data": {"mode": "fast"}});
    Api::<ConfigMap>::namespaced(hub.clone(), "web")
        .create(&pp, &create(cm))
        .await
        .expect("cm");
    let clients = MemberClients::new();
    let servers: Vec<Arc<ApiServer>> = MEMBERS
        .iter()
        .zip(10..)
        .map(|(name, seed)| server(name, seed))
        .collect();
    let members: Vec<Client> = servers.iter().map(client).collect();
    for (name, member) in MEMBERS.iter().zip(&members) {
        clients.insert(*name, member.clone());
    }
    let sim = HubSim::start(hub.clone(), clients, shared);
    Fleet {
        hub,
        servers,
        members,
        clock,
        sim,
    }
}

async fn placement(hub: &Client, name: &str, policy: Value, simulated: bool) {
    let labels = if simulated {
        json!({SANDBOX_SIMULATE_LABEL: "true"})
    } else {
        json!({})
    };
    let crp = json!({"metadata": {"name": name, "labels": labels}, "spec": {"resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": "web"}], "policy": policy}});
    Api::<ClusterResourcePlacement>::all(hub.clone())
        .create(&PostParams::default(), &create(crp))
        .await
        .expect("crp");
}

async fn bindings(hub: &Client, crp: &str) -> Vec<ClusterResourceBinding> {
    let lp = ListParams::default().labels(&format!("{PARENT_CRP_LABEL}={crp}"));
    let mut list = Api::<ClusterResourceBinding>::all(hub.clone())
        .list(&lp)
        .await
        .expect("bindings")
        .items;
    list.sort_by(|a, b| a.spec.target_cluster.cmp(&b.spec.target_cluster));
    list
}

async fn binding_on(hub: &Client, crp: &str, member: &str) -> Option<ClusterResourceBinding> {
    bindings(hub, crp)
        .await
        .into_iter()
        .find(|b| b.spec.target_cluster == member)
}

fn condition(binding: &ClusterResourceBinding, type_: &str) -> Option<Condition> {
    binding
        .status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .cloned()
}

/// The binding once its condition has that status for its current generation.
async fn with_condition(
    hub: &Client,
    crp: &str,
    member: &str,
    type_: &str,
    status: &str,
) -> ClusterResourceBinding {
    eventually!(format!("{type_}={status} on {member}"), {
        binding_on(hub, crp, member).await.filter(|b| {
            condition(b, type_).is_some_and(|c| {
                c.status == status && c.observed_generation == b.metadata.generation
            })
        })
    })
}

/// Plays the member's Deployment controller and kubelet: `count` pods of `api`, Ready.
async fn run_pods(member: &Client, count: usize) {
    let pods: Api<Pod> = Api::namespaced(member.clone(), "web");
    for i in 0..count {
        let pod = json!({"metadata": {"name": format!("api-{i}"), "labels": {"app": "api"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
        pods.create(&PostParams::default(), &create(pod))
            .await
            .expect("pod");
        set_ready(member, &format!("api-{i}"), true).await;
    }
}

async fn set_ready(member: &Client, pod: &str, ready: bool) {
    let status = if ready { "True" } else { "False" };
    let patch = json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": status}]}});
    Api::<Pod>::namespaced(member.clone(), "web")
        .patch_status(pod, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .expect("pod status");
}

#[tokio::test]
async fn pick_all_binds_every_member_and_places_the_namespace_and_its_workloads() {
    let f = fleet(&[]).await;
    placement(&f.hub, "web", json!({"placementType": "PickAll"}), true).await;
    let all = eventually!(
        "3 bindings",
        Some(bindings(&f.hub, "web").await).filter(|b| b.len() == 3)
    );
    for (binding, member) in all.iter().zip(MEMBERS) {
        let name = binding.name_any();
        let suffix = name
            .strip_prefix(&format!("web-{member}-"))
            .expect("name is <crp>-<cluster>-<suffix>");
        assert!(
            suffix.len() == 8
                && suffix
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
            "{name}"
        );
        assert_eq!(
            binding.labels().get(PARENT_CRP_LABEL).map(String::as_str),
            Some("web")
        );
        assert_eq!(
            binding.spec.state.as_ref().map(|s| s.as_str()),
            Some("Bound")
        );
        assert_eq!(binding.finalizers(), ["kubernetes-fleet.io/work-cleanup"]);
    }
    for (member, client) in MEMBERS.iter().zip(&f.members) {
        let applied = with_condition(&f.hub, "web", member, "Applied", "True").await;
        for type_ in ["Overridden", "WorkSynchronized"] {
            assert_eq!(
                condition(&applied, type_).map(|c| c.status).as_deref(),
                Some("True"),
                "{type_}"
            );
        }
        let ns = Api::<Namespace>::all(client.clone())
            .get("web")
            .await
            .expect("namespace placed");
        assert_eq!(ns.labels().get("team").map(String::as_str), Some("web"));
        let deployment = Api::<Deployment>::namespaced(client.clone(), "web")
            .get("api")
            .await
            .expect("deployment placed");
        assert_eq!(deployment.spec.and_then(|s| s.replicas), Some(2));
        assert_eq!(
            deployment
                .metadata
                .labels
                .and_then(|l| l.get(PLACED_BY_LABEL).cloned())
                .as_deref(),
            Some("web")
        );
        Api::<ConfigMap>::namespaced(client.clone(), "web")
            .get("settings")
            .await
            .expect("configmap placed");
        // No pods run yet: applied, not available.
        let unavailable = with_condition(&f.hub, "web", member, "Available", "False").await;
        assert_eq!(
            condition(&unavailable, "Available")
                .map(|c| c.reason)
                .as_deref(),
            Some("NotAllWorkAreAvailable")
        );
    }
    // Later ticks find the copies as wanted and write nothing.
    let member = &f.servers[0];
    eventually!(
        "three more ticks",
        (member.request_count("get", "deployments") >= 4).then_some(())
    );
    assert_eq!(
        member.request_count("update", "deployments")
            + member.request_count("update", "namespaces"),
        0
    );
}

#[tokio::test]
async fn pick_n_binds_the_first_members_by_name_skipping_tainted_ones() {
    let cases: [(&[&str], [&str; 2]); 2] = [
        (&[], ["member-1", "member-2"]),
        (&["member-1"], ["member-2", "member-3"]),
    ];
    for (tainted, expected) in cases {
        let f = fleet(tainted).await;
        let pick_two = json!({"placementType": "PickN", "numberOfClusters": 2});
        placement(&f.hub, "web", pick_two, true).await;
        let picked = eventually!(
            "2 bindings",
            Some(bindings(&f.hub, "web").await).filter(|b| b.len() == 2)
        );
        let targets: Vec<&str> = picked
            .iter()
            .map(|b| b.spec.target_cluster.as_str())
            .collect();
        assert_eq!(targets, expected, "tainted: {tainted:?}");
    }
}

#[tokio::test]
async fn hand_made_placements_and_bindings_are_left_alone() {
    let f = fleet(&[]).await;
    placement(&f.hub, "manual", json!({"placementType": "PickAll"}), false).await;
    let crafted = json!({"metadata": {"name": "manual-member-1-abcdefgh", "labels": {PARENT_CRP_LABEL: "manual"}}, "spec": {"state": "Bound", "targetCluster": "member-1"}});
    let api: Api<ClusterResourceBinding> = Api::all(f.hub.clone());
    let crafted = api
        .create(&PostParams::default(), &create(crafted))
        .await
        .expect("crafted binding");
    let status = json!({"status": {"conditions": [{"type": "Available", "status": "True", "reason": "Crafted", "message": "", "observedGeneration": 1, "lastTransitionTime": "2025-01-01T00:00:00Z"}]}});
    let crafted = api
        .patch_status(
            &crafted.name_any(),
            &PatchParams::default(),
            &Patch::Merge(status),
        )
        .await
        .expect("status");
    // A simulated placement created afterwards shows the simulation has looked at both.
    placement(&f.hub, "web", json!({"placementType": "PickAll"}), true).await;
    with_condition(&f.hub, "web", "member-1", "Applied", "True").await;
    let untouched: Vec<_> = bindings(&f.hub, "manual")
        .await
        .iter()
        .map(|b| b.resource_version())
        .collect();
    assert_eq!(
        untouched,
        [crafted.resource_version()],
        "the crafted binding is not written to"
    );
    let manual = Api::<ClusterResourcePlacement>::all(f.hub.clone())
        .get("manual")
        .await
        .expect("crp");
    assert!(
        manual.status.is_none_or(|s| s.conditions.is_empty()),
        "no scheduling status"
    );
}

#[tokio::test]
async fn available_follows_the_members_pod_readiness() {
    let f = fleet(&[]).await;
    placement(
        &f.hub,
        "web",
        json!({"placementType": "PickN", "numberOfClusters": 1}),
        true,
    )
    .await;
    let applied = with_condition(&f.hub, "web", "member-1", "Applied", "True").await;
    let applied_at = condition(&applied, "Applied")
        .expect("applied")
        .last_transition_time;
    f.clock.advance(SignedDuration::from_secs(60));
    run_pods(&f.members[0], 2).await;
    let up = with_condition(&f.hub, "web", "member-1", "Available", "True").await;
    let up_at = condition(&up, "Available").expect("available");
    assert_eq!(up_at.reason, "AllWorkAreAvailable");

    f.clock.advance(SignedDuration::from_secs(60));
    set_ready(&f.members[0], "api-1", false).await;
    let down = with_condition(&f.hub, "web", "member-1", "Available", "False").await;
    let down_at = condition(&down, "Available").expect("available");
    assert_eq!(down_at.reason, "NotAllWorkAreAvailable");
    assert!(
        down_at.last_transition_time > up_at.last_transition_time,
        "transition time moves with the status"
    );
    assert_eq!(
        condition(&down, "Applied")
            .expect("applied")
            .last_transition_time,
        applied_at,
        "Applied did not change"
    );

    f.clock.advance(SignedDuration::from_secs(60));
    set_ready(&f.members[0], "api-1", true).await;
    let back = with_condition(&f.hub, "web", "member-1", "Available", "True").await;
    assert!(
        condition(&back, "Available")
            .expect("available")
            .last_transition_time
            > down_at.last_transition_time
    );
}

#[tokio::test]
async fn deleting_a_binding_withdraws_the_placement_from_its_member_only() {
    let f = fleet(&[]).await;
    // member-3 had the namespace before the placement: it keeps it.
    let ns = json!({"metadata": {"name": "web"}});
    Api::<Namespace>::all(f.members[2].clone())
        .create(&PostParams::default(), &create(ns))
        .await
        .expect("ns");
    placement(&f.hub, "web", json!({"placementType": "PickAll"}), true).await;
    for member in MEMBERS {
        with_condition(&f.hub, "web", member, "Applied", "True").await;
    }
    let api: Api<ClusterResourceBinding> = Api::all(f.hub.clone());
    for member in ["member-2", "member-3"] {
        let binding = binding_on(&f.hub, "web", member).await.expect("binding");
        api.delete(&binding.name_any(), &DeleteParams::default())
            .await
            .expect("delete");
        eventually!(
            format!("{member}'s binding gone"),
            binding_on(&f.hub, "web", member)
                .await
                .is_none()
                .then_some(())
        );
    }
    let deployment = |i: usize| Api::<Deployment>::namespaced(f.members[i].clone(), "web");
    assert!(
        Api::<Namespace>::all(f.members[1].clone())
            .get_opt("web")
            .await
            .expect("get")
            .is_none(),
        "namespace withdrawn"
    );
    assert!(
        deployment(2).get_opt("api").await.expect("get").is_none(),
        "deployment withdrawn"
    );
    assert!(
        Api::<Namespace>::all(f.members[2].clone())
            .get_opt("web")
            .await
            .expect("get")
            .is_some(),
        "pre-existing namespace kept"
    );
    assert!(
        deployment(0).get_opt("api").await.expect("get").is_some(),
        "member-1 keeps its placement"
    );
    // No automatic replacement: only a reschedule binds the members again.
    assert_eq!(bindings(&f.hub, "web").await.len(), 1);
    let created = f.sim.reschedule("web").await.expect("reschedule");
    assert_eq!(created.len(), 2);
    with_condition(&f.hub, "web", "member-2", "Applied", "True").await;
}

#[tokio::test]
async fn an_unreachable_member_keeps_its_conditions_and_does_not_stop_the_others() {
    let f = fleet(&[]).await;
    placement(&f.hub, "web", json!({"placementType": "PickAll"}), true).await;
    for member in MEMBERS {
        with_condition(&f.hub, "web", member, "Available", "False").await;
    }
    f.servers[1].set_unreachable(true);
    let frozen = binding_on(&f.hub, "web", "member-2")
        .await
        .expect("binding");
    run_pods(&f.members[0], 2).await;
    run_pods(&f.members[2], 2).await;
    with_condition(&f.hub, "web", "member-1", "Available", "True").await;
    with_condition(&f.hub, "web", "member-3", "Available", "True").await;
    let now = binding_on(&f.hub, "web", "member-2")
        .await
        .expect("binding");
    assert_eq!(
        now.resource_version(),
        frozen.resource_version(),
        "untouched while unreachable"
    );

    f.servers[1].set_unreachable(false);
    run_pods(&f.members[1], 2).await;
    with_condition(&f.hub, "web", "member-2", "Available", "True").await;
}

#[tokio::test]
async fn a_deleted_placement_loses_its_bindings_and_its_members_their_copies() {
    let f = fleet(&[]).await;
    placement(
        &f.hub,
        "web",
        json!({"placementType": "PickFixed", "clusterNames": ["member-2"]}),
        true,
    )
    .await;
    with_condition(&f.hub, "web", "member-2", "Applied", "True").await;
    assert_eq!(
        bindings(&f.hub, "web").await.len(),
        1,
        "PickFixed binds the named member only"
    );
    Api::<ClusterResourcePlacement>::all(f.hub.clone())
        .delete("web", &DeleteParams::default())
        .await
        .expect("delete crp");
    eventually!(
        "bindings gone",
        bindings(&f.hub, "web").await.is_empty().then_some(())
    );
    let namespaces = Api::<Namespace>::all(f.members[1].clone());
    assert!(
        namespaces.get_opt("web").await.expect("get").is_none(),
        "withdrawn"
    );
}

#[tokio::test]
async fn a_second_placement_of_the_same_objects_fails_to_apply() {
    let f = fleet(&[]).await;
    let first = json!({"placementType": "PickFixed", "clusterNames": ["member-1"]});
    placement(&f.hub, "web", first.clone(), true).await;
    with_condition(&f.hub, "web", "member-1", "Applied", "True").await;
    placement(&f.hub, "web-again", first, true).await;
    let refused = with_condition(&f.hub, "web-again", "member-1", "Applied", "False").await;
    let applied = condition(&refused, "Applied").expect("applied");
    assert_eq!(applied.reason, "NotAllWorkHaveBeenApplied");
    assert!(
        applied
            .message
            .contains("already placed by ClusterResourcePlacement web"),
        "{}",
        applied.message
    );
    assert!(
        condition(&refused, "Available").is_none(),
        "no availability before all is applied"
    );
    let deployment = Api::<Deployment>::namespaced(f.members[0].clone(), "web")
        .get("api")
        .await
        .expect("deployment");
    assert_eq!(
        deployment.labels().get(PLACED_BY_LABEL).map(String::as_str),
        Some("web"),
        "the first placement keeps it"
    );
}
