//! The fleet-scale benchmark (quality.md "Targets the product is built toward"): a sandbox
//! hub with 1,000 registered idle members, 5,000 placements, ~100k hand-made bindings and a
//! budget on every placement; (a) a burst of 10,000 evictions, (b) evictions arriving at a
//! steady 50/s, (c) API writes per eviction, (d) one worker vs the default at 5 ms injected
//! latency, and the controller's peak memory as its own process.
//!
//! Run with `cargo bench --bench fleet_scale` (`-- --placements 500 --evictions 1000` for a
//! quick run; `-- --help` for every flag). Prints figures; asserts none of them. It exits
//! non-zero only on a correctness failure: a budget violation or an eviction left without a
//! terminal verdict.

#[path = "fleet_scale/check.rs"]
mod check;
#[path = "fleet_scale/load.rs"]
mod load;
#[path = "fleet_scale/plan.rs"]
mod plan;
#[path = "support/proc_info.rs"]
mod proc_info;
#[path = "fleet_scale/process.rs"]
mod process;
#[path = "fleet_scale/setup.rs"]
mod setup;
#[path = "fleet_scale/writes.rs"]
mod writes;

use fleet_eviction::fleet::controller::{ControllerOptions, EvictionController};
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::runtime::metrics::Metrics;
use fleet_eviction::sandbox::apiserver::faults::FaultSettings;
use fleet_eviction::sandbox::apiserver::front::{client, serve_http};
use fleet_eviction::sandbox::apiserver::server::ApiServer;
use fleet_eviction::sandbox::fleet::kubeconfig::kubeconfig_yaml;
use load::{Created, Terminals, Timing, ms};
use plan::{Eviction, Plan, Policy, Shape};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The controller's default `--workers`.
const DEFAULT_WORKERS: usize = 8;
/// How long a load may take to reach terminal verdicts before the bench calls it a failure.
const TERMINAL_LIMIT: Duration = Duration::from_secs(1800);
const SYNC_LIMIT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone)]
struct Args {
    members: usize,
    placements: usize,
    evictions: usize,
    steady_rate: f64,
    steady_seconds: f64,
    workers_evictions: Option<usize>,
    latency_ms: u64,
    phases: Vec<String>,
    seed: u64,
}

const USAGE: &str = "cargo bench --bench fleet_scale -- [--members 1000] [--placements 5000] \
[--evictions 10000] [--steady-rate 50] [--steady-seconds 20] [--workers-evictions N (default: \
--evictions)] [--latency-ms 5] [--phases inprocess,workers,memory] [--seed 1]";

impl Args {
    fn parse() -> Args {
        let argv: Vec<String> = std::env::args().collect();
        if argv.iter().any(|a| a == "--help" || a == "-h") {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let value = |flag: &str| argv.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
        let number = |flag: &str, default: f64| match value(flag) {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| {
                eprintln!("{flag}: not a number: {v}\n{USAGE}");
                std::process::exit(2)
            }),
        };
        Args {
            members: number("--members", 1000.0) as usize,
            placements: number("--placements", 5000.0) as usize,
            evictions: number("--evictions", 10_000.0) as usize,
            steady_rate: number("--steady-rate", 50.0),
            steady_seconds: number("--steady-seconds", 20.0),
            workers_evictions: value("--workers-evictions")
                .map(|_| number("--workers-evictions", 0.0) as usize),
            latency_ms: number("--latency-ms", 5.0) as u64,
            phases: value("--phases")
                .unwrap_or_else(|| "inprocess,workers,memory".into())
                .split(',')
                .map(str::to_string)
                .collect(),
            seed: number("--seed", 1.0) as u64,
        }
    }

    fn shape(&self, burst: usize) -> Shape {
        Shape {
            members: self.members.max(1),
            placements: self.placements.max(2),
            burst,
            steady: (self.steady_rate * self.steady_seconds).round() as usize,
        }
    }

    fn runs(&self, phase: &str) -> bool {
        self.phases.iter().any(|p| p == phase)
    }
}

/// Correctness failures seen so far; any of them makes the bench exit non-zero.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn add(&mut self, what: String) {
        println!("  FAILURE: {what}");
        self.0.push(what);
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args = Args::parse();
    let plan = Plan::new(args.shape(args.evictions));
    print_header(&plan, &args);
    let mut failures = Failures::default();
    let result = run_phases(&plan, &args, &mut failures).await;
    if let Err(e) = result {
        failures.add(format!("the benchmark could not run: {e}"));
    }
    if failures.0.is_empty() {
        println!("\ncorrectness: no budget violation, every eviction terminal");
    } else {
        println!(
            "\nFAILED: {} correctness failure(s): {}",
            failures.0.len(),
            failures.0.join("; ")
        );
        std::process::exit(1);
    }
}

async fn run_phases(plan: &Plan, args: &Args, failures: &mut Failures) -> Result<(), String> {
    if args.runs("inprocess") {
        in_process(plan, args, failures).await?;
    }
    if args.runs("workers") {
        let sized;
        let workers_plan = match args.workers_evictions {
            Some(n) if n != args.evictions => {
                sized = Plan::new(args.shape(n));
                &sized
            }
            _ => plan,
        };
        workers_ratio(workers_plan, args, failures).await?;
    }
    if args.runs("memory") {
        memory(plan, args, failures).await?;
    }
    Ok(())
}

fn print_header(plan: &Plan, args: &Args) {
    let commit = std::env::var("GIT_COMMIT")
        .ok()
        .or(option_env!("GIT_COMMIT").map(str::to_string))
        .unwrap_or_else(|| "(set GIT_COMMIT to print it)".into());
    let cores = std::thread::available_parallelism().map_or(0, |c| c.get());
    let pick_all = plan.count(|p| *p == Policy::PickAll);
    println!("fleet-scale benchmark (quality.md \"Fleet scale\")");
    println!("commit {commit}");
    println!(
        "cores: {cores}, shared by the controller, the sandbox hub and the bench's load and watch \
         (the memory run's controller is a separate process on the same cores)"
    );
    println!(
        "fleet: {} registered idle members (MemberCluster + kubeconfig Secret in \
         fleet-eviction-system; no member API server runs: the fleet-level controller never \
         contacts members)",
        plan.members.len()
    );
    println!(
        "       {} placements ({pick_all} PickAll on {} clusters, {} PickN with N = 3..10), {} \
         bindings (Bound; Overridden, WorkSynchronized, Applied, Available True for their \
         generation; finalizer {} so a deleted binding lingers as deleting)",
        plan.placements.len(),
        plan::PICK_ALL_BINDINGS.min(plan.members.len()),
        plan.placements.len() - pick_all,
        plan.bindings(),
        setup::WORK_CLEANUP
    );
    println!(
        "       a budget on every placement: PickAll minAvailable = bindings - (1..4); PickN \
         minAvailable 50%|75%, maxUnavailable 1|2|25%|40%"
    );
    println!(
        "load: burst of {} plain evictions round-robin over the first {} placements (several \
         per placement, on distinct clusters while it has them); steady {} at {}/s over the \
         other placements",
        plan.burst.len(),
        plan.placements.len().div_ceil(2),
        plan.steady.len(),
        args.steady_rate
    );
}

fn start_controller(server: &Arc<ApiServer>, workers: usize) -> EvictionController {
    let metrics = Metrics::new().unwrap_or_else(|e| panic!("metrics registry: {e}"));
    let options = ControllerOptions {
        workers,
        extended_ttl_default: Duration::from_secs(3600),
        clock: Arc::new(SystemClock),
    };
    EvictionController::start(client(server), options, metrics.eviction.clone())
}

async fn build_hub(plan: &Plan, args: &Args) -> Result<Arc<ApiServer>, String> {
    let hub = setup::build(plan, args.seed).await?;
    println!(
        "setup: {} members, {} placements, {} budgets, {} bindings in {:.1} s",
        plan.members.len(),
        plan.placements.len(),
        plan.placements.len(),
        plan.bindings(),
        hub.setup.as_secs_f64()
    );
    Ok(hub.server)
}

/// A hub with the controller attached in process and synced.
async fn hub_with_controller(
    plan: &Plan,
    args: &Args,
    workers: usize,
) -> Result<(Arc<ApiServer>, EvictionController), String> {
    let server = build_hub(plan, args).await?;
    let started = Instant::now();
    let controller = start_controller(&server, workers);
    tokio::time::timeout(SYNC_LIMIT, controller.synced())
        .await
        .map_err(|_| format!("the controller's caches did not sync within {SYNC_LIMIT:?}"))?;
    println!(
        "controller (--workers {workers}) caches synced in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok((server, controller))
}

/// One load's outcome, checked.
struct Outcome {
    timing: Timing,
    verdicts: check::Verdicts,
    budgets: check::BudgetCheck,
}

impl Outcome {
    fn print(&self) {
        print_timing(&self.timing);
        print_verdicts(&self.verdicts);
        print_budgets(&self.budgets);
    }
}

/// Waits for every created eviction's verdict, then checks verdicts and budgets.
async fn conclude(
    label: &str,
    hub: &kube::Client,
    created: &[Created],
    terminals: &Terminals,
    prefix: &str,
    failures: &mut Failures,
) -> Result<Outcome, String> {
    for c in created.iter().filter(|c| c.error.is_some()) {
        failures.add(format!(
            "{label}: creating {} failed: {}",
            c.name,
            c.error.as_deref().unwrap_or_default()
        ));
    }
    let names: Vec<String> = created.iter().map(|c| c.name.clone()).collect();
    let unseen = terminals.wait_all(&names, TERMINAL_LIMIT).await;
    let timing = Timing::of(created, terminals);
    let verdicts = check::verdicts(hub, prefix)
        .await
        .map_err(|e| format!("listing evictions: {e}"))?;
    if unseen > 0 || !verdicts.non_terminal.is_empty() {
        failures.add(format!(
            "{label}: {unseen} evictions never seen terminal by the watch; {} not terminal in \
             the API (first: {:?})",
            verdicts.non_terminal.len(),
            verdicts.non_terminal.iter().take(5).collect::<Vec<_>>()
        ));
    }
    let budgets = check_budgets(label, hub, failures).await?;
    Ok(Outcome {
        timing,
        verdicts,
        budgets,
    })
}

async fn check_budgets(
    label: &str,
    hub: &kube::Client,
    failures: &mut Failures,
) -> Result<check::BudgetCheck, String> {
    let budgets = check::budgets(hub)
        .await
        .map_err(|e| format!("reading placements, budgets and bindings: {e}"))?;
    for v in budgets.violations.iter().take(20) {
        failures.add(format!("{label}: budget violated: {v}"));
    }
    if budgets.violations.len() > 20 {
        failures.add(format!(
            "{label}: {} more budget violations",
            budgets.violations.len() - 20
        ));
    }
    Ok(budgets)
}

fn print_budgets(budgets: &check::BudgetCheck) {
    let verdict = if budgets.violations.is_empty() {
        "no violation".to_string()
    } else {
        format!("{} VIOLATIONS", budgets.violations.len())
    };
    let unchecked = if budgets.unchecked > 0 {
        format!("; {} budgets set no computable limit", budgets.unchecked)
    } else {
        String::new()
    };
    println!(
        "  budget check: {} placements, {} bindings ({} deleting): {verdict}; {} placements \
         exactly at their limit{unchecked}",
        budgets.placements, budgets.bindings, budgets.deleting, budgets.at_limit
    );
}

fn print_timing(timing: &Timing) {
    println!(
        "  throughput: {:.0} evictions/s ({} terminal in {:.2} s, first create call → last \
         terminal watch event)",
        timing.throughput(),
        timing.latencies.len(),
        timing.span.as_secs_f64()
    );
    println!(
        "  creation→terminal: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(timing.percentile(50.0)),
        ms(timing.percentile(99.0)),
        ms(timing.max())
    );
}

fn print_verdicts(verdicts: &check::Verdicts) {
    println!(
        "  verdicts: {} executed, {} blocked, {} invalid",
        verdicts.executed(),
        verdicts.blocked(),
        verdicts.counts.get("invalid").copied().unwrap_or(0)
    );
    for (kind, n) in &verdicts.counts {
        println!("    {kind}: {n}");
    }
}

/// Creates `evictions` at once against `hub` and concludes.
async fn run_burst(
    label: &str,
    hub: &kube::Client,
    evictions: &[Eviction],
    failures: &mut Failures,
) -> Result<Outcome, String> {
    let terminals = Terminals::watch(hub).await;
    let created = load::burst(hub, evictions).await;
    let outcome = conclude(label, hub, &created, &terminals, "burst-", failures).await;
    terminals.stop();
    outcome
}

/// (a), (c) and (b) on one hub, the controller in this process.
async fn in_process(plan: &Plan, args: &Args, failures: &mut Failures) -> Result<(), String> {
    println!(
        "\n== (a)-(c) in process: hub and controller ({DEFAULT_WORKERS} workers) in this \
         process, kube Client over tower::Service, no injected latency"
    );
    let (server, controller) = hub_with_controller(plan, args, DEFAULT_WORKERS).await?;
    let hub = client(&server);
    server.reset_accounting();
    println!("(a) burst: {} evictions created at once", plan.burst.len());
    let burst = run_burst("burst", &hub, &plan.burst, failures).await?;
    burst.print();
    writes::settle(&server, Duration::from_secs(1), Duration::from_secs(30)).await;
    print_writes(&server, &burst.verdicts, plan.burst.len());

    println!(
        "(b) steady: {} evictions arriving at {}/s on placements the burst did not touch",
        plan.steady.len(),
        args.steady_rate
    );
    let terminals = Terminals::watch(&hub).await;
    let created = load::steady(&hub, &plan.steady, args.steady_rate).await;
    let steady = conclude("steady", &hub, &created, &terminals, "steady-", failures).await?;
    terminals.stop();
    steady.print();
    let p99 = ms(steady.timing.percentile(99.0));
    println!(
        "  target p99 < 50 ms: {}",
        if p99 < 50.0 { "met" } else { "not met" }
    );
    controller.stop();
    let (rss, peak) = process::memory_mib("self")?;
    println!(
        "process (hub + controller + bench in one): RSS {rss:.0} MiB, peak {peak:.0} MiB (for \
         context; the controller alone is measured below)"
    );
    Ok(())
}

fn print_writes(server: &ApiServer, verdicts: &check::Verdicts, evictions: usize) {
    println!("(c) API writes during the burst (the bench's eviction creates excluded):");
    let counted = writes::controller_writes(server);
    writes::print(&counted, evictions);
    let deletes = writes::succeeded(&counted, "delete", "clusterresourcebindings");
    let status = writes::succeeded(
        &counted,
        "update",
        "clusterresourceplacementevictions/status",
    );
    let events = writes::succeeded(&counted, "create", "events");
    let executed = verdicts
        .counts
        .get("executed: allowed by the budget")
        .copied()
        .unwrap_or(0);
    let per = |n: u64, of: usize| n as f64 / of.max(1) as f64;
    let (status, events) = (per(status, evictions), per(events, evictions));
    let deletes_per_executed = per(deletes, executed);
    println!(
        "  {status:.2} status writes and {events:.2} Events per eviction; {deletes} binding \
         deletes for {executed} evictions executed by the budget ({deletes_per_executed:.2} each)"
    );
    println!(
        "  so an eviction that deletes its binding costs {:.2} writes, any other {:.2} \
         (target ≤ 3)",
        status + events + deletes_per_executed,
        status + events
    );
}

/// (d): the same burst on a fresh hub with one worker and with the default, at injected
/// latency.
async fn workers_ratio(plan: &Plan, args: &Args, failures: &mut Failures) -> Result<(), String> {
    println!(
        "\n== (d) 1 worker vs {DEFAULT_WORKERS}: the burst of {} evictions, {} ms injected \
         latency on every API request, a fresh hub each, in process",
        plan.burst.len(),
        args.latency_ms
    );
    let mut throughput = Vec::new();
    for workers in [1, DEFAULT_WORKERS] {
        println!("{workers} worker{}:", if workers == 1 { "" } else { "s" });
        let (server, controller) = hub_with_controller(plan, args, workers).await?;
        server.set_faults(FaultSettings {
            latency_ms: args.latency_ms,
            ..FaultSettings::default()
        });
        let hub = client(&server);
        let label = format!("{workers} worker{}", if workers == 1 { "" } else { "s" });
        let outcome = run_burst(&label, &hub, &plan.burst, failures).await?;
        outcome.print();
        throughput.push(outcome.timing.throughput());
        controller.stop();
    }
    if let [one, many] = throughput[..] {
        println!(
            "  ratio: {many:.0} / {one:.0} evictions/s = {:.1}x with {DEFAULT_WORKERS} workers",
            many / one.max(f64::MIN_POSITIVE)
        );
    }
    Ok(())
}

/// The controller as its own process against the hub over HTTP: its memory with the
/// fleet's bindings cached, before and after a burst.
async fn memory(plan: &Plan, args: &Args, failures: &mut Failures) -> Result<(), String> {
    let (binary, found) = process::binary();
    println!(
        "\n== memory: `fleet-eviction run` as its own process against the hub over HTTP \
         (member executors not included, --enable-pod-migration=false: the pod_scale bench measures them)"
    );
    println!("binary: {} (found via {found})", binary.display());
    let server = build_hub(plan, args).await?;
    let front = serve_http(
        server.clone(),
        "127.0.0.1:0".parse().expect("literal address"),
    )
    .await
    .map_err(|e| format!("serving the hub over HTTP: {e}"))?;
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let kubeconfig = dir.path().join("hub.kubeconfig");
    std::fs::write(&kubeconfig, kubeconfig_yaml("hub", &front.url()))
        .map_err(|e| format!("writing {}: {e}", kubeconfig.display()))?;
    let mut controller = process::Controller::spawn(&binary, &kubeconfig)?;
    let synced = controller.synced(SYNC_LIMIT).await?;
    let (rss, peak) = controller.memory_mib()?;
    println!(
        "controller pid {}: '{}' {:.1} s after start; RSS {rss:.0} MiB, peak {peak:.0} MiB",
        controller.pid,
        process::SYNCED_LINE,
        synced.as_secs_f64()
    );
    let hub = client(&server);
    println!("burst: {} evictions created at once", plan.burst.len());
    let outcome = run_burst("memory run", &hub, &plan.burst, failures).await;
    let memory = controller.memory_mib();
    let tail = controller.tail();
    let ended = controller.stop().await;
    outcome?.print();
    let (rss, peak) =
        memory.map_err(|e| format!("{e}; the controller's last log lines:\n{tail}"))?;
    println!(
        "controller memory after the burst: VmHWM (peak RSS) {peak:.0} MiB, VmRSS {rss:.0} MiB \
         (target < 256 MB = 244 MiB: {})",
        if peak * 1024.0 * 1024.0 < 256e6 {
            "met"
        } else {
            "not met"
        }
    );
    println!("controller process: {ended}");
    let (rss, peak) = process::memory_mib("self")?;
    println!("bench process (hub over HTTP + load): RSS {rss:.0} MiB, peak {peak:.0} MiB");
    front.stop();
    Ok(())
}
