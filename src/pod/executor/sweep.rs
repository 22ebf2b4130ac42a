//! §4 External step 5, the orphan sweep: PDBs, labels and signals naming jobs that no longer
//! exist are removed, once the caches have synced and then every `sweep_interval`. A job
//! deleted while the executor was down, or whose cleanup was cut short, leaves nothing behind.

use super::Context;
use crate::api::keys::{EVACUATION_LABEL, EVACUATION_REQUESTED};
use crate::pod::policy::evacuation_label;
use crate::pod::step::PodCleanup;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

pub async fn every(ctx: Arc<Context>, interval: Duration) {
    loop {
        if let Err(e) = sweep(&ctx).await {
            tracing::warn!(member = %ctx.member, "orphan sweep failed, retrying next time: {e}");
        }
        tokio::time::sleep(interval).await;
    }
}

/// Jobs by name and by label value, as the API has them now (never from the cache alone: a
/// job the cache has not seen yet must not lose its PDB).
struct Existing {
    names: HashSet<String>,
    labels: HashSet<String>,
}

async fn existing(ctx: &Context) -> kube::Result<Existing> {
    let jobs = ctx.writer.list_jobs().await?;
    let names: HashSet<String> = jobs
        .iter()
        .filter_map(|j| j.metadata.name.clone())
        .collect();
    let labels = names.iter().map(|n| evacuation_label(n)).collect();
    Ok(Existing { names, labels })
}

async fn sweep(ctx: &Context) -> kube::Result<()> {
    let cached: HashSet<String> = ctx
        .caches
        .jobs
        .read()
        .keys_snapshot()
        .into_iter()
        .map(|n| evacuation_label(&n))
        .collect();
    let pdbs: Vec<_> = ctx
        .caches
        .pdbs
        .read()
        .ours()
        .into_iter()
        .filter(|(_, pdb)| pdb.evacuation.as_ref().is_some_and(|l| !cached.contains(l)))
        .collect();
    let pods = ctx.writer.marked_pods().await?;
    if pdbs.is_empty() && pods.is_empty() {
        return Ok(());
    }
    let existing = existing(ctx).await?;
    for (namespace, pdb) in pdbs {
        let label = pdb.evacuation.clone().unwrap_or_default();
        if !existing.labels.contains(&label) {
            tracing::info!(member = %ctx.member, pdb = %pdb.name, namespace = %namespace, job = %label, "removing the PDB of a job that no longer exists");
            ctx.writer
                .delete_pdb(&namespace, &pdb.name, &pdb.uid)
                .await?;
        }
    }
    for pod in pods {
        let meta = &pod.metadata;
        let label = meta
            .labels
            .as_ref()
            .and_then(|l| l.get(EVACUATION_LABEL))
            .cloned();
        let signal = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(EVACUATION_REQUESTED))
            .cloned();
        let orphan_label = label.as_ref().is_some_and(|l| !existing.labels.contains(l));
        let orphan_signal = signal.as_ref().is_some_and(|s| !existing.names.contains(s));
        if !orphan_label && !orphan_signal {
            continue;
        }
        let namespace = meta.namespace.clone().unwrap_or_default();
        let cleanup = PodCleanup {
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            label: orphan_label,
            annotations: orphan_signal,
        };
        tracing::info!(member = %ctx.member, pod = %cleanup.name, namespace = %namespace, "removing the marks of a job that no longer exists");
        ctx.writer
            .unmark_pod(
                &namespace,
                &cleanup,
                signal.as_deref().unwrap_or_default(),
                label.as_deref().unwrap_or_default(),
            )
            .await?;
    }
    Ok(())
}
