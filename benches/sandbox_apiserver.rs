//! Micro-benchmark of the sandbox API server: create, list and watch throughput and memory
//! with 100k objects in one server. Run with `cargo bench --bench sandbox_apiserver`
//! (`-- --objects N` for another size). Prints figures; asserts nothing.

use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;
use std::time::Instant;

fn objects_wanted() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == "--objects")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(100_000)
}

/// Resident and peak resident memory of this process, in MiB.
fn memory_mib() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn config_map(i: usize) -> ConfigMap {
    serde_json::from_value(json!({
        "metadata": {"name": format!("cm-{i:06}"), "labels": {"shard": format!("s{}", i % 100), "app": "bench"}},
        "data": {"payload": "x".repeat(200)}
    }))
    .expect("config map")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let n = objects_wanted();
    let server = ApiServer::new(ServerConfig {
        ring_capacity: 10_000,
        ..ServerConfig::default()
    });
    let api: Api<ConfigMap> = Api::namespaced(client(&server), "default");
    let (rss0, _) = memory_mib();
    println!(
        "sandbox API server benchmark: {n} ConfigMaps, in process (kube Client over tower::Service)"
    );
    println!(
        "commit {}",
        option_env!("GIT_COMMIT").unwrap_or("(set GIT_COMMIT to print it)")
    );
    println!(
        "cores available: {}",
        std::thread::available_parallelism().map_or(0, |c| c.get())
    );

    // A watcher running through the whole create phase.
    let watch_api = api.clone();
    let watcher = tokio::spawn(async move {
        let mut stream = watch_api
            .watch(&WatchParams::default(), "0")
            .await
            .expect("watch")
            .boxed();
        let mut seen = 0usize;
        while let Some(Ok(event)) = stream.next().await {
            if matches!(event, WatchEvent::Added(_)) {
                seen += 1;
                if seen == n {
                    break;
                }
            }
        }
        seen
    });

    let started = Instant::now();
    let mut pending = futures::stream::iter((0..n).map(|i| {
        let api = api.clone();
        async move {
            api.create(&PostParams::default(), &config_map(i))
                .await
                .map(|_| ())
        }
    }))
    .buffer_unordered(64);
    let mut failures = 0usize;
    while let Some(r) = pending.next().await {
        failures += usize::from(r.is_err());
    }
    let create_s = started.elapsed().as_secs_f64();
    println!(
        "create: {n} objects in {create_s:.2} s = {:.0} objects/s ({failures} failed)",
        n as f64 / create_s
    );

    let seen = watcher.await.expect("watcher");
    let watch_s = started.elapsed().as_secs_f64();
    println!(
        "watch: one watcher received {seen} ADDED events, done {watch_s:.2} s after the first create"
    );

    let started = Instant::now();
    let all = api.list(&ListParams::default()).await.expect("list");
    let list_s = started.elapsed().as_secs_f64();
    println!("list all: {} objects in {list_s:.3} s", all.items.len());
    drop(all);

    let started = Instant::now();
    let rounds = 50;
    let mut selected = 0;
    for round in 0..rounds {
        let page = api
            .list(&ListParams::default().labels(&format!("shard=s{round}")))
            .await
            .expect("list");
        selected = page.items.len();
    }
    let select_ms = started.elapsed().as_secs_f64() * 1000.0 / rounds as f64;
    println!("list with a label selector ({selected} of {n} match): {select_ms:.1} ms per list");

    let started = Instant::now();
    let mut pages = 0;
    let mut token: Option<String> = None;
    loop {
        let mut lp = ListParams::default().limit(500);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let page = api.list(&lp).await.expect("page");
        pages += 1;
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            break;
        }
    }
    println!(
        "paged list (limit 500): {pages} pages in {:.3} s",
        started.elapsed().as_secs_f64()
    );

    let (rss, peak) = memory_mib();
    println!("memory: RSS {rss:.0} MiB (start {rss0:.0} MiB), peak {peak:.0} MiB");
}
