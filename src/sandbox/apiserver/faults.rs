//! Injected trouble, per server: added latency, error answers by rate, verb and resource,
//! dropped watches, and being unreachable.

use super::rng::Rng;
use super::status::ApiError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Answer a share of matching requests with an error instead of serving them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorRule {
    /// Share of matching requests, 0.0 to 1.0.
    pub rate: f64,
    /// 500, 429 or 409.
    pub code: u16,
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, ...; all when absent.
    #[serde(default)]
    pub verb: Option<String>,
    /// A plural such as `pods` or `clusterresourcebindings`; all when absent.
    #[serde(default)]
    pub resource: Option<String>,
}

/// The faults in force on one server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultSettings {
    /// Added before every API request is served.
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub errors: Vec<ErrorRule>,
    /// Refuse every connection (HTTP: reset; in process: a transport error).
    #[serde(default)]
    pub unreachable: bool,
}

impl FaultSettings {
    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms)
    }

    /// The error to answer with instead of serving, drawn from `rng`.
    pub fn injected_error(&self, verb: &str, resource: &str, rng: &mut Rng) -> Option<ApiError> {
        let rule = self.errors.iter().find(|r| {
            r.verb.as_deref().is_none_or(|v| v == verb)
                && r.resource.as_deref().is_none_or(|res| res == resource)
        })?;
        if rng.unit() >= rule.rate {
            return None;
        }
        Some(error_for(rule.code))
    }
}

fn error_for(code: u16) -> ApiError {
    match code {
        429 => ApiError::too_many_requests(
            "injected fault: too many requests, please try again later",
            Vec::new(),
        ),
        409 => ApiError::custom(
            409,
            "Conflict",
            "injected fault: the object has been modified; please apply your changes to the latest version and try again",
        ),
        _ => ApiError::internal(
            "injected fault: an error on the server has prevented the request from succeeding",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(rate: f64, code: u16, verb: Option<&str>, resource: Option<&str>) -> ErrorRule {
        ErrorRule {
            rate,
            code,
            verb: verb.map(Into::into),
            resource: resource.map(Into::into),
        }
    }

    #[test]
    fn rules_match_by_verb_and_resource_and_rate() {
        let settings = FaultSettings {
            errors: vec![
                rule(1.0, 429, Some("create"), Some("pods")),
                rule(0.0, 500, None, None),
            ],
            ..Default::default()
        };
        let mut rng = Rng::new(3);
        let rows = [
            (
                "verb and resource match: always",
                "create",
                "pods",
                Some(429),
            ),
            ("other verb falls to the rate-0 rule", "get", "pods", None),
            (
                "other resource falls to the rate-0 rule",
                "create",
                "nodes",
                None,
            ),
        ];
        for (rule, verb, resource, want) in rows {
            let got = settings
                .injected_error(verb, resource, &mut rng)
                .map(|e| e.code);
            assert_eq!(got, want, "{rule}");
        }
    }

    #[test]
    fn a_half_rate_hits_about_half() {
        let settings = FaultSettings {
            errors: vec![rule(0.5, 500, None, None)],
            ..Default::default()
        };
        let mut rng = Rng::new(42);
        let hits = (0..10_000)
            .filter(|_| settings.injected_error("get", "pods", &mut rng).is_some())
            .count();
        assert!((4_500..5_500).contains(&hits), "{hits}");
    }
}
