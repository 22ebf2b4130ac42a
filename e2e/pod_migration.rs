//! End to end at the pod level: PodMigrationJobs on a member cluster of the compiled
//! `fleet-eviction sandbox`, driven with the real kubectl — executed by the executor the hub
//! runs for every registered member, and by `fleet-eviction member --kubeconfig` alone.

#[path = "support/sandbox.rs"]
mod support;

use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::{BIN, Sandbox, WAIT};

/// A bare pod on `member` that goes quickly once deleted.
fn pod(name: &str) -> String {
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels:
    app: {name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: registry.example/app:1
"
    )
}

fn job(name: &str, pod: &str) -> String {
    format!(
        "apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: {name}
  annotations:
    koordinator.sh/evict-reason: node-upgrade
spec:
  podRef:
    namespace: default
    name: {pod}
"
    )
}

fn json(sandbox: &Sandbox, cluster: &str, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.extend(["-o", "json"]);
    serde_json::from_str(&sandbox.ok_on(cluster, &args)).expect("JSON")
}

/// Waits until the pod is scheduled and Ready; its node.
fn wait_running(sandbox: &Sandbox, cluster: &str, pod: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let p = json(sandbox, cluster, &["get", "pod", pod]);
        let ready = p["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Ready" && c["status"] == "True");
        if ready {
            return p["spec"]["nodeName"]
                .as_str()
                .unwrap_or_default()
                .to_string();
        }
        assert!(Instant::now() < deadline, "{pod} never ready: {p:#}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn wait_phase(sandbox: &Sandbox, cluster: &str, job: &str, phase: &str) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let j = json(sandbox, cluster, &["get", "pmj", job]);
        if j["status"]["phase"] == phase {
            return j;
        }
        assert!(Instant::now() < deadline, "{job} never {phase}: {j:#}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Creates a pod and its job on `cluster` and checks the whole outcome a user sees.
fn migrate_and_check(sandbox: &Sandbox, cluster: &str, name: &str) {
    sandbox.apply_on(cluster, &pod(name));
    let node = wait_running(sandbox, cluster, name);
    let pod_uid = json(sandbox, cluster, &["get", "pod", name])["metadata"]["uid"].clone();
    let job_name = format!("migrate-{name}");
    sandbox.apply_on(cluster, &job(&job_name, name));
    let done = wait_phase(sandbox, cluster, &job_name, "Succeeded");
    let evicted = format!("Pod \"default/{name}\" has been evicted");
    assert_eq!(done["status"]["status"], "Complete");
    assert_eq!(done["status"]["message"], evicted.as_str());
    assert!(
        done["status"]["reason"]
            .as_str()
            .unwrap_or_default()
            .is_empty()
    );
    assert_eq!(
        done["spec"]["podRef"]["uid"], pod_uid,
        "the pod's uid recorded"
    );
    let eviction = &done["status"]["conditions"][0];
    assert_eq!(
        (&eviction["type"], &eviction["status"], &eviction["reason"]),
        (
            &Value::from("Eviction"),
            &Value::from("True"),
            &Value::from("EvictComplete")
        )
    );
    let gone = sandbox.kubectl(cluster, &["get", "pod", name]);
    assert!(!gone.status.success(), "the pod is gone");
    let columns = sandbox.ok_on(cluster, &["get", "pmj", &job_name]);
    let header = columns.lines().next().unwrap_or_default();
    for column in ["PHASE", "STATUS", "NODE", "PODNAMESPACE", "POD", "TTL"] {
        assert!(header.contains(column), "column {column}: {columns}");
    }
    let events = sandbox.ok_on(
        cluster,
        &[
            "get",
            "events",
            "--field-selector",
            &format!("involvedObject.name={job_name}"),
            "-o",
            "jsonpath={range .items[*]}{.reason}={.message}{\"\\n\"}{end}",
        ],
    );
    let evicting = format!(
        "Evicting=Pod \"default/{name}\" evicted from node \"{node}\" by the reason \"node-upgrade\""
    );
    assert!(events.contains(&evicting), "{events}");
    assert!(
        events.contains(&format!("EvictComplete={evicted}")),
        "{events}"
    );
}

/// The hub (`run`, attached by the sandbox) runs an executor for every registered member.
#[test]
fn the_hub_executes_jobs_on_every_member() {
    let sandbox = Sandbox::start();
    for (cluster, pod) in [("member-1", "web-a"), ("member-3", "web-b")] {
        migrate_and_check(&sandbox, cluster, pod);
    }
}

/// `fleet-eviction member --kubeconfig` executes a member's jobs with no hub controller.
#[test]
fn member_runs_the_executor_against_one_cluster() {
    let sandbox = Sandbox::start_with(&["--no-controller"]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut member = Command::new(BIN)
        .args(["member", "--kubeconfig"])
        .arg(sandbox.kubeconfig("member-2"))
        .args(["--metrics-addr", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start member");
    migrate_and_check(&sandbox, "member-2", "api");
    assert_eq!(stop(&mut member), Some(0), "a clean stop on SIGTERM");
}

fn stop(child: &mut Child) -> Option<i32> {
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
