//! §4 Budget arithmetic: how many more clusters voluntary evictions may take the placement
//! off, given `A` available and `T` total bindings.

use super::view::PlacementKind;
use crate::api::budget::BudgetSpec;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// The numbers a budget decision used, echoed in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// `A`: bindings that count as available.
    pub available: i64,
    /// `T`: every binding of the placement.
    pub total: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetOutcome {
    /// §3 e: maxUnavailable, or a percentage minAvailable, on a PickAll placement.
    Misconfigured,
    Allowed(Counts),
    Blocked(Counts),
}

/// Decides an eviction against the budget of its placement.
pub fn judge(kind: &PlacementKind, budget: &BudgetSpec, counts: Counts) -> BudgetOutcome {
    match allowed_disruptions(kind, budget, counts) {
        None => BudgetOutcome::Misconfigured,
        Some(allowed) if allowed > 0 => BudgetOutcome::Allowed(counts),
        Some(_) => BudgetOutcome::Blocked(counts),
    }
}

/// Allowed disruptions, or `None` when the budget does not fit the placement type. A value
/// that does not parse (the CRD refuses those) is treated as misconfigured, never as "no limit".
fn allowed_disruptions(kind: &PlacementKind, budget: &BudgetSpec, counts: Counts) -> Option<i64> {
    let Counts { available, total } = counts;
    let clusters = match kind {
        PlacementKind::PickN(n) => *n,
        _ => 0,
    };
    let pick_all = !matches!(kind, PlacementKind::PickN(_));
    match (&budget.max_unavailable, &budget.min_available) {
        (Some(max), _) => {
            if pick_all {
                return None;
            }
            Some(scale(max, clusters)? - (total - available))
        }
        (None, Some(min)) => {
            if pick_all && matches!(min, IntOrString::String(_)) {
                return None;
            }
            Some(available - scale(min, clusters)?)
        }
        // `spec: {}` blocks every eviction.
        (None, None) => Some(0),
    }
}

/// An integer as is; a percentage of `clusters`, rounded up.
fn scale(value: &IntOrString, clusters: i64) -> Option<i64> {
    match value {
        IntOrString::Int(n) => Some(i64::from(*n)),
        IntOrString::String(s) => {
            let percent = parse_percent(s)?;
            Some((percent * clusters + 99) / 100)
        }
    }
}

/// `"34%"` → 34, `"02%"` → 2; the CRD's pattern `^(100|[0-9]{1,2})%$`.
pub fn parse_percent(value: &str) -> Option<i64> {
    let digits = value.strip_suffix('%')?;
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let percent: i64 = digits.parse().ok()?;
    (percent <= 100).then_some(percent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i32) -> IntOrString {
        IntOrString::Int(n)
    }

    fn pct(s: &str) -> IntOrString {
        IntOrString::String(s.into())
    }

    fn min(v: IntOrString) -> BudgetSpec {
        BudgetSpec {
            min_available: Some(v),
            max_unavailable: None,
        }
    }

    fn max(v: IntOrString) -> BudgetSpec {
        BudgetSpec {
            min_available: None,
            max_unavailable: Some(v),
        }
    }

    fn counts(available: i64, total: i64) -> Counts {
        Counts { available, total }
    }

    #[test]
    fn type_by_budget_table() {
        use BudgetOutcome::*;
        use PlacementKind::*;
        let empty = BudgetSpec::default();
        let rows: Vec<(&str, PlacementKind, BudgetSpec, Counts, BudgetOutcome)> = vec![
            (
                "PickAll, min int: A − min > 0 allows",
                PickAll,
                min(int(2)),
                counts(3, 3),
                Allowed(counts(3, 3)),
            ),
            (
                "PickAll, min int: A − min = 0 blocks",
                PickAll,
                min(int(2)),
                counts(2, 3),
                Blocked(counts(2, 3)),
            ),
            (
                "PickAll, min %: misconfigured",
                PickAll,
                min(pct("50%")),
                counts(3, 3),
                Misconfigured,
            ),
            (
                "PickAll, max int: misconfigured",
                PickAll,
                max(int(1)),
                counts(3, 3),
                Misconfigured,
            ),
            (
                "PickAll, max %: misconfigured",
                PickAll,
                max(pct("50%")),
                counts(3, 3),
                Misconfigured,
            ),
            (
                "PickAll, empty spec: blocked",
                PickAll,
                empty.clone(),
                counts(3, 3),
                Blocked(counts(3, 3)),
            ),
            (
                "PickN, min int allows",
                PickN(3),
                min(int(2)),
                counts(3, 3),
                Allowed(counts(3, 3)),
            ),
            (
                "PickN, min int blocks",
                PickN(3),
                min(int(3)),
                counts(3, 3),
                Blocked(counts(3, 3)),
            ),
            (
                "PickN, min %: \"34%\" of 3 is 2, A=3 allows",
                PickN(3),
                min(pct("34%")),
                counts(3, 3),
                Allowed(counts(3, 3)),
            ),
            (
                "PickN, min %: \"34%\" of 3 is 2, A=2 blocks",
                PickN(3),
                min(pct("34%")),
                counts(2, 3),
                Blocked(counts(2, 3)),
            ),
            (
                "PickN, min %: \"02%\" of 3 rounds up to 1",
                PickN(3),
                min(pct("02%")),
                counts(2, 3),
                Allowed(counts(2, 3)),
            ),
            (
                "PickN, min %: \"100%\" blocks",
                PickN(4),
                min(pct("100%")),
                counts(4, 4),
                Blocked(counts(4, 4)),
            ),
            (
                "PickN, max int: max − (T − A) > 0 allows",
                PickN(3),
                max(int(1)),
                counts(3, 3),
                Allowed(counts(3, 3)),
            ),
            (
                "PickN, max int: one already unavailable blocks",
                PickN(3),
                max(int(1)),
                counts(2, 3),
                Blocked(counts(2, 3)),
            ),
            (
                "PickN, max %: \"34%\" of 3 is 2, one down allows",
                PickN(3),
                max(pct("34%")),
                counts(2, 3),
                Allowed(counts(2, 3)),
            ),
            (
                "PickN, max %: \"0%\" blocks",
                PickN(3),
                max(pct("0%")),
                counts(3, 3),
                Blocked(counts(3, 3)),
            ),
            (
                "PickN, max counts deleting bindings in T",
                PickN(3),
                max(int(2)),
                counts(2, 4),
                Blocked(counts(2, 4)),
            ),
            (
                "PickN, empty spec: blocked",
                PickN(3),
                empty,
                counts(3, 3),
                Blocked(counts(3, 3)),
            ),
            (
                "PickN without numberOfClusters scales against 0",
                PickN(0),
                min(pct("50%")),
                counts(1, 1),
                Allowed(counts(1, 1)),
            ),
            (
                "unparsable percentage is misconfigured, not unlimited",
                PickN(3),
                max(pct("lots")),
                counts(3, 3),
                Misconfigured,
            ),
        ];
        for (rule, kind, budget, c, want) in rows {
            assert_eq!(judge(&kind, &budget, c), want, "rule: {rule}");
        }
    }

    #[test]
    fn percent_parsing() {
        let rows = [
            ("34%", Some(34)),
            ("02%", Some(2)),
            ("0%", Some(0)),
            ("100%", Some(100)),
            ("101%", None),
            ("1000%", None),
            ("%", None),
            ("34", None),
            ("-3%", None),
            (" 3%", None),
        ];
        for (input, want) in rows {
            assert_eq!(parse_percent(input), want, "input {input:?}");
        }
    }
}
