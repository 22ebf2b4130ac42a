//! Whole runs of a job: a small world applies each step the way the executor does (the pod
//! action, then the job update, then the status merged with `status::apply`, then the events)
//! and decides again until the decision waits. Every write is checked against the rules the
//! spec puts on writes.

use super::*;
use crate::pod::status;

struct World {
    rule: &'static str,
    f: Fx,
    events: Vec<EventNote>,
    /// The pod actions taken, in order.
    actions: Vec<PodAction>,
}

fn world(rule: &'static str, f: Fx) -> World {
    World {
        rule,
        f,
        events: vec![],
        actions: vec![],
    }
}

impl World {
    /// Decides and applies until the decision is not an `Apply`, and returns that decision.
    fn run(&mut self) -> JobStep {
        for _ in 0..20 {
            match next_step(&self.f.facts()) {
                JobStep::Apply(plan) => self.apply(*plan),
                other => return other,
            }
        }
        panic!("{}: no fixed point after 20 steps", self.rule);
    }

    fn apply(&mut self, plan: Plan) {
        let rule = self.rule;
        if plan.confirm_absence {
            assert!(
                self.f.pod.is_none(),
                "{rule}: confirmed absence of a present pod"
            );
        }
        if let Some(action) = plan.action {
            self.act(&action);
            self.actions.push(action);
        }
        if let Some(update) = plan.job {
            let meta = &mut self.f.job.metadata;
            let finalizers = meta.finalizers.get_or_insert_default();
            if update.add_finalizer {
                assert!(
                    !finalizers.iter().any(|x| x == FINALIZER),
                    "{rule}: finalizer twice"
                );
                finalizers.push(s(FINALIZER));
            }
            if update.remove_finalizer {
                finalizers.retain(|x| x != FINALIZER);
            }
            let annotations = meta.annotations.get_or_insert_default();
            for (k, v) in update.annotations {
                annotations.insert(s(k), v);
            }
            if let Some(uid) = update.pod_uid
                && let Some(r) = self.f.job.spec.pod_ref.as_mut()
            {
                r.uid = Some(uid);
            }
            if let Some(gates) = update.eviction_conditions {
                self.f.job.spec.eviction_conditions = Some(gates);
            }
        }
        if let Some(change) = plan.status {
            for c in &change.conditions {
                assert!(
                    ["Eviction", "ExternalEvacuation"].contains(&c.type_),
                    "{rule}: wrote a condition we do not own: {c:?}"
                );
                if c.type_ == "ExternalEvacuation" {
                    assert_eq!(
                        c.status, "Unknown",
                        "{rule}: the verdict is the external controller's"
                    );
                }
            }
            if change.phase == Some(PodMigrationJobPhase::Failed) {
                assert_eq!(
                    change.status, None,
                    "{rule}: an abort leaves status.status alone"
                );
            }
            let merged = status::apply(self.f.job.status.as_ref(), &change, self.f.now);
            self.f.job.status = Some(merged);
        }
        self.events.extend(plan.events);
    }

    fn act(&mut self, action: &PodAction) {
        let rule = self.rule;
        match action {
            // The pod goes when the test says so, as it would after its grace period.
            PodAction::Remove { pod, .. } => {
                assert_eq!(
                    pod.uid,
                    self.f.pod.as_ref().map_or("", |p| p.uid.as_str()),
                    "{rule}"
                );
            }
            PodAction::HandOff(h) => {
                assert!(
                    self.f
                        .job
                        .metadata
                        .finalizers
                        .iter()
                        .flatten()
                        .any(|x| x == FINALIZER),
                    "{rule}: hand-off before the finalizer"
                );
                self.f.pdb = Some(PdbView {
                    name: h.pdb.clone(),
                    uid: s("pdb-uid"),
                    evacuation: Some(h.label.clone()),
                });
                if let Some(p) = self.f.pod.as_mut() {
                    p.evacuation_label = Some(h.label.clone());
                    p.evacuation_requested = Some(h.job.clone());
                }
            }
            PodAction::Cleanup(c) => {
                if c.pdb.is_some() {
                    self.f.pdb = None;
                }
                if let (Some(marks), Some(p)) = (&c.pod, self.f.pod.as_mut()) {
                    if marks.label {
                        p.evacuation_label = None;
                    }
                    if marks.annotations {
                        p.evacuation_requested = None;
                    }
                }
            }
        }
    }

    fn status(&self) -> PodMigrationJobStatus {
        self.f.job.status.clone().unwrap_or_default()
    }

    fn set_condition(&mut self, type_: &str, status: &str, message: &str) {
        let conditions = &mut self.f.job.status.get_or_insert_default().conditions;
        conditions.retain(|c| c.type_ != type_);
        conditions.push(PodMigrationJobCondition {
            type_: s(type_),
            status: s(status),
            message: Some(s(message)),
            ..Default::default()
        });
    }

    fn annotation(&self, key: &str) -> Option<String> {
        self.f.job.metadata.annotations.as_ref()?.get(key).cloned()
    }

    fn has_finalizer(&self) -> bool {
        self.f
            .job
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|x| x == FINALIZER)
    }

    fn event_reasons(&self) -> Vec<String> {
        self.events.iter().map(|e| e.reason.clone()).collect()
    }
}

fn types(status: &PodMigrationJobStatus) -> Vec<(String, String)> {
    status
        .conditions
        .iter()
        .map(|c| (c.type_.clone(), c.status.clone()))
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (s(a), s(b))
}

#[test]
fn gated_eviction_runs_to_success_and_collection() {
    let mut w = world("gated eviction", fx().gates(&["Drained"]).ttl("10m"));
    assert_eq!(w.run(), waits(Some(600), Waiting::EvictionConditions));
    let st = w.status();
    assert_eq!(st.phase, Some(PodMigrationJobPhase::Running));
    assert_eq!(st.status.as_deref(), Some("WaitForEvictionConditions"));
    assert_eq!(st.reason.as_deref(), Some("WaitForEvictionConditions"));
    assert_eq!(st.message, Some(waiting(&["Drained"])));
    assert!(st.conditions.is_empty(), "waiting adds no condition");
    assert_eq!(w.annotation(PASSED_ARBITRATION).as_deref(), Some("true"));
    assert_eq!(recorded(&w), Some(UID));

    w.set_condition("Drained", "True", "traffic moved");
    w.f.now = t(120);
    assert_eq!(w.run(), waits(Some(600), Waiting::PodTermination));
    let st = w.status();
    assert_eq!(
        st.status.as_deref(),
        Some("Eviction"),
        "mirrors the Eviction condition"
    );
    assert_eq!(st.reason.as_deref(), Some("Evicting"));
    assert_eq!(st.message, Some(evicting(NS, POD, NODE, "NotSet")));
    assert_eq!(
        types(&st),
        vec![pair("Drained", "True"), pair("Eviction", "False")]
    );
    assert!(matches!(
        w.actions.as_slice(),
        [PodAction::Remove {
            how: Removal::Evict(None),
            ..
        }]
    ));

    w.f.pod = None;
    w.f.now = t(130);
    assert_eq!(w.run(), waits(Some(130 + 1800), Waiting::GarbageCollection));
    let st = w.status();
    assert_eq!(st.phase, Some(PodMigrationJobPhase::Succeeded));
    assert_eq!(st.status.as_deref(), Some("Complete"));
    assert_eq!(st.reason, None, "reason cleared");
    assert_eq!(st.message, Some(evicted(NS, POD)));
    assert_eq!(
        types(&st),
        vec![pair("Drained", "True"), pair("Eviction", "True")]
    );
    assert_eq!(
        st.conditions[1].reason.as_deref(),
        Some("EvictComplete"),
        "Eviction=True reason EvictComplete"
    );
    assert_eq!(w.annotation(FINISHED_AT), Some(text(130)));
    assert_eq!(
        w.event_reasons(),
        vec![
            "WaitForEvictionConditions",
            "Evicting",
            "Descheduled",
            "EvictComplete"
        ]
    );
    assert!(
        !w.has_finalizer(),
        "no finalizer without an External hand-off"
    );

    w.f.now = t(130 + 1800);
    assert_eq!(w.run(), JobStep::DeleteJob);
}

fn recorded(w: &World) -> Option<&str> {
    w.f.job.spec.pod_ref.as_ref()?.uid.as_deref()
}

#[test]
fn external_hand_off_runs_to_success_and_cleans_up() {
    let mut w = world(
        "external success",
        fx().pod_label(EXTERNAL.0, EXTERNAL.1).ttl("10m"),
    );
    assert_eq!(w.run(), waits(Some(600), Waiting::ExternalEvacuation));
    assert!(w.has_finalizer());
    assert_eq!(w.f.pdb.as_ref().map(|p| p.name.as_str()), Some(PDB));
    let pod = w.f.pod.clone().unwrap_or_default();
    assert_eq!(pod.evacuation_label.as_deref(), Some(JOB));
    assert_eq!(pod.evacuation_requested.as_deref(), Some(JOB));
    let st = w.status();
    assert_eq!(types(&st), vec![pair("ExternalEvacuation", "Unknown")]);
    assert_eq!(st.reason.as_deref(), Some("Requested"));
    assert_eq!(st.message, Some(external_requested(NS, POD)));

    // "Done, remove it for me": we DELETE the pod.
    w.set_condition("ExternalEvacuation", "True", "migrated");
    assert_eq!(w.run(), waits(Some(600), Waiting::PodTermination));
    assert!(matches!(
        w.actions.last(),
        Some(PodAction::Remove {
            how: Removal::Delete(None),
            ..
        })
    ));
    assert_eq!(
        types(&w.status()),
        vec![
            pair("ExternalEvacuation", "True"),
            pair("Eviction", "False")
        ]
    );

    // The pod goes; its PDB lingers until the garbage collector removes it.
    w.f.pod = None;
    w.f.now = t(200);
    assert_eq!(w.run(), waits(Some(200 + 1800), Waiting::GarbageCollection));
    assert_eq!(w.status().phase, Some(PodMigrationJobPhase::Succeeded));
    assert_eq!(w.f.pdb, None, "our PDB removed after success");
    assert!(!w.has_finalizer(), "finalizer dropped after cleanup");
    assert_eq!(
        w.event_reasons(),
        vec![
            "ExternalEvacuationRequested",
            "Evicting",
            "Descheduled",
            "EvictComplete"
        ]
    );
}

#[test]
fn ttl_during_the_hand_off_fails_and_cleans_up() {
    let mut w = world(
        "external timeout",
        fx().pod_label(EXTERNAL.0, EXTERNAL.1).ttl("5m"),
    );
    assert_eq!(w.run(), waits(Some(300), Waiting::ExternalEvacuation));
    w.f.now = t(300);
    assert_eq!(w.run(), waits(Some(300 + 1800), Waiting::GarbageCollection));
    let st = w.status();
    assert_eq!(st.phase, Some(PodMigrationJobPhase::Failed));
    assert_eq!(
        st.status.as_deref(),
        Some("ExternalEvacuation"),
        "abort leaves status.status"
    );
    assert_eq!(st.reason.as_deref(), Some("Timeout"));
    assert_eq!(st.message.as_deref(), Some(TIMEOUT));
    assert_eq!(w.f.pdb, None);
    let pod = w.f.pod.clone().unwrap_or_default();
    assert_eq!(
        (pod.evacuation_label, pod.evacuation_requested),
        (None, None)
    );
    assert!(!w.has_finalizer());
    assert_eq!(
        w.events.last().map(|e| (e.warning, e.reason.as_str())),
        Some((true, "Timeout"))
    );
}

#[test]
fn external_failure_fails_and_cleans_up() {
    let mut w = world("external failure", fx().pod_label(EXTERNAL.0, EXTERNAL.1));
    assert_eq!(w.run(), waits(None, Waiting::ExternalEvacuation));
    w.set_condition("ExternalEvacuation", "False", "volume cannot move");
    assert_eq!(w.run(), waits(Some(60 + 1800), Waiting::GarbageCollection));
    let st = w.status();
    assert_eq!(st.phase, Some(PodMigrationJobPhase::Failed));
    assert_eq!(st.reason.as_deref(), Some("ExternalEvacuationFailed"));
    assert_eq!(st.message, Some(external_failed("volume cannot move")));
    assert_eq!(
        types(&st),
        vec![pair("ExternalEvacuation", "False")],
        "the verdict is kept"
    );
    assert_eq!(w.f.pdb, None);
    assert!(!w.has_finalizer());
}

#[test]
fn a_lost_running_write_neither_re_admits_nor_injects_twice() {
    let mut f = with_profiles(fx(), vec![profile("p", None, &["X"])]);
    // The job update of the start went through, its status write did not.
    let JobStep::Apply(plan) = next_step(&f.facts()) else {
        panic!("expected a start");
    };
    let mut w = world("lost write", f.clone());
    w.apply(Plan {
        status: None,
        ..*plan
    });
    f = w.f;
    f.admission = Admission::Wait;
    f.profiles = vec![profile("p", None, &["X", "Y"])];
    assert_eq!(next_step(&f.facts()), start(JobUpdate::default(), vec![]));
    assert_eq!(
        f.job.spec.eviction_conditions,
        Some(gate_list(&["X"])),
        "§3 later profile edits do not touch a started job"
    );
}

#[test]
fn a_job_name_too_long_for_a_label_still_hands_off_and_cleans_up() {
    let long = format!("{JOB}-{}", "x".repeat(70));
    let mut f = fx().pod_label(EXTERNAL.0, EXTERNAL.1).ttl("5m");
    f.job.metadata.name = Some(long.clone());
    let mut w = world("long name", f);
    assert_eq!(w.run(), waits(Some(300), Waiting::ExternalEvacuation));
    let pod = w.f.pod.clone().unwrap_or_default();
    let label = pod.evacuation_label.unwrap_or_default();
    assert!(
        label.len() <= 63,
        "a label value holds at most 63 characters: {label}"
    );
    assert_eq!(
        w.f.pdb.as_ref().map(|p| p.name.as_str()),
        Some(label.as_str())
    );
    assert_eq!(
        pod.evacuation_requested,
        Some(long),
        "the annotation names the job in full"
    );
    w.f.now = t(300);
    w.run();
    assert_eq!(w.f.pdb, None);
    let pod = w.f.pod.clone().unwrap_or_default();
    assert_eq!(
        (pod.evacuation_label, pod.evacuation_requested),
        (None, None)
    );
    assert!(!w.has_finalizer());
}
