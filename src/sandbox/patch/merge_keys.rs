//! How strategic merge patch treats each list, from the `patchStrategy`/`patchMergeKey` tags
//! of Kubernetes' Go types (k8s.io/api), for the built-in kinds the sandbox serves.
//!
//! The real server reads the tags of the object's type; the sandbox has no Go types, so a
//! list is recognised by its field name and, where one name means different things, by the
//! name of the field that holds it (`ports` of a container vs. of a Service spec).

/// What a strategic merge does with a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ListStrategy {
    /// No patch strategy: the patch's list replaces the original (the default).
    Replace,
    /// `patchStrategy:"merge"` with `patchMergeKey`: items are objects matched by this key.
    MergeByKey(&'static str),
    /// `patchStrategy:"merge"` on a list of scalars: an unordered set.
    MergeScalars,
}

struct Rule {
    field: &'static str,
    /// Names of the field holding the list's object (for list items, the list's own
    /// field name); empty: wherever the field appears.
    parents: &'static [&'static str],
    strategy: ListStrategy,
}

const fn by_key(field: &'static str, key: &'static str) -> Rule {
    Rule {
        field,
        parents: &[],
        strategy: ListStrategy::MergeByKey(key),
    }
}

const fn by_key_in(
    field: &'static str,
    parents: &'static [&'static str],
    key: &'static str,
) -> Rule {
    Rule {
        field,
        parents,
        strategy: ListStrategy::MergeByKey(key),
    }
}

const CONTAINER_LISTS: &[&str] = &["containers", "initContainers", "ephemeralContainers"];

/// First matching rule wins. Lists not named here (tolerations, node taints, args,
/// command, envFrom, readinessGates, managedFields, ...) have no strategy: replaced.
const RULES: &[Rule] = &[
    // ObjectMeta
    Rule {
        field: "finalizers",
        parents: &["metadata"],
        strategy: ListStrategy::MergeScalars,
    },
    by_key_in("ownerReferences", &["metadata"], "uid"),
    // PodSpec
    by_key("containers", "name"),
    by_key("initContainers", "name"),
    by_key("ephemeralContainers", "name"),
    by_key("volumes", "name"),
    by_key("imagePullSecrets", "name"),
    by_key("hostAliases", "ip"),
    by_key("topologySpreadConstraints", "topologyKey"),
    by_key("schedulingGates", "name"),
    by_key_in("resourceClaims", &["spec"], "name"),
    // Container
    by_key_in("ports", CONTAINER_LISTS, "containerPort"),
    by_key("env", "name"),
    by_key("volumeMounts", "mountPath"),
    by_key("volumeDevices", "devicePath"),
    // ServiceSpec
    by_key_in("ports", &["spec"], "port"),
    // Status of pods, nodes, namespaces, workloads, PDBs: conditions by type
    by_key("conditions", "type"),
    by_key_in("podIPs", &["status"], "ip"),
    by_key_in("hostIPs", &["status"], "ip"),
    by_key_in("addresses", &["status"], "type"),
    // NodeSpec
    Rule {
        field: "podCIDRs",
        parents: &["spec"],
        strategy: ListStrategy::MergeScalars,
    },
];

/// The strategy for the list in `field` of an object held by `parent` (`None` at the root
/// of the document).
pub(super) fn list_strategy(parent: Option<&str>, field: &str) -> ListStrategy {
    RULES
        .iter()
        .find(|rule| {
            rule.field == field
                && (rule.parents.is_empty() || parent.is_some_and(|p| rule.parents.contains(&p)))
        })
        .map_or(ListStrategy::Replace, |rule| rule.strategy)
}
