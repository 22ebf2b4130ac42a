//! §5 arbitration tables: the workload limit arithmetic (with the required rows), the
//! admission rules one per row, the §6 exemption hook, and a seeded random run that checks
//! "never more admitted than the limits" after every admission.

use super::*;
use crate::api::migration::{PodMigrationJobPhase, PodMigrationJobSpec, PodMigrationJobStatus};
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::num::NonZeroU32;

fn at_most(n: u32) -> MigrationLimit {
    MigrationLimit::AtMost(NonZeroU32::new(n).expect("non-zero"))
}

fn pct(s: &str) -> IntOrString {
    IntOrString::String(s.into())
}

#[test]
fn workload_limit_table() {
    let int = IntOrString::Int;
    let rows: Vec<(&str, i32, Option<IntOrString>, usize)> = vec![
        // The required rows.
        (
            "6 replicas, \"80%\": 4.8 rounded down",
            6,
            Some(pct("80%")),
            4,
        ),
        (
            "6 replicas, \"150%\": capped at the replicas",
            6,
            Some(pct("150%")),
            6,
        ),
        ("6 replicas, 5: as is", 6, Some(int(5)), 5),
        ("6 replicas, 7: capped at the replicas", 6, Some(int(7)), 6),
        ("6 replicas, no limit: default 2 for 4-10", 6, None, 2),
        ("50 replicas, \"0%\": at least 1", 50, Some(pct("0%")), 1),
        // Defaults by size.
        ("default: 1 replica → 1", 1, None, 1),
        ("default: 3 replicas → 1", 3, None, 1),
        ("default: 4 replicas → 2", 4, None, 2),
        ("default: 10 replicas → 2", 10, None, 2),
        ("default: 11 replicas → 10% = 1.1 → 1", 11, None, 1),
        ("default: 25 replicas → 10% = 2.5 → 2", 25, None, 2),
        ("default: 100 replicas → 10", 100, None, 10),
        ("default: 0 replicas → still 1", 0, None, 1),
        // Other values.
        (
            "percent rounds down: 10% of 25 → 2",
            25,
            Some(pct("10%")),
            2,
        ),
        ("percent below one pod → 1", 5, Some(pct("10%")), 1),
        ("100% is every replica", 7, Some(pct("100%")), 7),
        ("integer 0 → at least 1", 6, Some(int(0)), 1),
        ("1 replica with a limit of 3 → 1", 1, Some(int(3)), 1),
        ("unreadable percentage → 1", 6, Some(pct("lots%")), 1),
        ("a string without % → 1", 6, Some(pct("3")), 1),
    ];
    for (rule, replicas, limit, want) in rows {
        assert_eq!(
            workload_limit(replicas, limit.as_ref()),
            want,
            "rule: {rule}"
        );
    }
}

/// A job created `second` seconds after a fixed instant, on `node`, in namespace `shop`.
fn job(name: &str, second: i64, node: &str, uid: &str) -> Candidate {
    let base: Timestamp = "2026-01-01T00:00:00Z".parse().expect("time");
    Candidate {
        job: name.into(),
        created: Some(base + k8s_openapi::jiff::SignedDuration::from_secs(second)),
        admitted: false,
        exempt: false,
        pod_uid: Some(uid.into()),
        namespace: "shop".into(),
        node: (!node.is_empty()).then(|| node.to_string()),
        workload: None,
    }
}

fn admitted(mut c: Candidate) -> Candidate {
    c.admitted = true;
    c
}

fn exempted(mut c: Candidate) -> Candidate {
    c.exempt = true;
    c
}

fn in_ns(mut c: Candidate, namespace: &str) -> Candidate {
    c.namespace = namespace.into();
    c
}

fn of(mut c: Candidate, workload: &str) -> Candidate {
    c.workload = Some(workload.into());
    c
}

fn unknown_pod(mut c: Candidate) -> Candidate {
    c.pod_uid = None;
    c
}

fn workload(replicas: i32, unavailable: &[&str]) -> WorkloadState {
    WorkloadState {
        replicas,
        unavailable: unavailable.iter().map(|s| s.to_string()).collect(),
    }
}

struct Row {
    rule: &'static str,
    jobs: Vec<Candidate>,
    workloads: Vec<(&'static str, WorkloadState)>,
    limits: Limits,
    admit: Vec<&'static str>,
    waiting: Vec<(&'static str, Blocked)>,
}

fn row(
    rule: &'static str,
    jobs: Vec<Candidate>,
    admit: &[&'static str],
    waiting: Vec<(&'static str, Blocked)>,
) -> Row {
    Row {
        rule,
        jobs,
        workloads: vec![],
        limits: Limits::default(),
        admit: admit.to_vec(),
        waiting,
    }
}

#[test]
fn admission_table() {
    use Blocked::*;
    let unlimited_nodes = Limits {
        per_node: MigrationLimit::Unlimited,
        ..Limits::default()
    };
    let rows = vec![
        row(
            "per node: default 2, the third job on the node waits",
            vec![
                job("a", 0, "n1", "p1"),
                job("b", 1, "n1", "p2"),
                job("c", 2, "n1", "p3"),
            ],
            &["a", "b"],
            vec![("c", Node)],
        ),
        row(
            "admitted jobs take slots: one admitted leaves one",
            vec![
                admitted(job("old", 0, "n1", "p0")),
                job("a", 1, "n1", "p1"),
                job("b", 2, "n1", "p2"),
            ],
            &["a"],
            vec![("b", Node)],
        ),
        row(
            "first come first served: older first, whatever the name",
            vec![
                job("a", 5, "n1", "p1"),
                job("z", 1, "n1", "p2"),
                job("m", 3, "n1", "p3"),
            ],
            &["z", "m"],
            vec![("a", Node)],
        ),
        row(
            "same creation second: by name",
            vec![
                job("b", 1, "n1", "p1"),
                job("c", 1, "n1", "p2"),
                job("a", 1, "n1", "p3"),
            ],
            &["a", "b"],
            vec![("c", Node)],
        ),
        row(
            "a job held by a full node does not hold later jobs elsewhere",
            vec![
                admitted(job("x", 0, "n1", "p0")),
                admitted(job("y", 0, "n1", "p9")),
                job("a", 1, "n1", "p1"),
                job("b", 2, "n2", "p2"),
            ],
            &["b"],
            vec![("a", Node)],
        ),
        row(
            "an unscheduled pod passes the node limit",
            vec![
                job("a", 0, "n1", "p1"),
                job("b", 1, "n1", "p2"),
                job("c", 2, "", "p3"),
            ],
            &["a", "b", "c"],
            vec![],
        ),
        row(
            "one admitted job per pod uid: the pod is already migrating",
            vec![
                admitted(job("first", 0, "n1", "p1")),
                job("second", 1, "n2", "p1"),
            ],
            &[],
            vec![("second", SamePod)],
        ),
        row(
            "two pending jobs for one pod: the older is admitted",
            vec![job("late", 2, "n1", "p1"), job("early", 1, "n1", "p1")],
            &["early"],
            vec![("late", SamePod)],
        ),
        row(
            "§6 an exempt job holds no node slot",
            vec![
                admitted(exempted(job("x", 0, "n1", "p8"))),
                admitted(exempted(job("y", 0, "n1", "p9"))),
                job("a", 1, "n1", "p1"),
            ],
            &["a"],
            vec![],
        ),
        row(
            "§6 an exempt job still holds its pod",
            vec![
                admitted(exempted(job("x", 0, "n1", "p1"))),
                job("a", 1, "n2", "p1"),
            ],
            &[],
            vec![("a", SamePod)],
        ),
        row(
            "a pending job whose pod is unknown is never admitted",
            vec![
                unknown_pod(job("a", 0, "n1", "p1")),
                job("b", 1, "n1", "p2"),
            ],
            &["b"],
            vec![("a", PodUnknown)],
        ),
        Row {
            limits: Limits {
                per_namespace: at_most(1),
                ..unlimited_nodes.clone()
            },
            ..row(
                "per namespace",
                vec![
                    job("a", 0, "n1", "p1"),
                    job("b", 1, "n2", "p2"),
                    in_ns(job("c", 2, "n3", "p3"), "other"),
                ],
                &["a", "c"],
                vec![("b", Namespace)],
            )
        },
        Row {
            limits: Limits {
                globally: at_most(2),
                ..unlimited_nodes.clone()
            },
            ..row(
                "globally",
                vec![
                    admitted(job("x", 0, "n1", "p0")),
                    job("a", 1, "n2", "p1"),
                    job("b", 2, "n3", "p2"),
                ],
                &["a"],
                vec![("b", Global)],
            )
        },
        Row {
            workloads: vec![("web", workload(6, &[]))],
            ..row(
                "per workload migrating: default 2 for 6 replicas",
                vec![
                    of(job("a", 0, "n1", "p1"), "web"),
                    of(job("b", 1, "n2", "p2"), "web"),
                    of(job("c", 2, "n3", "p3"), "web"),
                ],
                &["a", "b"],
                vec![("c", WorkloadMigrating)],
            )
        },
        Row {
            workloads: vec![("web", workload(6, &[]))],
            limits: Limits {
                per_workload: Some(pct("50%")),
                unavailable_per_workload: Some(IntOrString::Int(6)),
                ..unlimited_nodes.clone()
            },
            ..row(
                "per workload migrating from the flag: 50% of 6 is 3",
                vec![
                    of(job("a", 0, "n1", "p1"), "web"),
                    of(job("b", 1, "n1", "p2"), "web"),
                    of(job("c", 2, "n1", "p3"), "web"),
                    of(job("d", 3, "n1", "p4"), "web"),
                ],
                &["a", "b", "c"],
                vec![("d", WorkloadMigrating)],
            )
        },
        Row {
            workloads: vec![("web", workload(6, &["sick"]))],
            limits: Limits {
                per_workload: Some(IntOrString::Int(6)),
                ..Limits::default()
            },
            ..row(
                "not-ready pods count as unavailable",
                vec![
                    of(job("a", 0, "n1", "p1"), "web"),
                    of(job("b", 1, "n2", "p2"), "web"),
                ],
                &["a"],
                vec![("b", WorkloadUnavailable)],
            )
        },
        Row {
            workloads: vec![("web", workload(6, &["p1", "sick"]))],
            ..row(
                "migrating a pod that is already not ready costs no availability",
                vec![of(job("a", 0, "n1", "p1"), "web")],
                &["a"],
                vec![],
            )
        },
        Row {
            workloads: vec![("web", workload(6, &[])), ("db", workload(3, &[]))],
            ..row(
                "workload limits are per workload",
                vec![
                    of(job("a", 0, "n1", "p1"), "web"),
                    of(job("b", 1, "n2", "p2"), "db"),
                    of(job("c", 2, "n3", "p3"), "db"),
                ],
                &["a", "b"],
                vec![("c", WorkloadMigrating)],
            )
        },
        Row {
            workloads: vec![("solo", workload(1, &[]))],
            ..row(
                "a 1-replica workload may migrate (Koordinator's rule dropped)",
                vec![of(job("a", 0, "n1", "p1"), "solo")],
                &["a"],
                vec![],
            )
        },
        row(
            "a pod without a controller passes the workload limits",
            vec![job("a", 0, "n1", "p1")],
            &["a"],
            vec![],
        ),
        row(
            "a workload the executor could not size waits",
            vec![of(job("a", 0, "n1", "p1"), "ghost")],
            &[],
            vec![("a", WorkloadUnknown)],
        ),
    ];
    for r in rows {
        let workloads: BTreeMap<String, WorkloadState> = r
            .workloads
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let got = admit(&r.jobs, &workloads, &r.limits);
        let want = Verdicts {
            admit: r.admit.iter().map(|s| s.to_string()).collect(),
            waiting: r
                .waiting
                .into_iter()
                .map(|(n, b)| (n.to_string(), b))
                .collect(),
        };
        assert_eq!(got, want, "rule: {}", r.rule);
    }
}

#[test]
fn over_limits_table() {
    let limits = Limits::default();
    let workloads: BTreeMap<String, WorkloadState> = [("web".to_string(), workload(3, &[]))].into();
    let rows: Vec<(&str, Vec<Candidate>, Vec<Violation>)> = vec![
        (
            "within the limits",
            vec![
                admitted(job("a", 0, "n1", "p1")),
                admitted(job("b", 0, "n1", "p2")),
            ],
            vec![],
        ),
        (
            "pending jobs do not count",
            vec![
                job("a", 0, "n1", "p1"),
                job("b", 0, "n1", "p2"),
                job("c", 0, "n1", "p3"),
            ],
            vec![],
        ),
        (
            "three admitted on one node",
            vec![
                admitted(job("a", 0, "n1", "p1")),
                admitted(job("b", 0, "n1", "p2")),
                admitted(job("c", 0, "n1", "p3")),
            ],
            vec![Violation::Node("n1".into())],
        ),
        (
            "two admitted for one pod",
            vec![
                admitted(job("a", 0, "n1", "p1")),
                admitted(job("b", 0, "n2", "p1")),
            ],
            vec![Violation::SamePod("p1".into())],
        ),
        (
            "two migrating of a 3-replica workload (limit 1)",
            vec![
                admitted(of(job("a", 0, "n1", "p1"), "web")),
                admitted(of(job("b", 0, "n2", "p2"), "web")),
            ],
            vec![Violation::WorkloadMigrating("web".into())],
        ),
        (
            "exempt jobs do not count",
            vec![
                admitted(exempted(job("a", 0, "n1", "p1"))),
                admitted(job("b", 0, "n1", "p2")),
                admitted(job("c", 0, "n1", "p3")),
            ],
            vec![],
        ),
    ];
    for (rule, jobs, want) in rows {
        assert_eq!(
            over_limits(&jobs, &workloads, &limits),
            want,
            "rule: {rule}"
        );
    }
}

/// A small deterministic generator (xorshift64*), so a failing run reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Jobs arrive, arbitration admits, admitted jobs finish, at random; after every admission the
/// admitted set must be within every limit, and no Pending job that fits may be left waiting.
#[test]
fn admission_never_exceeds_the_limits() {
    let limits = Limits {
        per_node: at_most(2),
        per_namespace: at_most(3),
        globally: at_most(5),
        per_workload: None,
        unavailable_per_workload: Some(IntOrString::Int(2)),
    };
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut admissions = 0;
    for seed in 1..=20u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let workloads: BTreeMap<String, WorkloadState> = [
            ("w0".to_string(), workload(6, &["u0"])),
            ("w1".to_string(), workload(12, &[])),
            ("w2".to_string(), workload(2, &[])),
        ]
        .into();
        let mut jobs: Vec<Candidate> = Vec::new();
        let mut n = 0;
        for step in 0..60i64 {
            for _ in 0..rng.below(4) {
                n += 1;
                let mut c = job(
                    &format!("j{n}"),
                    step,
                    &format!("n{}", rng.below(3)),
                    &format!("u{}", rng.below(25)),
                );
                c.namespace = format!("ns{}", rng.below(2));
                c.workload = match rng.below(4) {
                    3 => None,
                    w => Some(format!("w{w}")),
                };
                jobs.push(c);
            }
            if !jobs.is_empty() && rng.below(2) == 0 {
                let i = rng.below(jobs.len() as u64) as usize;
                if jobs[i].admitted {
                    jobs.remove(i);
                }
            }
            let verdicts = admit(&jobs, &workloads, &limits);
            admissions += verdicts.admit.len();
            seen.extend(verdicts.waiting.iter().map(|(_, why)| format!("{why:?}")));
            for name in &verdicts.admit {
                if let Some(j) = jobs.iter_mut().find(|j| &j.job == name) {
                    j.admitted = true;
                }
            }
            let violations = over_limits(&jobs, &workloads, &limits);
            assert!(
                violations.is_empty(),
                "seed {seed}, step {step}: {violations:?}"
            );
            assert!(
                admit(&jobs, &workloads, &limits).admit.is_empty(),
                "seed {seed}, step {step}: a second round admitted more"
            );
        }
    }
    // The run must have pressed on every limit, or it proves little.
    assert!(admissions > 100, "only {admissions} admissions");
    for why in [
        "SamePod",
        "Node",
        "Namespace",
        "Global",
        "WorkloadMigrating",
        "WorkloadUnavailable",
    ] {
        assert!(
            seen.contains(why),
            "no job was ever held by {why}: {seen:?}"
        );
    }
}

fn pmj(
    name: &str,
    phase: Option<PodMigrationJobPhase>,
    annotations: &[(&str, &str)],
    labels: &[(&str, &str)],
) -> PodMigrationJob {
    let mut job = PodMigrationJob::new(
        name,
        PodMigrationJobSpec {
            pod_ref: Some(ObjectReference {
                namespace: Some("shop".into()),
                name: Some("web-1".into()),
                uid: Some("recorded".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    job.metadata.creation_timestamp = Some(Time("2026-01-01T00:00:00Z".parse().expect("time")));
    let map = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    job.metadata.annotations = Some(map(annotations));
    job.metadata.labels = Some(map(labels));
    job.status = Some(PodMigrationJobStatus {
        phase,
        ..Default::default()
    });
    job
}

#[test]
fn candidate_of_table() {
    use PodMigrationJobPhase::*;
    let pod = PodView {
        uid: "live".into(),
        node_name: "n1".into(),
        ..Default::default()
    };
    let passed = [("descheduler.koordinator.sh/passed-arbitration", "true")];
    type Row<'a> = (
        &'a str,
        PodMigrationJob,
        Option<&'a PodView>,
        bool,
        Option<&'a str>,
        Option<&'a str>,
    );
    let rows: Vec<Row> = vec![
        (
            "Pending without the annotation: not admitted",
            pmj("a", Some(Pending), &[], &[]),
            Some(&pod),
            false,
            Some("live"),
            Some("n1"),
        ),
        (
            "the annotation admits",
            pmj("a", Some(Pending), &passed, &[]),
            Some(&pod),
            true,
            Some("live"),
            Some("n1"),
        ),
        (
            "Running counts as admitted without the annotation",
            pmj("a", Some(Running), &[], &[]),
            Some(&pod),
            true,
            Some("live"),
            Some("n1"),
        ),
        (
            "pod gone: the recorded uid, no node",
            pmj("a", Some(Running), &[], &[]),
            None,
            true,
            Some("recorded"),
            None,
        ),
        (
            "pod gone: the node recorded at the start keeps its slot",
            {
                let mut job = pmj("a", Some(Running), &[], &[]);
                if let Some(status) = job.status.as_mut() {
                    status.node_name = Some("n7".into());
                }
                job
            },
            None,
            true,
            Some("recorded"),
            Some("n7"),
        ),
        (
            "the pod's node wins over the record",
            {
                let mut job = pmj("a", Some(Running), &[], &[]);
                if let Some(status) = job.status.as_mut() {
                    status.node_name = Some("n7".into());
                }
                job
            },
            Some(&pod),
            true,
            Some("live"),
            Some("n1"),
        ),
    ];
    for (rule, job, pod, want_admitted, want_uid, want_node) in rows {
        let c = Candidate::of(&job, pod, None);
        assert_eq!(
            (
                c.admitted,
                c.pod_uid.as_deref(),
                c.node.as_deref(),
                c.namespace.as_str()
            ),
            (want_admitted, want_uid, want_node, "shop"),
            "rule: {rule}"
        );
    }
}

#[test]
fn exemption_table() {
    use PodMigrationJobPhase::*;
    let fan_out = [("fleet-eviction.io/eviction", "evict-web-member-1")];
    let with_gate = |mut job: PodMigrationJob, status: &str| {
        job.spec.eviction_conditions =
            Some(vec![crate::api::gate::EvictionCondition::new("Drained")]);
        if let Some(s) = job.status.as_mut() {
            s.conditions
                .push(crate::api::migration::PodMigrationJobCondition {
                    type_: "Drained".into(),
                    status: status.into(),
                    ..Default::default()
                });
        }
        job
    };
    let rows: Vec<(&str, PodMigrationJob, bool)> = vec![
        (
            "fan-out, Running, no gates: exempt",
            pmj("a", Some(Running), &[], &fan_out),
            true,
        ),
        (
            "fan-out, Running, gates met: exempt",
            with_gate(pmj("a", Some(Running), &[], &fan_out), "True"),
            true,
        ),
        (
            "fan-out, Running, a gate not met: holds a slot",
            with_gate(pmj("a", Some(Running), &[], &fan_out), "Unknown"),
            false,
        ),
        (
            "fan-out, Pending: needs a slot",
            pmj("a", Some(Pending), &[], &fan_out),
            false,
        ),
        (
            "not fan-out: holds a slot",
            pmj("a", Some(Running), &[], &[]),
            false,
        ),
    ];
    for (rule, job, want) in rows {
        assert_eq!(exempt(&job), want, "rule: {rule}");
    }
}
