//! Label and field selectors, as kube-apiserver parses and applies them to list and watch
//! requests (`labelSelector`, `fieldSelector`) and to `metav1.LabelSelector` objects.
//!
//! Parsing follows apimachinery (Kubernetes 1.32) closely enough that a malformed selector
//! fails with the message a real server gives, since kubectl shows that message verbatim.

pub mod field;
pub mod label;
mod label_names;
mod label_parse;

pub use field::{FieldSelector, field_value, unknown_field_message, unsupported_field_message};
pub use label::{LabelSelector, Operator, Requirement};

/// A selector that cannot be parsed; the message is what the API server puts in its 400.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorError(pub String);
