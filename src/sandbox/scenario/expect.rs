//! `expect`: poll the target objects until they are in the expected state or the deadline
//! passes, then say what was last seen. [`check`] is the pure decision.

use super::objects::{Clusters, display_name};
use super::path;
use super::step_args::{ConditionCheck, Expectation};
use serde_json::Value;
use std::time::Duration;

/// Between two looks: short enough that a step ends soon after the state is reached.
const POLL: Duration = Duration::from_millis(100);

/// Waits until `expectation` holds on `cluster`; the note says what matched, the error what
/// was last seen.
pub async fn wait_for(
    clusters: &Clusters<'_>,
    cluster: &str,
    expectation: &Expectation,
    default_within: Duration,
) -> Result<String, String> {
    let within = expectation.within.unwrap_or(default_within);
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let seen = clusters
            .find(cluster, &expectation.target)
            .await
            .and_then(|objects| check(expectation, &objects));
        match seen {
            Ok(note) => return Ok(note),
            Err(why) if tokio::time::Instant::now() >= deadline => {
                return Err(format!("after {}: {why}", seconds(within)));
            }
            Err(_) => tokio::time::sleep(POLL).await,
        }
    }
}

fn seconds(d: Duration) -> String {
    crate::api::duration::format(d)
}

/// Whether `objects` (what the target matched) are as expected.
pub fn check(expectation: &Expectation, objects: &[Value]) -> Result<String, String> {
    let names = || {
        objects
            .iter()
            .map(display_name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !expectation.exists {
        return match objects.len() {
            0 => Ok("gone".into()),
            _ => Err(format!("still there: {}", names())),
        };
    }
    if objects.is_empty() {
        return Err("nothing matches yet".into());
    }
    if let Some(count) = expectation.count
        && objects.len() != count
    {
        return Err(format!(
            "{} match ({}), want {count}",
            objects.len(),
            names()
        ));
    }
    for object in objects {
        let problem = expectation
            .condition
            .as_ref()
            .map(|c| check_condition(c, object))
            .unwrap_or(Ok(()))
            .and_then(|()| check_fields(expectation, object));
        if let Err(why) = problem {
            return Err(format!("{}: {why}", display_name(object)));
        }
    }
    Ok(match (objects.len(), &expectation.condition) {
        (1, Some(c)) => describe(find_condition(&objects[0], &c.type_).unwrap_or(&Value::Null)),
        (1, None) => display_name(&objects[0]),
        (n, _) => format!("{n} objects"),
    })
}

fn find_condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

fn check_condition(want: &ConditionCheck, object: &Value) -> Result<(), String> {
    let Some(found) = find_condition(object, &want.type_) else {
        let present: Vec<&str> = object["status"]["conditions"]
            .as_array()
            .map(|cs| cs.iter().filter_map(|c| c["type"].as_str()).collect())
            .unwrap_or_default();
        return Err(match present.as_slice() {
            [] => format!("no {} condition yet (no conditions at all)", want.type_),
            _ => format!(
                "no {} condition yet (has {})",
                want.type_,
                present.join(", ")
            ),
        });
    };
    let status_ok = found["status"] == want.status.as_str();
    let reason_ok = want
        .reason
        .as_ref()
        .is_none_or(|r| found["reason"] == r.as_str());
    let message_ok = want.message.as_ref().is_none_or(|m| {
        found["message"]
            .as_str()
            .is_some_and(|text| text.contains(m.as_str()))
    });
    if status_ok && reason_ok && message_ok {
        return Ok(());
    }
    Err(format!("{}, want {}", describe(found), describe_want(want)))
}

/// `Executed=False (ClusterResourcePlacementEvictionNotExecuted: "Eviction is blocked ...")`
pub fn describe(condition: &Value) -> String {
    let text = |key: &str| condition[key].as_str().unwrap_or_default().to_string();
    let mut out = format!("{}={}", text("type"), text("status"));
    match (text("reason").as_str(), text("message").as_str()) {
        ("", "") => {}
        (reason, "") => out.push_str(&format!(" ({reason})")),
        (reason, message) => out.push_str(&format!(" ({reason}: {message:?})")),
    }
    out
}

fn describe_want(want: &ConditionCheck) -> String {
    let mut out = format!("{}={}", want.type_, want.status.as_str());
    if let Some(reason) = &want.reason {
        out.push_str(&format!(" reason {reason}"));
    }
    if let Some(message) = &want.message {
        out.push_str(&format!(" message containing {message:?}"));
    }
    out
}

fn check_fields(expectation: &Expectation, object: &Value) -> Result<(), String> {
    for (key, want) in &expectation.fields {
        let compiled = path::compile(key)?;
        let got = path::printed(&compiled, object);
        let want = path::scalar_text(want);
        if got != want {
            return Err(format!("{key} is {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "expect_tests.rs"]
mod tests;
