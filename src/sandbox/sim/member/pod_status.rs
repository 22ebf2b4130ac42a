//! The status a kubelet reports for a pod whose containers run: Running, with addresses,
//! start times, the five pod conditions and one status per container.

use super::hashing::fnv1a;
use super::nodes::internal_ip;
use super::pods::{self, is_broken};
use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateRunning, ContainerStatus, HostIP, Node, Pod, PodCondition, PodIP,
    PodStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// The pod's status once its containers run on `node` (the `index`-th node by name): the
/// current status with the fields a kubelet owns replaced. Times already set stay, and a
/// condition keeps its `lastTransitionTime` while its status does not change.
pub fn running(pod: &Pod, node: &Node, index: usize, now: &Time) -> PodStatus {
    let current = pod.status.clone().unwrap_or_default();
    let ready = !is_broken(pod);
    let started = current.start_time.clone().unwrap_or_else(|| now.clone());
    let host_ip = internal_ip(node);
    let pod_ip = current
        .pod_ip
        .clone()
        .unwrap_or_else(|| pod_ip(index, pods::uid(&pod.metadata)));
    PodStatus {
        phase: Some("Running".into()),
        host_ip: host_ip.clone(),
        host_ips: host_ip.map(|ip| vec![HostIP { ip }]),
        pod_ip: Some(pod_ip.clone()),
        pod_ips: Some(vec![PodIP { ip: pod_ip }]),
        start_time: Some(started.clone()),
        conditions: Some(conditions(pod, &current, ready, now)),
        container_statuses: Some(container_statuses(pod, ready, &started)),
        ..current
    }
}

/// `10.244.<node>.<host>`: one /24 per node as a CNI would hand out, the host part drawn
/// from the pod's uid (stable; collisions do not matter to the simulation).
fn pod_ip(node_index: usize, uid: &str) -> String {
    let host = fnv1a(uid.as_bytes()) % 250 + 2;
    format!("10.244.{}.{host}", node_index % 256)
}

fn container_names(pod: &Pod) -> Vec<String> {
    pod.spec
        .as_ref()
        .map(|s| s.containers.iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default()
}

fn conditions(pod: &Pod, current: &PodStatus, ready: bool, now: &Time) -> Vec<PodCondition> {
    let previous = current.conditions.as_deref().unwrap_or(&[]);
    let unready_message = format!(
        "containers with unready status: [{}]",
        container_names(pod).join(" ")
    );
    let condition = |kind: &str, is_true: bool| {
        let status = if is_true { "True" } else { "False" };
        let since = previous
            .iter()
            .find(|c| c.type_ == kind && c.status == status)
            .and_then(|c| c.last_transition_time.clone())
            .unwrap_or_else(|| now.clone());
        let (reason, message) = if is_true {
            (None, None)
        } else {
            (
                Some("ContainersNotReady".to_string()),
                Some(unready_message.clone()),
            )
        };
        PodCondition {
            type_: kind.to_string(),
            status: status.to_string(),
            last_transition_time: Some(since),
            reason,
            message,
            ..Default::default()
        }
    };
    vec![
        condition("PodReadyToStartContainers", true),
        condition("Initialized", true),
        condition("Ready", ready),
        condition("ContainersReady", ready),
        condition("PodScheduled", true),
    ]
}

fn container_statuses(pod: &Pod, ready: bool, started: &Time) -> Vec<ContainerStatus> {
    let containers = pod
        .spec
        .as_ref()
        .map(|s| s.containers.as_slice())
        .unwrap_or(&[]);
    containers
        .iter()
        .map(|c| {
            let id = fnv1a(format!("{}/{}", pods::uid(&pod.metadata), c.name).as_bytes());
            ContainerStatus {
                name: c.name.clone(),
                image: c.image.clone().unwrap_or_default(),
                image_id: String::new(),
                container_id: Some(format!("containerd://{id:016x}")),
                ready,
                started: Some(true),
                restart_count: 0,
                state: Some(ContainerState {
                    running: Some(ContainerStateRunning {
                        started_at: Some(started.clone()),
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            }
        })
        .collect()
}
