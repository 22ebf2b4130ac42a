//! Which members are registered: a member exists iff its MemberCluster and exactly one
//! Secret labelled with its name are both on the hub. The pairing is a pure function of what
//! the watches hold.

use std::collections::{BTreeMap, BTreeSet};

use super::kubeconfig::KubeconfigProblem;

/// What the registry keeps of a labelled Secret: never the whole object (other keys may hold
/// credentials of their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretView {
    pub name: String,
    /// The value of the member-cluster label.
    pub member: String,
    /// The `kubeconfig` key's bytes, or why they cannot be had.
    pub kubeconfig: Result<Vec<u8>, KubeconfigProblem>,
}

/// How one member name pairs up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairing<'a> {
    Complete(&'a SecretView),
    MissingSecret,
    MissingMemberCluster {
        secrets: Vec<String>,
    },
    /// Several Secrets name the member: which credentials to use is not ours to guess.
    ConflictingSecrets(Vec<String>),
}

/// Every member name either side mentions, with its pairing. `secrets` is keyed by Secret
/// name, so the names in a pairing come out sorted.
pub fn pair<'a>(
    member_clusters: &BTreeSet<String>,
    secrets: &'a BTreeMap<String, SecretView>,
) -> BTreeMap<String, Pairing<'a>> {
    let mut by_member: BTreeMap<&str, Vec<&'a SecretView>> = BTreeMap::new();
    for secret in secrets.values() {
        by_member.entry(&secret.member).or_default().push(secret);
    }
    let mut out = BTreeMap::new();
    for name in member_clusters {
        let pairing = match by_member.remove(name.as_str()).as_deref() {
            None | Some([]) => Pairing::MissingSecret,
            Some([one]) => Pairing::Complete(one),
            Some(many) => Pairing::ConflictingSecrets(names(many)),
        };
        out.insert(name.clone(), pairing);
    }
    // Secrets left over name no MemberCluster.
    for (member, secrets) in by_member {
        out.insert(
            member.to_string(),
            Pairing::MissingMemberCluster {
                secrets: names(&secrets),
            },
        );
    }
    out
}

fn names(secrets: &[&SecretView]) -> Vec<String> {
    secrets.iter().map(|s| s.name.clone()).collect()
}

/// The state of one member name, as the registry reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// Both are present and the kubeconfig built a client: the member's work runs.
    Complete,
    MissingSecret,
    MissingMemberCluster {
        secrets: Vec<String>,
    },
    ConflictingSecrets(Vec<String>),
    /// The full message, naming the member, the Secret and the field.
    InvalidKubeconfig(String),
}

impl Registration {
    /// Every state, in the order of [`Registration::state`]'s labels.
    pub const STATES: [&'static str; 5] = [
        "complete",
        "missing_secret",
        "missing_member_cluster",
        "conflicting_secrets",
        "invalid_kubeconfig",
    ];

    /// The `state` label of `fleet_eviction_member_registrations`.
    pub fn state(&self) -> &'static str {
        match self {
            Registration::Complete => Self::STATES[0],
            Registration::MissingSecret => Self::STATES[1],
            Registration::MissingMemberCluster { .. } => Self::STATES[2],
            Registration::ConflictingSecrets(_) => Self::STATES[3],
            Registration::InvalidKubeconfig(_) => Self::STATES[4],
        }
    }

    /// A sentence for the log, naming what is missing or wrong.
    pub fn describe(&self, member: &str, namespace: &str) -> String {
        match self {
            Registration::Complete => format!("member {member} is registered"),
            Registration::MissingSecret => format!(
                "member {member} is not registered: it has a MemberCluster but no Secret in \
                 {namespace} labelled {}={member}",
                crate::api::keys::MEMBER_CLUSTER_LABEL
            ),
            Registration::MissingMemberCluster { secrets } => format!(
                "member {member} is not registered: Secret {} in {namespace} names it but there \
                 is no MemberCluster {member:?}",
                secrets.join(", ")
            ),
            Registration::ConflictingSecrets(secrets) => format!(
                "member {member} is not registered: several Secrets in {namespace} name it ({}); \
                 keep exactly one",
                secrets.join(", ")
            ),
            Registration::InvalidKubeconfig(message) => {
                format!("member {member} is not registered: {message}")
            }
        }
    }
}

impl<'a> Pairing<'a> {
    /// The Secret of a complete pairing, else the registration that says what is missing.
    /// (A complete pairing's registration depends on whether its kubeconfig builds a client.)
    pub fn complete(&self) -> Result<&'a SecretView, Registration> {
        match self {
            Pairing::Complete(secret) => Ok(secret),
            Pairing::MissingSecret => Err(Registration::MissingSecret),
            Pairing::MissingMemberCluster { secrets } => Err(Registration::MissingMemberCluster {
                secrets: secrets.clone(),
            }),
            Pairing::ConflictingSecrets(secrets) => {
                Err(Registration::ConflictingSecrets(secrets.clone()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str, member: &str) -> SecretView {
        SecretView {
            name: name.into(),
            member: member.into(),
            kubeconfig: Ok(b"k".to_vec()),
        }
    }

    fn summary(pairing: &Pairing<'_>) -> String {
        match pairing {
            Pairing::Complete(s) => format!("complete:{}", s.name),
            Pairing::MissingSecret => "missing_secret".into(),
            Pairing::MissingMemberCluster { secrets } => {
                format!("missing_member_cluster:{}", secrets.join(","))
            }
            Pairing::ConflictingSecrets(s) => format!("conflicting:{}", s.join(",")),
        }
    }

    /// MemberCluster names, (Secret, member label) pairs, (member, pairing) pairs, the rule.
    type PairingRow<'a> = (
        &'a [&'a str],
        &'a [(&'a str, &'a str)],
        &'a [(&'a str, &'a str)],
        &'a str,
    );

    #[test]
    fn pairing_table() {
        let rows: &[PairingRow] = &[
            (
                &["a"],
                &[("a-kc", "a")],
                &[("a", "complete:a-kc")],
                "both present",
            ),
            (
                &["a"],
                &[],
                &[("a", "missing_secret")],
                "MemberCluster alone",
            ),
            (
                &[],
                &[("a-kc", "a")],
                &[("a", "missing_member_cluster:a-kc")],
                "Secret alone",
            ),
            (
                &["a"],
                &[("a-kc", "a"), ("a-old", "a")],
                &[("a", "conflicting:a-kc,a-old")],
                "two Secrets for one member",
            ),
            (
                &[],
                &[("a-kc", "a"), ("a-old", "a")],
                &[("a", "missing_member_cluster:a-kc,a-old")],
                "without a MemberCluster the missing object is reported first",
            ),
            (
                &["a", "b"],
                &[("any-name", "b"), ("x", "c")],
                &[
                    ("a", "missing_secret"),
                    ("b", "complete:any-name"),
                    ("c", "missing_member_cluster:x"),
                ],
                "the label pairs, not the Secret's name; members are independent",
            ),
            (
                &[],
                &[("blank", "")],
                &[("", "missing_member_cluster:blank")],
                "an empty label value names no MemberCluster",
            ),
        ];
        for (clusters, secrets, want, rule) in rows {
            let clusters: BTreeSet<String> = clusters.iter().map(|c| c.to_string()).collect();
            let secrets: BTreeMap<String, SecretView> = secrets
                .iter()
                .map(|(name, member)| (name.to_string(), secret(name, member)))
                .collect();
            let got: Vec<(String, String)> = pair(&clusters, &secrets)
                .iter()
                .map(|(member, p)| (member.clone(), summary(p)))
                .collect();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(m, s)| (m.to_string(), s.to_string()))
                .collect();
            assert_eq!(got, want, "rule: {rule}");
        }
    }

    #[test]
    fn messages_name_what_is_missing() {
        let ns = "fleet-eviction-system";
        let rows = [
            (
                Registration::MissingSecret,
                "member a is not registered: it has a MemberCluster but no Secret in \
                 fleet-eviction-system labelled fleet-eviction.io/member-cluster=a",
            ),
            (
                Registration::MissingMemberCluster {
                    secrets: vec!["a-kc".into()],
                },
                "member a is not registered: Secret a-kc in fleet-eviction-system names it but \
                 there is no MemberCluster \"a\"",
            ),
            (
                Registration::ConflictingSecrets(vec!["a-kc".into(), "a-old".into()]),
                "member a is not registered: several Secrets in fleet-eviction-system name it \
                 (a-kc, a-old); keep exactly one",
            ),
        ];
        for (registration, want) in rows {
            assert_eq!(registration.describe("a", ns), want);
        }
    }

    #[test]
    fn every_state_has_its_label() {
        let all = [
            Registration::Complete,
            Registration::MissingSecret,
            Registration::MissingMemberCluster { secrets: vec![] },
            Registration::ConflictingSecrets(vec![]),
            Registration::InvalidKubeconfig(String::new()),
        ];
        let labels: Vec<&str> = all.iter().map(Registration::state).collect();
        assert_eq!(labels, Registration::STATES);
    }
}
