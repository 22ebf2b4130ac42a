//! The final picture after the timeline: one row per eviction on the hub (what a newcomer
//! would otherwise read from `kubectl get crpe` and `describe`), then each placement's
//! bindings. [`render`] is pure; [`read`] fetches what it shows.

use super::objects::{Clusters, name_of};
use super::step::HUB;
use super::step_args::Target;
use crate::api::keys::PARENT_CRP_LABEL;
use serde_json::Value;
use std::collections::BTreeMap;

const GROUP_VERSION: &str = "placement.kubernetes-fleet.io/v1beta1";

/// What the report shows, as read from the hub (an error in place of a list it could not
/// read).
pub struct Snapshot {
    pub evictions: Result<Vec<Value>, String>,
    pub placements: Result<Vec<Value>, String>,
    pub bindings: Result<Vec<Value>, String>,
}

pub async fn read(clusters: &Clusters<'_>) -> Snapshot {
    let list = |kind: &str| Target {
        kind: Some(kind.to_string()),
        api_version: Some(GROUP_VERSION.to_string()),
        ..Target::default()
    };
    Snapshot {
        evictions: clusters
            .find(HUB, &list("ClusterResourcePlacementEviction"))
            .await,
        placements: clusters.find(HUB, &list("ClusterResourcePlacement")).await,
        bindings: clusters.find(HUB, &list("ClusterResourceBinding")).await,
    }
}

/// The report as text, ending with a newline.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::from("Evictions on the hub (kubectl get crpe):\n");
    match &snapshot.evictions {
        Err(why) => out.push_str(&format!("  cannot read them: {why}\n")),
        Ok(list) if list.is_empty() => out.push_str("  none\n"),
        Ok(list) => {
            // In the order they were created, as the timeline made them.
            let mut list: Vec<&Value> = list.iter().collect();
            list.sort_by_key(|e| {
                let created = e["metadata"]["creationTimestamp"]
                    .as_str()
                    .unwrap_or_default();
                (created.to_string(), name_of(e))
            });
            out.push_str(&eviction_table(&list));
        }
    }
    out.push_str("Placements and their bindings on the hub:\n");
    match (&snapshot.placements, &snapshot.bindings) {
        (Err(why), _) | (_, Err(why)) => out.push_str(&format!("  cannot read them: {why}\n")),
        (Ok(placements), _) if placements.is_empty() => out.push_str("  none\n"),
        (Ok(placements), Ok(bindings)) => out.push_str(&binding_lines(placements, bindings)),
    }
    out
}

fn eviction_table(evictions: &[&Value]) -> String {
    let header = [
        "NAME",
        "PLACEMENT",
        "CLUSTER",
        "VALID",
        "EXECUTED",
        "STAGE",
        "MESSAGE",
    ];
    let rows: Vec<[String; 7]> = evictions.iter().map(|e| eviction_row(e)).collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 7]| {
        // The message is last and free-running: no padding after it.
        let mut padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        padded[6] = cells[6].to_string();
        format!("  {}\n", padded.join("  "))
    };
    let mut out = line(header);
    for row in &rows {
        out.push_str(&line(row.each_ref().map(String::as_str)));
    }
    out
}

fn eviction_row(eviction: &Value) -> [String; 7] {
    let text = |v: &Value| {
        v.as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or("-")
            .to_string()
    };
    let condition = |type_: &str| {
        eviction["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
    };
    let field =
        |type_: &str, key: &str| condition(type_).map_or("-".to_string(), |c| text(&c[key]));
    let valid = field("Valid", "status");
    let message = if condition("Executed").is_some() {
        field("Executed", "message")
    } else if valid == "False" {
        field("Valid", "message")
    } else if condition("Progressing").is_some() {
        field("Progressing", "message")
    } else if valid == "-" {
        "(no controller has acted on it yet)".to_string()
    } else {
        "-".to_string()
    };
    [
        name_of(eviction),
        text(&eviction["spec"]["placementName"]),
        text(&eviction["spec"]["clusterName"]),
        valid,
        field("Executed", "status"),
        field("Progressing", "reason"),
        message,
    ]
}

fn binding_lines(placements: &[Value], bindings: &[Value]) -> String {
    let mut by_placement: BTreeMap<String, Vec<&Value>> = placements
        .iter()
        .map(|p| (name_of(p), Vec::new()))
        .collect();
    for binding in bindings {
        let parent = binding["metadata"]["labels"][PARENT_CRP_LABEL]
            .as_str()
            .unwrap_or("(no placement label)");
        by_placement
            .entry(parent.to_string())
            .or_default()
            .push(binding);
    }
    let width = by_placement
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (placement, mut list) in by_placement {
        list.sort_by_key(|b| {
            b["spec"]["targetCluster"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        });
        let described: Vec<String> = list.iter().map(|b| binding_summary(b)).collect();
        let text = if described.is_empty() {
            "no bindings".to_string()
        } else {
            described.join(", ")
        };
        out.push_str(&format!("  {placement:<width$}  {text}\n"));
    }
    out
}

/// `member-1 (Bound, Available=True)`, with `deleting` while a deletion is under way.
fn binding_summary(binding: &Value) -> String {
    let cluster = binding["spec"]["targetCluster"].as_str().unwrap_or("?");
    let state = binding["spec"]["state"].as_str().unwrap_or("?");
    let available = binding["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"))
        .and_then(|c| c["status"].as_str())
        .unwrap_or("-");
    let deleting = if binding["metadata"]["deletionTimestamp"].is_string() {
        ", deleting"
    } else {
        ""
    };
    format!("{cluster} ({state}{deleting}, Available={available})")
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
