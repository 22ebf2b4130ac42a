//! The steps that change something: each returns a short note of what it did (shown in the
//! timeline) or why it failed.

use super::expect;
use super::format::Manifest;
use super::objects::{Clusters, describe_error, display_name};
use super::pods;
use super::retry::retry_while_busy;
use super::set_condition;
use super::step::{Action, Step};
use super::step_args::{Faults, Target};
use crate::sandbox::apiserver::faults::FaultSettings;
use kube::api::{DeleteParams, DynamicObject, PostParams};

/// Does what `step` says; `default_within` is the deadline of an `expect` without `within`.
pub async fn run(
    clusters: &Clusters<'_>,
    step: &Step,
    default_within: std::time::Duration,
) -> Result<String, String> {
    let cluster = step.cluster.as_str();
    match &step.action {
        Action::Create(objects) => create(clusters, cluster, objects).await,
        Action::Delete(target) => delete(clusters, cluster, target).await,
        Action::SetCondition(set) => set_condition::run(clusters, cluster, set).await,
        Action::BreakPods(selection) => pods::set_broken(clusters, cluster, selection, true).await,
        Action::FixPods(selection) => pods::set_broken(clusters, cluster, selection, false).await,
        Action::Unreachable(name) => set_reachable(clusters, name, false),
        Action::Reachable(name) => set_reachable(clusters, name, true),
        Action::DropWatches(name) => {
            clusters.cluster(name)?.server.drop_watches();
            Ok(format!("dropped every watch on {name}"))
        }
        Action::Faults(faults) => set_faults(clusters, cluster, faults),
        Action::Reschedule(placement) => {
            let created = clusters
                .fleet()
                .hub_sim
                .reschedule(placement)
                .await
                .map_err(|e| e.to_string())?;
            Ok(match created.len() {
                0 => "no binding was missing".to_string(),
                _ => format!("new bindings {}", created.join(", ")),
            })
        }
        Action::Wait(pause) => {
            tokio::time::sleep(*pause).await;
            Ok(String::new())
        }
        Action::Expect(expectation) => {
            expect::wait_for(clusters, cluster, expectation, default_within).await
        }
    }
}

/// Creates `objects` on `cluster` in order; stops at the first refusal.
pub async fn create(
    clusters: &Clusters<'_>,
    cluster: &str,
    objects: &[Manifest],
) -> Result<String, String> {
    let mut created = Vec::new();
    for object in objects {
        let what = format!("{} {}", object.kind(), object.display_name());
        let kind = clusters
            .kind_of(cluster, object)
            .await
            .map_err(|e| format!("{what}: {e}"))?;
        let mut value = object.0.clone();
        if kind.namespaced && value["metadata"]["namespace"].is_null() {
            value["metadata"]["namespace"] = "default".into();
        }
        let namespace = value["metadata"]["namespace"].as_str().map(str::to_string);
        let dynamic: DynamicObject =
            serde_json::from_value(value).map_err(|e| format!("{what}: {e}"))?;
        let api = clusters.api(cluster, &kind, namespace.as_deref())?;
        let params = PostParams::default();
        retry_while_busy(|| api.create(&params, &dynamic))
            .await
            .map_err(|e| format!("{what} refused: {}", describe_error(&e)))?;
        created.push(what);
    }
    Ok(match created.as_slice() {
        [one] => format!("created {one}"),
        many => format!("created {} objects", many.len()),
    })
}

async fn delete(clusters: &Clusters<'_>, cluster: &str, target: &Target) -> Result<String, String> {
    let found = clusters.find(cluster, target).await?;
    if found.is_empty() {
        return Err(format!("nothing on {cluster} matches"));
    }
    let (kind, _) = clusters.selection(cluster, target).await?;
    let mut deleted = Vec::new();
    let params = DeleteParams::default();
    for object in &found {
        let api = clusters.api(cluster, &kind, object["metadata"]["namespace"].as_str())?;
        let name = super::objects::name_of(object);
        match retry_while_busy(|| api.delete(&name, &params)).await {
            Ok(_) => deleted.push(display_name(object)),
            // Gone meanwhile: what the step wanted.
            Err(kube::Error::Api(status)) if status.is_not_found() => {
                deleted.push(display_name(object))
            }
            Err(e) => return Err(format!("{}: {}", display_name(object), describe_error(&e))),
        }
    }
    Ok(format!("deleted {}", deleted.join(", ")))
}

fn set_reachable(clusters: &Clusters<'_>, name: &str, reachable: bool) -> Result<String, String> {
    clusters.cluster(name)?.server.set_unreachable(!reachable);
    Ok(if reachable {
        format!("{name} answers again")
    } else {
        format!("{name} refuses every connection")
    })
}

fn set_faults(clusters: &Clusters<'_>, cluster: &str, faults: &Faults) -> Result<String, String> {
    let server = &clusters.cluster(cluster)?.server;
    server.set_faults(FaultSettings {
        latency_ms: faults.latency_ms,
        errors: faults.errors.clone(),
        unreachable: server.is_unreachable(),
    });
    Ok(if faults.latency_ms == 0 && faults.errors.is_empty() {
        format!("no more faults on {cluster}")
    } else {
        format!(
            "{cluster}: {} ms latency, {} error rule(s)",
            faults.latency_ms,
            faults.errors.len()
        )
    })
}
