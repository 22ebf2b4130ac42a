//! Members registered on the hub exactly as in production: a `MemberCluster` and a Secret in
//! `fleet-eviction-system` labelled `fleet-eviction.io/member-cluster: <name>` whose key
//! `kubeconfig` holds an inline kubeconfig.

use crate::api::crds;
use crate::api::keys::MEMBER_CLUSTER_LABEL;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, PostParams};
use kube::{Client, Error, ResourceExt};
use serde_json::json;

/// The namespace of member Secrets (the controller's default `--namespace`).
pub const SYSTEM_NAMESPACE: &str = "fleet-eviction-system";

/// Creates `crds` on a cluster.
pub async fn install_crds(
    client: &Client,
    crds: Vec<CustomResourceDefinition>,
) -> Result<(), Error> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crds {
        api.create(&PostParams::default(), &crd).await?;
    }
    Ok(())
}

/// The hub gets our CRDs and KubeFleet's stand-ins; a member the PodMigrationJob CRDs.
pub async fn install_hub_crds(hub: &Client) -> Result<(), Error> {
    install_crds(
        hub,
        crds::owned()
            .into_iter()
            .chain(crds::sandbox_stand_ins())
            .collect(),
    )
    .await
}

pub async fn install_member_crds(member: &Client) -> Result<(), Error> {
    let on_members = crds::owned()
        .into_iter()
        .filter(|c| c.spec.group == "scheduling.koordinator.sh")
        .collect();
    install_crds(member, on_members).await
}

pub async fn create_system_namespace(hub: &Client) -> Result<(), Error> {
    let api: Api<Namespace> = Api::all(hub.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": SYSTEM_NAMESPACE}}))
        .map_err(Error::SerdeError)?;
    api.create(&PostParams::default(), &ns).await.map(|_| ())
}

/// The MemberCluster and its kubeconfig Secret.
pub async fn register_member(hub: &Client, name: &str, kubeconfig: &str) -> Result<(), Error> {
    let members: Api<DynamicObject> = Api::all_with(hub.clone(), &member_cluster_resource());
    let member: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cluster.kubernetes-fleet.io/v1beta1",
        "kind": "MemberCluster",
        "metadata": {"name": name},
        "spec": {"identity": {"kind": "ServiceAccount", "name": "fleet-member-agent", "namespace": "fleet-system"}},
    }))
    .map_err(Error::SerdeError)?;
    members.create(&PostParams::default(), &member).await?;
    let secrets: Api<Secret> = Api::namespaced(hub.clone(), SYSTEM_NAMESPACE);
    let mut secret = Secret::default();
    secret.metadata.name = Some(format!("{name}-kubeconfig"));
    secret
        .labels_mut()
        .insert(MEMBER_CLUSTER_LABEL.into(), name.into());
    secret.data = Some(
        [(
            "kubeconfig".to_string(),
            k8s_openapi::ByteString(kubeconfig.as_bytes().to_vec()),
        )]
        .into(),
    );
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .map(|_| ())
}

pub fn member_cluster_resource() -> kube::api::ApiResource {
    kube::api::ApiResource {
        group: "cluster.kubernetes-fleet.io".into(),
        version: "v1beta1".into(),
        api_version: "cluster.kubernetes-fleet.io/v1beta1".into(),
        kind: "MemberCluster".into(),
        plural: "memberclusters".into(),
    }
}
