//! The `fleet-eviction` binary as a user runs it: the command line contract of overview.md
//! ("Command line"), the `crds` output, the refusal of subcommands not built yet, and
//! `run` against an unreachable hub and against a fake hub (a tiny HTTP server answering
//! the CRD reads of the start-up check).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use fleet_eviction::api::crds::{self, CRPDB_CRD_NAME, CRPE_CRD_NAME, PMJ_CRD_NAME, PMJP_CRD_NAME};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use tokio::sync::watch;

const BIN: &str = env!("CARGO_BIN_EXE_fleet-eviction");
/// Generous bound for one-shot commands; they finish in milliseconds.
const QUICK: Duration = Duration::from_secs(30);
/// The CRD check gives up after 10 s at most; a failing start must end well before this.
const FAIL_FAST: Duration = Duration::from_secs(15);

// ---------------------------------------------------------------------------------------
// the command line contract

#[test]
fn help_lists_every_subcommand() {
    let out = run_to_end(&["--help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    let mut subcommands = vec!["run", "member", "crds", "drain", "uncordon"];
    if cfg!(feature = "sandbox") {
        subcommands.push("sandbox");
    }
    for subcommand in subcommands {
        assert!(
            help.lines()
                .any(|line| line.trim_start().starts_with(&format!("{subcommand} "))),
            "--help lists `{subcommand}`:\n{help}"
        );
    }
}

/// Every flag of `run` in overview.md "Command line" (flags map one to one onto Helm values).
const RUN_FLAGS: &[&str] = &[
    "--kubeconfig",
    "--namespace",
    "--metrics-addr",
    "--log-format",
    "--log-filter",
    "--leader-elect",
    "--lease-name",
    "--lease-duration",
    "--renew-deadline",
    "--retry-period",
    "--workers",
    "--extended-ttl-default",
    "--enable-fleet-eviction",
    "--enable-pod-migration",
    "--member-probe-interval",
];

/// The PodMigrationJob flags `run` and `member` share.
const PMJ_FLAGS: &[&str] = &[
    "--pmj-default-mode",
    "--pmj-default-evict-policy",
    "--pmj-evict-qps",
    "--pmj-evict-burst",
    "--pmj-max-migrating-per-node",
    "--pmj-max-migrating-per-namespace",
    "--pmj-max-migrating-globally",
    "--pmj-max-migrating-per-workload",
    "--pmj-max-unavailable-per-workload",
    "--pmj-gc-after",
];

#[test]
fn run_help_lists_every_flag_of_the_spec() {
    let out = run_to_end(&["run", "--help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    for flag in RUN_FLAGS.iter().chain(PMJ_FLAGS) {
        assert!(
            help.contains(&format!("{flag} ")),
            "run --help lists {flag}:\n{help}"
        );
    }
    for default in [
        "fleet-eviction-system",
        "0.0.0.0:8080",
        "[default: 1h]",
        "[default: 30m]",
    ] {
        assert!(
            help.contains(default),
            "run --help shows the default {default}:\n{help}"
        );
    }
}

#[test]
fn member_help_lists_the_shared_pmj_flags() {
    let out = run_to_end(&["member", "--help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    for flag in ["--kubeconfig"].iter().chain(PMJ_FLAGS) {
        assert!(
            help.contains(&format!("{flag} ")),
            "member --help lists {flag}:\n{help}"
        );
    }
}

#[test]
fn invalid_flag_values_are_usage_errors_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--lease-duration=15"], "--lease-duration"),
        (&["run", "--workers=0"], "--workers"),
        (
            &["run", "--pmj-max-unavailable-per-workload=150%"],
            "--pmj-max-unavailable-per-workload",
        ),
        (&["run", "--log-filter=fleet_eviction=loud"], "--log-filter"),
        (&["run", "--lease-duration=5s"], "--lease-duration"),
    ];
    for (args, flag) in cases {
        let out = run_to_end(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(flag),
            "{args:?} names {flag}: {}",
            stderr(&out)
        );
    }
}

// ---------------------------------------------------------------------------------------
// crds

#[test]
fn crds_prints_the_four_crds_we_own() {
    let out = run_to_end(&["crds"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names = crd_names(&stdout(&out));
    let want = [CRPE_CRD_NAME, CRPDB_CRD_NAME, PMJ_CRD_NAME, PMJP_CRD_NAME];
    assert_eq!(names.len(), 4, "{names:?}");
    for name in want {
        assert!(names.iter().any(|n| n == name), "{name} printed: {names:?}");
    }
}

#[test]
fn crds_sandbox_prints_the_three_kubefleet_stand_ins() {
    let out = run_to_end(&["crds", "--sandbox"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names = crd_names(&stdout(&out));
    assert_eq!(names.len(), 3, "{names:?}");
    let ours = [CRPE_CRD_NAME, CRPDB_CRD_NAME, PMJ_CRD_NAME, PMJP_CRD_NAME];
    assert!(
        names.iter().all(|n| !ours.contains(&n.as_str())),
        "stand-ins only: {names:?}"
    );
}

/// Parses multi-document YAML into CRDs and returns their names.
fn crd_names(yaml: &str) -> Vec<String> {
    let docs: Vec<CustomResourceDefinition> =
        serde_saphyr::from_multiple(yaml).expect("crds prints multi-document CRD YAML");
    docs.into_iter()
        .map(|crd| crd.metadata.name.expect("every CRD has a name"))
        .collect()
}

// ---------------------------------------------------------------------------------------
// subcommands not built yet

#[test]
fn unbuilt_subcommands_exit_2_with_a_clear_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["drain", "x"], "'drain' is not available yet"),
        (&["uncordon", "x"], "'uncordon' is not available yet"),
    ];
    for (args, message) in cases {
        let out = run_to_end(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?} prints nothing on stdout");
    }
}

#[cfg(feature = "sandbox")]
#[test]
fn sandbox_serves_a_registered_fleet_until_sigterm() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().expect("temp dir");
    let fleet_dir = dir.path().join("fleet");
    let mut child = Command::new(BIN)
        .args([
            "sandbox",
            "--members",
            "2",
            "--seed",
            "5",
            "--dir",
            path_str(&fleet_dir),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the sandbox");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let canonical = std::fs::canonicalize(dir.path())
        .expect("canonical")
        .join("fleet");
    let ready = format!("sandbox ready: {}", canonical.display());
    let mut lines = Vec::new();
    while !lines.contains(&ready) {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => lines.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("no ready line; printed {lines:?}");
            }
        }
    }
    assert!(lines.contains(&"seed: 5".to_string()), "{lines:?}");
    for name in ["hub", "member-1", "member-2"] {
        assert!(
            fleet_dir.join(format!("{name}.kubeconfig")).is_file(),
            "{name}.kubeconfig"
        );
    }
    let kill = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the sandbox stops after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

// ---------------------------------------------------------------------------------------
// run

#[test]
fn run_fails_fast_when_the_hub_is_unreachable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let closed_port = free_port();
    let kubeconfig = write_kubeconfig(dir.path(), &format!("http://127.0.0.1:{closed_port}"));
    let started = Instant::now();
    let mut run = Running::start(&[
        "run",
        "--kubeconfig",
        path_str(&kubeconfig),
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    let status = run
        .wait(FAIL_FAST)
        .expect("run exits on its own within 15 s");
    let stderr = run.stderr();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(started.elapsed() < FAIL_FAST);
    assert!(
        stderr.contains(&format!(
            "cannot reach the hub API server at http://127.0.0.1:{closed_port}"
        )),
        "{stderr}"
    );
}

#[test]
fn run_serves_health_and_metrics_and_stops_cleanly_on_sigterm() {
    let hub = FakeHub::start(crds::owned(), Hold::UntilReleased);
    let (mut run, metrics_addr, _dir) = start_run(&hub, &["--leader-elect=false"]);

    // The HTTP server starts before the CRD check, which the fake hub holds: alive, not ready.
    let pending = run.poll_until("/readyz answers", || http_get(metrics_addr, "/readyz"));
    assert_eq!(pending.status, 503, "{pending:?}");
    assert_eq!(
        pending.body,
        "not ready: the start-up CRD check has not finished"
    );
    let health = http_get(metrics_addr, "/healthz").expect("/healthz answers");
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));

    hub.release();
    run.poll_until("/readyz is 200", || {
        http_get(metrics_addr, "/readyz").filter(|r| r.status == 200)
    });
    let health = http_get(metrics_addr, "/healthz").expect("/healthz answers");
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    let metrics = http_get(metrics_addr, "/metrics").expect("/metrics answers");
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .content_type
            .starts_with("text/plain; version=0.0.4"),
        "{metrics:?}"
    );
    assert!(
        metrics.body.contains("fleet_eviction_build_info{version="),
        "{}",
        metrics.body
    );
    assert!(
        metrics
            .body
            .contains("leader_election_master_status{name=\"fleet-eviction\"} 1"),
        "acting alone with --leader-elect=false: {}",
        metrics.body
    );
    let missing = http_get(metrics_addr, "/nope").expect("answers");
    assert_eq!(missing.status, 404);

    // The check read exactly the hub CRDs, with the kubeconfig's token.
    let requests = hub.requests();
    for name in [CRPE_CRD_NAME, CRPDB_CRD_NAME] {
        let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}");
        assert!(
            requests
                .iter()
                .any(|r| r.path == path && r.authorization.as_deref() == Some("Bearer test-token")),
            "{path} read with the token: {requests:?}"
        );
    }

    run.sigterm();
    let status = run
        .wait(Duration::from_secs(10))
        .expect("exits after SIGTERM");
    let stderr = run.stderr();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("fleet-eviction ready"), "{stderr}");
    assert!(
        stderr.contains("eviction controller caches synced"),
        "the controller is attached and synced before ready: {stderr}"
    );
    assert!(
        http_get(metrics_addr, "/healthz").is_none(),
        "HTTP server stopped with the process"
    );
}

#[test]
fn run_refuses_a_crpe_crd_without_our_fields() {
    let crds = crds::owned()
        .into_iter()
        .map(|crd| {
            if crd.metadata.name.as_deref() == Some(CRPE_CRD_NAME) {
                without_spec_field(crd, "evictionConditions")
            } else {
                crd
            }
        })
        .collect();
    let hub = FakeHub::start(crds, Hold::No);
    let (status, stderr) = run_against(&hub, &[]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("CRD {CRPE_CRD_NAME} on the hub lacks")),
        "{stderr}"
    );
    assert!(stderr.contains("spec.evictionConditions"), "{stderr}");
    assert!(
        stderr.contains("fleet-eviction crds | kubectl apply -f -"),
        "{stderr}"
    );
    assert!(!stderr.contains("fleet-eviction ready"), "{stderr}");
}

#[test]
fn run_refuses_a_hub_without_our_crds() {
    let only_crpe = crds::owned()
        .into_iter()
        .filter(|crd| crd.metadata.name.as_deref() == Some(CRPE_CRD_NAME))
        .collect();
    let hub = FakeHub::start(only_crpe, Hold::No);
    let (status, stderr) = run_against(&hub, &[]);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("CRD {CRPDB_CRD_NAME} is not installed on the hub")),
        "{stderr}"
    );
}

#[test]
fn run_skips_the_hub_crd_check_without_fleet_eviction() {
    let hub = FakeHub::start(Vec::new(), Hold::No);
    let (mut run, metrics_addr, _dir) = start_run(&hub, &["--enable-fleet-eviction=false"]);
    run.poll_until("/readyz is 200", || {
        http_get(metrics_addr, "/readyz").filter(|r| r.status == 200)
    });
    assert!(
        !hub.requests()
            .iter()
            .any(|r| r.path.contains("customresourcedefinitions")),
        "no CRD read: {:?}",
        hub.requests()
    );
    run.sigterm();
    let status = run
        .wait(Duration::from_secs(10))
        .expect("exits after SIGTERM");
    assert_eq!(status.code(), Some(0), "{}", run.stderr());
}

/// Starts `run` against `hub` with its own kubeconfig (kept alive by the returned dir) and a
/// free metrics address.
fn start_run(hub: &FakeHub, extra: &[&str]) -> (Running, SocketAddr, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = write_kubeconfig(dir.path(), &hub.url());
    let metrics_addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
    let metrics = metrics_addr.to_string();
    let mut args = vec![
        "run",
        "--kubeconfig",
        path_str(&kubeconfig),
        "--metrics-addr",
        &metrics,
    ];
    args.extend_from_slice(extra);
    (Running::start(&args), metrics_addr, dir)
}

/// Runs `run --leader-elect=false` against `hub` to its end (it must fail on its own).
fn run_against(hub: &FakeHub, extra: &[&str]) -> (ExitStatus, String) {
    let mut args = vec!["--leader-elect=false"];
    args.extend_from_slice(extra);
    let (mut run, _, _dir) = start_run(hub, &args);
    let status = run.wait(FAIL_FAST).expect("run exits on its own");
    (status, run.stderr())
}

/// Removes `spec.<field>` from every version of a CRD, as KubeFleet's own CRPE CRD lacks it.
fn without_spec_field(crd: CustomResourceDefinition, field: &str) -> CustomResourceDefinition {
    let mut value = serde_json::to_value(&crd).expect("CRD to JSON");
    let versions = value["spec"]["versions"].as_array_mut().expect("versions");
    for version in versions {
        let spec = &mut version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
        let removed = spec.as_object_mut().and_then(|props| props.remove(field));
        assert!(removed.is_some(), "our CRD has spec.{field}");
    }
    serde_json::from_value(value).expect("JSON to CRD")
}

// ---------------------------------------------------------------------------------------
// processes

fn run_to_end(args: &[&str]) -> Output {
    let mut run = Running::start(args);
    let status = run
        .wait(QUICK)
        .unwrap_or_else(|| panic!("{args:?} finishes"));
    let stdout = run.stdout();
    let stderr = run.stderr();
    Output {
        status,
        stdout: stdout.into_bytes(),
        stderr: stderr.into_bytes(),
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A child process that is killed if the test fails before it exits. Its output is read by
/// threads so a chatty child never blocks on a full pipe.
struct Running {
    child: Child,
    status: Option<ExitStatus>,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
}

impl Running {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(args)
            .env("RUST_LOG", "info")
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fleet-eviction");
        let stdout = child.stdout.take().map(read_all);
        let stderr = child.stderr.take().map(read_all);
        Self {
            child,
            status: None,
            stdout,
            stderr,
        }
    }

    /// Waits for the exit, up to `limit`.
    fn wait(&mut self, limit: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.status = Some(status);
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Polls `check` until it yields, failing early (with the logs) if the process exits.
    fn poll_until<T>(&mut self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(value) = check() {
                return value;
            }
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                self.status = Some(status);
                panic!(
                    "fleet-eviction exited ({status}) before {what}:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        panic!("timed out waiting until {what}:\n{}", self.stderr());
    }

    fn sigterm(&self) {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM delivered");
    }

    fn kill(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
    }

    /// Everything the child wrote to stdout; call after it exited.
    fn stdout(&mut self) -> String {
        self.kill();
        self.stdout
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Everything the child wrote to stderr; call after it exited (kills it otherwise).
    fn stderr(&mut self) -> String {
        self.kill();
        self.stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

fn read_all(mut pipe: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A port nothing listens on (bound, then released).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr").port()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}

fn write_kubeconfig(dir: &Path, server: &str) -> PathBuf {
    let path = dir.join("hub.kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: hub\n\
         clusters:\n- name: hub\n  cluster:\n    server: {server}\n\
         users:\n- name: tester\n  user:\n    token: test-token\n\
         contexts:\n- name: hub\n  context:\n    cluster: hub\n    user: tester\n"
    );
    std::fs::write(&path, text).expect("write kubeconfig");
    path
}

// ---------------------------------------------------------------------------------------
// a minimal HTTP client

#[derive(Debug)]
struct HttpResponse {
    status: u16,
    content_type: String,
    body: String,
}

/// `GET path` over a fresh connection; `None` when nothing answers.
fn http_get(addr: SocketAddr, path: &str) -> Option<HttpResponse> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).ok()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let content_type = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    Some(HttpResponse {
        status,
        content_type,
        body: body.to_string(),
    })
}

// ---------------------------------------------------------------------------------------
// a fake hub: answers CRD reads from a fixed set, like an API server would

#[derive(Debug, Clone)]
struct SeenRequest {
    path: String,
    authorization: Option<String>,
}

#[derive(PartialEq)]
enum Hold {
    /// Answer at once.
    No,
    /// Hold every answer until `release()`, to observe the process while its check runs.
    UntilReleased,
}

struct FakeHub {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<SeenRequest>>>,
    release: watch::Sender<bool>,
    // Dropping the runtime stops the server.
    _runtime: tokio::runtime::Runtime,
}

impl FakeHub {
    fn start(crds: Vec<CustomResourceDefinition>, hold: Hold) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let by_name: BTreeMap<String, Bytes> = crds
            .iter()
            .map(|crd| {
                let name = crd.metadata.name.clone().expect("named CRD");
                (
                    name,
                    Bytes::from(serde_json::to_vec(crd).expect("CRD JSON")),
                )
            })
            .collect();
        let by_name = Arc::new(by_name);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = watch::channel(hold == Hold::No);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind fake hub");
        let addr = listener.local_addr().expect("fake hub addr");
        let seen = requests.clone();
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (by_name, seen, released) = (by_name.clone(), seen.clone(), released.clone());
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        answer(request, by_name.clone(), seen.clone(), released.clone())
                    });
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
        Self {
            addr,
            requests,
            release,
            _runtime: runtime,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn release(&self) {
        self.release.send_replace(true);
    }

    fn requests(&self) -> Vec<SeenRequest> {
        self.requests.lock().expect("requests lock").clone()
    }
}

async fn answer(
    request: Request<hyper::body::Incoming>,
    by_name: Arc<BTreeMap<String, Bytes>>,
    seen: Arc<Mutex<Vec<SeenRequest>>>,
    mut released: watch::Receiver<bool>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_string();
    let authorization = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    seen.lock().expect("requests lock").push(SeenRequest {
        path: path.clone(),
        authorization,
    });
    let _ = released.wait_for(|released| *released).await;
    if let Some(reply) = fleet_list_or_watch(&request) {
        return Ok(reply.await);
    }
    let name = path.strip_prefix("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/");
    let (status, body) = match name.and_then(|name| by_name.get(name)) {
        Some(crd) => (StatusCode::OK, crd.clone()),
        None => (StatusCode::NOT_FOUND, not_found(name.unwrap_or(&path))),
    };
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// The eviction controller's watches of the hub: empty lists, and watches that stay open
/// with nothing to report (the test stops the process long before they would end).
fn fleet_list_or_watch(
    request: &Request<hyper::body::Incoming>,
) -> Option<impl std::future::Future<Output = Response<Full<Bytes>>>> {
    let path = request.uri().path();
    let kind = [
        (
            "clusterresourceplacementevictions",
            "ClusterResourcePlacementEvictionList",
        ),
        ("clusterresourcebindings", "ClusterResourceBindingList"),
        ("clusterresourceplacements", "ClusterResourcePlacementList"),
        (
            "clusterresourceplacementdisruptionbudgets",
            "ClusterResourcePlacementDisruptionBudgetList",
        ),
    ]
    .into_iter()
    .find(|(plural, _)| path == format!("/apis/placement.kubernetes-fleet.io/v1beta1/{plural}"))
    .map(|(_, kind)| kind)?;
    let watch = request
        .uri()
        .query()
        .is_some_and(|q| q.contains("watch=true"));
    Some(async move {
        if watch {
            tokio::time::sleep(Duration::from_secs(300)).await;
            return Response::new(Full::new(Bytes::new()));
        }
        let list = serde_json::json!({
            "apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": kind,
            "metadata": {"resourceVersion": "1"}, "items": []
        });
        let mut response = Response::new(Full::new(Bytes::from(list.to_string())));
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        response
    })
}

/// The Status body a Kubernetes API server sends for a missing CRD.
fn not_found(name: &str) -> Bytes {
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": format!("customresourcedefinitions.apiextensions.k8s.io \"{name}\" not found"),
        "reason": "NotFound",
        "details": {"name": name, "group": "apiextensions.k8s.io", "kind": "customresourcedefinitions"},
        "code": 404
    });
    Bytes::from(status.to_string())
}
