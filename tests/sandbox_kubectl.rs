//! The reference client against the sandbox API server over HTTP: the kubectl half of the
//! command matrix (docs/sandbox-commands.md). kubectl runs with `--cache-dir` in a temp dir
//! so the version dispatcher picks the version the server reports (1.32).

mod support;

use fleet_eviction::sandbox::apiserver::front::{HttpFront, serve_http};
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// A server on a loopback port, its runtime on a thread of its own, and a kubectl set up for it.
struct Cluster {
    _server: Arc<ApiServer>,
    _front: HttpFront,
    _runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let server = ApiServer::new(ServerConfig::default());
        let front = runtime
            .block_on(serve_http(
                server.clone(),
                "127.0.0.1:0".parse().expect("addr"),
            ))
            .expect("serve");
        let dir = tempfile::tempdir().expect("temp dir");
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: sandbox\nclusters:\n- name: sandbox\n  cluster:\n    server: {}\nusers:\n- name: anyone\n  user:\n    token: any\ncontexts:\n- name: sandbox\n  context:\n    cluster: sandbox\n    user: anyone\n",
            front.url()
        );
        std::fs::write(dir.path().join("kubeconfig"), kubeconfig).expect("write kubeconfig");
        Cluster {
            _server: server,
            _front: front,
            _runtime: runtime,
            dir,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("kubectl");
        c.arg("--kubeconfig")
            .arg(self.dir.path().join("kubeconfig"));
        c.arg("--cache-dir").arg(self.dir.path().join("cache"));
        c.args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("kubectl runs")
    }

    /// Runs and requires success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "kubectl {args:?} failed:\n{}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// Runs and requires failure; returns stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            !out.status.success(),
            "kubectl {args:?} should fail:\n{}",
            text(&out.stdout)
        );
        text(&out.stderr)
    }

    fn write(&self, name: &str, content: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, content).expect("write file");
        path
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).expect("kubectl printed JSON")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn repo(relative: &str) -> String {
    support::repo_path(relative).to_string_lossy().into_owned()
}

fn with_crds() -> Cluster {
    let c = Cluster::start();
    c.ok(&["apply", "-f", &repo("crds/")]);
    c.ok(&["apply", "-f", &repo("crds/sandbox/")]);
    c
}

#[test]
fn crds_register_kinds_with_short_names() {
    let c = with_crds();
    let crds = c.ok(&["get", "crd"]);
    for name in [
        "clusterresourceplacementevictions.placement.kubernetes-fleet.io",
        "clusterresourceplacementdisruptionbudgets.placement.kubernetes-fleet.io",
        "podmigrationjobs.scheduling.koordinator.sh",
    ] {
        assert!(crds.contains(name), "{crds}");
    }
    let resources = c.ok(&["api-resources"]);
    for (short, kind) in [
        ("crpe", "ClusterResourcePlacementEviction"),
        ("crpdb", "ClusterResourcePlacementDisruptionBudget"),
        ("pmj", "PodMigrationJob"),
        ("pdb", "PodDisruptionBudget"),
    ] {
        let line = resources
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == kind))
            .unwrap_or_else(|| panic!("{kind} listed:\n{resources}"));
        assert!(
            line.split_whitespace()
                .any(|w| w.split(',').any(|s| s == short)),
            "{line}"
        );
    }
}

#[test]
fn examples_apply_and_reapply_unchanged() {
    let c = with_crds();
    let first = c.ok(&["apply", "-f", &repo("examples/")]);
    assert!(first.lines().all(|l| l.ends_with(" created")), "{first}");
    let second = c.ok(&["apply", "-f", &repo("examples/")]);
    assert!(
        !second.is_empty() && second.lines().all(|l| l.ends_with(" unchanged")),
        "{second}"
    );
}

#[test]
fn printer_columns_and_yaml_round_trip() {
    let c = with_crds();
    c.ok(&["apply", "-f", &repo("examples/crpe.yaml")]);
    let table = c.ok(&["get", "crpe"]);
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        ["NAME", "VALID", "EXECUTED", "STAGE", "AGE"],
        "{table}"
    );
    let wide = c.ok(&["get", "crpe", "-o", "wide"]);
    assert!(
        wide.lines().next().unwrap_or("").contains("STRATEGY"),
        "{wide}"
    );
    c.ok(&["apply", "-f", &repo("examples/pmj-evict-directly.yaml")]);
    let jobs = c.ok(&["get", "pmj", "-A"]);
    assert!(
        jobs.lines().next().unwrap_or("").contains("PHASE"),
        "{jobs}"
    );

    let before = c.json(&["get", "crpe", "web-off-member-2", "-o", "json"]);
    let yaml = c.ok(&["get", "crpe", "web-off-member-2", "-o", "yaml"]);
    let file = c.write("round-trip.yaml", &yaml);
    let again = c.ok(&["apply", "-f", path(&file)]);
    // As against a real server: only the last-applied annotation changes.
    assert!(again.ends_with("configured\n"), "{again}");
    let after = c.json(&["get", "crpe", "web-off-member-2", "-o", "json"]);
    assert_eq!(after["spec"], before["spec"]);
    assert_eq!(after["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(
        after["metadata"]["generation"],
        before["metadata"]["generation"]
    );
}

#[test]
fn watch_streams_changes() {
    let c = with_crds();
    let mut child = c
        .command(&["get", "crpe", "-w", "--no-headers"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kubectl -w");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    c.ok(&["apply", "-f", &repo("examples/crpe.yaml")]);
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            seen.push(line);
            if seen.iter().any(|l| l.starts_with("web-off-member-2")) {
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.iter()
            .any(|l| l.split_whitespace().next() == Some("web-off-member-2")),
        "{seen:?}"
    );
}

fn crpe_name(c: &Cluster) -> String {
    c.json(&["get", "crpe", "-o", "json"])["items"][0]["metadata"]["name"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn status_patch_conflicts_and_validation() {
    let c = with_crds();
    c.ok(&["apply", "-f", &repo("examples/crpe.yaml")]);
    let name = crpe_name(&c);
    let status = r#"{"status":{"conditions":[{"type":"Valid","status":"True","reason":"ClusterResourcePlacementEvictionValid","message":"valid","lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}]}}"#;
    c.ok(&[
        "patch",
        "crpe",
        &name,
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    ]);
    let table = c.ok(&["get", "crpe", &name, "--no-headers"]);
    assert_eq!(table.split_whitespace().nth(1), Some("True"), "{table}");

    let stale = c.ok(&["get", "crpe", &name, "-o", "json"]);
    c.ok(&["label", "crpe", &name, "touched=yes"]);
    let file = c.write("stale.json", &stale);
    let err = c.fails(&["replace", "-f", path(&file)]);
    assert!(err.contains("the object has been modified"), "{err}");

    let both = c.write("both.yaml", "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementDisruptionBudget\nmetadata:\n  name: both\nspec:\n  minAvailable: 1\n  maxUnavailable: 1\n");
    let err = c.fails(&["apply", "-f", path(&both)]);
    assert!(
        err.contains("Both MaxUnavailable and MinAvailable cannot be specified"),
        "{err}"
    );

    let unknown = c.write("unknown.yaml", "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementDisruptionBudget\nmetadata:\n  name: unknown\nspec:\n  minAvailable: 1\n  surprise: true\n");
    let err = c.fails(&["apply", "--validate=strict", "-f", path(&unknown)]);
    assert!(err.contains("unknown field \"spec.surprise\""), "{err}");
}

#[test]
fn finalizer_holds_a_deletion_until_removed() {
    let c = with_crds();
    let held = c.write("held.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\ndata:\n  k: v\n");
    c.ok(&["apply", "-f", path(&held)]);
    c.ok(&["delete", "configmap", "held", "--wait=false"]);
    let object = c.json(&["get", "configmap", "held", "-o", "json"]);
    assert!(
        object["metadata"]["deletionTimestamp"].is_string(),
        "{object}"
    );
    c.ok(&[
        "patch",
        "configmap",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    let err = c.fails(&["get", "configmap", "held"]);
    assert!(
        err.contains("NotFound") || err.contains("not found"),
        "{err}"
    );
}

#[test]
fn label_annotate_and_cordon_use_strategic_merge() {
    let c = Cluster::start();
    let node = c.write(
        "node.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  labels:\n    zone: a\n",
    );
    c.ok(&["apply", "-f", path(&node)]);
    c.ok(&["label", "node", "node-1", "tier=gold"]);
    c.ok(&["annotate", "node", "node-1", "owner=platform"]);
    c.ok(&["cordon", "node-1"]);
    let object = c.json(&["get", "node", "node-1", "-o", "json"]);
    assert_eq!(object["metadata"]["labels"]["tier"], "gold");
    assert_eq!(object["metadata"]["labels"]["zone"], "a");
    assert_eq!(object["metadata"]["annotations"]["owner"], "platform");
    assert_eq!(object["spec"]["unschedulable"], true);
    c.ok(&["label", "node", "node-1", "tier-"]);
    let object = c.json(&["get", "node", "node-1", "-o", "json"]);
    assert!(
        object["metadata"]["labels"].get("tier").is_none(),
        "{object}"
    );
    c.ok(&["uncordon", "node-1"]);
    let object = c.json(&["get", "node", "node-1", "-o", "json"]);
    assert!(
        object["spec"]
            .get("unschedulable")
            .is_none_or(|u| u == false),
        "{object}"
    );
}
