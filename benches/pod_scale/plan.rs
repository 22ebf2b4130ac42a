//! What the bench builds on every member and which job evicts which pod: nodes, namespaces,
//! workloads and their pods, one PodMigrationJob per pod. Every member gets the same layout
//! (only the number of pods differs when the jobs do not divide evenly), and the arbitration
//! check reads each job's node, namespace and workload from here, not from the controller.

/// The fleet's shape, from the command line.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub members: usize,
    pub jobs: usize,
    pub nodes: usize,
    pub namespaces: usize,
    /// `false`: every pod without a controller (only the node, namespace and member limits
    /// apply).
    pub workloads: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadKind {
    /// A Deployment and the one ReplicaSet it controls; the pods are the ReplicaSet's.
    Deployment,
    StatefulSet,
}

impl WorkloadKind {
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Workload {
    pub kind: WorkloadKind,
    pub namespace: String,
    pub name: String,
    pub replicas: usize,
}

impl Workload {
    /// The ReplicaSet of a Deployment workload.
    pub fn replica_set(&self) -> String {
        format!("{}-{RS_HASH}", self.name)
    }
}

/// A ReplicaSet's pod-template-hash (any stable value: no controller checks it here).
pub const RS_HASH: &str = "5d9c8f7b6d";

#[derive(Debug, Clone)]
pub struct PodPlan {
    pub namespace: String,
    pub name: String,
    pub node: String,
    /// Index into the member's workloads; `None`: a pod without a controller.
    pub workload: Option<usize>,
    /// The PodMigrationJob that evicts it (cluster-scoped, unique on its member).
    pub job: String,
}

#[derive(Debug, Clone)]
pub struct MemberPlan {
    pub name: String,
    pub nodes: usize,
    pub namespaces: Vec<String>,
    pub workloads: Vec<Workload>,
    pub pods: Vec<PodPlan>,
}

pub struct Plan {
    pub shape: Shape,
    pub members: Vec<MemberPlan>,
}

impl Plan {
    pub fn new(shape: Shape) -> Plan {
        let members = (0..shape.members)
            .map(|i| {
                // The jobs spread evenly; the first members take the remainder.
                let pods = shape.jobs / shape.members + usize::from(i < shape.jobs % shape.members);
                member(format!("member-{}", i + 1), pods, shape)
            })
            .collect();
        Plan { shape, members }
    }

    pub fn jobs(&self) -> usize {
        self.members.iter().map(|m| m.pods.len()).sum()
    }

    pub fn count_pods(&self, pick: impl Fn(Option<WorkloadKind>) -> bool) -> usize {
        self.members
            .iter()
            .flat_map(|m| {
                m.pods
                    .iter()
                    .map(move |p| p.workload.map(|w| m.workloads[w].kind))
            })
            .filter(|k| pick(*k))
            .count()
    }
}

/// One member: `pods` pods in blocks per namespace; in each namespace half the pods belong to
/// a Deployment `web`, a quarter to a StatefulSet `db`, the rest have no controller (all of
/// them without workloads); pod k of the member runs on node (k mod nodes) + 1.
fn member(name: String, pods: usize, shape: Shape) -> MemberPlan {
    let namespaces: Vec<String> = (1..=shape.namespaces.max(1))
        .map(|i| format!("bench-{i}"))
        .collect();
    let mut plan = MemberPlan {
        name,
        nodes: shape.nodes.max(1),
        namespaces: namespaces.clone(),
        workloads: Vec::new(),
        pods: Vec::with_capacity(pods),
    };
    let n = namespaces.len();
    for (j, namespace) in namespaces.iter().enumerate() {
        let in_namespace = pods / n + usize::from(j < pods % n);
        let (web, db) = if shape.workloads {
            (in_namespace / 2, in_namespace / 4)
        } else {
            (0, 0)
        };
        let solo = in_namespace - web - db;
        if web > 0 {
            let w = plan.add_workload(WorkloadKind::Deployment, namespace, "web", web);
            let rs = plan.workloads[w].replica_set();
            for i in 0..web {
                plan.add_pod(namespace, format!("{rs}-{i:05}"), Some(w));
            }
        }
        if db > 0 {
            let w = plan.add_workload(WorkloadKind::StatefulSet, namespace, "db", db);
            for i in 0..db {
                plan.add_pod(namespace, format!("db-{i}"), Some(w));
            }
        }
        for i in 0..solo {
            plan.add_pod(namespace, format!("solo-{i}"), None);
        }
    }
    plan
}

impl MemberPlan {
    fn add_workload(
        &mut self,
        kind: WorkloadKind,
        namespace: &str,
        name: &str,
        replicas: usize,
    ) -> usize {
        self.workloads.push(Workload {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
            replicas,
        });
        self.workloads.len() - 1
    }

    fn add_pod(&mut self, namespace: &str, name: String, workload: Option<usize>) {
        // `create_nodes` numbers nodes from 1.
        let node = format!("node-{}", self.pods.len() % self.nodes + 1);
        self.pods.push(PodPlan {
            job: format!("{namespace}-{name}"),
            namespace: namespace.to_string(),
            name,
            node,
            workload,
        });
    }
}
