//! Label selectors: the `labelSelector` query parameter and `metav1.LabelSelector` objects
//! (PDB, Deployment and ReplicaSet selectors), with apimachinery's semantics and messages.

use super::SelectorError;
use super::label_names::{label_value_errors, qualified_name_errors};
use super::label_parse;
use crate::sandbox::table::go_text::go_quote;
use serde_json::{Map, Value};

/// How a requirement relates a label to its values (`selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    In,
    NotIn,
    Equals,
    DoubleEquals,
    NotEquals,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One condition on one label key; all of a selector's requirements must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

/// A parsed label selector. `requirements: None` is the nil selector, which matches
/// nothing; an empty list matches everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Option<Vec<Requirement>>,
}

impl LabelSelector {
    /// Matches every object (an absent or empty `labelSelector`, an empty `{}` selector).
    pub fn everything() -> Self {
        Self {
            requirements: Some(Vec::new()),
        }
    }

    /// Matches no object: what a nil `metav1.LabelSelector` means (e.g. a PDB without one).
    pub fn nothing() -> Self {
        Self { requirements: None }
    }

    /// Parses the string form (`a=b,c in (x,y),!d`); the empty string selects everything.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut requirements = label_parse::parse(text).map_err(SelectorError)?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self {
            requirements: Some(requirements),
        })
    }

    /// Converts a `metav1.LabelSelector` JSON object (`LabelSelectorAsSelector`): `null` is
    /// the nil selector (nothing), `{}` selects everything.
    pub fn from_object(selector: &Value) -> Result<Self, SelectorError> {
        let object = match selector {
            Value::Null => return Ok(Self::nothing()),
            Value::Object(object) => object,
            _ => return Err(SelectorError("label selector must be an object".into())),
        };
        let mut requirements = match_labels(object.get("matchLabels"))?;
        requirements.extend(match_expressions(object.get("matchExpressions"))?);
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self {
            requirements: Some(requirements),
        })
    }

    /// Whether an object with these labels (its `metadata.labels`) is selected.
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        match &self.requirements {
            None => false,
            Some(requirements) => requirements.iter().all(|r| r.matches(labels)),
        }
    }

    /// True for a selector that selects every object.
    pub fn is_everything(&self) -> bool {
        self.requirements.as_ref().is_some_and(Vec::is_empty)
    }

    /// The requirements, sorted by key (none for the nil selector).
    pub fn requirements(&self) -> &[Requirement] {
        self.requirements.as_deref().unwrap_or_default()
    }
}

impl Requirement {
    /// `labels.NewRequirement`: checks the key, the number of values the operator takes and
    /// every value, and reports all problems in one aggregated message.
    pub(super) fn new(key: &str, operator: Operator, values: Vec<String>) -> Result<Self, String> {
        let mut problems = Vec::new();
        let key_errors = qualified_name_errors(key);
        if !key_errors.is_empty() {
            problems.push(invalid("key", &go_quote(key), &key_errors.join("; ")));
        }
        problems.extend(value_count_problems(operator, &values));
        for (i, value) in values.iter().enumerate() {
            let errors = label_value_errors(value);
            if !errors.is_empty() {
                let path = format!("values[{i}][{key}]");
                problems.push(invalid(&path, &go_quote(value), &errors.join("; ")));
            }
        }
        if problems.is_empty() {
            let key = key.to_string();
            return Ok(Self {
                key,
                operator,
                values,
            });
        }
        Err(aggregate(problems))
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn operator(&self) -> Operator {
        self.operator
    }

    pub fn values(&self) -> &[String] {
        &self.values
    }

    fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        let label = labels.and_then(|m| m.get(&self.key));
        // A non-string label (invalid in Kubernetes) is present but equals no value.
        let text = label.and_then(Value::as_str);
        let listed = text.is_some_and(|t| self.values.iter().any(|v| v == t));
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => listed,
            Operator::NotIn | Operator::NotEquals => !listed,
            Operator::Exists => label.is_some(),
            Operator::DoesNotExist => label.is_none(),
            Operator::GreaterThan | Operator::LessThan => self.compares(text),
        }
    }

    /// `Gt`/`Lt`: both the label and the single value must be integers.
    fn compares(&self, text: Option<&str>) -> bool {
        let label = text.and_then(|t| t.parse::<i64>().ok());
        let bound = match self.values.as_slice() {
            [only] => only.parse::<i64>().ok(),
            _ => None,
        };
        match (label, bound) {
            (Some(label), Some(bound)) if self.operator == Operator::GreaterThan => label > bound,
            (Some(label), Some(bound)) => label < bound,
            _ => false,
        }
    }
}

fn value_count_problems(operator: Operator, values: &[String]) -> Vec<String> {
    let shown = go_string_slice(values);
    let wrong_count = |detail: &str| vec![invalid("values", &shown, detail)];
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            wrong_count("for 'in', 'notin' operators, values set can't be empty")
        }
        Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if values.len() != 1 => {
            wrong_count("exact-match compatibility requires one single value")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            wrong_count("values set must be empty for exists and does not exist")
        }
        Operator::GreaterThan | Operator::LessThan => integer_value_problems(values),
        _ => Vec::new(),
    }
}

fn integer_value_problems(values: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    if values.len() != 1 {
        let detail = "for 'Gt', 'Lt' operators, exactly one value is required";
        problems.push(invalid("values", &go_string_slice(values), detail));
    }
    for (i, value) in values.iter().enumerate() {
        if value.parse::<i64>().is_err() {
            let detail = "for 'Gt', 'Lt' operators, the value must be an integer";
            problems.push(invalid(&format!("values[{i}]"), &go_quote(value), detail));
        }
    }
    problems
}

/// `field.Invalid(path, value, detail).Error()`.
pub(super) fn invalid(path: &str, shown_value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {shown_value}: {detail}")
}

/// `ErrorList.ToAggregate().Error()`: one message alone, several in brackets, no repeats.
fn aggregate(problems: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for problem in problems {
        if !unique.contains(&problem) {
            unique.push(problem);
        }
    }
    match unique.as_slice() {
        [only] => only.clone(),
        _ => format!("[{}]", unique.join(", ")),
    }
}

/// Go's `%#v` of the `[]string` NewRequirement received; selectors pass nil when empty.
fn go_string_slice(values: &[String]) -> String {
    if values.is_empty() {
        return "[]string(nil)".to_string();
    }
    let quoted: Vec<String> = values.iter().map(|v| go_quote(v)).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

fn match_labels(value: Option<&Value>) -> Result<Vec<Requirement>, SelectorError> {
    let labels = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(labels)) => labels,
        Some(_) => return Err(SelectorError("matchLabels must be an object".into())),
    };
    let mut keys: Vec<&String> = labels.keys().collect();
    keys.sort();
    keys.into_iter()
        .map(|key| {
            let text = labels
                .get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| SelectorError(format!("matchLabels[{key}] must be a string")))?;
            Requirement::new(key, Operator::Equals, vec![text.to_string()]).map_err(SelectorError)
        })
        .collect()
}

fn match_expressions(value: Option<&Value>) -> Result<Vec<Requirement>, SelectorError> {
    let expressions = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(expressions)) => expressions,
        Some(_) => return Err(SelectorError("matchExpressions must be a list".into())),
    };
    expressions.iter().map(expression_requirement).collect()
}

fn expression_requirement(expression: &Value) -> Result<Requirement, SelectorError> {
    let text = |field: &str| expression.get(field).and_then(Value::as_str).unwrap_or("");
    let operator = match text("operator") {
        "In" => Operator::In,
        "NotIn" => Operator::NotIn,
        "Exists" => Operator::Exists,
        "DoesNotExist" => Operator::DoesNotExist,
        other => {
            let message = format!("{} is not a valid label selector operator", go_quote(other));
            return Err(SelectorError(message));
        }
    };
    let values = match expression.get("values") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| SelectorError("matchExpressions values must be strings".into()))?,
        Some(_) => {
            return Err(SelectorError(
                "matchExpressions values must be a list".into(),
            ));
        }
    };
    Requirement::new(text("key"), operator, values).map_err(SelectorError)
}

#[cfg(test)]
#[path = "label_tests.rs"]
mod tests;
