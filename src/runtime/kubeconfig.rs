//! Where a process's cluster credentials come from: `--kubeconfig PATH`, else the
//! KUBECONFIG environment variable, else the in-cluster service account. Deliberately not
//! `~/.kube/config`: a controller started by hand must not silently act on whatever context
//! a workstation happens to have selected.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::error_chain::describe;

/// Connection set-up limit: an unreachable API server must fail start-up within seconds,
/// not after kube's default of 30 s. Requests and watches themselves are not limited here.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    Flag(PathBuf),
    /// The raw KUBECONFIG value (a list of paths, merged as kubectl does).
    Env(OsString),
    InCluster,
}

#[derive(Debug, thiserror::Error)]
pub enum KubeconfigError {
    #[error("cannot use the kubeconfig {} given with --kubeconfig: {cause}", path.display())]
    File { path: PathBuf, cause: String },
    #[error(
        "cannot use the kubeconfig from KUBECONFIG={}: {cause}. Fix or unset KUBECONFIG, or pass \
         --kubeconfig PATH",
        value.to_string_lossy()
    )]
    Env { value: OsString, cause: String },
    #[error(
        "no --kubeconfig given, KUBECONFIG is not set, and the in-cluster service account is not \
         available ({cause}). Pass --kubeconfig PATH when running outside a cluster"
    )]
    InCluster { cause: String },
}

/// The flag wins, then a non-empty KUBECONFIG, then the in-cluster service account.
pub fn choose_source(flag: Option<&Path>, env: Option<OsString>) -> ConfigSource {
    match (flag, env) {
        (Some(path), _) => ConfigSource::Flag(path.to_path_buf()),
        (None, Some(value)) if !value.is_empty() => ConfigSource::Env(value),
        _ => ConfigSource::InCluster,
    }
}

/// Loads the client configuration for `--kubeconfig` (or its fallbacks), with the short
/// connect timeout applied.
pub async fn load(flag: Option<&Path>) -> Result<kube::Config, KubeconfigError> {
    let mut config = match choose_source(flag, std::env::var_os("KUBECONFIG")) {
        ConfigSource::Flag(path) => from_file(&path).await?,
        ConfigSource::Env(value) => from_env(value).await?,
        ConfigSource::InCluster => {
            kube::Config::incluster().map_err(|e| KubeconfigError::InCluster {
                cause: describe(&e),
            })?
        }
    };
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    Ok(config)
}

async fn from_file(path: &Path) -> Result<kube::Config, KubeconfigError> {
    let err = |cause: String| KubeconfigError::File {
        path: path.to_path_buf(),
        cause,
    };
    let kubeconfig = Kubeconfig::read_from(path).map_err(|e| err(describe(&e)))?;
    kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| err(describe(&e)))
}

async fn from_env(value: OsString) -> Result<kube::Config, KubeconfigError> {
    let err = |cause: String| KubeconfigError::Env {
        value: value.clone(),
        cause,
    };
    let kubeconfig = Kubeconfig::from_env()
        .map_err(|e| err(describe(&e)))?
        .ok_or_else(|| err("it names no file".to_string()))?;
    kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| err(describe(&e)))
}

/// The API server's address as a user would type it (no trailing `/`), for messages.
pub fn server_url(config: &kube::Config) -> String {
    config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn choose_source_table() {
        let flag = Path::new("/etc/hub.kubeconfig");
        let env = || Some(OsString::from("/home/me/kube.yaml"));
        let cases: &[(Option<&Path>, Option<OsString>, ConfigSource, &str)] = &[
            (
                Some(flag),
                env(),
                ConfigSource::Flag(flag.into()),
                "flag beats KUBECONFIG",
            ),
            (
                None,
                env(),
                ConfigSource::Env("/home/me/kube.yaml".into()),
                "KUBECONFIG next",
            ),
            (
                None,
                Some(OsString::new()),
                ConfigSource::InCluster,
                "empty KUBECONFIG is unset",
            ),
            (None, None, ConfigSource::InCluster, "in-cluster last"),
        ];
        for (flag, env, want, rule) in cases {
            assert_eq!(choose_source(*flag, env.clone()), *want, "rule: {rule}");
        }
    }

    #[tokio::test]
    async fn a_missing_file_names_the_path() {
        let path = Path::new("/nonexistent/fleet-eviction/hub.kubeconfig");
        let err = from_file(path).await.expect_err("missing file");
        assert!(
            err.to_string()
                .contains("/nonexistent/fleet-eviction/hub.kubeconfig"),
            "{err}"
        );
        assert!(err.to_string().contains("--kubeconfig"), "{err}");
    }

    #[tokio::test]
    async fn a_broken_file_names_the_path() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        file.write_all(b"clusters: [this is: not a kubeconfig")
            .expect("write");
        let err = from_file(file.path()).await.expect_err("broken file");
        assert!(
            err.to_string().contains(&file.path().display().to_string()),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_token_kubeconfig_loads_with_the_short_connect_timeout() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        file.write_all(
            b"apiVersion: v1\nkind: Config\ncurrent-context: hub\n\
              clusters:\n- name: hub\n  cluster:\n    server: http://127.0.0.1:6443\n\
              users:\n- name: admin\n  user:\n    token: secret\n\
              contexts:\n- name: hub\n  context:\n    cluster: hub\n    user: admin\n",
        )
        .expect("write");
        let config = load(Some(file.path())).await.expect("loads");
        assert_eq!(server_url(&config), "http://127.0.0.1:6443");
        assert_eq!(config.connect_timeout, Some(CONNECT_TIMEOUT));
    }
}
