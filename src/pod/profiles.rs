//! §3 Profiles: the gates PodMigrationJobProfiles add to a job when it starts running.
//!
//! A profile applies when both its selectors match (the namespace's labels, the pod's labels;
//! absent = everything). The job's gates become the union by name: the user's entries first in
//! their order, then each applying profile's entries in profile-name order, duplicates skipped,
//! nothing removed. A profile with an invalid selector is skipped and reported.

use std::collections::BTreeMap;

use super::selector;
use crate::api::gate::EvictionCondition;
use crate::api::profile::PodMigrationJobProfile;

/// What the profiles add to one job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Injection {
    /// The job's gates after the merge.
    pub gates: Vec<EvictionCondition>,
    /// The profiles that apply to the job, in name order: the value of
    /// `fleet-eviction.io/profiles`. A profile counts once it applies, even if every gate it
    /// lists was already on the job, so the annotation answers "which policies cover this job".
    pub applied: Vec<String>,
    /// Profiles skipped for an invalid selector, in name order.
    pub skipped: Vec<SkippedProfile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedProfile {
    pub profile: String,
    /// The Warning event's message (`messages::invalid_selector`).
    pub message: String,
}

/// Merges the applying profiles' gates into `job_gates`.
pub fn inject(
    job_gates: &[EvictionCondition],
    profiles: &[PodMigrationJobProfile],
    namespace_labels: &BTreeMap<String, String>,
    pod_labels: &BTreeMap<String, String>,
) -> Injection {
    let mut ordered: Vec<&PodMigrationJobProfile> = profiles.iter().collect();
    ordered.sort_by(|a, b| name(a).cmp(name(b)));
    let mut injection = Injection {
        gates: job_gates.to_vec(),
        ..Injection::default()
    };
    for profile in ordered {
        match applies(profile, namespace_labels, pod_labels) {
            Err(message) => injection.skipped.push(SkippedProfile {
                profile: name(profile).to_string(),
                message,
            }),
            Ok(false) => {}
            Ok(true) => {
                injection.applied.push(name(profile).to_string());
                for gate in profile.spec.eviction_conditions.iter().flatten() {
                    if !injection.gates.iter().any(|g| g.name == gate.name) {
                        injection.gates.push(gate.clone());
                    }
                }
            }
        }
    }
    injection
}

/// Whether `profile` applies; `Err` is the message of the Warning event for its invalid
/// selector. Both selectors are checked, so a broken one is reported even when the other
/// does not match.
pub fn applies(
    profile: &PodMigrationJobProfile,
    namespace_labels: &BTreeMap<String, String>,
    pod_labels: &BTreeMap<String, String>,
) -> Result<bool, String> {
    let spec = &profile.spec;
    let namespace = selector::matches(spec.namespace_selector.as_ref(), namespace_labels)
        .map_err(|why| super::messages::invalid_selector("namespaceSelector", &why))?;
    let pod = selector::matches(spec.selector.as_ref(), pod_labels)
        .map_err(|why| super::messages::invalid_selector("selector", &why))?;
    Ok(namespace && pod)
}

/// The value of `fleet-eviction.io/profiles`: comma-separated, as given (name order). Empty
/// when none applied: the annotation is written anyway, as the record that injection is done.
pub fn annotation_value(applied: &[String]) -> String {
    applied.join(",")
}

fn name(profile: &PodMigrationJobProfile) -> &str {
    profile.metadata.name.as_deref().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::profile::PodMigrationJobProfileSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn gates(names: &[&str]) -> Vec<EvictionCondition> {
        names.iter().map(|n| EvictionCondition::new(*n)).collect()
    }

    fn matching(pairs: &[(&str, &str)]) -> Option<LabelSelector> {
        Some(LabelSelector {
            match_labels: Some(labels(pairs)),
            match_expressions: None,
        })
    }

    fn broken() -> Option<LabelSelector> {
        Some(LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "app".into(),
                operator: "Equals".into(),
                values: Some(vec!["web".into()]),
            }]),
        })
    }

    fn profile(
        name: &str,
        namespace_selector: Option<LabelSelector>,
        selector: Option<LabelSelector>,
        gate_names: &[&str],
    ) -> PodMigrationJobProfile {
        PodMigrationJobProfile::new(
            name,
            PodMigrationJobProfileSpec {
                namespace_selector,
                selector,
                eviction_conditions: (!gate_names.is_empty()).then(|| gates(gate_names)),
            },
        )
    }

    fn names(gates: &[EvictionCondition]) -> Vec<&str> {
        gates.iter().map(|g| g.name.as_str()).collect()
    }

    #[test]
    fn injection_table() {
        // Namespace `shop` (env=prod), pod app=web.
        type Row<'a> = (
            &'a str,
            Vec<&'a str>,
            Vec<PodMigrationJobProfile>,
            Vec<&'a str>,
            Vec<&'a str>,
            Vec<&'a str>,
        );
        let rows: Vec<Row> = vec![
            (
                "no profiles: the user's gates as they are",
                vec!["B", "A"],
                vec![],
                vec!["B", "A"],
                vec![],
                vec![],
            ),
            (
                "absent selectors apply to every job",
                vec![],
                vec![profile("p", None, None, &["X"])],
                vec!["X"],
                vec!["p"],
                vec![],
            ),
            (
                "both selectors must match: namespace matches, pod does not",
                vec![],
                vec![profile(
                    "p",
                    matching(&[("env", "prod")]),
                    matching(&[("app", "db")]),
                    &["X"],
                )],
                vec![],
                vec![],
                vec![],
            ),
            (
                "both selectors must match: pod matches, namespace does not",
                vec![],
                vec![profile(
                    "p",
                    matching(&[("env", "dev")]),
                    matching(&[("app", "web")]),
                    &["X"],
                )],
                vec![],
                vec![],
                vec![],
            ),
            (
                "both selectors match",
                vec![],
                vec![profile(
                    "p",
                    matching(&[("env", "prod")]),
                    matching(&[("app", "web")]),
                    &["X"],
                )],
                vec!["X"],
                vec!["p"],
                vec![],
            ),
            (
                "user entries first in their order, then profiles in name order",
                vec!["U2", "U1"],
                vec![
                    profile("zeta", None, None, &["Z"]),
                    profile("alpha", None, None, &["A2", "A1"]),
                ],
                vec!["U2", "U1", "A2", "A1", "Z"],
                vec!["alpha", "zeta"],
                vec![],
            ),
            (
                "duplicates are skipped, the first place wins",
                vec!["Shared"],
                vec![
                    profile("a", None, None, &["Shared", "X"]),
                    profile("b", None, None, &["X", "Y"]),
                ],
                vec!["Shared", "X", "Y"],
                vec!["a", "b"],
                vec![],
            ),
            (
                "a profile whose gates are all present still applies",
                vec!["X"],
                vec![profile("a", None, None, &["X"])],
                vec!["X"],
                vec!["a"],
                vec![],
            ),
            (
                "a profile without gates applies and adds nothing",
                vec!["U"],
                vec![profile("a", None, None, &[])],
                vec!["U"],
                vec!["a"],
                vec![],
            ),
            (
                "an invalid pod selector skips the profile and reports it",
                vec!["U"],
                vec![
                    profile("bad", None, broken(), &["X"]),
                    profile("good", None, None, &["Y"]),
                ],
                vec!["U", "Y"],
                vec!["good"],
                vec!["bad"],
            ),
            (
                "an invalid namespace selector is reported even if the pod selector does not match",
                vec![],
                vec![profile("bad", broken(), matching(&[("app", "db")]), &["X"])],
                vec![],
                vec![],
                vec!["bad"],
            ),
        ];
        let namespace = labels(&[("env", "prod"), ("kubernetes.io/metadata.name", "shop")]);
        let pod = labels(&[("app", "web")]);
        for (rule, user, profiles, want_gates, want_applied, want_skipped) in rows {
            let got = inject(&gates(&user), &profiles, &namespace, &pod);
            assert_eq!(names(&got.gates), want_gates, "rule: {rule}");
            assert_eq!(got.applied, want_applied, "rule: {rule}");
            let skipped: Vec<&str> = got.skipped.iter().map(|s| s.profile.as_str()).collect();
            assert_eq!(skipped, want_skipped, "rule: {rule}");
        }
    }

    #[test]
    fn skipped_profile_message_names_the_selector() {
        let got = inject(
            &[],
            &[profile("bad", broken(), None, &["X"])],
            &BTreeMap::new(),
            &BTreeMap::new(),
        );
        assert_eq!(
            got.skipped,
            vec![SkippedProfile {
                profile: "bad".into(),
                message: "Profile skipped: invalid namespaceSelector: \"Equals\" is not a valid label selector operator".into(),
            }]
        );
    }

    #[test]
    fn annotation_value_table() {
        let rows: [(&str, &[&str], &str); 3] = [
            (
                "none applied: empty, still the record that injection ran",
                &[],
                "",
            ),
            ("one", &["a"], "a"),
            ("comma-separated without spaces", &["a", "b", "c"], "a,b,c"),
        ];
        for (rule, applied, want) in rows {
            let applied: Vec<String> = applied.iter().map(|s| s.to_string()).collect();
            assert_eq!(annotation_value(&applied), want, "rule: {rule}");
        }
    }
}
