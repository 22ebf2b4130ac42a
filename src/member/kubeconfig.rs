//! A member's client, built from the kubeconfig in its Secret.
//!
//! Only inline credentials are accepted: the files a kubeconfig names are not in the
//! controller's container, and an `exec` or `auth-provider` plugin would run a program of the
//! Secret author's choosing inside the controller. Both are refused, naming the field, before
//! kube sees the kubeconfig (kube would read the files), so building a member's client never
//! touches the local filesystem.

use std::fmt;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::runtime::error_chain::describe;

/// The Secret key holding the kubeconfig.
pub const KUBECONFIG_KEY: &str = "kubeconfig";

/// Like the hub's: a member whose API server does not accept connections fails a request
/// (and a probe) within seconds rather than after kube's default of 30 s.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// One kubeconfig field that points outside the kubeconfig.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotInline {
    /// The field as a kubeconfig spells it (`tokenFile`, `exec`, ...).
    pub field: &'static str,
    /// The entry that has it: `cluster "x"` or `user "y"`.
    pub entry: String,
}

impl fmt::Display for NotInline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (in {})", self.field, self.entry)
    }
}

/// Why a member's kubeconfig cannot be used. The member and the Secret are named by
/// [`RefusedKubeconfig`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KubeconfigProblem {
    #[error("the Secret has no key `{KUBECONFIG_KEY}`")]
    MissingKey,
    #[error("the Secret cannot be read: {0}")]
    UnreadableSecret(String),
    #[error("the kubeconfig is not UTF-8 text")]
    NotText,
    #[error("the kubeconfig cannot be parsed: {0}")]
    Parse(String),
    #[error(
        "the kubeconfig uses {}: only inline credentials are accepted (token, \
         client-certificate-data with client-key-data, certificate-authority-data); file \
         paths and exec or auth-provider plugins cannot be used by the controller",
        list(.0)
    )]
    NotInline(Vec<NotInline>),
    #[error("the kubeconfig cannot be used: {0}")]
    Load(String),
    #[error("cannot build a client from the kubeconfig: {0}")]
    Client(String),
}

fn list(fields: &[NotInline]) -> String {
    fields
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A refused kubeconfig, with the member and the Secret an operator has to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("member {member}: Secret {secret}: {problem}")]
pub struct RefusedKubeconfig {
    pub member: String,
    /// `namespace/name`.
    pub secret: String,
    pub problem: KubeconfigProblem,
}

/// Every field, in every cluster and user of the kubeconfig, that is not inline. Unused
/// entries are checked too: the rule is about what the Secret holds, not about which
/// context happens to be current.
pub fn not_inline(kubeconfig: &Kubeconfig) -> Vec<NotInline> {
    let mut found = Vec::new();
    for named in &kubeconfig.clusters {
        let Some(cluster) = &named.cluster else {
            continue;
        };
        let entry = || format!("cluster {:?}", named.name);
        if cluster.certificate_authority.is_some() {
            found.push(NotInline {
                field: "certificate-authority",
                entry: entry(),
            });
        }
    }
    for named in &kubeconfig.auth_infos {
        let Some(user) = &named.auth_info else {
            continue;
        };
        let entry = || format!("user {:?}", named.name);
        let fields = [
            ("client-certificate", user.client_certificate.is_some()),
            ("client-key", user.client_key.is_some()),
            ("tokenFile", user.token_file.is_some()),
            ("exec", user.exec.is_some()),
            ("auth-provider", user.auth_provider.is_some()),
        ];
        for (field, present) in fields {
            if present {
                found.push(NotInline {
                    field,
                    entry: entry(),
                });
            }
        }
    }
    found
}

/// Parses and checks a kubeconfig, then builds the client configuration (current context)
/// with the short connect timeout.
pub async fn member_config(kubeconfig: &[u8]) -> Result<kube::Config, KubeconfigProblem> {
    let text = std::str::from_utf8(kubeconfig).map_err(|_| KubeconfigProblem::NotText)?;
    let parsed = Kubeconfig::from_yaml(text).map_err(|e| KubeconfigProblem::Parse(describe(&e)))?;
    let refused = not_inline(&parsed);
    if !refused.is_empty() {
        return Err(KubeconfigProblem::NotInline(refused));
    }
    let mut config = kube::Config::from_custom_kubeconfig(parsed, &KubeConfigOptions::default())
        .await
        .map_err(|e| KubeconfigProblem::Load(describe(&e)))?;
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    Ok(config)
}

/// The member's client. Building it opens no connection: a kubeconfig for a member that is
/// down still yields a client, and the probes report the member unreachable.
pub async fn member_client(kubeconfig: &[u8]) -> Result<kube::Client, KubeconfigProblem> {
    let config = member_config(kubeconfig).await?;
    kube::Client::try_from(config).map_err(|e| KubeconfigProblem::Client(describe(&e)))
}

#[cfg(test)]
#[path = "kubeconfig_tests.rs"]
mod tests;
