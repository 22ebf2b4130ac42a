//! The state machine of pod-migration.md §2, §3 and §4, one decision per row of
//! [`next_step_table`], then whole runs in a small in-memory world that applies each step the
//! way the executor does ([`scenarios`]). Expected strings are spelled out as the spec spells
//! them (`spec_strings`), never taken from `messages.rs`.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{next_step, refused};
use crate::api::gate::EvictionCondition;
use crate::api::migration::{
    PodMigrationJob, PodMigrationJobCondition, PodMigrationJobMode, PodMigrationJobPhase,
    PodMigrationJobSpec, PodMigrationJobStatus,
};
use crate::api::profile::{PodMigrationJobProfile, PodMigrationJobProfileSpec};
use crate::pod::facts::{Admission, JobFacts, PdbView, PodView, ReservationApi, Settings};
use crate::pod::spec_strings::*;
use crate::pod::step::{
    Cleanup, EventNote, EventTarget, HandOff, Ignored, JobStep, JobUpdate, Plan, PodAction,
    PodCleanup, PodTarget, Removal, StatusChange, Waiting, WantedCondition,
};
use crate::runtime::options::{EvictPolicy, PmjMode};
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    DeleteOptions, LabelSelector, LabelSelectorRequirement, Time,
};
use k8s_openapi::jiff::Timestamp;

const JOB: &str = "migrate-web-1";
const NS: &str = "shop";
const POD: &str = "web-1";
const UID: &str = "uid-1";
const NODE: &str = "node-a";
/// `fleet-eviction-` + FNV-1a 64 of `migrate-web-1`, computed independently of `policy.rs`.
const PDB: &str = "fleet-eviction-0229c608776f0053";

fn t(seconds: u64) -> Timestamp {
    let created: Timestamp = "2026-03-01T10:00:00Z".parse().expect("time");
    created
        .checked_add(Duration::from_secs(seconds))
        .expect("time")
}

fn text(seconds: u64) -> String {
    t(seconds).strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn s(v: &str) -> String {
    v.to_string()
}

/// One job and the world around it. By default: Pending, created at t(0), for pod shop/web-1
/// (uid-1, on node-a, Ready, no controller), arbitration says admit, now is t(60).
#[derive(Clone)]
struct Fx {
    job: PodMigrationJob,
    pod: Option<PodView>,
    pdb: Option<PdbView>,
    namespace: Option<BTreeMap<String, String>>,
    profiles: Vec<PodMigrationJobProfile>,
    admission: Admission,
    reservation_api: ReservationApi,
    retry_at: Option<Timestamp>,
    pod_left_first: bool,
    settings: Settings,
    now: Timestamp,
}

fn fx() -> Fx {
    let mut job = PodMigrationJob::new(
        JOB,
        PodMigrationJobSpec {
            pod_ref: Some(ObjectReference {
                namespace: Some(NS.into()),
                name: Some(POD.into()),
                ..Default::default()
            }),
            ..Default::default()
        },
    );
    job.metadata.creation_timestamp = Some(Time(t(0)));
    Fx {
        job,
        pod: Some(PodView {
            namespace: NS.into(),
            name: POD.into(),
            uid: UID.into(),
            node_name: NODE.into(),
            available: true,
            ..Default::default()
        }),
        pdb: None,
        namespace: Some(BTreeMap::from([(s("env"), s("prod"))])),
        profiles: vec![],
        admission: Admission::Admit,
        reservation_api: ReservationApi::Absent,
        retry_at: None,
        pod_left_first: false,
        settings: Settings::default(),
        now: t(60),
    }
}

impl Fx {
    fn facts(&self) -> JobFacts<'_> {
        JobFacts {
            job: &self.job,
            pod: self.pod.as_ref(),
            pdb: self.pdb.as_ref(),
            namespace_labels: self.namespace.as_ref(),
            profiles: &self.profiles,
            admission: self.admission,
            reservation_api: self.reservation_api,
            retry_at: self.retry_at,
            pod_left_first: self.pod_left_first,
            settings: &self.settings,
            now: self.now,
        }
    }

    fn status(&mut self) -> &mut PodMigrationJobStatus {
        self.job.status.get_or_insert_default()
    }

    fn phase(mut self, phase: &str) -> Self {
        self.status().phase = Some(PodMigrationJobPhase::from(phase));
        self
    }

    fn ann(mut self, key: &str, value: &str) -> Self {
        let annotations = self.job.metadata.annotations.get_or_insert_default();
        annotations.insert(s(key), s(value));
        self
    }

    fn job_label(mut self, key: &str, value: &str) -> Self {
        let labels = self.job.metadata.labels.get_or_insert_default();
        labels.insert(s(key), s(value));
        self
    }

    fn uid(mut self, uid: &str) -> Self {
        if let Some(r) = self.job.spec.pod_ref.as_mut() {
            r.uid = Some(s(uid));
        }
        self
    }

    /// Admitted, prepared and Running, as our own start leaves a job.
    fn running(self) -> Self {
        self.phase("Running")
            .ann(PASSED_ARBITRATION, "true")
            .ann(PROFILES, "")
            .uid(UID)
    }

    fn cond(mut self, type_: &str, status: &str, reason: &str, message: &str) -> Self {
        self.status().conditions.push(PodMigrationJobCondition {
            type_: s(type_),
            status: s(status),
            last_probe_time: None,
            last_transition_time: Some(Time(t(0))),
            reason: (!reason.is_empty()).then(|| s(reason)),
            message: (!message.is_empty()).then(|| s(message)),
        });
        self
    }

    fn gates(mut self, names: &[&str]) -> Self {
        self.job.spec.eviction_conditions =
            Some(names.iter().map(|n| EvictionCondition::new(*n)).collect());
        self
    }

    fn ttl(mut self, ttl: &str) -> Self {
        self.job.spec.ttl = Some(s(ttl));
        self
    }

    fn at(mut self, seconds: u64) -> Self {
        self.now = t(seconds);
        self
    }

    fn paused(mut self) -> Self {
        self.job.spec.paused = Some(true);
        self
    }

    fn mode(mut self, mode: &str) -> Self {
        self.job.spec.mode = Some(PodMigrationJobMode::from(mode));
        self
    }

    fn no_pod(mut self) -> Self {
        self.pod = None;
        self
    }

    fn pod_uid(mut self, uid: &str) -> Self {
        if let Some(p) = self.pod.as_mut() {
            p.uid = s(uid);
        }
        self
    }

    fn pod_label(mut self, key: &str, value: &str) -> Self {
        if let Some(p) = self.pod.as_mut() {
            p.labels.insert(s(key), s(value));
        }
        self
    }

    fn finalizer(mut self) -> Self {
        self.job
            .metadata
            .finalizers
            .get_or_insert_default()
            .push(s(FINALIZER));
        self
    }

    /// The External hand-off in place: finalizer, PDB, pod label and annotation.
    fn handed_off(mut self) -> Self {
        if let Some(p) = self.pod.as_mut() {
            p.evacuation_label = Some(s(JOB));
            p.evacuation_requested = Some(s(JOB));
        }
        self.pdb = Some(PdbView {
            name: s(PDB),
            uid: s("pdb-uid"),
            evacuation: Some(s(JOB)),
        });
        self.finalizer()
    }

    fn deleting(mut self) -> Self {
        self.job.metadata.deletion_timestamp = Some(Time(t(30)));
        self
    }
}

// Expected steps, spelled out.

fn target() -> PodTarget {
    PodTarget {
        namespace: s(NS),
        name: s(POD),
        uid: s(UID),
    }
}

fn job_event(warning: bool, reason: &str, message: &str) -> EventNote {
    EventNote {
        target: EventTarget::Job,
        warning,
        reason: s(reason),
        message: s(message),
    }
}

fn waits(until: Option<u64>, why: Waiting) -> JobStep {
    JobStep::Wait {
        until: until.map(t),
        why,
    }
}

fn failed_with(reason: &str, message: &str, cleanup: Option<Cleanup>, confirm: bool) -> JobStep {
    JobStep::apply(Plan {
        action: cleanup.map(PodAction::Cleanup),
        status: Some(StatusChange {
            phase: Some(PodMigrationJobPhase::Failed),
            reason: Some(s(reason)),
            message: Some(s(message)),
            ..Default::default()
        }),
        events: vec![job_event(true, reason, message)],
        confirm_absence: confirm,
        ..Default::default()
    })
}

fn failed(reason: &str, message: &str) -> JobStep {
    failed_with(reason, message, None, false)
}

/// Removing the PDB, the label and the annotations of the hand-off.
fn full_cleanup() -> Cleanup {
    Cleanup {
        namespace: s(NS),
        pdb: Some((s(PDB), s("pdb-uid"))),
        pod: Some(PodCleanup {
            name: s(POD),
            uid: s(UID),
            label: true,
            annotations: true,
        }),
    }
}

fn job_update(update: JobUpdate) -> JobStep {
    JobStep::apply(Plan {
        job: Some(update),
        ..Default::default()
    })
}

fn annotations(pairs: &[(&'static str, &str)]) -> BTreeMap<&'static str, String> {
    pairs.iter().map(|(k, v)| (*k, s(v))).collect()
}

fn start(update: JobUpdate, events: Vec<EventNote>) -> JobStep {
    JobStep::apply(Plan {
        job: (update != JobUpdate::default()).then_some(update),
        status: Some(StatusChange {
            phase: Some(PodMigrationJobPhase::Running),
            node_name: Some(s(NODE)),
            ..Default::default()
        }),
        events,
        ..Default::default()
    })
}

fn admitted_update() -> JobUpdate {
    JobUpdate {
        annotations: annotations(&[(PASSED_ARBITRATION, "true"), (PROFILES, "")]),
        pod_uid: Some(s(UID)),
        ..Default::default()
    }
}

fn removal(how: Removal, reason: &str) -> JobStep {
    let message = evicting(NS, POD, NODE, reason);
    JobStep::apply(Plan {
        action: Some(PodAction::Remove { pod: target(), how }),
        status: Some(StatusChange {
            conditions: vec![WantedCondition::new(
                "Eviction", "False", "Evicting", &message,
            )],
            ..Default::default()
        }),
        events: vec![
            job_event(false, "Evicting", &message),
            EventNote {
                target: EventTarget::Pod(target()),
                warning: false,
                reason: s("Descheduled"),
                message: descheduled(NODE, reason),
            },
        ],
        ..Default::default()
    })
}

fn external_requested_status() -> StatusChange {
    StatusChange {
        conditions: vec![WantedCondition::new(
            "ExternalEvacuation",
            "Unknown",
            "Requested",
            external_requested(NS, POD),
        )],
        ..Default::default()
    }
}

fn requested_event() -> EventNote {
    job_event(
        false,
        "ExternalEvacuationRequested",
        &external_requested(NS, POD),
    )
}

fn hand_off_step() -> JobStep {
    JobStep::apply(Plan {
        action: Some(PodAction::HandOff(HandOff {
            pod: target(),
            pdb: s(PDB),
            label: s(JOB),
            job: s(JOB),
            requested_at: text(60),
        })),
        status: Some(external_requested_status()),
        events: vec![requested_event()],
        ..Default::default()
    })
}

fn succeeded(event: bool) -> JobStep {
    let message = evicted(NS, POD);
    JobStep::apply(Plan {
        status: Some(StatusChange {
            phase: Some(PodMigrationJobPhase::Succeeded),
            conditions: vec![WantedCondition::new(
                "Eviction",
                "True",
                "EvictComplete",
                &message,
            )],
            status: Some(s("Complete")),
            reason: Some(s("")),
            message: Some(message.clone()),
            node_name: None,
        }),
        events: if event {
            vec![job_event(false, "EvictComplete", &message)]
        } else {
            vec![]
        },
        ..Default::default()
    })
}

fn gates_waiting(names: &[&str]) -> JobStep {
    let message = waiting(names);
    JobStep::apply(Plan {
        status: Some(StatusChange {
            status: Some(s("WaitForEvictionConditions")),
            reason: Some(s("WaitForEvictionConditions")),
            message: Some(message.clone()),
            ..Default::default()
        }),
        events: vec![job_event(false, "WaitForEvictionConditions", &message)],
        ..Default::default()
    })
}

fn profile(name: &str, selector: Option<LabelSelector>, gates: &[&str]) -> PodMigrationJobProfile {
    PodMigrationJobProfile::new(
        name,
        PodMigrationJobProfileSpec {
            namespace_selector: None,
            selector,
            eviction_conditions: Some(gates.iter().map(|g| EvictionCondition::new(*g)).collect()),
        },
    )
}

fn with_profiles(mut f: Fx, profiles: Vec<PodMigrationJobProfile>) -> Fx {
    f.profiles = profiles;
    f
}

fn gate_list(names: &[&str]) -> Vec<EvictionCondition> {
    names.iter().map(|n| EvictionCondition::new(*n)).collect()
}

const EXTERNAL: (&str, &str) = ("fleet-eviction.io/evict-policy", "External");

#[test]
fn next_step_table() {
    let grace = DeleteOptions {
        grace_period_seconds: Some(5),
        ..Default::default()
    };
    let broken = LabelSelector {
        match_labels: None,
        match_expressions: Some(vec![LabelSelectorRequirement {
            key: s("app"),
            operator: s("Equals"),
            values: None,
        }]),
    };
    let many: Vec<String> = (0..17).map(|i| format!("G{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let rows: Vec<(&str, Fx, JobStep)> = vec![
        // Coexistence.
        (
            "§2 created by a koord-descheduler: ignored, even past its ttl",
            fx().ann(CREATED_BY, "koord-descheduler").ttl("10s").at(600),
            JobStep::Ignore(Ignored::CreatedByKoordinator),
        ),
        (
            "§2 step 7 ReservationFirst where the API is served: left alone entirely",
            Fx {
                reservation_api: ReservationApi::Served,
                ..fx().mode("ReservationFirst").ttl("10s").at(600)
            },
            JobStep::Ignore(Ignored::ReservationFirst),
        ),
        (
            "§2 step 7 the default mode counts: ReservationFirst by default, API served",
            Fx {
                reservation_api: ReservationApi::Served,
                settings: Settings {
                    default_mode: PmjMode::ReservationFirst,
                    ..Settings::default()
                },
                ..fx()
            },
            JobStep::Ignore(Ignored::ReservationFirst),
        ),
        // Step 1: finished jobs.
        (
            "§2 step 1 Succeeded: record finished-at, nothing else",
            fx().phase("Succeeded"),
            job_update(JobUpdate {
                annotations: annotations(&[(FINISHED_AT, &text(60))]),
                ..Default::default()
            }),
        ),
        (
            "§2 step 1 Succeed (old spelling) is terminal: wait for garbage collection",
            fx().phase("Succeed").ann(FINISHED_AT, &text(0)),
            waits(Some(1800), Waiting::GarbageCollection),
        ),
        (
            "§2 step 1 Aborted is terminal",
            fx().phase("Aborted").ann(FINISHED_AT, &text(0)),
            waits(Some(1800), Waiting::GarbageCollection),
        ),
        (
            "§2 garbage collection 30 min after finishing",
            fx().phase("Failed").ann(FINISHED_AT, &text(0)).at(1800),
            JobStep::DeleteJob,
        ),
        (
            "§2 step 1 a finished job never times out",
            fx().phase("Failed")
                .ann(FINISHED_AT, &text(0))
                .ttl("10s")
                .at(100),
            waits(Some(1800), Waiting::GarbageCollection),
        ),
        (
            "§2 manual abort mid-hand-off: clean up what we created",
            fx().running().phase("Failed").handed_off(),
            JobStep::apply(Plan::action(PodAction::Cleanup(full_cleanup()))),
        ),
        (
            "§2 manual abort, cleaned: drop the finalizer, finished-at = first seen",
            fx().running().phase("Failed").finalizer(),
            job_update(JobUpdate {
                remove_finalizer: true,
                annotations: annotations(&[(FINISHED_AT, &text(60))]),
                ..Default::default()
            }),
        ),
        (
            "§4 cleanup is guarded: a PDB and pod marks naming another job are left",
            {
                let mut f = fx().running().phase("Failed").handed_off();
                if let Some(p) = f.pod.as_mut() {
                    p.evacuation_label = Some(s("other-job"));
                    p.evacuation_requested = Some(s("other-job"));
                }
                f.pdb = f.pdb.map(|p| PdbView {
                    evacuation: Some(s("other-job")),
                    ..p
                });
                f.ann(FINISHED_AT, &text(0))
            },
            job_update(JobUpdate {
                remove_finalizer: true,
                ..Default::default()
            }),
        ),
        (
            "a phase this version does not know: left alone",
            fx().phase("Paused"),
            JobStep::Ignore(Ignored::UnknownPhase(s("Paused"))),
        ),
        (
            "a phase this version does not know, holding our PDB: cleaned up",
            fx().running().phase("Paused").handed_off(),
            JobStep::apply(Plan::action(PodAction::Cleanup(full_cleanup()))),
        ),
        (
            "§4 job deleted mid-hand-off: clean up",
            fx().running().handed_off().deleting(),
            JobStep::apply(Plan::action(PodAction::Cleanup(full_cleanup()))),
        ),
        (
            "§4 job deleted, cleaned: drop the finalizer",
            fx().running().finalizer().deleting(),
            job_update(JobUpdate {
                remove_finalizer: true,
                ..Default::default()
            }),
        ),
        (
            "job deleted, nothing of ours: done",
            fx().running().deleting(),
            JobStep::Done,
        ),
        // Step 2: ttl.
        (
            "§2 step 2 ttl reached exactly: Failed/Timeout",
            fx().ttl("60s"),
            failed("Timeout", TIMEOUT),
        ),
        (
            "§2 step 2 ttl applies while paused",
            fx().paused().ttl("30s"),
            failed("Timeout", TIMEOUT),
        ),
        (
            "§2 step 2 ttl applies while not admitted",
            Fx {
                admission: Admission::Wait,
                ..fx().ttl("1m")
            },
            failed("Timeout", TIMEOUT),
        ),
        (
            "§2 step 2 ttl during the hand-off: cleanup with the abort",
            fx().running()
                .handed_off()
                .cond("ExternalEvacuation", "Unknown", "Requested", "")
                .ttl("1m"),
            failed_with("Timeout", TIMEOUT, Some(full_cleanup()), false),
        ),
        (
            "§2 step 2 ttl while the pod terminates after eviction",
            fx().running()
                .cond("Eviction", "False", "Evicting", "m")
                .ttl("1m"),
            failed("Timeout", TIMEOUT),
        ),
        (
            "a ttl that is not a Go duration fails the job",
            fx().ttl("1 hour"),
            failed(
                "InvalidTTL",
                "Abort job caused by invalid ttl \"1 hour\": expected a Go duration such as 90s, 5m or 1h30m",
            ),
        ),
        // Step 3.
        (
            "§2 step 3 paused: nothing, wake at the ttl boundary",
            fx().paused().ttl("10m"),
            waits(Some(600), Waiting::Paused),
        ),
        (
            "§2 step 3 ttl 0s never expires",
            fx().paused().ttl("0s").at(100_000),
            waits(None, Waiting::Paused),
        ),
        (
            "§2 step 3 paused after the signal: nothing more",
            fx().running()
                .handed_off()
                .cond("ExternalEvacuation", "True", "Done", "")
                .paused(),
            waits(None, Waiting::Paused),
        ),
        // Step 4.
        (
            "§2 step 4 empty podRef namespace: InvalidPodRef",
            {
                let mut f = fx();
                f.job.spec.pod_ref = Some(ObjectReference {
                    name: Some(s(POD)),
                    ..Default::default()
                });
                f
            },
            failed("InvalidPodRef", INVALID_POD_REF),
        ),
        (
            "§2 step 4 no podRef at all: InvalidPodRef",
            {
                let mut f = fx();
                f.job.spec.pod_ref = None;
                f
            },
            failed("InvalidPodRef", INVALID_POD_REF),
        ),
        (
            "§2 step 4 pod not found: MissingPod, confirmed against the API first",
            fx().no_pod(),
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "§2 step 4 validation comes before arbitration",
            Fx {
                admission: Admission::Wait,
                ..fx().no_pod()
            },
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "§2 step 4 the named pod was replaced (uid differs): MissingPod",
            fx().uid("uid-0"),
            failed("MissingPod", &missing_pod(NS, POD)),
        ),
        (
            "§2 step 4 unknown mode: InvalidMode",
            fx().mode("EvictDirect"),
            failed(
                "InvalidMode",
                "Abort job caused by invalid mode \"EvictDirect\": expected EvictDirectly or ReservationFirst",
            ),
        ),
        (
            "§2 step 7 ReservationFirst without the API fails before taking a slot",
            Fx {
                admission: Admission::Wait,
                ..fx().mode("ReservationFirst")
            },
            failed("ReservationUnsupported", RESERVATION_UNSUPPORTED),
        ),
        (
            "§2 step 4 unknown policy on the pod: InvalidEvictPolicy",
            fx().pod_label("fleet-eviction.io/evict-policy", "Externl"),
            failed(
                "InvalidEvictPolicy",
                "Abort job caused by invalid eviction policy \"Externl\" in label \"fleet-eviction.io/evict-policy\" of Pod \"shop/web-1\": expected Eviction, Delete, SoftEviction or External",
            ),
        ),
        (
            "§2 step 4 unknown policy on the job: InvalidEvictPolicy",
            fx().job_label("koordinator.sh/evict-policy", "evict"),
            failed(
                "InvalidEvictPolicy",
                "Abort job caused by invalid eviction policy \"evict\" in label \"koordinator.sh/evict-policy\" of the job: expected Eviction, Delete, SoftEviction or External",
            ),
        ),
        // Step 5.
        (
            "§2 step 5 not admitted: wait without a status change, wake at the ttl",
            Fx {
                admission: Admission::Wait,
                ..fx().ttl("10m")
            },
            waits(Some(600), Waiting::Arbitration),
        ),
        // Step 6.
        (
            "§2 steps 5-6 admitted: annotation, uid and profiles record, then Running",
            fx(),
            start(admitted_update(), vec![]),
        ),
        (
            "§2 step 5 already passed arbitration: not asked again",
            Fx {
                admission: Admission::Wait,
                ..fx().ann(PASSED_ARBITRATION, "true")
            },
            start(
                JobUpdate {
                    annotations: annotations(&[(PROFILES, "")]),
                    pod_uid: Some(s(UID)),
                    ..Default::default()
                },
                vec![],
            ),
        ),
        (
            "§2 step 6 prepared, Running lost: write Running only",
            fx().ann(PASSED_ARBITRATION, "true")
                .ann(PROFILES, "")
                .uid(UID),
            start(JobUpdate::default(), vec![]),
        ),
        (
            "§3 profiles: user gates first, then each profile's in name order",
            with_profiles(
                fx().gates(&["Mine"]),
                vec![
                    profile("zeta", None, &["Z", "Mine"]),
                    profile("alpha", None, &["A"]),
                ],
            ),
            start(
                JobUpdate {
                    annotations: annotations(&[
                        (PASSED_ARBITRATION, "true"),
                        (PROFILES, "alpha,zeta"),
                    ]),
                    pod_uid: Some(s(UID)),
                    eviction_conditions: Some(gate_list(&["Mine", "A", "Z"])),
                    ..Default::default()
                },
                vec![],
            ),
        ),
        (
            "§1 a profile with an invalid selector is skipped, with a Warning event on it",
            with_profiles(fx(), vec![profile("broken", Some(broken.clone()), &["X"])]),
            start(
                admitted_update(),
                vec![EventNote {
                    target: EventTarget::Profile(s("broken")),
                    warning: true,
                    reason: s("InvalidSelector"),
                    message: s(
                        "Profile skipped: invalid selector: \"Equals\" is not a valid label selector operator",
                    ),
                }],
            ),
        ),
        (
            "§3 the namespace's labels are needed to match profiles: wait for them",
            Fx {
                namespace: None,
                ..fx().ttl("10m")
            },
            waits(Some(600), Waiting::NamespaceLabels),
        ),
        (
            "more than 16 gates after injection: fail rather than drop one",
            with_profiles(fx(), vec![profile("big", None, &many)]),
            failed(
                "TooManyEvictionConditions",
                "Abort job caused by too many eviction conditions: 17 with those of profiles \"big\", at most 16 allowed",
            ),
        ),
        (
            "§2 step 6 Running without our preparation: prepare before any gate",
            fx().phase("Running"),
            job_update(JobUpdate {
                annotations: annotations(&[(PROFILES, "")]),
                pod_uid: Some(s(UID)),
                ..Default::default()
            }),
        ),
        // Step 8.
        (
            "§2 step 8 gates waiting: status and reason WaitForEvictionConditions, no condition",
            fx().running().gates(&["B", "A"]),
            gates_waiting(&["B", "A"]),
        ),
        (
            "§2 step 8 gates waiting, already said: wait until the ttl",
            {
                let mut f = fx().running().gates(&["B", "A"]).ttl("10m");
                let st = f.status();
                st.status = Some(s("WaitForEvictionConditions"));
                st.reason = Some(s("WaitForEvictionConditions"));
                st.message = Some(waiting(&["B", "A"]));
                f
            },
            waits(Some(600), Waiting::EvictionConditions),
        ),
        (
            "§3 a met gate leaves the list; Unknown still waits",
            fx().running()
                .gates(&["B", "A"])
                .cond("B", "True", "", "")
                .cond("A", "Unknown", "", ""),
            gates_waiting(&["A"]),
        ),
        (
            "§2 step 8 a denied gate: EvictionConditionDenied",
            fx().running()
                .gates(&["Risk"])
                .cond("Risk", "False", "Denied", "change freeze"),
            failed("EvictionConditionDenied", &denied("Risk", "change freeze")),
        ),
        (
            "§3 denial wins over waiting",
            fx().running()
                .gates(&["A", "Risk"])
                .cond("Risk", "False", "", "no"),
            failed("EvictionConditionDenied", &denied("Risk", "no")),
        ),
        // Step 9.
        (
            "§2 step 9 default policy Eviction with the job's deleteOptions",
            {
                let mut f = fx().running().gates(&["A"]).cond("A", "True", "", "");
                f.job.spec.delete_options = Some(grace.clone());
                f
            },
            removal(Removal::Evict(Some(grace.clone())), "NotSet"),
        ),
        (
            "§2 step 9 reason from koordinator.sh/evict-reason",
            fx().running()
                .ann("koordinator.sh/evict-reason", "node drain")
                .ann("koordinator.sh/evict-trigger", "t"),
            removal(Removal::Evict(None), "node drain"),
        ),
        (
            "§2 step 9 reason from koordinator.sh/evict-trigger when no reason",
            fx().running()
                .ann("koordinator.sh/evict-trigger", "LowNodeLoad"),
            removal(Removal::Evict(None), "LowNodeLoad"),
        ),
        (
            "§4 Delete from the pod's label",
            fx().running()
                .pod_label("fleet-eviction.io/evict-policy", "Delete"),
            removal(Removal::Delete(None), "NotSet"),
        ),
        (
            "§4 SoftEviction from Koordinator's pod label: the annotation body",
            fx().running()
                .pod_label("koordinator.sh/evict-policy", "SoftEviction")
                .ann("koordinator.sh/evict-trigger", "LowNodeLoad"),
            removal(
                Removal::SoftEvict {
                    annotation: format!(
                        "{{\"timestamp\":\"{}\",\"initiator\":\"LowNodeLoad\",\"reason\":\"LowNodeLoad\"}}",
                        text(60)
                    ),
                },
                "LowNodeLoad",
            ),
        ),
        (
            "§4 the job's label when the pod names none",
            fx().running()
                .job_label("fleet-eviction.io/evict-policy", "Delete"),
            removal(Removal::Delete(None), "NotSet"),
        ),
        (
            "§4 the controller default when nothing names one",
            Fx {
                settings: Settings {
                    default_policy: EvictPolicy::Delete,
                    ..Settings::default()
                },
                ..fx().running()
            },
            removal(Removal::Delete(None), "NotSet"),
        ),
        (
            "§2 finalizer only once we are about to hold something: External adds it first",
            fx().running().pod_label(EXTERNAL.0, EXTERNAL.1),
            job_update(JobUpdate {
                add_finalizer: true,
                ..Default::default()
            }),
        ),
        (
            "§4 External: block and signal, ExternalEvacuation=Unknown/Requested",
            fx().running().pod_label(EXTERNAL.0, EXTERNAL.1).finalizer(),
            hand_off_step(),
        ),
        (
            "§2 step 9 refused earlier: wait for the retry time",
            Fx {
                retry_at: Some(t(64)),
                ..fx().running().ttl("10m")
            },
            waits(Some(64), Waiting::EvictionBackoff),
        ),
        (
            "§2 step 9 a retry after the ttl wakes at the ttl",
            Fx {
                retry_at: Some(t(90)),
                ..fx().running().ttl("80s")
            },
            waits(Some(80), Waiting::EvictionBackoff),
        ),
        (
            "§2 step 9 retry time passed: evict again",
            Fx {
                retry_at: Some(t(60)),
                ..fx().running()
            },
            removal(Removal::Evict(None), "NotSet"),
        ),
        // Step 10 and the hand-off's answers.
        (
            "§2 step 10 evicting, pod still there: wait for it to go",
            fx().running()
                .cond("Eviction", "False", "Evicting", "m")
                .ttl("10m"),
            waits(Some(600), Waiting::PodTermination),
        ),
        (
            "§2 step 10 evicted, pod gone: Eviction=True, Succeeded/Complete",
            fx().running()
                .cond("Eviction", "False", "Evicting", "m")
                .no_pod(),
            succeeded(true),
        ),
        (
            "§2 step 10 evicted, same name with a new uid: success",
            fx().running()
                .cond("Eviction", "False", "Evicting", "m")
                .pod_uid("uid-2"),
            succeeded(true),
        ),
        (
            "§2 step 10 Eviction=True while Running (Koordinator's two writes): finish, no second event",
            fx().running().cond("Eviction", "True", "EvictComplete", ""),
            succeeded(false),
        ),
        (
            "§2 step 10 the pod left before we acted: MissingPod",
            fx().running().gates(&["A"]).no_pod(),
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "restart: started by us, cleared by its gates, pod gone with no record: evicted (confirmed first)",
            fx().running().no_pod(),
            {
                let JobStep::Apply(mut plan) = succeeded(true) else {
                    unreachable!("succeeded() applies a plan")
                };
                plan.confirm_absence = true;
                JobStep::Apply(plan)
            },
        ),
        (
            "restart rule not applied to a job seen refused: MissingPod",
            Fx {
                retry_at: Some(t(90)),
                ..fx().running().no_pod()
            },
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "restart rule not applied when an action found the pod gone: MissingPod",
            Fx {
                pod_left_first: true,
                ..fx().running().no_pod()
            },
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "restart rule not applied to a job never started by us (no uid): MissingPod",
            fx().phase("Running")
                .ann(PASSED_ARBITRATION, "true")
                .no_pod(),
            failed_with("MissingPod", &missing_pod(NS, POD), None, true),
        ),
        (
            "§4 External step 3 signalled: wait for the answer, gates not checked again",
            fx().running()
                .gates(&["A"])
                .cond("A", "False", "", "too late")
                .handed_off()
                .cond("ExternalEvacuation", "Unknown", "Requested", "m")
                .ttl("10m"),
            waits(Some(600), Waiting::ExternalEvacuation),
        ),
        (
            "§4 External step 4 signalled, pod gone: success",
            fx().running()
                .handed_off()
                .cond("ExternalEvacuation", "Unknown", "Requested", "m")
                .no_pod(),
            succeeded(true),
        ),
        (
            "§4 External step 3 ExternalEvacuation=True: we delete the pod",
            {
                let mut f =
                    fx().running()
                        .handed_off()
                        .cond("ExternalEvacuation", "True", "Done", "");
                f.job.spec.delete_options = Some(grace.clone());
                f
            },
            removal(Removal::Delete(Some(grace.clone())), "NotSet"),
        ),
        (
            "§4 External step 3 ExternalEvacuation=False: ExternalEvacuationFailed, cleaned up",
            fx().running().handed_off().cond(
                "ExternalEvacuation",
                "False",
                "GaveUp",
                "volume cannot move",
            ),
            failed_with(
                "ExternalEvacuationFailed",
                &external_failed("volume cannot move"),
                Some(full_cleanup()),
                false,
            ),
        ),
        (
            "§4 signal on the pod but its status write was lost: write it, no second hand-off",
            fx().running()
                .pod_label(EXTERNAL.0, EXTERNAL.1)
                .handed_off(),
            JobStep::apply(Plan::status(
                external_requested_status(),
                vec![requested_event()],
            )),
        ),
    ];
    for (rule, f, want) in rows {
        assert_eq!(next_step(&f.facts()), want, "rule: {rule}");
    }
}

#[test]
fn refusal_table() {
    let f = fx().running();
    let status = "Cannot evict pod as it would violate the pod's disruption budget.";
    let rows = [
        ("first refusal: retry after 1 s", 1, 61),
        ("third refusal: 4 s", 3, 64),
        ("capped at 30 s", 9, 90),
    ];
    for (rule, refusals, retry) in rows {
        let got = refused(&f.facts(), refusals, status);
        assert_eq!(got.retry_at, t(retry), "rule: {rule}");
        assert_eq!(
            got.event,
            job_event(true, "Evicting", &evict_failed(NS, POD, status)),
            "rule: {rule}: Warning Evicting with the Status message"
        );
    }
}

#[path = "next_step_scenarios.rs"]
mod scenarios;
