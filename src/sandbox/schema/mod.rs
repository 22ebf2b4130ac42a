//! The one checker that decides whether a CRD is acceptable and whether an object is valid
//! against a CRD version's schema.
//!
//! Both the sandbox's API server (when a CRD is registered, and on every custom resource
//! write) and the CRD tests (for the CRDs we ship) use it, so a CRD our tests accept is a
//! CRD the sandbox accepts, and both follow what a real kube-apiserver (1.32) does:
//! structural-schema rules, OpenAPI value validation, CEL `x-kubernetes-validations` with
//! transition rules, pruning of unknown fields and defaulting — with the apiserver's error
//! messages and field paths.

mod cel_check;
mod cel_engine;
mod cel_value;
mod crd_checks;
mod errors;
mod formats;
mod go_format;
mod list_map_checks;
mod props;
mod prune;
mod rule_checks;
mod rule_eval;
mod schema_checks;
mod structural;
mod structural_invariants;
mod validate;
mod value_checks;

pub use errors::{FieldError, FieldErrorKind, aggregate_message};
pub use prune::{apply_defaults, prune};
pub use structural::check_crd;
pub use validate::validate;
