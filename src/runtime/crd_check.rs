//! The start-up CRD check (fleet-eviction.md "Which CRDs we ship"). If KubeFleet's chart
//! re-installs its own CRPE/CRPDB CRDs over ours, the API server prunes our extension fields
//! on every write, and a gated eviction would silently run ungated. So before acting, the
//! controller compares the installed CRDs with the ones it ships and refuses to start when a
//! field of ours would be pruned.
//!
//! The hub's CRDs (CRPE, CRPDB) are checked by `run`; a member's (PodMigrationJob,
//! PodMigrationJobProfile) by its executor before it starts: Koordinator's own PodMigrationJob
//! CRD lacks `evictionConditions`, and under it a job's gates would be pruned and never wait.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps,
    JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use kube::{Api, Client};

use super::error_chain::describe;
use crate::api::crds::{self, CRPDB_CRD_NAME, CRPE_CRD_NAME};

/// The CRDs whose schema the hub must carry as we ship it.
pub const HUB_CRDS: [&str; 2] = [CRPE_CRD_NAME, CRPDB_CRD_NAME];

/// Which cluster a CRD belongs on, as the messages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Hub,
    Member,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Hub => "hub",
            Side::Member => "member cluster",
        })
    }
}

fn side_of(crd: &str) -> Side {
    if HUB_CRDS.contains(&crd) {
        Side::Hub
    } else {
        Side::Member
    }
}

/// Bound on the whole check: an API server that accepts connections but never answers must
/// not keep the process "starting" forever.
pub const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

const REAPPLY: &str = "fleet-eviction crds | kubectl apply -f -";

/// What is wrong with one installed CRD.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrdProblem {
    #[error("CRD {name} is not installed on the {side}; install it: {REAPPLY}")]
    NotInstalled { name: String, side: Side },
    #[error(
        "CRD {name} on the {side} lacks fleet-eviction's fields {}: it was probably replaced by \
         KubeFleet's. Re-apply ours: {REAPPLY}",
        missing.join(", ")
    )]
    LacksFields {
        name: String,
        side: Side,
        missing: Vec<String>,
    },
}

/// Why the check could not pass.
#[derive(Debug, thiserror::Error)]
pub enum CrdCheckError {
    #[error("cannot reach the {side} API server at {server}: {cause}")]
    Unreachable {
        side: Side,
        server: String,
        cause: String,
    },
    #[error(
        "the {side} API server at {server} did not answer within {}s while fleet-eviction checked \
         its CRDs; check that the address is the API server and that it is healthy",
        CHECK_TIMEOUT.as_secs()
    )]
    Timeout { side: Side, server: String },
    #[error(
        "the {side} API server at {server} rejected fleet-eviction's credentials while reading CRD \
         {name}: {cause}. Check the user in the kubeconfig (or the service account token)"
    )]
    Unauthorized {
        side: Side,
        server: String,
        name: String,
        cause: String,
    },
    #[error(
        "fleet-eviction may not read CRD {name} on the {side} at {server}: {cause}. Its ClusterRole \
         needs get on customresourcedefinitions.apiextensions.k8s.io (the Helm chart grants it)"
    )]
    Forbidden {
        side: Side,
        server: String,
        name: String,
        cause: String,
    },
    #[error("cannot read CRD {name} from the {side} API server at {server}: {cause}")]
    Request {
        side: Side,
        server: String,
        name: String,
        cause: String,
    },
    #[error("{}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Problems { problems: Vec<CrdProblem> },
}

/// Reads the hub CRDs and compares them with ours; `Ok` means every field we write survives.
pub async fn check_hub(client: &Client, server: &str) -> Result<(), CrdCheckError> {
    check(client, server, Side::Hub).await
}

/// Reads a member cluster's CRDs (PodMigrationJob, PodMigrationJobProfile) and compares them
/// with ours.
pub async fn check_member(client: &Client, server: &str) -> Result<(), CrdCheckError> {
    check(client, server, Side::Member).await
}

async fn check(client: &Client, server: &str, side: Side) -> Result<(), CrdCheckError> {
    let timeout = CrdCheckError::Timeout {
        side,
        server: server.to_string(),
    };
    tokio::time::timeout(CHECK_TIMEOUT, check_unbounded(client, server, side))
        .await
        .unwrap_or(Err(timeout))
}

async fn check_unbounded(client: &Client, server: &str, side: Side) -> Result<(), CrdCheckError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut problems = Vec::new();
    for ours in crds::owned()
        .iter()
        .filter(|crd| side_of(crd_name(crd)) == side)
    {
        let name = crd_name(ours);
        let installed = api
            .get_opt(name)
            .await
            .map_err(|e| classify(server, name, &e))?;
        if let Err(problem) = check_report(ours, installed.as_ref()) {
            problems.push(problem);
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CrdCheckError::Problems { problems })
    }
}

fn crd_name(crd: &CustomResourceDefinition) -> &str {
    crd.metadata.name.as_deref().unwrap_or_default()
}

/// Sorts a client error into what the operator has to fix.
pub fn classify(server: &str, name: &str, err: &kube::Error) -> CrdCheckError {
    let side = side_of(name);
    let (server, name, cause) = (server.to_string(), name.to_string(), describe(err));
    match err {
        kube::Error::Api(status) if status.code == 401 => CrdCheckError::Unauthorized {
            side,
            server,
            name,
            cause,
        },
        kube::Error::Api(status) if status.is_forbidden() => CrdCheckError::Forbidden {
            side,
            server,
            name,
            cause,
        },
        // Connecting, TLS and transport failures: the request never got an answer.
        kube::Error::HyperError(_) | kube::Error::Service(_) => CrdCheckError::Unreachable {
            side,
            server,
            cause,
        },
        _ => CrdCheckError::Request {
            side,
            server,
            name,
            cause,
        },
    }
}

/// The verdict on one CRD: `installed` is what the hub has under our CRD's name (`None`:
/// nothing).
pub fn check_report(
    ours: &CustomResourceDefinition,
    installed: Option<&CustomResourceDefinition>,
) -> Result<(), CrdProblem> {
    let name = crd_name(ours).to_string();
    let side = side_of(&name);
    let Some(installed) = installed else {
        return Err(CrdProblem::NotInstalled { name, side });
    };
    let missing = missing_fields(ours, installed);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(CrdProblem::LacksFields {
            name,
            side,
            missing,
        })
    }
}

/// Every field of ours the installed CRD would prune, as a path (`spec.evictionConditions`,
/// `status.reservation.reservedAt`; `[]` stands for list items, `{}` for map values), and
/// `version <v>` for each version we serve that it does not serve. Every served version is
/// compared with its namesake, because the server prunes with the schema of the version a
/// client writes in; a path missing from only some versions names them in parentheses.
/// Extra fields on the installed side are fine.
pub fn missing_fields(
    ours: &CustomResourceDefinition,
    installed: &CustomResourceDefinition,
) -> Vec<String> {
    let mut missing_versions = Vec::new();
    // path -> versions that lack it, in the order first seen
    let mut paths: Vec<(String, Vec<&str>)> = Vec::new();
    let mut compared = 0;
    for version in ours.spec.versions.iter().filter(|v| v.served) {
        let theirs = installed
            .spec
            .versions
            .iter()
            .find(|v| v.name == version.name && v.served);
        let Some(theirs) = theirs else {
            missing_versions.push(format!("version {}", version.name));
            continue;
        };
        compared += 1;
        let empty = JSONSchemaProps::default();
        let our_schema = open_api_schema(version).unwrap_or(&empty);
        let their_schema = open_api_schema(theirs).unwrap_or(&empty);
        let mut lost = Vec::new();
        walk_root(our_schema, their_schema, &mut lost);
        for path in lost {
            match paths.iter_mut().find(|(p, _)| *p == path) {
                Some((_, versions)) => versions.push(&version.name),
                None => paths.push((path, vec![&version.name])),
            }
        }
    }
    let mut out: Vec<String> = paths
        .into_iter()
        .map(|(path, versions)| {
            if versions.len() == compared {
                path
            } else {
                format!("{path} ({})", versions.join(", "))
            }
        })
        .collect();
    out.extend(missing_versions);
    out
}

fn open_api_schema(version: &CustomResourceDefinitionVersion) -> Option<&JSONSchemaProps> {
    version.schema.as_ref()?.open_api_v3_schema.as_ref()
}

/// The server handles `apiVersion`, `kind` and `metadata` itself and never prunes them by
/// the CRD's schema, so only the other top-level fields (`spec`, `status`) are compared.
fn walk_root(ours: &JSONSchemaProps, theirs: &JSONSchemaProps, lost: &mut Vec<String>) {
    let mut root = ours.clone();
    if let Some(properties) = root.properties.as_mut() {
        for always_kept in ["apiVersion", "kind", "metadata"] {
            properties.remove(always_kept);
        }
    }
    walk(&root, theirs, "", lost);
}

fn walk(ours: &JSONSchemaProps, theirs: &JSONSchemaProps, path: &str, lost: &mut Vec<String>) {
    let keeps_unknown = theirs.x_kubernetes_preserve_unknown_fields == Some(true);
    if ours.x_kubernetes_preserve_unknown_fields == Some(true) && !keeps_unknown {
        // Ours keeps arbitrary content here (a schemaless template); theirs prunes it.
        lost.push(path.to_string());
        return;
    }
    let no_properties = BTreeMap::new();
    let their_properties = theirs.properties.as_ref().unwrap_or(&no_properties);
    for (name, our_property) in ours.properties.iter().flatten() {
        let child = join(path, name);
        match their_properties.get(name) {
            Some(their_property) => walk(our_property, their_property, &child, lost),
            None if keeps_unknown => {}
            None => lost.push(child),
        }
    }
    if let Some(our_items) = item_schema(ours) {
        let child = format!("{path}[]");
        match item_schema(theirs) {
            Some(their_items) => walk(our_items, their_items, &child, lost),
            None if keeps_unknown => {}
            None => lost.push(child),
        }
    }
    // Map values (`additionalProperties`): lost only if theirs has no map here at all.
    match (&ours.additional_properties, &theirs.additional_properties) {
        (None | Some(JSONSchemaPropsOrBool::Bool(false)), _) => {}
        (Some(_), _) if keeps_unknown => {}
        (Some(_), Some(JSONSchemaPropsOrBool::Bool(true))) => {}
        (
            Some(JSONSchemaPropsOrBool::Schema(our_values)),
            Some(JSONSchemaPropsOrBool::Schema(their_values)),
        ) => {
            walk(our_values, their_values, &format!("{path}{{}}"), lost);
        }
        (Some(JSONSchemaPropsOrBool::Bool(true)), Some(JSONSchemaPropsOrBool::Schema(_))) => {}
        (Some(_), None | Some(JSONSchemaPropsOrBool::Bool(false))) => {
            lost.push(format!("{path}{{}}"))
        }
    }
}

fn item_schema(schema: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match schema.items.as_ref()? {
        JSONSchemaPropsOrArray::Schema(items) => Some(items),
        // Structural schemas forbid tuple items; read the first as the best guess.
        JSONSchemaPropsOrArray::Schemas(items) => items.first(),
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A CRD from JSON, so hand-edited copies read like the YAML an operator would see.
    fn crd(value: Value) -> CustomResourceDefinition {
        serde_json::from_value(value).expect("valid CRD JSON")
    }

    fn small_crd(spec_properties: Value, versions: &[(&str, bool)]) -> CustomResourceDefinition {
        let versions: Vec<Value> = versions
            .iter()
            .map(|(name, served)| {
                json!({
                    "name": name, "served": served, "storage": *name == "v1beta1",
                    "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "apiVersion": {"type": "string"},
                            "metadata": {"type": "object"},
                            "spec": {"type": "object", "properties": spec_properties.clone()},
                        }
                    }}
                })
            })
            .collect();
        crd(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.io"},
            "spec": {"group": "example.io", "scope": "Cluster",
                     "names": {"plural": "things", "kind": "Thing"}, "versions": versions}
        }))
    }

    fn ours_small() -> Value {
        json!({
            "placementName": {"type": "string"},
            "evictionConditions": {"type": "array", "items": {
                "type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {
                "type": "object", "properties": {"value": {"type": "string"}}}},
            "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        })
    }

    #[test]
    fn missing_fields_table() {
        let both = &[("v1beta1", true), ("v1alpha1", true)];
        let cases: Vec<(&str, CustomResourceDefinition, Vec<&str>)> = vec![
            (
                "identical: nothing missing",
                small_crd(ours_small(), both),
                vec![],
            ),
            (
                "a removed property is reported",
                small_crd(
                    json!({
                        "placementName": {"type": "string"},
                        "labels": ours_small()["labels"].clone(),
                        "template": ours_small()["template"].clone(),
                    }),
                    both,
                ),
                vec!["spec.evictionConditions"],
            ),
            (
                "a field inside list items is reported with []",
                small_crd(
                    {
                        let mut v = ours_small();
                        v["evictionConditions"]["items"]["properties"] = json!({});
                        v
                    },
                    both,
                ),
                vec!["spec.evictionConditions[].name"],
            ),
            (
                "a field inside map values is reported with {}",
                small_crd(
                    {
                        let mut v = ours_small();
                        v["labels"]["additionalProperties"]["properties"] = json!({});
                        v
                    },
                    both,
                ),
                vec!["spec.labels{}.value"],
            ),
            (
                "a map turned into a plain object loses its values",
                small_crd(
                    {
                        let mut v = ours_small();
                        v["labels"] = json!({"type": "object"});
                        v
                    },
                    both,
                ),
                vec!["spec.labels{}"],
            ),
            (
                "a schemaless field that stopped preserving unknown fields",
                small_crd(
                    {
                        let mut v = ours_small();
                        v["template"] = json!({"type": "object"});
                        v
                    },
                    both,
                ),
                vec!["spec.template"],
            ),
            (
                "preserve-unknown-fields on their side keeps everything below",
                small_crd(json!({"placementName": {"type": "string"}}), both).tap(|c| {
                    for v in &mut c.spec.versions {
                        let spec = v
                            .schema
                            .as_mut()
                            .and_then(|s| s.open_api_v3_schema.as_mut())
                            .and_then(|s| s.properties.as_mut())
                            .and_then(|p| p.get_mut("spec"))
                            .expect("spec");
                        spec.x_kubernetes_preserve_unknown_fields = Some(true);
                    }
                }),
                vec![],
            ),
            (
                "extra fields on the installed CRD are fine",
                small_crd(
                    {
                        let mut v = ours_small();
                        v["kubefleetOnly"] = json!({"type": "string"});
                        v
                    },
                    both,
                ),
                vec![],
            ),
            (
                "a served version it lacks is reported",
                small_crd(ours_small(), &[("v1beta1", true)]),
                vec!["version v1alpha1"],
            ),
            (
                "a version it has but does not serve counts as lacking",
                small_crd(ours_small(), &[("v1beta1", true), ("v1alpha1", false)]),
                vec!["version v1alpha1"],
            ),
            (
                "metadata details are not ours to check",
                small_crd(ours_small(), both).tap(|c| {
                    for v in &mut c.spec.versions {
                        let root = v
                            .schema
                            .as_mut()
                            .and_then(|s| s.open_api_v3_schema.as_mut());
                        if let Some(props) = root.and_then(|r| r.properties.as_mut()) {
                            props.remove("metadata");
                            props.remove("apiVersion");
                        }
                    }
                }),
                vec![],
            ),
        ];
        let ours = small_crd(ours_small(), both);
        for (rule, installed, want) in cases {
            assert_eq!(missing_fields(&ours, &installed), want, "rule: {rule}");
        }
    }

    #[test]
    fn a_path_missing_from_one_version_names_it() {
        let ours = small_crd(ours_small(), &[("v1beta1", true), ("v1alpha1", true)]);
        let mut installed = ours.clone();
        let alpha = installed
            .spec
            .versions
            .iter_mut()
            .find(|v| v.name == "v1alpha1")
            .and_then(|v| v.schema.as_mut())
            .and_then(|s| s.open_api_v3_schema.as_mut())
            .and_then(|s| s.properties.as_mut())
            .and_then(|p| p.get_mut("spec"))
            .and_then(|s| s.properties.as_mut())
            .expect("v1alpha1 spec");
        alpha.remove("placementName");
        assert_eq!(
            missing_fields(&ours, &installed),
            vec!["spec.placementName (v1alpha1)"]
        );
    }

    trait Tap: Sized {
        fn tap(self, f: impl FnOnce(&mut Self)) -> Self;
    }
    impl Tap for CustomResourceDefinition {
        fn tap(mut self, f: impl FnOnce(&mut Self)) -> Self {
            f(&mut self);
            self
        }
    }

    fn our_crd(name: &str) -> CustomResourceDefinition {
        crds::owned()
            .into_iter()
            .find(|c| c.metadata.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("we ship {name}"))
    }

    /// Removes `spec.<field>` from every version, as KubeFleet's CRD lacks it.
    fn without_spec_field(
        mut crd: CustomResourceDefinition,
        field: &str,
    ) -> CustomResourceDefinition {
        for version in &mut crd.spec.versions {
            let spec = version
                .schema
                .as_mut()
                .and_then(|s| s.open_api_v3_schema.as_mut())
                .and_then(|s| s.properties.as_mut())
                .and_then(|p| p.get_mut("spec"))
                .and_then(|s| s.properties.as_mut())
                .expect("our CRPE has spec properties");
            spec.remove(field);
        }
        crd
    }

    #[test]
    fn every_hub_crd_is_one_we_ship() {
        for name in HUB_CRDS {
            assert!(
                crds::owned().iter().any(|c| crd_name(c) == name),
                "we ship {name}"
            );
        }
    }

    #[test]
    fn our_own_crds_pass_the_check() {
        for ours in crds::owned() {
            assert_eq!(
                check_report(&ours, Some(&ours)),
                Ok(()),
                "{}",
                crd_name(&ours)
            );
        }
    }

    #[test]
    fn koordinators_job_crd_on_a_member_is_reported_as_lacking_the_gates() {
        let name = "podmigrationjobs.scheduling.koordinator.sh";
        let ours = our_crd(name);
        let installed = without_spec_field(ours.clone(), "evictionConditions");
        let message = check_report(&ours, Some(&installed))
            .expect_err("field removed")
            .to_string();
        assert!(
            message.starts_with(&format!(
                "CRD {name} on the member cluster lacks fleet-eviction's fields spec.evictionConditions"
            )),
            "{message}"
        );
        let missing = check_report(&ours, None).expect_err("absent").to_string();
        assert!(
            missing.starts_with(&format!(
                "CRD {name} is not installed on the member cluster"
            )),
            "{missing}"
        );
    }

    #[test]
    fn a_crpe_without_eviction_conditions_is_reported_with_the_fix() {
        let ours = our_crd(CRPE_CRD_NAME);
        let installed = without_spec_field(ours.clone(), "evictionConditions");
        let problem = check_report(&ours, Some(&installed)).expect_err("field removed");
        assert_eq!(
            problem,
            CrdProblem::LacksFields {
                name: CRPE_CRD_NAME.to_string(),
                side: Side::Hub,
                missing: vec!["spec.evictionConditions".to_string()],
            }
        );
        let message = problem.to_string();
        assert!(
            message.starts_with(&format!("CRD {CRPE_CRD_NAME} on the hub lacks")),
            "{message}"
        );
        assert!(
            message.contains("probably replaced by KubeFleet's"),
            "{message}"
        );
        assert!(
            message.ends_with("Re-apply ours: fleet-eviction crds | kubectl apply -f -"),
            "{message}"
        );
    }

    #[test]
    fn a_missing_crd_says_how_to_install_it() {
        let ours = our_crd(CRPDB_CRD_NAME);
        let problem = check_report(&ours, None).expect_err("not installed");
        assert_eq!(
            problem.to_string(),
            format!(
                "CRD {CRPDB_CRD_NAME} is not installed on the hub; install it: \
                 fleet-eviction crds | kubectl apply -f -"
            )
        );
    }

    #[test]
    fn classify_table() {
        let api = |code: u16, reason: &str| {
            kube::Error::Api(
                kube::core::Status::failure("nope", reason)
                    .with_code(code)
                    .boxed(),
            )
        };
        let server = "https://hub:6443";
        let cases: Vec<(kube::Error, &str, &str)> = vec![
            (
                api(401, "Unauthorized"),
                "credentials",
                "401: bad credentials",
            ),
            (api(403, "Forbidden"), "ClusterRole", "403: missing RBAC"),
            (
                api(500, "InternalError"),
                "cannot read CRD",
                "other API errors",
            ),
            (
                kube::Error::Service(Box::new(std::io::Error::new(
                    std::io::ErrorKind::ConnectionRefused,
                    "Connection refused",
                ))),
                "cannot reach the hub API server at https://hub:6443: ServiceError: Connection refused",
                "transport failures mean the hub is unreachable",
            ),
            (
                kube::Error::HttpError(
                    http::Request::builder()
                        .method("BAD METHOD")
                        .body(())
                        .expect_err("bad"),
                ),
                "cannot read CRD",
                "request building errors are not connectivity",
            ),
        ];
        for (err, needle, rule) in cases {
            let message = classify(server, CRPE_CRD_NAME, &err).to_string();
            assert!(message.contains(needle), "rule: {rule}: {message}");
        }
    }
}
