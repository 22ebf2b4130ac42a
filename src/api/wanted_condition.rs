//! A status condition a controller owns, as a decision wants it written: the one shape both
//! levels (evictions, PodMigrationJobs) hand to their status merge.

/// One condition we own, as the decision wants it (type, status, reason, message; the
/// merge adds observedGeneration and lastTransitionTime).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WantedCondition {
    pub type_: &'static str,
    pub status: &'static str,
    pub reason: String,
    pub message: String,
}

impl WantedCondition {
    pub fn new(
        type_: &'static str,
        status: &'static str,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        WantedCondition {
            type_,
            status,
            reason: reason.into(),
            message: message.into(),
        }
    }
}
