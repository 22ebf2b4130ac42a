//! Label selectors (`metav1.LabelSelector`) as Kubernetes evaluates them: `matchLabels` and
//! `matchExpressions` with `In`, `NotIn`, `Exists` and `DoesNotExist`, all ANDed. A selector
//! is checked whole before it is evaluated, as `LabelSelectorAsSelector` does, so an invalid
//! selector is reported whatever the labels are, rather than only when it happens to be read.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

/// Whether `selector` selects `labels`; `None` (absent) and an empty selector select
/// everything. `Err` says why the selector is invalid.
pub fn matches(
    selector: Option<&LabelSelector>,
    labels: &BTreeMap<String, String>,
) -> Result<bool, String> {
    let Some(selector) = selector else {
        return Ok(true);
    };
    let pairs = selector.match_labels.iter().flatten();
    let expressions = selector.match_expressions.iter().flatten();
    for (key, value) in pairs.clone() {
        check_key(key)?;
        check_value(key, value)?;
    }
    for requirement in expressions.clone() {
        check_requirement(requirement)?;
    }
    let pairs_match = pairs.into_iter().all(|(k, v)| labels.get(k) == Some(v));
    Ok(pairs_match && expressions.into_iter().all(|r| holds(r, labels)))
}

fn holds(r: &LabelSelectorRequirement, labels: &BTreeMap<String, String>) -> bool {
    let values = r.values.as_deref().unwrap_or_default();
    let value = labels.get(&r.key);
    match r.operator.as_str() {
        "In" => value.is_some_and(|v| values.contains(v)),
        "NotIn" => value.is_none_or(|v| !values.contains(v)),
        "Exists" => value.is_some(),
        // Only `DoesNotExist` is left: `check_requirement` refused every other operator.
        _ => value.is_none(),
    }
}

fn check_requirement(r: &LabelSelectorRequirement) -> Result<(), String> {
    check_key(&r.key)?;
    let values = r.values.as_deref().unwrap_or_default();
    match r.operator.as_str() {
        "In" | "NotIn" if values.is_empty() => Err(format!(
            "operator {} on key {:?} needs at least one value",
            r.operator, r.key
        )),
        "In" | "NotIn" => values.iter().try_for_each(|v| check_value(&r.key, v)),
        "Exists" | "DoesNotExist" if !values.is_empty() => Err(format!(
            "operator {} on key {:?} takes no values",
            r.operator, r.key
        )),
        "Exists" | "DoesNotExist" => Ok(()),
        other => Err(format!("{other:?} is not a valid label selector operator")),
    }
}

/// A label key: an optional DNS subdomain prefix and `/`, then a name of at most 63
/// characters.
fn check_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let prefix_ok = prefix.is_none_or(is_dns_subdomain);
    if prefix_ok && !name.is_empty() && name.len() <= 63 && is_label_name(name) {
        Ok(())
    } else {
        Err(format!("invalid label key {key:?}"))
    }
}

/// A label value: empty, or a name of at most 63 characters.
fn check_value(key: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || (value.len() <= 63 && is_label_name(value)) {
        Ok(())
    } else {
        Err(format!("invalid label value {value:?} for key {key:?}"))
    }
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
fn is_label_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    let edge = |b: &u8| b.is_ascii_alphanumeric();
    let inner = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    match bytes {
        [] => false,
        [only] => edge(only),
        [first, middle @ .., last] => edge(first) && edge(last) && middle.iter().all(inner),
    }
}

/// Lower-case RFC 1123 labels joined by dots, at most 253 characters.
fn is_dns_subdomain(s: &str) -> bool {
    let label_ok = |l: &str| {
        let b = l.as_bytes();
        let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match b {
            [] => false,
            [only] => edge(only),
            [first, middle @ .., last] => {
                edge(first) && edge(last) && middle.iter().all(|c| edge(c) || *c == b'-')
            }
        }
    };
    !s.is_empty() && s.len() <= 253 && s.split('.').all(label_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn expr(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
        }
    }

    fn sel(match_labels: &[(&str, &str)], exprs: Vec<LabelSelectorRequirement>) -> LabelSelector {
        LabelSelector {
            match_labels: (!match_labels.is_empty()).then(|| labels(match_labels)),
            match_expressions: (!exprs.is_empty()).then_some(exprs),
        }
    }

    #[test]
    fn selector_table() {
        let web = labels(&[("app", "web"), ("tier", "front")]);
        type Row<'a> = (&'a str, Option<LabelSelector>, Result<bool, ()>);
        let rows: Vec<Row> = vec![
            ("absent selector matches everything", None, Ok(true)),
            (
                "empty selector matches everything",
                Some(sel(&[], vec![])),
                Ok(true),
            ),
            (
                "matchLabels all present",
                Some(sel(&[("app", "web"), ("tier", "front")], vec![])),
                Ok(true),
            ),
            (
                "matchLabels one differs",
                Some(sel(&[("app", "db")], vec![])),
                Ok(false),
            ),
            (
                "matchLabels key absent",
                Some(sel(&[("team", "a")], vec![])),
                Ok(false),
            ),
            (
                "In: value listed",
                Some(sel(&[], vec![expr("app", "In", &["db", "web"])])),
                Ok(true),
            ),
            (
                "In: value not listed",
                Some(sel(&[], vec![expr("app", "In", &["db"])])),
                Ok(false),
            ),
            (
                "In: key absent",
                Some(sel(&[], vec![expr("team", "In", &["a"])])),
                Ok(false),
            ),
            (
                "NotIn: value listed",
                Some(sel(&[], vec![expr("app", "NotIn", &["web"])])),
                Ok(false),
            ),
            (
                "NotIn: value not listed",
                Some(sel(&[], vec![expr("app", "NotIn", &["db"])])),
                Ok(true),
            ),
            (
                "NotIn: key absent matches",
                Some(sel(&[], vec![expr("team", "NotIn", &["a"])])),
                Ok(true),
            ),
            (
                "Exists: present",
                Some(sel(&[], vec![expr("tier", "Exists", &[])])),
                Ok(true),
            ),
            (
                "Exists: absent",
                Some(sel(&[], vec![expr("team", "Exists", &[])])),
                Ok(false),
            ),
            (
                "DoesNotExist: absent",
                Some(sel(&[], vec![expr("team", "DoesNotExist", &[])])),
                Ok(true),
            ),
            (
                "DoesNotExist: present",
                Some(sel(&[], vec![expr("app", "DoesNotExist", &[])])),
                Ok(false),
            ),
            (
                "matchLabels and expressions are ANDed",
                Some(sel(&[("app", "web")], vec![expr("tier", "In", &["back"])])),
                Ok(false),
            ),
            (
                "unknown operator is invalid",
                Some(sel(&[], vec![expr("app", "Equals", &["web"])])),
                Err(()),
            ),
            (
                "operators are case-sensitive",
                Some(sel(&[], vec![expr("app", "in", &["web"])])),
                Err(()),
            ),
            (
                "In without values is invalid",
                Some(sel(&[], vec![expr("app", "In", &[])])),
                Err(()),
            ),
            (
                "NotIn without values is invalid",
                Some(sel(&[], vec![expr("app", "NotIn", &[])])),
                Err(()),
            ),
            (
                "Exists with values is invalid",
                Some(sel(&[], vec![expr("app", "Exists", &["web"])])),
                Err(()),
            ),
            (
                "an invalid requirement is reported even after a failing one",
                Some(sel(&[("app", "db")], vec![expr("app", "Bogus", &[])])),
                Err(()),
            ),
            (
                "invalid key in matchLabels",
                Some(sel(&[("bad key", "x")], vec![])),
                Err(()),
            ),
            (
                "invalid value in matchLabels",
                Some(sel(&[("app", "-web")], vec![])),
                Err(()),
            ),
            (
                "invalid value in In",
                Some(sel(&[], vec![expr("app", "In", &["a b"])])),
                Err(()),
            ),
            (
                "prefixed key is valid",
                Some(sel(
                    &[],
                    vec![expr("example.com/team", "DoesNotExist", &[])],
                )),
                Ok(true),
            ),
            (
                "upper-case prefix is invalid",
                Some(sel(&[("Example.com/team", "a")], vec![])),
                Err(()),
            ),
            (
                "empty name after prefix is invalid",
                Some(sel(&[("example.com/", "a")], vec![])),
                Err(()),
            ),
            (
                "name over 63 characters is invalid",
                Some(sel(&[(&"a".repeat(64), "x")], vec![])),
                Err(()),
            ),
            (
                "empty value is valid and matches only empty",
                Some(sel(&[("app", "")], vec![])),
                Ok(false),
            ),
        ];
        for (rule, selector, want) in rows {
            let got = matches(selector.as_ref(), &web).map_err(|_| ());
            assert_eq!(got, want, "rule: {rule}");
        }
    }

    #[test]
    fn invalid_selectors_say_why() {
        let bad = sel(&[], vec![expr("app", "Equals", &["web"])]);
        assert_eq!(
            matches(Some(&bad), &BTreeMap::new()),
            Err("\"Equals\" is not a valid label selector operator".to_string())
        );
        let empty_in = sel(&[], vec![expr("app", "In", &[])]);
        assert_eq!(
            matches(Some(&empty_in), &BTreeMap::new()),
            Err("operator In on key \"app\" needs at least one value".to_string())
        );
    }
}
