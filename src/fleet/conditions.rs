//! The conditions we write, built from the strings of `messages`: one constructor per
//! condition and status, so plain and extended evictions write them identically.

use super::messages::*;
use super::step::{Note, WantedCondition};
use super::validation::Invalid;

pub fn valid() -> WantedCondition {
    WantedCondition::new(VALID, "True", REASON_VALID, VALID_MESSAGE)
}

pub fn invalid(why: &str) -> WantedCondition {
    WantedCondition::new(VALID, "False", REASON_INVALID, why)
}

pub fn invalid_because(why: Invalid) -> WantedCondition {
    invalid(why.message())
}

pub fn executed(message: impl Into<String>) -> WantedCondition {
    WantedCondition::new(EXECUTED, "True", REASON_EXECUTED, message)
}

pub fn not_executed(reason: &str, message: impl Into<String>) -> WantedCondition {
    WantedCondition::new(EXECUTED, "False", reason, message)
}

pub fn stage(reason: &'static str, message: impl Into<String>) -> WantedCondition {
    WantedCondition::new(PROGRESSING, "True", reason, message)
}

/// `Progressing=False` at the end: reason Succeeded or Failed, message the Executed message.
pub fn finished(succeeded: bool, message: impl Into<String>) -> WantedCondition {
    let reason = if succeeded {
        STAGE_SUCCEEDED
    } else {
        STAGE_FAILED
    };
    WantedCondition::new(PROGRESSING, "False", reason, message)
}

pub fn reserved() -> WantedCondition {
    WantedCondition::new(BUDGET_RESERVED, "True", REASON_RESERVED, RESERVED)
}

pub fn released() -> WantedCondition {
    WantedCondition::new(BUDGET_RESERVED, "False", REASON_RELEASED, RELEASED)
}

pub fn external_requested() -> WantedCondition {
    WantedCondition::new(
        EXTERNAL_EVACUATION,
        "Unknown",
        REASON_REQUESTED,
        EXTERNAL_REQUESTED,
    )
}

/// The Event that reports `condition`: same reason and message; Warning for invalid,
/// not executed, denied, failed and timed-out verdicts (§6).
pub fn note_for(condition: &WantedCondition) -> Note {
    let warning = match condition.type_ {
        VALID | EXECUTED => condition.status == "False",
        _ => false,
    };
    Note {
        warning,
        about: condition.type_,
        reason: condition.reason.clone(),
        message: condition.message.clone(),
    }
}
