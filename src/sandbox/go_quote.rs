//! Go's `strconv.Quote` (`%q`), shared with the product: kube-apiserver's messages quote
//! names the same way Koordinator's do.

pub use crate::api::go_quote::go_quote;
