//! Kubeconfigs for the sandbox's clusters: inline and token-based, as production member
//! registration requires (the sandbox accepts any token).

/// A kubeconfig with one cluster, user and context, all named `name`.
pub fn kubeconfig_yaml(name: &str, server_url: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: {name}\nclusters:\n- name: {name}\n  cluster:\n    server: {server_url}\nusers:\n- name: {name}\n  user:\n    token: sandbox\ncontexts:\n- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_parses_as_kube_reads_it() {
        let text = kubeconfig_yaml("member-1", "http://127.0.0.1:4000");
        let config: kube::config::Kubeconfig = serde_saphyr::from_str(&text).expect("kubeconfig");
        assert_eq!(config.current_context.as_deref(), Some("member-1"));
        let cluster = config.clusters[0].cluster.as_ref().expect("cluster");
        assert_eq!(cluster.server.as_deref(), Some("http://127.0.0.1:4000"));
    }
}
