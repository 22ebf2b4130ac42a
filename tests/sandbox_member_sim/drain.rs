//! `kubectl drain` over HTTP against a simulated member on the wall clock: a budget that
//! allows nothing holds the drain; one that allows a disruption lets it evict pod by pod
//! while the replacements start elsewhere, never going below the budget.

use super::pods::{deployment, eventually, is_ready, is_terminating, node_of, ready_pods};
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::sandbox::apiserver::front::{self, HttpFront, serve_http};
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::sim::member::{MemberSim, SimHandle, create_nodes};
use futures::StreamExt;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::runtime::watcher;
use kube::{Api, Client};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const REPLICAS: i32 = 6;

/// A member on a loopback port with its simulation, and a kubectl set up for it. The runtime
/// is dropped last, after the simulation and the server's front are stopped.
struct Cluster {
    client: Client,
    dir: tempfile::TempDir,
    _sim: SimHandle,
    _front: HttpFront,
    runtime: tokio::runtime::Runtime,
}

impl Cluster {
    fn start(nodes: usize) -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let server = ApiServer::new(ServerConfig::default());
        // The client buffers requests in a task of its own: it is made inside the runtime.
        let client = {
            let _inside = runtime.enter();
            front::client(&server)
        };
        let front = runtime
            .block_on(serve_http(server, "127.0.0.1:0".parse().expect("addr")))
            .expect("serve");
        runtime
            .block_on(create_nodes(&client, nodes))
            .expect("nodes");
        let sim = {
            let _inside = runtime.enter();
            MemberSim::start(client.clone(), Arc::new(SystemClock))
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: sandbox\nclusters:\n- name: sandbox\n  cluster:\n    server: {}\nusers:\n- name: anyone\n  user:\n    token: any\ncontexts:\n- name: sandbox\n  context:\n    cluster: sandbox\n    user: anyone\n",
            front.url()
        );
        std::fs::write(dir.path().join("kubeconfig"), kubeconfig).expect("write kubeconfig");
        Cluster {
            client,
            dir,
            _sim: sim,
            _front: front,
            runtime,
        }
    }

    fn kubectl(&self, args: &[&str]) -> Output {
        Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(self.dir.path().join("kubeconfig"))
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(args)
            .output()
            .expect("kubectl runs")
    }

    fn apply(&self, file: &str, object: Value) {
        let path = self.dir.path().join(file);
        std::fs::write(&path, object.to_string()).expect("write manifest");
        let out = self.kubectl(&["apply", "-f", path.to_str().expect("utf-8 path")]);
        assert!(out.status.success(), "apply {file}: {}", text(&out.stderr));
    }

    fn drain(&self) -> Output {
        self.kubectl(&[
            "drain",
            "node-1",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=20s",
        ])
    }

    /// The web deployment (one-second grace period) and a budget with `min_available`, once
    /// every replica is Ready.
    fn workload(&self, min_available: i32) -> Vec<Pod> {
        self.apply("web.json", deployment("web", REPLICAS, 1));
        self.apply(
            "pdb.json",
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "web"}}}}),
        );
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), "default");
        self.runtime
            .block_on(ready_pods(&pods, "web", REPLICAS as usize))
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn healthy(pod: &Pod) -> bool {
    is_ready(pod) && !is_terminating(pod)
}

/// The fewest healthy web pods at any moment since the watch listed them (None before).
#[derive(Clone, Default)]
struct FewestHealthy(Arc<Mutex<Option<usize>>>);

impl FewestHealthy {
    fn get(&self) -> Option<usize> {
        *self.0.lock().expect("lock")
    }

    fn record(&self, pods: &BTreeMap<String, bool>) {
        let now = pods.values().filter(|h| **h).count();
        let mut fewest = self.0.lock().expect("lock");
        *fewest = Some(fewest.map_or(now, |f| f.min(now)));
    }

    /// Follows every change to the web pods, one event at a time.
    fn watch(cluster: &Cluster) -> FewestHealthy {
        let fewest = FewestHealthy::default();
        let api: Api<Pod> = Api::namespaced(cluster.client.clone(), "default");
        let record = fewest.clone();
        cluster.runtime.spawn(async move {
            let mut events = watcher(api, watcher::Config::default().labels("app=web")).boxed();
            let (mut pods, mut listing) = (BTreeMap::new(), BTreeMap::new());
            let mut listed = false;
            while let Some(Ok(event)) = events.next().await {
                let name = |p: &Pod| p.metadata.name.clone().unwrap_or_default();
                match event {
                    watcher::Event::Init => (listing, listed) = (BTreeMap::new(), false),
                    watcher::Event::InitApply(p) => {
                        listing.insert(name(&p), healthy(&p));
                    }
                    watcher::Event::InitDone => {
                        (pods, listed) = (std::mem::take(&mut listing), true);
                    }
                    watcher::Event::Apply(p) => {
                        pods.insert(name(&p), healthy(&p));
                    }
                    watcher::Event::Delete(p) => {
                        pods.remove(&name(&p));
                    }
                }
                if listed {
                    record.record(&pods);
                }
            }
        });
        let probe = fewest.clone();
        cluster
            .runtime
            .block_on(eventually("the pod watch listed", || {
                let seen = probe.get();
                async move { seen.map(|_| ()) }
            }));
        fewest
    }
}

#[test]
fn drain_is_refused_while_the_budget_allows_no_disruption() {
    let c = Cluster::start(3);
    let before = c.workload(REPLICAS);
    let out = c.drain();
    let stderr = text(&out.stderr);
    assert!(
        !out.status.success(),
        "drain should fail:\n{}",
        text(&out.stdout)
    );
    assert!(stderr.contains("disruption budget"), "{stderr}");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let after = c
        .runtime
        .block_on(ready_pods(&pods, "web", REPLICAS as usize));
    let on_node_1 = |pods: &[Pod]| pods.iter().filter(|p| node_of(p) == "node-1").count();
    assert_eq!(
        (on_node_1(&before), on_node_1(&after)),
        (2, 2),
        "nothing evicted"
    );
    let nodes: Api<Node> = Api::all(c.client.clone());
    let node = c.runtime.block_on(nodes.get("node-1")).expect("node-1");
    assert_eq!(
        node.spec.and_then(|s| s.unschedulable),
        Some(true),
        "left cordoned"
    );
}

#[test]
fn drain_evicts_pod_by_pod_within_the_budget() {
    let c = Cluster::start(3);
    let min_available = REPLICAS as usize - 1;
    let before = c.workload(REPLICAS - 1);
    assert_eq!(
        before.iter().filter(|p| node_of(p) == "node-1").count(),
        2,
        "spread 2 per node"
    );
    let fewest = FewestHealthy::watch(&c);
    let out = c.drain();
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "drain failed:\n{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(stdout.contains("node/node-1 drained"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(" evicted")).count(),
        2,
        "{stdout}"
    );
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let after = c
        .runtime
        .block_on(ready_pods(&pods, "web", REPLICAS as usize));
    assert!(
        after.iter().all(|p| node_of(p) != "node-1"),
        "re-created on the other nodes"
    );
    assert_eq!(
        fewest.get(),
        Some(min_available),
        "down to the budget, never below"
    );
}
