//! CEL rule builders for the CRD schemas, as macros so each rule stays one string literal.

/// A spec-level transition rule keeping an optional field as it was: it may be neither added,
/// removed nor changed after creation. (A rule on the field itself would not run when the
/// field is added or removed, since transition rules need both values present.)
macro_rules! immutable {
    ($field:literal) => {
        concat!(
            "has(self.",
            $field,
            ") == has(oldSelf.",
            $field,
            ") && (!has(self.",
            $field,
            ") || self.",
            $field,
            " == oldSelf.",
            $field,
            ")"
        )
    };
}

pub(crate) use immutable;
