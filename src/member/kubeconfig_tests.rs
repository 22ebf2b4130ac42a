use super::*;

/// A self-signed CA certificate (no key): certificate-authority-data must parse as PEM.
const CA_DATA: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJmakNDQVNXZ0F3SUJBZ0lVVUQ3cWhTV2JJSXJ5bVgyR3Y0VDZxS081U0RRd0NnWUlLb1pJemowRUF3SXcKRkRFU01CQUdBMVVFQXd3SmJXVnRZbVZ5TFdOaE1DQVhEVEkyTVRFeU16RTVNelV3T0ZvWUR6SXhNall4TURNdwpNVGt6TlRBNFdqQVVNUkl3RUFZRFZRUUREQWx0WlcxaVpYSXRZMkV3V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPClBRTUJCd05DQUFSVWlXQkdvZE1yY2xaNDlKZEpiMDM1OXRyWWVJKzJQTWJzbDZlL1B5aFJKZ1dCbTFBeEN3SVgKZjVUdUV5M0FiTExvYlI4OGVEZzEwSk1UenRIMnpwYnlvMU13VVRBZEJnTlZIUTRFRmdRVUtpT1ZwYkZUdi9lQQpxT21oZ1VNTm5URFlaYUF3SHdZRFZSMGpCQmd3Rm9BVUtpT1ZwYkZUdi9lQXFPbWhnVU1OblREWVphQXdEd1lEClZSMFRBUUgvQkFVd0F3RUIvekFLQmdncWhrak9QUVFEQWdOSEFEQkVBaUFDNllMbVd0dVdtOFQ4eFJrVnM4WUQKOHByaE1kOUlza0NpNEVhQTJHVUhSUUlnSUxrZnlNa1hjaHBqNGtQR1lxSVFwM2FXQjlsMjg3WkFRUXFXVUt5VwpjM1E9Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

/// A kubeconfig whose one cluster and one user carry the given extra lines.
fn kubeconfig(cluster_extra: &str, user_extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: m\n\
         clusters:\n- name: m\n  cluster:\n    server: https://10.0.0.1:6443\n{cluster_extra}\
         users:\n- name: admin\n  user:\n{user_extra}\
         contexts:\n- name: m\n  context:\n    cluster: m\n    user: admin\n"
    )
}

fn fields(text: &str) -> Vec<&'static str> {
    let parsed = Kubeconfig::from_yaml(text).expect("parses");
    not_inline(&parsed).into_iter().map(|n| n.field).collect()
}

#[test]
fn not_inline_table() {
    let rows: &[(&str, &str, &[&str], &str)] = &[
        ("", "    token: t\n", &[], "a token is inline"),
        (
            "    certificate-authority-data: Q0E=\n",
            "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n",
            &[],
            "certificate and key data and CA data are inline",
        ),
        (
            "",
            "    username: u\n    password: p\n",
            &[],
            "basic auth is inline",
        ),
        (
            "    insecure-skip-tls-verify: true\n",
            "    token: t\n",
            &[],
            "skipping TLS checks reads no file",
        ),
        (
            "    certificate-authority: /etc/ca.crt\n",
            "    token: t\n",
            &["certificate-authority"],
            "a CA file",
        ),
        (
            "",
            "    client-certificate: /etc/tls.crt\n    client-key-data: S0VZ\n",
            &["client-certificate"],
            "a client certificate file",
        ),
        (
            "",
            "    client-certificate-data: Q0VSVA==\n    client-key: /etc/tls.key\n",
            &["client-key"],
            "a client key file",
        ),
        (
            "",
            "    tokenFile: /var/run/token\n",
            &["tokenFile"],
            "a token file",
        ),
        (
            "",
            "    token: t\n    tokenFile: /var/run/token\n",
            &["tokenFile"],
            "a token file is refused even beside an inline token",
        ),
        (
            "",
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n",
            &["exec"],
            "an exec plugin",
        ),
        (
            "",
            "    auth-provider:\n      name: gcp\n      config: {}\n",
            &["auth-provider"],
            "an auth-provider plugin",
        ),
        (
            "    certificate-authority: ca.crt\n",
            "    client-certificate: tls.crt\n    client-key: tls.key\n",
            &["certificate-authority", "client-certificate", "client-key"],
            "every offending field is named",
        ),
    ];
    for (cluster, user, want, rule) in rows {
        assert_eq!(fields(&kubeconfig(cluster, user)), *want, "rule: {rule}");
    }
}

#[test]
fn entries_outside_the_current_context_are_checked_too() {
    let text = "apiVersion: v1\nkind: Config\ncurrent-context: m\n\
        clusters:\n- name: m\n  cluster:\n    server: http://10.0.0.1\n\
        users:\n- name: admin\n  user:\n    token: t\n- name: old\n  user:\n    tokenFile: /t\n\
        contexts:\n- name: m\n  context:\n    cluster: m\n    user: admin\n";
    let parsed = Kubeconfig::from_yaml(text).expect("parses");
    assert_eq!(
        not_inline(&parsed),
        vec![NotInline {
            field: "tokenFile",
            entry: "user \"old\"".into()
        }]
    );
}

#[tokio::test]
async fn a_token_kubeconfig_yields_a_config_with_the_short_timeout() {
    let text = kubeconfig("", "    token: t\n");
    let config = member_config(text.as_bytes()).await.expect("accepted");
    assert_eq!(config.cluster_url.to_string(), "https://10.0.0.1:6443/");
    assert_eq!(config.connect_timeout, Some(CONNECT_TIMEOUT));
}

#[tokio::test]
async fn ca_data_is_accepted_and_loaded() {
    let text = kubeconfig(
        &format!("    certificate-authority-data: {CA_DATA}\n"),
        "    token: t\n",
    );
    let config = member_config(text.as_bytes()).await.expect("accepted");
    assert_eq!(config.root_cert.map(|certs| certs.len()), Some(1));
    member_client(text.as_bytes()).await.expect("a client");
}

#[tokio::test]
async fn a_plain_http_server_without_credentials_is_accepted() {
    let text = "apiVersion: v1\nkind: Config\ncurrent-context: m\n\
        clusters:\n- name: m\n  cluster:\n    server: http://127.0.0.1:4000\n\
        contexts:\n- name: m\n  context:\n    cluster: m\n";
    member_client(text.as_bytes()).await.expect("a client");
}

#[tokio::test]
async fn refusals_name_the_problem() {
    let token_file = kubeconfig("", "    tokenFile: /var/run/secrets/token\n");
    let exec = kubeconfig(
        "",
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: gke-gcloud-auth-plugin\n",
    );
    let no_context = "apiVersion: v1\nkind: Config\nclusters: []\n";
    let rows: &[(&[u8], &[&str], &str)] = &[
        (
            token_file.as_bytes(),
            &["`tokenFile` (in user \"admin\")", "only inline credentials"],
            "a file path",
        ),
        (
            exec.as_bytes(),
            &["`exec` (in user \"admin\")", "plugins"],
            "an exec plugin",
        ),
        (b"\xff\xfe\x00", &["not UTF-8"], "binary data"),
        (
            b"clusters: [this is: not",
            &["cannot be parsed"],
            "broken YAML",
        ),
        (
            no_context.as_bytes(),
            &["cannot be used"],
            "no current context",
        ),
    ];
    for (text, wants, rule) in rows {
        let err = match member_client(text).await {
            Ok(_) => panic!("rule {rule}: accepted"),
            Err(e) => e.to_string(),
        };
        for want in *wants {
            assert!(err.contains(want), "rule {rule}: {err:?} lacks {want:?}");
        }
    }
}

#[test]
fn a_refusal_names_the_member_and_the_secret() {
    let refused = RefusedKubeconfig {
        member: "member-4".into(),
        secret: "fleet-eviction-system/member-4-kubeconfig".into(),
        problem: KubeconfigProblem::NotInline(vec![NotInline {
            field: "exec",
            entry: "user \"admin\"".into(),
        }]),
    };
    let text = refused.to_string();
    assert!(
        text.starts_with(
            "member member-4: Secret fleet-eviction-system/member-4-kubeconfig: the kubeconfig \
             uses `exec` (in user \"admin\")"
        ),
        "{text}"
    );
}
