//! Logging: tracing events to stderr, as text or JSON lines, filtered by `--log-filter`.
//! Logs go to stderr so stdout stays free for what a command prints on purpose (the CRD
//! YAML of `crds`, the ready line of the embedded fleet).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use super::options::{LogFormat, ProcessArgs};

/// The filter when neither `--log-filter` nor RUST_LOG says anything.
pub const DEFAULT_FILTER: &str = "info";

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error(
        "invalid --log-filter {filter:?}: {cause}. Use tracing's EnvFilter syntax, e.g. `info` \
         or `info,fleet_eviction=debug`"
    )]
    Filter { filter: String, cause: String },
    #[error("cannot install the logger: {0}")]
    Install(String),
}

/// `--log-filter` (which clap already fills from RUST_LOG), else `info`. An empty value
/// counts as unset: `RUST_LOG=` in a Helm chart must not silence the controller.
pub fn effective_filter(flag: Option<&str>) -> &str {
    match flag.map(str::trim) {
        Some(filter) if !filter.is_empty() => filter,
        _ => DEFAULT_FILTER,
    }
}

/// Parses a filter strictly, so a typo is reported instead of silently logging nothing.
pub fn parse_filter(filter: &str) -> Result<EnvFilter, TelemetryError> {
    EnvFilter::builder()
        .parse(filter)
        .map_err(|e| TelemetryError::Filter {
            filter: filter.to_string(),
            cause: e.to_string(),
        })
}

/// Installs the global subscriber. Call once per process, before anything logs.
pub fn init(args: &ProcessArgs) -> Result<(), TelemetryError> {
    let filter = parse_filter(effective_filter(args.log_filter.as_deref()))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let installed = match args.log_format {
        LogFormat::Text => builder
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder.json().with_current_span(false).try_init(),
    };
    installed.map_err(|e| TelemetryError::Install(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_filter_table() {
        let cases: &[(Option<&str>, &str, &str)] = &[
            (None, "info", "nothing set"),
            (Some(""), "info", "empty RUST_LOG counts as unset"),
            (Some("  "), "info", "blank counts as unset"),
            (Some("debug"), "debug", "flag or RUST_LOG wins"),
            (
                Some("info,kube=warn"),
                "info,kube=warn",
                "directives kept as given",
            ),
        ];
        for (flag, want, rule) in cases {
            assert_eq!(effective_filter(*flag), *want, "rule: {rule}");
        }
    }

    #[test]
    fn parse_filter_table() {
        let cases: &[(&str, bool, &str)] = &[
            ("info", true, "level"),
            ("info,fleet_eviction=debug", true, "per-target level"),
            ("fleet_eviction::runtime=trace", true, "module path"),
            ("info,fleet_eviction=loud", false, "unknown level"),
            ("[{", false, "broken span syntax"),
        ];
        for (filter, ok, rule) in cases {
            let got = parse_filter(filter);
            assert_eq!(got.is_ok(), *ok, "rule: {rule} ({filter:?})");
            if let Err(e) = got {
                assert!(
                    e.to_string().contains("--log-filter"),
                    "message names the flag: {e}"
                );
            }
        }
    }
}
