//! The syntax of label keys and values, with the messages apimachinery's
//! `validation.IsQualifiedName` and `validation.IsValidLabelValue` give (Kubernetes 1.32).

const QUALIFIED_NAME_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;

const QUALIFIED_NAME_RULE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RULE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS1123_SUBDOMAIN_RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// What is wrong with a label key (`[prefix/]name`); empty when it is valid.
pub(super) fn qualified_name_errors(key: &str) -> Vec<String> {
    let parts: Vec<&str> = key.split('/').collect();
    let mut errors = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_string());
            } else {
                let prefixed = dns1123_subdomain_errors(prefix).into_iter();
                errors.extend(prefixed.map(|e| format!("prefix part {e}")));
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_string());
    } else if name.len() > QUALIFIED_NAME_MAX {
        errors.push(format!(
            "name part must be no more than {QUALIFIED_NAME_MAX} characters"
        ));
    }
    if !is_qualified_name_part(name) {
        errors.push(format!("name part {QUALIFIED_NAME_RULE}"));
    }
    errors
}

/// What is wrong with a label value; empty when it is valid.
pub(super) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        errors.push(format!("must be no more than {LABEL_VALUE_MAX} characters"));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errors.push(LABEL_VALUE_RULE.to_string());
    }
    errors
}

fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errors.push(format!(
            "must be no more than {DNS1123_SUBDOMAIN_MAX} characters"
        ));
    }
    if !value.split('.').all(is_dns1123_label) {
        errors.push(DNS1123_SUBDOMAIN_RULE.to_string());
    }
    errors
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let edge = |c: u8| c.is_ascii_alphanumeric();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    bounded_by(s.as_bytes(), edge, inner)
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns1123_label(s: &str) -> bool {
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    bounded_by(s.as_bytes(), edge, inner)
}

/// Non-empty, first and last bytes satisfy `edge`, every byte satisfies `inner`.
fn bounded_by(b: &[u8], edge: impl Fn(u8) -> bool, inner: impl Fn(&u8) -> bool) -> bool {
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) => edge(first) && edge(last) && b.iter().all(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_key_rules() {
        let long = "a".repeat(64);
        let cases: [(&str, &str, Vec<String>); 8] = [
            ("plain name", "app", vec![]),
            ("prefixed name", "example.com/app-name_1.x", vec![]),
            ("name of 63 characters", &long[..63], vec![]),
            (
                "name longer than 63",
                &long,
                vec!["name part must be no more than 63 characters".into()],
            ),
            (
                "name must end alphanumeric",
                "app-",
                vec![format!("name part {QUALIFIED_NAME_RULE}")],
            ),
            (
                "empty name fails both checks",
                "example.com/",
                vec![
                    "name part must be non-empty".into(),
                    format!("name part {QUALIFIED_NAME_RULE}"),
                ],
            ),
            (
                "uppercase prefix",
                "Example.com/app",
                vec![format!("prefix part {DNS1123_SUBDOMAIN_RULE}")],
            ),
            (
                "two slashes",
                "a/b/c",
                vec![format!(
                    "a qualified name {QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
                )],
            ),
        ];
        for (rule, key, expected) in cases {
            assert_eq!(qualified_name_errors(key), expected, "{rule}");
        }
    }

    #[test]
    fn label_value_rules() {
        let long = "v".repeat(64);
        let cases: [(&str, &str, Vec<String>); 5] = [
            ("empty value is valid", "", vec![]),
            ("dots dashes underscores inside", "a.b-c_d", vec![]),
            (
                "must start alphanumeric",
                "_a",
                vec![LABEL_VALUE_RULE.into()],
            ),
            ("no spaces", "a b", vec![LABEL_VALUE_RULE.into()]),
            (
                "at most 63 characters",
                &long,
                vec!["must be no more than 63 characters".into()],
            ),
        ];
        for (rule, value, expected) in cases {
            assert_eq!(label_value_errors(value), expected, "{rule}");
        }
    }
}
