//! §4 External: block other evictors with a PDB and a label, signal, let the external actor
//! tear the pod down, and clean up on success, ttl, abort and job deletion; the orphan sweep.

use super::harness::*;
use fleet_eviction::sandbox::apiserver::front::serve_http;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::jiff::Timestamp;
use kube::api::{DeleteParams, EvictParams, ListParams, Preconditions};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A bare pod on `node` that asks for the External policy.
async fn external_pod(m: &Member, name: &str, node: &str) -> Pod {
    m.pod(
        "default",
        name,
        node,
        json!({"app": name, EVICT_POLICY: "External"}),
    )
    .await
}

/// The PDBs labelled as this job's.
async fn job_pdbs(m: &Member, job: &str) -> Vec<PodDisruptionBudget> {
    m.pdbs("default")
        .list(&ListParams::default().labels(&format!("{EVACUATION}={job}")))
        .await
        .expect("list PDBs")
        .items
}

/// Waits for the hand-off of `job` on `pod` and asserts it fully (§4 External, steps 1–2);
/// returns the job.
async fn assert_handed_off(m: &Member, job: &str, pod: &Pod) -> Value {
    let pod_name = name(pod);
    let requested = says::evacuation_requested("default", &pod_name);
    let found = m
        .wait_job(job, "signals the external evacuation", |j| {
            condition(j, "ExternalEvacuation").is_some()
        })
        .await;
    assert_eq!(
        condition(&found, "ExternalEvacuation"),
        Some(("Unknown".into(), "Requested".into(), requested.clone()))
    );
    assert_eq!(
        summary(&found).0,
        "Running",
        "the job runs while the actor works: {found:#}"
    );
    assert!(
        finalizers(&found).iter().any(|f| f == CLEANUP),
        "{job} holds {CLEANUP} while it holds a PDB: {:?}",
        finalizers(&found)
    );
    assert_eq!(annotation(&found, PASSED_ARBITRATION), Some("true"));
    assert_eq!(field(&found, "/spec/podRef/uid"), Some(uid(pod).as_str()));
    m.wait_event(
        "PodMigrationJob",
        job,
        "Normal",
        "ExternalEvacuationRequested",
        &requested,
    )
    .await;

    let now = m.get_pod("default", &pod_name).await.expect("pod stays");
    assert_eq!(uid(&now), uid(pod), "the pod is not removed by us");
    assert!(now.metadata.deletion_timestamp.is_none());
    assert_eq!(labels(&now).get(EVACUATION).map(String::as_str), Some(job));
    let annotations = annotations(&now);
    assert_eq!(
        annotations.get(EVACUATION_REQUESTED).map(String::as_str),
        Some(job)
    );
    let at = annotations
        .get(EVACUATION_REQUESTED_AT)
        .unwrap_or_else(|| panic!("{EVACUATION_REQUESTED_AT} on the pod: {annotations:?}"));
    let at: Timestamp = at
        .parse()
        .unwrap_or_else(|e| panic!("{EVACUATION_REQUESTED_AT} is RFC 3339: {at:?}: {e}"));
    assert_eq!(at, m.now(), "requested on the shared clock");

    let pdbs = job_pdbs(m, job).await;
    assert_eq!(pdbs.len(), 1, "one PDB for {job}: {pdbs:#?}");
    let pdb = &pdbs[0];
    let pdb_name = pdb.metadata.name.clone().unwrap_or_default();
    assert!(pdb_name.starts_with("fleet-eviction-"), "{pdb_name}");
    let spec = pdb.spec.clone().expect("spec");
    assert_eq!(
        spec.max_unavailable,
        Some(k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(0))
    );
    assert_eq!(spec.min_available, None);
    let selector = spec.selector.expect("selector");
    assert_eq!(
        selector.match_labels,
        Some(BTreeMap::from([(EVACUATION.to_string(), job.to_string())])),
        "selects exactly the job's label"
    );
    assert!(selector.match_expressions.unwrap_or_default().is_empty());
    let owners = pdb.metadata.owner_references.clone().unwrap_or_default();
    assert_eq!(owners.len(), 1, "{owners:#?}");
    assert_eq!(
        (
            owners[0].kind.as_str(),
            owners[0].name.as_str(),
            owners[0].uid.as_str()
        ),
        ("Pod", pod_name.as_str(), uid(pod).as_str()),
        "owned by the pod"
    );
    assert_ne!(owners[0].block_owner_deletion, Some(true));
    found
}

/// Asserts that nothing of `job` is left: no PDB, and the pod (when it still exists) has
/// neither the label nor the annotations.
async fn assert_cleaned_up(m: &Member, job: &str, pod: &str) {
    eventually(&format!("the PDB of {job} is deleted"), || async {
        job_pdbs(m, job).await.is_empty().then_some(())
    })
    .await;
    eventually(&format!("{pod} carries nothing of {job}"), || async {
        let Some(now) = m.get_pod("default", pod).await else {
            return Some(());
        };
        let (labels, annotations) = (labels(&now), annotations(&now));
        (!labels.contains_key(EVACUATION)
            && !annotations.contains_key(EVACUATION_REQUESTED)
            && !annotations.contains_key(EVACUATION_REQUESTED_AT))
        .then_some(())
    })
    .await;
}

async fn assert_finalizer_dropped(m: &Member, job: &str) -> Value {
    m.wait_job(job, &format!("drops {CLEANUP}"), |j| {
        !finalizers(j).iter().any(|f| f == CLEANUP)
    })
    .await
}

/// Deletes the pod as the external actor does: with a resourceVersion precondition.
async fn actor_deletes(m: &Member, pod: &str) {
    let current = m.get_pod("default", pod).await.expect("pod");
    let params = DeleteParams {
        preconditions: Some(Preconditions {
            resource_version: current.metadata.resource_version.clone(),
            uid: None,
        }),
        ..DeleteParams::default()
    };
    m.pods("default")
        .delete(pod, &params)
        .await
        .unwrap_or_else(|e| panic!("the actor deletes {pod}: {e}"));
}

fn kubeconfig(url: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: member\nclusters:\n- name: member\n  cluster:\n    server: {url}\nusers:\n- name: anyone\n  user:\n    token: any\ncontexts:\n- name: member\n  context:\n    cluster: member\n    user: anyone\n"
    )
}

fn refused_evictions(m: &Member, pod: &str) -> usize {
    m.server
        .request_log()
        .iter()
        .filter(|r| r.name == pod && r.resource.contains("eviction") && r.code == 429)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hand_off_blocks_evictors_until_the_external_actor_removes_the_pod() {
    let m = Member::start(2, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({})).await;
    assert_handed_off(&m, "evacuate-vm", &pod).await;

    // An Eviction-API evictor is refused.
    let refused = m
        .pods("default")
        .evict("vm-0", &EvictParams::default())
        .await;
    match refused {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 429, "{s:?}"),
        other => panic!("the eviction should be refused with 429: {other:?}"),
    }

    // So is `kubectl drain` of the node, over HTTP, until the actor removes the pod.
    let front = serve_http(m.server.clone(), "127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("serve over HTTP");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("kubeconfig"), kubeconfig(&front.url())).expect("kubeconfig");
    let refused_before = refused_evictions(&m, "vm-0");
    let drain = tokio::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(dir.path().join("kubeconfig"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args([
            "drain",
            "node-1",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            // vm-0 is a bare pod: kubectl refuses those without --force.
            "--force",
            "--timeout=15s",
        ])
        .kill_on_drop(true)
        .output();
    let drain = tokio::spawn(drain);
    eventually("kubectl drain is refused an eviction of vm-0", || async {
        (refused_evictions(&m, "vm-0") > refused_before).then_some(())
    })
    .await;
    let still = m.get_pod("default", "vm-0").await.expect("vm-0 stays");
    assert_eq!(uid(&still), uid(&pod));
    assert!(still.metadata.deletion_timestamp.is_none());

    actor_deletes(&m, "vm-0").await;
    let out = drain.await.expect("drain task").expect("kubectl runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "the drain completes once the pod is gone:\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("disruption budget"),
        "refused first:\n{stderr}"
    );
    assert!(stdout.contains("node/node-1 drained"), "{stdout}");

    let job = assert_succeeded(&m, "evacuate-vm", "default", "vm-0", &uid(&pod)).await;
    assert_eq!(
        condition_types(&job),
        ["ExternalEvacuation", "Eviction"],
        "{job:#}"
    );
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
    assert!(
        !m.job_events("evacuate-vm")
            .await
            .iter()
            .any(|e| e.0 == "Warning"),
        "{:#?}",
        m.job_events("evacuate-vm").await
    );
    // External signalling is a hand-off, counted under its policy.
    m.wait_metrics("the hand-off counted under policy External", |text| {
        total(
            text,
            "fleet_eviction_pod_evictions_total",
            &[("member", MEMBER), ("policy", "External")],
        ) >= 1.0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ttl_ends_a_hand_off_and_cleans_up() {
    let m = Member::start(1, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({"ttl": "10s"}))
        .await;
    let handed_off = assert_handed_off(&m, "evacuate-vm", &pod).await;

    m.advance(9);
    m.settle().await;
    assert!(!is_terminal(&m.get_job("evacuate-vm").await.expect("job")));
    assert_eq!(job_pdbs(&m, "evacuate-vm").await.len(), 1, "still held");

    m.advance(1);
    let job = m.wait_ended("evacuate-vm", "Failed").await;
    assert_eq!(
        summary(&job),
        (
            "Failed".into(),
            summary(&handed_off).1,
            "Timeout".into(),
            says::TIMEOUT.into()
        )
    );
    m.wait_event(
        "PodMigrationJob",
        "evacuate-vm",
        "Warning",
        "Timeout",
        says::TIMEOUT,
    )
    .await;
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
    assert_finalizer_dropped(&m, "evacuate-vm").await;
    let now = m.get_pod("default", "vm-0").await.expect("the pod stays");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());
    assert_eq!(
        m.eviction_answer("default", "vm-0").await,
        None,
        "evictable again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_handed_off_job_cleans_up_and_the_job_goes() {
    let m = Member::start(1, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({})).await;
    assert_handed_off(&m, "evacuate-vm", &pod).await;

    m.delete_job("evacuate-vm").await;
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
    m.wait_job_gone("evacuate-vm").await;
    let now = m.get_pod("default", "vm-0").await.expect("the pod stays");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_abort_of_a_hand_off_cleans_up_and_keeps_the_users_status() {
    let m = Member::start(1, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({})).await;
    assert_handed_off(&m, "evacuate-vm", &pod).await;

    let written = m.set_phase("evacuate-vm", "Failed").await;
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
    let job = assert_finalizer_dropped(&m, "evacuate-vm").await;
    assert_eq!(job["status"], written["status"], "the status is the user's");
    assert!(annotation(&job, FINISHED_AT).is_some());
    let now = m.get_pod("default", "vm-0").await.expect("the pod stays");
    assert_eq!(uid(&now), uid(&pod));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_evacuation_false_fails_the_job_and_cleans_up() {
    let m = Member::start(1, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({})).await;
    let handed_off = assert_handed_off(&m, "evacuate-vm", &pod).await;

    m.set_condition(
        "evacuate-vm",
        "ExternalEvacuation",
        "False",
        "MigrationFailed",
        "no target host",
    )
    .await;
    let job = m.wait_ended("evacuate-vm", "Failed").await;
    assert_eq!(
        summary(&job),
        (
            "Failed".into(),
            summary(&handed_off).1,
            "ExternalEvacuationFailed".into(),
            says::evacuation_failed("no target host")
        )
    );
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
    assert_finalizer_dropped(&m, "evacuate-vm").await;
    let now = m.get_pod("default", "vm-0").await.expect("the pod stays");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_evacuation_true_makes_the_executor_delete_the_pod() {
    let m = Member::start(1, &[]).await;
    let pod = external_pod(&m, "vm-0", "node-1").await;
    m.job("evacuate-vm", "default", "vm-0", json!({})).await;
    assert_handed_off(&m, "evacuate-vm", &pod).await;

    m.set_condition(
        "evacuate-vm",
        "ExternalEvacuation",
        "True",
        "Migrated",
        "moved to host-7",
    )
    .await;
    assert_succeeded(&m, "evacuate-vm", "default", "vm-0", &uid(&pod)).await;
    assert!(m.get_pod("default", "vm-0").await.is_none(), "deleted");
    assert_cleaned_up(&m, "evacuate-vm", "vm-0").await;
}

/// §4 External step 5: what names a job that no longer exists is removed at start-up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_orphan_sweep_removes_what_names_a_vanished_job() {
    let mut m = Member::without_executor(1, Time::Manual).await;
    let pod = m
        .pod(
            "default",
            "vm-0",
            "node-1",
            json!({"app": "vm", EVACUATION: "gone-job"}),
        )
        .await;
    m.pods("default")
        .patch(
            "vm-0",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"metadata": {"annotations": {
                EVACUATION_REQUESTED: "gone-job", EVACUATION_REQUESTED_AT: START}}})),
        )
        .await
        .expect("annotate");
    m.create::<PodDisruptionBudget>(
        "default",
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "fleet-eviction-orphan", "namespace": "default",
                            "labels": {EVACUATION: "gone-job"}},
               "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {EVACUATION: "gone-job"}}}}),
    )
    .await;
    // A PDB of someone else, without our label, is left alone.
    m.pdb(
        "default",
        "theirs",
        json!({"maxUnavailable": 1, "selector": {"matchLabels": {"app": "vm"}}}),
    )
    .await;

    m.start_executor(&[]).await;
    assert_cleaned_up(&m, "gone-job", "vm-0").await;
    let now = m.get_pod("default", "vm-0").await.expect("the pod stays");
    assert_eq!(uid(&now), uid(&pod));
    assert_eq!(labels(&now).get("app").map(String::as_str), Some("vm"));
    assert!(
        m.pdbs("default")
            .get_opt("theirs")
            .await
            .expect("read")
            .is_some(),
        "not ours"
    );
}
