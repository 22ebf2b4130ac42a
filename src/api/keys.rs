//! Label, annotation and finalizer keys. Ours carry the `fleet-eviction.io/` prefix; keys that
//! belong to KubeFleet or Koordinator keep their owners' names and meanings.

/// Secret label naming the member cluster whose kubeconfig the Secret holds.
pub const MEMBER_CLUSTER_LABEL: &str = "fleet-eviction.io/member-cluster";
/// Finalizer held on evictions and jobs while we own something to clean up.
pub const CLEANUP_FINALIZER: &str = "fleet-eviction.io/cleanup";
/// External hand-off signal on bindings and pods: the name of the owning eviction or job.
pub const EVACUATION_REQUESTED: &str = "fleet-eviction.io/evacuation-requested";
/// When the hand-off was requested (RFC 3339).
pub const EVACUATION_REQUESTED_AT: &str = "fleet-eviction.io/evacuation-requested-at";
/// Pod and PDB label of the External pod policy: the job name.
pub const EVACUATION_LABEL: &str = "fleet-eviction.io/evacuation";
/// Pod or job label choosing the eviction policy (`Eviction`, `Delete`, `SoftEviction`, `External`).
pub const EVICT_POLICY: &str = "fleet-eviction.io/evict-policy";
/// Job annotation listing the profiles that contributed gates, comma-separated, in name order.
pub const PROFILES_ANNOTATION: &str = "fleet-eviction.io/profiles";
/// Job annotation set by our terminal write; garbage collection counts from it.
pub const FINISHED_AT_ANNOTATION: &str = "fleet-eviction.io/finished-at";
/// Label on jobs fanned out from a fleet eviction: the eviction's name.
pub const EVICTION_LABEL: &str = "fleet-eviction.io/eviction";
/// Sandbox only: marks placements the KubeFleet stand-in manages.
pub const SANDBOX_SIMULATE_LABEL: &str = "sandbox.fleet-eviction.io/simulate";

/// KubeFleet: binding label naming its placement.
pub const PARENT_CRP_LABEL: &str = "kubernetes-fleet.io/parent-CRP";
/// KubeFleet: binding annotation recording the state before `Unscheduled`.
pub const PREVIOUS_BINDING_STATE_ANNOTATION: &str = "kubernetes-fleet.io/previous-binding-state";

/// Koordinator: pod or job label choosing the eviction policy.
pub const KOORD_EVICT_POLICY: &str = "koordinator.sh/evict-policy";
/// Koordinator: job annotation with the human reason of an eviction.
pub const KOORD_EVICT_REASON: &str = "koordinator.sh/evict-reason";
/// Koordinator: job annotation naming what triggered an eviction.
pub const KOORD_EVICT_TRIGGER: &str = "koordinator.sh/evict-trigger";
/// Koordinator: jobs carrying it belong to a koord-descheduler instance; we skip them.
pub const KOORD_JOB_CREATED_BY: &str = "koordinator.sh/job-created-by";
/// Koordinator: pod annotation of the SoftEviction policy.
pub const KOORD_SOFT_EVICTION: &str = "scheduling.koordinator.sh/soft-eviction";
/// Koordinator: job annotation set once arbitration admitted the job.
pub const KOORD_PASSED_ARBITRATION: &str = "descheduler.koordinator.sh/passed-arbitration";
