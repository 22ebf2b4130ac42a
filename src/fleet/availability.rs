//! §4.3 The safety fix: a binding that is being deleted, or that another eviction holds a
//! budget reservation on, is not available, whatever its `Available` condition says. This is
//! what keeps two quick evictions of one placement from spending the same disruption.

use super::budget::Counts;
use super::view::BindingView;

/// Counts `A` and `T` over all bindings of a placement. `reserved` names the bindings that
/// in-flight evictions other than the one being decided hold reservations on.
pub fn count<'a>(
    bindings: &[BindingView],
    reserved: impl IntoIterator<Item = &'a str> + Clone,
) -> Counts {
    let available = bindings
        .iter()
        .filter(|b| {
            b.is_available() && !b.deleting && !reserved.clone().into_iter().any(|r| r == b.name)
        })
        .count();
    Counts {
        available: available as i64,
        total: bindings.len() as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::view::fixtures::{bound, condition};

    #[test]
    fn counting_table() {
        let three = || {
            vec![
                bound("b1", "member-1"),
                bound("b2", "member-2"),
                bound("b3", "member-3"),
            ]
        };
        let rows: Vec<(&str, Vec<BindingView>, Vec<&str>, Counts)> = vec![
            (
                "all available",
                three(),
                vec![],
                Counts {
                    available: 3,
                    total: 3,
                },
            ),
            (
                "a deleting binding is unavailable but still in T (KubeFleet counts it available)",
                {
                    let mut b = three();
                    b[0].deleting = true;
                    b
                },
                vec![],
                Counts {
                    available: 2,
                    total: 3,
                },
            ),
            (
                "a binding reserved by another eviction is unavailable",
                three(),
                vec!["b2"],
                Counts {
                    available: 2,
                    total: 3,
                },
            ),
            (
                "a reservation on an already unavailable binding is not counted twice",
                {
                    let mut b = three();
                    b[1].conditions =
                        vec![condition("Available", "False", "NotAllWorkAreAvailable", 1)];
                    b
                },
                vec!["b2"],
                Counts {
                    available: 2,
                    total: 3,
                },
            ),
            (
                "a stale Available is not available",
                {
                    let mut b = three();
                    b[2].generation = 2;
                    b
                },
                vec![],
                Counts {
                    available: 2,
                    total: 3,
                },
            ),
            (
                "no bindings",
                vec![],
                vec![],
                Counts {
                    available: 0,
                    total: 0,
                },
            ),
        ];
        for (rule, bindings, reserved, want) in rows {
            assert_eq!(
                count(&bindings, reserved.iter().copied()),
                want,
                "rule: {rule}"
            );
        }
    }
}
