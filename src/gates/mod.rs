//! Condition gating, the one implementation both levels use (fleet-eviction.md §5,
//! pod-migration.md §3).
//!
//! Gate `X` is met when the object's status holds a condition of type `X` with status `True`,
//! denied when that status is `False`, and waiting when the condition is absent or `Unknown`.
//! External controllers write these conditions; the controller only reads them.

/// One status condition as the gates see it, whatever the object's condition type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservedCondition<'a> {
    pub type_: &'a str,
    pub status: &'a str,
    pub message: &'a str,
}

/// What the gates say about going ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateVerdict {
    /// Every gate is met (also when there are none).
    Open,
    /// Some gates are not met yet: their names, in the order the object lists them.
    Waiting(Vec<String>),
    /// A gate was denied: the first denied gate in list order and its condition's message.
    /// Denial wins over waiting, since it ends the eviction whatever the other gates say.
    Denied { gate: String, message: String },
}

/// Decides the gates of an object from its status conditions. When a condition type appears
/// more than once (lists that are not keyed maps), the first occurrence counts.
pub fn evaluate<'a>(
    gates: impl IntoIterator<Item = &'a str>,
    conditions: &[ObservedCondition<'_>],
) -> GateVerdict {
    let mut waiting = Vec::new();
    for gate in gates {
        match conditions
            .iter()
            .find(|c| c.type_ == gate)
            .map(|c| (c.status, c.message))
        {
            Some(("True", _)) => {}
            Some(("False", message)) => {
                return GateVerdict::Denied {
                    gate: gate.to_string(),
                    message: message.to_string(),
                };
            }
            _ => waiting.push(gate.to_string()),
        }
    }
    if waiting.is_empty() {
        GateVerdict::Open
    } else {
        GateVerdict::Waiting(waiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(type_: &'a str, status: &'a str, message: &'a str) -> ObservedCondition<'a> {
        ObservedCondition {
            type_,
            status,
            message,
        }
    }

    fn waiting(names: &[&str]) -> GateVerdict {
        GateVerdict::Waiting(names.iter().map(|n| n.to_string()).collect())
    }

    fn denied(gate: &str, message: &str) -> GateVerdict {
        GateVerdict::Denied {
            gate: gate.into(),
            message: message.into(),
        }
    }

    #[test]
    fn gate_table() {
        let cases: Vec<(&str, Vec<&str>, Vec<ObservedCondition>, GateVerdict)> = vec![
            ("no gates: open", vec![], vec![], GateVerdict::Open),
            (
                "absent condition: waiting",
                vec!["A"],
                vec![],
                waiting(&["A"]),
            ),
            (
                "Unknown: waiting",
                vec!["A"],
                vec![c("A", "Unknown", "")],
                waiting(&["A"]),
            ),
            (
                "True: met",
                vec!["A"],
                vec![c("A", "True", "")],
                GateVerdict::Open,
            ),
            (
                "False: denied with its message",
                vec!["A"],
                vec![c("A", "False", "risk too high")],
                denied("A", "risk too high"),
            ),
            (
                "odd status: waiting, not met",
                vec!["A"],
                vec![c("A", "true", "")],
                waiting(&["A"]),
            ),
            (
                "all met",
                vec!["A", "B"],
                vec![c("B", "True", ""), c("A", "True", "")],
                GateVerdict::Open,
            ),
            (
                "waiting list keeps gate order",
                vec!["B", "A", "C"],
                vec![c("A", "True", "")],
                waiting(&["B", "C"]),
            ),
            (
                "denial wins over waiting",
                vec!["A", "B"],
                vec![c("B", "False", "no")],
                denied("B", "no"),
            ),
            (
                "first denied gate in list order",
                vec!["A", "B"],
                vec![c("B", "False", "b"), c("A", "False", "a")],
                denied("A", "a"),
            ),
            (
                "other conditions ignored",
                vec!["A"],
                vec![c("Valid", "True", ""), c("Executed", "False", "")],
                waiting(&["A"]),
            ),
            (
                "first occurrence of a repeated type counts",
                vec!["A"],
                vec![c("A", "True", ""), c("A", "False", "stale")],
                GateVerdict::Open,
            ),
        ];
        for (rule, gates, conditions, want) in cases {
            assert_eq!(
                evaluate(gates.iter().copied(), &conditions),
                want,
                "rule: {rule}"
            );
        }
    }
}
