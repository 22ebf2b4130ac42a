//! §2 Validation: the first failing check wins; a valid eviction targets exactly one binding.

use super::messages;
use super::view::{BindingView, PlacementKind, PlacementView};

/// Why an eviction is invalid (`Valid=False`), in the order the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    MissingCrp,
    DeletingCrp,
    PickFixed,
    MissingCrb,
    MultipleCrb,
}

impl Invalid {
    pub fn message(self) -> &'static str {
        match self {
            Invalid::MissingCrp => messages::MISSING_CRP,
            Invalid::DeletingCrp => messages::DELETING_CRP,
            Invalid::PickFixed => messages::PICK_FIXED,
            Invalid::MissingCrb => messages::MISSING_CRB,
            Invalid::MultipleCrb => messages::MULTIPLE_CRB,
        }
    }

    /// Verdicts drawn from the absence of an object: the controller confirms them against
    /// the API before writing them, because a watch cache may simply lag (§4.3).
    pub fn needs_confirmation(self) -> bool {
        matches!(self, Invalid::MissingCrp | Invalid::MissingCrb)
    }
}

/// Validates an eviction of `placement` from `cluster`; `bindings` are all of the
/// placement's bindings, deleting ones included. Returns the target binding.
pub fn validate<'a>(
    placement: Option<&PlacementView>,
    cluster: &str,
    bindings: &'a [BindingView],
) -> Result<&'a BindingView, Invalid> {
    let placement = placement.ok_or(Invalid::MissingCrp)?;
    if placement.deleting {
        return Err(Invalid::DeletingCrp);
    }
    if placement.kind == PlacementKind::PickFixed {
        return Err(Invalid::PickFixed);
    }
    let mut on_cluster = bindings.iter().filter(|b| b.target_cluster == cluster);
    match (on_cluster.next(), on_cluster.next()) {
        (None, _) => Err(Invalid::MissingCrb),
        (Some(_), Some(_)) => Err(Invalid::MultipleCrb),
        (Some(target), None) => Ok(target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::view::fixtures::{bound, placement};

    #[test]
    fn validation_table() {
        let deleting_crp = PlacementView {
            deleting: true,
            ..placement(PlacementKind::PickAll)
        };
        let mut deleting_binding = bound("b1", "member-1");
        deleting_binding.deleting = true;
        let pick_all = placement(PlacementKind::PickAll);
        let pick_fixed = placement(PlacementKind::PickFixed);
        let one = vec![bound("b1", "member-1"), bound("b2", "member-2")];
        let two = vec![bound("b1", "member-1"), bound("b1b", "member-1")];
        type Row<'a> = (
            &'a str,
            Option<&'a PlacementView>,
            Vec<BindingView>,
            Result<&'a str, Invalid>,
        );
        let rows: Vec<Row> = vec![
            (
                "§2.1 missing placement",
                None,
                one.clone(),
                Err(Invalid::MissingCrp),
            ),
            (
                "§2.2 deleting placement, checked before bindings",
                Some(&deleting_crp),
                vec![],
                Err(Invalid::DeletingCrp),
            ),
            (
                "§2.3 PickFixed, checked before bindings",
                Some(&pick_fixed),
                vec![],
                Err(Invalid::PickFixed),
            ),
            (
                "§2.4 no binding on the cluster",
                Some(&pick_all),
                vec![bound("b2", "member-2")],
                Err(Invalid::MissingCrb),
            ),
            (
                "§2.4 two bindings on the cluster",
                Some(&pick_all),
                two,
                Err(Invalid::MultipleCrb),
            ),
            (
                "§2.4 a deleting binding still counts",
                Some(&pick_all),
                vec![deleting_binding.clone(), bound("b1b", "member-1")],
                Err(Invalid::MultipleCrb),
            ),
            (
                "§2.5 valid: the one binding is the target",
                Some(&pick_all),
                one,
                Ok("b1"),
            ),
            (
                "§2.5 a deleting binding alone is a valid target",
                Some(&pick_all),
                vec![deleting_binding],
                Ok("b1"),
            ),
        ];
        for (rule, crp, bindings, want) in rows {
            let got = validate(crp, "member-1", &bindings).map(|b| b.name.as_str());
            assert_eq!(got, want, "rule: {rule}");
        }
    }

    #[test]
    fn messages_are_kubefleets() {
        assert_eq!(
            Invalid::MissingCrb.message(),
            "Failed to find scheduler decision for placement in cluster targeted by eviction"
        );
        assert!(Invalid::MissingCrp.needs_confirmation());
        assert!(!Invalid::PickFixed.needs_confirmation());
    }
}
