//! The `Status` bodies the eviction subresource answers with when it refuses.

use crate::sandbox::go_quote::go_quote;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Status, StatusCause, StatusDetails};

const VIOLATES_BUDGET: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

/// A refused eviction: the HTTP code and the `Status` fields, exactly as kube-apiserver sends
/// them (a 429 carries `Retry-After` when `details.retryAfterSeconds` is set).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub code: u16,
    /// `TooManyRequests`, `Forbidden`, or none (the 500 for several budgets has no reason).
    pub reason: Option<String>,
    pub message: String,
    pub details: Option<StatusDetails>,
}

impl Refusal {
    /// The response body: a `v1` `Status` with `status: Failure`.
    pub fn to_status(&self) -> Status {
        Status {
            code: Some(i32::from(self.code)),
            details: self.details.clone(),
            message: Some(self.message.clone()),
            reason: self.reason.clone(),
            status: Some("Failure".to_string()),
            ..Status::default()
        }
    }

    /// The `Retry-After` header value, when the server suggests one.
    pub fn retry_after_seconds(&self) -> Option<i32> {
        let details = self.details.as_ref()?;
        details.retry_after_seconds.filter(|seconds| *seconds > 0)
    }

    /// The apiserver returns this as a plain `Status` object rather than an error, so it has
    /// a code and a message but no reason.
    pub(super) fn several_budgets() -> Self {
        Self {
            code: 500,
            reason: None,
            message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.".to_string(),
            details: None,
        }
    }

    /// The budget's spec changed and its status has not caught up yet.
    pub(super) fn budget_still_processing(pdb_name: &str) -> Self {
        let cause =
            format!("The disruption budget {pdb_name} is still being processed by the server.");
        Self::too_many_requests(cause, Some(10))
    }

    /// `disruptionsAllowed` is 0.
    pub(super) fn budget_exhausted(
        pdb_name: &str,
        desired_healthy: i32,
        current_healthy: i32,
    ) -> Self {
        let cause = format!(
            "The disruption budget {pdb_name} needs {desired_healthy} healthy pods and has {current_healthy} currently"
        );
        // The apiserver passes a retry-after of 0 here, which leaves the field out.
        Self::too_many_requests(cause, None)
    }

    /// `errors.NewForbidden(policy.Resource("poddisruptionbudget"), name, err)`.
    pub(super) fn budget_forbidden(pdb_name: &str, problem: &str) -> Self {
        Self {
            code: 403,
            reason: Some("Forbidden".to_string()),
            message: format!(
                "poddisruptionbudget.policy {} is forbidden: {problem}",
                go_quote(pdb_name)
            ),
            details: Some(StatusDetails {
                group: Some("policy".to_string()),
                kind: Some("poddisruptionbudget".to_string()),
                name: Some(pdb_name.to_string()),
                ..StatusDetails::default()
            }),
        }
    }

    fn too_many_requests(cause_message: String, retry_after_seconds: Option<i32>) -> Self {
        let cause = StatusCause {
            reason: Some("DisruptionBudget".to_string()),
            message: Some(cause_message),
            field: None,
        };
        Self {
            code: 429,
            reason: Some("TooManyRequests".to_string()),
            message: VIOLATES_BUDGET.to_string(),
            details: Some(StatusDetails {
                causes: Some(vec![cause]),
                retry_after_seconds,
                ..StatusDetails::default()
            }),
        }
    }
}
