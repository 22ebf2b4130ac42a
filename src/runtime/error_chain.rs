//! One-line descriptions of nested errors. Client errors wrap the useful part several
//! layers deep ("client error (Connect)" hides "Connection refused"), so messages for
//! operators walk the whole chain.

use std::error::Error;

/// `outer: cause: root cause`, skipping a cause whose text an outer layer already printed.
pub fn describe(err: &(dyn Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !text.is_empty() && !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{text}")]
    struct Layer {
        text: &'static str,
        #[source]
        source: Option<Box<Layer>>,
    }

    fn chain(texts: &[&'static str]) -> Layer {
        let mut layer: Option<Box<Layer>> = None;
        for text in texts.iter().rev() {
            layer = Some(Box::new(Layer {
                text,
                source: layer,
            }));
        }
        *layer.expect("at least one layer")
    }

    #[test]
    fn describe_table() {
        let cases: &[(&[&'static str], &str, &str)] = &[
            (&["refused"], "refused", "single error"),
            (
                &[
                    "client error (Connect)",
                    "tcp connect error",
                    "Connection refused",
                ],
                "client error (Connect): tcp connect error: Connection refused",
                "every layer",
            ),
            (
                &[
                    "ServiceError: client error (Connect)",
                    "client error (Connect)",
                    "refused",
                ],
                "ServiceError: client error (Connect): refused",
                "a cause already printed by its wrapper is skipped",
            ),
            (&["outer", ""], "outer", "empty causes add nothing"),
        ];
        for (texts, want, rule) in cases {
            assert_eq!(describe(&chain(texts)), *want, "rule: {rule}");
        }
    }
}
