//! The pod-level benchmark (quality.md "Targets", "Pod level"): 10,000 PodMigrationJobs across
//! 100 members (EvictDirectly, the sandbox evicts at once) complete, with arbitration limits
//! respected at every instant; jobs/s and the controller's peak RSS.
//!
//! The fleet is the sandbox's (hub + idle members registered as in production, each served
//! over HTTP); every member gets nodes, namespaces, a Deployment and a StatefulSet per
//! namespace and pods without a controller (`--layout bare`: only those), all Running and
//! Ready with `terminationGracePeriodSeconds: 0` so that an accepted eviction removes the pod
//! at once, and one plain job per pod. The controller is `fleet-eviction run` as its own
//! process (fleet-level controller off): the member registry with one executor per member,
//! exactly as `run` starts them; its peak RSS is that process's alone. One run per `--qps`
//! value, each on a fresh fleet with a fresh controller.
//!
//! Request counts are the member servers' own accounting, reset once every executor has
//! synced and the bench's watches are open; the bench's job creates are subtracted, so what
//! remains is the controller's (plus a bench watch that reconnects, which the table shows).
//!
//! Run with `cargo bench --bench pod_scale` (`-- --quick` for a smoke run; `-- --help` for
//! every flag). Prints figures and asserts none of them. It exits non-zero only on a
//! correctness failure: an arbitration limit exceeded at any instant, a job that ended other
//! than Succeeded, or a run that did not finish within `--timeout`.

#[path = "pod_scale/check.rs"]
mod check;
#[path = "pod_scale/controller.rs"]
mod controller;
#[path = "pod_scale/load.rs"]
mod load;
#[path = "pod_scale/plan.rs"]
mod plan;
#[path = "support/proc_info.rs"]
mod proc_info;
#[path = "pod_scale/requests.rs"]
mod requests;
#[path = "pod_scale/setup.rs"]
mod setup;

use check::{Limits, Observer, WorkloadValue};
use fleet_eviction::sandbox::apiserver::server::ApiServer;
use fleet_eviction::sandbox::fleet::Fleet;
use load::{Timing, ms, percentile};
use plan::{Plan, Shape, WorkloadKind};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SYNC_LIMIT: Duration = Duration::from_secs(300);

const USAGE: &str = "cargo bench --bench pod_scale -- [--members 100] [--jobs 10000] \
[--nodes 10 (per member)] [--namespaces 4 (per member)] [--layout mixed|bare] [--qps 10,1000 (one run each: \
--pmj-evict-qps)] [--burst 1 (--pmj-evict-burst)] [--max-per-node 2] [--max-per-namespace \
unlimited] [--max-globally unlimited] [--max-per-workload N|P%] [--max-unavailable-per-workload \
N|P%] [--timeout 900 (s per run)] [--seed 1] [--quick (= --members 60 --jobs 1200)]
The --max-* values are passed to the controller as --pmj-max-*; without one the controller's \
default applies (per node 2, others unlimited, per workload by replicas) and is checked.";

#[derive(Debug, Clone)]
struct Args {
    shape: Shape,
    qps: Vec<f64>,
    burst: u32,
    /// (controller flag, value) for every --max-* given.
    limit_flags: Vec<(String, String)>,
    limits: Limits,
    timeout: Duration,
    seed: u64,
}

fn usage_error(what: String) -> ! {
    eprintln!("{what}\n{USAGE}");
    std::process::exit(2)
}

impl Args {
    fn parse() -> Args {
        let argv: Vec<String> = std::env::args().collect();
        if argv.iter().any(|a| a == "--help" || a == "-h") {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let quick = argv.iter().any(|a| a == "--quick");
        let value = |flag: &str| argv.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
        let number = |flag: &str, default: f64| match value(flag) {
            None => default,
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| usage_error(format!("{flag}: not a number: {v}"))),
        };
        let count_limit = |flag: &str, default: Option<usize>| match value(flag).as_deref() {
            None => default,
            Some("unlimited") => None,
            Some(v) => Some(v.parse().unwrap_or_else(|_| {
                usage_error(format!("{flag}: a count or 'unlimited', not {v}"))
            })),
        };
        let workload_limit = |flag: &str| {
            value(flag).map(|v| {
                WorkloadValue::parse(&v)
                    .unwrap_or_else(|| usage_error(format!("{flag}: N or P%, not {v}")))
            })
        };
        let qps = value("--qps")
            .unwrap_or_else(|| "10,1000".into())
            .split(',')
            .map(|q| {
                q.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|q| q.is_finite() && *q > 0.0)
                    .unwrap_or_else(|| usage_error(format!("--qps: not a positive rate: {q}")))
            })
            .collect();
        let limit_flags = [
            ("--max-per-node", "--pmj-max-migrating-per-node"),
            ("--max-per-namespace", "--pmj-max-migrating-per-namespace"),
            ("--max-globally", "--pmj-max-migrating-globally"),
            ("--max-per-workload", "--pmj-max-migrating-per-workload"),
            (
                "--max-unavailable-per-workload",
                "--pmj-max-unavailable-per-workload",
            ),
        ]
        .into_iter()
        .filter_map(|(ours, theirs)| value(ours).map(|v| (theirs.to_string(), v)))
        .collect();
        let (members, jobs) = if quick {
            (60.0, 1200.0)
        } else {
            (100.0, 10_000.0)
        };
        Args {
            shape: Shape {
                members: number("--members", members) as usize,
                jobs: number("--jobs", jobs) as usize,
                nodes: number("--nodes", 10.0) as usize,
                namespaces: number("--namespaces", 4.0) as usize,
                workloads: match value("--layout").as_deref() {
                    None | Some("mixed") => true,
                    Some("bare") => false,
                    Some(other) => usage_error(format!("--layout: mixed or bare, not {other}")),
                },
            },
            qps,
            burst: number("--burst", 1.0) as u32,
            limit_flags,
            limits: Limits {
                per_node: count_limit("--max-per-node", Some(2)),
                per_namespace: count_limit("--max-per-namespace", None),
                globally: count_limit("--max-globally", None),
                per_workload: workload_limit("--max-per-workload"),
                unavailable_per_workload: workload_limit("--max-unavailable-per-workload"),
            },
            timeout: Duration::from_secs_f64(number("--timeout", 900.0)),
            seed: number("--seed", 1.0) as u64,
        }
    }

    fn controller_flags(&self, qps: f64) -> Vec<String> {
        let mut flags = vec![
            "--pmj-evict-qps".to_string(),
            qps.to_string(),
            "--pmj-evict-burst".to_string(),
            self.burst.to_string(),
        ];
        for (flag, value) in &self.limit_flags {
            flags.push(flag.clone());
            flags.push(value.clone());
        }
        flags
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
    let plan = Plan::new(args.shape);
    print_header(&plan, &args);
    let mut failures = Failures::default();
    for (n, qps) in args.qps.iter().enumerate() {
        println!(
            "\n== run {}/{}: --pmj-evict-qps {qps} --pmj-evict-burst {}{}",
            n + 1,
            args.qps.len(),
            args.burst,
            args.limit_flags
                .iter()
                .map(|(f, v)| format!(" {f} {v}"))
                .collect::<String>()
        );
        if let Err(e) = run(&plan, &args, *qps, &mut failures).await {
            failures.add(format!("the run could not complete: {e}"));
        }
    }
    if failures.0.is_empty() {
        println!(
            "\ncorrectness: every job Succeeded, no arbitration limit exceeded at any instant"
        );
    } else {
        println!(
            "\nFAILED: {} correctness failure(s) (each listed above as FAILURE)",
            failures.0.len()
        );
        std::process::exit(1);
    }
}

fn commit() -> String {
    if let Some(c) = std::env::var("GIT_COMMIT")
        .ok()
        .or(option_env!("GIT_COMMIT").map(str::to_string))
    {
        return c;
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(head) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!(
                "{head}{} (git rev-parse HEAD)",
                if dirty { " + uncommitted changes" } else { "" }
            )
        }
        None => "(unknown: set GIT_COMMIT)".into(),
    }
}

fn print_header(plan: &Plan, args: &Args) {
    let cores = std::thread::available_parallelism().map_or(0, |c| c.get());
    let shape = &plan.shape;
    let per_member = plan.members.iter().map(|m| m.pods.len()).max().unwrap_or(0);
    println!("pod-scale benchmark (quality.md \"Pod level\")");
    println!("commit {}", commit());
    println!(
        "cores: {cores}, shared by the controller process and the bench process (sandbox hub \
         and members, the load, the watches and the arbitration check)"
    );
    println!(
        "fleet: sandbox hub + {} idle members (no scheduler/kubelet/workload controllers), \
         each its own API server on 127.0.0.1 over HTTP, registered on the hub as in \
         production (MemberCluster + kubeconfig Secret in fleet-eviction-system)",
        shape.members
    );
    let first = &plan.members[0];
    let describe = |kind: WorkloadKind| {
        let w: Vec<_> = first.workloads.iter().filter(|w| w.kind == kind).collect();
        if w.is_empty() {
            return format!("no {}", kind.name());
        }
        let replicas: Vec<String> = w.iter().map(|w| w.replicas.to_string()).collect();
        let limits: Vec<String> = w
            .iter()
            .map(|w| {
                check::workload_limit(w.replicas, args.limits.per_workload)
                    .min(check::workload_limit(
                        w.replicas,
                        args.limits.unavailable_per_workload,
                    ))
                    .to_string()
            })
            .collect();
        format!(
            "{} {} (replicas {}; limit {})",
            w.len(),
            kind.name(),
            replicas.join("/"),
            limits.join("/")
        )
    };
    println!(
        "       per member ({}): {} nodes, {} namespaces, {} pods: {}, {}, {} pods without a \
         controller; pod k on node (k mod nodes)+1",
        first.name,
        first.nodes,
        first.namespaces.len(),
        first.pods.len(),
        describe(WorkloadKind::Deployment),
        describe(WorkloadKind::StatefulSet),
        first.pods.iter().filter(|p| p.workload.is_none()).count()
    );
    println!(
        "       {} pods in all ({} of Deployments via their ReplicaSet, {} of StatefulSets, {} \
         bare), Running and Ready with spec.nodeName set and terminationGracePeriodSeconds: 0 \
         (the sandbox then removes an evicted pod at once; no kubelet runs)",
        plan.jobs(),
        plan.count_pods(|k| k == Some(WorkloadKind::Deployment)),
        plan.count_pods(|k| k == Some(WorkloadKind::StatefulSet)),
        plan.count_pods(|k| k.is_none())
    );
    println!(
        "load: {} PodMigrationJobs ({per_member} per member at most), one per pod, created at \
         once: mode EvictDirectly, no deleteOptions, no policy label (the default Eviction \
         policy: a policy/v1 Eviction per pod)",
        plan.jobs()
    );
    let limit = |l: Option<usize>| l.map_or("unlimited".to_string(), |n| n.to_string());
    let workload = |l: Option<WorkloadValue>| match l {
        None => "default by replicas".to_string(),
        Some(WorkloadValue::Count(n)) => n.to_string(),
        Some(WorkloadValue::Percent(p)) => format!("{p}%"),
    };
    println!(
        "limits checked: per node {}, per namespace {}, per member {}, per workload migrating \
         {}, unavailable {} (unavailable = migrating here: pods are Ready until evicted and \
         evicted pods are not replaced)",
        limit(args.limits.per_node),
        limit(args.limits.per_namespace),
        limit(args.limits.globally),
        workload(args.limits.per_workload),
        workload(args.limits.unavailable_per_workload)
    );
}

/// One run: a fresh fleet and controller, the burst, and its figures.
async fn run(plan: &Plan, args: &Args, qps: f64, failures: &mut Failures) -> Result<(), String> {
    println!("load average before setup: {}", load_average());
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let started = Instant::now();
    let fleet = setup::build(plan, dir.path(), args.seed).await?;
    println!(
        "setup: {} members, {} pods, {} nodes, {} workloads in {:.1} s",
        fleet.members.len(),
        plan.jobs(),
        plan.members.iter().map(|m| m.nodes).sum::<usize>(),
        plan.members
            .iter()
            .map(|m| m.workloads.len())
            .sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    let plans: Vec<Arc<plan::MemberPlan>> =
        plan.members.iter().map(|m| Arc::new(m.clone())).collect();
    let clients: Vec<kube::Client> = fleet.members.iter().map(|m| m.client()).collect();
    let observer = Observer::start(plans.clone(), clients.clone(), args.limits).await;

    let (binary, found) = controller::binary();
    println!("binary: {} (found via {found})", binary.display());
    let flags = args.controller_flags(qps);
    let mut controller = controller::Controller::spawn(&binary, &fleet.hub.kubeconfig, &flags)?;
    let synced = controller
        .executors_synced(fleet.members.len(), SYNC_LIMIT)
        .await?;
    let (rss, peak) = controller.memory_mib()?;
    println!(
        "controller pid {}: `fleet-eviction run --kubeconfig hub.kubeconfig --leader-elect=false \
         --enable-fleet-eviction=false --metrics-addr 127.0.0.1:0 --log-format json {}`; {} \
         executors synced {:.1} s after start; RSS {rss:.0} MiB, peak {peak:.0} MiB",
        controller.pid,
        flags.join(" "),
        fleet.members.len(),
        synced.as_secs_f64()
    );

    let servers: Vec<&ApiServer> = fleet.members.iter().map(|m| m.server.as_ref()).collect();
    for server in &servers {
        server.reset_accounting();
    }
    fleet.hub.server.reset_accounting();
    let cpu_before = controller.cpu_time()?;
    let bench_cpu_before = controller::cpu_time("self")?;
    let machine_before = controller::machine_busy()?;
    let per_member = plans.iter().map(|p| p.pods.len()).max().unwrap_or(0);
    let floor = per_member.saturating_sub(args.burst as usize) as f64 / qps;
    println!(
        "burst: {} jobs created at once (the token bucket alone needs ≥ {floor:.2} s: {per_member} \
         evictions per member at {qps}/s with a burst of {})",
        plan.jobs(),
        args.burst
    );
    let created = load::burst(&plans, &clients).await;
    for c in created.iter().filter(|c| c.error.is_some()) {
        failures.add(format!(
            "creating {}/{} failed: {}",
            plans[c.member].name,
            plans[c.member].pods[c.job].job,
            c.error.as_deref().unwrap_or_default()
        ));
    }
    let expected = created.iter().filter(|c| c.error.is_none()).count();
    let done = observer.wait_terminal(expected, args.timeout).await;
    let cpu = controller.cpu_time()?.saturating_sub(cpu_before);
    let bench_cpu = controller::cpu_time("self")?.saturating_sub(bench_cpu_before);
    let machine = controller::machine_busy()?.saturating_sub(machine_before);
    let burst_wall = Instant::now().saturating_duration_since(
        created
            .iter()
            .map(|c| c.started)
            .min()
            .unwrap_or_else(Instant::now),
    );
    if done < expected {
        failures.add(format!(
            "only {done} of {expected} jobs terminal within {:?}",
            args.timeout
        ));
    }
    let timing = Timing::of(&created, &observer);
    print_timing(&timing);
    print_handovers(&plans, &observer, &args.limits);
    print_outcomes(&observer, failures);
    print_arbitration(&observer, &args.limits, failures);

    requests::settle(&servers, Duration::from_secs(1), Duration::from_secs(30)).await;
    let counts = requests::counted(&servers, expected as u64);
    requests::print(&counts, expected);
    let hub = requests::counted(&[fleet.hub.server.as_ref()], 0);
    println!(
        "  hub API requests by the controller meanwhile: {} ({} writes)",
        requests::all(&hub),
        requests::writes(&hub)
    );
    match controller.metrics().await {
        Ok(text) => print_metrics(&text, expected),
        Err(e) => println!("  controller metrics: unavailable: {e}"),
    }
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get()) as f64;
    println!(
        "  CPU during the burst ({:.1} s wall, first create → all terminal): controller {:.2} s \
         ({:.2} ms per job); bench process (sandbox servers + load + watches + check) {:.2} s; \
         the whole machine {:.2} s busy of {:.1} s available, so other processes {:.2} s",
        burst_wall.as_secs_f64(),
        cpu.as_secs_f64(),
        cpu.as_secs_f64() * 1000.0 / expected.max(1) as f64,
        bench_cpu.as_secs_f64(),
        machine.as_secs_f64(),
        burst_wall.as_secs_f64() * cores,
        machine
            .saturating_sub(cpu)
            .saturating_sub(bench_cpu)
            .as_secs_f64()
    );
    println!("  load average after the burst: {}", load_average());
    let memory = controller.memory_mib();
    let (levels, samples) = controller.complaints();
    let tail = controller.tail();
    let ended = controller.stop().await;
    observer.stop();
    let (rss, peak) =
        memory.map_err(|e| format!("{e}; the controller's last log lines:\n{tail}"))?;
    println!(
        "  controller memory: VmHWM (peak RSS) {peak:.0} MiB, VmRSS {rss:.0} MiB at the end — \
         the whole `run` process: member registry (hub watches, probes), {} executors with \
         their caches (jobs, pods while active, PDBs, profiles, namespaces) and clients, \
         metrics and HTTP server; the fleet-level controller is off",
        fleet.members.len()
    );
    print_log(&levels, &samples);
    println!("  controller process: {ended}");
    let (rss, peak) = controller::memory_mib("self")?;
    println!(
        "  bench process (hub + {} member API servers + load + watches): RSS {rss:.0} MiB, peak \
         {peak:.0} MiB",
        fleet.members.len()
    );
    stop_fleet(fleet);
    Ok(())
}

fn stop_fleet(fleet: Fleet) {
    fleet.hub.http.stop();
    for member in &fleet.members {
        member.http.stop();
    }
    drop(fleet);
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn print_timing(timing: &Timing) {
    println!(
        "  throughput: {:.0} jobs/s ({} terminal in {:.2} s, first create call → last terminal \
         watch event; the creates took {:.2} s)",
        timing.throughput(),
        timing.latencies.len(),
        timing.span.as_secs_f64(),
        timing.creating.as_secs_f64()
    );
    let line = |what: &str, sorted: &[Duration]| {
        println!(
            "  {what}: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            ms(percentile(sorted, 50.0)),
            ms(percentile(sorted, 99.0)),
            ms(sorted.last().copied().unwrap_or_default())
        );
    };
    line("creation→terminal", &timing.latencies);
    line("  of which creation→admitted", &timing.to_admitted);
    line("  admitted→Running", &timing.admitted_to_running);
    line("  Running→terminal", &timing.running_to_terminal);
}

/// Workloads whose limit is 1 admit one job at a time: the gap between one job's terminal
/// event and the next one's admission is the executor's hand-over time (negative: the next was
/// admitted before the previous ended, an overlap the check reports).
fn print_handovers(plans: &[Arc<plan::MemberPlan>], observer: &Observer, limits: &Limits) {
    let mut gaps: Vec<f64> = Vec::new();
    let mut chains = 0;
    for (m, plan) in plans.iter().enumerate() {
        for (w, workload) in plan.workloads.iter().enumerate() {
            let limit = check::workload_limit(workload.replicas, limits.per_workload).min(
                check::workload_limit(workload.replicas, limits.unavailable_per_workload),
            );
            if limit != 1 || workload.replicas < 2 {
                continue;
            }
            chains += 1;
            let mut seen: Vec<check::Seen> = (0..plan.pods.len())
                .filter(|i| plan.pods[*i].workload == Some(w))
                .map(|i| observer.seen(m, i))
                .filter(|s| s.admitted.is_some() && s.terminal.is_some())
                .collect();
            seen.sort_by_key(|s| s.admitted);
            for pair in seen.windows(2) {
                let (Some(ended), Some(next)) = (pair[0].terminal, pair[1].admitted) else {
                    continue;
                };
                let gap = if next >= ended {
                    ms(next - ended)
                } else {
                    -ms(ended - next)
                };
                gaps.push(gap);
            }
        }
    }
    if gaps.is_empty() {
        return;
    }
    gaps.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        let rank = ((p / 100.0) * gaps.len() as f64).ceil() as usize;
        gaps[rank.clamp(1, gaps.len()) - 1]
    };
    println!(
        "  one-at-a-time workloads ({chains}, limit 1): previous job terminal → next admitted: p50 \
         {:.0} ms, p99 {:.0} ms, max {:.0} ms over {} hand-overs; {} negative (admitted before \
         the previous job ended)",
        pct(50.0),
        pct(99.0),
        gaps.last().copied().unwrap_or_default(),
        gaps.len(),
        gaps.iter().filter(|g| **g < 0.0).count()
    );
}

fn print_outcomes(observer: &Observer, failures: &mut Failures) {
    let (phases, not_succeeded) = observer.outcomes();
    let summary: Vec<String> = phases.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!("  outcomes: {}", summary.join(", "));
    for job in not_succeeded.iter().take(10) {
        failures.add(format!("job did not succeed: {job}"));
    }
    if not_succeeded.len() > 10 {
        failures.add(format!(
            "{} more jobs did not succeed",
            not_succeeded.len() - 10
        ));
    }
}

fn print_arbitration(observer: &Observer, limits: &Limits, failures: &mut Failures) {
    use std::sync::atomic::Ordering::Relaxed;
    let checks = observer.checks.load(Relaxed);
    let violating = observer.violating_checks.load(Relaxed);
    let violations = observer.violations.load(Relaxed);
    let (exceeded, kinds) = observer.exceeded();
    let peaks = observer.peaks();
    let limit = |l: Option<usize>| l.map_or("unlimited".to_string(), |n| n.to_string());
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "  arbitration: {checks} checks (one per job watch event, per member), {violating} found \
         a limit exceeded ({violations} exceedances; {exceeded} distinct member limits: {}); \
         relists after the first list {}, watch errors {}",
        if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds.join(", ")
        },
        observer.relists.load(Relaxed),
        observer.watch_errors.load(Relaxed)
    );
    println!(
        "    peak migrating (admitted, not terminal): per node {} (limit {}; reached in {} \
         checks), per namespace {} (limit {}; {}), per member {} (limit {}; {}), per workload \
         {} (its limit {}; a workload at its limit in {} checks), fleet-wide {}",
        peaks.node,
        limit(limits.per_node),
        peaks.checks_node_at_limit,
        peaks.namespace,
        limit(limits.per_namespace),
        peaks.checks_namespace_at_limit,
        peaks.member,
        limit(limits.globally),
        peaks.checks_member_at_limit,
        peaks.workload.0,
        peaks.workload.1,
        peaks.checks_workload_at_limit,
        peaks.fleet
    );
    if violating > 0 {
        failures.add(format!(
            "arbitration limits exceeded in {violating} of {checks} checks ({exceeded} distinct \
             member limits); the first {} below",
            observer.violation_notes().len()
        ));
        for note in observer.violation_notes() {
            println!("    exceeded: {note}");
        }
    }
}

/// Sums of `family` samples by the value of `label` ("" = one total).
fn sum_by(text: &str, family: &str, filter: &str, label: &str) -> BTreeMap<String, f64> {
    let mut sums = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let name = series.split('{').next().unwrap_or_default();
        if name != family || !series.contains(filter) {
            continue;
        }
        let key = series
            .split_once(&format!("{label}=\""))
            .and_then(|(_, rest)| rest.split('"').next())
            .unwrap_or_default()
            .to_string();
        *sums.entry(key).or_default() += value.parse::<f64>().unwrap_or(0.0);
    }
    sums
}

fn print_metrics(text: &str, jobs: usize) {
    let per = |n: f64| n / jobs.max(1) as f64;
    let show = |sums: BTreeMap<String, f64>| {
        sums.iter()
            .map(|(k, n)| format!("{k} {n:.0} ({:.2}/job)", per(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pmj = "controller=\"podmigrationjob-controller\"";
    let total = |family: &str| {
        sum_by(text, family, pmj, "")
            .values()
            .fold(0.0, |a, b| a + b)
    };
    let (time, passes) = (
        total("controller_runtime_reconcile_time_seconds_sum"),
        total("controller_runtime_reconcile_time_seconds_count"),
    );
    println!(
        "  controller metrics: passes by result: {}; reconcile errors {:.0}; mean pass {:.2} ms \
         ({passes:.0} timed, {time:.1} s in all)",
        show(sum_by(
            text,
            "controller_runtime_reconcile_total",
            pmj,
            "result"
        )),
        total("controller_runtime_reconcile_errors_total"),
        time * 1000.0 / passes.max(1.0)
    );
    println!(
        "    pod evictions by result: {}; jobs ended by phase: {}; members reachable: {:.0}",
        show(sum_by(
            text,
            "fleet_eviction_pod_evictions_total",
            "",
            "result"
        )),
        show(sum_by(text, "fleet_eviction_pmj_total", "", "phase")),
        sum_by(text, "fleet_eviction_member_reachable", "", "")
            .values()
            .fold(0.0, |a, b| a + b)
    );
}

fn print_log(levels: &BTreeMap<String, usize>, samples: &BTreeMap<String, usize>) {
    if levels.is_empty() {
        println!("  controller log: no WARN or ERROR line");
        return;
    }
    let counts: Vec<String> = levels.iter().map(|(l, n)| format!("{l} {n}")).collect();
    println!("  controller log: {}; messages:", counts.join(", "));
    for (message, n) in samples {
        let short: String = message.chars().take(300).collect();
        println!("    {n}× {short}");
    }
}
