//! End to end: the compiled `fleet-eviction sandbox` (hub, three simulated members, the
//! eviction controller attached as `run` attaches it) driven with the real kubectl, as a
//! user would: apply a placement and its budget, evict, look at `kubectl get crpe`, open a
//! gate with a status patch.

use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/sandbox.rs"]
mod support;

use support::{BIN, Sandbox, WAIT};

/// The hub-side helpers of these tests.
impl Sandbox {
    fn ok(&self, args: &[&str]) -> String {
        self.ok_on("hub", args)
    }

    fn apply(&self, yaml: &str) {
        self.apply_on("hub", yaml);
    }

    fn eviction(&self, name: &str) -> Value {
        serde_json::from_str(&self.ok(&["get", "crpe", name, "-o", "json"])).expect("JSON")
    }

    /// Polls the eviction until `check` holds.
    fn wait_eviction(&self, name: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let e = self.eviction(name);
            if check(&e) {
                return e;
            }
            assert!(Instant::now() < deadline, "{name}: never {what}: {e:#}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn wait_available(&self, placement: &str, clusters: usize) {
        let deadline = Instant::now() + WAIT;
        loop {
            let selector = format!("kubernetes-fleet.io/parent-CRP={placement}");
            let out = self.ok(&[
                "get",
                "clusterresourcebindings",
                "-l",
                &selector,
                "-o",
                "jsonpath={range .items[*]}{.status.conditions[?(@.type==\"Available\")].status}{\"\\n\"}{end}",
            ]);
            if out.lines().filter(|l| *l == "True").count() == clusters {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{placement} never Available on {clusters} clusters: {out}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The cells of a kubectl table row, cut at the header's column starts (an empty cell leaves
/// only spaces).
fn columns(header: &str, line: &str) -> Vec<String> {
    let mut starts: Vec<usize> = header
        .char_indices()
        .filter(|(i, c)| *c != ' ' && (*i == 0 || header.as_bytes()[i - 1] == b' '))
        .map(|(i, _)| i)
        .collect();
    starts.push(usize::MAX);
    starts
        .windows(2)
        .map(|w| {
            let end = w[1].min(line.len());
            line.get(w[0].min(end)..end)
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect()
}

fn condition<'a>(e: &'a Value, type_: &str) -> Option<&'a Value> {
    e["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

fn placement(name: &str, budget: Option<&str>) -> String {
    let budget = budget.map_or(String::new(), |b| {
        format!(
            "---\napiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementDisruptionBudget\nmetadata:\n  name: {name}\nspec:\n  {b}\n"
        )
    });
    format!(
        "apiVersion: v1
kind: Namespace
metadata:
  name: {name}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {name}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: app
        image: nginx
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata:
  name: {name}
  labels:
    sandbox.fleet-eviction.io/simulate: \"true\"
spec:
  resourceSelectors:
  - group: \"\"
    version: v1
    kind: Namespace
    name: {name}
  policy:
    placementType: PickAll
{budget}"
    )
}

fn eviction(name: &str, placement: &str, cluster: &str, extra: &str) -> String {
    format!(
        "apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacementEviction
metadata:
  name: {name}
spec:
  placementName: {placement}
  clusterName: {cluster}
{extra}"
    )
}

#[test]
fn evictions_driven_with_kubectl() {
    let sandbox = Sandbox::start();
    sandbox.apply(&placement("web", Some("minAvailable: 2")));
    sandbox.apply(&placement("batch", None));
    sandbox.wait_available("web", 3);
    sandbox.wait_available("batch", 3);

    sandbox.apply(&eviction("evict-web-1", "web", "member-1", ""));
    let allowed = sandbox.wait_eviction("evict-web-1", "executed", |e| {
        condition(e, "Executed").is_some()
    });
    let executed = condition(&allowed, "Executed").expect("Executed");
    assert_eq!(executed["status"], "True");
    assert_eq!(
        executed["message"],
        "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3"
    );
    // The hub simulation withdraws the workload from member-1 and lets the binding go.
    let deadline = Instant::now() + WAIT;
    loop {
        let pods = sandbox.kubectl("member-1", &["get", "pods", "-n", "web", "-o", "name"]);
        if pods.status.success() && String::from_utf8_lossy(&pods.stdout).trim().is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "web never withdrawn from member-1"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    sandbox.apply(&eviction("evict-web-2", "web", "member-2", ""));
    let blocked = sandbox.wait_eviction("evict-web-2", "decided", |e| {
        condition(e, "Executed").is_some()
    });
    let executed = condition(&blocked, "Executed").expect("Executed");
    assert_eq!(executed["status"], "False");
    assert_eq!(
        executed["reason"],
        "ClusterResourcePlacementEvictionNotExecuted"
    );

    sandbox.apply(&eviction(
        "evict-batch-3",
        "batch",
        "member-3",
        "  evictionConditions:\n  - name: TrafficShifted\n",
    ));
    sandbox.wait_eviction("evict-batch-3", "waiting for its gate", |e| {
        condition(e, "Progressing").is_some_and(|c| c["reason"] == "WaitingForConditions")
    });
    let table = sandbox.ok(&["get", "crpe"]);
    let header = table.lines().next().unwrap_or_default();
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        words,
        ["NAME", "VALID", "EXECUTED", "STAGE", "AGE"],
        "{table}"
    );
    let row = |name: &str| -> Vec<String> {
        let line = table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing from\n{table}"));
        columns(header, line).into_iter().take(4).collect()
    };
    // kubectl prints a cell with no value as blank.
    assert_eq!(row("evict-web-1"), ["evict-web-1", "True", "True", ""]);
    assert_eq!(row("evict-web-2"), ["evict-web-2", "True", "False", ""]);
    assert_eq!(
        row("evict-batch-3"),
        ["evict-batch-3", "True", "", "WaitingForConditions"]
    );

    // The traffic manager opens the gate: a JSON patch appending its condition keeps ours.
    let patch = r#"[{"op": "add", "path": "/status/conditions/-", "value": {"type": "TrafficShifted", "status": "True", "reason": "Shifted", "message": "traffic moved", "lastTransitionTime": "2026-01-01T00:00:00Z"}}]"#;
    sandbox.ok(&[
        "patch",
        "crpe",
        "evict-batch-3",
        "--subresource=status",
        "--type=json",
        "-p",
        patch,
    ]);
    let done = sandbox.wait_eviction("evict-batch-3", "executed", |e| {
        condition(e, "Executed").is_some()
    });
    assert_eq!(
        condition(&done, "Executed").expect("Executed")["status"],
        "True"
    );
    let table = sandbox.ok(&["get", "crpe", "evict-batch-3", "-o", "wide"]);
    assert!(
        table.lines().next().is_some_and(|h| h.contains("STRATEGY")),
        "{table}"
    );
    assert!(table.contains("Succeeded"), "{table}");
    let events = sandbox.ok(&[
        "get",
        "events",
        "-n",
        "default",
        "--field-selector",
        "involvedObject.name=evict-batch-3",
        "-o",
        "jsonpath={range .items[*]}{.reason}{\"\\n\"}{end}",
    ]);
    assert!(
        events.contains("WaitingForConditions")
            && events.contains("ClusterResourcePlacementEvictionExecuted"),
        "{events}"
    );
}

/// `fleet-eviction run` as on a real hub (here the sandbox's, with no controller of its own):
/// it elects itself leader on a Lease, acts, and releases the Lease when stopped.
#[test]
fn run_leads_on_a_lease_and_acts() {
    let sandbox = Sandbox::start_with(&["--no-controller"]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let mut run = Command::new(BIN)
        .args(["run", "--kubeconfig"])
        .arg(sandbox.kubeconfig("hub"))
        .args([
            "--metrics-addr",
            &format!("127.0.0.1:{port}"),
            "--retry-period",
            "200ms",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start run");
    let lease_holder = || {
        sandbox
            .kubectl(
                "hub",
                &[
                    "get",
                    "lease",
                    "-n",
                    "fleet-eviction-system",
                    "fleet-eviction",
                    "-o",
                    "jsonpath={.spec.holderIdentity}",
                ],
            )
            .stdout
    };
    let deadline = Instant::now() + WAIT;
    while lease_holder().is_empty() {
        assert!(Instant::now() < deadline, "run never took the lease");
        std::thread::sleep(Duration::from_millis(100));
    }
    sandbox.apply(&placement("solo", None));
    sandbox.wait_available("solo", 3);
    sandbox.apply(&eviction("evict-solo", "solo", "member-2", ""));
    let done = sandbox.wait_eviction("evict-solo", "executed", |e| {
        condition(e, "Executed").is_some()
    });
    assert_eq!(
        condition(&done, "Executed").expect("Executed")["message"],
        "Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified"
    );
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(run.id().to_string())
        .status();
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Ok(Some(status)) = run.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "run did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert!(
        lease_holder().is_empty(),
        "the lease is released on a clean stop"
    );
}
